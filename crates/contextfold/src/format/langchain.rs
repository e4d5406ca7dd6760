//! LangChain serialized messages -> native [`Message`]s ([`read`]), and back
//! ([`write()`]).
//!
//! Two forms are read, message by message:
//! - Python `message_to_dict` / `messages_to_dict`: `{type, data: {content, ...}}` with
//!   `type` `human`, `ai`, `tool`, `system` (or `developer`);
//! - JS `toJSON()`: `{lc: 1, type: "constructor", id: ["langchain_core", "messages",
//!   "HumanMessage"], kwargs: {content, ...}}` with the classes `HumanMessage`,
//!   `AIMessage`, `ToolMessage`, `SystemMessage` (and their `Chunk`s);
//! - a `ChatMessage` (Python `chat`) has a `role` of its own: an assistant's or a
//!   system's (`developer` too) is read as one, any other as a user's; written back as
//!   it came.
//!
//! Mapping of `data` / `kwargs`: `content` (a string, or blocks `text`, `image_url`
//! (`{url}` or a string), `thinking` with its `signature`, `redacted_thinking` with its
//! `data`, LangChain v1's standard `reasoning` (marked `type`, its `signature` read) and
//! media blocks `image`, `file`, `audio`, `video`, `text-plain` by `url` or `data` (with
//! `mimeType`; marked `type`)) -> text, reasoning, image and file parts (a `data:` URL,
//! in `image_url` or a block's `url`, is inline data as from OpenAI; a block's is marked
//! `url: "data"`, with the `mimeType` it had, to be written back so); a block that is
//! one of the message's `tool_calls` (a `tool_use`, as `@langchain/anthropic` returns
//! every call beside `tool_calls`, or a v1 `tool_call`, of the same id) is that call:
//! kept on it (`contentBlock`, at `contentAt` in the content; `contentOwn` when its name
//! or arguments are not the call's) and written back there with the call's id, name and
//! arguments, so the call is read once; any other block (a provider integration's own,
//! a media block by `fileId` alone) is kept verbatim ([`crate::format::native_block`]: a
//! text part carrying it, whose text is a short rendering, written back unchanged); an
//! AI message's `tool_calls` (`{id, name, args}`) -> tool calls after the content,
//! arguments being `args` as compact JSON; a tool message -> one tool result
//! (`tool_call_id`, `name`, the content, `status: "error"` as the error flag); an AI
//! message's OpenAI Responses reasoning item in `additional_kwargs.reasoning` (where
//! `@langchain/openai` keeps it) -> one reasoning part, with its summary's display block
//! (see [`responses_item`]). Every
//! other field (`additional_kwargs`, `response_metadata`, `id`, `usage_metadata`,
//! `invalid_tool_calls`, ...) stays verbatim in the message's `extra`, each tool call's
//! extra fields (`type: "tool_call"`) in the tool call's; `response_metadata.output` is
//! dropped from an AI message whose parts changed (see [`replay`]).
//!
//! Restoration markers, under `"_langchain"`: `form: "constructor"` with the wire `lc`
//! and `id` for the JS form (the Python form is the natural one), the outer fields that
//! are not `type` / `data` (`outer`), `content` (`"string"` / `"array"`) when not the
//! natural shape (a string for no part or one plain text part), tool call `args` (the
//! original, when its compact JSON does not read back the same), `shadowed`.
//!
//! # Writing
//!
//! [`write()`] reverses the mapping; unmarked messages get the form of the chain (the JS
//! one when any message was read in it, as `load` wants one form throughout), else the
//! Python `toDict` form, with only the fields they have: `{type, data: {content, tool_calls?, tool_call_id?, name?,
//! status?}}`. A tool message holding several results becomes one message each.
//! Reasoning is written as a `thinking` block (with its signature), or a
//! `redacted_thinking` block (with its data), which LangChain's Anthropic integration sends
//! back, or as the v1 `reasoning` block it was read as or a signature not Anthropic's
//! needs (see [`owner`]), or for a Responses reasoning item, in `additional_kwargs`
//! (see [`responses_item`]); tool call signatures are dropped.
//! Errors ([`FormatError::Unwritable`]): arguments that are not a JSON object, a file
//! part not read from a v1 standard block (`convert` drops files for LangChain, whose
//! older integrations take none), media without a URL or data, parts outside
//! the role that takes them.

mod owner;
mod replay;
mod responses_item;
mod writer;

use super::content_shape::{is_plain_text, ContentShape};
use super::data_url;
use super::fields::{json_kind, native_keys, Markers, WireObject};
use super::items::Items;
use super::native_block;
use super::path::JsonPath;
use super::FormatError;
use crate::json_node::Node;
use crate::message::{Extra, FilePart, ImagePart, Message, Part, Role, TextPart, ToolResultPart};
use serde_json::Map;
use serde_json::Value;

pub(crate) use owner::{carry_signature_owner, signature_owner};
pub use replay::drop_call_ids_without_reasoning;
pub(crate) use responses_item::{is_item as is_responses_item, mark as mark_responses_item};
pub use writer::write;

/// The `extra` key holding LangChain restoration markers.
pub const NAMESPACE: &str = crate::message::marker_namespace::LANGCHAIN;

/// The marker naming the field a message's content came in (`content_blocks`), when it
/// is not `content`.
pub(crate) const CONTENT_KEY: &str = "contentKey";

/// Reads an array of serialized LangChain messages.
pub fn read(value: &Value) -> Result<Vec<Message>, FormatError> {
    let root = JsonPath::root();
    let Value::Array(items) = value else {
        return Err(root.shape_error(format!("expected an array of LangChain messages, found {}", json_kind(value))));
    };
    read_list(Items::Borrowed(items))
}

/// Reads the elements of a LangChain message array.
pub(crate) fn read_list(items: Items<'_>) -> Result<Vec<Message>, FormatError> {
    let root = JsonPath::root();
    items.read_all(Vec::new(), |i, item, out| {
        out.push(read_message(item, root.index(i))?);
        Ok(())
    })
}

fn role_of_type(kind: &str) -> Option<Role> {
    match kind {
        "human" | "HumanMessageChunk" => Some(Role::User),
        "ai" | "AIMessageChunk" => Some(Role::Assistant),
        "tool" | "ToolMessageChunk" => Some(Role::Tool),
        "system" | "developer" | "SystemMessageChunk" => Some(Role::System),
        _ => None,
    }
}

fn role_of_class(class: &str) -> Option<Role> {
    match class.strip_suffix("Chunk").unwrap_or(class) {
        "HumanMessage" => Some(Role::User),
        "AIMessage" => Some(Role::Assistant),
        "ToolMessage" => Some(Role::Tool),
        "SystemMessage" => Some(Role::System),
        _ => None,
    }
}

/// The role of a `ChatMessage` (a message with a role of its own), from the `role` of its
/// `inner` body: a standard one's, else a user's (a participant's words to the model).
/// The field stays in the body, written back as it came.
fn chat_role(outer: &WireObject<'_>, inner: &str) -> Role {
    match outer.peek(inner).and_then(|b| b.get("role")).and_then(Node::as_str) {
        Some("assistant" | "ai") => Role::Assistant,
        Some("system" | "developer") => Role::System,
        _ => Role::User,
    }
}

fn read_message(item: &Node<'_>, path: JsonPath) -> Result<Message, FormatError> {
    let mut outer = WireObject::new(item, path, "a message")?;
    let mut markers = Markers::default();
    let (role, inner_key, wire_type) = if outer.peek("lc").is_some() {
        let lc = outer.take("lc").map(Node::to_value).unwrap_or_default();
        let kind = outer.required_string("type")?;
        if kind != "constructor" {
            return Err(outer.field_path("type").shape_error(format!("expected `constructor`, found `{kind}`")));
        }
        let id_path = outer.field_path("id");
        let id = outer.take("id").map(Node::to_value).unwrap_or_default();
        let class = id.as_array().and_then(|a| a.last()).and_then(Value::as_str).unwrap_or_default();
        let role = match role_of_class(class) {
            Some(role) => role,
            None if class.strip_suffix("Chunk").unwrap_or(class) == "ChatMessage" => chat_role(&outer, "kwargs"),
            None => return Err(id_path.shape_error(format!("unknown LangChain message class `{class}`"))),
        };
        markers.set("form", "constructor");
        markers.set("lc", lc);
        markers.set("id", id);
        (role, "kwargs", None)
    } else {
        let kind = outer.required_string("type")?;
        let role = match role_of_type(kind) {
            Some(role) => role,
            None if matches!(kind, "chat" | "ChatMessageChunk") => chat_role(&outer, "data"),
            None => {
                return Err(outer.field_path("type").shape_error(format!(
                    "unknown LangChain message type `{kind}` (expected human, ai, tool, system or chat)"
                )))
            }
        };
        (role, "data", Some(kind))
    };
    if let Some(kind) = wire_type.filter(|k| !matches!(*k, "human" | "ai" | "tool" | "system")) {
        markers.set("type", kind);
    }
    let mut inner = outer.required_object(inner_key, "a message body")?;
    let rest = outer.leftovers();
    if !rest.is_empty() {
        markers.set("outer", Value::Object(rest));
    }
    // A message built with `contentBlocks` (LangChain v1) serializes them as
    // `content_blocks`, with no `content`: read as its content, written back so.
    let key = if inner.peek("content").is_none() && inner.peek("content_blocks").is_some() {
        markers.set(CONTENT_KEY, "content_blocks");
        "content_blocks"
    } else {
        "content"
    };
    let content_path = inner.field_path(key);
    let call_ids = if role == Role::Assistant { tool_call_ids(&inner) } else { Vec::new() };
    // The content blocks that are one of the message's `tool_calls` (j, id, block).
    let mut call_blocks = Vec::new();
    let (mut parts, shape) = match inner.take(key) {
        Some(Node::String(text)) => {
            (if text.is_empty() { Vec::new() } else { vec![Part::text(text.as_ref())] }, ContentShape::String)
        }
        Some(Node::Array(items)) => {
            let mut parts = Vec::with_capacity(items.len());
            for (j, block) in items.iter().enumerate() {
                match call_block_id(block, &call_ids) {
                    Some(id) if !call_blocks.iter().any(|(_, seen, _)| *seen == id) => call_blocks.push((j, id, block)),
                    _ => parts.push(read_block(block, content_path.index(j))?),
                }
            }
            (parts, ContentShape::Array)
        }
        Some(other) => {
            return Err(content_path
                .shape_error(format!("`content` must be a string or an array of blocks, found {}", json_kind(other))))
        }
        None => return Err(content_path.shape_error("missing field `content` (or `content_blocks`)")),
    };
    if shape != natural_shape(&parts) {
        markers.set("content", shape);
    }
    match role {
        Role::Assistant => {
            if let Some(calls) = inner.nonempty_array("tool_calls")? {
                let calls_path = inner.field_path("tool_calls");
                for (k, call) in calls.iter().enumerate() {
                    let id = call.get("id").and_then(Node::as_str);
                    let block = call_blocks.iter().find(|(_, seen, _)| Some(*seen) == id).map(|(j, _, b)| (*j, *b));
                    parts.push(read_tool_call(call, calls_path.index(k), block)?);
                }
            }
        }
        Role::Tool => {
            let call_id = inner.required_string("tool_call_id")?.to_string();
            let name = inner.string("name")?.map(str::to_string);
            let is_error = inner.peek("status").and_then(Node::as_str) == Some("error");
            if is_error {
                inner.take("status");
            }
            let content = std::mem::take(&mut parts);
            parts.push(Part::ToolResult(ToolResultPart { call_id, name, content, is_error, extra: Extra::new() }));
        }
        Role::System | Role::User => {}
    }
    let kwargs = (role == Role::Assistant).then(|| inner.peek(responses_item::KWARGS_KEY)).flatten();
    let kwargs_path = inner.field_path(responses_item::KWARGS_KEY).key("reasoning");
    let mut message = Message { role, parts, extra: inner.into_extra(native_keys::MESSAGE, NAMESPACE, markers) };
    responses_item::read(kwargs, kwargs_path, &mut message)?;
    if role == Role::Assistant {
        replay::mark(&mut message);
    }
    Ok(message)
}

/// No part or one plain text part: a string; an array otherwise.
fn natural_shape(parts: &[Part]) -> ContentShape {
    match parts {
        [] => ContentShape::String,
        [one] if is_plain_text(one) => ContentShape::String,
        _ => ContentShape::Array,
    }
}

fn read_block(block: &Node<'_>, path: JsonPath) -> Result<Part, FormatError> {
    let mut obj = WireObject::new(block, path, "a content block")?;
    let markers = Markers::default();
    match obj.required_string("type")? {
        "text" => {
            let text = obj.required_string("text")?.to_string();
            Ok(Part::Text(TextPart { text, extra: obj.into_extra(native_keys::TEXT, NAMESPACE, markers) }))
        }
        "thinking" => {
            let text = obj.required_string("thinking")?.to_string();
            let signature = obj.string("signature")?.map(str::to_string);
            Ok(obj.into_reasoning(text, signature, NAMESPACE, markers))
        }
        "image_url" => {
            let mut markers = markers;
            let url = match obj.take("image_url") {
                Some(Node::String(url)) => {
                    markers.set("imageUrl", "string");
                    url.to_string()
                }
                Some(Node::Object(_)) => {
                    let mut nested = obj.required_object("image_url", "an image_url object")?;
                    let url = nested.required_string("url")?.to_string();
                    markers.nested_leftovers("image_url", &nested);
                    url
                }
                _ => return Err(obj.field_path("image_url").shape_error("`image_url` must be a string or {url}")),
            };
            // A `data:` URL is inline data, as from OpenAI; the writer rebuilds the same URL.
            let mut part = ImagePart::default();
            match data_url::split(&url) {
                Some(inline) => {
                    part.data = Some(inline.data.to_string());
                    part.media_type = Some(inline.media_type.to_string());
                }
                None => part.url = Some(url),
            }
            part.extra = obj.into_extra(native_keys::IMAGE, NAMESPACE, markers);
            Ok(Part::Image(part))
        }
        "redacted_thinking" => {
            let data = obj.required_string("data")?.to_string();
            let mut part = obj.into_reasoning(String::new(), None, NAMESPACE, markers);
            if let Part::Reasoning(r) = &mut part {
                r.redacted_data = Some(data);
            }
            Ok(part)
        }
        "reasoning" if obj.peek("reasoning").and_then(Node::as_str).is_some() => {
            let mut markers = markers;
            markers.set("type", "reasoning");
            let text = obj.required_string("reasoning")?.to_string();
            let signature = obj.string("signature")?.map(str::to_string);
            Ok(obj.into_reasoning(text, signature, NAMESPACE, markers))
        }
        kind @ ("image" | "file" | "audio" | "video" | "text-plain") if is_v1_media(&obj) => {
            let mut markers = markers;
            markers.set("type", kind);
            let mut url = obj.string("url")?.map(str::to_string);
            let mut data = if url.is_none() { obj.string("data")?.map(str::to_string) } else { None };
            let mut media_type = obj.string("mimeType")?.map(str::to_string);
            // A `data:` URL is inline data (its media type the data's); marked to be
            // written back as that URL, with the `mimeType` the block had.
            if let Some(inline) = url.as_deref().and_then(data_url::split) {
                markers.set("url", "data");
                if let Some(mime) = media_type.take() {
                    markers.set("mimeType", mime);
                }
                data = Some(inline.data.to_string());
                media_type = Some(inline.media_type.to_string());
                url = None;
            }
            Ok(if kind == "image" {
                Part::Image(ImagePart {
                    url,
                    data,
                    media_type,
                    extra: obj.into_extra(native_keys::IMAGE, NAMESPACE, markers),
                })
            } else {
                let extra = obj.into_extra(native_keys::FILE, NAMESPACE, markers);
                Part::File(FilePart { url, data, media_type, name: None, extra })
            })
        }
        other => Ok(verbatim(block, other)),
    }
}

/// A LangChain v1 standard media block (`image`, `file`, `audio`, `video`, `text-plain`)
/// by URL or base64 data: `{type, url}` or `{type, data, mimeType}`. One by `fileId`
/// alone, or an older data block (`source_type`) or a provider's own (`source`), is
/// kept verbatim.
fn is_v1_media(obj: &WireObject<'_>) -> bool {
    let string = |key: &str| obj.peek(key).and_then(Node::as_str).is_some();
    (string("url") || string("data")) && obj.peek("source").is_none() && obj.peek("source_type").is_none()
}

/// A block of any other type, kept verbatim: its rendering is its text-like fields, or
/// its type and name.
fn verbatim(block: &Node<'_>, block_type: &str) -> Part {
    let value = block.to_value();
    let mut texts = Vec::new();
    native_block::texts(&value, &["text", "thinking", "reasoning", "content"], &mut texts);
    let said = native_block::short(&texts.join(" "), 600);
    let rendering = match native_block::str_at(&value, "name") {
        "" if said.is_empty() => format!("[{block_type}]"),
        "" => format!("[{block_type}] {said}"),
        name => format!("[{block_type} {name}] {said}").trim_end().to_string(),
    };
    native_block::part(&value, NAMESPACE, rendering)
}

/// The ids of an AI message's `tool_calls`.
fn tool_call_ids<'a>(inner: &WireObject<'a>) -> Vec<&'a str> {
    let calls = inner.peek("tool_calls").and_then(Node::as_array).unwrap_or_default();
    calls.iter().filter_map(|c| c.get("id").and_then(Node::as_str)).collect()
}

/// The id of a content block that is one of `call_ids`: a provider's `tool_use` (what
/// `@langchain/anthropic` returns beside `tool_calls`) or a v1 standard `tool_call`.
fn call_block_id<'a>(block: &'a Node<'_>, call_ids: &[&str]) -> Option<&'a str> {
    let kind = block.get("type").and_then(Node::as_str)?;
    let id = block.get("id").and_then(Node::as_str)?;
    (matches!(kind, "tool_use" | "tool_call") && call_ids.contains(&id)).then_some(id)
}

/// The field of a call's content block holding its arguments.
pub(crate) fn call_block_args_key(block: &Value) -> &'static str {
    if native_block::str_at(block, "type") == "tool_call" {
        "args"
    } else {
        "input"
    }
}

/// `block`: the content block at index `j` that is this call (see [`call_block_id`]),
/// kept for the writer as `contentBlock` / `contentAt`; `contentOwn` when its name or
/// arguments differ from the call's (then written back as it came, not from the call).
fn read_tool_call(call: &Node<'_>, path: JsonPath, block: Option<(usize, &Node<'_>)>) -> Result<Part, FormatError> {
    let mut obj = WireObject::new(call, path, "a tool call")?;
    let id = obj.required_string("id")?.to_string();
    let name = obj.required_string("name")?.to_string();
    let mut markers = Markers::default();
    let args = obj.take("args").map_or_else(|| Value::Object(Map::new()), Node::to_value);
    let arguments = serde_json::to_string(&args).unwrap_or_default();
    if let Some((j, block)) = block {
        let block = block.to_value();
        let same =
            native_block::str_at(&block, "name") == name && block.get(call_block_args_key(&block)) == Some(&args);
        if !same {
            markers.set("contentOwn", true);
        }
        markers.set("contentAt", j);
        markers.set("contentBlock", block);
    }
    if serde_json::from_str::<Value>(&arguments).ok().as_ref() != Some(&args) {
        markers.set("args", args);
    }
    Ok(obj.into_tool_call(id, name, arguments, NAMESPACE, markers))
}
