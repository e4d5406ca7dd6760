//! `convert`: a conversation from one format to another, following the target
//! provider's rules (see `contextfold::convert`).
//!
//! The work happens in [`convert_value`], plain Rust that the host tests exercise; the
//! export only converts between JS values and Rust ones.

use crate::compact::field;
use crate::convert::{format_option, messages_from_js, to_js};
use crate::error::{BindingError, JsResult};
use crate::options::invalid;
use crate::types::ChainFormat;
use contextfold::convert::{self};
use contextfold::format::Format;
use serde::Serialize;
use serde_json::Value;
use tsify::Tsify;
use wasm_bindgen::prelude::*;

/// Options of `convert`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Tsify)]
pub struct ConvertOptions {
    /// The format of `messages`; `"auto"` (default) detects it.
    #[tsify(optional, type = "\"auto\" | ChainFormat")]
    pub from: Option<String>,
    /// The format to write.
    #[tsify(type = "ChainFormat")]
    pub to: String,
}

pub use contextfold::convert::Change as ConvertChange;

/// What `convert` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[tsify(rename = "ConvertResult", type_params = "M = unknown")]
pub struct ConvertOutput {
    /// The conversation in the `to` format (`M`: that format's chain type, see `convert`).
    #[tsify(type = "M")]
    pub messages: Value,
    /// The format that was read (the detected one with `from: "auto"`).
    pub from: ChainFormat,
    pub to: ChainFormat,
    pub changes: Vec<ConvertChange>,
}

/// Converts a conversation to another format: reads it (`from`, detected by default),
/// applies the target provider's rules (tool-call ids in its template, foreign reasoning
/// signatures dropped, system placement, role alternation, tool results after their
/// call) and writes it in `to`, listing every change.
///
/// @example
/// const { messages, changes } = convert(openaiMessages, { to: "anthropic" });
#[wasm_bindgen(js_name = convert, unchecked_return_type = "ConvertResult")]
pub fn convert_chain(
    #[wasm_bindgen(unchecked_param_type = "unknown")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ConvertOptions")] options: JsValue,
) -> JsResult<JsValue> {
    if !options.is_object() {
        return Err(invalid("", "expected an object with a `to` format").into());
    }
    let keys = crate::compact::own_keys(&options, "")?;
    crate::options::check_keys(keys.iter().map(String::as_str), &["from", "to"], "")?;
    let from = field::<String>(&options, "from")?;
    let to = field::<String>(&options, "to")?;
    let value = messages_from_js(messages)?;
    to_js(&convert_value(&value, from.as_deref(), to.as_deref())?)
}

/// A format option at `path` (`.from` or `.to`).
fn format_at(name: Option<&str>, path: &str) -> Result<Option<Format>, BindingError> {
    format_option(name).map_err(|e| match e {
        // `to` must name a format: no "auto" in its hint.
        BindingError::InvalidOption { .. } if path == ".to" => {
            invalid(path, crate::convert::unknown_format(name.unwrap_or_default(), false))
        }
        BindingError::InvalidOption { message, .. } => invalid(path, message),
        other => other,
    })
}

pub fn convert_value(value: &Value, from: Option<&str>, to: Option<&str>) -> Result<ConvertOutput, BindingError> {
    let from = format_at(from, ".from")?;
    let to = match to {
        None => return Err(invalid(".to", "missing: the format to convert to")),
        Some("auto") => return Err(invalid(".to", "must name a format, not \"auto\"")),
        Some(name) => format_at(Some(name), ".to")?,
    };
    let Some(to) = to else {
        return Err(invalid(".to", "missing: the format to convert to"));
    };
    let converted = convert::convert(value, from, to).map_err(|e| BindingError::Core(e.into()))?;
    Ok(ConvertOutput {
        messages: converted.value,
        from: converted.from,
        to: converted.to,
        changes: converted.changes.into_iter().collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn converts_and_reports_the_detected_format() {
        let chain = json!([{ "role": "system", "content": "s" }, { "role": "user", "content": "hi" }]);
        let out = convert_value(&chain, None, Some("gemini")).unwrap();
        assert_eq!((out.from, out.to), (ChainFormat::OpenAi, ChainFormat::Gemini));
        assert_eq!(
            out.messages,
            json!({ "systemInstruction": { "parts": [{ "text": "s" }] }, "contents": [{ "role": "user", "parts": [{ "text": "hi" }] }] })
        );
        assert!(out.changes.is_empty());
    }

    #[test]
    fn options_errors_have_paths() {
        let chain = json!([]);
        let err = convert_value(&chain, None, None).unwrap_err();
        assert_eq!((err.code(), err.path().as_deref()), ("invalid_option", Some("options.to")));
        let err = convert_value(&chain, Some("nope"), Some("openai")).unwrap_err();
        assert_eq!(err.path().as_deref(), Some("options.from"));
        let err = convert_value(&chain, None, Some("auto")).unwrap_err();
        assert_eq!(err.path().as_deref(), Some("options.to"));
    }

    #[test]
    fn unwritable_and_unknown_input_are_core_errors() {
        let err = convert_value(&json!([{ "role": "robot" }]), None, Some("openai")).unwrap_err();
        assert_eq!((err.code(), err.path().as_deref()), ("unknown_format", Some("[0]")));
    }
}

pub use contextfold::convert::FormatInfo;

/// Every format contextfold reads and writes, with its provider, the request object it
/// may come in, and its tool-call id template: the one list hosts use instead of their own.
///
/// @example
/// ```js
/// const gemini = formats().find((f) => f.name === "gemini");
/// // gemini.request: { system: "systemInstruction", messages: "contents", systemIn: "config" }
/// ```
#[wasm_bindgen(js_name = formats, unchecked_return_type = "FormatInfo[]")]
pub fn formats() -> JsResult<JsValue> {
    to_js(&contextfold::convert::formats())
}

/// The provider whose rules a chain in `format` keeps (`"generic"` for the formats of
/// frameworks, which serve several providers).
///
/// @example
/// ```js
/// providerOf("anthropic"); // "anthropic"
/// providerOf("aisdk"); // "generic"
/// ```
#[wasm_bindgen(js_name = providerOf, unchecked_return_type = "ProviderName")]
pub fn provider_of(#[wasm_bindgen(unchecked_param_type = "ChainFormat")] format: JsValue) -> JsResult<JsValue> {
    let name = format.as_string().unwrap_or_default();
    let format = format_option(Some(&name))
        .ok()
        .flatten()
        .ok_or_else(|| BindingError::Argument(format!("providerOf: unknown format {name:?}")))?;
    to_js(&contextfold::convert::provider_of(format))
}
