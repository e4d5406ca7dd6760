//! Edits of a parsed chain. Each rebuilds the nodes it touches through their
//! constructors, so cached sizes stay right.

use super::error::AstError;
use super::sanitize::{sanitize_arguments_text, SanitizeOutcome};
use super::tool_id::{seed_from, IdTemplate};
use super::{BodyPair, ChainAst, Header, PairKind, Section};
use crate::hashing::{HashMap, HashSet};
use crate::message::{Message, Part, Role, ToolResultPart};
use serde::Serialize;

/// A tool-call id rewritten by [`ChainAst::normalize_tool_call_ids`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct RenamedId {
    pub old: String,
    pub new: String,
}

/// A tool call whose arguments [`ChainAst::sanitize_arguments`] changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SanitizedCall {
    pub call_id: String,
    /// True when the arguments were beyond repair and replaced by `{}`.
    pub replaced: bool,
}

/// [`ChainAst::normalize_tool_call_ids`] on a message list that need not parse (two user
/// messages in a row, a turn whose calls wait for their results: what providers and
/// `validateChain` accept): each assistant message's calls, and the results in the tool
/// messages after it (up to the next assistant message) that answer them. Returns the
/// messages, and the ids rewritten in chain order.
pub fn normalize_tool_call_ids_in(
    messages: &[Message],
    template: &IdTemplate,
) -> Result<(Vec<Message>, Vec<RenamedId>), AstError> {
    let mut taken: HashSet<String> = messages.iter().flat_map(Message::tool_calls).map(|c| c.id.clone()).collect();
    let mut renamed = Vec::new();
    let mut out = messages.to_vec();
    let mut mapping: HashMap<String, String> = HashMap::default();
    for m in &mut out {
        match m.role {
            Role::Assistant => mapping = rename_calls(m, template, &mut taken, &mut renamed)?,
            Role::Tool if !mapping.is_empty() => rename_results(m, &mapping),
            _ => {}
        }
    }
    Ok((out, renamed))
}

/// Renames the calls of `ai` whose id does not fit `template`; returns old id -> new id.
fn rename_calls(
    ai: &mut Message,
    template: &IdTemplate,
    taken: &mut HashSet<String>,
    renamed: &mut Vec<RenamedId>,
) -> Result<HashMap<String, String>, AstError> {
    let mut mapping: HashMap<String, String> = HashMap::default();
    for part in &mut ai.parts {
        let Part::ToolCall(call) = part else { continue };
        if template.validate(&call.id, &call.name).is_ok() {
            continue;
        }
        let new_id = fresh_id(template, &call.id, &call.name, taken)?;
        taken.insert(new_id.clone());
        mapping.insert(call.id.clone(), new_id.clone());
        renamed.push(RenamedId { old: std::mem::replace(&mut call.id, new_id.clone()), new: new_id });
    }
    Ok(mapping)
}

/// Gives the results of `tool` that answer a renamed call its new id.
fn rename_results(tool: &mut Message, mapping: &HashMap<String, String>) {
    for part in &mut tool.parts {
        if let Part::ToolResult(r) = part {
            if let Some(new_id) = mapping.get(&r.call_id) {
                r.call_id = new_id.clone();
            }
        }
    }
}

impl ChainAst<'_> {
    /// Adds a user message with `text`: a new section when the chain is empty or the last
    /// section has replies; otherwise into the last header (a new user message, or a new
    /// text part of the existing one).
    pub fn append_human_message(&mut self, text: &str) {
        let part = Part::text(text);
        let sections = self.sections_mut();
        let Some(last) = sections.last_mut().filter(|s| s.body().is_empty()) else {
            let header = Header::build(Vec::<Message>::new(), Some(Message::new(Role::User, vec![part])));
            sections.push(Section::new(header, Vec::new()));
            return;
        };
        let human = match last.header().human() {
            Some(h) => {
                let mut h = h.clone();
                h.parts.push(part);
                h
            }
            None => Message::new(Role::User, vec![part]),
        };
        let header = last.header().with_human(Some(human));
        last.set_header(header);
    }

    /// Sets the result of tool call `id`: replaces the content of its existing result, or
    /// adds a result (to the pair's last tool message, or as a new one).
    pub fn add_tool_response(&mut self, id: &str, name: &str, content: &str) -> Result<(), AstError> {
        for section in self.sections_mut().iter_mut() {
            let found = section
                .body()
                .iter()
                .position(|p| p.kind() != PairKind::Completion && p.ai().tool_calls().any(|c| c.id == id));
            let Some(index) = found else { continue };
            let Some(pair) = section.body().get(index) else {
                continue;
            };
            let mut tools = pair.tools().to_vec();
            // Only the message holding the result is copied to change it.
            let holder = tools.iter_mut().find(|m| m.tool_results().any(|r| r.call_id == id));
            let existing = holder.and_then(|m| {
                m.to_mut().parts.iter_mut().find_map(|p| match p {
                    Part::ToolResult(r) if r.call_id == id => Some(r),
                    _ => None,
                })
            });
            if let Some(result) = existing {
                result.content = vec![Part::text(content)];
            } else {
                let result = Part::ToolResult(ToolResultPart {
                    call_id: id.to_string(),
                    name: Some(name.to_string()),
                    content: vec![Part::text(content)],
                    is_error: false,
                    extra: Default::default(),
                });
                match tools.last_mut() {
                    Some(last) => last.to_mut().parts.push(result),
                    None => tools.push(Message::new(Role::Tool, vec![result]).into()),
                }
            }
            let rebuilt = BodyPair::build(pair.ai().clone(), tools);
            section.replace_pair(index, rebuilt);
            return Ok(());
        }
        Err(AstError::ToolCallNotFound { id: id.to_string() })
    }

    /// Every result answering tool call `id`, in chain order.
    pub fn find_tool_responses(&self, id: &str) -> Vec<&ToolResultPart> {
        self.sections()
            .iter()
            .flat_map(Section::body)
            .flat_map(BodyPair::tools)
            .flat_map(|m| m.tool_results())
            .filter(|r| r.call_id == id)
            .collect()
    }

    /// Rewrites every tool-call id that does not fit `template` with a new one (unique in
    /// the chain, deterministic) and renames the results that answer it. Ids that fit
    /// are kept.
    pub fn normalize_tool_call_ids(&mut self, template: &IdTemplate) -> Result<Vec<RenamedId>, AstError> {
        let mut taken: HashSet<String> = self
            .sections()
            .iter()
            .flat_map(Section::body)
            .flat_map(|p| p.ai().tool_calls())
            .map(|c| c.id.clone())
            .collect();
        let mut renamed = Vec::new();
        for section in self.sections_mut().iter_mut() {
            let mut body = Vec::with_capacity(section.body().len());
            let mut changed = false;
            for pair in section.body() {
                let mut ai = pair.ai().clone();
                let mapping = rename_calls(&mut ai, template, &mut taken, &mut renamed)?;
                if mapping.is_empty() {
                    body.push(pair.clone());
                    continue;
                }
                changed = true;
                let mut tools = pair.tools().to_vec();
                for tool in &mut tools {
                    rename_results(tool.to_mut(), &mapping);
                }
                body.push(BodyPair::build(ai, tools));
            }
            if changed {
                section.set_body(body);
            }
        }
        Ok(renamed)
    }

    /// Makes every tool call's arguments valid JSON: raw control characters inside
    /// strings are escaped; arguments beyond repair become `{}`. Returns what changed.
    pub fn sanitize_arguments(&mut self) -> Vec<SanitizedCall> {
        let mut changed_calls = Vec::new();
        for section in self.sections_mut().iter_mut() {
            let mut changed = false;
            let body: Vec<BodyPair> = section
                .body()
                .iter()
                .map(|pair| {
                    let mut ai = pair.ai().clone();
                    let mut touched = false;
                    for part in &mut ai.parts {
                        let Part::ToolCall(call) = part else { continue };
                        let replaced = match sanitize_arguments_text(&call.arguments) {
                            SanitizeOutcome::Valid => continue,
                            SanitizeOutcome::Escaped(s) => {
                                call.arguments = s;
                                false
                            }
                            SanitizeOutcome::Replaced => {
                                call.arguments = super::parse::FALLBACK_TOOL_ARGS.to_string();
                                true
                            }
                        };
                        touched = true;
                        changed_calls.push(SanitizedCall { call_id: call.id.clone(), replaced });
                    }
                    if touched {
                        changed = true;
                        BodyPair::build(ai, pair.tools().to_vec())
                    } else {
                        pair.clone()
                    }
                })
                .collect();
            if changed {
                section.set_body(body);
            }
        }
        changed_calls
    }
}

/// A deterministic id for `old` that fits `template` and is not yet taken.
fn fresh_id(template: &IdTemplate, old: &str, function: &str, taken: &HashSet<String>) -> Result<String, AstError> {
    let base = seed_from(&[old.as_bytes(), function.as_bytes()]);
    let attempts: u64 = if template.has_random() { 64 } else { 1 };
    (0..attempts)
        .map(|i| template.generate(function, base.wrapping_add(i)))
        .find(|id| !taken.contains(id))
        .ok_or_else(|| AstError::IdCollision { id: old.to_string() })
}
