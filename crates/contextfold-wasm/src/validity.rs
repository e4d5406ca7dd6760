//! `validateChain` and `repairChain`: the provider-validity rules on their own.
//!
//! Both read any supported format (auto-detected by default) and apply the rules of
//! `options.provider`, by default the provider of the format read (OpenAI for OpenAI
//! Chat, Anthropic for Anthropic Messages, the shared rules for the native format).

use crate::compact::field;
use crate::convert::{format_option, messages_from_js, to_js};
use crate::error::{BindingError, JsResult};
use crate::options::{invalid, provider_option};
use crate::types::{Diagnostic, ProviderName};
use contextfold::format::Format;
use contextfold::repair::{OrphanResults, Provider, RepairOptions};
use serde_json::Value;
use tsify::Tsify;
use wasm_bindgen::prelude::*;

/// Options of `validateChain`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Tsify)]
pub struct ValidateOptions {
    /// The format of `messages`; `"auto"` (default) detects it.
    #[tsify(optional, type = "\"auto\" | ChainFormat")]
    pub format: Option<String>,
    /// Whose rules apply; default: the provider of the format read ("generic" for native).
    #[tsify(optional)]
    pub provider: Option<ProviderName>,
}

/// Options of `repairChain`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Tsify)]
#[tsify(rename = "RepairOptions")]
#[serde(rename_all = "camelCase")]
pub struct RepairChainOptions {
    #[serde(flatten)]
    pub common: ValidateOptions,
    /// A tool result answering no call: `"remove"` it (default) or `"answer"` it with a call.
    #[tsify(optional, type = "\"remove\" | \"answer\"")]
    pub orphan_results: Option<String>,
    /// Content of the result added for a call that has none.
    #[tsify(optional)]
    pub pending_placeholder: Option<String>,
    /// Merge consecutive user / assistant messages; default: where the provider requires alternation.
    #[tsify(optional)]
    pub merge_same_role: Option<bool>,
}

pub use contextfold::pipeline::RepairedJson as RepairOutput;

fn read_common(options: &JsValue) -> Result<(Option<Format>, Option<Provider>), BindingError> {
    if options.is_undefined() || options.is_null() {
        return Ok((None, None));
    }
    if !options.is_object() {
        return Err(invalid("", "expected an object"));
    }
    crate::options::check_chain_keys(options)?;
    let format = format_option(field::<String>(options, "format")?.as_deref())?;
    let provider = provider_option(field::<String>(options, "provider")?.as_deref())?;
    Ok((format, provider))
}

/// Every rule of the provider the chain breaks, with the path of each culprit; an empty
/// array for a valid chain. Throws only when the input cannot be read at all.
#[wasm_bindgen(js_name = validateChain, unchecked_return_type = "Diagnostic[]")]
pub fn validate_chain(
    #[wasm_bindgen(unchecked_param_type = "unknown")] messages: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ValidateOptions")] options: JsValue,
) -> JsResult<JsValue> {
    let (format, provider) = read_common(&options)?;
    let value = messages_from_js(messages)?;
    to_js(&validate_value(&value, format, provider)?)
}

pub fn validate_value(
    value: &Value,
    format: Option<Format>,
    provider: Option<Provider>,
) -> Result<Vec<Diagnostic>, BindingError> {
    Ok(contextfold::pipeline::validate_json(value, format, provider)?.0)
}

/// Repairs what the provider would reject (tool pairing, roles, empty text, system
/// placement) and lists every change; a valid chain comes back unchanged.
#[wasm_bindgen(js_name = repairChain, unchecked_return_type = "RepairResult")]
pub fn repair_chain(
    #[wasm_bindgen(unchecked_param_type = "unknown")] messages: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "RepairOptions")] options: JsValue,
) -> JsResult<JsValue> {
    let (format, provider) = read_common(&options)?;
    let mut settings = RepairOptions::for_provider(provider.unwrap_or_default());
    if options.is_object() {
        settings.orphan_results = match field::<String>(&options, "orphanResults")?.as_deref() {
            None | Some("remove") => OrphanResults::Remove,
            Some("answer") => OrphanResults::Answer,
            Some(other) => {
                return Err(invalid(
                    ".orphanResults",
                    format!("unknown value {other:?}; expected \"remove\" or \"answer\""),
                )
                .into())
            }
        };
        if let Some(text) = field::<String>(&options, "pendingPlaceholder")? {
            if text.trim().is_empty() {
                return Err(invalid(".pendingPlaceholder", "must not be blank").into());
            }
            settings.pending_placeholder = text;
        }
        settings.merge_same_role = field::<bool>(&options, "mergeSameRole")?;
    }
    let value = messages_from_js(messages)?;
    to_js(&repair_value(&value, format, provider, settings)?)
}

pub fn repair_value(
    value: &Value,
    format: Option<Format>,
    provider: Option<Provider>,
    settings: RepairOptions,
) -> Result<RepairOutput, BindingError> {
    Ok(contextfold::pipeline::repair_json(value, format, provider, settings)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_orphan_result_is_reported_then_repaired_in_the_format_read() {
        let chain = json!([
            { "role": "user", "content": "hi" },
            { "role": "assistant", "content": "calling" },
            { "role": "tool", "tool_call_id": "call_x", "content": "lost" },
            { "role": "user", "content": "and?" }
        ]);
        let found = validate_value(&chain, None, None).unwrap();
        assert!(found.iter().any(|d| d.code == "orphan_result" && d.index == 2), "{found:?}");
        let out = repair_value(&chain, None, None, RepairOptions::default()).unwrap();
        assert!(out.changed);
        assert_eq!((out.format, out.provider), (Format::OpenAi, Provider::OpenAi));
        assert_eq!(out.messages.as_array().map(Vec::len), Some(3));
        assert!(validate_value(&out.messages, None, None).unwrap().is_empty());
    }

    /// An Anthropic request whose user message of a result and text reads as two
    /// messages: diagnostics and parse errors point into the request, not the chain read.
    #[test]
    fn paths_point_into_the_caller_s_json() {
        let request = json!({"system": "S", "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "a"}, {"type": "text", "text": "and?"}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "nope", "content": "x"}]}
        ]});
        let found = validate_value(&request, None, None).unwrap();
        let orphan = found.iter().find(|d| d.code == "orphan_result").unwrap();
        assert_eq!((orphan.index, orphan.path.as_str()), (5, "messages[3]"));
        let options = crate::chain::ParseChainOptions { format: None, repair: Some(false) };
        let err = crate::chain::parse_chain_value(&request, &options).err().unwrap();
        assert_eq!(err.path().as_deref(), Some("messages[3]"), "{err}");
        assert!(err.to_string().contains("messages[3]"), "{err}");
    }

    #[test]
    fn a_valid_chain_comes_back_as_given() {
        let chain =
            json!([{ "role": "user", "content": "hi", "x-extra": 1 }, { "role": "assistant", "content": "hello" }]);
        assert!(validate_value(&chain, None, Some(Provider::Anthropic)).unwrap().is_empty());
        let out = repair_value(&chain, None, None, RepairOptions::default()).unwrap();
        assert!(!out.changed && out.steps.is_empty());
        assert_eq!(out.messages, chain);
    }
}
