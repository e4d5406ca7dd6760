//! The `content` field of an OpenAI message and its parts.

use super::{natural_content_shape, NAMESPACE};
use crate::format::content_shape::ContentShape;
use crate::format::data_url;
use crate::format::fields::{json_kind, native_keys, Markers, WireObject};
use crate::format::path::JsonPath;
use crate::format::FormatError;
use crate::json_node::Node;
use crate::message::{FilePart, ImagePart, Part, Role, TextPart};

/// Reads `content` into parts, recording its JSON type in `markers` when a writer would
/// not choose it for these parts.
pub(super) fn read_content(
    obj: &mut WireObject<'_>,
    role: Role,
    markers: &mut Markers,
) -> Result<Vec<Part>, FormatError> {
    let path = obj.field_path("content");
    let (parts, shape) = match obj.take("content") {
        None => (Vec::new(), ContentShape::Absent),
        Some(Node::Null) => (Vec::new(), ContentShape::Null),
        Some(Node::String(text)) if text.is_empty() => (Vec::new(), ContentShape::String),
        Some(Node::String(text)) => (vec![Part::text(text.as_ref())], ContentShape::String),
        Some(Node::Array(items)) => {
            let parts = items
                .iter()
                .enumerate()
                .map(|(j, item)| read_part(item, path.index(j)))
                .collect::<Result<Vec<_>, _>>()?;
            (parts, ContentShape::Array)
        }
        Some(other) => {
            return Err(path.shape_error(format!(
                "`content` must be a string, an array of parts or null, found {}",
                json_kind(other)
            )))
        }
    };
    if shape != natural_content_shape(role, &parts) {
        markers.set("content", shape);
    }
    Ok(parts)
}

fn read_part(item: &Node<'_>, path: JsonPath) -> Result<Part, FormatError> {
    let mut obj = WireObject::new(item, path, "a content part")?;
    let mut markers = Markers::default();
    let part_type = obj.required_string("type")?;
    match part_type {
        "text" => text_part(obj, "text", markers),
        "refusal" => {
            markers.set("type", "refusal");
            text_part(obj, "refusal", markers)
        }
        "image_url" => image_part(obj, markers),
        "input_audio" => audio_part(obj, markers),
        "file" => file_part(obj, markers),
        other => Err(obj.field_path("type").shape_error(format!(
            "unknown OpenAI content part type `{other}` (expected text, image_url, input_audio, file or refusal)"
        ))),
    }
}

fn text_part(mut obj: WireObject<'_>, key: &str, markers: Markers) -> Result<Part, FormatError> {
    let text = obj.required_string(key)?.to_string();
    Ok(Part::Text(TextPart { text, extra: obj.into_extra(native_keys::TEXT, NAMESPACE, markers) }))
}

/// `{type: "image_url", image_url: {url, detail?}}`.
fn image_part(mut obj: WireObject<'_>, mut markers: Markers) -> Result<Part, FormatError> {
    let mut image = obj.required_object("image_url", "an image_url object")?;
    let url = image.required_string("url")?;
    markers.nested_leftovers("image_url", &image);
    let mut part = ImagePart::default();
    match data_url::split(url) {
        Some(inline) => {
            part.data = Some(inline.data.to_string());
            part.media_type = Some(inline.media_type.to_string());
        }
        None => part.url = Some(url.to_string()),
    }
    part.extra = obj.into_extra(native_keys::IMAGE, NAMESPACE, markers);
    Ok(Part::Image(part))
}

/// The `input_audio` format of audio of this media type: Chat Completions takes WAV and
/// MP3 only (`ChatCompletionContentPartInputAudio`).
pub(crate) fn audio_format(media_type: &str) -> Option<&'static str> {
    match media_type {
        "audio/wav" | "audio/x-wav" | "audio/wave" => Some("wav"),
        "audio/mpeg" | "audio/mp3" => Some("mp3"),
        _ => None,
    }
}

/// `{type: "input_audio", input_audio: {data, format}}`: a file part of media type
/// `audio/<format>`.
fn audio_part(mut obj: WireObject<'_>, mut markers: Markers) -> Result<Part, FormatError> {
    let mut audio = obj.required_object("input_audio", "an input_audio object")?;
    let data = audio.required_string("data")?.to_string();
    let format = audio.required_string("format")?;
    markers.set("type", "input_audio");
    markers.nested_leftovers("input_audio", &audio);
    Ok(Part::File(FilePart {
        data: Some(data),
        media_type: Some(format!("audio/{format}")),
        extra: obj.into_extra(native_keys::FILE, NAMESPACE, markers),
        ..FilePart::default()
    }))
}

/// `{type: "file", file: {file_data?, file_id?, filename?}}`. A `file_id` (a file OpenAI
/// stores) is kept in the marker, and counts as the part's source
/// ([`crate::message::Part::has_media_source`]).
fn file_part(mut obj: WireObject<'_>, mut markers: Markers) -> Result<Part, FormatError> {
    let mut file = obj.required_object("file", "a file object")?;
    let mut part = FilePart { name: file.string("filename")?.map(str::to_string), ..FilePart::default() };
    if let Some(data) = file.string("file_data")? {
        match data_url::split(data) {
            Some(inline) => {
                part.data = Some(inline.data.to_string());
                part.media_type = Some(inline.media_type.to_string());
            }
            None => part.data = Some(data.to_string()),
        }
    }
    markers.nested_leftovers("file", &file);
    part.extra = obj.into_extra(native_keys::FILE, NAMESPACE, markers);
    Ok(Part::File(part))
}
