//! Gemini parts -> native parts (see the module doc of [`super`]).

use super::{made_up_id, NAMESPACE};
use crate::format::fields::{json_kind, native_keys, Markers, WireObject};
use crate::format::path::JsonPath;
use crate::format::FormatError;
use crate::json_node::{Node, Object};
use crate::message::{FilePart, ImagePart, Part, TextPart, ToolCallPart, ToolResultPart};
use serde_json::Value;

/// The fields that say what a part holds; a part holds one of them.
const DATA_FIELDS: &[&str] = &["text", "inlineData", "fileData", "functionCall", "functionResponse"];
/// Gemini's server-side parts (code execution, built-in tool calls), kept verbatim as
/// native blocks ([`crate::format::native_block`]).
const NATIVE: &[&str] = &["executableCode", "codeExecutionResult", "toolCall", "toolResponse", "audioTranscription"];
/// Fields that say how to read a part, not what it holds. A part with any other field
/// unknown here holds something of a kind added later: kept verbatim too.
const METADATA_FIELDS: &[&str] = &[
    "thought",
    "thoughtSignature",
    "partMetadata",
    "videoMetadata",
    "mediaResolution",
    "mediaProcessing",
    "speechMetadata",
];

/// What a summarizer reads of a native part.
fn render(kind: &str, value: &Value) -> String {
    let s = |key: &str| value.get(key).and_then(Value::as_str).unwrap_or_default();
    let body = match kind {
        "executableCode" => {
            format!("[code ({}): {}]", s("language"), crate::format::native_block::short(s("code"), 600))
        }
        "codeExecutionResult" => {
            format!("[code result ({}): {}]", s("outcome"), crate::format::native_block::short(s("output"), 600))
        }
        "audioTranscription" => {
            format!("[audio transcription: {}]", crate::format::native_block::short(s("text"), 600))
        }
        _ => format!("[{kind}: {}]", crate::format::native_block::short(&value.to_string(), 600)),
    };
    body
}

/// Function calls of the latest model turn that no response answered yet, for
/// responses without an id.
#[derive(Debug, Default)]
pub(super) struct Ids {
    pending: Vec<(String, String)>,
}

impl Ids {
    /// A model turn starts: older calls no longer take id-less responses.
    pub(super) fn new_turn(&mut self) {
        self.pending.clear();
    }

    fn called(&mut self, name: &str, id: &str) {
        self.pending.push((name.to_string(), id.to_string()));
    }

    /// Marks the call `id` answered.
    fn answered(&mut self, id: &str) {
        self.pending.retain(|(_, pending)| pending != id);
    }

    /// The id of the first unanswered call of `name`, now answered.
    fn answer_by_name(&mut self, name: &str) -> Option<String> {
        let at = self.pending.iter().position(|(n, _)| n == name)?;
        Some(self.pending.remove(at).1)
    }
}

/// Part fields in their proto (snake_case) spelling, with their JSON names: read as
/// fields of a part of a kind added later, a call or response would be kept verbatim and
/// never paired, so they are refused with a typed error instead.
const PROTO_FIELDS: [(&str, &str); 8] = [
    ("function_call", "functionCall"),
    ("function_response", "functionResponse"),
    ("inline_data", "inlineData"),
    ("file_data", "fileData"),
    ("thought_signature", "thoughtSignature"),
    ("executable_code", "executableCode"),
    ("code_execution_result", "codeExecutionResult"),
    ("video_metadata", "videoMetadata"),
];
/// The same inside `inlineData` / `fileData`.
const PROTO_MEDIA_FIELDS: [(&str, &str); 3] =
    [("mime_type", "mimeType"), ("file_uri", "fileUri"), ("display_name", "displayName")];

/// A typed error at the first proto-spelled field of a part (see [`PROTO_FIELDS`]).
fn refuse_proto_names(obj: &WireObject<'_>) -> Result<(), FormatError> {
    if let Some((proto, json)) = PROTO_FIELDS.iter().find(|(proto, _)| obj.peek(proto).is_some()) {
        return Err(obj.field_path(proto).shape_error(super::proto_name_message(proto, json)));
    }
    for kind in ["inlineData", "fileData"] {
        let Some(Node::Object(nested)) = obj.peek(kind) else { continue };
        if let Some((proto, json)) = PROTO_MEDIA_FIELDS.iter().find(|(proto, _)| nested.contains_key(proto)) {
            return Err(obj.field_path(kind).key(proto).shape_error(super::proto_name_message(proto, json)));
        }
    }
    Ok(())
}

/// Reads one part; `position` is (content index, part index), the seed of made-up ids.
pub(super) fn read_part(
    item: &Node<'_>,
    path: JsonPath,
    ids: &mut Ids,
    position: (usize, usize),
) -> Result<Part, FormatError> {
    let mut obj = WireObject::new(item, path, "a part")?;
    refuse_proto_names(&obj)?;
    let present: Vec<&str> =
        DATA_FIELDS.iter().copied().filter(|k| obj.peek(k).is_some_and(|v| !v.is_null())).collect();
    if let [first, second, ..] = present.as_slice() {
        return Err(obj
            .field_path(second)
            .shape_error(format!("a Gemini part holds one kind of data, found both `{first}` and `{second}`")));
    }
    let signature = obj.string("thoughtSignature")?.map(str::to_string);
    let mut markers = Markers::default();
    match present.first().copied() {
        Some("text") => text_part(obj, signature, markers),
        Some(kind @ ("inlineData" | "fileData")) => {
            if let Some(signature) = signature {
                markers.set("thoughtSignature", signature);
            }
            media_part(obj, kind, markers)
        }
        Some("functionCall") => function_call(obj, signature, ids, position),
        Some(_) => {
            if let Some(signature) = signature {
                markers.set("thoughtSignature", signature);
            }
            function_response(obj, ids, position, markers)
        }
        None => {
            let other = || item.as_object()?.iter().map(|(k, _)| k).find(|k| !METADATA_FIELDS.contains(k));
            if let Some(kind) = NATIVE.iter().copied().find(|k| obj.peek(k).is_some()).or_else(other) {
                let inner = obj.peek(kind).map(Node::to_value).unwrap_or_default();
                return Ok(crate::format::native_block::part(&item.to_value(), NAMESPACE, render(kind, &inner)));
            }
            let thought = obj.flag("thought")?;
            if signature.is_none() && !thought {
                return Err(obj.field_path("text").shape_error(
                    "a Gemini part needs one of `text`, `inlineData`, `fileData`, `functionCall`, `functionResponse` (or a `thoughtSignature`)",
                ));
            }
            if !thought {
                markers.set("thought", false);
            }
            markers.set("text", "absent");
            Ok(reasoning(String::new(), signature, obj, markers))
        }
    }
}

fn reasoning(text: String, signature: Option<String>, obj: WireObject<'_>, markers: Markers) -> Part {
    obj.into_reasoning(text, signature, NAMESPACE, markers)
}

/// `{text, thought?, thoughtSignature?}`: reasoning when flagged `thought` or when only a
/// signature rides on an empty text, text otherwise.
fn text_part(mut obj: WireObject<'_>, signature: Option<String>, mut markers: Markers) -> Result<Part, FormatError> {
    let text = obj.required_string("text")?.to_string();
    if obj.flag("thought")? {
        return Ok(reasoning(text, signature, obj, markers));
    }
    if text.is_empty() && signature.is_some() {
        markers.set("thought", false);
        return Ok(reasoning(text, signature, obj, markers));
    }
    if let Some(signature) = signature {
        markers.set("thoughtSignature", signature);
    }
    Ok(Part::Text(TextPart { text, extra: obj.into_extra(native_keys::TEXT, NAMESPACE, markers) }))
}

/// `inlineData {mimeType, data}` or `fileData {mimeType?, fileUri}`: an image for an
/// `image/*` media type, a file otherwise.
fn media_part(mut obj: WireObject<'_>, kind: &str, mut markers: Markers) -> Result<Part, FormatError> {
    let what = if kind == "inlineData" { "an inlineData object" } else { "a fileData object" };
    let mut nested = obj.required_object(kind, what)?;
    let owned = |s: Option<&str>| s.map(str::to_string);
    let media_type = owned(nested.string("mimeType")?);
    let (url, data) = if kind == "inlineData" {
        (None, Some(nested.required_string("data")?.to_string()))
    } else {
        let uri = nested.required_string("fileUri")?;
        if uri.starts_with("data:") {
            markers.set("uri", true);
        }
        (Some(uri.to_string()), None)
    };
    let is_image = media_type.as_deref().is_some_and(|m| m.starts_with("image/"));
    let name = if is_image { None } else { owned(nested.string("displayName")?) };
    markers.nested_leftovers(kind, &nested);
    if is_image {
        return Ok(Part::Image(ImagePart {
            url,
            data,
            media_type,
            extra: obj.into_extra(native_keys::IMAGE, NAMESPACE, markers),
        }));
    }
    Ok(Part::File(FilePart {
        url,
        data,
        media_type,
        name,
        extra: obj.into_extra(native_keys::FILE, NAMESPACE, markers),
    }))
}

/// `{functionCall: {id?, name, args?}, thoughtSignature?}`.
fn function_call(
    mut obj: WireObject<'_>,
    signature: Option<String>,
    ids: &mut Ids,
    position: (usize, usize),
) -> Result<Part, FormatError> {
    let mut markers = Markers::default();
    let mut call = obj.required_object("functionCall", "a functionCall object")?;
    let name = call.required_string("name")?.to_string();
    let id = match call.nonempty_string("id")? {
        Some(id) => id.to_string(),
        None => {
            markers.set("idGenerated", true);
            made_up_id(&name, position)
        }
    };
    let args_path = call.field_path("args");
    let arguments = match call.take("args") {
        None => {
            markers.set("args", "absent");
            "{}".to_string()
        }
        Some(args) => {
            let text = serde_json::to_string(args).map_err(|e| args_path.shape_error(e.to_string()))?;
            let args = args.to_value();
            if serde_json::from_str::<Value>(&text).ok().as_ref() != Some(&args) {
                markers.set("args", args);
            }
            text
        }
    };
    markers.nested_leftovers("functionCall", &call);
    ids.called(&name, &id);
    Ok(Part::ToolCall(ToolCallPart {
        id,
        name,
        arguments,
        signature,
        extra: obj.into_extra(native_keys::TOOL_CALL, NAMESPACE, markers),
    }))
}

/// `{functionResponse: {id?, name, response?, parts?}}`.
fn function_response(
    mut obj: WireObject<'_>,
    ids: &mut Ids,
    position: (usize, usize),
    mut markers: Markers,
) -> Result<Part, FormatError> {
    let mut response = obj.required_object("functionResponse", "a functionResponse object")?;
    let name = response.required_string("name")?.to_string();
    let call_id = match response.nonempty_string("id")? {
        Some(id) => {
            ids.answered(id);
            id.to_string()
        }
        None => {
            markers.set("idGenerated", true);
            ids.answer_by_name(&name).unwrap_or_else(|| made_up_id(&name, position))
        }
    };
    let value_path = response.field_path("response");
    let (mut content, is_error) = match response.take("response") {
        None => {
            markers.set("response", "absent");
            (Vec::new(), false)
        }
        Some(Node::Object(map)) => response_content(map, &mut markers),
        Some(other) => {
            return Err(value_path.shape_error(format!("`response` must be an object, found {}", json_kind(other))))
        }
    };
    let parts_path = response.field_path("parts");
    if let Some(items) = response.nonempty_array("parts")? {
        let mut inner = Ids::default();
        for (k, item) in items.iter().enumerate() {
            let item_path = parts_path.index(k);
            let part = read_part(item, item_path.clone(), &mut inner, position)?;
            if !matches!(part, Part::Image(_) | Part::File(_)) {
                return Err(item_path.shape_error(format!(
                    "a `{}` part cannot be in a functionResponse's `parts`, which holds media",
                    part.kind()
                )));
            }
            content.push(part);
        }
    }
    markers.nested_leftovers("functionResponse", &response);
    Ok(Part::ToolResult(ToolResultPart {
        call_id,
        name: Some(name),
        content,
        is_error,
        extra: obj.into_extra(native_keys::TOOL_RESULT, NAMESPACE, markers),
    }))
}

/// `{output: text}` -> the text, `{error: text}` -> the text and the error flag, `{}` ->
/// nothing, anything else -> its compact JSON as text.
fn response_content(map: &Object<'_>, markers: &mut Markers) -> (Vec<Part>, bool) {
    let mut entries = map.iter();
    match (entries.next(), entries.next()) {
        (None, _) => return (Vec::new(), false),
        (Some(("output", Node::String(text))), None) => return (vec![Part::text(text.as_ref())], false),
        (Some(("error", Node::String(text))), None) => return (vec![Part::text(text.as_ref())], true),
        _ => {}
    }
    let value = Value::Object(map.to_map());
    let text = serde_json::to_string(&value).unwrap_or_default();
    markers.set("response", "json");
    if serde_json::from_str::<Value>(&text).ok().as_ref() != Some(&value) {
        markers.set("responseValue", value);
    }
    (vec![Part::text(text)], false)
}
