//! `parseChain`: read a conversation, parse it into sections and body pairs, and return
//! its outline.
//!
//! The work happens in [`parse_chain_value`], plain Rust that the host tests exercise;
//! the export only converts between JS values and Rust ones.

use crate::convert::{format_option, messages_from_js, read_messages, to_js};
use crate::error::{BindingError, JsResult};
use crate::types::{ChainFormat, RepairAction};
use contextfold::inspect;
use contextfold::ChainAst;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsify::Tsify;
use wasm_bindgen::prelude::*;

/// Options of `parseChain`. The other functions' options are ignored, so one options object
/// can serve every function; a key no function takes is an `invalid_option` error.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ParseChainOptions {
    /// The format of `messages`; `"auto"` (default) detects it.
    #[serde(default)]
    #[tsify(optional, type = "\"auto\" | ChainFormat")]
    pub format: Option<String>,
    /// Repair what can be repaired (listed in `repairs`) instead of throwing. Default `false`.
    #[serde(default)]
    #[tsify(optional)]
    pub repair: Option<bool>,
}

/// What `parseChain` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
pub struct ParsedChain {
    /// The format that was read (the detected one with `format: "auto"`).
    pub format: ChainFormat,
    pub outline: ChainOutline,
    /// What repair mode changed, in input order; always empty in strict mode.
    pub repairs: Vec<RepairAction>,
}

pub use contextfold::inspect::{Outline as ChainOutline, PairOutline, SectionOutline};
pub use contextfold::PairKind;

/// Parses a conversation and returns its outline: sections, body pairs, sizes.
///
/// `messages` is an array of messages in any supported format, or the JSON text of one.
/// In strict mode (the default) a chain that breaks a rule throws a `ContextfoldError`
/// whose `code` names the rule and whose `path` points at the message; with
/// `{ repair: true }` what can be repaired is, and listed in `repairs`.
///
/// @example
/// ```js
/// const { format, outline } = parseChain([
///   { role: "user", content: "hi" },
///   { role: "assistant", content: "hello" },
/// ]);
/// // format === "openai", outline.sections === 1, outline.completions === 1
/// ```
#[wasm_bindgen(js_name = parseChain, unchecked_return_type = "ParsedChain")]
pub fn parse_chain(
    #[wasm_bindgen(unchecked_param_type = "unknown", param_description = "an array of messages, or its JSON text")]
    messages: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ParseChainOptions")] options: Option<JsValue>,
) -> JsResult<JsValue> {
    let options = options_from_js(options)?;
    let value = messages_from_js(messages)?;
    let parsed = parse_chain_value(&value, &options)?;
    to_js(&parsed)
}

/// The Rust side of `parseChain`: format read, strict or repair parse, outline.
pub fn parse_chain_value(value: &Value, options: &ParseChainOptions) -> Result<ParsedChain, BindingError> {
    let requested = format_option(options.format.as_deref())?;
    let (messages, format) = read_messages(value, requested)?;
    let locate = |e: contextfold::AstError| BindingError::from(e).locate(value, format, messages.len());
    let (ast, repairs) = if options.repair.unwrap_or(false) {
        let parsed = ChainAst::parse_repair(&messages).map_err(locate)?;
        (parsed.ast, parsed.repairs)
    } else {
        (ChainAst::parse(&messages).map_err(locate)?, Vec::new())
    };
    Ok(ParsedChain { format, outline: inspect::outline(&ast), repairs: repairs.into_iter().collect() })
}

fn options_from_js(options: Option<JsValue>) -> Result<ParseChainOptions, BindingError> {
    match options {
        None => Ok(ParseChainOptions::default()),
        Some(v) if v.is_null() || v.is_undefined() => Ok(ParseChainOptions::default()),
        Some(v) if !v.is_object() => {
            Err(BindingError::InvalidOption { path: String::new(), message: "expected an object".to_string() })
        }
        // Field by field, like every options object: each error names its field, and a
        // throwing getter is an invalid option, not an escaped exception.
        Some(v) => {
            crate::options::check_chain_keys(&v)?;
            Ok(ParseChainOptions {
                format: crate::compact::field::<String>(&v, "format")?,
                repair: crate::compact::field::<bool>(&v, "repair")?,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn native_options(repair: bool) -> ParseChainOptions {
        ParseChainOptions { format: Some("native".to_string()), repair: Some(repair) }
    }

    fn orphan_result_chain() -> Value {
        json!([
            { "role": "user", "parts": [{ "type": "text", "text": "hi" }] },
            { "role": "assistant", "parts": [
                { "type": "toolCall", "id": "a", "name": "read", "arguments": "{}" } ] },
            { "role": "tool", "parts": [
                { "type": "toolResult", "callId": "a", "name": "read",
                  "content": [{ "type": "text", "text": "ok" }] },
                { "type": "toolResult", "callId": "b", "name": "read",
                  "content": [{ "type": "text", "text": "?" }] } ] },
            { "role": "assistant", "parts": [{ "type": "text", "text": "done" }] }
        ])
    }

    #[test]
    fn outlines_a_native_chain() {
        let chain = json!([
            { "role": "system", "parts": [{ "type": "text", "text": "be brief" }] },
            { "role": "user", "parts": [{ "type": "text", "text": "hi" }] },
            { "role": "assistant", "parts": [{ "type": "text", "text": "hello" }] }
        ]);
        let parsed = parse_chain_value(&chain, &native_options(false)).unwrap();
        assert_eq!(parsed.format, ChainFormat::Native);
        assert_eq!(parsed.outline.messages, 3);
        assert_eq!(parsed.outline.sections, 1);
        assert_eq!(parsed.outline.completions, 1);
        assert!(parsed.repairs.is_empty());
    }

    #[test]
    fn the_result_serializes_as_the_core_outline() {
        let chain = orphan_result_chain();
        let parsed = parse_chain_value(&chain, &native_options(true)).unwrap();
        let messages = contextfold::format::read(&chain, contextfold::format::Format::Native).unwrap();
        let core = ChainAst::parse_repair(&messages).unwrap();
        let expected = json!({
            "format": "native",
            "outline": serde_json::to_value(inspect::outline(&core.ast)).unwrap(),
            "repairs": serde_json::to_value(&core.repairs).unwrap(),
        });
        assert_eq!(serde_json::to_value(&parsed).unwrap(), expected);
    }

    #[test]
    fn strict_mode_reports_code_and_path() {
        let err = parse_chain_value(&orphan_result_chain(), &native_options(false)).unwrap_err();
        assert_eq!(err.code(), "unmatched_tool_result");
        assert_eq!(err.path().as_deref(), Some("[2]"));
    }

    #[test]
    fn repair_mode_lists_repairs() {
        let parsed = parse_chain_value(&orphan_result_chain(), &native_options(true)).unwrap();
        assert_eq!(parsed.repairs.len(), 1);
        assert_eq!(parsed.outline.tool_calls, 2);
    }

    #[test]
    fn unknown_format_is_an_invalid_option() {
        let options = ParseChainOptions { format: Some("gemini-ultra".to_string()), repair: None };
        let err = parse_chain_value(&json!([]), &options).unwrap_err();
        assert_eq!(err.code(), "invalid_option");
        assert_eq!(err.path().as_deref(), Some("options.format"));
    }

    #[test]
    fn wrong_shape_has_a_path() {
        let chain = json!([{ "role": "user", "parts": "not a list" }]);
        let err = parse_chain_value(&chain, &native_options(false)).unwrap_err();
        assert_eq!(err.code(), "invalid_shape");
        assert_eq!(err.path().as_deref(), Some("[0].parts"));
    }
}
