//! The chain AST: a conversation as sections of a header and body pairs.
//!
//! ```text
//! ChainAst
//! └── Section*            one user turn
//!     ├── Header          leading system message(s) and/or the user message
//!     └── BodyPair*       one assistant message + the tool messages answering it
//!                         (Completion | RequestResponse | Summarization)
//! ```
//!
//! Nodes own copies of the messages (the input is never mutated) and cache their byte
//! sizes. Fields are private and every edit goes through a method that recomputes the
//! cache, so sizes are correct after any edit, repair, normalization or sanitization.

mod build;
mod edit;
mod error;
mod parse;
mod reasoning;
mod sanitize;
pub mod tool_id;

pub use build::{
    FAKE_REASONING_SIGNATURE, SUMMARIZATION_TOOL_ARGS, SUMMARIZATION_TOOL_NAME, SUMMARIZED_CONTENT_PREFIX,
};
pub use edit::{RenamedId, SanitizedCall};
pub use error::{AstError, PartRule};
pub(crate) use parse::{outline, Outline};
pub use parse::{ParseMode, Parsed, RepairAction, FALLBACK_RESPONSE_CONTENT, FALLBACK_TOOL_ARGS};
pub use reasoning::{contains_tool_call_reasoning, extract_reasoning_message};
pub use sanitize::{sanitize_arguments_text, SanitizeOutcome};
pub use tool_id::{Charset, IdMismatch, IdTemplate, TemplateError};

use crate::message::{messages_size, Message};
use serde::Serialize;

/// Our own summaries carry a seal as their last line: `[cf:DIGEST]`, 32 bits of a hash
/// of the kind and the text before it (short: it counts against every summary's gain). They are recognised by a seal that
/// checks out, never by their text alone, so a message imitating a summary (its prefix,
/// its envelope, even an old seal over other text) is plain text. The seal lives in the
/// text because provider APIs reject fields they do not know (OpenAI, Anthropic and
/// Gemini answer 400), so it survives every format, `convert` and the caller's storage.
const SEAL_OPEN: &str = "\n[cf:";

/// Bytes a seal adds to a text (`\n[cf:` + 8 hex digits + `]`).
pub const SEAL_BYTES: usize = SEAL_OPEN.len() + 8 + 1;

/// `text` sealed as contextfold content of `kind` (see [`unseal`]).
pub fn seal(text: &str, kind: &str) -> String {
    format!("{text}{SEAL_OPEN}{:08x}]", seal_digest(text, kind))
}

/// The text a seal of `kind` covers, or `None` when `text` carries no such seal or the
/// seal does not match the text.
pub fn unseal<'a>(text: &'a str, kind: &str) -> Option<&'a str> {
    // A seal is the text's last SEAL_BYTES (no later opening fits in its hex digits):
    // looked for there, not searched for through the whole text.
    let at = text.len().checked_sub(SEAL_BYTES)?;
    if !text.get(at..)?.starts_with(SEAL_OPEN) {
        return None;
    }
    let body = text.get(..at)?;
    let digest = text.get(at.saturating_add(SEAL_OPEN.len())..)?.strip_suffix(']')?;
    (digest == format!("{:08x}", seal_digest(body, kind))).then_some(body)
}

fn seal_digest(text: &str, kind: &str) -> u32 {
    let h = tool_id::seed_from(&[b"contextfold seal", kind.as_bytes(), text.as_bytes()]);
    (h ^ (h >> 32)) as u32
}

/// Marker kind of a summarized completion's text part.
pub const SUMMARY_TEXT_MARK: &str = "summary";

/// What a body pair is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub enum PairKind {
    /// An assistant message without tool calls.
    Completion,
    /// An assistant message with tool calls and the tool messages answering them.
    RequestResponse,
    /// A summary: a call to [`SUMMARIZATION_TOOL_NAME`] and its one result.
    Summarization,
}

impl PairKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PairKind::Completion => "completion",
            PairKind::RequestResponse => "requestResponse",
            PairKind::Summarization => "summarization",
        }
    }

    /// Kind of a pair built around `ai`: the first tool call decides.
    pub fn detect(ai: &Message) -> PairKind {
        match ai.tool_calls().next() {
            None => PairKind::Completion,
            Some(call) if call.name == SUMMARIZATION_TOOL_NAME => PairKind::Summarization,
            Some(_) => PairKind::RequestResponse,
        }
    }
}

/// The messages that open a section: any leading system messages (only the first
/// section has them) and the user message.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    system: Vec<Message>,
    human: Option<Message>,
    size: usize,
}

/// An assistant message and the tool messages that answer its calls.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyPair {
    kind: PairKind,
    ai: Message,
    tools: Vec<Message>,
    size: usize,
}

/// One user turn: a header and the assistant's body pairs.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    header: Header,
    body: Vec<BodyPair>,
    size: usize,
}

/// A whole conversation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChainAst {
    sections: Vec<Section>,
}

/// Tool calls of a pair matched against its results.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCallsInfo {
    /// Calls with exactly one matching result, in call order.
    pub completed: Vec<String>,
    /// Calls without a result, in call order.
    pub pending: Vec<String>,
    /// Results whose call id is not among the calls, in result order.
    pub unmatched: Vec<String>,
    /// Call ids answered more than once.
    pub duplicated: Vec<String>,
}

impl Header {
    /// A header from leading system messages and an optional user message.
    pub fn new(system: Vec<Message>, human: Option<Message>) -> Result<Header, AstError> {
        for (i, m) in system.iter().enumerate() {
            check_role(i, m, crate::message::Role::System)?;
        }
        if let Some(h) = &human {
            check_role(system.len(), h, crate::message::Role::User)?;
        }
        Ok(Header::build(system, human))
    }

    pub(crate) fn build(system: Vec<Message>, human: Option<Message>) -> Header {
        let size = messages_size(&system).saturating_add(human.as_ref().map_or(0, Message::size));
        Header { system, human, size }
    }

    pub fn system(&self) -> &[Message] {
        &self.system
    }

    pub fn human(&self) -> Option<&Message> {
        self.human.as_ref()
    }

    pub fn size(&self) -> usize {
        self.size
    }

    pub fn is_empty(&self) -> bool {
        self.system.is_empty() && self.human.is_none()
    }

    /// The header's messages where they lie: the system messages, then the user message.
    pub fn message_refs(&self) -> impl Iterator<Item = &Message> {
        self.system.iter().chain(&self.human)
    }

    pub fn messages(&self) -> Vec<Message> {
        let mut out = self.system.clone();
        out.extend(self.human.iter().cloned());
        out
    }

    /// The same header with another user message (or none).
    pub fn with_human(&self, human: Option<Message>) -> Header {
        Header::build(self.system.clone(), human)
    }

    /// The same header without system messages.
    pub fn without_system(&self) -> Header {
        Header::build(Vec::new(), self.human.clone())
    }

    pub(crate) fn into_parts(self) -> (Vec<Message>, Option<Message>) {
        (self.system, self.human)
    }
}

impl BodyPair {
    /// A pair from an assistant message and the tool messages answering it; the kind is
    /// detected from the first tool call. Roles are checked (indexes are positions in
    /// `[ai, tools..]`); tool pairing is not (see [`BodyPair::is_valid`]).
    pub fn new(ai: Message, tools: Vec<Message>) -> Result<BodyPair, AstError> {
        check_role(0, &ai, crate::message::Role::Assistant)?;
        for (i, t) in tools.iter().enumerate() {
            check_role(i.saturating_add(1), t, crate::message::Role::Tool)?;
        }
        Ok(BodyPair::build(ai, tools))
    }

    /// A pair from a slice `[assistant, tool, tool, ..]`.
    pub fn from_messages(messages: &[Message]) -> Result<BodyPair, AstError> {
        let (ai, tools) = messages.split_first().ok_or(AstError::EmptyBodyPair)?;
        BodyPair::new(ai.clone(), tools.to_vec())
    }

    pub(crate) fn build(ai: Message, tools: Vec<Message>) -> BodyPair {
        let kind = PairKind::detect(&ai);
        let size = ai.size().saturating_add(messages_size(&tools));
        BodyPair { kind, ai, tools, size }
    }

    pub fn kind(&self) -> PairKind {
        self.kind
    }

    pub fn ai(&self) -> &Message {
        &self.ai
    }

    pub fn tools(&self) -> &[Message] {
        &self.tools
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// The pair's messages where they lie: the assistant message, then its tool messages.
    pub fn message_refs(&self) -> impl Iterator<Item = &Message> {
        std::iter::once(&self.ai).chain(&self.tools)
    }

    pub fn messages(&self) -> Vec<Message> {
        let mut out = Vec::with_capacity(self.tools.len().saturating_add(1));
        out.push(self.ai.clone());
        out.extend(self.tools.iter().cloned());
        out
    }

    pub(crate) fn into_parts(self) -> (Message, Vec<Message>) {
        (self.ai, self.tools)
    }

    /// Matches the pair's calls with its results.
    pub fn tool_calls_info(&self) -> ToolCallsInfo {
        tool_calls_info(&self.ai, &self.tools)
    }

    /// Structure rules: a Completion has no tool messages, a RequestResponse at least
    /// one, a Summarization exactly one; every call has exactly one result and every
    /// result a call.
    pub fn is_valid(&self) -> bool {
        let tools_ok = match self.kind {
            PairKind::Completion => self.tools.is_empty(),
            PairKind::RequestResponse => !self.tools.is_empty(),
            PairKind::Summarization => self.tools.len() == 1,
        };
        let info = self.tool_calls_info();
        tools_ok && info.pending.is_empty() && info.unmatched.is_empty() && info.duplicated.is_empty()
    }

    /// True when this pair already holds summarized content: a Summarization pair, or a
    /// Completion whose first text starts with [`SUMMARIZED_CONTENT_PREFIX`] under a
    /// [`seal`] (the text alone can be imitated).
    pub fn is_summarized(&self) -> bool {
        match self.kind {
            PairKind::Summarization => true,
            PairKind::RequestResponse => false,
            PairKind::Completion => match self.ai.parts.first() {
                Some(crate::message::Part::Text(t)) => {
                    unseal(&t.text, SUMMARY_TEXT_MARK).is_some_and(|body| body.starts_with(SUMMARIZED_CONTENT_PREFIX))
                }
                _ => false,
            },
        }
    }
}

pub(crate) fn tool_calls_info(ai: &Message, tools: &[Message]) -> ToolCallsInfo {
    let calls: Vec<&str> = ai.tool_calls().map(|c| c.id.as_str()).collect();
    let mut answered: Vec<&str> = Vec::new();
    let mut info = ToolCallsInfo::default();
    for result in tools.iter().flat_map(Message::tool_results) {
        let id = result.call_id.as_str();
        if !calls.contains(&id) {
            info.unmatched.push(id.to_string());
        } else if answered.contains(&id) {
            if !info.duplicated.iter().any(|d| d == id) {
                info.duplicated.push(id.to_string());
            }
        } else {
            answered.push(id);
        }
    }
    for id in calls {
        if answered.contains(&id) {
            info.completed.push(id.to_string());
        } else {
            info.pending.push(id.to_string());
        }
    }
    info
}

impl Section {
    pub fn new(header: Header, body: Vec<BodyPair>) -> Section {
        let size = body.iter().fold(header.size, |acc, p| acc.saturating_add(p.size));
        Section { header, body, size }
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn body(&self) -> &[BodyPair] {
        &self.body
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// The section's messages where they lie, in order.
    pub fn message_refs(&self) -> impl Iterator<Item = &Message> {
        self.header.message_refs().chain(self.body.iter().flat_map(BodyPair::message_refs))
    }

    pub fn messages(&self) -> Vec<Message> {
        let mut out = self.header.messages();
        for pair in &self.body {
            out.push(pair.ai.clone());
            out.extend(pair.tools.iter().cloned());
        }
        out
    }

    pub fn message_count(&self) -> usize {
        let header = self.header.system.len().saturating_add(usize::from(self.header.human.is_some()));
        self.body.iter().fold(header, |acc, p| acc.saturating_add(1).saturating_add(p.tools.len()))
    }

    pub fn set_header(&mut self, header: Header) {
        self.size = self.size.saturating_sub(self.header.size).saturating_add(header.size);
        self.header = header;
    }

    pub fn push_pair(&mut self, pair: BodyPair) {
        self.size = self.size.saturating_add(pair.size);
        self.body.push(pair);
    }

    /// Replaces the whole body.
    pub fn set_body(&mut self, body: Vec<BodyPair>) {
        *self = Section::new(std::mem::replace(&mut self.header, Header::build(Vec::new(), None)), body);
    }

    /// Replaces pair `index`; returns the old pair, or `None` when out of range.
    pub fn replace_pair(&mut self, index: usize, pair: BodyPair) -> Option<BodyPair> {
        let slot = self.body.get_mut(index)?;
        let old = std::mem::replace(slot, pair);
        self.size = self.size.saturating_sub(old.size).saturating_add(slot.size);
        Some(old)
    }

    pub(crate) fn into_parts(self) -> (Header, Vec<BodyPair>) {
        (self.header, self.body)
    }
}

/// The first message of each section of `counts` messages, then their total.
pub(crate) fn starts_of(counts: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut at = 0usize;
    let mut starts: Vec<usize> = counts
        .map(|count| {
            let start = at;
            at = at.saturating_add(count);
            start
        })
        .collect();
    starts.push(at);
    starts
}

impl ChainAst {
    pub fn new(sections: Vec<Section>) -> ChainAst {
        ChainAst { sections }
    }

    /// Parses messages strictly: any rule broken is an error.
    pub fn parse(messages: &[Message]) -> Result<ChainAst, AstError> {
        parse::parse(messages, ParseMode::Strict).map(|p| p.ast)
    }

    /// Parses messages, repairing what can be repaired; the repairs made are listed.
    pub fn parse_repair(messages: &[Message]) -> Result<Parsed, AstError> {
        parse::parse(messages, ParseMode::Repair)
    }

    pub fn sections(&self) -> &[Section] {
        &self.sections
    }

    /// Mutable access to the section list. Sections keep their own sizes correct, and
    /// the chain size is summed from them, so any edit through here stays consistent.
    pub fn sections_mut(&mut self) -> &mut Vec<Section> {
        &mut self.sections
    }

    pub fn into_sections(self) -> Vec<Section> {
        self.sections
    }

    /// Total size in bytes.
    pub fn size(&self) -> usize {
        self.sections.iter().fold(0usize, |acc, s| acc.saturating_add(s.size))
    }

    pub fn is_empty(&self) -> bool {
        self.sections.is_empty()
    }

    pub fn message_count(&self) -> usize {
        self.sections.iter().fold(0usize, |acc, s| acc.saturating_add(s.message_count()))
    }

    /// Index of each section's first message, plus the total message count at the end.
    pub fn section_starts(&self) -> Vec<usize> {
        starts_of(self.sections.iter().map(Section::message_count))
    }

    pub fn pair_count(&self) -> usize {
        self.sections.iter().fold(0usize, |acc, s| acc.saturating_add(s.body.len()))
    }

    /// The chain flattened back to messages, in order.
    pub fn messages(&self) -> Vec<Message> {
        let mut out = Vec::with_capacity(self.message_count());
        for s in &self.sections {
            out.extend(s.header.system.iter().cloned());
            out.extend(s.header.human.iter().cloned());
            for p in &s.body {
                out.push(p.ai.clone());
                out.extend(p.tools.iter().cloned());
            }
        }
        out
    }

    /// Consumes the chain into its messages without cloning.
    pub fn into_messages(self) -> Vec<Message> {
        let mut out = Vec::with_capacity(self.message_count());
        for s in self.sections {
            let (header, body) = s.into_parts();
            let (system, human) = header.into_parts();
            out.extend(system);
            out.extend(human);
            for p in body {
                let (ai, tools) = p.into_parts();
                out.push(ai);
                out.extend(tools);
            }
        }
        out
    }

    pub fn push_section(&mut self, section: Section) {
        self.sections.push(section);
    }
}

fn check_role(index: usize, m: &Message, expected: crate::message::Role) -> Result<(), AstError> {
    if m.role == expected {
        Ok(())
    } else {
        Err(AstError::WrongRole { index, expected, found: m.role })
    }
}
