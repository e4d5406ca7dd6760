//! Native [`Message`]s -> Responses input items (see the module doc of [`super`], section
//! *Writing*).

use super::content::{self, Side};
use super::{native, natural_summary, summary_text, NAMESPACE};
use crate::format::content_shape::ContentShape;
use crate::format::native_block;
use crate::format::path::JsonPath;
use crate::format::wire::{object, Restore};
use crate::format::FormatError;
use crate::hashing::{HashMap, HashSet};
use crate::message::{Message, Part, ReasoningPart, Role, TextPart, ToolCallPart, ToolResultPart};
use serde_json::{Map, Value};

/// Markers of an assistant message item carried by its parts, not by the part's own wire
/// object.
const ITEM_MARKERS: &[&str] = &["item", "content", "sameItem"];

/// Writes messages as a Responses `input` item array, or as a request `{instructions,
/// input}` when the first message came from `instructions`.
pub fn write(messages: &[Message]) -> Result<Value, FormatError> {
    let root = JsonPath::root();
    let instructions = super::from_instructions(messages);
    let skip = usize::from(instructions);
    // The results of `mcp_call`s: each call's item is written with its result's content.
    let mcp_results = messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::ToolResult(r) if native::result_item(r).is_some_and(|(_, t)| t == native::MCP_CALL) => {
                Some((r.call_id.as_str(), r))
            }
            _ => None,
        })
        .collect();
    let mut writer = Writer {
        out: Vec::with_capacity(messages.len()),
        custom_calls: HashSet::default(),
        client_calls: HashMap::default(),
        mcp_results,
        mcp_calls: HashSet::default(),
    };
    for (i, message) in messages.iter().enumerate().skip(skip) {
        writer.message(message, &root.index(i))?;
    }
    let rest = messages.get(skip..).unwrap_or_default();
    let input = match rest {
        [only] if string_input(only) => Value::from(only.parts.first().and_then(plain_text).unwrap_or_default()),
        _ if !instructions => return Ok(Value::Array(writer.out)),
        _ => Value::Array(writer.out),
    };
    let mut request = Map::new();
    if let Some(system) = messages.first().filter(|_| instructions) {
        request.insert("instructions".into(), instructions_text(system, &root.index(0))?.into());
    }
    request.insert("input".into(), input);
    Ok(Value::Object(request))
}

/// The text of the system message read from `instructions`.
fn instructions_text(system: &Message, path: &JsonPath) -> Result<String, FormatError> {
    let mut instructions = String::new();
    for (j, part) in system.parts.iter().enumerate() {
        match part {
            Part::Text(t) if native_block::of(t, NAMESPACE).is_none() => instructions.push_str(&t.text),
            other => {
                return Err(path
                    .key("parts")
                    .index(j)
                    .unwritable(format!("`instructions` holds text only, not a `{}` part", other.kind())))
            }
        }
    }
    Ok(instructions)
}

/// A user message read from a string `input` that a string still holds.
fn string_input(message: &Message) -> bool {
    let marked = Restore::new(&message.extra, NAMESPACE).marker_str("input") == Some("string");
    let holds = match message.parts.as_slice() {
        [] => true,
        [one] => plain_text(one).is_some(),
        _ => false,
    };
    marked && holds && message.role == Role::User
}

/// The text of a part a string content stands for: a text part with no field of its own
/// (an assistant item's markers are not the part's).
fn plain_text(part: &Part) -> Option<&str> {
    let Part::Text(TextPart { text, extra }) = part else { return None };
    let own = extra.iter().all(|(k, v)| {
        k == NAMESPACE && v.as_object().is_some_and(|m| m.keys().all(|key| ITEM_MARKERS.contains(&key.as_str())))
    });
    own.then_some(text.as_str())
}

/// A string for no part or one plain text part, an array otherwise.
fn natural_shape(parts: &[(JsonPath, &Part)]) -> ContentShape {
    match parts {
        [] => ContentShape::String,
        [(_, one)] if plain_text(one).is_some() => ContentShape::String,
        _ => ContentShape::Array,
    }
}

/// The shape a marker names when it can hold the parts, else the natural one.
fn shape_of(marker: Option<&Value>, parts: &[(JsonPath, &Part)]) -> ContentShape {
    match marker.and_then(ContentShape::from_marker) {
        Some(ContentShape::Array) => ContentShape::Array,
        Some(ContentShape::String) if natural_shape(parts) == ContentShape::String => ContentShape::String,
        _ => natural_shape(parts),
    }
}

/// The content value: for a string, the text alone (item markers are not written).
fn content_value(parts: &[(JsonPath, &Part)], shape: ContentShape, side: Side) -> Result<Value, FormatError> {
    match (shape, parts) {
        (ContentShape::String, []) => Ok(Value::from("")),
        (ContentShape::String, [(_, one)]) if plain_text(one).is_some() => Ok(Value::from(plain_text(one))),
        _ => content::write_parts(parts, side).map(Value::Array),
    }
}

struct Writer<'m> {
    out: Vec<Value>,
    /// Calls written as `custom_tool_call`: their outputs are `custom_tool_call_output`.
    custom_calls: HashSet<String>,
    /// Ids of the built-in client calls written, and their item types: a result that did
    /// not come as their output item is written as one.
    client_calls: HashMap<String, String>,
    /// The result of each `mcp_call`, by call id.
    mcp_results: HashMap<&'m str, &'m ToolResultPart>,
    /// The `mcp_call`s written: their item holds their output, no other item does.
    mcp_calls: HashSet<String>,
}

/// An assistant message item being gathered from consecutive text parts.
struct OpenItem<'a> {
    fields: Map<String, Value>,
    shape: Option<&'a Value>,
    parts: Vec<(JsonPath, &'a Part)>,
}

impl Writer<'_> {
    fn message(&mut self, message: &Message, path: &JsonPath) -> Result<(), FormatError> {
        let parts_path = path.key("parts");
        let located: Vec<(JsonPath, &Part)> =
            message.parts.iter().enumerate().map(|(j, part)| (parts_path.index(j), part)).collect();
        match message.role {
            Role::System | Role::User => self.input_message(message, &located)?,
            Role::Assistant => self.assistant(&located)?,
            Role::Tool => {
                if located.is_empty() {
                    return Err(
                        path.unwritable("a tool message without a tool result cannot be written as a Responses item")
                    );
                }
                for (part_path, part) in &located {
                    let Part::ToolResult(result) = part else {
                        return Err(part_path.unwritable(format!(
                            "a `{}` part cannot be written in a tool output item, which holds one tool result",
                            part.kind()
                        )));
                    };
                    if let Some(item) = self.tool_output(result, message, part_path)? {
                        self.out.push(item);
                    }
                }
            }
        }
        Ok(())
    }

    /// A user, system or developer message. Items that ended up among its parts (a
    /// `compaction` item a strategy merged a message into) go out as items of their own,
    /// the content around them as messages with the message's fields.
    fn input_message(&mut self, message: &Message, located: &[(JsonPath, &Part)]) -> Result<(), FormatError> {
        let runs = located.split(|(_, part)| matches!(part, Part::Text(t) if native::item_of(t).is_some()));
        let items = located.iter().filter_map(|(_, part)| match part {
            Part::Text(t) => native::item_of(t),
            _ => None,
        });
        let restore = Restore::new(&message.extra, NAMESPACE);
        if restore.marker_flag("item") && located.len() == 1 {
            self.out.extend(items.cloned());
            return Ok(());
        }
        let role = match (message.role, restore.marker_str("role")) {
            (Role::System, Some("developer")) => "developer",
            (role, _) => role.as_str(),
        };
        let mut items = items.peekable();
        let split = items.peek().is_some();
        for (k, run) in runs.enumerate() {
            if k > 0 {
                if let Some(item) = items.next() {
                    self.out.push(item.clone());
                }
            }
            if split && run.is_empty() {
                continue;
            }
            let shape = shape_of(restore.marker("content"), run);
            let content = content_value(run, shape, Side::Input)?;
            let fields = Restore::new(&message.extra, NAMESPACE);
            self.out.push(fields.finish(object([("role", role.into()), ("content", content)])));
        }
        Ok(())
    }

    /// An assistant turn: its items in part order.
    fn assistant<'a>(&mut self, parts: &[(JsonPath, &'a Part)]) -> Result<(), FormatError> {
        let mut open: Option<OpenItem<'a>> = None;
        for (path, part) in parts {
            if let Part::Text(t) = part {
                if let Some(item) = native::item_of(t) {
                    self.flush(open.take())?;
                    self.out.push(item.clone());
                    continue;
                }
                let restore = Restore::new(&t.extra, NAMESPACE);
                match open.as_mut() {
                    Some(item) if restore.marker_flag("sameItem") => item.parts.push((path.clone(), *part)),
                    _ => {
                        self.flush(open.take())?;
                        open = Some(OpenItem {
                            fields: restore.marker_object("item").cloned().unwrap_or_default(),
                            shape: restore.marker("content"),
                            parts: vec![(path.clone(), *part)],
                        });
                    }
                }
                continue;
            }
            self.flush(open.take())?;
            match part {
                Part::Reasoning(r) => self.out.push(reasoning_item(r)),
                Part::ToolCall(call) => {
                    let item = self.call_item(call);
                    self.out.push(item);
                }
                other => {
                    return Err(path.unwritable(format!(
                    "a `{}` part cannot be written in a Responses assistant turn (text, reasoning and tool calls only)",
                    other.kind()
                )))
                }
            }
        }
        self.flush(open)
    }

    fn flush(&mut self, item: Option<OpenItem<'_>>) -> Result<(), FormatError> {
        let Some(item) = item else { return Ok(()) };
        let content = match easy_text(&item) {
            Some(text) => Value::from(text),
            None => content_value(&item.parts, shape_of(item.shape, &item.parts), Side::Output)?,
        };
        let mut wire = item.fields;
        wire.entry("role").or_insert_with(|| "assistant".into());
        wire.insert("content".into(), content);
        self.out.push(Value::Object(wire));
        Ok(())
    }

    fn call_item(&mut self, call: &ToolCallPart) -> Value {
        if let Some(item) = native::block_of(&call.extra) {
            if let Some(call_type) = native::client_call_type(call) {
                self.client_calls.insert(call.id.clone(), call_type.to_string());
            }
            if native::is_mcp_call(call) {
                self.mcp_calls.insert(call.id.clone());
                // Its output as its result now holds it (a mask placeholder, a summary).
                let result = self.mcp_results.get(call.id.as_str());
                let replaced = result.filter(|r| !native::unchanged(r, item, native::MCP_CALL));
                if let Some(item) = replaced.and_then(|r| native::with_text(item, native::MCP_CALL, &text_of(r))) {
                    return item;
                }
            }
            return item.clone();
        }
        let restore = Restore::new(&call.extra, NAMESPACE);
        let mapped = if restore.marker_flag("custom") {
            self.custom_calls.insert(call.id.clone());
            // The free-text input is the arguments.
            object([
                ("type", "custom_tool_call".into()),
                ("call_id", call.id.as_str().into()),
                ("name", call.name.as_str().into()),
                ("input", call.arguments.as_str().into()),
            ])
        } else {
            object([
                ("type", "function_call".into()),
                ("call_id", call.id.as_str().into()),
                ("name", call.name.as_str().into()),
                ("arguments", call.arguments.as_str().into()),
            ])
        };
        restore.finish(mapped)
    }

    /// The item of a tool result; `None` for an `mcp_call`'s, which its call's item holds.
    fn tool_output(
        &self,
        result: &ToolResultPart,
        message: &Message,
        part_path: &JsonPath,
    ) -> Result<Option<Value>, FormatError> {
        let path = &part_path.key("content");
        let textless = || part_path.unwritable("a computer call is answered by its screenshot item only, not by text");
        if let Some((item, item_type)) = native::result_item(result) {
            return match item_type {
                native::MCP_CALL => Ok(None),
                _ if native::unchanged(result, item, item_type) => Ok(Some(item.clone())),
                _ => native::with_text(item, item_type, &text_of(result)).map(Some).ok_or_else(textless),
            };
        }
        if let Some(item) = native::legacy_output_item(result) {
            return Ok(Some(item.clone()));
        }
        if self.mcp_calls.contains(&result.call_id) {
            return Ok(None);
        }
        if let Some(call_type) = self.client_calls.get(&result.call_id) {
            return native::text_output(call_type, &result.call_id, &text_of(result)).map(Some).ok_or_else(textless);
        }
        let mut restore = Restore::new(&message.extra, NAMESPACE);
        restore.absorb(Restore::new(&result.extra, NAMESPACE).into_fields());
        let custom = self.custom_calls.contains(&result.call_id) || restore.marker_flag("custom");
        let located: Vec<(JsonPath, &Part)> =
            result.content.iter().enumerate().map(|(k, part)| (path.index(k), part)).collect();
        let shape = shape_of(restore.marker("output"), &located);
        let output = content_value(&located, shape, Side::Input)?;
        let item_type = if custom { "custom_tool_call_output" } else { "function_call_output" };
        Ok(Some(restore.finish(object([
            ("type", item_type.into()),
            ("call_id", result.call_id.as_str().into()),
            ("output", output),
        ]))))
    }
}

/// The texts of a result's content, a line apart.
fn text_of(result: &ToolResultPart) -> String {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|p| if let Part::Text(t) = p { Some(t.text.as_str()) } else { None })
        .collect();
    texts.join("\n")
}

/// The content of an assistant message item that is not an output item the API gave (no
/// `id`) and was not read as an array: an easy input message, whose content the API types
/// as a string (output text parts belong to an output message, with its `id` and
/// `status`). Its text parts joined; `None` when it holds other parts.
fn easy_text(item: &OpenItem<'_>) -> Option<String> {
    if item.fields.contains_key("id") || item.shape.and_then(ContentShape::from_marker) == Some(ContentShape::Array) {
        return None;
    }
    let texts: Option<Vec<&str>> = item
        .parts
        .iter()
        .map(|(_, part)| match part {
            Part::Text(t) if native::item_of(t).is_none() && native::block_of(&t.extra).is_none() => {
                Some(t.text.as_str())
            }
            _ => None,
        })
        .collect();
    texts.map(|t| t.join("\n\n"))
}

/// `{type: "reasoning", summary, encrypted_content?}` and the item's other fields.
fn reasoning_item(reasoning: &ReasoningPart) -> Value {
    let restore = Restore::new(&reasoning.extra, NAMESPACE);
    let mut mapped = object([("type", "reasoning".into())]);
    let summary = match restore.marker("summary") {
        Some(Value::String(absent)) if absent == "absent" && reasoning.text.is_empty() => None,
        Some(Value::Array(entries)) if summary_text(entries) == reasoning.text => Some(Value::Array(entries.clone())),
        _ => Some(natural_summary(&reasoning.text)),
    };
    if let Some(summary) = summary {
        mapped.insert("summary".into(), summary);
    }
    if let Some(signature) = &reasoning.signature {
        mapped.insert("encrypted_content".into(), signature.as_str().into());
    }
    restore.finish(mapped)
}
