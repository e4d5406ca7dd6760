//! OpenAI Responses API input items -> native [`Message`]s ([`read`]), and back
//! ([`write()`]). The Responses API is what Codex, the OpenAI Agents SDK and TanStack AI
//! send; its history is a flat list of items rather than of messages.
//!
//! Input: an `input` array of items, or a request object `{instructions?, input, ...}`
//! whose `instructions` becomes one leading system message and whose `input` may also be
//! a plain string (one user message). Other request fields (`model`, `tools`,
//! `previous_response_id`, ...) are not messages and are not read.
//!
//! Mapping:
//! - a message item (`{role, content}`, with or without `type: "message"`): roles `system`
//!   and `developer` -> system, `user` -> user, each item one message; content a string or
//!   parts: `input_text` / `output_text` / `refusal` -> text, `input_image` with an
//!   `image_url` -> image (a `data:` URL split into media type and data), `input_file`
//!   with a `data:` URL `file_data` or a `file_url` -> file (`filename` its name); any
//!   other part (by `file_id` only, audio, a type added later) is kept verbatim as a
//!   native block;
//! - the items of an assistant turn, in their order, make one assistant message:
//!   assistant message items (their content parts), `reasoning` -> a reasoning part (the
//!   `summary` texts as its text, `encrypted_content` as its signature, so it goes back
//!   byte for byte), `function_call` -> a tool call (`call_id`, `name`, `arguments` as
//!   sent), `custom_tool_call` -> a tool call whose arguments are its free-text `input` (as
//!   Chat's custom calls are read), and the server-side items (`web_search_call`, `file_search_call`,
//!   `code_interpreter_call`, `image_generation_call`, `mcp_list_tools`, MCP approvals,
//!   `tool_search_*`, `item_reference`, types added later) as native blocks ([`native`]);
//!   an `mcp_call` (call and output in one item) as a tool call and, right after the
//!   turn, a tool message with its result ([`native`]).
//!   A reasoning item thus stays with the item that follows it, as the API requires;
//! - a `compaction` item (the earlier conversation, compacted by the provider) -> a user
//!   message of its own holding it as a native block, since a chain may open with it;
//! - `function_call_output` and `custom_tool_call_output` -> one tool message each, the
//!   result's content read from `output` (a string or `input_*` parts);
//! - the built-in client tools (`computer_call`, `shell_call`, `local_shell_call`,
//!   `apply_patch_call`, `program`) become tool calls and their output items tool
//!   results, both carrying the item verbatim ([`native`]); a `local_shell_call_output`
//!   without `call_id` names its call by `id` (the call's `call_id`, as the API types
//!   it, or the call item's `id`).
//!
//! Nothing is lost: unknown fields (`id`, `status`, `phase`, `caller`, `annotations`,
//! `logprobs`, ...) are kept verbatim in the `extra` of the message or part they were found
//! on; the fields of an assistant message item go under its first part's `item` marker.
//!
//! Restoration markers, under the `"_responses"` key of an `extra`, only where the wire
//! differs from what a writer would choose by itself:
//! - message `role: "developer"`; `content` / `output`: `"string"` or `"array"` when not
//!   the natural shape (a string for no part or one plain text part, an array otherwise);
//! - on an assistant message item's first part, `item` (the item's other fields) and its
//!   `content` shape (always for an array in an item without `id`, which the writer
//!   would give a string); `sameItem: true` on the parts after it in the same item;
//! - text part `type`: `"refusal"`, or the text type of the other side (`output_text` in a
//!   user message); `annotations: "absent"` on output text without annotations;
//!   `detail: "absent"` on an image without `detail`;
//! - reasoning `summary`: the wire summary when it is not one `summary_text` of the text;
//! - tool call `custom: true` (a `custom_tool_call`); on a tool message, `custom: true`
//!   for a `custom_tool_call_output`;
//! - `item: true` on a message that is one native item (a `compaction`);
//! - `instructions: true` on the system message read from the request's `instructions`,
//!   `input: "string"` on the user message read from a string `input`;
//! - `block`: a native item; `shadowed`: unknown fields clashing with native names.
//!
//! # Writing
//!
//! [`write()`] reverses the mapping: a request `{instructions, input}` when the chain's
//! first message came from `instructions`, an item list otherwise. An assistant message
//! becomes its items in part order; consecutive text parts of one wire item go back into
//! it. Messages without markers get the natural shape: `{role, content}` messages (content
//! a string for a lone plain text part; for an assistant item without `id`, the texts
//! of its parts joined, since the API takes output text parts in an output message only,
//! with its `id`), `input_text` parts, `output_text` parts with `annotations: []` for an
//! assistant item with an `id`, `detail: "auto"` on images, `function_call` items
//! for tool calls, a `function_call_output` (or `custom_tool_call_output` when it answers
//! a custom call) per tool result. What the wire cannot carry:
//! - a tool result's `is_error` and `name`, and a tool call's `signature`, are dropped;
//! - reasoning without a Responses id cannot be sent back (it is dropped on conversion);
//! - errors ([`FormatError::Unwritable`], with the path of the part): inline media without
//!   a media type, media with neither URL nor data, reasoning, tool calls or media in an
//!   assistant turn's wrong place, a tool result outside a tool message, a tool message
//!   without a result.

mod content;
pub mod ids;
pub mod native;
mod writer;

use super::content_shape::{is_plain_text, ContentShape};
use super::fields::{add_marker, json_kind, native_keys, Markers, WireObject};
use super::items::Items;
use super::path::JsonPath;
use super::FormatError;
use crate::hashing::HashMap;
use crate::json_node::Node;
use crate::message::{Extra, Message, Part, Role, ToolResultPart};
use content::Side;
use serde_json::Value;

pub use native::is_compaction;
pub use writer::write;

/// The `extra` key holding Responses restoration markers.
pub const NAMESPACE: &str = crate::message::marker_namespace::RESPONSES;

/// Reads a Responses `input` item array or a request object `{instructions?, input}`.
pub fn read(value: &Value) -> Result<Vec<Message>, FormatError> {
    read_with(&Node::of(value), None)
}

/// [`read`] of a chain whose list was taken out of `value` (see [`super::read_taken`]).
pub(crate) fn read_taken(value: &Node<'_>, items: Items<'_>) -> Result<Vec<Message>, FormatError> {
    read_with(value, Some(items))
}

fn read_with(value: &Node<'_>, taken: Option<Items<'_>>) -> Result<Vec<Message>, FormatError> {
    let root = JsonPath::root();
    let read_list = |list, path: &JsonPath, out| match taken {
        Some(items) => read_items(items, path, out),
        None => read_items(Items::Nodes(list), path, out),
    };
    match value {
        Node::Array(list) => read_list(list, &root, Vec::new()),
        Node::Object(_) => {
            let mut request = WireObject::new(value, root, "a request")?;
            let mut out = Vec::new();
            let instructions_path = request.field_path("instructions");
            match request.take("instructions") {
                None | Some(Node::Null) => {}
                Some(Node::String(text)) => {
                    let mut markers = Markers::default();
                    markers.set("instructions", true);
                    let parts = if text.is_empty() { Vec::new() } else { vec![Part::text(text.as_ref())] };
                    out.push(Message { role: Role::System, parts, extra: markers_extra(markers) });
                }
                Some(other) => {
                    return Err(instructions_path
                        .shape_error(format!("`instructions` must be a string, found {}", json_kind(other))))
                }
            }
            let input_path = request.field_path("input");
            match request.take("input") {
                Some(Node::Array(list)) => read_list(list, &input_path, out),
                Some(Node::String(text)) => {
                    let mut markers = Markers::default();
                    markers.set("input", "string");
                    let parts = if text.is_empty() { Vec::new() } else { vec![Part::text(text.as_ref())] };
                    out.push(Message { role: Role::User, parts, extra: markers_extra(markers) });
                    Ok(out)
                }
                Some(other) => Err(input_path
                    .shape_error(format!("`input` must be a string or an array of items, found {}", json_kind(other)))),
                None => Err(input_path.shape_error("missing field `input`")),
            }
        }
        other => Err(root.shape_error(format!(
            "expected an array of Responses input items or a request object {{instructions, input}}, found {}",
            json_kind(other)
        ))),
    }
}

/// What one item reads as.
enum Item {
    /// A message of its own (user, system, tool output).
    Message(Message),
    /// Parts of the assistant turn under way.
    Assistant(Vec<Part>),
    /// A call of the turn under way and the tool message answering it (an `mcp_call`).
    Exchange(Part, Message),
}

fn read_items(items: Items<'_>, path: &JsonPath, out: Vec<Message>) -> Result<Vec<Message>, FormatError> {
    let mut turn: Vec<Part> = Vec::new();
    // The results of `mcp_call`s made while the turn's client calls wait for their
    // outputs (which come after the turn): after the turn, so that those outputs stay
    // right after their calls. An `mcp_call` that waits for nothing ends its turn, its
    // result right after it (the model saw it before going on).
    let mut exchanged: Vec<Message> = Vec::new();
    // The `call_id` of each `local_shell_call` by its item `id`, which its output may name.
    let mut shell_calls: HashMap<String, String> = HashMap::default();
    let end_turn = |turn: &mut Vec<Part>, exchanged: &mut Vec<Message>, out: &mut Vec<Message>| {
        if !turn.is_empty() {
            out.push(Message::new(Role::Assistant, std::mem::take(turn)));
        }
        out.append(exchanged);
    };
    let mut out = items.read_all(out, |i, item, out| {
        match read_item(item, path.index(i), &mut shell_calls)? {
            Item::Assistant(parts) => turn.extend(parts),
            Item::Exchange(call, message) => {
                let waits = turn.iter().any(|p| matches!(p, Part::ToolCall(c) if !native::is_mcp_call(c)));
                turn.push(call);
                exchanged.push(message);
                if !waits {
                    end_turn(&mut turn, &mut exchanged, out);
                }
            }
            Item::Message(message) => {
                end_turn(&mut turn, &mut exchanged, out);
                out.push(message);
            }
        }
        Ok(())
    })?;
    end_turn(&mut turn, &mut exchanged, &mut out);
    Ok(out)
}

fn read_item(item: &Node<'_>, path: JsonPath, shell_calls: &mut HashMap<String, String>) -> Result<Item, FormatError> {
    let Node::Object(map) = item else {
        return Err(
            path.shape_error(format!("expected a Responses input item (a JSON object), found {}", json_kind(item)))
        );
    };
    let item_type = match map.get("type") {
        None | Some(Node::Null) => None,
        Some(Node::String(t)) => Some(t.as_ref()),
        Some(other) => {
            return Err(path.key("type").shape_error(format!("`type` must be a string, found {}", json_kind(other))))
        }
    };
    match item_type {
        None | Some("message") if map.contains_key("role") => read_message(item, path),
        // `{id}` alone: an item reference.
        None if map.contains_key("id") => {
            Ok(Item::Assistant(vec![native::item_part(&item.to_value(), "item_reference")]))
        }
        None | Some("message") => {
            Err(path.key("role").shape_error("missing string field `role` (an item needs a `type` or a `role`)"))
        }
        Some("reasoning") => read_reasoning(item, path).map(|p| Item::Assistant(vec![p])),
        Some("function_call") => read_function_call(item, path, false).map(|p| Item::Assistant(vec![p])),
        Some("custom_tool_call") => read_function_call(item, path, true).map(|p| Item::Assistant(vec![p])),
        // The earlier conversation, compacted by the provider: context the turns after it
        // build on, so a message of its own on the user side, where a chain may open.
        Some("compaction") => {
            let mut markers = Markers::default();
            markers.set("item", true);
            Ok(Item::Message(Message {
                role: Role::User,
                parts: vec![native::item_part(&item.to_value(), "compaction")],
                extra: markers_extra(markers),
            }))
        }
        Some("function_call_output") => read_output(item, path, false).map(Item::Message),
        Some("custom_tool_call_output") => read_output(item, path, true).map(Item::Message),
        Some(native::MCP_CALL) => {
            let value = item.to_value();
            Ok(match native::mcp_parts(&value) {
                Some((call, result)) => Item::Exchange(call, Message::new(Role::Tool, vec![result])),
                None => Item::Assistant(vec![native::item_part(&value, native::MCP_CALL)]),
            })
        }
        Some(t) => {
            let item_id = map.get("id").and_then(Node::as_str);
            let call_id = match (map.get("call_id").and_then(Node::as_str), item_id) {
                (Some(id), _) => Some(id.to_string()),
                // The API names the call by `id` (its `call_id`); some send the call
                // item's `id`.
                (None, Some(id)) if t == "local_shell_call_output" => {
                    Some(shell_calls.get(id).cloned().unwrap_or_else(|| id.to_string()))
                }
                _ => None,
            };
            if let (Some((_, name, field)), Some(id)) =
                (native::CLIENT_CALLS.iter().find(|(k, _, _)| *k == t), call_id.as_deref())
            {
                if let (Some(item_id), "local_shell_call") = (item_id, t) {
                    shell_calls.insert(item_id.to_string(), id.to_string());
                }
                return Ok(Item::Assistant(vec![native::call_part(&item.to_value(), id, name, field)]));
            }
            if let (true, Some(id)) = (native::CLIENT_OUTPUTS.contains(&t), call_id.as_deref()) {
                return Ok(Item::Message(Message::new(Role::Tool, vec![native::output_part(&item.to_value(), id, t)])));
            }
            Ok(Item::Assistant(vec![native::item_part(&item.to_value(), t)]))
        }
    }
}

fn read_message(item: &Node<'_>, path: JsonPath) -> Result<Item, FormatError> {
    let mut obj = WireObject::new(item, path, "a message item")?;
    let role_name = obj.required_string("role")?;
    let content_path = obj.field_path("content");
    let Some(content) = obj.take("content") else {
        return Err(content_path.shape_error("missing field `content`"));
    };
    let mut markers = Markers::default();
    let role = match role_name {
        "user" => Role::User,
        "system" => Role::System,
        "developer" => {
            markers.set("role", "developer");
            Role::System
        }
        "assistant" => {
            let (parts, shape) = content::read_content(content, &content_path, Side::Output, "content")?;
            return Ok(Item::Assistant(assistant_item_parts(item, parts, shape, obj)));
        }
        other => {
            return Err(obj.field_path("role").shape_error(format!(
                "unknown Responses role `{other}` (expected user, assistant, system or developer)"
            )))
        }
    };
    let (parts, shape) = content::read_content(content, &content_path, Side::Input, "content")?;
    if shape != natural_shape(&parts) {
        markers.set("content", shape);
    }
    Ok(Item::Message(Message { role, parts, extra: obj.into_extra(native_keys::MESSAGE, NAMESPACE, markers) }))
}

/// The parts of an assistant message item, the first one marked with the item's other
/// fields and content shape, the others as its continuation. An item without content
/// is kept whole as a native block.
fn assistant_item_parts(item: &Node<'_>, mut parts: Vec<Part>, shape: ContentShape, obj: WireObject<'_>) -> Vec<Part> {
    if parts.is_empty() {
        return vec![native::item_part(&item.to_value(), "message")];
    }
    let fields = obj.leftovers();
    let natural = natural_shape(&parts);
    for (j, part) in parts.iter_mut().enumerate() {
        let extra = part.extra_mut();
        if j > 0 {
            add_marker(extra, NAMESPACE, "sameItem", Value::Bool(true));
            continue;
        }
        if !fields.is_empty() {
            add_marker(extra, NAMESPACE, "item", Value::Object(fields.clone()));
        }
        // Without an `id`, the writer gives an item a string (an easy input message):
        // an array read stays one.
        if shape != natural || (shape == ContentShape::Array && !fields.contains_key("id")) {
            add_marker(extra, NAMESPACE, "content", shape.into());
        }
    }
    parts
}

/// `{id, summary, encrypted_content?, ...}`: the summary texts are the reasoning's text.
fn read_reasoning(item: &Node<'_>, path: JsonPath) -> Result<Part, FormatError> {
    let mut obj = WireObject::new(item, path, "a reasoning item")?;
    obj.take("type");
    let summary_path = obj.field_path("summary");
    let mut markers = Markers::default();
    let text = match obj.take("summary") {
        None => {
            markers.set("summary", "absent");
            String::new()
        }
        Some(Node::Array(entries)) => {
            let entries: Vec<Value> = entries.iter().map(Node::to_value).collect();
            let text = summary_text(&entries);
            let entries = Value::Array(entries);
            if entries != natural_summary(&text) {
                markers.set("summary", entries);
            }
            text
        }
        Some(other) => {
            return Err(summary_path.shape_error(format!("`summary` must be an array, found {}", json_kind(other))))
        }
    };
    let signature = obj.string("encrypted_content")?.map(str::to_string);
    Ok(obj.into_reasoning(text, signature, NAMESPACE, markers))
}

/// A reasoning's text: its summary texts, a blank line apart.
pub(crate) fn summary_text(entries: &[Value]) -> String {
    let texts: Vec<&str> = entries.iter().filter_map(|e| e.get("text").and_then(Value::as_str)).collect();
    texts.join("\n\n")
}

/// The summary a writer gives a reasoning text by itself.
pub(crate) fn natural_summary(text: &str) -> Value {
    if text.is_empty() {
        Value::Array(Vec::new())
    } else {
        serde_json::json!([{"type": "summary_text", "text": text}])
    }
}

/// `function_call {call_id, name, arguments}` or `custom_tool_call {call_id, name, input}`.
fn read_function_call(item: &Node<'_>, path: JsonPath, custom: bool) -> Result<Part, FormatError> {
    let mut obj = WireObject::new(item, path, "a tool call item")?;
    obj.take("type");
    let id = obj.required_string("call_id")?.to_string();
    let name = obj.required_string("name")?.to_string();
    let mut markers = Markers::default();
    let arguments = if custom {
        markers.set("custom", true);
        obj.required_string("input")?.to_string()
    } else {
        obj.required_string("arguments")?.to_string()
    };
    Ok(obj.into_tool_call(id, name, arguments, NAMESPACE, markers))
}

/// `function_call_output` / `custom_tool_call_output {call_id, output}`: a tool message.
fn read_output(item: &Node<'_>, path: JsonPath, custom: bool) -> Result<Message, FormatError> {
    let mut obj = WireObject::new(item, path, "a tool output item")?;
    obj.take("type");
    let call_id = obj.required_string("call_id")?.to_string();
    let output_path = obj.field_path("output");
    let Some(output) = obj.take("output") else {
        return Err(output_path.shape_error("missing field `output`"));
    };
    let (content, shape) = content::read_content(output, &output_path, Side::Input, "output")?;
    let mut markers = Markers::default();
    if shape != natural_shape(&content) {
        markers.set("output", shape);
    }
    if custom {
        markers.set("custom", true);
    }
    let result = ToolResultPart { call_id, name: None, content, is_error: false, extra: Extra::new() };
    Ok(Message {
        role: Role::Tool,
        parts: vec![Part::ToolResult(result)],
        extra: obj.into_extra(native_keys::MESSAGE, NAMESPACE, markers),
    })
}

/// A string for no part or one plain text part, an array otherwise.
fn natural_shape<P: std::borrow::Borrow<Part>>(parts: &[P]) -> ContentShape {
    match parts {
        [] => ContentShape::String,
        [one] if is_plain_text(one.borrow()) => ContentShape::String,
        _ => ContentShape::Array,
    }
}

fn markers_extra(markers: Markers) -> Extra {
    let mut extra = Extra::new();
    extra.insert(NAMESPACE.to_string(), markers.into_value());
    extra
}

/// Whether the chain came as a request whose `instructions` is its first message.
pub(crate) fn from_instructions(messages: &[Message]) -> bool {
    messages.first().is_some_and(|m| {
        m.role == Role::System && super::wire::Restore::new(&m.extra, NAMESPACE).marker_flag("instructions")
    })
}
