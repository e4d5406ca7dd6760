//! Native [`Message`]s -> OpenAI Chat Completions messages (see the module doc of
//! [`super`], section *Writing*).

use super::{natural_content_shape, NAMESPACE};
use crate::format::content_shape::ContentShape;
use crate::format::native_block;
use crate::format::path::JsonPath;
use crate::format::wire::{extend_nested, object, Restore};
use crate::format::FormatError;
use crate::message::{FilePart, ImagePart, Message, Part, Role, TextPart, ToolCallPart};
use serde_json::{Map, Value};

/// Writes messages as an OpenAI Chat Completions `messages` array.
pub fn write(messages: &[Message]) -> Result<Value, FormatError> {
    let root = JsonPath::root();
    let mut out = Vec::with_capacity(messages.len());
    for (i, message) in messages.iter().enumerate() {
        write_message(message, &root.index(i), &mut out)?;
    }
    Ok(Value::Array(out))
}

/// A content part and where it sits in the native messages.
type Located<'a> = (JsonPath, &'a Part);

fn write_message(message: &Message, path: &JsonPath, out: &mut Vec<Value>) -> Result<(), FormatError> {
    let restore = Restore::new(&message.extra, NAMESPACE);
    let parts_path = path.key("parts");
    let located = || message.parts.iter().enumerate().map(|(j, part)| (parts_path.index(j), part));
    match message.role {
        Role::System | Role::User => {
            let role = match (message.role, restore.marker_str("role")) {
                (Role::System, Some("developer")) => "developer",
                (role, _) => role.as_str(),
            };
            let content: Vec<Located<'_>> = located().collect();
            let mut mapped = object([("role", Value::from(role))]);
            insert_content(&mut mapped, message.role, &content, &restore)?;
            out.push(restore.finish(mapped));
        }
        Role::Assistant => out.push(write_assistant(located(), restore)?),
        Role::Tool => {
            if message.parts.is_empty() {
                return Err(path.unwritable(
                    "a tool message without a tool result cannot be written to OpenAI (a `tool` message answers one call)",
                ));
            }
            for (part_path, part) in located() {
                let Part::ToolResult(result) = part else {
                    return Err(part_path.unwritable(format!(
                        "a `{}` part cannot be written in an OpenAI tool message, which holds one tool result",
                        part.kind()
                    )));
                };
                // A tool message with several results becomes one wire message each.
                let restore = Restore::new(&message.extra, NAMESPACE);
                out.push(write_tool_result(result, &part_path.key("content"), restore)?);
            }
        }
    }
    Ok(())
}

/// Reasoning -> `reasoning_content`, tool calls -> `tool_calls` (or the legacy
/// `function_call`), every other part -> `content`.
fn write_assistant<'a>(
    parts: impl Iterator<Item = Located<'a>>,
    mut restore: Restore<'_>,
) -> Result<Value, FormatError> {
    let mut reasoning = Vec::new();
    let mut content = Vec::new();
    let mut calls = Vec::new();
    let mut legacy: Option<Value> = None;
    let mut refusals: Vec<&str> = Vec::new();
    let mut audio: Option<Value> = None;
    for (path, part) in parts {
        match part {
            Part::Text(text) if said_in(text) == Some("refusal") => refusals.push(&text.text),
            Part::Text(text) if said_in(text) == Some("audio") => {
                let block = native_block::of(text, NAMESPACE).cloned().unwrap_or(Value::Null);
                if audio.replace(block).is_some() {
                    return Err(path.unwritable("an OpenAI message holds one `audio` reply at most"));
                }
            }
            Part::Reasoning(r) => {
                if !r.text.is_empty() {
                    reasoning.push(r.text.as_str());
                }
                restore.absorb(Restore::new(&r.extra, NAMESPACE).into_fields());
            }
            Part::ToolCall(call) => {
                let call_restore = Restore::new(&call.extra, NAMESPACE);
                if call_restore.marker_flag("legacyFunctionCall") {
                    if legacy.is_some() {
                        return Err(path.unwritable("an OpenAI message holds one legacy `function_call` at most"));
                    }
                    let mapped = object([
                        ("name", Value::from(call.name.as_str())),
                        ("arguments", Value::from(call.arguments.as_str())),
                    ]);
                    legacy = Some(call_restore.finish(mapped));
                } else {
                    calls.push(write_tool_call(call, call_restore));
                }
            }
            Part::ToolResult(_) => {
                return Err(path.unwritable(
                    "a tool result cannot be written in an assistant message: it belongs in a tool message",
                ))
            }
            _ => content.push((path, part)),
        }
    }
    let mut mapped = object([("role", Value::from("assistant"))]);
    insert_content(&mut mapped, Role::Assistant, &content, &restore)?;
    if !reasoning.is_empty() {
        mapped.insert("reasoning_content".into(), reasoning.join("\n").into());
    }
    if !calls.is_empty() {
        mapped.insert("tool_calls".into(), Value::Array(calls));
    }
    if !refusals.is_empty() {
        mapped.insert("refusal".into(), refusals.join("\n").into());
    }
    if let Some(audio) = audio {
        mapped.insert("audio".into(), audio);
    }
    if let Some(function_call) = legacy {
        mapped.insert("function_call".into(), function_call);
    }
    Ok(restore.finish(mapped))
}

/// The assistant message field a text part was read from (`refusal`, `audio`), if any.
fn said_in(text: &TextPart) -> Option<&str> {
    Restore::new(&text.extra, NAMESPACE).marker_str("field")
}

/// `{id, type: "function", function: {name, arguments}}`, or a custom tool's
/// `{id, type: "custom", custom: {name, input}}` when it was read so.
fn write_tool_call(call: &ToolCallPart, restore: Restore<'_>) -> Value {
    if restore.marker_flag("custom") {
        let mut custom =
            object([("name", Value::from(call.name.as_str())), ("input", Value::from(call.arguments.as_str()))]);
        extend_nested(&mut custom, restore.marker_object("customFields"));
        let mapped = object([
            ("id", Value::from(call.id.as_str())),
            ("type", "custom".into()),
            ("custom", Value::Object(custom)),
        ]);
        return restore.finish(mapped);
    }
    let mut function =
        object([("name", Value::from(call.name.as_str())), ("arguments", Value::from(call.arguments.as_str()))]);
    extend_nested(&mut function, restore.marker_object("function"));
    let mut mapped = object([("id", Value::from(call.id.as_str()))]);
    if restore.marker_str("type") != Some("absent") {
        mapped.insert("type".into(), "function".into());
    }
    mapped.insert("function".into(), Value::Object(function));
    restore.finish(mapped)
}

/// A `tool` message (or a legacy `function` one) answering one call. OpenAI has no
/// error flag: `is_error` is not written. Fields of the result part go to the message.
fn write_tool_result(
    result: &crate::message::ToolResultPart,
    content_path: &JsonPath,
    mut restore: Restore<'_>,
) -> Result<Value, FormatError> {
    restore.absorb(Restore::new(&result.extra, NAMESPACE).into_fields());
    let legacy = restore.marker_str("role") == Some("function");
    let mut mapped = object([("role", Value::from(if legacy { "function" } else { "tool" }))]);
    if !legacy {
        mapped.insert("tool_call_id".into(), result.call_id.as_str().into());
    }
    // The official `tool` message has no `name`: written only back where it was read.
    if let Some(name) = result.name.as_ref().filter(|_| legacy || restore.marker_flag("name")) {
        mapped.insert("name".into(), name.as_str().into());
    }
    let content: Vec<Located<'_>> =
        result.content.iter().enumerate().map(|(k, part)| (content_path.index(k), part)).collect();
    insert_content(&mut mapped, Role::Tool, &content, &restore)?;
    Ok(restore.finish(mapped))
}

/// Sets `content` in the shape the `content` marker recorded, or the natural one.
fn insert_content(
    mapped: &mut Map<String, Value>,
    role: Role,
    content: &[Located<'_>],
    restore: &Restore<'_>,
) -> Result<(), FormatError> {
    let parts: Vec<&Part> = content.iter().map(|(_, part)| *part).collect();
    let natural = natural_content_shape(role, &parts);
    let value = match ContentShape::restore(restore.marker("content"), natural, &parts) {
        ContentShape::Absent => return Ok(()),
        ContentShape::Null => Value::Null,
        ContentShape::String => match parts.first() {
            Some(Part::Text(t)) => Value::from(t.text.as_str()),
            _ => Value::from(""),
        },
        ContentShape::Array => {
            Value::Array(content.iter().map(|(path, part)| write_content_part(path, part)).collect::<Result<_, _>>()?)
        }
    };
    mapped.insert("content".into(), value);
    Ok(())
}

fn write_content_part(path: &JsonPath, part: &Part) -> Result<Value, FormatError> {
    match part {
        Part::Text(text) => Ok(write_text(text)),
        Part::Image(image) => write_image(path, image),
        Part::File(file) => write_file(path, file),
        Part::Reasoning(_) | Part::ToolCall(_) | Part::ToolResult(_) => {
            Err(path.unwritable(format!(
                "a `{}` part cannot be written as OpenAI content (reasoning and tool calls belong in assistant messages, tool results in tool messages)",
                part.kind()
            )))
        }
    }
}

/// `{type: "text", text}`, or `{type: "refusal", refusal}` when read from one.
fn write_text(text: &TextPart) -> Value {
    let restore = Restore::new(&text.extra, NAMESPACE);
    let kind = match restore.marker_str("type") {
        Some("refusal") => "refusal",
        _ => "text",
    };
    let mapped = object([("type", Value::from(kind)), (kind, Value::from(text.text.as_str()))]);
    restore.finish(mapped)
}

/// `data:<media type>;base64,<data>`.
fn data_url(media_type: &str, data: &str) -> String {
    format!("data:{media_type};base64,{data}")
}

/// `{type: "image_url", image_url: {url, detail?}}`: a URL, or inline data as a data URL.
fn write_image(path: &JsonPath, image: &ImagePart) -> Result<Value, FormatError> {
    let restore = Restore::new(&image.extra, NAMESPACE);
    let url = match (&image.url, &image.data, &image.media_type) {
        (Some(_), Some(_), _) => {
            return Err(path.unwritable(
                "an image with both a URL and inline data cannot be written to OpenAI (`image_url` holds one URL)",
            ))
        }
        (Some(url), None, _) => url.clone(),
        (None, Some(data), Some(media_type)) => data_url(media_type, data),
        (None, Some(_), None) => {
            return Err(path
                .unwritable("an inline image without a media type cannot be written to OpenAI (a data URL needs one)"))
        }
        (None, None, _) => return Err(path.unwritable("an image without a URL or data cannot be written to OpenAI")),
    };
    let mut nested = object([("url", Value::from(url))]);
    extend_nested(&mut nested, restore.marker_object("image_url"));
    let mapped = object([("type", Value::from("image_url")), ("image_url", Value::Object(nested))]);
    Ok(restore.finish(mapped))
}

/// `{type: "input_audio", input_audio: {data, format}}` when read from one, else
/// `{type: "file", file: {file_data?, filename?}}` (inline data as a data URL).
fn write_file(path: &JsonPath, file: &FilePart) -> Result<Value, FormatError> {
    let restore = Restore::new(&file.extra, NAMESPACE);
    if file.url.is_some() {
        return Err(path.unwritable(
            "a file given by URL cannot be written to OpenAI (a `file` part holds inline data or a file id)",
        ));
    }
    // The format read (`audio/<format>`), or the one a media type from elsewhere names.
    let audio_format =
        file.media_type.as_deref().and_then(|m| super::audio_format(m).or_else(|| m.strip_prefix("audio/")));
    if let (Some("input_audio"), Some(data), Some(format), None) =
        (restore.marker_str("type"), &file.data, audio_format, &file.name)
    {
        let mut nested = object([("data", Value::from(data.as_str())), ("format", Value::from(format))]);
        extend_nested(&mut nested, restore.marker_object("input_audio"));
        let mapped = object([("type", Value::from("input_audio")), ("input_audio", Value::Object(nested))]);
        return Ok(restore.finish(mapped));
    }
    let mut nested = Map::new();
    match (&file.data, &file.media_type) {
        (Some(data), Some(media_type)) => {
            nested.insert("file_data".into(), data_url(media_type, data).into());
        }
        (Some(data), None) => {
            nested.insert("file_data".into(), data.as_str().into());
        }
        (None, Some(_)) => {
            return Err(path.unwritable("a file with a media type but no data cannot be written to OpenAI"))
        }
        (None, None) => {}
    }
    if let Some(name) = &file.name {
        nested.insert("filename".into(), name.as_str().into());
    }
    extend_nested(&mut nested, restore.marker_object("file"));
    let mapped = object([("type", Value::from("file")), ("file", Value::Object(nested))]);
    Ok(restore.finish(mapped))
}
