//! Conversions shared by the exports: JS values to core types and back.

use crate::error::{BindingError, JsResult};
use contextfold::format::{self, Format, FormatError};
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::JsValue;

/// The `format` option: `None` means auto-detect.
pub fn format_option(name: Option<&str>) -> Result<Option<Format>, BindingError> {
    match name {
        None | Some("auto") => Ok(None),
        Some(name) => Format::from_name(name).map(Some).ok_or_else(|| BindingError::InvalidOption {
            path: ".format".to_string(),
            message: format!("unknown format {name:?}; expected \"auto\", \"native\", \"openai\", \"anthropic\", \"gemini\", \"aisdk\", \"aisdk-ui\" or \"langchain\""),
        }),
    }
}

/// Reads messages in `format`, or in the detected format when `None`.
pub use contextfold::pipeline::read_json as read_messages;

/// JSON text is parsed by the core (errors carry line and column); any other value is
/// converted as it is.
pub fn messages_from_js(messages: JsValue) -> Result<Value, BindingError> {
    if let Some(text) = messages.as_string() {
        return Ok(format::parse_json(&text)?);
    }
    serde_wasm_bindgen::from_value(messages).map_err(|e| {
        BindingError::from(FormatError::Shape {
            path: String::new(),
            message: format!("not a JSON value: {}", describe(&e)),
        })
    })
}

/// serde-wasm-bindgen errors print as `Error: ...`; the prefix adds nothing here.
pub fn describe(e: &serde_wasm_bindgen::Error) -> String {
    let text = e.to_string();
    match text.strip_prefix("Error: ") {
        Some(rest) => rest.to_string(),
        None => text,
    }
}

/// Plain JS objects (not `Map`s) for every map, as `JSON.parse` would give.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsResult<JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| BindingError::Internal(e.to_string()).into())
}
