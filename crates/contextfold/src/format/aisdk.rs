//! Vercel AI SDK `ModelMessage`s -> native [`Message`]s ([`read`]), and back
//! ([`write()`]). `UIMessage`s have their own module, [`ui`].
//!
//! Mapping:
//! - roles `system`, `user`, `assistant`, `tool` map one to one; `content` is a string or
//!   an array of parts (a system message's content is always a string);
//! - parts: `text` -> text; `image` (`image`: a URL or base64 data, `mediaType?`) ->
//!   image; `file` (`data`: a URL or base64 data, or `ai` 7's tagged `{type: "data",
//!   data}` / `{type: "url", url}`, `mediaType`, `filename?`) -> file (a string with `:`
//!   in it is a URL, base64 never has one); `reasoning` -> reasoning;
//!   `tool-call` (`toolCallId`, `toolName`, `input`) -> a tool call whose arguments are
//!   `input` as compact JSON; `tool-result` (`toolCallId`, `toolName`, `output`) -> a tool
//!   result: output `text` / `error-text` give their text (the latter with the error
//!   flag), `json` / `error-json` the compact JSON of their value, `content` its text and
//!   media items, as both majors write them (`ai` 6's `media`, `image-data` / `file-data`,
//!   `image-url` / `file-url`, `ai` 7's `file` with tagged data), `execution-denied` (a
//!   call the user refused) its reason, or the sentence the SDK tells the model;
//! - kept verbatim ([`native`]): approval requests and responses, a provider-executed
//!   call and its result, `reasoning-file`, `custom`, files by provider reference;
//! - `providerOptions` and every other unknown field stay verbatim in the `extra` of the
//!   message or part they were found on (signatures the SDK keeps there, such as
//!   `providerOptions.anthropic.signature`, included).
//!
//! Restoration markers, under `"_aisdk"`: message `content` (`"string"` / `"array"`)
//! when it is not the natural shape (a string for one plain text part, an array
//! otherwise); tool call `input` (the original, when its compact JSON does not read back
//! the same); tool result `output` (`"json"`, `"error-json"`, `"content"` or
//! `"execution-denied"`: the output type when a writer would not pick it), `value` (the
//! original JSON value, as for `input`) and `reason: false` (a refusal given no reason); file `data: "tagged"` (`ai` 7's tagged data); output media `item` (`media`,
//! `file`: the item type when it is not `image-data` / `file-data` / `image-url` /
//! `file-url`, which both majors read and writers pick by themselves); `shadowed` as in
//! every format.
//!
//! # Writing
//!
//! [`write()`] reverses the mapping: natural shapes for unmarked messages, tool results
//! as `text` (or `error-text`) outputs for a single text, `content` outputs otherwise,
//! and `toolName` from the result's name or its call's. A system message's text parts
//! are joined by a newline. A reasoning part's signature and redacted data are read from
//! the provider entry of `providerOptions` its provider package keeps them in
//! ([`signatures`]), which is written verbatim when it was read (`convert` puts another
//! format's there); a `data:` URL is inline data (written back as that URL). What the
//! wire cannot carry: a tool call's signature; errors ([`FormatError::Unwritable`]) for
//! arguments that are not JSON, media without URL or data, a non-text system part, a
//! result whose tool name is unknown, parts outside the role that takes them.

mod native;
pub(crate) mod signatures;
pub mod ui;

pub(crate) use native::{bookkeeping_part, kept as kept_part};
mod writer;

/// Whether `part` is the user's answer to a tool's approval request: a ModelMessage
/// `tool-approval-response`, or a UI tool part left in state `approval-responded` (an
/// approved call; a refused one reads as its result). The request that runs the approved
/// calls follows it.
pub(crate) fn answers_approval(part: &Part) -> bool {
    match part {
        Part::ToolCall(call) => {
            call.extra.get(NAMESPACE).and_then(|m| m.get("state")).and_then(serde_json::Value::as_str)
                == Some("approval-responded")
        }
        other => bookkeeping_part(other) == Some("tool-approval-response"),
    }
}

use super::content_shape::{is_plain_text, ContentShape};
use super::fields::{json_kind, native_keys, Markers, WireObject};
use super::items::Items;
use super::path::JsonPath;
use super::FormatError;
use crate::json_node::Node;
use crate::message::{FilePart, ImagePart, Message, Part, ReasoningPart, Role, TextPart, ToolResultPart};
use serde_json::Value;
use std::borrow::Borrow;

pub(crate) use writer::provider_executed;
pub use writer::write;

/// The `extra` key holding AI SDK restoration markers (both `ModelMessage` and
/// `UIMessage`).
pub const NAMESPACE: &str = crate::message::marker_namespace::AISDK;

/// Reads an array of AI SDK `ModelMessage`s.
pub fn read(value: &Value) -> Result<Vec<Message>, FormatError> {
    let root = JsonPath::root();
    let Value::Array(items) = value else {
        return Err(root.shape_error(format!("expected an array of AI SDK messages, found {}", json_kind(value))));
    };
    read_list(Items::Borrowed(items))
}

/// Reads the elements of an AI SDK `ModelMessage` array.
pub(crate) fn read_list(items: Items<'_>) -> Result<Vec<Message>, FormatError> {
    let root = JsonPath::root();
    items.read_all(Vec::new(), |i, item, out| {
        out.push(read_message(item, root.index(i))?);
        Ok(())
    })
}

fn read_message(item: &Node<'_>, path: JsonPath) -> Result<Message, FormatError> {
    let mut obj = WireObject::new(item, path, "a message")?;
    let role = match obj.required_string("role")? {
        "system" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" => Role::Tool,
        other => {
            return Err(obj
                .field_path("role")
                .shape_error(format!("unknown AI SDK role `{other}` (expected system, user, assistant or tool)")))
        }
    };
    let content_path = obj.field_path("content");
    let (parts, shape) = match obj.take("content") {
        Some(Node::String(text)) if role != Role::Tool => {
            let parts = if text.is_empty() { Vec::new() } else { vec![Part::text(text.as_ref())] };
            (parts, ContentShape::String)
        }
        Some(Node::Array(items)) if role != Role::System => {
            let parts = items
                .iter()
                .enumerate()
                .map(|(j, item)| read_part(item, content_path.index(j), role))
                .collect::<Result<Vec<_>, _>>()?;
            (parts, ContentShape::Array)
        }
        Some(other) => {
            let expected = match role {
                Role::System => "a string",
                Role::Tool => "an array of tool-result parts",
                _ => "a string or an array of parts",
            };
            return Err(content_path.shape_error(format!("`content` must be {expected}, found {}", json_kind(other))));
        }
        None => return Err(content_path.shape_error("missing field `content`")),
    };
    let mut markers = Markers::default();
    if role != Role::System && shape != natural_shape(&parts) {
        markers.set("content", shape);
    }
    Ok(Message { role, parts, extra: obj.into_extra(native_keys::MESSAGE, NAMESPACE, markers) })
}

/// A string for one plain text part, an array otherwise.
fn natural_shape<P: Borrow<Part>>(parts: &[P]) -> ContentShape {
    match parts {
        [one] if is_plain_text(one.borrow()) => ContentShape::String,
        _ => ContentShape::Array,
    }
}

/// Which part types each role takes.
fn allowed(role: Role, part_type: &str) -> bool {
    match part_type {
        "text" => role != Role::Tool,
        "image" => role == Role::User,
        "file" => matches!(role, Role::User | Role::Assistant),
        "reasoning" | "tool-call" => role == Role::Assistant,
        "tool-result" => role == Role::Tool,
        _ => false,
    }
}

fn read_part(item: &Node<'_>, path: JsonPath, role: Role) -> Result<Part, FormatError> {
    let mut obj = WireObject::new(item, path, "a content part")?;
    let part_type = obj.required_string("type")?;
    if native::is_native(role, part_type, item) {
        return Ok(native::read(item, part_type));
    }
    if !allowed(role, part_type) {
        const KNOWN: &[&str] = &["text", "image", "file", "reasoning", "tool-call", "tool-result"];
        let why = if KNOWN.contains(&part_type) {
            format!("`{part_type}` parts are not allowed in a {} message", role.as_str())
        } else {
            format!("unsupported AI SDK part type `{part_type}`")
        };
        return Err(obj.field_path("type").shape_error(why));
    }
    let mut markers = Markers::default();
    let owned = |s: Option<&str>| s.map(str::to_string);
    match part_type {
        "text" | "reasoning" => {
            let text = obj.required_string("text")?.to_string();
            if part_type == "text" {
                return Ok(Part::Text(TextPart { text, extra: obj.into_extra(native_keys::TEXT, NAMESPACE, markers) }));
            }
            let (signature, redacted_data) = signatures::read(obj.peek("providerOptions"), &mut markers);
            Ok(Part::Reasoning(ReasoningPart {
                text,
                signature,
                redacted_data,
                extra: obj.into_extra(native_keys::REASONING, NAMESPACE, markers),
            }))
        }
        "image" => {
            let (url, data) = url_or_data(obj.required_string("image")?);
            let (url, data, media_type) = inline_data_url(url, data, owned(obj.string("mediaType")?), &mut markers);
            Ok(Part::Image(ImagePart {
                url,
                data,
                media_type,
                extra: obj.into_extra(native_keys::IMAGE, NAMESPACE, markers),
            }))
        }
        "file" => {
            let (url, data) = read_file_data(&mut obj, &mut markers)?;
            let (url, data, media_type) = inline_data_url(url, data, owned(obj.string("mediaType")?), &mut markers);
            let name = owned(obj.string("filename")?);
            Ok(Part::File(FilePart {
                url,
                data,
                media_type,
                name,
                extra: obj.into_extra(native_keys::FILE, NAMESPACE, markers),
            }))
        }
        "tool-call" => {
            let id = obj.required_string("toolCallId")?.to_string();
            let name = obj.required_string("toolName")?.to_string();
            let input_path = obj.field_path("input");
            let input = obj.take("input").ok_or_else(|| input_path.shape_error("missing field `input`"))?;
            let arguments = compact_json(input, &mut markers, "input");
            Ok(obj.into_tool_call(id, name, arguments, NAMESPACE, markers))
        }
        _ => {
            let call_id = obj.required_string("toolCallId")?.to_string();
            let name = obj.required_string("toolName")?.to_string();
            let mut output = obj.required_object("output", "an output object")?;
            let (content, is_error) = read_output(&mut output, &mut markers)?;
            markers.nested_leftovers("outputFields", &output);
            Ok(Part::ToolResult(ToolResultPart {
                call_id,
                name: Some(name),
                content,
                is_error,
                extra: obj.into_extra(native_keys::TOOL_RESULT, NAMESPACE, markers),
            }))
        }
    }
}

/// A URL (it has a `:`) or base64 data.
/// A file part's `data`: a string (a URL or base64), or `ai` 7's tagged `{type: "data",
/// data}` / `{type: "url", url}` (marked `data: "tagged"`, to be written back so).
fn read_file_data(
    obj: &mut WireObject<'_>,
    markers: &mut Markers,
) -> Result<(Option<String>, Option<String>), FormatError> {
    let path = obj.field_path("data");
    match obj.take("data") {
        Some(Node::String(text)) => Ok(url_or_data(text)),
        Some(tagged @ Node::Object(_)) => {
            markers.set("data", "tagged");
            read_tagged(tagged, path)
        }
        Some(other) => Err(path.shape_error(format!(
            "`data` must be a string or a tagged object {{type: \"data\" | \"url\"}}, found {}",
            json_kind(other)
        ))),
        None => Err(path.shape_error("missing field `data`")),
    }
}

/// `{type: "data", data}` -> data, `{type: "url", url}` -> URL (`ai` 7's tagged file data).
fn read_tagged(value: &Node<'_>, path: JsonPath) -> Result<(Option<String>, Option<String>), FormatError> {
    let mut tagged = WireObject::new(value, path, "tagged file data")?;
    match tagged.required_string("type")? {
        "data" => Ok((None, Some(tagged.required_string("data")?.to_string()))),
        "url" => Ok((Some(tagged.required_string("url")?.to_string()), None)),
        other => Err(tagged
            .field_path("type")
            .shape_error(format!("unsupported file data type `{other}` (contextfold reads inline `data` and `url`)"))),
    }
}

/// A `data:<media type>;base64,` URL as the inline data it is (`ai` 7's
/// `convertToModelMessages` gives a `useChat` upload as `{type: "url", url: "data:..."}`):
/// every other format then gets inline data, not a link no provider fetches. Marked
/// `dataUrl` (and `mediaTypeFromUrl` when the part had none) to be written back as the
/// same URL. A data URL whose media type differs from the part's stays a URL.
#[allow(clippy::type_complexity)]
fn inline_data_url(
    url: Option<String>,
    data: Option<String>,
    media_type: Option<String>,
    markers: &mut Markers,
) -> (Option<String>, Option<String>, Option<String>) {
    let Some(split) = url.as_deref().and_then(super::data_url::split) else {
        return (url, data, media_type);
    };
    if media_type.as_deref().is_some_and(|m| !m.eq_ignore_ascii_case(split.media_type)) {
        return (url, data, media_type);
    }
    let inline = (Some(split.data.to_string()), media_type.is_none().then(|| split.media_type.to_string()));
    markers.set("dataUrl", true);
    if inline.1.is_some() {
        markers.set("mediaTypeFromUrl", true);
    }
    let (data, from_url) = inline;
    (None, data, media_type.or(from_url))
}

fn url_or_data(text: &str) -> (Option<String>, Option<String>) {
    if text.contains(':') {
        (Some(text.to_string()), None)
    } else {
        (None, Some(text.to_string()))
    }
}

/// The compact JSON text of `value`; the original under `key` when the text would not
/// read back to it.
fn compact_json(value: &Node<'_>, markers: &mut Markers, key: &str) -> String {
    let text = serde_json::to_string(value).unwrap_or_default();
    let value = value.to_value();
    if serde_json::from_str::<Value>(&text).ok().as_ref() != Some(&value) {
        markers.set(key, value);
    }
    text
}

/// What the SDK tells the model of a denied call given no reason.
const DENIED_WITHOUT_REASON: &str = "Tool execution denied.";

/// `{type, value}` -> content parts and the error flag.
fn read_output(output: &mut WireObject<'_>, markers: &mut Markers) -> Result<(Vec<Part>, bool), FormatError> {
    let output_type = output.required_string("type")?;
    if output_type == "execution-denied" {
        // The user said no to the call: its text is the reason, or what the SDK tells the
        // model when there is none (marked, to be written back without one).
        markers.set("output", output_type);
        let reason = match output.string("reason")? {
            Some(reason) => reason.to_string(),
            None => {
                markers.set("reason", false);
                DENIED_WITHOUT_REASON.to_string()
            }
        };
        return Ok((vec![Part::text(reason)], false));
    }
    let value_path = output.field_path("value");
    let value = output.take("value").ok_or_else(|| value_path.shape_error("missing field `value`"))?;
    match (output_type, value) {
        ("text" | "error-text", Node::String(text)) => {
            Ok((vec![Part::text(text.as_ref())], output_type == "error-text"))
        }
        ("json" | "error-json", value) => {
            markers.set("output", output_type);
            let text = compact_json(value, markers, "value");
            Ok((vec![Part::text(text)], output_type == "error-json"))
        }
        ("content", Node::Array(items)) => {
            let mut parts = Vec::with_capacity(items.len());
            for (k, item) in items.iter().enumerate() {
                parts.push(read_output_item(item, value_path.index(k))?);
            }
            if natural_output(&parts, false) != "content" {
                markers.set("output", "content");
            }
            Ok((parts, false))
        }
        ("text" | "error-text", other) | ("content", other) => {
            Err(value_path.shape_error(format!("the value of a `{output_type}` output cannot be {}", json_kind(other))))
        }
        (other, _) => {
            Err(output.field_path("type").shape_error(format!("unsupported AI SDK tool output type `{other}`")))
        }
    }
}

/// An item of a `content` output, in the shapes of both majors: `text`; `ai` 6's
/// `media` (`data`, `mediaType`); `ai` 6 and 7's `image-data` / `file-data` (`data`,
/// `mediaType`, `filename?`) and `image-url` / `file-url` (`url`, `mediaType?`); `ai` 7's
/// `file` (`data` tagged, `mediaType`, `filename?`). Media other than `image-data` /
/// `file-data` (the natural shape, read by both majors) are marked `item: <type>`, so the
/// writer gives back the shape the input used.
fn read_output_item(item: &Node<'_>, path: JsonPath) -> Result<Part, FormatError> {
    let mut obj = WireObject::new(item, path, "a content item")?;
    let item_type = obj.required_string("type")?;
    if native::is_native_output_item(item_type, item) {
        return Ok(native::read(item, item_type));
    }
    let mut markers = Markers::default();
    let (url, data, media_type, name) = match item_type {
        "text" => {
            let text = obj.required_string("text")?.to_string();
            return Ok(Part::Text(TextPart { text, extra: obj.into_extra(native_keys::TEXT, NAMESPACE, markers) }));
        }
        "media" | "image-data" | "file-data" => {
            let data = obj.required_string("data")?.to_string();
            let media_type = obj.required_string("mediaType")?.to_string();
            let name = obj.string("filename")?.map(str::to_string);
            (None, Some(data), Some(media_type), name)
        }
        "image-url" | "file-url" => {
            let url = obj.required_string("url")?.to_string();
            (Some(url), None, obj.string("mediaType")?.map(str::to_string), None)
        }
        "file" => {
            let (url, data) = read_file_data(&mut obj, &mut markers)?;
            let media_type = obj.required_string("mediaType")?.to_string();
            (url, data, Some(media_type), obj.string("filename")?.map(str::to_string))
        }
        other => return Err(obj.field_path("type").shape_error(format!("unsupported content item type `{other}`"))),
    };
    let image = match item_type {
        "image-data" | "image-url" => true,
        "file-data" | "file-url" => false,
        _ => media_type.as_deref().is_some_and(|m| m == "image" || m.starts_with("image/")) && name.is_none(),
    };
    if item_type != natural_item(image, url.is_some()) {
        markers.set("item", item_type);
    }
    if image {
        let extra = obj.into_extra(native_keys::IMAGE, NAMESPACE, markers);
        return Ok(Part::Image(ImagePart { url, data, media_type, extra }));
    }
    let extra = obj.into_extra(native_keys::FILE, NAMESPACE, markers);
    Ok(Part::File(FilePart { url, data, media_type, name, extra }))
}

/// The content item type a writer picks by itself: the `-data` / `-url` items that both
/// majors (6 and 7) read.
fn natural_item(image: bool, url: bool) -> &'static str {
    match (image, url) {
        (true, false) => "image-data",
        (true, true) => "image-url",
        (false, false) => "file-data",
        (false, true) => "file-url",
    }
}

/// The output type a writer picks by itself for these content parts.
fn natural_output(content: &[Part], is_error: bool) -> &'static str {
    match (content, is_error) {
        (_, true) => "error-text",
        ([one], false) if is_plain_text(one) => "text",
        _ => "content",
    }
}
