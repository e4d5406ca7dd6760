//! OpenAI Chat Completions messages -> native [`Message`]s ([`read`]), and back
//! ([`write()`], see *Writing* below).
//!
//! Mapping:
//! - roles `system` and `developer` -> system, `user` -> user, `assistant` -> assistant,
//!   `tool` and the legacy `function` -> tool;
//! - `content` (a string, an array of `text` / `image_url` / `input_audio` / `file` /
//!   `refusal` parts, `null` or absent) -> text, image and file parts; a `data:` URL is
//!   split into media type and base64 data;
//! - assistant `reasoning_content` (DeepSeek and others) -> a reasoning part placed first,
//!   `tool_calls` -> tool call parts after the content (arguments kept as the exact JSON
//!   text), the legacy `function_call` -> a tool call with a made-up id
//!   (`legacy_function_call_<message index>`) that the next `function` message answers;
//! - assistant `refusal` (what the API answers instead of content) -> a text part after
//!   the content, and `audio` (a spoken reply, sent back by its `id`) -> a text part
//!   standing for the object verbatim ([`crate::format::native_block`]; its `transcript`,
//!   when given, is what summaries and other formats read): what the assistant said, so
//!   such a message is never read as empty;
//! - a `tool` message -> one tool message holding one tool result (`tool_call_id`, the
//!   legacy `name` when present, content parts).
//!
//! Nothing is lost: every field not mapped is kept verbatim in the `extra` of the
//! message, tool call or content part it was found on. Mapped fields whose value carries
//! nothing (`reasoning_content: ""`, `tool_calls: []`, `name: null`, ...) are kept there
//! verbatim too, since they map to no part.
//!
//! Restoration markers: what a writer needs to rebuild the exact wire shape, and could
//! not infer from the parts, is recorded under the `"_openai"` key of an `extra`, and
//! only when the wire differs from what a writer would choose by itself:
//! - message `role`: `"developer"` or `"function"` (the system / tool default otherwise);
//! - message `content`: `"string"`, `"array"`, `"null"` or `"absent"`, the JSON type of
//!   the wire content, when it is not the natural one for the parts read (natural: a
//!   string for one plain text part, or for no part outside assistant messages; `null`
//!   for an assistant message without content; an array otherwise). An empty string
//!   content yields no part;
//! - content part `type`: `"refusal"` (a text part) or `"input_audio"` (a file part whose
//!   media type is `audio/<format>`);
//! - `field`: `"refusal"` or `"audio"` on the text part read from the assistant message's
//!   field of that name;
//! - `image_url`, `input_audio`, `file`, `function`: fields of these nested wire objects
//!   that were not mapped (`detail`, `file_id`, ...), under the nested object's name;
//! - tool call `type`: `"absent"` when the wire call had no `type` (natural: `function`);
//!   `legacyFunctionCall: true` on a tool call read from `function_call` (its id is made
//!   up and must not be written);
//! - `name: true` on a tool message that had the legacy `name` (the official types have no
//!   such field, so a writer leaves it out unless the wire had it);
//! - `shadowed`: unknown fields whose names clash with native field names.
//!
//! # Writing
//!
//! [`write()`] reverses the mapping: it reads the `_openai` markers back (and ignores those
//! of other formats), writes every other `extra` field verbatim, and gives messages
//! without markers the natural shape: `content` a string for a lone plain text part (or
//! none outside assistant messages), `null` for an assistant message without content, an
//! array otherwise; tool calls as `{id, type: "function", function}`; a tool message as
//! `{role: "tool", tool_call_id, content}` (`name` only where the wire had it, and on a
//! legacy `function` message, which requires it). OpenAI -> native -> OpenAI therefore
//! gives back the very same JSON. What the wire cannot carry:
//! - an assistant message is written reasoning, content, tool calls in this order,
//!   whatever its part order; several reasoning texts are joined by a newline;
//! - reasoning `signature` / `redacted_data` and tool call `signature` are dropped: they
//!   are proofs only the provider that made them can check, and OpenAI Chat has no field
//!   for them (reasoning without text is therefore not written);
//! - a tool result's `is_error` is dropped (OpenAI has no error flag); a tool message
//!   holding several results becomes one `tool` message each; fields of a result part
//!   (or of a reasoning part) go to the wire message, which is their only wire object;
//! - an empty text part alone is written as `""`, which reads back as no part;
//! - errors ([`FormatError::Unwritable`], with the path of the part): a file given by URL,
//!   an image with both a URL and data or neither, inline data without a media type, a
//!   tool result outside a tool message, reasoning or a tool call outside an assistant
//!   message, a tool message without a result.

mod content;
mod tool_calls;
mod writer;

pub(crate) use content::audio_format;

use super::content_shape::{is_plain_text, ContentShape};
use super::fields::{add_marker, json_kind, native_keys, Markers, WireObject};
use super::items::Items;
use super::native_block;
use super::path::JsonPath;
use super::FormatError;
use crate::json_node::Node;
use crate::message::{Extra, Message, Part, ReasoningPart, Role, TextPart, ToolResultPart};
use serde_json::Value;
use std::borrow::Borrow;

pub use tool_calls::LEGACY_CALL_ID_PREFIX;
pub use writer::write;

/// The `extra` key holding OpenAI restoration markers.
pub const NAMESPACE: &str = crate::message::marker_namespace::OPENAI;

/// Reads an OpenAI Chat Completions `messages` array.
pub fn read(value: &Value) -> Result<Vec<Message>, FormatError> {
    let path = list_path(value);
    match value {
        Value::Array(items) => read_list(Items::Borrowed(items), &path),
        Value::Object(request) if request.contains_key(super::RequestFields::OPENAI.messages) => {
            match request.get(super::RequestFields::OPENAI.messages) {
                Some(Value::Array(items)) => read_list(Items::Borrowed(items), &path),
                other => Err(path.shape_error(format!(
                    "`messages` must be an array, found {}",
                    other.map_or("nothing", |v| json_kind(v))
                ))),
            }
        }
        other => Err(JsonPath::root().shape_error(format!(
            "expected an array of OpenAI chat messages or a request object {{messages}}, found {}",
            json_kind(other)
        ))),
    }
}

/// Where the message list of `value` is: the value itself, or a request's `messages`.
pub(crate) fn list_path(value: &Value) -> JsonPath {
    match value {
        Value::Object(_) => JsonPath::root().key(super::RequestFields::OPENAI.messages),
        _ => JsonPath::root(),
    }
}

/// Reads the elements of an OpenAI `messages` array found at `path`.
pub(crate) fn read_list(items: Items<'_>, path: &JsonPath) -> Result<Vec<Message>, FormatError> {
    let mut legacy = tool_calls::LegacyCalls::default();
    items.read_all(Vec::new(), |index, item, out| {
        out.push(read_message(item, index, path.index(index), &mut legacy)?);
        Ok(())
    })
}

/// Roles as they appear on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WireRole {
    System,
    Developer,
    User,
    Assistant,
    Tool,
    Function,
}

impl WireRole {
    fn parse(name: &str) -> Option<WireRole> {
        match name {
            "system" => Some(WireRole::System),
            "developer" => Some(WireRole::Developer),
            "user" => Some(WireRole::User),
            "assistant" => Some(WireRole::Assistant),
            "tool" => Some(WireRole::Tool),
            "function" => Some(WireRole::Function),
            _ => None,
        }
    }

    fn role(self) -> Role {
        match self {
            WireRole::System | WireRole::Developer => Role::System,
            WireRole::User => Role::User,
            WireRole::Assistant => Role::Assistant,
            WireRole::Tool | WireRole::Function => Role::Tool,
        }
    }

    /// The wire name when a writer would not pick it for the neutral role by itself.
    fn marker(self) -> Option<&'static str> {
        match self {
            WireRole::Developer => Some("developer"),
            WireRole::Function => Some("function"),
            _ => None,
        }
    }
}

fn read_message(
    item: &Node<'_>,
    index: usize,
    path: JsonPath,
    legacy: &mut tool_calls::LegacyCalls,
) -> Result<Message, FormatError> {
    let mut obj = WireObject::new(item, path, "a message")?;
    let mut markers = Markers::default();
    let role_name = obj.required_string("role")?;
    let wire_role = WireRole::parse(role_name).ok_or_else(|| {
        obj.field_path("role").shape_error(format!(
            "unknown OpenAI role `{role_name}` (expected system, developer, user, assistant or tool)"
        ))
    })?;
    if let Some(name) = wire_role.marker() {
        markers.set("role", name);
    }
    let role = wire_role.role();
    let parts = match wire_role {
        WireRole::System | WireRole::Developer | WireRole::User => content::read_content(&mut obj, role, &mut markers)?,
        WireRole::Assistant => read_assistant_parts(&mut obj, index, legacy, &mut markers)?,
        WireRole::Tool => {
            let call_id = obj.required_string("tool_call_id")?.to_string();
            let result = read_tool_result(&mut obj, call_id, &mut markers)?;
            if matches!(&result, Part::ToolResult(r) if r.name.is_some()) {
                markers.set("name", true);
            }
            vec![result]
        }
        WireRole::Function => {
            let call_id = legacy.answer(index);
            vec![read_tool_result(&mut obj, call_id, &mut markers)?]
        }
    };
    Ok(Message { role, parts, extra: obj.into_extra(native_keys::MESSAGE, NAMESPACE, markers) })
}

/// Reasoning first, then content, then tool calls: the order a model produces them.
fn read_assistant_parts(
    obj: &mut WireObject<'_>,
    index: usize,
    legacy: &mut tool_calls::LegacyCalls,
    markers: &mut Markers,
) -> Result<Vec<Part>, FormatError> {
    let mut parts = Vec::new();
    if let Some(text) = obj.nonempty_string("reasoning_content")? {
        parts.push(Part::Reasoning(ReasoningPart { text: text.to_string(), ..ReasoningPart::default() }));
    }
    parts.extend(content::read_content(obj, Role::Assistant, markers)?);
    parts.extend(said_in_fields(obj)?);
    parts.extend(tool_calls::read_tool_calls(obj)?);
    if let Some(call) = tool_calls::read_function_call(obj, index, legacy)? {
        parts.push(call);
    }
    Ok(parts)
}

/// The assistant's `refusal` and `audio` fields as text parts (see the module doc); `null`
/// or `""` stays unused, as any field that carries nothing.
fn said_in_fields(obj: &mut WireObject<'_>) -> Result<Vec<Part>, FormatError> {
    let mut parts = Vec::new();
    if let Some(refusal) = obj.nonempty_string("refusal")? {
        let mut markers = Markers::default();
        markers.set("field", "refusal");
        parts.push(Part::Text(TextPart { text: refusal.to_string(), extra: markers.into_extra(NAMESPACE) }));
    }
    if let Some(audio) = obj.peek("audio").filter(|a| a.is_object()) {
        obj.take("audio");
        let block = audio.to_value();
        let rendering = match native_block::str_at(&block, "transcript").trim() {
            "" => "[audio reply]".to_string(),
            transcript => format!("[audio reply] {transcript}"),
        };
        let mut part = native_block::part(&block, NAMESPACE, rendering);
        if let Part::Text(text) = &mut part {
            add_marker(&mut text.extra, NAMESPACE, "field", "audio".into());
        }
        parts.push(part);
    }
    Ok(parts)
}

/// The single tool result a `tool` (or legacy `function`) message holds.
fn read_tool_result(obj: &mut WireObject<'_>, call_id: String, markers: &mut Markers) -> Result<Part, FormatError> {
    let name = obj.string("name")?.map(str::to_string);
    let content = content::read_content(obj, Role::Tool, markers)?;
    Ok(Part::ToolResult(ToolResultPart { call_id, name, content, is_error: false, extra: Extra::new() }))
}

/// The content shape a writer picks by itself for these content parts.
fn natural_content_shape<P: Borrow<Part>>(role: Role, parts: &[P]) -> ContentShape {
    match parts {
        [] if role == Role::Assistant => ContentShape::Null,
        [] => ContentShape::String,
        [one] if is_plain_text(one.borrow()) => ContentShape::String,
        _ => ContentShape::Array,
    }
}

#[cfg(test)]
mod tests;
