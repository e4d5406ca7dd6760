//! `convert`: a conversation from one format to another, following the target
//! provider's rules (see `contextfold::format::convert`).
//!
//! The work happens in [`convert_value`], plain Rust that the host tests exercise; the
//! export only converts between JS values and Rust ones.

use crate::compact::field;
use crate::convert::{format_option, messages_from_js, to_js};
use crate::error::{BindingError, JsResult};
use crate::options::invalid;
use contextfold::format::{self, Change, Format};
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_FORMATS: &str = r#"
/** Options of `convert`. */
export interface ConvertOptions {
    /** The format of `messages`; `"auto"` (default) detects it. */
    from?: "auto" | ChainFormat;
    /** The format to write. */
    to: ChainFormat;
}

/** One change `convert` made; `index` is a message of the chain as read (native), `part` a part of it. */
export type ConvertChange =
    | { change: "droppedFields"; index: number; part?: number; fields: string[] }
    | { change: "droppedSignature"; index: number; part: number }
    | { change: "droppedReasoning"; index: number; part: number }
    | { change: "addedSignature"; index: number; part: number }
    | { change: "droppedMedia"; index: number; part: number; reason: string }
    | { change: "sanitizedArguments"; index: number; part: number; replaced: boolean }
    | { change: "renamedToolCallId"; index: number; part: number; old: string; new: string }
    | { change: "repaired"; step: string; index: number; [key: string]: unknown };

/** What `convert` returns. */
export interface ConvertResult {
    /** The conversation in the `to` format. */
    messages: unknown;
    /** The format that was read (the detected one with `from: "auto"`). */
    from: ChainFormat;
    to: ChainFormat;
    changes: ConvertChange[];
}
"#;

/// What `convert` returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConvertOutput {
    pub messages: Value,
    pub from: &'static str,
    pub to: &'static str,
    pub changes: Vec<Change>,
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
    let from = field::<String>(&options, "from")?;
    let to = field::<String>(&options, "to")?;
    let value = messages_from_js(messages)?;
    to_js(&convert_value(&value, from.as_deref(), to.as_deref())?)
}

/// A format option at `path` (`.from` or `.to`).
fn format_at(name: Option<&str>, path: &str) -> Result<Option<Format>, BindingError> {
    format_option(name).map_err(|e| match e {
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
    let converted = format::convert(value, from, to).map_err(|e| BindingError::Core(e.into()))?;
    Ok(ConvertOutput {
        messages: converted.value,
        from: converted.from.as_str(),
        to: converted.to.as_str(),
        changes: converted.changes,
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
        assert_eq!((out.from, out.to), ("openai", "gemini"));
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
