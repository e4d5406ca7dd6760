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
//! Nodes borrow the input's messages and own only what they changed or created (a
//! message is copied when an edit or a repair touches it: the input is never mutated, and
//! a chain of 10k messages is not copied to be read), and cache their byte sizes. Fields
//! are private and every edit goes through a method that recomputes the cache, so sizes
//! are correct after any edit, repair, normalization or sanitization.
//! [`ChainAst::into_owned`] gives a chain that outlives its input.

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
pub use edit::{normalize_tool_call_ids_in, RenamedId, SanitizedCall};
pub use error::{AstError, PartRule};
pub(crate) use parse::{outline, Outline};
pub use parse::{ParseMode, Parsed, RepairAction, FALLBACK_RESPONSE_CONTENT, FALLBACK_TOOL_ARGS};
pub use reasoning::{clear_reasoning_in, contains_tool_call_reasoning, extract_reasoning_message, sign_first_calls};
pub use sanitize::{sanitize_arguments_text, SanitizeOutcome};
pub use tool_id::{Charset, IdMismatch, IdTemplate, TemplateError};

use crate::message::Message;
use serde::Serialize;
use std::borrow::Cow;
use std::fmt::Write;

/// Our own summaries carry a seal as their last line: `[cf:DIGEST]`, 32 bits of a hash
/// of the kind and the text before it (short: it counts against every summary's gain). They are recognised by a seal that
/// checks out, never by their text alone, so a message imitating a summary (its prefix,
/// its envelope, even an old seal over other text) is plain text. The seal lives in the
/// text because provider APIs reject fields they do not know (OpenAI, Anthropic and
/// Gemini answer 400), so it survives every format, `convert` and the caller's storage.
const SEAL_OPEN: &str = "\n[cf:";

/// Bytes a seal adds to a text (`\n[cf:` + 8 hex digits + `]`).
pub const SEAL_BYTES: usize = SEAL_OPEN.len() + 8 + 1;

/// `text` sealed as contextfold content of `kind` (see [`unseal`]): the seal is added to
/// the text's own string (masking seals thousands of placeholders a call).
pub fn seal(text: impl Into<String>, kind: &str) -> String {
    let mut text = text.into();
    let digest = seal_digest(&text, kind);
    text.reserve(SEAL_BYTES);
    text.push_str(SEAL_OPEN);
    let _ = write!(text, "{digest:08x}]");
    text
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
pub struct Header<'a> {
    system: Vec<Cow<'a, Message>>,
    human: Option<Cow<'a, Message>>,
    size: usize,
}

/// An assistant message and the tool messages that answer its calls.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyPair<'a> {
    kind: PairKind,
    ai: Cow<'a, Message>,
    tools: Vec<Cow<'a, Message>>,
    size: usize,
}

/// One user turn: a header and the assistant's body pairs.
#[derive(Debug, Clone, PartialEq)]
pub struct Section<'a> {
    header: Header<'a>,
    body: Vec<BodyPair<'a>>,
    size: usize,
}

/// A whole conversation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChainAst<'a> {
    sections: Vec<Section<'a>>,
}

/// The messages of a node, borrowed from the input or owned.
fn owned_all<'a>(messages: impl IntoIterator<Item = impl Into<Cow<'a, Message>>>) -> Vec<Cow<'a, Message>> {
    messages.into_iter().map(Into::into).collect()
}

/// A borrowed message copied, an owned one moved: a node that outlives the input.
fn to_static(m: Cow<'_, Message>) -> Cow<'static, Message> {
    Cow::Owned(m.into_owned())
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

impl<'a> Header<'a> {
    /// A header from leading system messages and an optional user message.
    pub fn new(system: Vec<Message>, human: Option<Message>) -> Result<Header<'a>, AstError> {
        for (i, m) in system.iter().enumerate() {
            check_role(i, m, crate::message::Role::System)?;
        }
        if let Some(h) = &human {
            check_role(system.len(), h, crate::message::Role::User)?;
        }
        Ok(Header::build(system, human))
    }

    pub(crate) fn build(
        system: impl IntoIterator<Item = impl Into<Cow<'a, Message>>>,
        human: Option<impl Into<Cow<'a, Message>>>,
    ) -> Header<'a> {
        let (system, human) = (owned_all(system), human.map(Into::into));
        let size = system
            .iter()
            .fold(0usize, |n, m| n.saturating_add(m.size()))
            .saturating_add(human.as_ref().map_or(0, |h| h.size()));
        Header { system, human, size }
    }

    /// The system messages, each borrowed from the input or owned.
    pub fn system(&self) -> &[Cow<'a, Message>] {
        &self.system
    }

    pub fn human(&self) -> Option<&Message> {
        self.human.as_deref()
    }

    /// The user message, borrowed from the input or owned.
    pub fn human_cow(&self) -> Option<&Cow<'a, Message>> {
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
        self.system.iter().chain(&self.human).map(|m| &**m)
    }

    pub fn messages(&self) -> Vec<Message> {
        self.message_refs().cloned().collect()
    }

    /// The same header with another user message (or none).
    pub fn with_human(&self, human: Option<Message>) -> Header<'a> {
        Header::build(self.system.clone(), human)
    }

    /// The same header without system messages.
    pub fn without_system(&self) -> Header<'a> {
        Header::build(Vec::<Message>::new(), self.human.clone())
    }

    pub(crate) fn into_parts(self) -> (Vec<Cow<'a, Message>>, Option<Cow<'a, Message>>) {
        (self.system, self.human)
    }

    fn into_owned(self) -> Header<'static> {
        let Header { system, human, size } = self;
        Header { system: system.into_iter().map(to_static).collect(), human: human.map(to_static), size }
    }
}

impl<'a> BodyPair<'a> {
    /// A pair from an assistant message and the tool messages answering it; the kind is
    /// detected from the first tool call. Roles are checked (indexes are positions in
    /// `[ai, tools..]`); tool pairing is not (see [`BodyPair::is_valid`]).
    pub fn new(ai: Message, tools: Vec<Message>) -> Result<BodyPair<'a>, AstError> {
        check_role(0, &ai, crate::message::Role::Assistant)?;
        for (i, t) in tools.iter().enumerate() {
            check_role(i.saturating_add(1), t, crate::message::Role::Tool)?;
        }
        Ok(BodyPair::build(ai, tools))
    }

    /// A pair from a slice `[assistant, tool, tool, ..]`, borrowing its messages.
    pub fn from_messages(messages: &'a [Message]) -> Result<BodyPair<'a>, AstError> {
        let (ai, tools) = messages.split_first().ok_or(AstError::EmptyBodyPair)?;
        check_role(0, ai, crate::message::Role::Assistant)?;
        for (i, t) in tools.iter().enumerate() {
            check_role(i.saturating_add(1), t, crate::message::Role::Tool)?;
        }
        Ok(BodyPair::build(ai, tools))
    }

    pub(crate) fn build(
        ai: impl Into<Cow<'a, Message>>,
        tools: impl IntoIterator<Item = impl Into<Cow<'a, Message>>>,
    ) -> BodyPair<'a> {
        let (ai, tools) = (ai.into(), owned_all(tools));
        let kind = PairKind::detect(&ai);
        let size = tools.iter().fold(ai.size(), |n, t| n.saturating_add(t.size()));
        BodyPair { kind, ai, tools, size }
    }

    pub fn kind(&self) -> PairKind {
        self.kind
    }

    pub fn ai(&self) -> &Message {
        &self.ai
    }

    /// The tool messages, each borrowed from the input or owned.
    pub fn tools(&self) -> &[Cow<'a, Message>] {
        &self.tools
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// The pair's messages where they lie: the assistant message, then its tool messages.
    pub fn message_refs(&self) -> impl Iterator<Item = &Message> {
        std::iter::once(&self.ai).chain(&self.tools).map(|m| &**m)
    }

    /// The pair's messages as it holds them (borrowed from the input or owned).
    pub fn message_cows(&self) -> impl Iterator<Item = &Cow<'a, Message>> {
        std::iter::once(&self.ai).chain(&self.tools)
    }

    pub fn messages(&self) -> Vec<Message> {
        self.message_refs().cloned().collect()
    }

    pub(crate) fn into_parts(self) -> (Cow<'a, Message>, Vec<Cow<'a, Message>>) {
        (self.ai, self.tools)
    }

    fn into_owned(self) -> BodyPair<'static> {
        let BodyPair { kind, ai, tools, size } = self;
        BodyPair { kind, ai: to_static(ai), tools: tools.into_iter().map(to_static).collect(), size }
    }

    /// Matches the pair's calls with its results.
    pub fn tool_calls_info(&self) -> ToolCallsInfo {
        tool_calls_info(&self.ai, self.tools.iter().map(|t| &**t))
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

pub(crate) fn tool_calls_info<'m>(ai: &'m Message, tools: impl Iterator<Item = &'m Message>) -> ToolCallsInfo {
    let calls: Vec<&str> = ai.tool_calls().map(|c| c.id.as_str()).collect();
    let mut answered: Vec<&str> = Vec::new();
    let mut info = ToolCallsInfo::default();
    for result in tools.flat_map(Message::tool_results) {
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

impl<'a> Section<'a> {
    pub fn new(header: Header<'a>, body: Vec<BodyPair<'a>>) -> Section<'a> {
        let size = body.iter().fold(header.size, |acc, p| acc.saturating_add(p.size));
        Section { header, body, size }
    }

    pub fn header(&self) -> &Header<'a> {
        &self.header
    }

    pub fn body(&self) -> &[BodyPair<'a>] {
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
        self.message_refs().cloned().collect()
    }

    pub fn message_count(&self) -> usize {
        let header = self.header.system.len().saturating_add(usize::from(self.header.human.is_some()));
        self.body.iter().fold(header, |acc, p| acc.saturating_add(1).saturating_add(p.tools.len()))
    }

    pub fn set_header(&mut self, header: Header<'a>) {
        self.size = self.size.saturating_sub(self.header.size).saturating_add(header.size);
        self.header = header;
    }

    pub fn push_pair(&mut self, pair: BodyPair<'a>) {
        self.size = self.size.saturating_add(pair.size);
        self.body.push(pair);
    }

    /// Replaces the whole body.
    pub fn set_body(&mut self, body: Vec<BodyPair<'a>>) {
        let header = std::mem::replace(&mut self.header, Header::build(Vec::<Message>::new(), None::<Message>));
        *self = Section::new(header, body);
    }

    /// Replaces pair `index`; returns the old pair, or `None` when out of range.
    pub fn replace_pair(&mut self, index: usize, pair: BodyPair<'a>) -> Option<BodyPair<'a>> {
        let slot = self.body.get_mut(index)?;
        let old = std::mem::replace(slot, pair);
        self.size = self.size.saturating_sub(old.size).saturating_add(slot.size);
        Some(old)
    }

    pub(crate) fn into_parts(self) -> (Header<'a>, Vec<BodyPair<'a>>) {
        (self.header, self.body)
    }

    /// The section with every message it borrows copied.
    pub fn into_owned(self) -> Section<'static> {
        let Section { header, body, size } = self;
        Section { header: header.into_owned(), body: body.into_iter().map(BodyPair::into_owned).collect(), size }
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

impl<'a> ChainAst<'a> {
    pub fn new(sections: Vec<Section<'a>>) -> ChainAst<'a> {
        ChainAst { sections }
    }

    /// Parses messages strictly: any rule broken is an error. The chain borrows them.
    pub fn parse(messages: &'a [Message]) -> Result<ChainAst<'a>, AstError> {
        parse::parse(messages, ParseMode::Strict).map(|p| p.ast)
    }

    /// Parses messages, repairing what can be repaired; the repairs made are listed. The
    /// chain borrows the messages no repair changed.
    pub fn parse_repair(messages: &'a [Message]) -> Result<Parsed<'a>, AstError> {
        parse::parse(messages, ParseMode::Repair)
    }

    /// The chain with every message it borrows copied: one that outlives its input.
    pub fn into_owned(self) -> ChainAst<'static> {
        ChainAst { sections: self.sections.into_iter().map(Section::into_owned).collect() }
    }

    pub fn sections(&self) -> &[Section<'a>] {
        &self.sections
    }

    /// Mutable access to the section list. Sections keep their own sizes correct, and
    /// the chain size is summed from them, so any edit through here stays consistent.
    pub fn sections_mut(&mut self) -> &mut Vec<Section<'a>> {
        &mut self.sections
    }

    pub fn into_sections(self) -> Vec<Section<'a>> {
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
        out.extend(self.sections.iter().flat_map(Section::message_refs).cloned());
        out
    }

    /// Consumes the chain into its messages: the owned ones moved, the borrowed ones copied.
    pub fn into_messages(self) -> Vec<Message> {
        let mut out = Vec::with_capacity(self.message_count());
        for s in self.sections {
            let (header, body) = s.into_parts();
            let (system, human) = header.into_parts();
            out.extend(system.into_iter().map(Cow::into_owned));
            out.extend(human.map(Cow::into_owned));
            for p in body {
                let (ai, tools) = p.into_parts();
                out.push(ai.into_owned());
                out.extend(tools.into_iter().map(Cow::into_owned));
            }
        }
        out
    }

    pub fn push_section(&mut self, section: Section<'a>) {
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
