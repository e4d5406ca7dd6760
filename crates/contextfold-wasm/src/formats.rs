//! `convert`: a conversation from one format to another, following the target
//! provider's rules (see `contextfold::convert`).
//!
//! The work happens in [`convert_value`], plain Rust that the host tests exercise; the
//! export only converts between JS values and Rust ones.

use crate::compact::field;
use crate::convert::{format_option, messages_from_js, to_js};
use crate::error::{BindingError, JsResult};
use crate::options::invalid;
use crate::types::{ChainFormat, RepairStep};
use contextfold::convert::{self, Change};
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

/// One change `convert` made; `index` is a message of the chain as read (native), `part` a part of it.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(tag = "change", rename_all = "camelCase")]
pub enum ConvertChange {
    DroppedFields {
        index: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        part: Option<usize>,
        fields: Vec<String>,
    },
    DroppedSignature {
        index: usize,
        part: usize,
    },
    DroppedReasoning {
        index: usize,
        part: usize,
    },
    AddedSignature {
        index: usize,
        part: usize,
    },
    DroppedMedia {
        index: usize,
        part: usize,
        reason: String,
    },
    SanitizedArguments {
        index: usize,
        part: usize,
        replaced: bool,
    },
    RenamedToolCallId {
        index: usize,
        part: usize,
        old: String,
        new: String,
    },
    Repaired {
        #[serde(flatten)]
        step: RepairStep,
    },
}

impl From<Change> for ConvertChange {
    fn from(c: Change) -> Self {
        match c {
            Change::DroppedFields { index, part, fields } => ConvertChange::DroppedFields { index, part, fields },
            Change::DroppedSignature { index, part } => ConvertChange::DroppedSignature { index, part },
            Change::DroppedReasoning { index, part } => ConvertChange::DroppedReasoning { index, part },
            Change::AddedSignature { index, part } => ConvertChange::AddedSignature { index, part },
            Change::DroppedMedia { index, part, reason } => ConvertChange::DroppedMedia { index, part, reason },
            Change::SanitizedArguments { index, part, replaced } => {
                ConvertChange::SanitizedArguments { index, part, replaced }
            }
            Change::RenamedToolCallId { index, part, old, new } => {
                ConvertChange::RenamedToolCallId { index, part, old, new }
            }
            Change::Repaired { step } => ConvertChange::Repaired { step: step.into() },
        }
    }
}

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
        from: converted.from.into(),
        to: converted.to.into(),
        changes: converted.changes.into_iter().map(ConvertChange::from).collect(),
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
    fn changes_serialize_as_the_core_changes() {
        let step =
            contextfold::repair::RepairStep::AnsweredPendingCall { index: 1, call_id: "c".into(), name: "n".into() };
        for change in [
            Change::DroppedFields { index: 0, part: None, fields: vec!["x".into()] },
            Change::DroppedFields { index: 0, part: Some(1), fields: vec![] },
            Change::DroppedSignature { index: 1, part: 2 },
            Change::DroppedReasoning { index: 1, part: 2 },
            Change::AddedSignature { index: 1, part: 2 },
            Change::DroppedMedia { index: 1, part: 2, reason: "r".into() },
            Change::SanitizedArguments { index: 1, part: 2, replaced: true },
            Change::RenamedToolCallId { index: 1, part: 2, old: "a".into(), new: "b".into() },
            Change::Repaired { step },
        ] {
            let expected = serde_json::to_value(&change).unwrap();
            assert_eq!(serde_json::to_value(ConvertChange::from(change)).unwrap(), expected);
        }
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

#[wasm_bindgen(typescript_custom_section)]
const FORMAT_INFO: &'static str = r#"
/** What there is to know of a format (see `formats()`). */
export interface FormatInfo {
    name: ChainFormat;
    /** The provider whose rules a chain in this format keeps. */
    provider: ProviderName;
    /** The request object the chain may come in (Anthropic, Gemini); `null`: a list only. */
    request: { system: string; messages: string } | null;
    /** The tool-call id template of the provider API; `null` where ids are free. */
    idTemplate: string | null;
}
"#;

/// Every format contextfold reads and writes, with its provider, the request object it
/// may come in, and its tool-call id template: the one list hosts use instead of their own.
///
/// @example
/// ```js
/// const gemini = formats().find((f) => f.name === "gemini");
/// // gemini.request: { system: "systemInstruction", messages: "contents" }
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
