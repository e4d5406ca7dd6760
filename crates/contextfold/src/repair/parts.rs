//! Part rules every provider shares: a part must fit its message's role (tool calls in
//! assistant messages, tool results in tool messages and nothing else there), media need
//! a URL or data, a tool result's content holds only text and media, call ids are not
//! empty, and one assistant message never uses a call id twice. The same rules as the
//! strict chain parser ([`crate::ast::PartRule`]), so repaired chains parse.
//!
//! Repair drops the culprit (a nested culprit is dropped from its result's content) and
//! lists the drop; the later of two calls with one id goes (its duplicate result then
//! goes too, as a second result for the first call).

use super::{Draft, RepairStep};
use crate::ast::PartRule;
use crate::hashing::HashSet;
use crate::message::{Part, Role};

/// What is wrong with a part where it stands.
pub(crate) enum Verdict {
    Fine,
    /// The part itself breaks a rule.
    Invalid(PartRule),
    /// Parts of a tool result's content break a rule: (content position, rule).
    BadContent(Vec<(usize, PartRule)>),
}

pub(crate) fn check(role: Role, part: &Part) -> Verdict {
    match part {
        Part::ToolCall(_) if role != Role::Assistant => Verdict::Invalid(PartRule::ToolCallOutsideAssistant),
        Part::ToolCall(c) if c.id.is_empty() => Verdict::Invalid(PartRule::EmptyToolCallId),
        Part::ToolResult(_) if role != Role::Tool => Verdict::Invalid(PartRule::ToolResultOutsideTool),
        Part::ToolResult(r) if r.call_id.is_empty() => Verdict::Invalid(PartRule::EmptyToolCallId),
        Part::ToolResult(r) => {
            let bad: Vec<(usize, PartRule)> = r
                .content
                .iter()
                .enumerate()
                .filter_map(|(i, c)| match c {
                    Part::Text(_) => None,
                    Part::Image(_) | Part::File(_) if !c.has_media_source() => Some((i, PartRule::MediaWithoutSource)),
                    Part::Image(_) | Part::File(_) => None,
                    _ => Some((i, PartRule::NestedPartInToolResult)),
                })
                .collect();
            if bad.is_empty() {
                Verdict::Fine
            } else {
                Verdict::BadContent(bad)
            }
        }
        _ if role == Role::Tool && part.is_native_block() => Verdict::Fine,
        _ if role == Role::Tool => Verdict::Invalid(PartRule::NonResultInToolMessage),
        Part::Image(_) | Part::File(_) if !part.has_media_source() => Verdict::Invalid(PartRule::MediaWithoutSource),
        _ => Verdict::Fine,
    }
}

/// True when the part is a valid tool call (so it takes part in tool pairing).
pub(crate) fn is_valid_call(role: Role, part: &Part) -> bool {
    matches!(part, Part::ToolCall(c) if role == Role::Assistant && !c.id.is_empty())
}

/// The ids of one message's valid calls, in order, telling each repeat of an earlier id.
/// A message holds a few calls: each is compared with those before it, no set is made
/// (a set past a few dozen, where comparing would cost more).
#[derive(Default)]
pub(crate) struct CallIds<'p> {
    kept: Vec<&'p str>,
    set: Option<HashSet<&'p str>>,
}

/// Calls of one message compared one by one for repeated ids; more go in a set.
const SCANNED_CALLS: usize = 32;

impl<'p> CallIds<'p> {
    /// Whether `id` was seen before (else it is kept).
    pub(crate) fn repeated(&mut self, id: &'p str) -> bool {
        if let Some(set) = &mut self.set {
            return !set.insert(id);
        }
        if self.kept.contains(&id) {
            return true;
        }
        self.kept.push(id);
        if self.kept.len() > SCANNED_CALLS {
            self.set = Some(self.kept.drain(..).collect());
        }
        false
    }
}

/// Positions of the calls in `parts` that reuse an id of an earlier valid call of the
/// same message.
pub(crate) fn duplicate_calls<'p>(role: Role, parts: impl Iterator<Item = (usize, &'p Part)>) -> Vec<(usize, String)> {
    let mut ids = CallIds::default();
    let mut out = Vec::new();
    for (i, p) in parts {
        if let Part::ToolCall(c) = p {
            if is_valid_call(role, p) && ids.repeated(c.id.as_str()) {
                out.push((i, c.id.clone()));
            }
        }
    }
    out
}

/// Drops invalid parts, invalid content of tool results and duplicate calls.
pub(crate) fn clean(draft: &mut Draft<'_>, steps: &mut Vec<RepairStep>) {
    let index = draft.index;
    let role = draft.source.role;
    let before = draft.parts.len();
    let mut rewritten = false;
    draft.parts.retain_mut(|(part, p)| match check(role, p) {
        Verdict::Fine => true,
        Verdict::Invalid(rule) => {
            steps.push(RepairStep::DroppedInvalidPart { index, part: *part, content: None, rule });
            false
        }
        Verdict::BadContent(bad) => {
            let drop: HashSet<usize> = bad.iter().map(|(i, _)| *i).collect();
            if let Part::ToolResult(r) = p.to_mut() {
                r.content = std::mem::take(&mut r.content)
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| !drop.contains(i))
                    .map(|(_, c)| c)
                    .collect();
            }
            for (content, rule) in bad {
                steps.push(RepairStep::DroppedInvalidPart { index, part: *part, content: Some(content), rule });
            }
            rewritten = true;
            true
        }
    });
    let duplicates = duplicate_calls(role, draft.parts.iter().map(|(i, p)| (*i, p.as_ref())));
    let positions: HashSet<usize> = duplicates.iter().map(|(i, _)| *i).collect();
    for (part, call_id) in duplicates {
        steps.push(RepairStep::DroppedDuplicateCall { index, part, call_id });
    }
    draft.parts.retain(|(i, _)| !positions.contains(i));
    if rewritten || draft.parts.len() != before {
        draft.changed = true;
    }
}
