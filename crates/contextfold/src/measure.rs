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

/// What a budget is counted in: tokens (as the counter counts them) or bytes (the
/// message sizes of [`Message::size`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Unit {
    Tokens,
    Bytes,
}

/// A quantity of context in tokens or bytes. Every budget option of every strategy is
/// an `Amount`, so callers may give any of them in either unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Amount {
    Tokens(usize),
    Bytes(usize),
}

/// Bytes per token assumed when a token amount must become a byte hint (summary
/// targets are given to summarizers in bytes).
pub const BYTES_PER_TOKEN: usize = 4;

impl Amount {
    pub fn value(self) -> usize {
        match self {
            Amount::Tokens(n) | Amount::Bytes(n) => n,
        }
    }

    pub fn unit(self) -> Unit {
        match self {
            Amount::Tokens(_) => Unit::Tokens,
            Amount::Bytes(_) => Unit::Bytes,
        }
    }

    /// The same unit, `percent` of the value (rounded down).
    pub fn percent(self, percent: usize) -> Amount {
        self.with_value(self.value().saturating_mul(percent) / 100)
    }

    /// The same unit with another value.
    pub fn with_value(self, value: usize) -> Amount {
        match self {
            Amount::Tokens(_) => Amount::Tokens(value),
            Amount::Bytes(_) => Amount::Bytes(value),
        }
    }

    /// Approximate size in bytes, for summary-length hints.
    pub fn approx_bytes(self) -> usize {
        match self {
            Amount::Tokens(n) => n.saturating_mul(BYTES_PER_TOKEN),
            Amount::Bytes(n) => n,
        }
    }
}

impl std::fmt::Display for Amount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Amount::Tokens(n) => write!(f, "{n} tokens"),
            Amount::Bytes(n) => write!(f, "{n} bytes"),
        }
    }
}

/// Measures messages and texts in either unit, with one token counter.
#[derive(Clone, Copy)]
pub struct Meter<'a> {
    counter: &'a dyn TokenCounter,
}

static ESTIMATE: EstimateCounter = EstimateCounter;

impl Default for Meter<'static> {
    fn default() -> Self {
        Meter { counter: &ESTIMATE }
    }
}

impl<'a> Meter<'a> {
    pub fn new(counter: &'a dyn TokenCounter) -> Self {
        Meter { counter }
    }

    pub fn counter(&self) -> &'a dyn TokenCounter {
        self.counter
    }

    /// Cost of each message in `unit` (tokens are counted in one batch).
    pub fn costs(&self, unit: Unit, messages: &[Message]) -> Vec<usize> {
        match unit {
            Unit::Tokens => message_tokens(messages, self.counter),
            Unit::Bytes => messages.iter().map(Message::size).collect(),
        }
    }

    /// Total cost of messages in `unit`.
    pub fn total(&self, unit: Unit, messages: &[Message]) -> usize {
        self.costs(unit, messages).into_iter().fold(0usize, usize::saturating_add)
    }

    /// Cost of a text in `unit`.
    pub fn text(&self, unit: Unit, text: &str) -> usize {
        match unit {
            Unit::Tokens => self.counter.count_texts(&[text]).into_iter().next().unwrap_or(0),
            Unit::Bytes => text.len(),
        }
    }

    /// Whether messages fit within `amount`.
    pub fn fits(&self, amount: Amount, messages: &[Message]) -> bool {
        self.total(amount.unit(), messages) <= amount.value()
    }
}

impl std::fmt::Debug for Meter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Meter")
    }
}
