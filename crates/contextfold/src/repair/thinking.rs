//! The thinking rule (SEMANTICS §5.2, §6): Anthropic signs a thinking block against
//! everything before it, so once history before a kept thinking block was rewritten the
//! block is rejected. Then older thinking is dropped and only the current tool cycle (the
//! assistant messages after the last real user message, not a tool result) keeps its
//! reasoning. Only whole reasoning parts are dropped (redacted thinking included);
//! signatures, and tool-call signatures (Gemini's thought signatures stay on their part),
//! are never altered.
//!
//! Stale thinking needs knowledge of what the provider saw before, which the chain alone
//! does not carry: the rule runs only when [`RepairOptions::history_changed_from`] is set
//! (as [`super::repair_compacted`] does), and only for providers that sign thinking
//! against its history ([`super::Provider::drops_stale_thinking`]).

use super::{Draft, Item, RepairOptions, RepairStep};
use crate::message::{Message, Part, Role};

/// Where older thinking must go: in assistant messages before `current_cycle`.
pub(crate) struct StaleThinking {
    current_cycle: Option<usize>,
}

impl StaleThinking {
    /// Finds whether any thinking outside the current tool cycle has a rewritten history:
    /// it sits in an assistant message at or after `history_changed_from`.
    pub fn find(messages: &[Message], options: &RepairOptions) -> StaleThinking {
        let none = StaleThinking { current_cycle: None };
        let Some(changed) = options.history_changed_from else {
            return none;
        };
        if !options.provider.drops_stale_thinking() {
            return none;
        }
        let Some(cycle) = current_cycle_start(messages) else {
            return none;
        };
        let kept_from = options.thinking_kept_last.map(|n| messages.len().saturating_sub(n));
        let last_user = kept_from.map_or(cycle, |from| from.min(cycle));
        let stale = messages
            .iter()
            .enumerate()
            .take(last_user)
            .skip(changed)
            .any(|(_, m)| m.role == Role::Assistant && has_reasoning(m));
        StaleThinking { current_cycle: stale.then_some(last_user) }
    }

    /// Drops the reasoning parts of `draft` when it is older thinking to drop.
    pub fn drop_parts(&self, draft: &mut Draft<'_>, steps: &mut Vec<RepairStep>) {
        let Some(current_cycle) = self.current_cycle else {
            return;
        };
        if draft.index >= current_cycle || draft.source.role != Role::Assistant {
            return;
        }
        let index = draft.index;
        draft.retain(|part, p| {
            let reasoning = matches!(p, Part::Reasoning(_));
            if reasoning {
                steps.push(RepairStep::DroppedThinking { index, part });
            }
            !reasoning
        });
    }
}

/// The last real user message: one right after tool results is the rest of their turn
/// (Anthropic sends text after the `tool_result` blocks in the same user message, and the
/// assistant message whose calls they answer must keep its thinking), not a new request.
pub(crate) fn current_cycle_start(messages: &[Message]) -> Option<usize> {
    let mut end = messages.len();
    loop {
        let at = messages.get(..end)?.iter().rposition(|m| m.role == Role::User)?;
        let after_results = at.checked_sub(1).and_then(|i| messages.get(i)).is_some_and(|m| m.role == Role::Tool);
        if !after_results {
            return Some(at);
        }
        end = at;
    }
}

fn has_reasoning(m: &Message) -> bool {
    m.parts.iter().any(|p| matches!(p, Part::Reasoning(_)))
}

/// Drops thinking that carries no signature (and is not redacted) for providers that reject
/// it: Anthropic answers 400 to a `thinking` block without `signature`.
pub(crate) fn drop_unsigned(draft: &mut Draft<'_>, provider: super::Provider, steps: &mut Vec<RepairStep>) {
    if !provider.requires_signed_thinking() {
        return;
    }
    let index = draft.index;
    draft.retain(|part, p| {
        let unsigned = is_unsigned(p);
        if unsigned {
            steps.push(RepairStep::DroppedUnsignedThinking { index, part });
        }
        !unsigned
    });
}

/// A reasoning part with neither a signature nor redacted data.
pub(crate) fn is_unsigned(p: &Part) -> bool {
    matches!(p, Part::Reasoning(r) if r.signature.as_deref().is_none_or(str::is_empty) && r.redacted_data.is_none())
}

/// With thinking on, Anthropic wants the final assistant message to start with a thinking
/// block when the user's turn after it carries its tool results ("a final assistant
/// message must start with a thinking block"). A summary pair (`sections`, `budget`) right
/// before the latest user message is such a message without thinking (its result rides in
/// the user's turn on the wire): its summary goes to the user's turn as text instead. That
/// turn then follows the pair before it, if one stands there (an earlier section's: its
/// user message joins the turn on the wire), which is in turn the final assistant
/// message: so on, until the final assistant message is not a summary pair.
pub(crate) fn summary_pairs_to_user(mut items: Vec<Item>, steps: &mut Vec<RepairStep>) -> Vec<Item> {
    while let Some(call_at) = final_summary_pair(&items.iter().map(|i| &i.msg).collect::<Vec<_>>()) {
        let results = items.iter().skip(call_at.saturating_add(1)).take_while(|i| i.msg.role == Role::Tool).count();
        let user_at = call_at.saturating_add(1).saturating_add(results);
        let mut origin = None;
        let summary: Vec<Part> = items
            .drain(call_at..user_at)
            .inspect(|i| {
                origin.get_or_insert(i.origin);
            })
            .filter(|i| i.msg.role == Role::Tool)
            .flat_map(|i| i.msg.parts)
            .flat_map(|p| match p {
                Part::ToolResult(r) => r.content,
                _ => Vec::new(),
            })
            .collect();
        let Some(user) = items.get_mut(call_at) else { break };
        let mut parts = summary;
        parts.append(&mut user.msg.parts);
        user.msg.parts = parts;
        if let Some(index) = origin {
            steps.push(RepairStep::SummaryToUser { index, into: user.origin });
        }
    }
    items
}

/// [`summary_pairs_to_user`] of a chain (a strategy's result, before its repair).
pub fn summary_pairs_as_user(messages: Vec<Message>) -> Vec<Message> {
    let items = messages.into_iter().enumerate().map(|(origin, msg)| Item { msg, origin }).collect();
    summary_pairs_to_user(items, &mut Vec::new()).into_iter().map(|i| i.msg).collect()
}

/// Where the final assistant message is, when it is a summary pair's call answered by the
/// tool messages right after it, with only user messages after them.
fn final_summary_pair(all: &[&Message]) -> Option<usize> {
    let call_at = all.iter().rposition(|m| m.role == Role::Assistant)?;
    let call = all.get(call_at)?;
    let is_pair_call = !call.parts.is_empty()
        && call.parts.iter().all(|p| matches!(p, Part::ToolCall(c) if c.name == crate::ast::SUMMARIZATION_TOOL_NAME));
    let rest = all.get(call_at.saturating_add(1)..)?;
    let results = rest.iter().take_while(|m| m.role == Role::Tool).count();
    let users = rest.get(results..)?;
    let user_follows = !users.is_empty() && users.iter().all(|m| m.role == Role::User);
    (is_pair_call && results > 0 && user_follows).then_some(call_at)
}

/// With thinking on, where the final assistant message is (the first of the run of
/// assistant messages it is on the wire) when the user's turn after it carries its tool
/// results and it does not start with a thinking block: Anthropic rejects it.
pub(crate) fn final_call_without_thinking(messages: &[Message]) -> Option<usize> {
    let last = messages.iter().rposition(|m| m.role == Role::Assistant)?;
    let answered = messages.get(last.saturating_add(1)..)?.iter().any(|m| m.role == Role::Tool);
    let first =
        messages.get(..=last)?.iter().rposition(|m| m.role != Role::Assistant).map_or(0, |at| at.saturating_add(1));
    let thinks = messages.get(first)?.parts.first().is_some_and(|p| matches!(p, Part::Reasoning(_)));
    (answered && !thinks).then_some(first)
}
