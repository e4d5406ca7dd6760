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
    ascii.div_ceil(4).saturating_add(wide).saturating_add(other.div_ceil(2))
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
        Part::ToolCall(c) => {
            estimate_text_tokens(&c.name).saturating_add(estimate_text_tokens(&c.arguments)).saturating_add(3)
        }
        Part::ToolResult(r) => r.content.iter().map(part_tokens).fold(3usize, usize::saturating_add),
    }
}

/// Estimated tokens of one message, overhead included.
pub fn estimate_message_tokens(m: &Message) -> usize {
    m.parts.iter().map(part_tokens).fold(MESSAGE_OVERHEAD, usize::saturating_add)
}

/// Estimated tokens of messages.
pub fn estimate_tokens(messages: &[Message]) -> usize {
    messages.iter().map(estimate_message_tokens).fold(0usize, usize::saturating_add)
}

/// Counts tokens of many texts at once, so a tokenizer living across a boundary (a JS
/// tokenizer behind wasm) is crossed once per batch, not once per message.
pub trait TokenCounter {
    /// One count per text, in order.
    fn count_texts(&self, texts: &[&str]) -> Vec<usize>;
}

/// The built-in estimate as a [`TokenCounter`].
#[derive(Debug, Clone, Copy, Default)]
pub struct EstimateCounter;

impl TokenCounter for EstimateCounter {
    fn count_texts(&self, texts: &[&str]) -> Vec<usize> {
        texts.iter().map(|t| estimate_text_tokens(t)).collect()
    }
}

/// Tokens of each message with `counter`: every text a message carries (text,
/// reasoning, tool names and arguments, tool-result text) goes in one batch; media and
/// per-message overhead are added as the estimate counts them.
pub fn message_tokens(messages: &[Message], counter: &dyn TokenCounter) -> Vec<usize> {
    let mut texts: Vec<&str> = Vec::new();
    let mut owner: Vec<usize> = Vec::new();
    let mut fixed: Vec<usize> = vec![MESSAGE_OVERHEAD; messages.len()];
    for (i, m) in messages.iter().enumerate() {
        for p in &m.parts {
            collect_texts(p, i, &mut texts, &mut owner, &mut fixed);
        }
    }
    let counts = counter.count_texts(&texts);
    for (i, n) in owner.iter().zip(counts) {
        if let Some(slot) = fixed.get_mut(*i) {
            *slot = slot.saturating_add(n);
        }
    }
    fixed
}

fn collect_texts<'a>(p: &'a Part, i: usize, texts: &mut Vec<&'a str>, owner: &mut Vec<usize>, fixed: &mut [usize]) {
    let mut add_fixed = |n: usize| {
        if let Some(slot) = fixed.get_mut(i) {
            *slot = slot.saturating_add(n);
        }
    };
    match p {
        Part::Text(t) => {
            texts.push(&t.text);
            owner.push(i);
        }
        Part::Reasoning(r) => {
            texts.push(&r.text);
            owner.push(i);
        }
        Part::ToolCall(c) => {
            texts.push(&c.name);
            texts.push(&c.arguments);
            owner.extend([i, i]);
            add_fixed(3);
        }
        Part::ToolResult(r) => {
            add_fixed(3);
            for c in &r.content {
                collect_texts(c, i, texts, owner, fixed);
            }
        }
        Part::Image(_) | Part::File(_) => add_fixed(part_tokens(p)),
    }
}
