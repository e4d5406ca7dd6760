//! Native [`Message`]s -> AI SDK `ModelMessage`s (see the module doc of [`super`]).

use super::{allowed, natural_item, natural_output, natural_shape, NAMESPACE};
use crate::format::call_names::CallNames;
use crate::format::content_shape::ContentShape;
use crate::format::path::JsonPath;
use crate::format::wire::{object, Restore};
use crate::format::FormatError;
use crate::message::{Message, Part, ReasoningPart, Role, TextPart, ToolResultPart};
use serde_json::{Map, Value};

/// Writes messages as an array of AI SDK `ModelMessage`s.
pub fn write(messages: &[Message]) -> Result<Value, FormatError> {
    let root = JsonPath::root();
    let mut names = CallNames::new(messages);
    let mut out = Vec::with_capacity(messages.len());
    for (i, message) in messages.iter().enumerate() {
        names.visit(message);
        let path = root.index(i);
        let parts_path = path.key("parts");
        let restore = Restore::new(&message.extra, NAMESPACE);
        let mut mapped = object([("role", Value::from(message.role.as_str()))]);
        if message.role == Role::System {
            let mut texts = Vec::new();
            for (j, part) in message.parts.iter().enumerate() {
                match part {
                    Part::Text(text) => texts.push(text.text.as_str()),
                    other => {
                        return Err(parts_path.index(j).unwritable(format!(
                            "a `{}` part cannot be written in an AI SDK system message, whose content is a string",
                            other.kind()
                        )))
                    }
                }
            }
            mapped.insert("content".into(), texts.join("\n").into());
            out.push(restore.finish(mapped));
            continue;
        }
        let parts: Vec<Value> = message
            .parts
            .iter()
            .enumerate()
            .map(|(j, part)| write_part(&parts_path.index(j), part, message.role, &names))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .flatten()
            .collect();
        let kept: Vec<&Part> = message.parts.iter().collect();
        let shape = if message.role == Role::Tool {
            ContentShape::Array
        } else {
            ContentShape::restore(restore.marker("content"), natural_shape(&kept), &kept)
        };
        let content = match (shape, message.parts.first()) {
            (ContentShape::String, Some(Part::Text(t))) => Value::from(t.text.as_str()),
            (ContentShape::String, _) => Value::from(""),
            _ => Value::Array(parts),
        };
        mapped.insert("content".into(), content);
        out.push(restore.finish(mapped));
    }
    Ok(Value::Array(out))
}

/// A provider-executed call and its result as the SDK's own parts, kept verbatim (see
/// [`super::native`]): where `convertToModelMessages` puts a `UIMessage`'s, in the
/// assistant message.
pub(crate) fn provider_executed(call: &Part, result: Option<&Part>) -> Result<Vec<Part>, FormatError> {
    let (path, names) = (JsonPath::root(), CallNames::new(&[]));
    let parts = [(Some(call), Role::Assistant), (result, Role::Tool)];
    let mut kept = Vec::with_capacity(parts.len());
    for (part, role) in parts {
        if let Some(value) = part.map(|p| write_part(&path, p, role, &names)).transpose()?.flatten() {
            kept.push(super::native::kept(&value));
        }
    }
    Ok(kept)
}

fn write_part(path: &JsonPath, part: &Part, role: Role, names: &CallNames<'_>) -> Result<Option<Value>, FormatError> {
    if let Part::Text(text) = part {
        // A part kept verbatim goes back as it came, where it came from.
        if let Some(kept) = super::native::part_of(text) {
            return Ok(Some(kept.clone()));
        }
    }
    let part_type = match part {
        Part::Text(_) => "text",
        Part::Reasoning(_) => "reasoning",
        Part::Image(_) if role == Role::Assistant => "file",
        Part::Image(_) => "image",
        Part::File(_) => "file",
        Part::ToolCall(_) => "tool-call",
        Part::ToolResult(_) => "tool-result",
    };
    if !allowed(role, part_type) {
        return Err(path.unwritable(format!(
            "a `{}` part cannot be written in an AI SDK {} message",
            part.kind(),
            role.as_str()
        )));
    }
    let written = match part {
        Part::Text(text) => text_value(text),
        Part::Reasoning(reasoning) => match reasoning_value(reasoning) {
            Some(value) => value,
            None => return Ok(None),
        },
        Part::Image(image) if part_type == "image" => {
            let restore = Restore::new(&image.extra, NAMESPACE);
            let (url, data) = as_read(&restore, &image.url, &image.data, &image.media_type);
            let mut mapped = object([("type", "image".into()), ("image", media_source(path, &url, &data)?)]);
            if let Some(media_type) = image.media_type.as_ref().filter(|_| !restore.marker_flag("mediaTypeFromUrl")) {
                mapped.insert("mediaType".into(), media_type.as_str().into());
            }
            restore.finish(mapped)
        }
        Part::Image(image) => write_file(path, &image.extra, &image.url, &image.data, &image.media_type, &None)?,
        Part::File(file) => write_file(path, &file.extra, &file.url, &file.data, &file.media_type, &file.name)?,
        Part::ToolCall(call) => {
            let restore = Restore::new(&call.extra, NAMESPACE);
            let kept = restore
                .marker("input")
                .filter(|input| serde_json::to_string(input).ok().as_deref() == Some(call.arguments.as_str()));
            let input = match kept {
                Some(input) => input.clone(),
                None if call.arguments.trim().is_empty() => Value::Object(Map::new()),
                None => serde_json::from_str(&call.arguments).map_err(|e| {
                    path.key("arguments")
                        .unwritable(format!("tool call arguments must be JSON to be written as an AI SDK `input`: {e}"))
                })?,
            };
            restore.finish(object([
                ("type", "tool-call".into()),
                ("toolCallId", call.id.as_str().into()),
                ("toolName", call.name.as_str().into()),
                ("input", input),
            ]))
        }
        Part::ToolResult(result) => write_result(path, result, names)?,
    };
    Ok(Some(written))
}

/// A source read from a `data:` URL (marked `dataUrl`), as that very URL again.
fn as_read(
    restore: &Restore<'_>,
    url: &Option<String>,
    data: &Option<String>,
    media_type: &Option<String>,
) -> (Option<String>, Option<String>) {
    match (url, data, media_type) {
        (None, Some(data), Some(media_type)) if restore.marker_flag("dataUrl") => {
            (Some(format!("data:{media_type};base64,{data}")), None)
        }
        _ => (url.clone(), data.clone()),
    }
}

/// The URL or the data of a media part.
fn media_source(path: &JsonPath, url: &Option<String>, data: &Option<String>) -> Result<Value, FormatError> {
    match (url, data) {
        (Some(url), None) => Ok(url.as_str().into()),
        (None, Some(data)) => Ok(data.as_str().into()),
        _ => Err(path.unwritable("an image or file needs exactly one of a URL and data to be written to the AI SDK")),
    }
}

fn write_file(
    path: &JsonPath,
    extra: &crate::message::Extra,
    url: &Option<String>,
    data: &Option<String>,
    media_type: &Option<String>,
    name: &Option<String>,
) -> Result<Value, FormatError> {
    let restore = Restore::new(extra, NAMESPACE);
    let (url, data) = &as_read(&restore, url, data, media_type);
    let source = if restore.marker_str("data") == Some("tagged") {
        match (url, data) {
            (Some(url), None) => Value::Object(object([("type", "url".into()), ("url", url.as_str().into())])),
            (None, Some(data)) => Value::Object(object([("type", "data".into()), ("data", data.as_str().into())])),
            _ => media_source(path, url, data)?,
        }
    } else {
        media_source(path, url, data)?
    };
    let mut mapped = object([("type", "file".into()), ("data", source)]);
    mapped.insert("mediaType".into(), media_type.as_deref().unwrap_or("application/octet-stream").into());
    if let Some(name) = name {
        mapped.insert("filename".into(), name.as_str().into());
    }
    Ok(restore.finish(mapped))
}

/// `{type: "tool-result", toolCallId, toolName, output: {type, value}}`.
fn write_result(path: &JsonPath, result: &ToolResultPart, names: &CallNames<'_>) -> Result<Value, FormatError> {
    let restore = Restore::new(&result.extra, NAMESPACE);
    let name = names.of_result(result, path, "the AI SDK (a tool-result needs the tool name)")?;
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|p| match p {
            Part::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    let text = texts.join("\n");
    let marked = restore.marker_str("output");
    let json_ok = |v: &Value| serde_json::to_string(v).ok().as_deref() == Some(text.as_str());
    let output = match marked {
        Some(kind @ "execution-denied") if !result.is_error && texts.len() == result.content.len() => {
            let mut denied = object([("type", kind.into())]);
            let without = restore.marker("reason") == Some(&Value::Bool(false)) && text == super::DENIED_WITHOUT_REASON;
            if !without {
                denied.insert("reason".into(), text.as_str().into());
            }
            Some(denied)
        }
        Some(kind @ ("json" | "error-json")) if (kind == "error-json") == result.is_error => {
            let value = match restore.marker("value").filter(|v| json_ok(v)) {
                Some(kept) => Some(kept.clone()),
                None => serde_json::from_str::<Value>(&text).ok(),
            };
            value.map(|value| object([("type", kind.into()), ("value", value)]))
        }
        _ => None,
    };
    let output = match output {
        Some(output) => output,
        None => {
            let kind = if marked == Some("content") && !result.is_error {
                "content"
            } else {
                natural_output(&result.content, result.is_error)
            };
            if kind == "content" {
                let content_path = path.key("content");
                let items = result
                    .content
                    .iter()
                    .enumerate()
                    .map(|(k, part)| write_output_item(&content_path.index(k), part))
                    .collect::<Result<Vec<_>, _>>()?;
                object([("type", "content".into()), ("value", Value::Array(items))])
            } else {
                object([("type", kind.into()), ("value", text.into())])
            }
        }
    };
    let mut output = output;
    crate::format::wire::extend_nested(&mut output, restore.marker_object("outputFields"));
    Ok(restore.finish(object([
        ("type", "tool-result".into()),
        ("toolCallId", result.call_id.as_str().into()),
        ("toolName", name.into()),
        ("output", Value::Object(output)),
    ])))
}

/// A content output item in the shape the input used (`item` marker), else the natural
/// one (see [`read_output_item`]).
fn write_output_item(path: &JsonPath, part: &Part) -> Result<Value, FormatError> {
    let (extra, url, data, media_type, name, image) = match part {
        // An item kept verbatim (a file by provider id or reference, `custom`).
        Part::Text(text) if super::native::part_of(text).is_some() => {
            return Ok(super::native::part_of(text).cloned().unwrap_or_default())
        }
        Part::Text(text) => {
            return Ok(Restore::new(&text.extra, NAMESPACE)
                .finish(object([("type", "text".into()), ("text", text.text.as_str().into())])))
        }
        Part::Image(image) => (&image.extra, &image.url, &image.data, &image.media_type, &None, true),
        Part::File(file) => (&file.extra, &file.url, &file.data, &file.media_type, &file.name, false),
        other => {
            return Err(path.unwritable(format!("a `{}` part cannot be written in an AI SDK tool output", other.kind())))
        }
    };
    let restore = Restore::new(extra, NAMESPACE);
    let natural = natural_item(image, url.is_some());
    let item = match restore.marker_str("item") {
        // A marker that no longer fits the source (data vs URL) gives way to the natural shape.
        Some(marked @ ("media" | "image-data" | "file-data")) if data.is_some() => marked,
        Some(marked @ ("image-url" | "file-url")) if url.is_some() => marked,
        Some("file") => "file",
        _ => natural,
    };
    let mut mapped = object([("type", item.into())]);
    match (item, url, data) {
        ("file", _, _) => {
            let source = match (url, data) {
                (Some(url), None) => object([("type", "url".into()), ("url", url.as_str().into())]),
                (None, Some(data)) => object([("type", "data".into()), ("data", data.as_str().into())]),
                _ => return Err(path.unwritable("an AI SDK tool output file needs exactly one of a URL and data")),
            };
            mapped.insert("data".into(), Value::Object(source));
        }
        (_, Some(url), None) => {
            mapped.insert("url".into(), url.as_str().into());
        }
        (_, None, Some(data)) => {
            mapped.insert("data".into(), data.as_str().into());
        }
        _ => return Err(path.unwritable("media in an AI SDK tool output need exactly one of a URL and data")),
    }
    match media_type {
        Some(media_type) => {
            mapped.insert("mediaType".into(), media_type.as_str().into());
        }
        None if url.is_none() || item == "file" => {
            return Err(path.unwritable("media in an AI SDK tool output need a media type"));
        }
        None => {}
    }
    if let (Some(name), "file" | "file-data") = (name, item) {
        mapped.insert("filename".into(), name.as_str().into());
    }
    Ok(restore.finish(mapped))
}

/// A text part, written the same way in `ModelMessage`s and `UIMessage`s.
pub(in crate::format::aisdk) fn text_value(text: &TextPart) -> Value {
    Restore::new(&text.extra, NAMESPACE).finish(object([("type", "text".into()), ("text", text.text.as_str().into())]))
}

/// A reasoning part, written the same way in both; `None` when it has no text to write
/// (redacted data only).
pub(in crate::format::aisdk) fn reasoning_value(reasoning: &ReasoningPart) -> Option<Value> {
    // Redacted data goes where a provider package keeps it (see `super::signatures`);
    // with no such field, the part would be empty text.
    let carried = ["providerOptions", "providerMetadata"].iter().any(|k| reasoning.extra.contains_key(*k));
    if reasoning.text.is_empty() && reasoning.redacted_data.is_some() && !carried {
        return None;
    }
    Some(
        Restore::new(&reasoning.extra, NAMESPACE)
            .finish(object([("type", "reasoning".into()), ("text", reasoning.text.as_str().into())])),
    )
}
