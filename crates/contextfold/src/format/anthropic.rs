//! Anthropic Messages -> native [`Message`]s.
//!
//! Input: a `messages` array, or a request object `{system, messages, ...}` whose
//! `system` (a string or text blocks) becomes one leading system message. Other request
//! fields (`model`, `tools`, ...) are not messages and are not read. Leading
//! `{"role": "system"}` messages inside `messages` (as many SDK wrappers and proxies
//! send the system prompt) are read as system messages too, marked `inMessages` so they
//! are written back where they were; a system message after the first user or
//! assistant message (`SystemMessageParam`: a mid-conversation instruction, with its
//! `clear_at` and `output_config`) is a system message written back in `messages`.
//!
//! Mapping:
//! - `content` as a string or blocks; `text` -> text, `image` / `document` -> image /
//!   file parts (base64 or URL `source`; a document's `title` is the file's name),
//!   `thinking` -> reasoning with its `signature`, `redacted_thinking` -> reasoning with
//!   `redacted_data`, `tool_use` -> a tool call whose arguments are `input` serialized as
//!   compact JSON (key order kept);
//! - `tool_result` blocks (`tool_use_id`, content string or blocks, `is_error`) -> tool
//!   results. Neutral chains carry them in tool messages, so a user message holding
//!   tool results becomes a tool message (the results, in order); if it also holds other
//!   blocks, these follow in a user message of their own, marked to merge back;
//! - assistant messages keep their block order as parts.
//!
//! Nothing is lost: unknown fields (`cache_control`, `citations`, Claude Code's
//! `caller`, ...) are kept verbatim in the `extra` of the message or part they were found
//! on; so is `is_error: false`, which maps to no flag. Message-level fields of a split
//! user message go to its tool message.
//!
//! Restoration markers, under the `"_anthropic"` key of an `extra`, only where the wire
//! differs from what a writer would choose by itself:
//! - message `content`: `"string"` or `"array"`, the JSON type of the wire content, when
//!   it is not the natural one (natural: a string for a single plain text part, an array
//!   otherwise). An empty string content yields no part. The same applies to a
//!   `system` read into a system message;
//! - tool result `content`: `"string"`, `"array"` or `"absent"` (natural: absent for no
//!   content, a string for a single plain text part, an array otherwise);
//! - `mergeWithPrevious: [positions]` on a user message split off a user message with
//!   tool results: it merges back into the previous (tool) message's wire message, its
//!   parts going to these block positions;
//! - `newMessage: true` on a tool or user message read from a user message that directly
//!   follows one of tool results: a writer must not merge the two;
//! - `source`: fields of an `image` / `document` source that were not mapped, including
//!   its `type` unless that is `base64` (data) or `url` (url), so `text`, `file` or
//!   `content` sources survive (a part with neither URL nor data is then reported by the
//!   chain parser);
//! - `inMessages: true` on a system message read from inside `messages`: when the
//!   first message carries it, the writer puts the whole leading run of system
//!   messages (a summary a strategy added included) inside `messages`;
//! - `input`: the original `tool_use` input, only if the compact JSON of `arguments` does
//!   not read back to the same value;
//! - `shadowed`: unknown fields whose names clash with native field names.
//!
//! # Writing
//!
//! A system prompt is not a message in Anthropic's API but the request's `system` field,
//! so there are two writers, and [`crate::format::write`] picks the one that is the
//! inverse of [`read`]:
//! - [`write()`] gives a `messages` array and fails (with the path of the message) when a
//!   system message is present: silently dropping the system prompt would be worse;
//! - [`write_request`] gives `{system, messages}`: the leading system messages become
//!   `system` (a string or text blocks as read; several messages give blocks), a system
//!   message after the start is an error. Request fields other than `system` and
//!   `messages` are not read, so they are not written either; nor are message-level
//!   fields of a system message.
//!
//! It reads the `_anthropic` markers back (and ignores those of other formats), writes
//! every other `extra` field verbatim, and gives messages without markers the natural
//! shape: content a string for a lone plain text part, blocks otherwise; reasoning a
//! `thinking` block with its `signature`, or `redacted_thinking` for redacted data; a
//! tool call a `tool_use` block whose `input` is the arguments parsed (`{}` when empty);
//! tool messages a user message of `tool_result` blocks (content absent, a string or
//! blocks, `is_error` only when set). Consecutive tool messages go into one user message
//! unless marked `newMessage`; a user message marked `mergeWithPrevious` goes back into
//! the user message of the tool results before it, at its recorded block positions, and any
//! other user message after tool results joins it too (after the results), unless marked
//! `newMessage`: turns alternate, and read chains keep their exact shape. Anthropic -> native ->
//! Anthropic therefore gives back the very same JSON. What the wire cannot carry:
//! - a tool result's `name` and a tool call's `signature` are dropped (no such fields);
//! - a file's `name` is written as the document `title`;
//! - errors ([`FormatError::Unwritable`], with the path of the part): arguments that are
//!   not JSON, an image or file with neither URL nor data, reasoning with both text and
//!   redacted data, a part in a place Anthropic does not allow it (only text in
//!   `system`, thinking and tool use in assistant messages, tool results in tool
//!   messages), a tool message without a result.

mod blocks;
pub(crate) mod media;
mod native;

pub(crate) use native::NATIVE_BLOCKS;
mod writer;

use super::content_shape::{is_plain_text, ContentShape};
use super::fields::{add_marker, json_kind, native_keys, Markers, WireObject};
use super::items::Items;
use super::path::JsonPath;
use super::tool_turns::split_tool_results;
use super::FormatError;
use crate::json_node::Node;
use crate::message::{Extra, Message, Part, Role};
use blocks::BlockContext;
use serde_json::Value;
use std::borrow::Borrow;

pub use writer::{write, write_request};

/// The `extra` key holding Anthropic restoration markers.
pub const NAMESPACE: &str = crate::message::marker_namespace::ANTHROPIC;

/// Whether the request object `request` turns thinking on for every turn (`thinking:
/// {type: "enabled"}`; with `adaptive` the model may answer without thinking, and a
/// bare list says nothing of it).
pub(crate) fn thinking_enabled(request: &Value) -> bool {
    request.get("thinking").and_then(|t| t.get("type")).and_then(Value::as_str) == Some("enabled")
}

/// How many of the request object `request`'s tool definitions carry `cache_control`: each
/// is one of the cache breakpoints a request may hold.
pub(crate) fn tool_cache_breakpoints(request: &Value) -> usize {
    let tools = request.get("tools").and_then(Value::as_array);
    tools.map_or(0, |tools| tools.iter().filter(|t| t.get("cache_control").is_some()).count())
}

/// Reads an Anthropic `messages` array or a request object `{system, messages}`.
pub fn read(value: &Value) -> Result<Vec<Message>, FormatError> {
    SHAPE.read(value)
}

/// How the chain comes (see [`super::read_taken`] for a list taken out of it).
pub(crate) const SHAPE: super::wire::RequestShape = super::wire::RequestShape {
    list_name: "Anthropic messages",
    fields: super::RequestFields::ANTHROPIC,
    read_system,
    read_list: read_messages,
};

/// The request's `system` (a string or text blocks) as one system message.
fn read_system(value: Option<&Node<'_>>, path: &JsonPath) -> Result<Option<Message>, FormatError> {
    let (parts, shape) = match value {
        None | Some(Node::Null) => return Ok(None),
        Some(Node::String(text)) => (text_parts(text), ContentShape::String),
        Some(Node::Array(items)) => (blocks::read_blocks(items, path, BlockContext::System)?, ContentShape::Array),
        Some(other) => {
            return Err(path.shape_error(format!(
                "`system` must be a string or an array of text blocks, found {}",
                json_kind(other)
            )))
        }
    };
    let mut message = Message::new(Role::System, parts);
    if shape != natural_content_shape(&message.parts) {
        message.extra = marker_extra("content", shape.into());
    }
    Ok(Some(message))
}

fn read_messages(items: Items<'_>, path: &JsonPath, out: Vec<Message>) -> Result<Vec<Message>, FormatError> {
    items.read_all(out, |i, item, out| {
        let leading = out.iter().all(|m| m.role == Role::System);
        let mut read = read_message(item, path.index(i), leading)?;
        let after_results = out.last().is_some_and(|m| m.role == Role::Tool);
        if let Some(first) = read.first_mut().filter(|m| after_results && matches!(m.role, Role::Tool | Role::User)) {
            add_marker(&mut first.extra, NAMESPACE, "newMessage", Value::Bool(true));
        }
        out.extend(read);
        Ok(())
    })
}

/// One wire message: one neutral message, or two for a user message holding tool
/// results and other blocks.
/// `leading`: no user or assistant message came before, so a system message may.
fn read_message(item: &Node<'_>, path: JsonPath, leading: bool) -> Result<Vec<Message>, FormatError> {
    let mut obj = WireObject::new(item, path, "a message")?;
    let role_name = obj.required_string("role")?;
    let (role, context) = match role_name {
        "user" => (Role::User, BlockContext::User),
        "assistant" => (Role::Assistant, BlockContext::Assistant),
        // Leading: the system prompt, as SDK wrappers send it; later: a `SystemMessageParam`.
        "system" => (Role::System, BlockContext::System),
        other => {
            return Err(obj.field_path("role").shape_error(format!(
                "unknown Anthropic role `{other}` (expected user or assistant; a system prompt goes in the request's `system` field)"
            )))
        }
    };
    let content_path = obj.field_path("content");
    let (parts, shape) = match obj.take("content") {
        Some(Node::String(text)) => (text_parts(text), ContentShape::String),
        Some(Node::Array(items)) => (blocks::read_blocks(items, &content_path, context)?, ContentShape::Array),
        Some(other) => {
            return Err(content_path
                .shape_error(format!("`content` must be a string or an array of blocks, found {}", json_kind(other))))
        }
        None => return Err(content_path.shape_error("missing field `content`")),
    };
    if role == Role::User && parts.iter().any(|p| matches!(p, Part::ToolResult(_))) {
        let tool_extra = obj.into_extra(native_keys::MESSAGE, NAMESPACE, Markers::default());
        return Ok(split_tool_results(parts, tool_extra, NAMESPACE));
    }
    let mut markers = Markers::default();
    if shape != natural_content_shape(&parts) {
        markers.set("content", shape);
    }
    if role == Role::System && leading {
        markers.set("inMessages", true);
    }
    Ok(vec![Message { role, parts, extra: obj.into_extra(native_keys::MESSAGE, NAMESPACE, markers) }])
}

/// A string content: one text part, or none for an empty string.
fn text_parts(text: &str) -> Vec<Part> {
    if text.is_empty() {
        Vec::new()
    } else {
        vec![Part::text(text)]
    }
}

/// The content shape a writer picks by itself for a message's parts.
fn natural_content_shape<P: Borrow<Part>>(parts: &[P]) -> ContentShape {
    match parts {
        [one] if is_plain_text(one.borrow()) => ContentShape::String,
        _ => ContentShape::Array,
    }
}

/// Whether the chain's system prompt was read from inside `messages` (its first message
/// is a system message marked `inMessages`), so the writer puts the leading system
/// messages back there rather than in the request's `system` field.
pub(crate) fn systems_in_messages(messages: &[Message]) -> bool {
    messages.first().is_some_and(|m| {
        m.role == Role::System && super::wire::Restore::new(&m.extra, NAMESPACE).marker_flag("inMessages")
    })
}

/// An `extra` holding a single marker.
fn marker_extra(key: &str, value: Value) -> Extra {
    let mut markers = Markers::default();
    markers.set(key, value);
    let mut extra = Extra::new();
    extra.insert(NAMESPACE.to_string(), markers.into_value());
    extra
}

#[cfg(test)]
mod tests;
