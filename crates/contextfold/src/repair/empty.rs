//! Empty content: no empty text parts, no whitespace-only text, no message without parts.
//!
//! One exception: whitespace-only text is allowed in an assistant message that holds other
//! content (Claude streams `"\n\n"` blocks beside its thinking and tool use). Anthropic
//! takes it only beside a text with something in it (`[" ", "real"]`): beside thinking or
//! tool use alone it fails with "text content blocks must contain non-whitespace text"
//! (LibreChat-AI/agents#124 measured the API; aaif-goose/goose#7343 hit it beside tool
//! use). An empty text is never allowed, and whitespace-only text in a user or system
//! message, or alone in an assistant message, is not either.
//! A message left with no part is removed (an assistant message with tool calls always
//! keeps them, so it stays).

use super::{Draft, Provider, RepairStep};
use crate::message::{Part, Role};

/// Positions of the text parts among `parts` (the valid parts of a message with `role`)
/// that a provider rejects as empty.
pub(crate) fn empty_texts(role: Role, parts: &[(usize, &Part)], provider: Provider) -> Vec<usize> {
    let beside = |p: &Part| match p {
        Part::Text(t) => !t.text.trim().is_empty(),
        _ => !provider.blank_text_needs_text(),
    };
    let blank_allowed = role == Role::Assistant && parts.iter().any(|(_, p)| beside(p));
    parts
        .iter()
        .filter(|(_, p)| match p {
            Part::Text(t) => t.text.is_empty() || (!blank_allowed && t.text.trim().is_empty()),
            _ => false,
        })
        .map(|(i, _)| *i)
        .collect()
}

/// Drops the empty text parts of `draft` (its parts are valid by now).
pub(crate) fn drop_blank_text(draft: &mut Draft<'_>, provider: Provider, steps: &mut Vec<RepairStep>) {
    let parts: Vec<(usize, &Part)> = draft.parts.iter().map(|(i, p)| (*i, p.as_ref())).collect();
    let empty = empty_texts(draft.source.role, &parts, provider);
    if empty.is_empty() {
        return;
    }
    let index = draft.index;
    for part in &empty {
        steps.push(RepairStep::RemovedEmptyText { index, part: *part });
    }
    draft.retain(|i, _| !empty.contains(&i));
}
