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
pub use parse::{ParseMode, Parsed, RepairAction, FALLBACK_RESPONSE_CONTENT, FALLBACK_TOOL_ARGS};
pub use reasoning::{contains_tool_call_reasoning, extract_reasoning_message};
pub use sanitize::{sanitize_arguments_text, SanitizeOutcome};
pub use tool_id::{Charset, IdMismatch, IdTemplate, TemplateError};

use crate::message::{messages_size, Extra, Message};
use serde::Serialize;

/// The field (of a message or a part, in the native JSON, and kept by every format that
/// keeps unknown fields) that marks content contextfold wrote: `{ "type": kind, ... }`.
/// Our own summaries are recognised by it, never by their text alone, so a message
/// imitating a summary's text is plain text.
pub const MARKER_KEY: &str = "contextfold";

/// Marks `extra` as holding contextfold content of `kind`.
pub fn mark(extra: &mut Extra, kind: &str) {
    let mut marker = serde_json::Map::new();
    marker.insert("type".into(), serde_json::Value::from(kind));
    extra.insert(MARKER_KEY.into(), serde_json::Value::Object(marker));
}

/// True when `extra` carries the marker of `kind`.
pub fn is_marked(extra: &Extra, kind: &str) -> bool {
    extra.get(MARKER_KEY).and_then(|m| m.get("type")).and_then(serde_json::Value::as_str) == Some(kind)
}

/// Marker kind of a summarized completion's text part.
pub const SUMMARY_TEXT_MARK: &str = "summary";

/// What a body pair is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
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
    /// Completion whose first text starts with [`SUMMARIZED_CONTENT_PREFIX`] and carries
    /// the [`MARKER_KEY`] marker (the text alone can be imitated).
    pub fn is_summarized(&self) -> bool {
        match self.kind {
            PairKind::Summarization => true,
            PairKind::RequestResponse => false,
            PairKind::Completion => match self.ai.parts.first() {
                Some(crate::message::Part::Text(t)) => {
                    t.text.starts_with(SUMMARIZED_CONTENT_PREFIX) && is_marked(&t.extra, SUMMARY_TEXT_MARK)
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
        let mut at = 0usize;
        let mut starts: Vec<usize> = self
            .sections
            .iter()
            .map(|s| {
                let start = at;
                at = at.saturating_add(s.message_count());
                start
            })
            .collect();
        starts.push(at);
        starts
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
