//! The provider-neutral message model and its JSON form, the `contextfold` native format.
//!
//! A conversation is a list of [`Message`]s. Each message has a [`Role`] and an ordered
//! list of [`Part`]s. Fields this model does not know (a provider's `cache_control`, a
//! Claude Code `caller`, ...) are kept in `extra` maps on messages and parts, so that a
//! provider -> native -> provider round trip loses nothing.
//!
//! Native JSON form (camelCase keys, parts tagged by `type`):
//! ```json
//! { "role": "assistant", "parts": [
//!     { "type": "reasoning", "text": "...", "signature": "..." },
//!     { "type": "text", "text": "Let me look." },
//!     { "type": "toolCall", "id": "call_1", "name": "read", "arguments": "{\"path\":\"a.rs\"}" } ] }
//! { "role": "tool", "parts": [
//!     { "type": "toolResult", "callId": "call_1", "name": "read",
//!       "content": [ { "type": "text", "text": "fn main() {}" } ], "isError": false } ] }
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::extra::Extra;

/// The `extra` key under which `tiers` marks its summaries and the bridge. Only the
/// native format keeps it: no provider accepts the field, so the other writers leave it
/// out.
pub const TIER_METADATA_KEY: &str = "contextfold";

/// Whether `extra` holds tier metadata contextfold wrote (a summary or the bridge), not a
/// caller's own field of that name.
pub fn has_tier_metadata(extra: &Extra) -> bool {
    extra
        .get(TIER_METADATA_KEY)
        .and_then(|meta| meta.get("type"))
        .and_then(Value::as_str)
        .is_some_and(|kind| matches!(kind, "summary" | "bridge"))
}

/// Who speaks. Provider roles map onto these four (`developer` -> system, `model` -> assistant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// One message: a role and ordered parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    /// Required: a message read as native without `parts` is some other format's message
    /// (`{ role, content }`), and reading it as empty would lose its content silently.
    pub parts: Vec<Part>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One piece of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Part {
    Text(TextPart),
    Reasoning(ReasoningPart),
    Image(ImagePart),
    File(FilePart),
    ToolCall(ToolCallPart),
    ToolResult(ToolResultPart),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextPart {
    pub text: String,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Model reasoning ("thinking"). `signature` is the provider's opaque proof and must go
/// back byte-for-byte; `redacted_data` holds a redacted block's opaque payload.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningPart {
    #[serde(default)]
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted_data: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// An image given by URL or by inline (base64) data with its media type.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImagePart {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A file or other binary content (document, audio, ...), by URL or inline data.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FilePart {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl FilePart {
    /// The text the file holds, for what reads it as text (the token estimate, the
    /// summarizer's transcript): inline data of a text media type, decoded when it is
    /// UTF-8, or the text blocks of a document given as blocks (an Anthropic `content`
    /// source). `None` for any other file.
    pub fn text(&self) -> Option<std::borrow::Cow<'_, str>> {
        if let Some(content) = self.embedded_content() {
            return Some(match content {
                Value::String(text) => std::borrow::Cow::Borrowed(text.as_str()),
                other => std::borrow::Cow::Owned(embedded_texts(other).join("\n")),
            });
        }
        let url = self.url.as_deref().and_then(crate::format::data_url::split);
        let media = self.media_type.as_deref().or(url.as_ref().map(|u| u.media_type))?;
        let data = self.data.as_deref().or(url.map(|u| u.data))?;
        if !crate::format::media_type::is_text(media) {
            return None;
        }
        let bytes = crate::format::base64::decode(data)?;
        String::from_utf8(bytes).ok().map(std::borrow::Cow::Owned)
    }

    /// The blocks (or string) of a document given as blocks: its content is sent, not a
    /// source, so sizes and token estimates count it.
    pub fn embedded_content(&self) -> Option<&Value> {
        crate::format::embedded_content(&self.extra)
    }
}

/// The `text` of each text block of a document's content blocks.
fn embedded_texts(content: &Value) -> Vec<&str> {
    content
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default()
}

/// A tool (function) call requested by the assistant. `arguments` is JSON text exactly
/// as the model produced it; `signature` is a per-call reasoning signature (Gemini's
/// `thoughtSignature`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallPart {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub arguments: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// The result of one tool call, carried by a `tool` message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultPart {
    pub call_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default)]
    pub content: Vec<Part>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub is_error: bool,
    #[serde(flatten)]
    pub extra: Extra,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The `type` every tool call has in the OpenAI-style wire form; it counts in sizes as
/// upstream counts it.
pub const TOOL_CALL_TYPE: &str = "function";

// A chain's nodes hold messages borrowed from the input or owned ([`crate::ChainAst`]).
impl From<Message> for std::borrow::Cow<'_, Message> {
    fn from(m: Message) -> Self {
        std::borrow::Cow::Owned(m)
    }
}

impl<'a> From<&'a Message> for std::borrow::Cow<'a, Message> {
    fn from(m: &'a Message) -> Self {
        std::borrow::Cow::Borrowed(m)
    }
}

/// A chain worked on borrowed, owned as it leaves (a strategy's result): the borrowed
/// messages are copied, the owned ones moved.
pub(crate) fn owned_messages(messages: Vec<std::borrow::Cow<'_, Message>>) -> Vec<Message> {
    messages.into_iter().map(std::borrow::Cow::into_owned).collect()
}

impl PartialEq<Message> for std::borrow::Cow<'_, Message> {
    fn eq(&self, other: &Message) -> bool {
        **self == *other
    }
}

impl PartialEq<std::borrow::Cow<'_, Message>> for Message {
    fn eq(&self, other: &std::borrow::Cow<'_, Message>) -> bool {
        *self == **other
    }
}

/// Fields that say who sent a message (OpenAI Chat's and LangChain's `name`, a group
/// chat's participants): messages that differ in them are never joined into one as if
/// one had said it all.
pub(crate) const PARTICIPANT_FIELDS: [&str; 1] = ["name"];

impl Message {
    /// Whether two messages come from the same participant (see [`PARTICIPANT_FIELDS`]).
    pub(crate) fn same_participant(&self, other: &Message) -> bool {
        PARTICIPANT_FIELDS.iter().all(|k| self.extra.get(*k) == other.extra.get(*k))
    }

    /// `other`'s parts after this message's. Two participants' messages joined lose the
    /// field that names one (it would give both one's words) and keep who said what as a
    /// `name: ` before each one's text. Returns whether they were two participants'.
    pub(crate) fn join_parts(&mut self, other: &Message) -> bool {
        let mut parts = other.parts.clone();
        let two = !self.same_participant(other);
        if two {
            for k in PARTICIPANT_FIELDS {
                if let Some(Value::String(name)) = self.extra.shift_remove(k) {
                    attribute(&mut self.parts, &name);
                }
                if let Some(Value::String(name)) = other.extra.get(k) {
                    attribute(&mut parts, name);
                }
            }
        }
        self.parts.extend(parts);
        two
    }
}

/// `name: ` before the first text of `parts` (a text of its own when there is none).
fn attribute(parts: &mut Vec<Part>, name: &str) {
    match parts.iter_mut().find_map(|p| if let Part::Text(t) = p { Some(t) } else { None }) {
        Some(t) => t.text.insert_str(0, &format!("{name}: ")),
        None => parts.insert(0, Part::text(format!("{name}:"))),
    }
}

impl Message {
    pub fn new(role: Role, parts: Vec<Part>) -> Self {
        Message { role, parts, extra: Extra::new() }
    }

    /// A message with a single text part.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        Message::new(role, vec![Part::text(text)])
    }

    /// A `tool` message answering `call_id` with text content.
    pub fn tool_result(call_id: impl Into<String>, name: impl Into<String>, content: impl Into<String>) -> Self {
        Message::new(
            Role::Tool,
            vec![Part::ToolResult(ToolResultPart {
                call_id: call_id.into(),
                name: Some(name.into()),
                content: vec![Part::text(content)],
                is_error: false,
                extra: Extra::new(),
            })],
        )
    }

    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCallPart> {
        self.parts.iter().filter_map(|p| match p {
            Part::ToolCall(c) => Some(c),
            _ => None,
        })
    }

    pub fn tool_results(&self) -> impl Iterator<Item = &ToolResultPart> {
        self.parts.iter().filter_map(|p| match p {
            Part::ToolResult(r) => Some(r),
            _ => None,
        })
    }

    pub fn has_tool_calls(&self) -> bool {
        self.tool_calls().next().is_some()
    }

    /// The text of all text parts, joined by newlines (reasoning excluded).
    pub fn joined_text(&self) -> String {
        let texts: Vec<&str> = self
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }

    /// Size in bytes: the sum of its parts' sizes (see [`Part::size`]).
    pub fn size(&self) -> usize {
        self.parts.iter().fold(0usize, |acc, p| acc.saturating_add(p.size()))
    }
}

impl Part {
    pub fn text(text: impl Into<String>) -> Self {
        Part::Text(TextPart { text: text.into(), extra: Extra::new() })
    }

    /// Size in bytes as the chain AST counts it. Text: its length; reasoning: text,
    /// signature and redacted payload (a thinking block costs tokens, upstream forgot it);
    /// image and file: URL or data length; tool call: id + type + name + arguments; tool
    /// result: call id + content. A result's name is not counted (upstream counts it): it
    /// repeats its call's, and only some wires write it (Gemini, the AI SDK, not OpenAI),
    /// so a chain measured before it is written and after it is read back would differ by
    /// it and a second compaction see a chain it had just made fit as over its threshold.
    pub fn size(&self) -> usize {
        match self {
            Part::Text(t) => t.text.len().saturating_add(t.native_bytes()),
            Part::Reasoning(r) => sum(&[r.text.len(), opt_len(&r.signature), opt_len(&r.redacted_data)]),
            Part::Image(i) => sum(&[opt_len(&i.url), opt_len(&i.data)]),
            Part::File(f) => {
                let content =
                    f.embedded_content().map_or(0, |c| c.as_str().map_or_else(|| c.to_string().len(), str::len));
                sum(&[opt_len(&f.url), opt_len(&f.data), content])
            }
            Part::ToolCall(c) => {
                sum(&[c.id.len(), TOOL_CALL_TYPE.len(), c.name.len(), c.arguments.len(), opt_len(&c.signature)])
            }
            Part::ToolResult(r) => {
                let content = r.content.iter().fold(0usize, |acc, p| acc.saturating_add(p.size()));
                r.call_id.len().saturating_add(content)
            }
        }
    }

    /// The provider fields and restoration markers the part carries.
    pub fn extra_mut(&mut self) -> &mut Extra {
        match self {
            Part::Text(p) => &mut p.extra,
            Part::Reasoning(p) => &mut p.extra,
            Part::Image(p) => &mut p.extra,
            Part::File(p) => &mut p.extra,
            Part::ToolCall(p) => &mut p.extra,
            Part::ToolResult(p) => &mut p.extra,
        }
    }

    /// The kind tag used in the JSON form, for messages and errors.
    pub fn kind(&self) -> &'static str {
        match self {
            Part::Text(_) => "text",
            Part::Reasoning(_) => "reasoning",
            Part::Image(_) => "image",
            Part::File(_) => "file",
            Part::ToolCall(_) => "toolCall",
            Part::ToolResult(_) => "toolResult",
        }
    }

    /// Whether the part stands for a provider-native block (see [`TextPart::native_block`]):
    /// the one kind of part besides results a tool message may hold (an AI SDK approval
    /// response), kept beside them whatever repair does to them.
    pub fn is_native_block(&self) -> bool {
        matches!(self, Part::Text(t) if t.native_block().is_some())
    }

    /// Whether a media part can be sent: it has a URL or data, or a source its provider's
    /// reader kept for its writer (a file the provider stores, an Anthropic document given
    /// as blocks). Other parts need none.
    pub fn has_media_source(&self) -> bool {
        let (url, data, extra) = match self {
            Part::Image(i) => (&i.url, &i.data, &i.extra),
            Part::File(f) => (&f.url, &f.data, &f.extra),
            _ => return true,
        };
        url.is_some() || data.is_some() || crate::format::keeps_provider_source(extra)
    }
}

fn opt_len(s: &Option<String>) -> usize {
    s.as_ref().map_or(0, String::len)
}

fn sum(xs: &[usize]) -> usize {
    xs.iter().fold(0usize, |acc, x| acc.saturating_add(*x))
}

/// Sum of message sizes.
pub fn messages_size(messages: &[Message]) -> usize {
    messages.iter().fold(0usize, |acc, m| acc.saturating_add(m.size()))
}

/// The `extra` keys under which format readers keep restoration markers, one per wire
/// family (see [`crate::format`]): never a field of a message, so merges and writers
/// treat them as markers. Each format module's `NAMESPACE` is one of these.
/// The marker key under which a text part carries a provider-native block it stands for
/// (an Anthropic `web_search_tool_result`, say): the provider's writer writes the block
/// back verbatim, other formats get the part's text (a short rendering), and sizes and
/// token estimates count the block, which is what the provider is sent.
pub const NATIVE_BLOCK: &str = "block";

impl TextPart {
    /// The provider-native block this part stands for, if it is one.
    pub fn native_block(&self) -> Option<&serde_json::Value> {
        marker_namespace::ALL.iter().find_map(|ns| self.extra.get(*ns)?.get(NATIVE_BLOCK))
    }

    /// Bytes of the native block this part stands for (0 for plain text).
    pub fn native_bytes(&self) -> usize {
        self.native_block().map_or(0, |b| b.to_string().len())
    }
}

pub mod marker_namespace {
    pub const OPENAI: &str = "_openai";
    pub const ANTHROPIC: &str = "_anthropic";
    pub const GEMINI: &str = "_gemini";
    pub const AISDK: &str = "_aisdk";
    pub const LANGCHAIN: &str = "_langchain";
    pub const RESPONSES: &str = "_responses";
    pub const ALL: [&str; 6] = [OPENAI, ANTHROPIC, GEMINI, AISDK, LANGCHAIN, RESPONSES];

    /// Whether `key` of an `extra` is a marker namespace.
    pub fn contains(key: &str) -> bool {
        ALL.contains(&key)
    }
}
