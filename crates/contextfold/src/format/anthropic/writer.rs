//! Native [`Message`]s -> Anthropic Messages (see the module doc of [`super`], section
//! *Writing*).

use super::blocks::{natural_result_shape, BlockContext};
use super::media;
use super::{natural_content_shape, NAMESPACE};
use crate::format::content_shape::ContentShape;
use crate::format::path::JsonPath;
use crate::format::tool_turns::interleave;
use crate::format::wire::{extend_nested, merge_missing, object, Restore};
use crate::format::FormatError;
use crate::message::{Message, Part, ReasoningPart, Role, ToolCallPart, ToolResultPart};
use serde_json::{Map, Value};

/// Writes messages as an Anthropic `messages` array. A system prompt (the leading system
/// messages) cannot be in it unless it was read from there (Anthropic takes it in the
/// request's `system` field): use [`write_request`] for those, or
/// [`crate::format::write`], which picks the form. System messages after the first turn
/// are `role: "system"` messages (`SystemMessageParam`).
pub fn write(messages: &[Message]) -> Result<Value, FormatError> {
    let root = JsonPath::root();
    let lead = messages.iter().take_while(|m| m.role == Role::System).count();
    // System messages read from inside `messages` go back there: the whole leading run.
    if lead > 0 && !super::systems_in_messages(messages) {
        return Err(root.index(0).unwritable(
            "a system prompt cannot be written in Anthropic `messages`: it is the request's top-level `system` (write the request form {system, messages} instead)",
        ));
    }
    write_messages(messages.iter().enumerate(), &root).map(Value::Array)
}

/// Writes messages as an Anthropic request object `{system, messages}`: the leading
/// system messages become `system` (left out when there is none), the rest `messages`
/// (a later system message a `role: "system"` message there).
pub fn write_request(messages: &[Message]) -> Result<Value, FormatError> {
    let root = JsonPath::root();
    let lead = messages.iter().take_while(|m| m.role == Role::System).count();
    let mut request = Map::new();
    if let Some(system) = write_system(messages.iter().take(lead), &root)? {
        request.insert("system".into(), system);
    }
    let rest = messages.iter().enumerate().skip(lead);
    request.insert("messages".into(), Value::Array(write_messages(rest, &root)?));
    Ok(Value::Object(request))
}

/// The leading system messages as `system`: the recorded or natural shape for one
/// message, text blocks for several. Message-level fields have no place in a request.
fn write_system<'a>(
    messages: impl Iterator<Item = &'a Message>,
    root: &JsonPath,
) -> Result<Option<Value>, FormatError> {
    let messages: Vec<&Message> = messages.collect();
    let mut blocks = Vec::new();
    let mut parts = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let parts_path = root.index(i).key("parts");
        for (j, part) in message.parts.iter().enumerate() {
            blocks.push(write_block(&parts_path.index(j), part, BlockContext::System)?);
            parts.push(part);
        }
    }
    let shape = match messages.as_slice() {
        [] => return Ok(None),
        [one] => {
            let restore = Restore::new(&one.extra, NAMESPACE);
            ContentShape::restore(restore.marker("content"), natural_content_shape(&parts), &parts)
        }
        _ => ContentShape::Array,
    };
    Ok(Some(content_value(shape, &parts, blocks)))
}

/// One wire message being built.
struct WireMessage {
    role: &'static str,
    content: Value,
    fields: Map<String, Value>,
    /// Built from tool messages: later tool messages, and one user message marked
    /// `mergeWithPrevious`, go into it.
    open: bool,
}

impl WireMessage {
    /// A wire message of its own, its content in the recorded shape (or the natural one).
    fn own(role: &'static str, message: &Message, blocks: Vec<Value>, restore: Restore<'_>) -> WireMessage {
        let parts: Vec<&Part> = message.parts.iter().collect();
        let shape = ContentShape::restore(restore.marker("content"), natural_content_shape(&parts), &parts);
        WireMessage { role, content: content_value(shape, &parts, blocks), fields: restore.into_fields(), open: false }
    }

    /// Adds blocks to the content (an array: it was built from tool results).
    fn extend(&mut self, blocks: Vec<Value>) {
        if let Value::Array(content) = &mut self.content {
            content.extend(blocks);
        }
    }

    /// Adds the fields of a message merged into this one; the fields already here win.
    fn merge_fields(&mut self, more: Map<String, Value>) {
        let fields = std::mem::take(&mut self.fields);
        self.fields = merge_missing(fields, more);
    }

    fn into_value(self) -> Value {
        let mapped = object([("role", self.role.into()), ("content", self.content)]);
        Value::Object(merge_missing(mapped, self.fields))
    }
}

fn write_messages<'a>(
    messages: impl Iterator<Item = (usize, &'a Message)>,
    root: &JsonPath,
) -> Result<Vec<Value>, FormatError> {
    let mut out: Vec<WireMessage> = Vec::new();
    for (i, message) in messages {
        let path = root.index(i);
        let restore = Restore::new(&message.extra, NAMESPACE);
        match message.role {
            Role::Tool => {
                let blocks = tool_result_blocks(message, &path)?;
                push_results(&mut out, blocks, restore);
            }
            Role::User | Role::Assistant => {
                let context = if message.role == Role::User { BlockContext::User } else { BlockContext::Assistant };
                let blocks = write_blocks(message, &path, context)?;
                push_turn(&mut out, message, blocks, restore);
            }
            // The leading run when it was read from `messages` (see `write`), and any later one.
            Role::System => {
                let blocks = write_blocks(message, &path, BlockContext::System)?;
                out.push(WireMessage::own("system", message, blocks, restore));
            }
        }
    }
    Ok(out.into_iter().map(WireMessage::into_value).collect())
}

/// The blocks of a message's parts.
fn write_blocks(message: &Message, path: &JsonPath, context: BlockContext) -> Result<Vec<Value>, FormatError> {
    let parts_path = path.key("parts");
    message.parts.iter().enumerate().map(|(j, part)| write_block(&parts_path.index(j), part, context)).collect()
}

/// A tool message's results join the user message of the results before them, unless
/// they were a wire message of their own; else they open one.
fn push_results(out: &mut Vec<WireMessage>, blocks: Vec<Value>, restore: Restore<'_>) {
    match out.last_mut().filter(|last| last.open) {
        Some(last) if !restore.marker_flag("newMessage") => {
            last.extend(blocks);
            last.merge_fields(restore.into_fields());
        }
        _ => out.push(WireMessage {
            role: "user",
            content: Value::Array(blocks),
            fields: restore.into_fields(),
            open: true,
        }),
    }
}

/// A user or assistant message: a user message read from the same wire message as the
/// results before it goes back into it, at its blocks' positions (`mergeWithPrevious`).
fn push_turn(out: &mut Vec<WireMessage>, message: &Message, blocks: Vec<Value>, restore: Restore<'_>) {
    let user = message.role == Role::User;
    match (out.last_mut().filter(|last| last.open), restore.marker("mergeWithPrevious")) {
        (Some(last), Some(positions)) if user => {
            if let Value::Array(content) = &mut last.content {
                let results = std::mem::take(content);
                *content = interleave(results, blocks, positions);
            }
            last.merge_fields(restore.into_fields());
            last.open = false;
        }
        // Any other user message after tool results joins their user message (the
        // API wants alternating turns), unless it was a wire message of its own.
        (Some(last), None) if user && !restore.marker_flag("newMessage") => {
            last.extend(blocks);
            last.merge_fields(restore.into_fields());
            last.open = false;
        }
        (open, _) => {
            if let Some(last) = open {
                last.open = false;
            }
            let role = if user { "user" } else { "assistant" };
            out.push(WireMessage::own(role, message, blocks, restore));
        }
    }
}

/// The content value in `shape`: the text of a lone text part (or `""`), else `blocks`.
fn content_value(shape: ContentShape, parts: &[&Part], blocks: Vec<Value>) -> Value {
    match (shape, parts.first()) {
        (ContentShape::Array | ContentShape::Null | ContentShape::Absent, _) => Value::Array(blocks),
        (ContentShape::String, Some(Part::Text(t))) => Value::from(t.text.as_str()),
        (ContentShape::String, _) => Value::from(""),
    }
}

/// The `tool_result` blocks of a tool message.
fn tool_result_blocks(message: &Message, path: &JsonPath) -> Result<Vec<Value>, FormatError> {
    if message.parts.is_empty() {
        return Err(path.unwritable("a tool message without a tool result cannot be written to Anthropic"));
    }
    let parts_path = path.key("parts");
    message
        .parts
        .iter()
        .enumerate()
        .map(|(j, part)| match part {
            Part::ToolResult(result) => write_tool_result(&parts_path.index(j), result),
            other => Err(parts_path.index(j).unwritable(format!(
                "a `{}` part cannot be written in a tool message, which holds tool results",
                other.kind()
            ))),
        })
        .collect()
}

/// `{type: "tool_result", tool_use_id, content?, is_error?}`. Anthropic results carry
/// no tool name: `name` is not written.
fn write_tool_result(path: &JsonPath, result: &ToolResultPart) -> Result<Value, FormatError> {
    let restore = Restore::new(&result.extra, NAMESPACE);
    let content_path = path.key("content");
    let blocks = result
        .content
        .iter()
        .enumerate()
        .map(|(k, part)| write_block(&content_path.index(k), part, BlockContext::ToolResult))
        .collect::<Result<Vec<_>, _>>()?;
    let shape =
        ContentShape::restore(restore.marker("content"), natural_result_shape(&result.content), &result.content);
    let mut mapped =
        object([("type", Value::from("tool_result")), ("tool_use_id", Value::from(result.call_id.as_str()))]);
    if shape != ContentShape::Absent {
        let parts: Vec<&Part> = result.content.iter().collect();
        mapped.insert("content".into(), content_value(shape, &parts, blocks));
    }
    if result.is_error {
        mapped.insert("is_error".into(), Value::Bool(true));
    }
    Ok(restore.finish(mapped))
}

/// The wire block type a part becomes.
fn block_type(part: &Part) -> &'static str {
    match part {
        Part::Text(_) => "text",
        Part::Image(_) => "image",
        // A `document` takes PDF or text only: an image file (AI SDK `file` parts carry
        // images) is an `image` block.
        Part::File(f) if f.media_type.as_deref().is_some_and(|m| m.starts_with("image/")) => "image",
        Part::File(_) => "document",
        Part::Reasoning(r) if r.redacted_data.is_some() => "redacted_thinking",
        Part::Reasoning(_) => "thinking",
        Part::ToolCall(_) => "tool_use",
        Part::ToolResult(_) => "tool_result",
    }
}

fn write_block(path: &JsonPath, part: &Part, context: BlockContext) -> Result<Value, FormatError> {
    // A native block (web search, MCP, ...) goes back as it came.
    if let Part::Text(text) = part {
        if let Some(block) = super::native::block_of(text) {
            return Ok(block.clone());
        }
    }
    let kind = block_type(part);
    // Neutral chains carry tool results in tool messages only (see the reader).
    let misplaced_result = kind == "tool_result" && context == BlockContext::User;
    if misplaced_result || !context.allows(kind) {
        let hint = match part {
            Part::ToolResult(_) => " (tool results belong in tool messages)",
            _ => "",
        };
        return Err(path.unwritable(format!(
            "a `{}` part cannot be written to Anthropic: `{kind}` blocks are not allowed in {}{hint}",
            part.kind(),
            context.describe()
        )));
    }
    match part {
        Part::Text(text) => {
            let restore = Restore::new(&text.extra, NAMESPACE);
            Ok(restore.finish(object([("type", kind.into()), ("text", text.text.as_str().into())])))
        }
        Part::Image(image) => {
            let restore = Restore::new(&image.extra, NAMESPACE);
            let source = write_source(path, &restore, &image.url, &image.data, &image.media_type)?;
            Ok(restore.finish(object([("type", kind.into()), ("source", source)])))
        }
        Part::File(file) => {
            let restore = Restore::new(&file.extra, NAMESPACE);
            let source = write_source(path, &restore, &file.url, &file.data, &file.media_type)?;
            let mut mapped = object([("type", kind.into()), ("source", source)]);
            if let Some(name) = file.name.as_ref().filter(|_| kind == "document") {
                mapped.insert("title".into(), name.as_str().into());
            }
            Ok(restore.finish(mapped))
        }
        Part::Reasoning(reasoning) => write_reasoning(path, reasoning),
        Part::ToolCall(call) => write_tool_use(path, call),
        Part::ToolResult(result) => write_tool_result(path, result),
    }
}

/// `{type: "base64", media_type, data}` or `{type: "url", url}` (the media type of a URL
/// goes: Anthropic's URL sources have none), plus the source fields the reader kept
/// (another source `type`, a `file_id`, ...).
fn write_source(
    path: &JsonPath,
    restore: &Restore<'_>,
    url: &Option<String>,
    data: &Option<String>,
    media_type: &Option<String>,
) -> Result<Value, FormatError> {
    let kept = restore.marker_object("source");
    let kept_type = kept.and_then(|k| k.get("type"));
    // Text (CSV, JSON, ...) goes as a `text` source (`PlainTextSource`, always
    // `text/plain`): Anthropic takes base64 for PDFs only. Its data is the text, read
    // back from base64. A text source read as such keeps its media type.
    let read_as_text = kept_type.and_then(Value::as_str) == Some("text");
    let converted = kept_type.is_none() && url.is_none() && media_type.as_deref().is_some_and(media::is_text);
    let plain = data.as_deref().and_then(media::text_of).filter(|_| read_as_text || converted);
    if let Some(text) = plain {
        let written_type = media_type.as_deref().filter(|_| read_as_text).unwrap_or(media::PLAIN_TEXT);
        let mut source = object([("type", "text".into()), ("media_type", written_type.into()), ("data", text.into())]);
        extend_nested(&mut source, kept);
        return Ok(Value::Object(source));
    }
    let source_type = match (kept_type, data, url) {
        (Some(kept), _, _) => kept.clone(),
        (None, Some(_), _) => "base64".into(),
        (None, None, Some(_)) => "url".into(),
        (None, None, None) if kept.is_some() => Value::Null,
        (None, None, None) => {
            return Err(path.unwritable(
                "an image or file without a URL or data cannot be written to Anthropic (a block needs a source)",
            ))
        }
    };
    // A URL source is `{type: "url", url}` alone: Anthropic rejects other fields.
    let by_url = source_type.as_str() == Some("url");
    let mut source = Map::new();
    if !source_type.is_null() {
        source.insert("type".into(), source_type);
    }
    if let Some(media_type) = media_type.as_ref().filter(|_| !by_url) {
        source.insert("media_type".into(), media_type.as_str().into());
    }
    if let Some(data) = data {
        source.insert("data".into(), data.as_str().into());
    }
    if let Some(url) = url {
        source.insert("url".into(), url.as_str().into());
    }
    extend_nested(&mut source, kept);
    Ok(Value::Object(source))
}

/// `{type: "thinking", thinking, signature?}` or `{type: "redacted_thinking", data}`.
fn write_reasoning(path: &JsonPath, reasoning: &ReasoningPart) -> Result<Value, FormatError> {
    let restore = Restore::new(&reasoning.extra, NAMESPACE);
    let mapped = match &reasoning.redacted_data {
        Some(_) if !reasoning.text.is_empty() => {
            return Err(path.unwritable(
                "reasoning with both text and redacted data cannot be written to Anthropic (a `redacted_thinking` block has no text)",
            ))
        }
        Some(data) => object([
            ("type", "redacted_thinking".into()),
            ("data", data.as_str().into()),
        ]),
        None => {
            let mut mapped = object([
                ("type", "thinking".into()),
                ("thinking", reasoning.text.as_str().into()),
            ]);
            if let Some(signature) = &reasoning.signature {
                mapped.insert("signature".into(), signature.as_str().into());
            }
            mapped
        }
    };
    Ok(restore.finish(mapped))
}

/// `{type: "tool_use", id, name, input}`: `input` is the arguments read as JSON (empty
/// arguments are `{}`), or the original input the reader kept when the arguments are
/// still its compact JSON text.
fn write_tool_use(path: &JsonPath, call: &ToolCallPart) -> Result<Value, FormatError> {
    let restore = Restore::new(&call.extra, NAMESPACE);
    let kept =
        restore.marker("input").filter(|input| serde_json::to_string(input).ok().as_deref() == Some(&call.arguments));
    let input = match kept {
        Some(input) => input.clone(),
        None if call.arguments.trim().is_empty() => Value::Object(Map::new()),
        None => serde_json::from_str(&call.arguments).map_err(|e| {
            path.key("arguments").unwritable(format!(
                "tool call arguments must be JSON to be written as an Anthropic `tool_use` input: {e}"
            ))
        })?,
    };
    Ok(restore.finish(object([
        ("type", "tool_use".into()),
        ("id", call.id.as_str().into()),
        ("name", call.name.as_str().into()),
        ("input", input),
    ])))
}
