//! Reading and writing the message shapes users hold. Every reader turns provider JSON
//! into [`Message`]s, every writer turns messages back into provider JSON; errors carry
//! the JSON path of the culprit (in the input for a reader, in the native messages for a
//! writer).
//!
//! Readers keep every provider field they do not map in `extra`, and record what a
//! writer needs to rebuild the exact wire shape under a namespaced key (`_openai`,
//! `_anthropic`); each reader's module doc lists its markers. Writers read back their
//! own namespace and drop the other ones, so provider -> native -> same provider gives
//! the very same JSON, while messages without markers (made by compaction, or read from
//! another format) get the provider's natural shape.

pub mod aisdk;
pub mod anthropic;
pub(crate) mod base64;
mod call_names;
pub mod container;
mod content_shape;
pub(crate) mod data_url;
pub mod detect;
pub(crate) mod fields;
pub mod gemini;
pub(crate) mod items;
pub use items::Items;
pub mod langchain;
pub(crate) mod media_type;
pub mod native;
pub(crate) mod native_block;
pub mod openai;
mod path;
pub mod responses;
pub mod source_map;
pub(crate) mod tool_turns;
mod wire;

pub use container::{holds_new_system, may_gain_system, write_like};
pub use detect::detect;

use crate::message::{Message, Role};
use serde::Serialize;

/// The message shapes contextfold understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[cfg_attr(feature = "tsify", tsify(rename = "ChainFormat"))]
pub enum Format {
    /// The contextfold native form (see [`crate::message`]).
    Native,
    /// OpenAI Chat Completions `messages` (see [`openai`]).
    #[serde(rename = "openai")]
    OpenAi,
    /// OpenAI Responses API `input` items, or a request `{instructions, input}` (see
    /// [`responses`]).
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// Anthropic Messages `messages`, or a request `{system, messages}` (see [`anthropic`]).
    Anthropic,
    /// Gemini `contents`, or a request `{systemInstruction, contents}` (see [`gemini`]).
    Gemini,
    /// Vercel AI SDK `ModelMessage`s (see [`aisdk`]).
    #[serde(rename = "aisdk")]
    AiSdk,
    /// Vercel AI SDK `UIMessage`s (v5+), the shape chat UIs hold (see [`aisdk::ui`]).
    #[serde(rename = "aisdk-ui")]
    AiSdkUi,
    /// LangChain serialized messages, `toDict()` or `toJSON()` form (see [`langchain`]).
    #[serde(rename = "langchain")]
    LangChain,
}

impl Format {
    /// Every format, in a stable order.
    pub const ALL: [Format; 8] = [
        Format::Native,
        Format::OpenAi,
        Format::OpenAiResponses,
        Format::Anthropic,
        Format::Gemini,
        Format::AiSdk,
        Format::AiSdkUi,
        Format::LangChain,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Native => "native",
            Format::OpenAi => "openai",
            Format::OpenAiResponses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::Gemini => "gemini",
            Format::AiSdk => "aisdk",
            Format::AiSdkUi => "aisdk-ui",
            Format::LangChain => "langchain",
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        match name {
            "native" | "contextfold" => Some(Format::Native),
            "openai" => Some(Format::OpenAi),
            "openai-responses" => Some(Format::OpenAiResponses),
            "anthropic" => Some(Format::Anthropic),
            "gemini" => Some(Format::Gemini),
            "aisdk" => Some(Format::AiSdk),
            "aisdk-ui" => Some(Format::AiSdkUi),
            "langchain" => Some(Format::LangChain),
            _ => None,
        }
    }

    /// The restoration marker namespace of the format (`None` for native).
    pub fn namespace(self) -> Option<&'static str> {
        match self {
            Format::Native => None,
            Format::OpenAi => Some(openai::NAMESPACE),
            Format::OpenAiResponses => Some(responses::NAMESPACE),
            Format::Anthropic => Some(anthropic::NAMESPACE),
            Format::Gemini => Some(gemini::NAMESPACE),
            Format::AiSdk | Format::AiSdkUi => Some(aisdk::NAMESPACE),
            Format::LangChain => Some(langchain::NAMESPACE),
        }
    }

    /// The fields of the request object a chain in this format may come in (Anthropic
    /// `{system, messages}`, Gemini `{systemInstruction, contents}`); `None`: a list only.
    pub fn request_fields(self) -> Option<RequestFields> {
        match self {
            Format::Anthropic => Some(RequestFields::ANTHROPIC),
            Format::Gemini => Some(RequestFields::GEMINI),
            Format::OpenAiResponses => Some(RequestFields::RESPONSES),
            Format::OpenAi => Some(RequestFields::OPENAI),
            Format::Native | Format::AiSdk | Format::AiSdkUi | Format::LangChain => None,
        }
    }

    /// Whether the reader joins consecutive assistant items into one message (the
    /// Responses API lists a turn's reasoning, calls and text as items). In every other
    /// format a message reads the same alone as within its array.
    pub fn joins_assistant_items(self) -> bool {
        self == Format::OpenAiResponses
    }
}

/// The fields of a request object holding a chain: its system prompt (none for OpenAI
/// Chat, whose system messages are in the list) and its message list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestFields {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<&'static str>,
    pub messages: &'static str,
    /// An object field the system prompt may be in instead, when the request has no
    /// top-level one: the `@google/genai` SDK's `{model, contents, config:
    /// {systemInstruction}}` (`GenerateContentParameters`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_in: Option<&'static str>,
}

impl RequestFields {
    pub const OPENAI: RequestFields = RequestFields { system: None, messages: "messages", system_in: None };
    pub const ANTHROPIC: RequestFields =
        RequestFields { system: Some("system"), messages: "messages", system_in: None };
    pub const GEMINI: RequestFields =
        RequestFields { system: Some("systemInstruction"), messages: "contents", system_in: Some("config") };
    pub const RESPONSES: RequestFields =
        RequestFields { system: Some("instructions"), messages: "input", system_in: None };

    /// Where `request` keeps its system prompt: `(Some(object), key)` when it is in the
    /// object field [`Self::system_in`] (there is no top-level one and that object is
    /// there), `(None, key)` at the top level; `None` for a format without a system field.
    pub fn system_place(&self, has_top: bool, has_nested_object: bool) -> Option<(Option<&'static str>, &'static str)> {
        let key = self.system?;
        match self.system_in {
            Some(object) if !has_top && has_nested_object => Some((Some(object), key)),
            _ => Some((None, key)),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// The text is not JSON at all: where (line, column and byte offset in the text, and
    /// `path`, the value being read there, `""` at the top) and why.
    #[error("invalid JSON at line {line}, column {column} (byte {offset}){}: {message}", at_path(path))]
    InvalidJson { line: usize, column: usize, offset: usize, path: String, message: String },
    /// JSON of the wrong shape: a missing field, a wrong type, an unknown role.
    #[error("{}{message}", path_prefix(path))]
    Shape { path: String, message: String },
    /// The shape fits no known format, or more than one when it must be told apart.
    #[error("{}{message}", path_prefix(path))]
    UnknownFormat { path: String, message: String },
    /// Messages the target format cannot express (a file by URL for OpenAI, a system
    /// message inside Anthropic `messages`, ...); the path points into the messages.
    #[error("{}{message}", path_prefix(path))]
    Unwritable { path: String, message: String },
}

impl FormatError {
    pub fn code(&self) -> &'static str {
        match self {
            FormatError::InvalidJson { .. } => "invalid_json",
            FormatError::Shape { .. } => "invalid_shape",
            FormatError::UnknownFormat { .. } => "unknown_format",
            FormatError::Unwritable { .. } => "unwritable",
        }
    }

    pub fn path(&self) -> Option<&str> {
        match self {
            FormatError::InvalidJson { path, .. }
            | FormatError::Shape { path, .. }
            | FormatError::UnknownFormat { path, .. }
            | FormatError::Unwritable { path, .. } => Some(path),
        }
    }
}

/// `path: ` before a message, nothing at the top (`{}`, `null`: no leading ": ").
fn path_prefix(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("{path}: ")
    }
}

fn at_path(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!(", in {path}")
    }
}

/// Whether a media part's `extra` holds a source its provider's reader kept for its
/// writer, that no other format has: a file the provider stores (OpenAI's `file.file_id`,
/// an Anthropic `file` source) or an Anthropic `content` source (a document given as
/// blocks). Conversion drops those markers, then the part, as it has no source left.
pub(crate) fn keeps_provider_source(extra: &crate::message::Extra) -> bool {
    let kept = |namespace: &str, field: &str| extra.get(namespace).and_then(|m| m.get(field));
    let file_id = kept(openai::NAMESPACE, "file").and_then(|f| f.get("file_id")).is_some_and(|id| id.is_string());
    let source = kept(anthropic::NAMESPACE, "source");
    file_id
        || source.and_then(|s| s.get("file_id")).is_some_and(|id| id.is_string())
        || source.and_then(|s| s.get("content")).is_some_and(|c| c.is_array() || c.is_string())
}

/// The content of a document given as blocks (an Anthropic `content` source: a string or
/// `text` and `image` blocks), which its reader kept for its writer in `extra`.
pub(crate) fn embedded_content(extra: &crate::message::Extra) -> Option<&serde_json::Value> {
    let content = extra.get(anthropic::NAMESPACE)?.get("source")?.get("content")?;
    (content.is_array() || content.is_string()).then_some(content)
}

/// Parses JSON text into a value; on failure, where: line, column, byte offset, and the
/// path of the value being read (`[2].content`).
pub fn parse_json(text: &str) -> Result<serde_json::Value, FormatError> {
    // Tracking the path of every value read costs a third of the parse: it is only done
    // again, for its path, when the text turned out bad.
    if let Ok(value) = serde_json::from_str(text) {
        return Ok(value);
    }
    let mut reader = serde_json::Deserializer::from_str(text);
    let (error, path) = match serde_path_to_error::deserialize(&mut reader) {
        Ok(value) => match reader.end() {
            Ok(()) => return Ok(value),
            Err(e) => (e, String::new()),
        },
        Err(e) => {
            // "." is the top; "?" a key not read yet: the path stops at its object.
            let path = e.path().to_string();
            let path = path.trim_end_matches(".?").trim_end_matches('?').trim_start_matches('.').to_string();
            (e.into_inner(), path)
        }
    };
    let (line, column) = (error.line(), error.column());
    let message = error.to_string();
    let message = message.strip_suffix(&format!(" at line {line} column {column}")).unwrap_or(&message);
    // serde_json's words for valid JSON nested past its limit, which a caller who passed
    // objects (stringified here) would read as a fault of their syntax.
    let message = match message {
        "recursion limit exceeded" => format!("nested deeper than {JSON_DEPTH} levels, the most contextfold reads"),
        other => other.to_string(),
    };
    Err(FormatError::InvalidJson { line, column, offset: byte_offset(text, line, column), path, message })
}

/// How deep JSON may nest (arrays and objects within each other): serde_json's recursion
/// limit, which keeps the parse of any text within the wasm stack.
const JSON_DEPTH: usize = 127;

/// The byte offset of a 1-based line and column (serde_json counts columns in bytes).
fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    line_start.saturating_add(column.saturating_sub(1)).min(text.len())
}

/// Reads messages of a known format from a JSON value.
pub fn read(value: &serde_json::Value, format: Format) -> Result<Vec<Message>, FormatError> {
    match format {
        Format::Native => native::read(value),
        Format::OpenAi => openai::read(value),
        Format::OpenAiResponses => responses::read(value),
        Format::Anthropic => anthropic::read(value),
        Format::Gemini => gemini::read(value),
        Format::AiSdk => aisdk::read(value),
        Format::AiSdkUi => aisdk::ui::read(value),
        Format::LangChain => langchain::read(value),
    }
}

/// [`read`] of a chain whose message list (see [`Format::request_fields`]) was taken out
/// of `value` as `items`, `value` holding the list emptied: each element's tree is let go
/// as soon as it is read, instead of the whole list's tree living until the end.
pub fn read_taken(value: &serde_json::Value, items: Items<'_>, format: Format) -> Result<Vec<Message>, FormatError> {
    match format {
        // The serde reader of the native format takes the whole list.
        Format::Native => {
            let mut list = Vec::with_capacity(items.len());
            items.each(&mut |_, item| {
                list.push(item.to_value());
                Ok(())
            })?;
            native::read(&serde_json::Value::Array(list))
        }
        Format::OpenAi => openai::read_list(items, &openai::list_path(value)),
        Format::OpenAiResponses => responses::read_taken(&crate::json_node::Node::of(value), items),
        Format::Anthropic => anthropic::SHAPE.read_taken(&crate::json_node::Node::of(value), Some(items)),
        Format::Gemini => gemini::read_taken(value, items),
        Format::AiSdk => aisdk::read_list(items),
        Format::AiSdkUi => aisdk::ui::read_list(items),
        Format::LangChain => langchain::read_list(items),
    }
}

/// Detects the format of `value` (see [`detect()`]) and reads it.
pub fn read_auto(value: &serde_json::Value) -> Result<(Vec<Message>, Format), FormatError> {
    let format = detect(value)?;
    read(value, format).map(|messages| (messages, format))
}

/// Writes messages in `format`. For Anthropic this is the inverse of [`read`]: a
/// `messages` array ([`anthropic::write`]), or the request form `{system, messages}`
/// ([`anthropic::write_request`]) when the messages open with a system message, since
/// Anthropic keeps the system prompt out of `messages`, unless it was read from inside
/// `messages` (then it goes back there); later system messages are `messages` of their own.
pub fn write(messages: &[Message], format: Format) -> Result<serde_json::Value, FormatError> {
    if format != Format::Native && messages.iter().any(|m| crate::message::has_tier_metadata(&m.extra)) {
        let stripped: Vec<Message> = messages.iter().map(without_tier_metadata).collect();
        return write_provider(&stripped, format);
    }
    write_provider(messages, format)
}

/// `message` without the tier metadata only the native format holds.
fn without_tier_metadata(message: &Message) -> Message {
    let mut m = message.clone();
    if crate::message::has_tier_metadata(&m.extra) {
        m.extra.shift_remove(crate::message::TIER_METADATA_KEY);
    }
    m
}

fn write_provider(messages: &[Message], format: Format) -> Result<serde_json::Value, FormatError> {
    match format {
        Format::Native => Ok(native::write(messages)),
        Format::OpenAi => openai::write(messages),
        Format::OpenAiResponses => responses::write(messages),
        Format::Anthropic
            if messages.first().is_some_and(|m| m.role == Role::System)
                && !anthropic::systems_in_messages(messages) =>
        {
            anthropic::write_request(messages)
        }
        Format::Anthropic => anthropic::write(messages),
        Format::Gemini if messages.iter().any(|m| m.role == Role::System) => gemini::write_request(messages),
        Format::Gemini => gemini::write(messages),
        Format::AiSdk => aisdk::write(messages),
        Format::AiSdkUi => aisdk::ui::write(messages),
        Format::LangChain => langchain::write(messages),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_nested_past_the_limit_says_so() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert!(parse_json(&nested(JSON_DEPTH)).is_ok());
        match parse_json(&nested(JSON_DEPTH + 1)) {
            Err(FormatError::InvalidJson { message, offset, .. }) => {
                assert_eq!(message, "nested deeper than 127 levels, the most contextfold reads");
                assert_eq!(offset, JSON_DEPTH);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn names_round_trip() {
        for format in Format::ALL {
            assert_eq!(Format::from_name(format.as_str()), Some(format));
            assert_eq!(serde_json::to_value(format).unwrap(), json!(format.as_str()));
        }
        assert_eq!(Format::from_name("gemini-ultra"), None);
    }

    #[test]
    fn only_the_native_format_keeps_tier_metadata() {
        let native = json!([
            {"role": "system", "parts": [{"type": "text", "text": "sys"}]},
            {"role": "user", "parts": [{"type": "text", "text": "continues"}], "contextfold": {"type": "bridge"}},
            {"role": "assistant", "parts": [{"type": "text", "text": "[Condensed history: 4 messages] s"}],
             "contextfold": {"type": "summary", "level": "condensed", "messageCount": 4}},
            {"role": "user", "parts": [{"type": "text", "text": "q"}], "contextfold": "the caller's own field"},
        ]);
        let messages = read(&native, Format::Native).unwrap();
        assert_eq!(write(&messages, Format::Native).unwrap(), native);
        for format in Format::ALL.into_iter().filter(|f| *f != Format::Native) {
            let text = write(&messages, format).unwrap().to_string();
            assert!(!text.contains("\"bridge\"") && !text.contains("messageCount"), "{format:?}: {text}");
        }
        // A field of that name that is no tier metadata is the caller's, and kept.
        let openai = write(&messages, Format::OpenAi).unwrap();
        assert_eq!(openai[3]["contextfold"], json!("the caller's own field"));
    }

    #[test]
    fn read_auto_detects_then_reads() {
        let cases = [
            (json!([{"role": "user", "parts": []}]), Format::Native),
            (json!([{"role": "developer", "content": "x"}]), Format::OpenAi),
            (json!({"system": "s", "messages": []}), Format::Anthropic),
        ];
        for (value, expected) in cases {
            let (messages, format) = read_auto(&value).unwrap();
            assert_eq!(format, expected);
            assert_eq!(messages.len(), 1);
        }
    }

    #[test]
    fn read_auto_reports_reader_errors_with_paths() {
        let err =
            read_auto(&json!([{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}])).unwrap_err();
        assert_eq!((err.code(), err.path()), ("invalid_shape", Some("[0].content[0].image_url.url")));
        let err = read_auto(&json!([{"role": "user", "content": [{"type": "nope"}]}])).unwrap_err();
        assert_eq!((err.code(), err.path()), ("unknown_format", Some("[0]")));
    }
}
