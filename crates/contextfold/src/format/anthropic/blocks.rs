//! Anthropic content blocks -> parts.

use super::{text_parts, NAMESPACE};
use crate::format::content_shape::{is_plain_text, ContentShape};
use crate::format::fields::{json_kind, native_keys, Markers, WireObject};
use crate::format::path::JsonPath;
use crate::format::FormatError;
use crate::json_node::Node;
use crate::message::{FilePart, ImagePart, Part, ReasoningPart, TextPart, ToolResultPart};
use serde_json::Value;

/// Where a block stands: each place allows its own block types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BlockContext {
    System,
    User,
    Assistant,
    ToolResult,
}

impl BlockContext {
    pub(super) fn describe(self) -> &'static str {
        match self {
            BlockContext::System => "the system prompt",
            BlockContext::User => "a user message",
            BlockContext::Assistant => "an assistant message",
            BlockContext::ToolResult => "a tool_result's content",
        }
    }

    pub(super) fn allows(self, block_type: &str) -> bool {
        match block_type {
            "text" => true,
            "image" | "document" => self != BlockContext::System,
            "thinking" | "redacted_thinking" | "tool_use" => self == BlockContext::Assistant,
            "tool_result" => self == BlockContext::User,
            t if super::native::NATIVE_BLOCKS.contains(&t) => self != BlockContext::System,
            _ => false,
        }
    }
}

const KNOWN_TYPES: &[&str] = &["text", "image", "document", "thinking", "redacted_thinking", "tool_use", "tool_result"];

pub(super) fn read_blocks(
    items: &[Node<'_>],
    path: &JsonPath,
    context: BlockContext,
) -> Result<Vec<Part>, FormatError> {
    items.iter().enumerate().map(|(j, item)| read_block(item, path.index(j), context)).collect()
}

fn read_block(item: &Node<'_>, path: JsonPath, context: BlockContext) -> Result<Part, FormatError> {
    let mut obj = WireObject::new(item, path, "a content block")?;
    let block_type = obj.required_string("type")?;
    if super::native::NATIVE_BLOCKS.contains(&block_type) && context != BlockContext::System {
        return Ok(super::native::read(&item.to_value(), block_type));
    }
    if !context.allows(block_type) {
        let why = if KNOWN_TYPES.contains(&block_type) {
            format!("`{block_type}` blocks are not allowed in {}", context.describe())
        } else {
            format!("unsupported Anthropic block type `{block_type}`")
        };
        return Err(obj.field_path("type").shape_error(why));
    }
    match block_type {
        "image" => image_block(obj),
        "document" => document_block(obj),
        "thinking" => thinking_block(obj),
        "redacted_thinking" => redacted_thinking_block(obj),
        "tool_use" => tool_use_block(obj),
        "tool_result" => tool_result_block(obj),
        _ => text_block(obj),
    }
}

fn text_block(mut obj: WireObject<'_>) -> Result<Part, FormatError> {
    let text = obj.required_string("text")?.to_string();
    Ok(Part::Text(TextPart { text, extra: obj.into_extra(native_keys::TEXT, NAMESPACE, Markers::default()) }))
}

/// An image or document `source`: base64 data with its media type, or a URL.
struct Source {
    url: Option<String>,
    data: Option<String>,
    media_type: Option<String>,
}

fn read_source(obj: &mut WireObject<'_>, markers: &mut Markers) -> Result<Source, FormatError> {
    let mut source = obj.required_object("source", "a source object")?;
    // `base64` and `url` follow from which of data and url is set; other types are kept.
    let source_type = source.string("type")?;
    if !matches!(source_type, Some("base64" | "url")) {
        source.untake("type");
    }
    let owned = |s: Option<&str>| s.map(str::to_string);
    // A plain-text document's data is its text: file data is base64 everywhere else.
    let data = match (source_type, source.string("data")?) {
        (Some("text"), Some(text)) => Some(crate::format::base64::encode(text.as_bytes())),
        (_, data) => owned(data),
    };
    let read = Source { data, media_type: owned(source.string("media_type")?), url: owned(source.string("url")?) };
    markers.nested_leftovers("source", &source);
    Ok(read)
}

fn image_block(mut obj: WireObject<'_>) -> Result<Part, FormatError> {
    let mut markers = Markers::default();
    let source = read_source(&mut obj, &mut markers)?;
    Ok(Part::Image(ImagePart {
        url: source.url,
        data: source.data,
        media_type: source.media_type,
        extra: obj.into_extra(native_keys::IMAGE, NAMESPACE, markers),
    }))
}

/// A document; its `title` is the file's name (the writer writes a name as `title`).
fn document_block(mut obj: WireObject<'_>) -> Result<Part, FormatError> {
    let mut markers = Markers::default();
    let source = read_source(&mut obj, &mut markers)?;
    Ok(Part::File(FilePart {
        url: source.url,
        data: source.data,
        media_type: source.media_type,
        name: obj.string("title")?.map(str::to_string),
        extra: obj.into_extra(native_keys::FILE, NAMESPACE, markers),
    }))
}

fn thinking_block(mut obj: WireObject<'_>) -> Result<Part, FormatError> {
    let text = obj.required_string("thinking")?.to_string();
    let signature = obj.string("signature")?.map(str::to_string);
    Ok(Part::Reasoning(ReasoningPart {
        text,
        signature,
        redacted_data: None,
        extra: obj.into_extra(native_keys::REASONING, NAMESPACE, Markers::default()),
    }))
}

fn redacted_thinking_block(mut obj: WireObject<'_>) -> Result<Part, FormatError> {
    let data = obj.required_string("data")?.to_string();
    Ok(Part::Reasoning(ReasoningPart {
        redacted_data: Some(data),
        extra: obj.into_extra(native_keys::REASONING, NAMESPACE, Markers::default()),
        ..ReasoningPart::default()
    }))
}

/// `{id, name, input}`: arguments are `input` as compact JSON text; the original input is
/// kept only if that text would not read back to the same value.
fn tool_use_block(mut obj: WireObject<'_>) -> Result<Part, FormatError> {
    let id = obj.required_string("id")?.to_string();
    let name = obj.required_string("name")?.to_string();
    let input_path = obj.field_path("input");
    let input = obj.take("input").ok_or_else(|| input_path.shape_error("missing field `input`"))?;
    let arguments = serde_json::to_string(input).map_err(|e| input_path.shape_error(e.to_string()))?;
    let mut markers = Markers::default();
    let input = input.to_value();
    if serde_json::from_str::<Value>(&arguments).ok().as_ref() != Some(&input) {
        markers.set("input", input);
    }
    Ok(obj.into_tool_call(id, name, arguments, NAMESPACE, markers))
}

/// `{tool_use_id, content?, is_error?}`.
fn tool_result_block(mut obj: WireObject<'_>) -> Result<Part, FormatError> {
    let call_id = obj.required_string("tool_use_id")?.to_string();
    let is_error = obj.flag("is_error")?;
    let path = obj.field_path("content");
    let (content, shape) = match obj.take("content") {
        None => (Vec::new(), ContentShape::Absent),
        Some(Node::String(text)) => (text_parts(text), ContentShape::String),
        Some(Node::Array(items)) => (read_blocks(items, &path, BlockContext::ToolResult)?, ContentShape::Array),
        Some(other) => {
            return Err(path
                .shape_error(format!("`content` must be a string or an array of blocks, found {}", json_kind(other))))
        }
    };
    let mut markers = Markers::default();
    if shape != natural_result_shape(&content) {
        markers.set("content", shape);
    }
    Ok(Part::ToolResult(ToolResultPart {
        call_id,
        name: None,
        content,
        is_error,
        extra: obj.into_extra(native_keys::TOOL_RESULT, NAMESPACE, markers),
    }))
}

/// The content shape a writer picks by itself for a tool result's content.
pub(super) fn natural_result_shape(content: &[Part]) -> ContentShape {
    match content {
        [] => ContentShape::Absent,
        [one] if is_plain_text(one) => ContentShape::String,
        _ => ContentShape::Array,
    }
}
