//! Reasoning helpers: detection, extraction and removal of thinking content.

use super::{BodyPair, ChainAst, Header, Section, FAKE_REASONING_SIGNATURE};
use crate::message::{Message, Part, Role};

/// True when any tool call in `messages` carries a reasoning signature (Gemini's
/// `thoughtSignature`): a summary replacing them then needs the fake signature.
pub fn contains_tool_call_reasoning<'m>(messages: impl IntoIterator<Item = &'m Message>) -> bool {
    messages.into_iter().flat_map(Message::tool_calls).any(|c| c.signature.is_some())
}

/// The reasoning of the first assistant message that has any, as an assistant message
/// holding only its reasoning parts (to place before a summarization call).
pub fn extract_reasoning_message<'m>(messages: impl IntoIterator<Item = &'m Message>) -> Option<Message> {
    messages.into_iter().filter(|m| m.role == Role::Assistant).find_map(|m| {
        let parts: Vec<Part> = m.parts.iter().filter(|p| matches!(p, Part::Reasoning(_))).cloned().collect();
        (!parts.is_empty()).then(|| Message::new(Role::Assistant, parts))
    })
}

/// Gemini validates the `thoughtSignature` of the first function call of each model step
/// ("Function call is missing a thought_signature"); history it did not produce, or
/// whose reasoning was cleared, has none there, and gets [`FAKE_REASONING_SIGNATURE`],
/// which Gemini accepts in its place. Returns the `(message, part)` positions signed.
/// The one place that rule lives (`convert` to Gemini, `clearReasoning` of a Gemini chain).
pub fn sign_first_calls(messages: &mut [Message]) -> Vec<(usize, usize)> {
    let mut signed = Vec::new();
    for (index, message) in messages.iter_mut().enumerate().filter(|(_, m)| m.role == Role::Assistant) {
        let first = message.parts.iter_mut().enumerate().find_map(|(j, p)| match p {
            Part::ToolCall(call) => Some((j, call)),
            _ => None,
        });
        if let Some((part, call)) = first.filter(|(_, call)| call.signature.is_none()) {
            call.signature = Some(FAKE_REASONING_SIGNATURE.to_string());
            signed.push((index, part));
        }
    }
    signed
}

/// [`ChainAst::clear_reasoning`] on a message list that need not parse (what providers and
/// `validateChain` accept): message by message. Returns the messages and how many items
/// were removed.
pub fn clear_reasoning_in(messages: &[Message]) -> (Vec<Message>, usize) {
    let mut removed = 0usize;
    let out = messages
        .iter()
        .map(|m| {
            let (m, n) = clear_message(m);
            removed = removed.saturating_add(n);
            m
        })
        .collect();
    (out, removed)
}

/// Removes reasoning parts and tool-call signatures from a message; returns how many
/// items were removed.
fn clear_message(m: &Message) -> (Message, usize) {
    let mut out = m.clone();
    let before = out.parts.len();
    out.parts.retain(|p| !matches!(p, Part::Reasoning(_)));
    let mut removed = before.saturating_sub(out.parts.len());
    for p in &mut out.parts {
        if let Part::ToolCall(c) = p {
            if c.signature.take().is_some() {
                removed = removed.saturating_add(1);
            }
        }
    }
    (out, removed)
}

impl ChainAst<'_> {
    /// Drops all reasoning (thinking parts and tool-call signatures) from the chain, as
    /// needed when a chain moves to another provider; returns how many items went.
    pub fn clear_reasoning(&mut self) -> usize {
        let mut removed = 0usize;
        let mut clear = |m: &Message| {
            let (m, n) = clear_message(m);
            removed = removed.saturating_add(n);
            m
        };
        for section in self.sections_mut().iter_mut() {
            let header = Header::build(
                section.header().system().iter().map(|m| clear(m)).collect::<Vec<_>>(),
                section.header().human().map(&mut clear),
            );
            let body = section
                .body()
                .iter()
                .map(|p| BodyPair::build(clear(p.ai()), p.tools().iter().map(|m| clear(m)).collect::<Vec<_>>()))
                .collect();
            *section = Section::new(header, body);
        }
        removed
    }
}
