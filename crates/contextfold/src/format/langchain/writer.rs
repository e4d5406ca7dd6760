//! Native [`Message`]s -> serialized LangChain messages (see the module doc of [`super`]).

use super::{natural_shape, NAMESPACE};
use crate::format::content_shape::ContentShape;
use crate::format::native_block;
use crate::format::path::JsonPath;
use crate::format::wire::{object, Restore};
use crate::format::FormatError;
use crate::message::{Message, Part, Role, ToolCallPart};
use serde_json::{Map, Value};

/// Writes messages as an array of serialized LangChain messages.
pub fn write(messages: &[Message]) -> Result<Value, FormatError> {
    let root = JsonPath::root();
    let mut out = Vec::with_capacity(messages.len());
    // Messages without a form (a summary, a converted message) take the chain's: `load`
    // revives a JS `toJSON()` list only when every message is in that form.
    let js = messages.iter().any(|m| Restore::new(&m.extra, NAMESPACE).marker_str("form") == Some("constructor"));
    for (i, message) in messages.iter().enumerate() {
        let path = root.index(i);
        let parts_path = path.key("parts");
        if message.role == Role::Tool {
            if message.parts.is_empty() {
                return Err(path.unwritable("a tool message without a tool result cannot be written to LangChain"));
            }
            for (j, part) in message.parts.iter().enumerate() {
                let Part::ToolResult(result) = part else {
                    return Err(parts_path.index(j).unwritable(format!(
                        "a `{}` part cannot be written in a LangChain tool message, which holds one result",
                        part.kind()
                    )));
                };
                let restore = Restore::new(&message.extra, NAMESPACE);
                let content_path = parts_path.index(j).key("content");
                let refs: Vec<&Part> = result.content.iter().collect();
                let mut mapped = Map::new();
                mapped.insert(content_key(&restore).into(), content_value(&refs, &restore, &content_path)?);
                mapped.insert("tool_call_id".into(), result.call_id.as_str().into());
                if let Some(name) = &result.name {
                    mapped.insert("name".into(), name.as_str().into());
                }
                if result.is_error {
                    mapped.insert("status".into(), "error".into());
                }
                out.push(envelope(Role::Tool, restore, mapped, js));
            }
            continue;
        }
        let restore = Restore::new(&message.extra, NAMESPACE);
        // The message's Responses reasoning item goes in `additional_kwargs`, its display
        // block (if any) in the content at its place.
        let item = (message.role == Role::Assistant).then(|| super::responses_item::write(&message.parts)).flatten();
        let mut content = Vec::new();
        let mut calls = Vec::new();
        let mut call_blocks = Vec::new();
        for (j, part) in message.parts.iter().enumerate() {
            if let Some((at, _, block)) = &item {
                if *at == j {
                    content.extend(block.as_ref());
                    continue;
                }
            }
            match part {
                Part::ToolCall(call) if message.role == Role::Assistant => {
                    let written = write_call(&parts_path.index(j), call)?;
                    call_blocks.extend(call_block(call, &written));
                    calls.push(written);
                }
                Part::ToolCall(_) | Part::ToolResult(_) => {
                    return Err(parts_path.index(j).unwritable(format!(
                        "a `{}` part cannot be written in a LangChain {} message",
                        part.kind(),
                        message.role.as_str()
                    )))
                }
                Part::Reasoning(r)
                    if r.text.is_empty()
                        && r.signature.is_none()
                        && r.redacted_data.is_none()
                        && Restore::new(&r.extra, NAMESPACE).marker("type").is_none() => {}
                other => content.push(other),
            }
        }
        let mut mapped = Map::new();
        let mut content = content_value(&content, &restore, &parts_path)?;
        if !call_blocks.is_empty() {
            insert_call_blocks(&mut content, call_blocks);
        }
        mapped.insert(content_key(&restore).into(), content);
        if !calls.is_empty() {
            mapped.insert("tool_calls".into(), Value::Array(calls));
        }
        if let Some((_, item, _)) = item {
            let kwargs = super::responses_item::kwargs_with(&message.extra, item);
            mapped.insert(super::responses_item::KWARGS_KEY.into(), kwargs);
        }
        if let Some(metadata) = super::replay::stale_metadata(message) {
            mapped.insert("response_metadata".into(), metadata);
        }
        out.push(envelope(message.role, restore, mapped, js));
    }
    Ok(Value::Array(out))
}

/// The field the content goes in: `content`, or the one it was read from.
fn content_key<'r>(restore: &Restore<'r>) -> &'r str {
    restore.marker_str(super::CONTENT_KEY).unwrap_or("content")
}

/// `{type, data}` or, marked (or unmarked in a chain of the JS form, `js`), `{lc, type:
/// "constructor", id, kwargs}`.
fn envelope(role: Role, restore: Restore<'_>, mapped: Map<String, Value>, js: bool) -> Value {
    let form = restore.marker_str("form").or(js.then_some("constructor"));
    let kind = restore.marker("type").cloned();
    let lc = restore.marker("lc").cloned();
    let id = restore.marker("id").cloned();
    let outer = restore.marker_object("outer").cloned();
    let inner = restore.finish(mapped);
    let mut wrapper = if form == Some("constructor") {
        let class = match role {
            Role::System => "SystemMessage",
            Role::User => "HumanMessage",
            Role::Assistant => "AIMessage",
            Role::Tool => "ToolMessage",
        };
        // The class read, unless it is another role's (a system message the repair made a
        // user message is a HumanMessage now).
        let other_role = |id: &Value| {
            let read = id.as_array().and_then(|path| path.last()).and_then(Value::as_str).unwrap_or_default();
            let read = read.strip_suffix("Chunk").unwrap_or(read);
            ["SystemMessage", "HumanMessage", "AIMessage", "ToolMessage"].contains(&read) && read != class
        };
        let id =
            id.filter(|id| !other_role(id)).unwrap_or_else(|| Value::from(vec!["langchain_core", "messages", class]));
        object([("lc", lc.unwrap_or(Value::from(1))), ("type", "constructor".into()), ("id", id), ("kwargs", inner)])
    } else {
        let natural = match role {
            Role::System => "system",
            Role::User => "human",
            Role::Assistant => "ai",
            Role::Tool => "tool",
        };
        object([("type", kind.unwrap_or(Value::from(natural))), ("data", inner)])
    };
    for (k, v) in outer.into_iter().flatten() {
        wrapper.entry(k).or_insert(v);
    }
    Value::Object(wrapper)
}

fn content_value(parts: &[&Part], restore: &Restore<'_>, path: &JsonPath) -> Result<Value, FormatError> {
    let owned: Vec<Part> = parts.iter().map(|p| (*p).clone()).collect();
    let shape = ContentShape::restore(restore.marker("content"), natural_shape(&owned), &owned);
    match (shape, parts.first()) {
        (ContentShape::String, Some(Part::Text(t))) => return Ok(Value::from(t.text.as_str())),
        (ContentShape::String, _) => return Ok(Value::from("")),
        _ => {}
    }
    parts
        .iter()
        .enumerate()
        .map(|(j, part)| write_block(&path.index(j), part))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

fn write_block(path: &JsonPath, part: &Part) -> Result<Value, FormatError> {
    match part {
        Part::Text(text) => match native_block::of(text, NAMESPACE) {
            Some(block) => Ok(block.clone()),
            None => Ok(Restore::new(&text.extra, NAMESPACE)
                .finish(object([("type", "text".into()), ("text", text.text.as_str().into())]))),
        },
        Part::Reasoning(reasoning) if reasoning.redacted_data.is_some() => {
            let data = reasoning.redacted_data.as_deref().unwrap_or_default();
            let restore = Restore::new(&reasoning.extra, NAMESPACE);
            Ok(restore.finish(object([("type", "redacted_thinking".into()), ("data", data.into())])))
        }
        Part::Reasoning(reasoning) => {
            let restore = Restore::new(&reasoning.extra, NAMESPACE);
            // A v1 standard block, or Anthropic's (what `@langchain/anthropic` sends).
            let v1 =
                restore.marker_str("type") == Some("reasoning") || super::responses_item::is_item(&reasoning.extra);
            let kind = if v1 { "reasoning" } else { "thinking" };
            let mut mapped = object([("type", kind.into()), (kind, reasoning.text.as_str().into())]);
            if let Some(signature) = &reasoning.signature {
                mapped.insert("signature".into(), signature.as_str().into());
            }
            Ok(restore.finish(mapped))
        }
        Part::Image(image) if Restore::new(&image.extra, NAMESPACE).marker_str("type").is_some() => {
            v1_media(path, "an image", (&image.url, &image.data, &image.media_type), &image.extra)
        }
        Part::File(file) if Restore::new(&file.extra, NAMESPACE).marker_str("type").is_some() => {
            v1_media(path, "a file", (&file.url, &file.data, &file.media_type), &file.extra)
        }
        Part::Image(image) => {
            let restore = Restore::new(&image.extra, NAMESPACE);
            let url = match (&image.url, &image.data, &image.media_type) {
                (Some(url), None, _) => url.clone(),
                (None, Some(data), Some(media_type)) => format!("data:{media_type};base64,{data}"),
                _ => {
                    return Err(
                        path.unwritable("an image needs a URL, or data with a media type, to be written to LangChain")
                    )
                }
            };
            let value = if restore.marker_str("imageUrl") == Some("string") {
                Value::from(url)
            } else {
                let mut nested = object([("url", Value::from(url))]);
                crate::format::wire::extend_nested(&mut nested, restore.marker_object("image_url"));
                Value::Object(nested)
            };
            Ok(restore.finish(object([("type", "image_url".into()), ("image_url", value)])))
        }
        other => Err(path.unwritable(format!("a `{}` part cannot be written in LangChain content", other.kind()))),
    }
}

/// A LangChain v1 standard media block, of the type it was read as: `{type, url}` or
/// `{type, data, mimeType}`.
fn v1_media(
    path: &JsonPath,
    what: &str,
    (url, data, media_type): (&Option<String>, &Option<String>, &Option<String>),
    extra: &crate::message::Extra,
) -> Result<Value, FormatError> {
    let restore = Restore::new(extra, NAMESPACE);
    let kind = restore.marker_str("type").unwrap_or("file");
    let mut mapped = object([("type", kind.into())]);
    // Inline data read from a `data:` URL: that URL again, with the block's own `mimeType`.
    if let (Some("data"), None, Some(data), Some(media_type)) = (restore.marker_str("url"), url, data, media_type) {
        mapped.insert("url".into(), format!("data:{media_type};base64,{data}").into());
        if let Some(mime) = restore.marker("mimeType") {
            mapped.insert("mimeType".into(), mime.clone());
        }
        return Ok(restore.finish(mapped));
    }
    match (url, data) {
        (Some(url), _) => mapped.insert("url".into(), url.as_str().into()),
        (None, Some(data)) => mapped.insert("data".into(), data.as_str().into()),
        (None, None) => return Err(path.unwritable(format!("{what} needs a URL or data to be written to LangChain"))),
    };
    if let Some(media_type) = media_type {
        mapped.insert("mimeType".into(), media_type.as_str().into());
    }
    Ok(restore.finish(mapped))
}

/// The content block a call was read with (a `tool_use` or v1 `tool_call` block beside
/// `tool_calls`) and its index in the content, its id, name and arguments those of the
/// call as written (`written`), unless the block had its own.
fn call_block(call: &ToolCallPart, written: &Value) -> Option<(usize, Value)> {
    let restore = Restore::new(&call.extra, NAMESPACE);
    let mut block = restore.marker("contentBlock")?.clone();
    let at = restore.marker("contentAt").and_then(Value::as_u64).and_then(|at| usize::try_from(at).ok())?;
    let args_key = super::call_block_args_key(&block);
    if let (false, Value::Object(fields)) = (restore.marker_flag("contentOwn"), &mut block) {
        for (key, from) in [("id", "id"), ("name", "name"), (args_key, "args")] {
            if let (Some(field), Some(value)) = (fields.get_mut(key), written.get(from)) {
                field.clone_from(value);
            }
        }
    }
    Some((at, block))
}

/// Puts the calls' blocks back in the content at the indices they were read at (the
/// content an array then, as it was read).
fn insert_call_blocks(content: &mut Value, mut blocks: Vec<(usize, Value)>) {
    let items = match std::mem::take(content) {
        Value::Array(items) => items,
        Value::String(text) if text.is_empty() => Vec::new(),
        Value::String(text) => vec![Value::Object(object([("type", "text".into()), ("text", text.into())]))],
        _ => Vec::new(),
    };
    let mut items = items;
    blocks.sort_by_key(|(at, _)| *at);
    for (at, block) in blocks {
        items.insert(at.min(items.len()), block);
    }
    *content = Value::Array(items);
}

/// `{name, args, id}` plus the fields the reader kept (`type: "tool_call"`).
fn write_call(path: &JsonPath, call: &ToolCallPart) -> Result<Value, FormatError> {
    let restore = Restore::new(&call.extra, NAMESPACE);
    let kept =
        restore.marker("args").filter(|a| serde_json::to_string(a).ok().as_deref() == Some(call.arguments.as_str()));
    let args = match kept {
        Some(args) => args.clone(),
        None if call.arguments.trim().is_empty() => Value::Object(Map::new()),
        None => match serde_json::from_str::<Value>(&call.arguments) {
            Ok(args @ Value::Object(_)) => args,
            _ => {
                return Err(path
                    .key("arguments")
                    .unwritable("tool call arguments must be a JSON object to be written as LangChain `args`"))
            }
        },
    };
    Ok(restore.finish(object([("name", call.name.as_str().into()), ("args", args), ("id", call.id.as_str().into())])))
}
