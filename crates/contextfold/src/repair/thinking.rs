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

use super::{Draft, RepairOptions, RepairStep};
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
