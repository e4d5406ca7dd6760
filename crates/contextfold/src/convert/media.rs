//! Step 4 of the module doc of [`super`]: media as the target takes them, or dropped.

use crate::format::{anthropic, openai, Format};
use crate::message::Part;
use serde_json::Value;

/// A file holding an image (the AI SDK's file parts, a native file) as the image it is:
/// OpenAI takes images as `image_url` / `input_image` only (its file inputs are
/// documents), as `@ai-sdk/openai` sends them.
pub(super) fn image_file_as_image(part: Part) -> Part {
    match part {
        Part::File(file) if file.media_type.as_deref().is_some_and(|m| m.starts_with("image/")) => {
            let crate::message::FilePart { url, data, media_type, extra, .. } = file;
            Part::Image(crate::message::ImagePart { url, data, media_type, extra })
        }
        other => other,
    }
}

/// An inline image read without a media type gets the one its header shows (PNG, GIF,
/// JPEG, WebP), as `ai` detects it from the bytes before any provider sees the part
/// (its docs give images so); one it does not show stays without (and is dropped, listed,
/// by a target that needs one).
pub(super) fn detect_image_type(part: &mut Part) {
    let Part::Image(image) = part else { return };
    if image.media_type.is_some() {
        return;
    }
    let Some(data) = image.data.as_deref() else { return };
    let head = crate::format::base64::decode_head(data, 16).unwrap_or_default();
    image.media_type = crate::format::media_type::image_type(&head).map(str::to_string);
}

/// A file for LangChain: the 1.x standard file block (`{type: "file", mimeType, data}` or
/// `url`), which `@langchain/anthropic` sends as a document and `@langchain/openai` as a
/// file in a message marked `response_metadata.output_version: "v1"` (set on `message`).
/// Its name, if any, goes in the block's `metadata.filename`, where `@langchain/openai`
/// reads it.
pub(super) fn file_as_langchain_block(message: &mut crate::message::Extra, part: &mut Part) {
    let Part::File(file) = part else { return };
    let namespace = crate::format::langchain::NAMESPACE;
    if file.extra.get(namespace).and_then(|m| m.get("type")).is_some() {
        return;
    }
    crate::format::fields::add_marker(&mut file.extra, namespace, "type", Value::from("file"));
    if let Some(name) = file.name.take() {
        let metadata = file.extra.entry("metadata").or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Value::Object(metadata) = metadata {
            metadata.entry("filename").or_insert(Value::from(name));
        }
    }
    let metadata = message.entry("response_metadata").or_insert_with(|| Value::Object(serde_json::Map::new()));
    if let Value::Object(metadata) = metadata {
        metadata.entry("output_version").or_insert(Value::from("v1"));
    }
}

/// Why the target cannot carry this media part (`nested`: in a tool result), if it
/// cannot.
pub(super) fn unsupported(to: Format, part: &Part, nested: bool) -> Option<&'static str> {
    let (url, data, media_type, is_file, extra) = match part {
        Part::Image(i) => (&i.url, &i.data, &i.media_type, false, &i.extra),
        Part::File(f) => (&f.url, &f.data, &f.media_type, true, &f.extra),
        _ => return None,
    };
    // A source the target's own marker keeps (a file by its id, back from native).
    if url.is_none() && data.is_none() && crate::format::keeps_provider_source(extra) {
        return None;
    }
    match to {
        Format::OpenAi if is_file && data.is_none() => Some("OpenAI Chat takes files as inline data only"),
        Format::OpenAi if data.is_some() && media_type.is_none() => {
            Some("OpenAI Chat takes inline media as data: URLs, with a media type")
        }
        Format::OpenAi if is_file && is_audio(media_type.as_deref()) && !is_input_audio(part) => {
            Some("OpenAI Chat takes audio as WAV or MP3 only")
        }
        Format::Gemini if data.is_some() && media_type.is_none() => Some("Gemini inline data needs a media type"),
        Format::OpenAiResponses if data.is_some() && media_type.is_none() => {
            Some("the Responses API takes inline media as data: URLs, with a media type")
        }
        Format::AiSdk if nested && data.is_some() && media_type.is_none() => {
            Some("AI SDK tool outputs take inline media with a media type")
        }
        Format::AiSdkUi if nested => Some("AI SDK UIMessage tool outputs are JSON, without media"),
        Format::LangChain if url.is_none() && media_type.is_none() => {
            Some("LangChain takes inline media with a media type only")
        }
        Format::Anthropic => {
            data.as_deref().and_then(|data| anthropic::media::rejects_inline(media_type.as_deref(), data))
        }
        _ => None,
    }
}

fn is_audio(media_type: Option<&str>) -> bool {
    media_type.is_some_and(|m| m.starts_with("audio/"))
}

/// Whether a part is marked to be written as OpenAI Chat's `input_audio`.
fn is_input_audio(part: &Part) -> bool {
    matches!(part, Part::File(file)
        if super::openai_marker(&file.extra, Format::OpenAi, "type").and_then(Value::as_str) == Some("input_audio"))
}

/// Inline WAV or MP3 audio for OpenAI Chat, which takes audio as `input_audio` only (its
/// `file` parts are documents): the file is marked to be written so. `input_audio` has
/// no name: returns whether one was dropped.
pub(super) fn audio_as_input_audio(part: &mut Part) -> bool {
    let Part::File(file) = part else { return false };
    let format = file.media_type.as_deref().and_then(openai::audio_format);
    if format.is_none() || file.data.is_none() || file.url.is_some() {
        return false;
    }
    super::carry_openai_marker(&mut file.extra, Format::OpenAi, "type", Value::from("input_audio"));
    file.name.take().is_some()
}

/// OpenAI takes inline file data with a filename only (Chat's `file.filename`, Responses'
/// `input_file.filename`): an inline file without one gets a placeholder named after its
/// media type.
pub(super) fn name_inline_file(part: &mut Part) {
    let audio = is_input_audio(part);
    if let Part::File(file) = part {
        if file.data.is_some() && file.name.is_none() && !audio {
            file.name = Some(placeholder_name(file.media_type.as_deref()));
        }
    }
}

/// `document.<extension>` for the common document types, else `document`.
fn placeholder_name(media_type: Option<&str>) -> String {
    let extension = match media_type.unwrap_or_default() {
        "application/pdf" => "pdf",
        "text/plain" => "txt",
        "text/markdown" => "md",
        "text/csv" => "csv",
        "text/html" => "html",
        "application/json" => "json",
        _ => return "document".to_string(),
    };
    format!("document.{extension}")
}

/// An Anthropic document given as content blocks (a `content` source), for another
/// format: the plain-text file of its text blocks, as a `text` source document goes
/// over. Returns whether it held blocks other than text, which have no place there.
pub(super) fn content_document_as_text(part: &mut Part) -> bool {
    let Part::File(file) = part else { return false };
    if file.data.is_some() || file.url.is_some() {
        return false;
    }
    let Some(content) = file.embedded_content() else { return false };
    let other_blocks = content
        .as_array()
        .is_some_and(|blocks| blocks.iter().any(|b| b.get("type").and_then(Value::as_str) != Some("text")));
    let Some(text) = file.text().map(std::borrow::Cow::into_owned) else { return false };
    file.data = Some(crate::format::base64::encode(text.as_bytes()));
    file.media_type = Some("text/plain".to_string());
    other_blocks
}
