//! Provider-native blocks (an Anthropic server tool's call and result, a Responses
//! built-in item, ...) on conversion: only the format that read one writes it back, so
//! another gets what the part renders to, and `changes` lists it.

use crate::message::{marker_namespace, Extra, NATIVE_BLOCK};
use serde_json::Value;

/// The type of the native block an `extra` carries (`web_search_tool_result`,
/// `image_generation_call`, ...), when it carries one.
pub(super) fn kind(extra: &Extra) -> Option<String> {
    let block = marker_namespace::ALL.iter().find_map(|ns| extra.get(*ns)?.get(NATIVE_BLOCK))?;
    Some(block.get("type").and_then(Value::as_str).unwrap_or(NATIVE_BLOCK).to_string())
}

/// A native block is its source format's own part, verbatim: another format, even one
/// sharing its marker namespace (the AI SDK's two), gets the part's rendering as text.
pub(super) fn forget(text: &mut crate::message::TextPart) {
    text.extra.retain(|key, markers| {
        if let Value::Object(markers) = markers {
            if marker_namespace::contains(key) && markers.shift_remove(NATIVE_BLOCK).is_some() {
                return !markers.is_empty();
            }
        }
        true
    });
}
