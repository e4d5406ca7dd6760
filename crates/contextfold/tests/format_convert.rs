#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! `format::convert`: every real transcript converted to every format gives a chain the
//! target provider accepts (`repair::validate` is empty), whose JSON reads back to the
//! same messages and writes back to the same JSON; and hand-written cross conversions
//! show each rule: ids in the target's template, foreign signatures dropped, Gemini
//! signatures kept when staying Gemini, markers and foreign fields dropped, system
//! placement and alternation.

mod common;

use contextfold::ast::IdTemplate;
use contextfold::convert::{convert, convert_messages, id_template, provider_of, Change};
use contextfold::format::{self, native, Format};
use contextfold::message::{Message, Part, Role};
use contextfold::repair::validate;
use serde_json::{json, Value};

/// `value` without any marker namespace, anywhere.
fn strip_markers(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(k, _)| !matches!(k.as_str(), "_openai" | "_anthropic" | "_gemini" | "_aisdk" | "_langchain"))
                .map(|(k, v)| (k, strip_markers(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(strip_markers).collect()),
        other => other,
    }
}

/// Converts and checks the result: valid for the target, reads back, fixed point.
fn check_conversion(wire: &Value, from: Format, to: Format, what: &str) -> (Value, Vec<Message>, Vec<Change>) {
    let converted = convert(wire, Some(from), to).unwrap_or_else(|e| panic!("{what}: {from:?} -> {to:?}: {e}"));
    let diagnostics = validate(&converted.messages, provider_of(to));
    assert!(diagnostics.is_empty(), "{what}: {from:?} -> {to:?}: {diagnostics:?}");
    let back = format::read(&converted.value, to).unwrap_or_else(|e| panic!("{what}: read back {to:?}: {e}"));
    // The wire keeps every call, result and text (writers may regroup tool messages,
    // drop a result name the wire has no field for, or rewrite arguments compactly).
    let calls = |ms: &[Message]| -> Vec<(String, String)> {
        ms.iter().flat_map(Message::tool_calls).map(|c| (c.id.clone(), c.name.clone())).collect()
    };
    let results = |ms: &[Message]| -> Vec<(String, Value)> {
        ms.iter()
            .flat_map(Message::tool_results)
            .map(|r| (r.call_id.clone(), strip_markers(serde_json::to_value(&r.content).unwrap())))
            .collect()
    };
    let texts =
        |ms: &[Message]| -> Vec<String> { ms.iter().map(Message::joined_text).filter(|t| !t.is_empty()).collect() };
    assert_eq!(calls(&back), calls(&converted.messages), "{what}: {from:?} -> {to:?}: calls");
    if to != Format::OpenAi {
        // OpenAI results are strings or text parts; Gemini joins texts: compare ids then.
        assert_eq!(results(&back).len(), results(&converted.messages).len(), "{what}: {from:?} -> {to:?}: results");
    }
    assert_eq!(texts(&back), texts(&converted.messages), "{what}: {from:?} -> {to:?}: texts");
    assert!(validate(&back, provider_of(to)).is_empty(), "{what}: {from:?} -> {to:?}: read back is valid");
    assert_eq!(format::write(&back, to).unwrap(), converted.value, "{what}: {from:?} -> {to:?} writes back");
    if let Some(template) = id_template(to) {
        let template = IdTemplate::parse(template).unwrap();
        for call in back.iter().flat_map(Message::tool_calls) {
            assert!(template.validate(&call.id, &call.name).is_ok() || from == to, "{what}: id {}", call.id);
        }
    }
    (converted.value, converted.messages, converted.changes)
}

#[test]
fn real_transcripts_convert_to_every_format() {
    let Some(files) = common::real_fixtures() else {
        return;
    };
    for file in files {
        let wire: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let (_, from) = format::read_auto(&wire).unwrap();
        for to in Format::ALL {
            let (value, _, _) = check_conversion(&wire, from, to, &name);
            // And back to the source: still valid for it.
            check_conversion(&value, to, from, &format!("{name} via {to:?}"));
        }
    }
}

#[test]
fn converting_to_the_same_format_changes_nothing_on_a_valid_chain() {
    let Some(files) = common::real_fixtures() else {
        return;
    };
    for file in files {
        let wire: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let (_, from) = format::read_auto(&wire).unwrap();
        let converted = convert(&wire, None, from).unwrap();
        let diagnostics = validate(&format::read(&wire, from).unwrap(), provider_of(from));
        if diagnostics.is_empty() {
            assert!(converted.changes.is_empty(), "{file:?}: {:?}", converted.changes);
            assert_eq!(converted.value, wire, "{file:?}");
        }
    }
}

fn anthropic_chain() -> Value {
    json!({"system": "Be brief.", "messages": [
        {"role": "user", "content": [{"type": "text", "text": "List files", "cache_control": {"type": "ephemeral"}}]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "I should call ls.", "signature": "EqQBanthropic"},
            {"type": "redacted_thinking", "data": "EmwKredacted"},
            {"type": "text", "text": "Listing."},
            {"type": "tool_use", "id": "toolu_01ABCdefGHIjklMNOpqrSTUv", "name": "ls", "input": {"dir": "."}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01ABCdefGHIjklMNOpqrSTUv", "content": "a.rs"}]},
        {"role": "assistant", "content": "One file: a.rs."}]})
}

fn gemini_chain() -> Value {
    json!({"systemInstruction": {"parts": [{"text": "Be brief."}]}, "contents": [
        {"role": "user", "parts": [{"text": "List files"}]},
        {"role": "model", "parts": [
            {"text": "Thinking about ls", "thought": true, "thoughtSignature": "gemThought"},
            {"functionCall": {"name": "ls", "args": {"dir": "."}}, "thoughtSignature": "gemCall"}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "ls", "response": {"output": "a.rs"}}}]},
        {"role": "model", "parts": [{"text": "One file: a.rs.", "thoughtSignature": "gemText"}]}]})
}

fn openai_chain() -> Value {
    json!([
        {"role": "system", "content": "Be brief."},
        {"role": "system", "content": "Really."},
        {"role": "user", "content": "List files", "name": "ann"},
        {"role": "assistant", "content": null, "reasoning_content": "call ls", "tool_calls": [
            {"id": "call_0_5f3c-uuid-like", "type": "function", "function": {"name": "ls", "arguments": "{\"dir\":\".\"}"}},
            {"id": "call_1_other", "type": "function", "function": {"name": "cat", "arguments": "not json"}}]},
        {"role": "tool", "tool_call_id": "call_0_5f3c-uuid-like", "content": "a.rs"},
        {"role": "tool", "tool_call_id": "call_1_other", "content": "fn main() {}"},
        {"role": "user", "content": "thanks"},
        {"role": "user", "content": "bye"}])
}

#[test]
fn anthropic_to_gemini_drops_foreign_thinking_and_renames_ids() {
    let (value, messages, changes) = check_conversion(&anthropic_chain(), Format::Anthropic, Format::Gemini, "a->g");
    assert!(messages.iter().flat_map(|m| &m.parts).all(|p| !matches!(p, Part::Reasoning(_))));
    assert!(changes.contains(&Change::DroppedSignature { index: 2, part: 0 }));
    assert!(changes.contains(&Change::DroppedReasoning { index: 2, part: 1 }));
    assert!(changes.iter().any(
        |c| matches!(c, Change::DroppedFields { index: 1, part: Some(0), fields } if fields == &["cache_control"])
    ));
    assert!(changes
        .iter()
        .any(|c| matches!(c, Change::RenamedToolCallId { old, .. } if old == "toolu_01ABCdefGHIjklMNOpqrSTUv")));
    let call = &value["contents"][1]["parts"][1];
    let id = call["functionCall"]["id"].as_str().unwrap();
    assert!(id.starts_with("call_") && id.len() == 29, "{id}");
    // Gemini gets the placeholder signature on a call it did not make.
    assert_eq!(call["thoughtSignature"], "skip_thought_signature_validator");
    assert_eq!(value["contents"][2]["parts"][0]["functionResponse"]["id"], id);
    assert_eq!(value["contents"][2]["parts"][0]["functionResponse"]["name"], "ls");
    assert_eq!(value["systemInstruction"], json!({"parts": [{"text": "Be brief."}]}));
}

#[test]
fn gemini_to_anthropic_drops_gemini_signatures_and_made_up_ids_get_the_anthropic_template() {
    let (value, messages, changes) = check_conversion(&gemini_chain(), Format::Gemini, Format::Anthropic, "g->a");
    assert!(messages.iter().flat_map(|m| &m.parts).all(|p| !matches!(p, Part::Reasoning(_))));
    assert!(messages.iter().flat_map(Message::tool_calls).all(|c| c.signature.is_none()));
    assert!(changes.iter().any(|c| matches!(c, Change::DroppedSignature { index: 2, part: 1 })));
    let text = serde_json::to_string(&value).unwrap();
    assert!(!text.contains("gem") && !text.contains("_gemini"), "{text}");
    let id = value["messages"][1]["content"][0]["id"].as_str().unwrap();
    assert!(id.starts_with("toolu_"), "{id}");
    assert_eq!(value["messages"][2]["content"][0]["tool_use_id"], id);
    assert_eq!(value["system"], "Be brief.");
}

#[test]
fn gemini_to_gemini_keeps_signatures_on_their_parts_and_no_made_up_id() {
    let wire = gemini_chain();
    let converted = convert(&wire, None, Format::Gemini).unwrap();
    assert_eq!(converted.from, Format::Gemini);
    assert!(converted.changes.is_empty(), "{:?}", converted.changes);
    assert_eq!(converted.value, wire);
}

#[test]
fn gemini_to_openai_keeps_made_up_ids_that_fit_and_drops_reasoning() {
    let (value, _, changes) = check_conversion(&gemini_chain(), Format::Gemini, Format::OpenAi, "g->o");
    assert!(!changes.iter().any(|c| matches!(c, Change::RenamedToolCallId { .. })), "{changes:?}");
    // The official Chat Completions types have no reasoning field (issue 14).
    assert!(value[2].get("reasoning_content").is_none(), "{}", value[2]);
    assert!(changes.iter().any(|c| matches!(c, Change::DroppedReasoning { .. })), "{changes:?}");
    let id = value[2]["tool_calls"][0]["id"].as_str().unwrap();
    assert_eq!(value[3]["tool_call_id"], id);
    // No legacy `name` on the tool message: the official type has none (issue 14).
    assert!(value[3].get("name").is_none(), "{}", value[3]);
}

#[test]
fn openai_to_anthropic_merges_systems_and_users_and_fixes_arguments() {
    let (value, _, changes) = check_conversion(&openai_chain(), Format::OpenAi, Format::Anthropic, "o->a");
    assert_eq!(value["system"], json!([{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Really."}]));
    let messages = value["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles.first(), Some(&"user"));
    // The user texts after the results join the results' user message (issue 14: no two user
    // messages in a row on the wire).
    let last = messages.last().unwrap()["content"].as_array().unwrap();
    let types: Vec<&str> = last.iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["tool_result", "tool_result", "text", "text"]);
    assert_eq!(last[2..], [json!({"type": "text", "text": "thanks"}), json!({"type": "text", "text": "bye"})]);
    assert!(messages.windows(2).all(|w| w[0]["role"] != w[1]["role"]), "{messages:?}");
    assert!(changes.iter().any(|c| matches!(c, Change::SanitizedArguments { replaced: true, .. })));
    assert!(changes.iter().any(|c| matches!(c, Change::DroppedReasoning { .. })));
    assert!(changes.iter().any(|c| matches!(c, Change::DroppedFields { fields, .. } if fields == &["name"])));
    assert_eq!(changes.iter().filter(|c| matches!(c, Change::RenamedToolCallId { .. })).count(), 2);
    assert!(changes.iter().any(|c| matches!(c, Change::Repaired { .. })));
    // The last two user messages joined the results' turn or each other: alternation holds.
    assert!(validate(&format::read(&value, Format::Anthropic).unwrap(), provider_of(Format::Anthropic)).is_empty());
}

#[test]
fn openai_to_aisdk_ui_to_anthropic_validates_clean() {
    let (ui, messages, _) = check_conversion(&openai_chain(), Format::OpenAi, Format::AiSdkUi, "o->ui");
    assert_eq!(format::detect(&ui).unwrap(), Format::AiSdkUi);
    // The two systems stay, the users stay apart (no alternation rule for the AI SDK),
    // and the calls and their results are one assistant UIMessage.
    let roles: Vec<&str> = ui.as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "system", "user", "assistant", "user", "user"]);
    let parts = ui[3]["parts"].as_array().unwrap();
    let types: Vec<&str> = parts.iter().map(|p| p["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["step-start", "reasoning", "tool-ls", "tool-cat"]);
    assert_eq!(parts[2]["state"], "output-available");
    assert_eq!(parts[2]["output"], "a.rs");
    assert_eq!(parts[3]["input"], json!({"input": "not json"}), "arguments that were not JSON are wrapped, not lost");
    assert!(ui.as_array().unwrap().iter().all(|m| m["id"].is_string()));
    assert_eq!(messages.iter().flat_map(Message::tool_results).count(), 2);
    let (value, anthropic, _) = check_conversion(&ui, Format::AiSdkUi, Format::Anthropic, "o->ui->a");
    assert_eq!(value["system"], json!([{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Really."}]));
    let calls: Vec<&str> = anthropic.iter().flat_map(Message::tool_calls).map(|c| c.id.as_str()).collect();
    assert_eq!(calls.len(), 2);
    assert!(calls.iter().all(|id| id.starts_with("toolu_")));
    // UIMessage fields (ids, step-start) do not leak into Anthropic.
    let text = value.to_string();
    assert!(!text.contains("msg-") && !text.contains("step-start") && !text.contains("_aisdk"), "{text}");
}

#[test]
fn openai_to_gemini_and_native_keep_what_they_can() {
    let (value, _, _) = check_conversion(&openai_chain(), Format::OpenAi, Format::Gemini, "o->g");
    assert_eq!(value["systemInstruction"]["parts"].as_array().unwrap().len(), 2);
    let (native_value, messages, changes) = check_conversion(&openai_chain(), Format::OpenAi, Format::Native, "o->n");
    // Native keeps fields, markers (recorded as OpenAI's) and reasoning.
    assert!(!changes.iter().any(|c| matches!(c, Change::DroppedFields { .. } | Change::DroppedReasoning { .. })));
    assert!(matches!(messages[3].parts[0], Part::Reasoning(_)));
    assert!(serde_json::to_string(&native_value).unwrap().contains(r#""hub":{"from":"openai""#));
    // They go back to OpenAI only.
    let (gemini, _, _) = check_conversion(&native_value, Format::Native, Format::Gemini, "n->g");
    assert!(!gemini.to_string().contains("_openai") && !gemini.to_string().contains("hub"));
}

#[test]
fn a_summarization_pair_is_written_in_the_target_shape() {
    let chain = vec![
        Message::text(Role::System, "s"),
        Message::text(Role::User, "task"),
        Message::new(
            Role::Assistant,
            vec![Part::ToolCall(contextfold::message::ToolCallPart {
                id: "summary_1".into(),
                name: contextfold::ast::SUMMARIZATION_TOOL_NAME.into(),
                arguments: contextfold::ast::SUMMARIZATION_TOOL_ARGS.into(),
                signature: None,
                extra: Default::default(),
            })],
        ),
        Message::tool_result("summary_1", contextfold::ast::SUMMARIZATION_TOOL_NAME, "the summary"),
        Message::text(Role::User, "go on"),
    ];
    let wire = native::write(&chain);
    let (value, _, _) = check_conversion(&wire, Format::Native, Format::Anthropic, "summary");
    assert_eq!(value["messages"][1]["content"][0]["type"], "tool_use");
    assert_eq!(value["messages"][2]["content"][0]["type"], "tool_result");
    let (value, _, _) = check_conversion(&wire, Format::Native, Format::Gemini, "summary");
    assert!(value["contents"][1]["parts"][0]["functionCall"].is_object());
    assert_eq!(value["contents"][2]["parts"][0]["functionResponse"]["response"], json!({"output": "the summary"}));
    let (messages, _) = convert_messages(&chain, Format::Native, Format::OpenAi);
    assert!(validate(&messages, provider_of(Format::OpenAi)).is_empty());
}

#[test]
fn unknown_input_is_an_error_naming_the_first_message_that_does_not_fit() {
    let err = convert(
        &json!([{"role": "user", "content": "a"}, {"role": "model", "parts": [{"text": "b"}]}]),
        None,
        Format::Gemini,
    )
    .unwrap_err();
    assert_eq!((err.code(), err.path()), ("unknown_format", Some("[1]")));
    let err = convert(&json!({"contents": [{"role": "user", "content": "x"}]}), None, Format::OpenAi).unwrap_err();
    assert_eq!((err.code(), err.path()), ("unknown_format", Some("contents[0]")));
}
