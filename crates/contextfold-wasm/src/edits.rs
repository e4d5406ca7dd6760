//! `normalizeToolCallIds` and `clearReasoning`: the chain edits of the core on their own.
//!
//! Both read any supported format (auto-detected by default), check that the chain parses
//! (two user messages in a row and calls waiting for their results, which providers take,
//! pass; any other broken rule throws with its code and path: `repairChain` it first),
//! apply the core's edit message by message (`ast::normalize_tool_call_ids_in`,
//! `ast::clear_reasoning_in`: nothing but the edit changes) and write the result back in
//! the format read. An unchanged chain comes back as given.
//!
//! The work happens in [`normalize_value`] and [`clear_reasoning_value`], plain Rust
//! that the host tests exercise; the exports only convert between JS values and Rust.

use crate::compact::field;
use crate::convert::{format_option, messages_from_js, read_messages, to_js};
use crate::error::{BindingError, JsResult};
use crate::options::invalid;
use crate::types::ChainFormat;
use contextfold::ast::{AstError, IdTemplate, RepairAction};
use contextfold::format::Format;
use contextfold::{ChainAst, Message};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsify::Tsify;
use wasm_bindgen::prelude::*;

/// Options of `normalizeToolCallIds` and `clearReasoning`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct EditOptions {
    /// The format of `messages`; `"auto"` (default) detects it.
    #[tsify(optional, type = "\"auto\" | ChainFormat")]
    pub format: Option<String>,
}

pub use contextfold::ast::RenamedId;

/// What `normalizeToolCallIds` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[tsify(type_params = "M = unknown")]
pub struct NormalizeResult {
    /// The chain, in the format and container it was read in (`M`: the input's type);
    /// the caller's own value when unchanged.
    #[tsify(type = "M")]
    pub messages: Value,
    /// Whether any id was rewritten (`renamed` is not empty).
    pub changed: bool,
    /// The format that was read (the detected one with `format: "auto"`).
    pub format: ChainFormat,
    /// Every id rewritten, in chain order.
    pub renamed: Vec<RenamedId>,
}

/// What `clearReasoning` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[tsify(type_params = "M = unknown")]
pub struct ClearReasoningResult {
    /// The chain, in the format and container it was read in (`M`: the input's type);
    /// the caller's own value when unchanged.
    #[tsify(type = "M")]
    pub messages: Value,
    /// Whether anything was removed.
    pub changed: bool,
    /// The format that was read (the detected one with `format: "auto"`).
    pub format: ChainFormat,
    /// Reasoning parts and tool-call signatures removed.
    pub removed: usize,
    /// The `id`s dropped from Responses items whose reasoning was removed (function calls,
    /// assistant messages; in a LangChain chain, the ids ChatOpenAI keeps for an AI
    /// message's function calls), in chain order: with `store: true` the API rejects such
    /// an item by its id without its reasoning item.
    #[serde(rename = "droppedIds")]
    pub dropped_ids: Vec<String>,
}

fn read_format(options: &JsValue) -> Result<Option<Format>, BindingError> {
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    if !options.is_object() {
        return Err(invalid("", "expected an object"));
    }
    crate::options::check_chain_keys(options)?;
    format_option(field::<String>(options, "format")?.as_deref())
}

/// Rewrites every tool-call id that does not fit `template` (e.g. `"toolu_{r:24:b}"`:
/// literal text, `{r:N:charset}` random characters, `{f}` the function name) with a
/// new one, unique in the chain and deterministic, and renames the results answering
/// it. Ids that already fit are kept. A bad template throws `invalid_template` with
/// path `template`.
///
/// @example
/// ```js
/// const { messages, renamed } = normalizeToolCallIds(chain, "call_{r:24:x}");
/// ```
#[wasm_bindgen(js_name = normalizeToolCallIds, unchecked_return_type = "NormalizeResult")]
pub fn normalize_tool_call_ids(
    #[wasm_bindgen(unchecked_param_type = "unknown", param_description = "an array of messages, or its JSON text")]
    messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] template: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "EditOptions")] options: JsValue,
) -> JsResult<JsValue> {
    let Some(template) = template.as_string() else {
        return Err(BindingError::InvalidTemplate("expected a template string, e.g. \"call_{r:24:x}\"".into()).into());
    };
    let format = read_format(&options)?;
    let value = messages_from_js(messages)?;
    to_js(&normalize_value(&value, &template, format)?)
}

pub fn normalize_value(value: &Value, template: &str, format: Option<Format>) -> Result<NormalizeResult, BindingError> {
    let template = IdTemplate::parse(template).map_err(|e| BindingError::InvalidTemplate(e.to_string()))?;
    let (messages, format) = read_messages(value, format)?;
    parses(&messages, value, format)?;
    // An id the reader made up (a Gemini call without one) is never written: its rename
    // is nothing the caller would see.
    let made_up: std::collections::HashSet<&str> = messages
        .iter()
        .flat_map(Message::tool_calls)
        .filter(|c| contextfold::format::gemini::id_made_up(c))
        .map(|c| c.id.as_str())
        .collect();
    let (normalized, mut renamed) = contextfold::ast::normalize_tool_call_ids_in(&messages, &template)?;
    renamed.retain(|r| !made_up.contains(r.old.as_str()));
    let changed = !renamed.is_empty();
    Ok(NormalizeResult {
        messages: written(value, changed, &normalized, format)?,
        changed,
        format,
        renamed: renamed.into_iter().collect(),
    })
}

/// Removes all reasoning: thinking / reasoning parts and tool-call signatures (Gemini's
/// `thoughtSignature`), as a chain moving to another provider needs; everything else is
/// kept as it was, except that in a Responses chain the items of a turn that lost its
/// reasoning lose their `id` (`droppedIds`). In a Gemini chain the first function call of each model step gets
/// the `skip_thought_signature_validator` placeholder instead (Gemini rejects it without).
///
/// @example
/// ```js
/// const { messages, removed } = clearReasoning(chain);
/// ```
#[wasm_bindgen(js_name = clearReasoning, unchecked_return_type = "ClearReasoningResult")]
pub fn clear_reasoning(
    #[wasm_bindgen(unchecked_param_type = "unknown", param_description = "an array of messages, or its JSON text")]
    messages: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "EditOptions")] options: JsValue,
) -> JsResult<JsValue> {
    let format = read_format(&options)?;
    let value = messages_from_js(messages)?;
    to_js(&clear_reasoning_value(&value, format)?)
}

pub fn clear_reasoning_value(value: &Value, format: Option<Format>) -> Result<ClearReasoningResult, BindingError> {
    let (messages, format) = read_messages(value, format)?;
    parses(&messages, value, format)?;
    let (mut cleared, mut removed) = contextfold::ast::clear_reasoning_in(&messages);
    let dropped_ids = match format {
        _ if cleared.len() != messages.len() => Vec::new(),
        Format::OpenAiResponses => {
            contextfold::format::responses::ids::drop_ids_without_reasoning(&messages, &mut cleared)
        }
        Format::LangChain => contextfold::format::langchain::drop_call_ids_without_reasoning(&messages, &mut cleared),
        _ => Vec::new(),
    };
    if cleared.iter().any(|m| m.parts.is_empty()) {
        // A message that held only reasoning is left with nothing, which providers reject:
        // the provider repair pass removes it (and merges what that leaves side by side
        // where roles must alternate).
        let options = contextfold::repair::RepairOptions::for_provider(contextfold::convert::provider_of(format));
        cleared = contextfold::repair::repair(&cleared, &options).messages;
    }
    if contextfold::convert::provider_of(format) == contextfold::repair::Provider::Gemini {
        // Gemini rejects a model step whose first call lost its signature.
        contextfold::ast::sign_first_calls(&mut cleared);
        // A placeholder signature removed is put back: a chain that had only those is
        // unchanged, and comes back as given.
        if cleared == messages {
            removed = 0;
        }
    }
    let changed = removed > 0;
    Ok(ClearReasoningResult {
        messages: written(value, changed, &cleared, format)?,
        changed,
        format,
        removed,
        dropped_ids,
    })
}

/// Whether the edits take `messages`: a chain that parses, or one that breaks only rules
/// providers do not have (two user messages in a row, calls still waiting for their
/// results: what the lenient parse compact uses would merge or answer, here left as they
/// are). Else the strict parse's error, located in `value`.
fn parses(messages: &[Message], value: &Value, format: Format) -> Result<(), BindingError> {
    let Err(error) = ChainAst::parse(messages) else { return Ok(()) };
    let tolerated = |a: &RepairAction| {
        matches!(a, RepairAction::MergedConsecutiveHuman { .. } | RepairAction::AddedMissingResult { .. })
    };
    let only_tolerated = matches!(error, AstError::ConsecutiveHuman { .. } | AstError::MissingToolResult { .. })
        && ChainAst::parse_repair(messages).is_ok_and(|p| p.repairs.iter().all(tolerated));
    if only_tolerated {
        return Ok(());
    }
    Err(BindingError::from(error).locate(value, format, messages.len()))
}

/// The edited messages in `format`, or the input as it came when nothing changed.
fn written(value: &Value, changed: bool, messages: &[Message], format: Format) -> Result<Value, BindingError> {
    Ok(contextfold::pipeline::written_like(value, changed, messages, format)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn openai_with_calls() -> Value {
        json!([
            { "role": "user", "content": "list and read" },
            { "role": "assistant", "content": null, "tool_calls": [
                { "id": "A1", "type": "function", "function": { "name": "ls", "arguments": "{}" } },
                { "id": "call_abcdefghijklmnopqrstuvwx", "type": "function",
                  "function": { "name": "cat", "arguments": "{}" } } ] },
            { "role": "tool", "tool_call_id": "A1", "content": "a.rs" },
            { "role": "tool", "tool_call_id": "call_abcdefghijklmnopqrstuvwx", "content": "fn main() {}" },
            { "role": "assistant", "content": "done" }
        ])
    }

    #[test]
    fn ids_a_reader_made_up_are_not_renamed() {
        // Gemini calls without ids: the ids read are made up and never written.
        let chain = json!([
            { "role": "user", "parts": [{ "text": "weather?" }] },
            { "role": "model", "parts": [{ "functionCall": { "name": "weather", "args": { "city": "Oslo" } } }] },
            { "role": "user", "parts": [{ "functionResponse": { "name": "weather", "response": { "t": 3 } } }] },
            { "role": "model", "parts": [{ "text": "3 degrees" }] }
        ]);
        let out = normalize_value(&chain, "toolu_{r:24:b}", None).unwrap();
        assert!(!out.changed && out.renamed.is_empty(), "{:?}", out.renamed);
        assert_eq!(out.messages, chain);
    }

    #[test]
    fn a_message_that_held_only_reasoning_goes_with_it() {
        // Its turn left empty would be rejected (validateChain: empty_message); Anthropic
        // then wants the two user messages it parted merged.
        let chain = json!({ "messages": [
            { "role": "user", "content": "think first" },
            { "role": "assistant", "content": [{ "type": "thinking", "thinking": "hmm", "signature": "sig" }] },
            { "role": "user", "content": "now answer" },
            { "role": "assistant", "content": [{ "type": "thinking", "thinking": "so", "signature": "s2" },
                                               { "type": "text", "text": "42" }] }
        ] });
        let out = clear_reasoning_value(&chain, None).unwrap();
        assert_eq!(out.removed, 2);
        let (messages, format) = read_messages(&out.messages, None).unwrap();
        let provider = contextfold::convert::provider_of(format);
        assert!(contextfold::repair::validate(&messages, provider).is_empty(), "{}", out.messages);
        assert!(messages.iter().all(|m| !m.parts.is_empty()));
        assert_eq!(messages.len(), 2, "{}", out.messages);
    }

    #[test]
    fn ids_not_fitting_are_renamed_in_calls_and_results() {
        let out = normalize_value(&openai_with_calls(), "call_{r:24:x}", None).unwrap();
        assert!(out.changed);
        assert_eq!(out.format, ChainFormat::OpenAi);
        assert_eq!(out.renamed.len(), 1);
        let new = &out.renamed.first().unwrap().new;
        assert!(new.starts_with("call_") && new.len() == 29, "{new}");
        assert_eq!(out.messages[1]["tool_calls"][0]["id"], json!(new));
        assert_eq!(out.messages[2]["tool_call_id"], json!(new));
        // The id that fits is kept.
        assert_eq!(out.messages[3]["tool_call_id"], json!("call_abcdefghijklmnopqrstuvwx"));
        // Deterministic.
        assert_eq!(normalize_value(&openai_with_calls(), "call_{r:24:x}", None).unwrap(), out);
    }

    #[test]
    fn a_fitting_chain_comes_back_as_given_and_a_bad_template_has_a_path() {
        let chain =
            json!([{ "role": "user", "content": "hi", "x-extra": 1 }, { "role": "assistant", "content": "yo" }]);
        let out = normalize_value(&chain, "call_{r:24:x}", None).unwrap();
        assert!(!out.changed && out.renamed.is_empty());
        assert_eq!(out.messages, chain);
        let err = normalize_value(&chain, "call_{r:24:q}", None).unwrap_err();
        assert_eq!((err.code(), err.path().as_deref()), ("invalid_template", Some("template")));
        let err = normalize_value(&json!([{ "role": "tool", "tool_call_id": "x", "content": "?" }]), "c{r:4:d}", None)
            .unwrap_err();
        assert_eq!(err.path().as_deref(), Some("[0]"));
    }

    #[test]
    fn reasoning_is_removed_and_the_rest_kept() {
        let chain = json!([
            { "role": "user", "content": "2+2?" },
            { "role": "assistant", "content": [
                { "type": "thinking", "thinking": "add them", "signature": "sig" },
                { "type": "text", "text": "4" } ] }
        ]);
        let out = clear_reasoning_value(&chain, None).unwrap();
        assert_eq!((out.changed, out.removed, out.format), (true, 1, ChainFormat::Anthropic));
        assert_eq!(
            out.messages,
            json!([{ "role": "user", "content": "2+2?" }, { "role": "assistant", "content": "4" }])
        );
        let again = clear_reasoning_value(&out.messages, None).unwrap();
        assert!(!again.changed);
        assert_eq!(again.messages, out.messages);
    }

    #[test]
    fn a_chat_openai_message_loses_its_replayed_output_and_call_ids_with_its_reasoning() {
        let rs = json!({"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAAA-SECRET",
                        "summary": [{"type": "summary_text", "text": "plan"}]});
        let fc = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "w",
                        "arguments": "{}", "status": "completed"});
        let chain = json!([
            {"type": "human", "data": {"content": "weather?"}},
            {"type": "ai", "data": {"content": [{"type": "reasoning", "reasoning": "plan"}],
              "tool_calls": [{"name": "w", "args": {}, "id": "call_1", "type": "tool_call"}],
              "additional_kwargs": {"reasoning": rs, "__openai_function_call_ids__": {"call_1": "fc_1"}},
              "response_metadata": {"model_provider": "openai", "output": [rs, fc]}}},
            {"type": "tool", "data": {"content": "sunny", "tool_call_id": "call_1"}},
        ]);
        let out = clear_reasoning_value(&chain, Some(Format::LangChain)).unwrap();
        assert_eq!(out.removed, 1);
        assert_eq!(out.dropped_ids, ["fc_1"]);
        let ai = &out.messages[1]["data"];
        assert!(!out.messages.to_string().contains("SECRET"), "{}", out.messages);
        assert!(ai["response_metadata"].get("output").is_none());
        assert!(ai["additional_kwargs"].get("__openai_function_call_ids__").is_none());
        assert_eq!(ai["tool_calls"][0]["id"], "call_1");
    }

    #[test]
    fn a_gemini_chain_with_only_the_placeholder_signature_is_unchanged() {
        let chain = json!([
            { "role": "user", "parts": [{ "text": "write it" }] },
            { "role": "model", "parts": [{ "functionCall": { "id": "call_1", "name": "write_file", "args": {} },
                "thoughtSignature": "skip_thought_signature_validator" }] },
            { "role": "user", "parts": [{ "functionResponse": { "id": "call_1", "name": "write_file",
                "response": { "output": "ok" } } }] }
        ]);
        let out = clear_reasoning_value(&chain, Some(Format::Gemini)).unwrap();
        assert_eq!((out.changed, out.removed), (false, 0));
        assert_eq!(out.messages, chain);
    }

    #[test]
    fn chains_providers_take_are_edited_as_they_are() {
        // Two user messages in a row (OpenAI takes them).
        let openai = json!([
            { "role": "user", "content": "first" },
            { "role": "user", "content": "second" },
            { "role": "assistant", "content": null, "tool_calls": [
                { "id": "A1", "type": "function", "function": { "name": "ls", "arguments": "{}" } }] },
            { "role": "tool", "tool_call_id": "A1", "content": "a b" }
        ]);
        let out = normalize_value(&openai, "call_{r:24:x}", None).unwrap();
        assert_eq!(out.renamed.len(), 1);
        let new_id = &out.renamed[0].new;
        assert_eq!(
            (&out.messages[2]["tool_calls"][0]["id"], &out.messages[3]["tool_call_id"]),
            (&json!(new_id), &json!(new_id))
        );
        assert_eq!(out.messages.as_array().unwrap()[..2], openai.as_array().unwrap()[..2]);
        let cleared = clear_reasoning_value(&openai, None).unwrap();
        assert_eq!((cleared.changed, &cleared.messages), (false, &openai));
        // A UI turn waiting for an approval, as `useChat` posts it mid-turn.
        let ui = json!([
            { "id": "u", "role": "user", "parts": [{ "type": "text", "text": "delete the file" }] },
            { "id": "a", "role": "assistant", "parts": [{ "type": "step-start" },
                { "type": "reasoning", "text": "I should ask", "state": "done" },
                { "type": "tool-rm", "toolCallId": "c1", "state": "approval-requested", "input": { "path": "x" },
                  "approval": { "id": "ap1" } }] }
        ]);
        let out = clear_reasoning_value(&ui, Some(Format::AiSdkUi)).unwrap();
        assert_eq!((out.changed, out.removed), (true, 1));
        let mut expected = ui.clone();
        expected[1]["parts"].as_array_mut().unwrap().remove(1);
        assert_eq!(out.messages, expected);
        let out = normalize_value(&ui, "call_{r:24:x}", Some(Format::AiSdkUi)).unwrap();
        assert_eq!(out.renamed.len(), 1);
        assert_eq!(out.messages[1]["parts"][2]["state"], "approval-requested");
    }
}
