//! Content parts of Responses messages and tool outputs: `input_text` / `output_text` /
//! `refusal` -> text, `input_image` -> image, `input_file` -> file; a part that maps to
//! no native part (an image or file by `file_id` only, audio, a type added later) is kept
//! verbatim as a native block.

use super::{native, NAMESPACE};
use crate::format::content_shape::ContentShape;
use crate::format::data_url;
use crate::format::fields::{json_kind, native_keys, Markers, WireObject};
use crate::format::native_block;
use crate::format::path::JsonPath;
use crate::format::wire::{object, Restore};
use crate::format::FormatError;
use crate::json_node::Node;
use crate::message::{FilePart, ImagePart, Part, TextPart};
use serde_json::{Map, Value};

/// Who a content list belongs to: each side has its own text part type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    /// User, system and developer messages, and tool outputs: `input_text`.
    Input,
    /// Assistant messages: `output_text`.
    Output,
}

impl Side {
    fn text_type(self) -> &'static str {
        match self {
            Side::Input => "input_text",
            Side::Output => "output_text",
        }
    }
}

/// A string or an array of parts; the shape is returned for the caller's marker.
pub(super) fn read_content(
    value: &Node<'_>,
    path: &JsonPath,
    side: Side,
    field: &str,
) -> Result<(Vec<Part>, ContentShape), FormatError> {
    match value {
        Node::String(text) if text.is_empty() => Ok((Vec::new(), ContentShape::String)),
        Node::String(text) => Ok((vec![Part::text(text.as_ref())], ContentShape::String)),
        Node::Array(items) => {
            let parts = items
                .iter()
                .enumerate()
                .map(|(j, item)| read_part(item, path.index(j), side))
                .collect::<Result<_, _>>()?;
            Ok((parts, ContentShape::Array))
        }
        other => {
            Err(path
                .shape_error(format!("`{field}` must be a string or an array of parts, found {}", json_kind(other))))
        }
    }
}

fn read_part(item: &Node<'_>, path: JsonPath, side: Side) -> Result<Part, FormatError> {
    let mut obj = WireObject::new(item, path, "a content part")?;
    let part_type = obj.required_string("type")?;
    let mut markers = Markers::default();
    match part_type {
        "input_text" | "output_text" => {
            if part_type != side.text_type() {
                markers.set("type", part_type);
            }
            if part_type == "output_text" && obj.peek("annotations").is_none() {
                markers.set("annotations", "absent");
            }
            text_part(obj, "text", markers)
        }
        "refusal" => {
            markers.set("type", "refusal");
            text_part(obj, "refusal", markers)
        }
        "input_image" if obj.peek("image_url").is_some_and(Node::is_string) => image_part(obj),
        "input_file" if has_file_source(&obj) => file_part(obj),
        other => Ok(native::content_part(&item.to_value(), other)),
    }
}

fn text_part(mut obj: WireObject<'_>, field: &str, markers: Markers) -> Result<Part, FormatError> {
    let text = obj.required_string(field)?.to_string();
    Ok(Part::Text(TextPart { text, extra: obj.into_extra(native_keys::TEXT, NAMESPACE, markers) }))
}

/// `image_url`: a URL, or a `data:` URL split into media type and data.
fn image_part(mut obj: WireObject<'_>) -> Result<Part, FormatError> {
    let mut markers = Markers::default();
    if obj.peek("detail").is_none() {
        markers.set("detail", "absent");
    }
    let url = obj.required_string("image_url")?;
    let (url, data, media_type) = match data_url::split(url) {
        Some(d) => (None, Some(d.data.to_string()), Some(d.media_type.to_string())),
        None => (Some(url.to_string()), None, None),
    };
    Ok(Part::Image(ImagePart { url, data, media_type, extra: obj.into_extra(native_keys::IMAGE, NAMESPACE, markers) }))
}

/// A file the native part can hold: `file_data` as a `data:` URL, or `file_url`.
fn has_file_source(obj: &WireObject<'_>) -> bool {
    let data_url = obj.peek("file_data").and_then(Node::as_str).is_some_and(|d| data_url::split(d).is_some());
    let url = obj.peek("file_url").is_some_and(Node::is_string);
    data_url != url
}

fn file_part(mut obj: WireObject<'_>) -> Result<Part, FormatError> {
    let (mut url, mut data, mut media_type) = (None, None, None);
    if let Some(file_data) = obj.string("file_data")? {
        if let Some(d) = data_url::split(file_data) {
            data = Some(d.data.to_string());
            media_type = Some(d.media_type.to_string());
        }
    } else {
        url = obj.string("file_url")?.map(str::to_string);
    }
    let name = obj.string("filename")?.map(str::to_string);
    Ok(Part::File(FilePart {
        url,
        data,
        media_type,
        name,
        extra: obj.into_extra(native_keys::FILE, NAMESPACE, Markers::default()),
    }))
}

/// Parts as a content array, each with its own wire object.
pub(super) fn write_parts(parts: &[(JsonPath, &Part)], side: Side) -> Result<Vec<Value>, FormatError> {
    parts.iter().map(|(path, part)| write_part(part, path, side)).collect()
}

fn write_part(part: &Part, path: &JsonPath, side: Side) -> Result<Value, FormatError> {
    match part {
        Part::Text(t) => {
            if let Some(block) = native_block::of(t, NAMESPACE) {
                return Ok(block.clone());
            }
            let restore = Restore::new(&t.extra, NAMESPACE);
            let wire_type = match restore.marker_str("type") {
                Some(wire @ ("refusal" | "input_text" | "output_text")) => wire,
                _ => side.text_type(),
            };
            let field = if wire_type == "refusal" { "refusal" } else { "text" };
            let mut mapped = object([("type", wire_type.into()), (field, t.text.as_str().into())]);
            // `annotations` is required on output text: `[]` unless the wire had none.
            if wire_type == "output_text"
                && !restore.has_field("annotations")
                && restore.marker_str("annotations") != Some("absent")
            {
                mapped.insert("annotations".into(), Value::Array(Vec::new()));
            }
            Ok(restore.finish(mapped))
        }
        Part::Image(image) => {
            let url = match (&image.url, &image.data, &image.media_type) {
                (Some(url), None, _) => url.clone(),
                (None, Some(data), Some(media_type)) => format!("data:{media_type};base64,{data}"),
                (None, Some(_), None) => {
                    return Err(path.unwritable("an inline image needs a media type for the Responses API"))
                }
                _ => return Err(path.unwritable("an image needs either a URL or inline data")),
            };
            let restore = Restore::new(&image.extra, NAMESPACE);
            let mut mapped = object([("type", "input_image".into()), ("image_url", url.into())]);
            // `detail` is required by the SDK's type: `auto` (the API's default) unless the
            // wire had none.
            if !restore.has_field("detail") && restore.marker_str("detail") != Some("absent") {
                mapped.insert("detail".into(), "auto".into());
            }
            Ok(restore.finish(mapped))
        }
        Part::File(file) => {
            let mut mapped: Map<String, Value> = object([("type", "input_file".into())]);
            match (&file.url, &file.data, &file.media_type) {
                (None, Some(data), Some(media_type)) => {
                    mapped.insert("file_data".into(), format!("data:{media_type};base64,{data}").into());
                }
                (Some(url), None, _) => {
                    mapped.insert("file_url".into(), url.as_str().into());
                }
                (None, Some(_), None) => {
                    return Err(path.unwritable("an inline file needs a media type for the Responses API"))
                }
                _ => return Err(path.unwritable("a file needs either a URL or inline data")),
            }
            if let Some(name) = &file.name {
                mapped.insert("filename".into(), name.as_str().into());
            }
            Ok(Restore::new(&file.extra, NAMESPACE).finish(mapped))
        }
        other => Err(path.unwritable(format!("a `{}` part cannot be written as Responses content", other.kind()))),
    }
}
