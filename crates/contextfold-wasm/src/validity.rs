//! `validateChain` and `repairChain`: the provider-validity rules on their own.
//!
//! Both read any supported format (auto-detected by default) and apply the rules of
//! `options.provider`, by default the provider of the format read (OpenAI for OpenAI
//! Chat, Anthropic for Anthropic Messages, the shared rules for the native format).

use crate::compact::{field, provider_of};
use crate::convert::{format_option, messages_from_js, read_messages, to_js};
use crate::error::{BindingError, JsResult};
use crate::options::{invalid, provider_option};
use contextfold::format::Format;
use contextfold::repair::{self, Diagnostic, OrphanResults, Provider, RepairOptions, RepairStep};
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_VALIDITY: &str = r#"
/** The API whose rules a chain must keep. */
export type ProviderName = "generic" | "openai" | "anthropic" | "gemini";

/** Options of `validateChain`. */
export interface ValidateOptions {
    /** The format of `messages`; `"auto"` (default) detects it. */
    format?: "auto" | ChainFormat;
    /** Whose rules apply; default: the provider of the format read ("generic" for native). */
    provider?: ProviderName;
}

/** One rule the chain breaks. `index` and `path` locate it in the native messages. */
export interface Diagnostic {
    code:
        | "orphan_result" | "unanswered_call" | "result_not_after_call" | "duplicate_result"
        | "consecutive_same_role" | "empty_text" | "system_not_first" | "multiple_system"
        | "starts_with_tool_result" | "first_not_user" | "duplicate_call_id" | "invalid_part"
        | (string & {});
    index: number;
    path: string;
    message: string;
}

/** Options of `repairChain`. */
export interface RepairOptions extends ValidateOptions {
    /** A tool result answering no call: `"remove"` it (default) or `"answer"` it with a call. */
    orphanResults?: "remove" | "answer";
    /** Content of the result added for a call that has none. */
    pendingPlaceholder?: string;
    /** Merge consecutive user / assistant messages; default: where the provider requires alternation. */
    mergeSameRole?: boolean;
}

/** One change made by `repairChain` (or by `compact`'s final pass); `index` is the input message. */
export type RepairStep = { step: string; index: number; [key: string]: unknown };

/** What `repairChain` returns. */
export interface RepairResult {
    /** The repaired chain, in the format it was read in. */
    messages: unknown;
    /** Whether anything changed (`steps` is not empty). */
    changed: boolean;
    format: ChainFormat;
    provider: ProviderName;
    steps: RepairStep[];
}
"#;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RepairOutput {
    pub messages: Value,
    pub changed: bool,
    pub format: &'static str,
    pub provider: &'static str,
    pub steps: Vec<RepairStep>,
}

/// The JS name of a provider.
pub fn provider_name(p: Provider) -> &'static str {
    match p {
        Provider::Generic => "generic",
        Provider::OpenAi => "openai",
        Provider::Anthropic => "anthropic",
        Provider::Gemini => "gemini",
    }
}

fn read_common(options: &JsValue) -> Result<(Option<Format>, Option<Provider>), BindingError> {
    if options.is_undefined() || options.is_null() {
        return Ok((None, None));
    }
    if !options.is_object() {
        return Err(invalid("", "expected an object"));
    }
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
    let (messages, format) = read_messages(value, format)?;
    Ok(repair::validate(&messages, provider.unwrap_or_else(|| provider_of(format))))
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
    mut settings: RepairOptions,
) -> Result<RepairOutput, BindingError> {
    let (messages, format) = read_messages(value, format)?;
    settings.provider = provider.unwrap_or_else(|| provider_of(format));
    let repaired = repair::repair(&messages, &settings);
    let changed = !repaired.steps.is_empty();
    let messages = if changed {
        contextfold::format::write(&repaired.messages, format).map_err(|e| BindingError::Core(e.into()))?
    } else {
        value.clone()
    };
    Ok(RepairOutput {
        messages,
        changed,
        format: format.as_str(),
        provider: provider_name(settings.provider),
        steps: repaired.steps,
    })
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
        assert_eq!((out.format, out.provider), ("openai", "openai"));
        assert_eq!(out.messages.as_array().map(Vec::len), Some(3));
        assert!(validate_value(&out.messages, None, None).unwrap().is_empty());
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
