//! Native [`Message`]s -> Gemini `contents` (see the module doc of [`super`], section
//! *Writing*).

use super::NAMESPACE;
use crate::format::call_names::CallNames;
use crate::format::data_url;
use crate::format::path::JsonPath;
use crate::format::tool_turns::interleave;
use crate::format::wire::{extend_nested, merge_missing, object, Restore};
use crate::format::FormatError;
use crate::hashing::HashSet;
use crate::message::{Message, Part, ReasoningPart, Role, ToolCallPart, ToolResultPart};
use serde_json::{Map, Value};

/// Writes messages as a Gemini `contents` array. A system message cannot be in it
/// (Gemini takes the system prompt in the request's `systemInstruction`): use
/// [`write_request`] for those, or [`crate::format::write`], which picks the form.
pub fn write(messages: &[Message]) -> Result<Value, FormatError> {
    let root = JsonPath::root();
    if let Some(i) = messages.iter().position(|m| m.role == Role::System) {
        return Err(root.index(i).unwritable(
            "a system message cannot be written in Gemini `contents`: the system prompt is the request's `systemInstruction` (write the request form {systemInstruction, contents} instead)",
        ));
    }
    write_contents(messages, 0, &root).map(Value::Array)
}

/// Writes messages as a Gemini request object `{systemInstruction, contents}`: the
/// leading system messages become `systemInstruction` (left out when there is none), the
/// rest `contents`. A system message after the start cannot be written.
pub fn write_request(messages: &[Message]) -> Result<Value, FormatError> {
    let root = JsonPath::root();
    let lead = messages.iter().take_while(|m| m.role == Role::System).count();
    if let Some(i) = messages.iter().skip(lead).position(|m| m.role == Role::System) {
        return Err(root.index(i.saturating_add(lead)).unwritable(
            "a system message after the start cannot be written to Gemini: its only system prompt is the request's `systemInstruction`, before all contents",
        ));
    }
    let mut request = Map::new();
    if let Some(system) = write_system(messages.get(..lead).unwrap_or_default(), &root)? {
        request.insert("systemInstruction".into(), system);
    }
    let rest = messages.get(lead..).unwrap_or_default();
    request.insert("contents".into(), Value::Array(write_contents(rest, lead, &root)?));
    Ok(Value::Object(request))
}

/// The leading system messages as `systemInstruction`: a string, a part or an array of
/// parts when read from one, else a content of text parts (with the fields of the first
/// message).
fn write_system(messages: &[Message], root: &JsonPath) -> Result<Option<Value>, FormatError> {
    let Some(first) = messages.first() else {
        return Ok(None);
    };
    let mut parts = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let parts_path = root.index(i).key("parts");
        for (j, part) in message.parts.iter().enumerate() {
            let Part::Text(text) = part else {
                return Err(parts_path.index(j).unwritable(format!(
                    "a `{}` part cannot be written to a Gemini `systemInstruction`, which holds text only",
                    part.kind()
                )));
            };
            parts.push((text, part));
        }
    }
    let restore = Restore::new(&first.extra, NAMESPACE);
    let plain = match parts.as_slice() {
        [] => Some(""),
        [(text, _)] if text.extra.is_empty() => Some(text.text.as_str()),
        _ => None,
    };
    let form = restore.marker_str("systemInstruction");
    if let (Some(text), Some("string"), 1) = (plain, form, messages.len()) {
        return Ok(Some(Value::from(text)));
    }
    // A part or an array of parts (the SDK's `PartUnion[]`) as read; a part that gained
    // others is written as the array.
    let part = |text: &crate::message::TextPart| {
        let restore = Restore::new(&text.extra, NAMESPACE);
        if restore.marker_flag("string") && text.extra.len() == 1 {
            return Value::from(text.text.as_str());
        }
        restore.finish(object([("text", text.text.as_str().into())]))
    };
    match (form, parts.as_slice()) {
        (Some("part"), [(text, _)]) => return Ok(Some(part(text))),
        (Some("part" | "parts"), _) => {
            return Ok(Some(Value::Array(parts.iter().map(|(text, _)| part(text)).collect())))
        }
        _ => {}
    }
    let mut mapped = Map::new();
    if let Some(role) = restore.marker("role") {
        mapped.insert("role".into(), role.clone());
    }
    let written = parts
        .iter()
        .map(|(text, _)| Restore::new(&text.extra, NAMESPACE).finish(object([("text", text.text.as_str().into())])))
        .collect();
    mapped.insert("parts".into(), Value::Array(written));
    Ok(Some(restore.finish(mapped)))
}

/// One content being built.
struct WireContent {
    role: Option<Value>,
    parts: Vec<Value>,
    fields: Map<String, Value>,
    /// Built from tool messages: later tool messages, and one user message marked
    /// `mergeWithPrevious`, go into it.
    open: bool,
}

impl WireContent {
    fn into_value(self) -> Value {
        let mut mapped = Map::new();
        if let Some(role) = self.role {
            mapped.insert("role".into(), role);
        }
        mapped.insert("parts".into(), Value::Array(self.parts));
        Value::Object(merge_missing(mapped, self.fields))
    }
}

/// The wire role of a message: its marker (`absent` -> none), else the natural one.
fn wire_role(message: &Message, restore: &Restore<'_>) -> Option<Value> {
    match restore.marker_str("role") {
        Some("absent") => None,
        Some(name @ ("function" | "tool")) if message.role != Role::Assistant => Some(name.into()),
        _ if message.role == Role::Assistant => Some("model".into()),
        _ => Some("user".into()),
    }
}

/// `messages` start at index `offset` of the native chain (for paths).
fn write_contents(messages: &[Message], offset: usize, root: &JsonPath) -> Result<Vec<Value>, FormatError> {
    let mut names = CallNames::new(messages);
    // A result answering a call whose id was made up (a placeholder repair added, a result
    // of another format) has no id on the wire either.
    let made_up: HashSet<&str> =
        messages.iter().flat_map(Message::tool_calls).filter(|c| super::id_made_up(c)).map(|c| c.id.as_str()).collect();
    let mut out: Vec<WireContent> = Vec::new();
    for (k, message) in messages.iter().enumerate() {
        names.visit(message);
        let path = root.index(k.saturating_add(offset));
        let parts_path = path.key("parts");
        let restore = Restore::new(&message.extra, NAMESPACE);
        let role = wire_role(message, &restore);
        let open = out.last_mut().filter(|last| last.open);
        match message.role {
            Role::Tool => {
                if message.parts.is_empty() {
                    return Err(path.unwritable("a tool message without a tool result cannot be written to Gemini"));
                }
                let parts = message
                    .parts
                    .iter()
                    .enumerate()
                    .map(|(j, part)| match part {
                        Part::ToolResult(result) => write_response(&parts_path.index(j), result, &names, &made_up),
                        other => Err(parts_path.index(j).unwritable(format!(
                            "a `{}` part cannot be written in a tool message, which holds tool results",
                            other.kind()
                        ))),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                match open {
                    Some(last) if !restore.marker_flag("newMessage") => {
                        last.parts.extend(parts);
                        let fields = std::mem::take(&mut last.fields);
                        last.fields = merge_missing(fields, restore.into_fields());
                    }
                    _ => out.push(WireContent { role, parts, fields: restore.into_fields(), open: true }),
                }
            }
            Role::User | Role::Assistant => {
                let parts = message
                    .parts
                    .iter()
                    .enumerate()
                    .map(|(j, part)| write_part(&parts_path.index(j), part))
                    .collect::<Result<Vec<_>, _>>()?;
                let parts: Vec<Value> = parts.into_iter().flatten().collect();
                let positions = restore.marker("mergeWithPrevious");
                match (open, positions) {
                    (Some(last), Some(positions)) if message.role == Role::User => {
                        let results = std::mem::take(&mut last.parts);
                        last.parts = interleave(results, parts, positions);
                        let fields = std::mem::take(&mut last.fields);
                        last.fields = merge_missing(fields, restore.into_fields());
                        last.open = false;
                    }
                    // Any other user message after tool results joins their content (turns
                    // alternate), unless it was a content of its own when read.
                    (Some(last), None) if message.role == Role::User && !restore.marker_flag("newMessage") => {
                        last.parts.extend(parts);
                        let fields = std::mem::take(&mut last.fields);
                        last.fields = merge_missing(fields, restore.into_fields());
                        last.open = false;
                    }
                    (open, _) => {
                        if let Some(last) = open {
                            last.open = false;
                        }
                        out.push(WireContent { role, parts, fields: restore.into_fields(), open: false });
                    }
                }
            }
            Role::System => return Err(path.unwritable("a system message cannot be written in Gemini `contents`")),
        }
    }
    Ok(out.into_iter().map(WireContent::into_value).collect())
}

/// One part of a user or model content; `None` for what Gemini cannot carry (redacted
/// reasoning data without text).
fn write_part(path: &JsonPath, part: &Part) -> Result<Option<Value>, FormatError> {
    match part {
        // A native part (code execution, a built-in tool call) goes back as it came.
        Part::Text(text) if crate::format::native_block::of(text, NAMESPACE).is_some() => {
            Ok(crate::format::native_block::of(text, NAMESPACE).cloned())
        }
        Part::Text(text) => {
            let restore = Restore::new(&text.extra, NAMESPACE);
            let mut mapped = object([("text", text.text.as_str().into())]);
            insert_signature(&mut mapped, &restore);
            Ok(Some(restore.finish(mapped)))
        }
        Part::Reasoning(reasoning) => Ok(write_reasoning(reasoning)),
        Part::Image(image) => {
            write_media(path, &image.extra, &image.url, &image.data, &image.media_type, &None).map(Some)
        }
        Part::File(file) => write_media(path, &file.extra, &file.url, &file.data, &file.media_type, &file.name).map(Some),
        Part::ToolCall(call) => write_call(path, call).map(Some),
        Part::ToolResult(_) => Err(path.unwritable(
            "a `toolResult` part cannot be written to Gemini outside a tool message (tool results belong in tool messages)",
        )),
    }
}

fn insert_signature(mapped: &mut Map<String, Value>, restore: &Restore<'_>) {
    if let Some(signature) = restore.marker("thoughtSignature") {
        mapped.insert("thoughtSignature".into(), signature.clone());
    }
}

/// `{text, thought: true, thoughtSignature?}` (without `thought` or `text` where the
/// markers say so); redacted data alone has no Gemini form.
fn write_reasoning(reasoning: &ReasoningPart) -> Option<Value> {
    if reasoning.redacted_data.is_some() && reasoning.text.is_empty() && reasoning.signature.is_none() {
        return None;
    }
    let restore = Restore::new(&reasoning.extra, NAMESPACE);
    let mut mapped = Map::new();
    if !(restore.marker_str("text") == Some("absent") && reasoning.text.is_empty()) {
        mapped.insert("text".into(), reasoning.text.as_str().into());
    }
    if restore.marker("thought") != Some(&Value::Bool(false)) {
        mapped.insert("thought".into(), Value::Bool(true));
    }
    if let Some(signature) = &reasoning.signature {
        mapped.insert("thoughtSignature".into(), signature.as_str().into());
    }
    Some(restore.finish(mapped))
}

/// `{inlineData: {mimeType, data}}` for data (or a `data:` URL), `{fileData: {mimeType?,
/// fileUri}}` for a URL; a file name is the `displayName`.
fn write_media(
    path: &JsonPath,
    extra: &crate::message::Extra,
    url: &Option<String>,
    data: &Option<String>,
    media_type: &Option<String>,
    name: &Option<String>,
) -> Result<Value, FormatError> {
    let restore = Restore::new(extra, NAMESPACE);
    let split = match (data, url) {
        (None, Some(url)) if !restore.marker_flag("uri") => data_url::split(url),
        _ => None,
    };
    let (kind, mut nested) = match (data, url, &split) {
        (Some(_), Some(_), _) => {
            return Err(path.unwritable("an image or file with both a URL and data cannot be written to Gemini"))
        }
        (Some(data), None, _) => {
            // Gemini requires the media type; [`crate::convert`] drops media
            // without one, the writer keeps what it was given.
            let mut nested = Map::new();
            if let Some(media_type) = media_type {
                nested.insert("mimeType".into(), media_type.as_str().into());
            }
            nested.insert("data".into(), data.as_str().into());
            ("inlineData", nested)
        }
        (None, Some(_), Some(split)) => {
            ("inlineData", object([("mimeType", split.media_type.into()), ("data", split.data.into())]))
        }
        (None, Some(url), None) => {
            let mut nested = Map::new();
            if let Some(media_type) = media_type {
                nested.insert("mimeType".into(), media_type.as_str().into());
            }
            nested.insert("fileUri".into(), url.as_str().into());
            ("fileData", nested)
        }
        (None, None, _) => {
            return Err(path.unwritable("an image or file without a URL or data cannot be written to Gemini"))
        }
    };
    if let Some(name) = name {
        nested.insert("displayName".into(), name.as_str().into());
    }
    extend_nested(&mut nested, restore.marker_object(kind));
    let mut mapped = object([(kind, Value::Object(nested))]);
    insert_signature(&mut mapped, &restore);
    Ok(restore.finish(mapped))
}

/// `{functionCall: {id?, name, args}, thoughtSignature?}`: `args` is the arguments read as
/// JSON (`{}` when empty), or the original the reader kept; a made-up id is not written.
fn write_call(path: &JsonPath, call: &ToolCallPart) -> Result<Value, FormatError> {
    let restore = Restore::new(&call.extra, NAMESPACE);
    let mut nested = Map::new();
    if !restore.marker_flag("idGenerated") {
        nested.insert("id".into(), call.id.as_str().into());
    }
    nested.insert("name".into(), call.name.as_str().into());
    let kept = restore.marker("args").filter(|args| {
        args.is_object() && serde_json::to_string(args).ok().as_deref() == Some(call.arguments.as_str())
    });
    let absent = restore.marker_str("args") == Some("absent") && matches!(call.arguments.trim(), "" | "{}");
    if !absent {
        let args = match kept {
            Some(args) => args.clone(),
            None if call.arguments.trim().is_empty() => Value::Object(Map::new()),
            None => serde_json::from_str(&call.arguments).map_err(|e| {
                path.key("arguments").unwritable(format!(
                    "tool call arguments must be JSON to be written as Gemini `functionCall.args`: {e}"
                ))
            })?,
        };
        if !args.is_object() {
            return Err(path
                .key("arguments")
                .unwritable("tool call arguments must be a JSON object to be written as Gemini `functionCall.args`"));
        }
        nested.insert("args".into(), args);
    }
    extend_nested(&mut nested, restore.marker_object("functionCall"));
    let mut mapped = object([("functionCall", Value::Object(nested))]);
    if let Some(signature) = &call.signature {
        mapped.insert("thoughtSignature".into(), signature.as_str().into());
    }
    Ok(restore.finish(mapped))
}

/// `{functionResponse: {id?, name, response, parts?}}`: no id where it was made up, for
/// the result or for the call it answers.
fn write_response(
    path: &JsonPath,
    result: &ToolResultPart,
    names: &CallNames<'_>,
    made_up: &HashSet<&str>,
) -> Result<Value, FormatError> {
    let restore = Restore::new(&result.extra, NAMESPACE);
    let name = names.of_result(result, path, "Gemini (a functionResponse needs the function name)")?;
    let mut texts = Vec::new();
    let mut media = Vec::new();
    let content_path = path.key("content");
    for (k, part) in result.content.iter().enumerate() {
        match part {
            Part::Text(text) => texts.push(text.text.as_str()),
            Part::Image(image) => media.push(write_media(
                &content_path.index(k),
                &image.extra,
                &image.url,
                &image.data,
                &image.media_type,
                &None,
            )?),
            Part::File(file) => media.push(write_media(
                &content_path.index(k),
                &file.extra,
                &file.url,
                &file.data,
                &file.media_type,
                &file.name,
            )?),
            other => {
                return Err(content_path
                    .index(k)
                    .unwritable(format!("a `{}` part cannot be written in a Gemini functionResponse", other.kind())))
            }
        }
    }
    let mut nested = Map::new();
    if !restore.marker_flag("idGenerated") && !made_up.contains(result.call_id.as_str()) {
        nested.insert("id".into(), result.call_id.as_str().into());
    }
    nested.insert("name".into(), name.into());
    if let Some(response) = response_value(&restore, &texts, result.is_error) {
        nested.insert("response".into(), response);
    }
    if !media.is_empty() {
        nested.insert("parts".into(), Value::Array(media));
    }
    extend_nested(&mut nested, restore.marker_object("functionResponse"));
    let mut mapped = object([("functionResponse", Value::Object(nested))]);
    insert_signature(&mut mapped, &restore);
    Ok(restore.finish(mapped))
}

/// The `response` object: the original JSON where the reader kept it as text, else
/// `{output}` / `{error}` with the text, `{}` for none.
fn response_value(restore: &Restore<'_>, texts: &[&str], is_error: bool) -> Option<Value> {
    let text = texts.join("\n");
    match restore.marker_str("response") {
        Some("absent") if texts.is_empty() && !is_error => return None,
        Some("json") if !is_error => {
            let kept = restore
                .marker("responseValue")
                .filter(|v| serde_json::to_string(v).ok().as_deref() == Some(text.as_str()));
            if let Some(kept) = kept {
                return Some(kept.clone());
            }
            if let Ok(value @ Value::Object(_)) = serde_json::from_str::<Value>(&text) {
                return Some(value);
            }
        }
        _ => {}
    }
    if texts.is_empty() && !is_error {
        return Some(Value::Object(Map::new()));
    }
    let key = if is_error { "error" } else { "output" };
    Some(Value::Object(object([(key, Value::from(text))])))
}
