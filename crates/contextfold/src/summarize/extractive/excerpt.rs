//! The fallback of a request whose content holds none of the facts the schema keeps
//! (a search's hits, a listing, a web page: no command, file or error): its own first
//! and last lines, within the budget, so that a summary of non-empty content always
//! says something of it.

use super::text::cut_words;
use super::transcript::Item;
use crate::schema::{self, Section};

/// Share of the room the first lines may take (the rest goes to the last ones).
const HEAD_SHARE: usize = 2;
const OF: usize = 3;

/// The first and last lines of the items' texts, as `## Current state` bullets (with a
/// bullet saying how many lines were left out between them); empty when there is no text.
pub(super) fn lines(items: &[Item<'_>], budget: usize, max_line_chars: usize) -> String {
    let lines: Vec<String> = items
        .iter()
        .filter_map(|item| match item {
            Item::Task(text) | Item::AssistantText(text) | Item::Previous(text) => Some(text),
            Item::Result { text, .. } => Some(text),
            Item::Call { .. } => None,
        })
        .flat_map(|text| text.lines())
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(|line| cut_words(line, max_line_chars))
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    // As `fill` counts: "- " and a newline per bullet, the heading once.
    let cost = |line: &String| line.len().saturating_add(3);
    let omitted_note = |n: usize| format!("… ({n} lines left out)");
    let room = budget.saturating_sub(Section::State.heading().len().saturating_add(5));
    let room = room.saturating_sub(cost(&omitted_note(lines.len())));
    let mut used = 0usize;
    let mut head = 0usize;
    for line in &lines {
        if used.saturating_add(cost(line)) > room.saturating_mul(HEAD_SHARE) / OF && head > 0 {
            break;
        }
        used = used.saturating_add(cost(line));
        head = head.saturating_add(1);
    }
    let mut tail = 0usize;
    for line in lines.iter().skip(head).rev() {
        if used.saturating_add(cost(line)) > room {
            break;
        }
        used = used.saturating_add(cost(line));
        tail = tail.saturating_add(1);
    }
    let left_out = lines.len().saturating_sub(head).saturating_sub(tail);
    let mut bullets: Vec<String> = lines.iter().take(head).cloned().collect();
    if left_out > 0 {
        bullets.push(omitted_note(left_out));
    }
    bullets.extend(lines.iter().skip(lines.len().saturating_sub(tail)).cloned());
    schema::render(&[(Section::State, bullets)])
}
