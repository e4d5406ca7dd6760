//! Sizes in bytes and estimated tokens.
//!
//! The token estimate counts per script rather than `len / 4`: ASCII text at about four
//! characters a token, CJK at one token a character, other scripts at two characters a
//! token, plus per-message overhead. A first cut for reports; the measuring work refines
//! it and documents its error against a real tokenizer.

use crate::message::{Message, Part};

/// Per-message overhead of chat formats (role markers, separators), in tokens.
const MESSAGE_OVERHEAD: usize = 4;

/// Estimated tokens of a text.
pub fn estimate_text_tokens(text: &str) -> usize {
    let mut ascii = 0usize;
    let mut wide = 0usize;
    let mut other = 0usize;
    for c in text.chars() {
        if c.is_ascii() {
            ascii += 1;
        } else if is_cjk(c) {
            wide += 1;
        } else {
            other += 1;
        }
    }
    // ASCII ~4 chars/token; CJK ~1 token/char; other scripts (Cyrillic, Greek, emoji...) ~2 chars/token.
    ascii
        .div_ceil(4)
        .saturating_add(wide)
        .saturating_add(other.div_ceil(2))
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF)
}

fn part_tokens(p: &Part) -> usize {
    match p {
        Part::Text(t) => estimate_text_tokens(&t.text),
        Part::Reasoning(r) => estimate_text_tokens(&r.text),
        // Providers bill images by area, not by URL or data length; a flat figure.
        Part::Image(_) => 85,
        Part::File(f) => f.data.as_deref().map_or(85, |d| d.len() / 4),
        Part::ToolCall(c) => estimate_text_tokens(&c.name)
            .saturating_add(estimate_text_tokens(&c.arguments))
            .saturating_add(3),
        Part::ToolResult(r) => r
            .content
            .iter()
            .map(part_tokens)
            .fold(3usize, usize::saturating_add),
    }
}

/// Estimated tokens of one message, overhead included.
pub fn estimate_message_tokens(m: &Message) -> usize {
    m.parts
        .iter()
        .map(part_tokens)
        .fold(MESSAGE_OVERHEAD, usize::saturating_add)
}

/// Estimated tokens of messages.
pub fn estimate_tokens(messages: &[Message]) -> usize {
    messages
        .iter()
        .map(estimate_message_tokens)
        .fold(0usize, usize::saturating_add)
}
