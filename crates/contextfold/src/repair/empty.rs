//! Empty content: no empty text parts, no whitespace-only text, no message without parts.
//!
//! One exception, taken from real transcripts: Claude returns assistant turns holding a
//! `"\n\n"` text block next to its thinking and tool use, and clients send them back
//! unchanged (the API accepts them). So whitespace-only text is allowed in an assistant
//! message that holds other content; an empty text is never allowed, and whitespace-only
//! text in a user or system message, or alone in an assistant message, is not either.
//! A message left with no part is removed (an assistant message with tool calls always
//! keeps them, so it stays).

use super::{Draft, RepairStep};
use crate::message::{Part, Role};

fn is_blank_text(p: &Part) -> bool {
    matches!(p, Part::Text(t) if t.text.trim().is_empty())
}

/// Positions of the text parts among `parts` (the valid parts of a message with `role`)
/// that a provider rejects as empty.
pub(crate) fn empty_texts(role: Role, parts: &[(usize, &Part)]) -> Vec<usize> {
    let has_content = parts.iter().any(|(_, p)| !is_blank_text(p));
    let blank_allowed = role == Role::Assistant && has_content;
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
pub(crate) fn drop_blank_text(draft: &mut Draft<'_>, steps: &mut Vec<RepairStep>) {
    let parts: Vec<(usize, &Part)> = draft.parts.iter().map(|(i, p)| (*i, p.as_ref())).collect();
    let empty = empty_texts(draft.source.role, &parts);
    if empty.is_empty() {
        return;
    }
    let index = draft.index;
    for part in &empty {
        steps.push(RepairStep::RemovedEmptyText { index, part: *part });
    }
    draft.retain(|i, _| !empty.contains(&i));
}
