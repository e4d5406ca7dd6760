#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! `convert` between the AI SDK's two shapes keeps what `convertToModelMessages` carries
//! (signatures, call metadata, provider-executed calls), and a Responses item's id goes
//! where the AI SDK's OpenAI package keeps it, and back.

use contextfold::convert::{convert, Change};
use contextfold::format::Format;
use serde_json::{json, Value};

/// Fields dropped from parts (a `UIMessage`'s `id` has no place in a `ModelMessage`).
fn dropped_fields(changes: &[Change]) -> Vec<&Change> {
    changes.iter().filter(|c| matches!(c, Change::DroppedFields { part: Some(_), .. })).collect()
}

fn ui_chain() -> Value {
    json!([
        {"id": "u", "role": "user", "parts": [{"type": "text", "text": "weather?"}]},
        {"id": "a", "role": "assistant", "parts": [
            {"type": "step-start"},
            {"type": "reasoning", "text": "I should call the tool", "providerMetadata": {"anthropic": {"signature": "SIG"}}},
            {"type": "tool-weather", "toolCallId": "c1", "state": "output-available", "input": {"city": "Paris"},
             "output": "sunny", "callProviderMetadata": {"google": {"thoughtSignature": "CSIG"}}}]}])
}

#[test]
fn ui_to_model_keeps_signatures_and_call_metadata() {
    let out = convert(&ui_chain(), Some(Format::AiSdkUi), Format::AiSdk).unwrap();
    let assistant = &out.value[1]["content"];
    assert_eq!(assistant[0]["providerOptions"], json!({"anthropic": {"signature": "SIG"}}), "{assistant}");
    assert_eq!(assistant[1]["providerOptions"], json!({"google": {"thoughtSignature": "CSIG"}}), "{assistant}");
    // `convertToModelMessages` gives the result its call's options too.
    assert_eq!(out.value[2]["content"][0]["providerOptions"], json!({"google": {"thoughtSignature": "CSIG"}}));
    assert!(dropped_fields(&out.changes).is_empty(), "{:?}", out.changes);
}

#[test]
fn model_to_ui_keeps_signatures_and_call_metadata() {
    let model = convert(&ui_chain(), Some(Format::AiSdkUi), Format::AiSdk).unwrap().value;
    let out = convert(&model, Some(Format::AiSdk), Format::AiSdkUi).unwrap();
    let parts = &out.value[1]["parts"];
    let reasoning = parts.as_array().unwrap().iter().find(|p| p["type"] == "reasoning").unwrap();
    assert_eq!(reasoning["providerMetadata"], json!({"anthropic": {"signature": "SIG"}}), "{parts}");
    let tool = parts.as_array().unwrap().iter().find(|p| p["type"] == "tool-weather").unwrap();
    assert_eq!(tool["callProviderMetadata"], json!({"google": {"thoughtSignature": "CSIG"}}), "{parts}");
    // The result's options are its call's: nothing of its own is lost.
    assert!(tool.get("providerOptions").is_none(), "{tool}");
    assert!(dropped_fields(&out.changes).is_empty(), "{:?}", out.changes);
}

#[test]
fn a_provider_executed_ui_call_goes_with_its_result_into_the_assistant_message() {
    let ui = json!([
        {"id": "u", "role": "user", "parts": [{"type": "text", "text": "search"}]},
        {"id": "a", "role": "assistant", "parts": [
            {"type": "step-start"},
            {"type": "tool-web_search", "toolCallId": "ws1", "state": "output-available", "input": {"q": "x"},
             "output": {"hits": 1}, "providerExecuted": true,
             "callProviderMetadata": {"anthropic": {"k": 1}}},
            {"type": "text", "text": "found it"}]}]);
    let out = convert(&ui, Some(Format::AiSdkUi), Format::AiSdk).unwrap();
    assert_eq!(out.value.as_array().unwrap().len(), 2, "{}", out.value);
    assert_eq!(
        out.value[1]["content"],
        json!([
            {"type": "tool-call", "toolCallId": "ws1", "toolName": "web_search", "input": {"q": "x"},
             "providerExecuted": true, "providerOptions": {"anthropic": {"k": 1}}},
            {"type": "tool-result", "toolCallId": "ws1", "toolName": "web_search",
             "output": {"type": "json", "value": {"hits": 1}}, "providerOptions": {"anthropic": {"k": 1}}},
            {"type": "text", "text": "found it"}])
    );
    assert!(dropped_fields(&out.changes).is_empty(), "{:?}", out.changes);
}

fn responses_chain() -> Value {
    json!([
        {"role": "user", "content": "hi"},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "think"}], "encrypted_content": "ENC"},
        {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
        {"role": "assistant", "content": "done"}])
}

#[test]
fn responses_reasoning_and_call_ids_survive_a_round_trip_through_the_ai_sdk() {
    for via in [Format::AiSdk, Format::AiSdkUi] {
        let mid = convert(&responses_chain(), Some(Format::OpenAiResponses), via).unwrap();
        let text = mid.value.to_string();
        assert!(text.contains(r#""itemId":"fc_1""#) && text.contains(r#""itemId":"rs_1""#), "{via:?}: {text}");
        assert!(dropped_fields(&mid.changes).is_empty(), "{via:?}: {:?}", mid.changes);
        let back = convert(&mid.value, Some(via), Format::OpenAiResponses).unwrap();
        let items = back.value.as_array().unwrap();
        let reasoning = items.iter().find(|i| i["type"] == "reasoning").expect("reasoning kept");
        assert_eq!((&reasoning["id"], &reasoning["encrypted_content"]), (&json!("rs_1"), &json!("ENC")), "{via:?}");
        let call = items.iter().find(|i| i["type"] == "function_call").unwrap();
        assert_eq!(call["id"], "fc_1", "{via:?}");
        let lost = |c: &&Change| matches!(c, Change::DroppedReasoning { .. } | Change::DroppedSignature { .. });
        assert!(dropped_fields(&back.changes).is_empty(), "{via:?}: {:?}", back.changes);
        assert!(!back.changes.iter().any(|c| lost(&c)), "{via:?}: {:?}", back.changes);
    }
}

#[test]
fn a_function_call_id_no_target_holds_is_listed() {
    // Native keeps it for the way back (see convert_native_hub.rs).
    for to in [Format::Anthropic, Format::OpenAi, Format::Gemini, Format::LangChain] {
        let out = convert(&responses_chain(), Some(Format::OpenAiResponses), to).unwrap();
        let listed = out.changes.iter().any(|c| {
            matches!(c, Change::DroppedFields { index: 1, part: Some(p), fields } if *p > 0 && fields.contains(&"id".to_string()))
        });
        assert!(listed, "{to:?}: {:?}", out.changes);
    }
}

#[test]
fn a_system_part_field_a_model_message_has_no_place_for_is_listed() {
    let ui = json!([{"id": "s", "role": "system", "parts": [
        {"type": "text", "text": "Be brief.", "providerMetadata": {"anthropic": {"cacheControl": {"type": "ephemeral"}}}}]}]);
    let out = convert(&ui, Some(Format::AiSdkUi), Format::AiSdk).unwrap();
    let listed = dropped_fields(&out.changes)
        .iter()
        .any(|c| matches!(c, Change::DroppedFields { fields, .. } if fields.contains(&"providerMetadata".to_string())));
    assert!(listed, "{:?}", out.changes);
}
