#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! `@langchain/openai`'s ChatOpenAI (Responses API) keeps a reasoning item whole in
//! `AIMessage.additional_kwargs.reasoning` and sends it back from there: `convert` reads
//! it as the Responses item it is and writes an OpenAI reasoning item back there, so the
//! encrypted reasoning survives both directions.

use contextfold::convert::{convert, Change};
use contextfold::format::{self, Format};
use serde_json::{json, Value};

fn js(class: &str, kwargs: Value) -> Value {
    json!({"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", class], "kwargs": kwargs})
}

fn rs1() -> Value {
    json!({"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAAAENC1",
           "summary": [{"type": "summary_text", "text": "Need to read f."}]})
}

fn rs2() -> Value {
    json!({"type": "reasoning", "id": "rs_2", "encrypted_content": "gAAAAENC2", "summary": []})
}

/// What ChatOpenAI (`useResponsesApi`, `zdrEnabled`) returns, serialized by `toJSON()`.
fn chat_openai_history() -> Value {
    json!([
        js("HumanMessage", json!({"content": "Read f.", "additional_kwargs": {}, "response_metadata": {}})),
        js(
            "AIMessage",
            json!({
            "id": "resp_0",
            "content": [{"type": "reasoning", "reasoning": "Need to read f."}],
            "tool_calls": [{"name": "read", "args": {"path": "f"}, "type": "tool_call", "id": "call_1"}],
            "invalid_tool_calls": [],
            "additional_kwargs": {"reasoning": rs1(), "__openai_function_call_ids__": {"call_1": "fc_1"}},
            "response_metadata": {"model_provider": "openai", "model": "gpt-5"}})
        ),
        js(
            "ToolMessage",
            json!({"tool_call_id": "call_1", "content": "hi", "additional_kwargs": {}, "response_metadata": {}})
        ),
        js(
            "AIMessage",
            json!({
            "id": "resp_1",
            "content": [{"type": "text", "text": "f says hi", "annotations": []}],
            "tool_calls": [],
            "invalid_tool_calls": [],
            "additional_kwargs": {"reasoning": rs2()},
            "response_metadata": {"model_provider": "openai", "model": "gpt-5"}})
        ),
    ])
}

fn responses_input() -> Value {
    json!([
        {"role": "user", "content": "Read f."},
        rs1(),
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read", "arguments": "{\"path\":\"f\"}", "status": "completed"},
        {"type": "function_call_output", "call_id": "call_1", "output": "hi"},
        rs2(),
        {"type": "message", "id": "msg_2", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "f says hi", "annotations": []}]},
    ])
}

fn reasoning_items(responses: &Value) -> Vec<Value> {
    responses.as_array().unwrap().iter().filter(|i| i["type"] == "reasoning").cloned().collect()
}

fn dropped_reasoning(changes: &[Change]) -> bool {
    changes.iter().any(|c| matches!(c, Change::DroppedReasoning { .. } | Change::DroppedSignature { .. }))
}

#[test]
fn chat_openai_history_round_trips_exactly() {
    let wire = chat_openai_history();
    let messages = format::read(&wire, Format::LangChain).unwrap();
    // One reasoning part, not one for the item and one for its display block.
    let reasoning = messages[1].parts.iter().filter(|p| matches!(p, contextfold::Part::Reasoning(_))).count();
    assert_eq!(reasoning, 1);
    assert_eq!(format::write(&messages, Format::LangChain).unwrap(), wire);
}

#[test]
fn chat_openai_reasoning_goes_to_the_responses_api_whole() {
    let out = convert(&chat_openai_history(), Some(Format::LangChain), Format::OpenAiResponses).unwrap();
    assert!(!dropped_reasoning(&out.changes), "{:?}", out.changes);
    assert_eq!(reasoning_items(&out.value), vec![rs1(), rs2()]);
}

#[test]
fn responses_reasoning_goes_where_chat_openai_sends_it_from() {
    let out = convert(&responses_input(), Some(Format::OpenAiResponses), Format::LangChain).unwrap();
    assert!(!dropped_reasoning(&out.changes), "{:?}", out.changes);
    let ai = &out.value[1]["data"];
    assert_eq!(ai["additional_kwargs"]["reasoning"], rs1());
    assert_eq!(ai["content"], json!([{"type": "reasoning", "reasoning": "Need to read f."}]));
    assert_eq!(out.value[3]["data"]["additional_kwargs"]["reasoning"], rs2());
    // And back: the same items.
    let back = convert(&out.value, Some(Format::LangChain), Format::OpenAiResponses).unwrap();
    assert_eq!(reasoning_items(&back.value), vec![rs1(), rs2()]);
}

#[test]
fn a_summary_of_several_entries_goes_over_as_it_is() {
    let item = json!({"type": "reasoning", "id": "rs_9", "encrypted_content": "ENC",
                      "summary": [{"type": "summary_text", "text": "One."}, {"type": "summary_text", "text": "Two."}]});
    let input = json!([{"role": "user", "content": "q"}, item, {"role": "assistant", "content": "a"}]);
    let lc = convert(&input, Some(Format::OpenAiResponses), Format::LangChain).unwrap().value;
    assert_eq!(lc[1]["data"]["additional_kwargs"]["reasoning"], item);
    let back = convert(&lc, Some(Format::LangChain), Format::OpenAiResponses).unwrap().value;
    assert_eq!(reasoning_items(&back), vec![item]);
}

#[test]
fn chat_openai_reasoning_goes_where_the_ai_sdk_openai_package_reads_it() {
    let out = convert(&chat_openai_history(), Some(Format::LangChain), Format::AiSdk).unwrap();
    assert!(!dropped_reasoning(&out.changes), "{:?}", out.changes);
    let reasoning: Vec<&Value> = out
        .value
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|p| p["type"] == "reasoning")
        .collect();
    assert_eq!(reasoning.len(), 2, "{}", out.value);
    assert_eq!(
        reasoning[0]["providerOptions"]["openai"],
        json!({"itemId": "rs_1", "reasoningEncryptedContent": "gAAAAENC1"})
    );
    assert_eq!(
        reasoning[1]["providerOptions"]["openai"],
        json!({"itemId": "rs_2", "reasoningEncryptedContent": "gAAAAENC2"})
    );
    // And from the AI SDK back to LangChain, where ChatOpenAI sends it from.
    let lc = convert(&out.value, Some(Format::AiSdk), Format::LangChain).unwrap().value;
    assert_eq!(lc[1]["data"]["additional_kwargs"]["reasoning"]["id"], "rs_1");
    assert_eq!(lc[1]["data"]["additional_kwargs"]["reasoning"]["encrypted_content"], "gAAAAENC1");
    assert_eq!(lc[3]["data"]["additional_kwargs"]["reasoning"]["encrypted_content"], "gAAAAENC2");
}

#[test]
fn chat_openai_reasoning_is_still_foreign_to_anthropic() {
    let out = convert(&chat_openai_history(), Some(Format::LangChain), Format::Anthropic).unwrap();
    assert!(!out.value.to_string().contains("gAAAAENC"), "{}", out.value);
    assert!(dropped_reasoning(&out.changes));
}

/// What ChatOpenAI (Responses API, no ZDR) returns for a reasoning item and a call: the
/// output items also kept in `response_metadata.output`, which it sends back verbatim.
fn replayed_history() -> Value {
    let fc1 = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read",
                     "arguments": "{\"path\":\"f\"}", "status": "completed"});
    json!([
        js("HumanMessage", json!({"content": "Read f."})),
        js(
            "AIMessage",
            json!({
            "id": "resp_0",
            "content": [{"type": "reasoning", "reasoning": "Need to read f."}],
            "tool_calls": [{"name": "read", "args": {"path": "f"}, "type": "tool_call", "id": "call_1"}],
            "additional_kwargs": {"reasoning": rs1(), "__openai_function_call_ids__": {"call_1": "fc_1"}},
            "response_metadata": {"model_provider": "openai", "model": "gpt-5", "output": [rs1(), fc1]}})
        ),
        js("ToolMessage", json!({"tool_call_id": "call_1", "content": "hi"})),
    ])
}

#[test]
fn a_replayed_output_goes_when_its_message_is_edited() {
    let wire = replayed_history();
    let mut messages = format::read(&wire, Format::LangChain).unwrap();
    assert_eq!(format::write(&messages, Format::LangChain).unwrap(), wire, "kept while unchanged");
    // An edit of the message: its arguments masked.
    if let Some(contextfold::Part::ToolCall(call)) = messages[1].parts.get_mut(1) {
        call.arguments = "{\"path\":\"[masked]\"}".into();
    } else {
        panic!("{:?}", messages[1].parts);
    }
    let out = format::write(&messages, Format::LangChain).unwrap();
    let kwargs = &out[1]["kwargs"];
    assert!(kwargs["response_metadata"].get("output").is_none(), "{out}");
    assert_eq!(kwargs["response_metadata"]["model"], "gpt-5");
    assert_eq!(kwargs["tool_calls"][0]["args"]["path"], "[masked]");
}
