//! Gemini `contents` -> native [`Message`]s ([`read`]), and back ([`write()`],
//! [`write_request`]).
//!
//! Input: a `contents` array, or a request object `{systemInstruction?, contents, ...}`
//! whose `systemInstruction` (a `Content` with text parts, or as the JS SDK also takes
//! it, a plain string, a part or an array of parts and strings) becomes one leading
//! system message. Other request fields
//! (`generationConfig`, `tools`, ...) are not messages and are not read. Field names are
//! the REST API's camelCase ones.
//!
//! Mapping:
//! - roles `user` -> user, `model` -> assistant; a missing role -> user; `function` and
//!   `tool` (older SDKs put function responses there) -> tool;
//! - parts keep their order: `text` -> text; `thought: true` -> reasoning; `inlineData`
//!   (`mimeType`, base64 `data`) and `fileData` (`mimeType`, `fileUri`) -> an image part
//!   for an `image/*` media type, a file part otherwise (`displayName` -> the file
//!   name); `functionCall` (`id?`, `name`, `args`) -> a tool call whose arguments are
//!   `args` as compact JSON (key order kept); `functionResponse` (`id?`, `name`,
//!   `response`, `parts?`) -> a tool result: `{output: "..."}` gives its text,
//!   `{error: "..."}` its text with the error flag, `{}` no content, any other response
//!   its compact JSON as text; the media of `parts` (multimodal function responses)
//!   follow as content;
//! - `thoughtSignature` stays with the part it came with: the signature of a reasoning
//!   part or of a tool call (Gemini validates those), a marker on any other part. A part
//!   holding only a signature (`{thoughtSignature}` or `{text: "", thoughtSignature}`,
//!   as Gemini sends at the end of a turn) is a reasoning part without text;
//! - function calls may come without an id: one is made up, deterministic, in the
//!   OpenAI / Gemini template `call_{r:24:x}` (seeded by the message and part position
//!   and the function name), and a response without an id answers the first unanswered
//!   call of the same name in the latest model turn (it gets that call's id). Made-up
//!   ids are never written back;
//! - a user content holding function responses becomes a tool message (the results, in
//!   order); if it also holds other parts, these follow in a user message of their own,
//!   marked to merge back, as for Anthropic.
//!
//! Nothing is lost: unknown fields (`videoMetadata`, `thought: false`, `willContinue`,
//! ...) are kept verbatim in the `extra` of the message or part they were found on, or
//! under a marker for nested objects.
//!
//! Restoration markers, under the `"_gemini"` key of an `extra`, only where the wire
//! differs from what a writer would choose by itself:
//! - message `role`: `"absent"`, `"function"` or `"tool"`; on a system message, the
//!   `role` of the `systemInstruction` content when it had one; `systemInstruction:
//!   "string"`, `"part"` or `"parts"` when it was a plain string, a part or an array (a
//!   string of that array: `string: true` on its text part);
//! - `mergeWithPrevious: [positions]` and `newMessage: true`, as for Anthropic;
//! - part `thoughtSignature` on a text, media or function-response part;
//! - reasoning `thought: false` (a signature-only part not flagged `thought`) and
//!   `text: "absent"` (no `text` field);
//! - tool call `idGenerated: true` (the id was made up), `args: "absent"` or the
//!   original `args` when its compact JSON does not read back to the same value;
//! - tool result `idGenerated: true`, `response: "absent"` / `"json"` (the text is the
//!   response object's JSON), `responseValue` (the original when its compact JSON does
//!   not read back to the same value);
//! - `inlineData`, `fileData`, `functionCall`, `functionResponse`: unmapped fields of
//!   these nested objects; `uri: true` on a part whose `fileUri` is a `data:` URL;
//! - `shadowed`: unknown fields whose names clash with native field names.
//!
//! # Writing
//!
//! As for Anthropic, a system prompt is not a content: [`write()`] gives a `contents`
//! array and fails on a system message, [`write_request`] gives `{systemInstruction,
//! contents}`, and [`crate::format::write`] picks the inverse of [`read`]. Messages
//! without markers get the natural shape: roles `user` / `model`; tool messages a
//! `user` content of `functionResponse` parts (consecutive tool messages share one
//! unless marked `newMessage`), each `{id, name, response: {output | error: text}}`
//! (media content under `parts`; several texts joined by a newline); tool calls
//! `{functionCall: {id, name, args}, thoughtSignature?}` with `args` the arguments
//! parsed (`{}` when empty); reasoning `{text, thought: true, thoughtSignature?}`; media
//! `inlineData` for data (a `data:` URL is split), `fileData` for a URL. Gemini ->
//! native -> Gemini gives back the very same JSON. What the wire cannot carry:
//! - redacted reasoning data is dropped (Gemini has no such part);
//! - a result's name comes from its call when the result has none;
//! - errors ([`FormatError::Unwritable`], with the path of the part): arguments that are
//!   not a JSON object, media with neither URL nor data or with both, a non-text part in a system message, a system message after the start, a
//!   result whose call (and so name) is unknown, a tool message without a result.

mod parts;
mod writer;

use super::fields::{add_marker, json_kind, native_keys, Markers, WireObject};
use super::items::Items;
use super::path::JsonPath;
use super::tool_turns::split_tool_results;
use super::FormatError;
use crate::ast::tool_id::{seed_from, IdTemplate};
use crate::json_node::Node;
use crate::message::{Message, Part, Role};
use serde_json::Value;

pub use writer::{write, write_request};

/// The `extra` key holding Gemini restoration markers.
pub const NAMESPACE: &str = crate::message::marker_namespace::GEMINI;

/// Template of the ids made up for function calls that have none.
pub const ID_TEMPLATE: &str = "call_{r:24:x}";

/// Whether a tool call's id was made up by the reader (the wire call had none): it is
/// never written, so renaming it changes nothing the caller holds.
pub fn id_made_up(call: &crate::message::ToolCallPart) -> bool {
    call.extra.get(NAMESPACE).and_then(|m| m.get("idGenerated")).and_then(Value::as_bool) == Some(true)
}

/// Reads a Gemini `contents` array or a request object `{systemInstruction, contents}`.
pub fn read(value: &Value) -> Result<Vec<Message>, FormatError> {
    refuse_proto_names(value)?;
    SHAPE.read(value)
}

/// [`read`] of a request whose `contents` were taken out as `items`.
pub(crate) fn read_taken(value: &Value, items: Items<'_>) -> Result<Vec<Message>, FormatError> {
    refuse_proto_names(value)?;
    SHAPE.read_taken(&Node::of(value), Some(items))
}

/// Request fields the REST API also takes in their proto (snake_case) spelling, which
/// the reader would not see: the system prompt, and the cache beside which no system
/// prompt may go. Parts are checked as they are read ([`parts::refuse_proto_names`]).
const PROTO_REQUEST_FIELDS: [(&str, &str); 2] =
    [("system_instruction", "systemInstruction"), ("cached_content", "cachedContent")];

/// A typed error naming the first field in the proto spelling of a request (or of its
/// `config`): read as unknown fields, they would be misread, not refused.
fn refuse_proto_names(value: &Value) -> Result<(), FormatError> {
    let root = JsonPath::root();
    let places = [(value, root.clone()), (value.get("config").unwrap_or(&Value::Null), root.key("config"))];
    for (object, path) in places {
        let Some(object) = object.as_object() else { continue };
        if let Some((proto, json)) = PROTO_REQUEST_FIELDS.iter().find(|(proto, _)| object.contains_key(*proto)) {
            return Err(path.key(proto).shape_error(proto_name_message(proto, json)));
        }
    }
    Ok(())
}

/// Why a proto (snake_case) field name is refused, and what to send instead.
pub(crate) fn proto_name_message(proto: &str, json: &str) -> String {
    format!(
        "`{proto}` is the REST API's proto spelling, which contextfold does not read: send `{json}`, the JSON name the Gemini SDKs send (every field in camelCase)"
    )
}

/// Whether a `contents` element is a content (an object with a `parts` array), as the
/// genai SDK tells contents from parts.
pub(crate) fn is_content(item: &Node<'_>) -> bool {
    matches!(item, Node::Object(object) if matches!(object.get("parts"), Some(Node::Array(_))))
}

/// Whether a `contents` array opening with `first` is a list of contents: [`is_content`],
/// or an element with a `role` (ill-formed, or in another format: an OpenAI message),
/// never taken for a part. The tree's twin is [`holds_parts`].
pub(crate) fn is_content_like(first: &Node<'_>) -> bool {
    is_content(first) || matches!(first, Node::Object(object) if object.contains_key("role"))
}

/// [`is_content`] of an element held as a tree.
pub(crate) fn value_is_content(item: &Value) -> bool {
    item.get("parts").is_some_and(Value::is_array)
}

/// Whether a request's `contents` array is a list of parts (its first element is no
/// content), which the genai SDK sends as one user content. An element with a `role` is
/// taken for a content, ill-formed or in another format (an OpenAI message), never a part.
pub(crate) fn holds_parts(list: &[Value]) -> bool {
    list.first().is_some_and(|first| !value_is_content(first) && first.get("role").is_none())
}

/// The contents array that a request's `contents` in another of the genai SDK's forms
/// (`ContentListUnion`) stands for, as the SDK reads it: a content (it has `parts` or
/// `role`) alone, or a part, a string, or an array of parts and strings as the parts of
/// one user content. `None` for anything else, and where the SDK throws: contents and
/// parts mixed in one array, a function call or response outside a content.
pub(crate) fn contents_of(single: &Node<'_>) -> Option<Value> {
    let as_part = |item: &Node<'_>| match item {
        Node::String(text) => Some(serde_json::json!({ "text": text.as_ref() })),
        Node::Object(object)
            if !["parts", "role", "functionCall", "functionResponse"].iter().any(|k| object.contains_key(k)) =>
        {
            Some(item.to_value())
        }
        _ => None,
    };
    let parts = match single {
        Node::Object(object) if object.contains_key("parts") || object.contains_key("role") => {
            return Some(Value::Array(vec![single.to_value()]))
        }
        Node::Array(items) => items.iter().map(as_part).collect::<Option<Vec<Value>>>()?,
        _ => vec![as_part(single)?],
    };
    Some(serde_json::json!([{ "role": "user", "parts": parts }]))
}

/// How the chain comes (see [`super::read_taken`] for a list taken out of it).
pub(crate) const SHAPE: super::wire::RequestShape = super::wire::RequestShape {
    list_name: "Gemini contents",
    fields: super::RequestFields::GEMINI,
    read_system,
    read_list: read_contents,
};

/// The request's `systemInstruction` as one system message, in every form of the genai
/// SDK's `ContentUnion`: a content of text parts, a string, a part (`{text}`), or an
/// array of parts and strings (the SDK makes a content of them).
fn read_system(value: Option<&Node<'_>>, path: &JsonPath) -> Result<Option<Message>, FormatError> {
    match value {
        None | Some(Node::Null) => Ok(None),
        Some(Node::String(text)) => {
            let parts = if text.is_empty() { Vec::new() } else { vec![Part::text(text.as_ref())] };
            let mut message = Message::new(Role::System, parts);
            add_marker(&mut message.extra, NAMESPACE, "systemInstruction", Value::from("string"));
            Ok(Some(message))
        }
        Some(content @ Node::Object(object)) if object.contains_key("parts") || object.contains_key("role") => {
            let mut obj = WireObject::new(content, path.clone(), "a system instruction")?;
            let mut markers = Markers::default();
            if let Some(role) = obj.string("role")? {
                markers.set("role", role);
            }
            let items = required_parts(&mut obj)?;
            let parts_path = obj.field_path("parts");
            let parts = items
                .iter()
                .enumerate()
                .map(|(j, item)| system_part(item, parts_path.index(j)))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Some(Message {
                role: Role::System,
                parts,
                extra: obj.into_extra(native_keys::MESSAGE, NAMESPACE, markers),
            }))
        }
        Some(part @ Node::Object(_)) => {
            let mut message = Message::new(Role::System, vec![system_part(part, path.clone())?]);
            add_marker(&mut message.extra, NAMESPACE, "systemInstruction", Value::from("part"));
            Ok(Some(message))
        }
        Some(Node::Array(items)) => {
            let parts = items
                .iter()
                .enumerate()
                .map(|(j, item)| match item {
                    Node::String(text) => {
                        let mut part = Part::text(text.as_ref());
                        if let Part::Text(text) = &mut part {
                            add_marker(&mut text.extra, NAMESPACE, "string", Value::Bool(true));
                        }
                        Ok(part)
                    }
                    _ => system_part(item, path.index(j)),
                })
                .collect::<Result<Vec<_>, _>>()?;
            let mut message = Message::new(Role::System, parts);
            add_marker(&mut message.extra, NAMESPACE, "systemInstruction", Value::from("parts"));
            Ok(Some(message))
        }
        Some(other) => Err(path.shape_error(format!(
            "`systemInstruction` must be a content {{parts}}, a part, an array of parts or a string, found {}",
            json_kind(other)
        ))),
    }
}

/// A part of a `systemInstruction`, which holds text only.
fn system_part(item: &Node<'_>, path: JsonPath) -> Result<Part, FormatError> {
    let part = parts::read_part(item, path.clone(), &mut parts::Ids::default(), (0, 0))?;
    if !matches!(part, Part::Text(_)) {
        return Err(path.shape_error(format!(
            "a `{}` part cannot be in a `systemInstruction`, which holds text only",
            part.kind()
        )));
    }
    Ok(part)
}

/// The `parts` array of a content (required).
fn required_parts<'a>(obj: &mut WireObject<'a>) -> Result<&'a [Node<'a>], FormatError> {
    let path = obj.field_path("parts");
    match obj.take("parts") {
        Some(Node::Array(items)) => Ok(items.as_slice()),
        Some(other) => Err(path.shape_error(format!("`parts` must be an array, found {}", json_kind(other)))),
        None => Err(path.shape_error("missing array field `parts`")),
    }
}

fn read_contents(items: Items<'_>, path: &JsonPath, out: Vec<Message>) -> Result<Vec<Message>, FormatError> {
    let mut ids = parts::Ids::default();
    items.read_all(out, |i, item, out| {
        let mut read = read_content(item, path.index(i), i, &mut ids)?;
        let after_results = out.last().is_some_and(|m| m.role == Role::Tool);
        if let Some(first) = read.first_mut().filter(|m| after_results && matches!(m.role, Role::Tool | Role::User)) {
            add_marker(&mut first.extra, NAMESPACE, "newMessage", Value::Bool(true));
        }
        out.extend(read);
        Ok(())
    })
}

/// One content: one neutral message, or two for a user content holding function
/// responses and other parts.
fn read_content(
    item: &Node<'_>,
    path: JsonPath,
    index: usize,
    ids: &mut parts::Ids,
) -> Result<Vec<Message>, FormatError> {
    let mut obj = WireObject::new(item, path, "a content")?;
    let mut markers = Markers::default();
    let role = match obj.string("role")? {
        None => {
            markers.set("role", "absent");
            Role::User
        }
        Some("user") => Role::User,
        Some("model") => Role::Assistant,
        Some(name @ ("function" | "tool")) => {
            markers.set("role", name);
            Role::User
        }
        Some(other) => {
            return Err(obj.field_path("role").shape_error(format!(
                "unknown Gemini role `{other}` (expected user or model; a system prompt goes in the request's `systemInstruction`)"
            )))
        }
    };
    let items = required_parts(&mut obj)?;
    let parts_path = obj.field_path("parts");
    if role == Role::Assistant {
        ids.new_turn();
    }
    let parts = items
        .iter()
        .enumerate()
        .map(|(j, item)| parts::read_part(item, parts_path.index(j), ids, (index, j)))
        .collect::<Result<Vec<_>, _>>()?;
    if role == Role::User && parts.iter().any(|p| matches!(p, Part::ToolResult(_))) {
        let tool_extra = obj.into_extra(native_keys::MESSAGE, NAMESPACE, markers);
        return Ok(split_tool_results(parts, tool_extra, NAMESPACE));
    }
    Ok(vec![Message { role, parts, extra: obj.into_extra(native_keys::MESSAGE, NAMESPACE, markers) }])
}

/// A deterministic id in [`ID_TEMPLATE`] for the call at `(message, part)`.
pub(crate) fn made_up_id(name: &str, position: (usize, usize)) -> String {
    let (message, part) = position;
    let seed = seed_from(&[b"gemini", &message.to_le_bytes(), &part.to_le_bytes(), name.as_bytes()]);
    match IdTemplate::parse(ID_TEMPLATE) {
        Ok(template) => template.generate(name, seed),
        Err(_) => format!("call_{message}_{part}"),
    }
}

#[cfg(test)]
mod tests;
