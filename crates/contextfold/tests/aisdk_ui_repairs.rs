#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! AI SDK `UIMessage`s through repair and compaction: what comes back must be what the
//! `ai` package accepts and tells the model (the JS side checks with `ai` itself, in
//! `tests/node/aisdk-ui-repairs.test.mjs`).

use contextfold::format::{self, Format};
use contextfold::message::{Extra, Message, Part, Role, ToolCallPart};
use contextfold::repair::{repair, RepairOptions};
use serde_json::{json, Value};

fn repaired(wire: &Value) -> Value {
    let messages = format::read(wire, Format::AiSdkUi).unwrap();
    let out = repair(&messages, &RepairOptions::default());
    format::write(&out.messages, Format::AiSdkUi).unwrap()
}

/// A call left pending before a new user message gets the repair's answer in its part
/// (`ai` throws on a call without result there), its other fields kept, a call the user
/// stopped while its input streamed too; a call awaiting approval stays as `ai` holds it
/// (it leaves it out).
#[test]
fn a_stale_pending_tool_part_gets_the_repairs_answer() {
    let approval = json!({"id": "ap1", "approved": true});
    let wire = json!([
        {"id": "u0", "role": "user", "parts": [{"type": "text", "text": "1+1?"}]},
        {"id": "a0", "role": "assistant", "parts": [{"type": "step-start"},
            {"type": "tool-calc", "toolCallId": "c1", "state": "input-available", "input": {"a": 1}, "title": "Calc"},
            {"type": "tool-rm", "toolCallId": "c2", "state": "approval-responded", "input": {}, "approval": approval},
            {"type": "tool-ls", "toolCallId": "c3", "state": "approval-requested", "input": {}, "approval": {"id": "ap3"}},
            {"type": "tool-cat", "toolCallId": "c4", "state": "input-streaming", "input": {"pa": null}}]},
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "never mind"}]}
    ]);
    let out = repaired(&wire);
    let parts = &out[1]["parts"];
    let placeholder = contextfold::repair::DEFAULT_PENDING_PLACEHOLDER;
    assert_eq!(
        parts[1],
        json!({"type": "tool-calc", "toolCallId": "c1", "state": "output-error", "input": {"a": 1},
               "errorText": placeholder, "title": "Calc"})
    );
    assert_eq!(parts[2]["state"], "output-error");
    assert_eq!(parts[2]["approval"], approval);
    assert_eq!(parts[3], wire[1]["parts"][3]);
    assert_eq!(
        parts[4],
        json!({"type": "tool-cat", "toolCallId": "c4", "state": "output-error", "input": {"pa": null},
               "errorText": placeholder})
    );
    // Read again, the answered calls have their result.
    let back = format::read(&out, Format::AiSdkUi).unwrap();
    let answered: Vec<&str> = back.iter().flat_map(Message::tool_results).map(|r| r.call_id.as_str()).collect();
    assert_eq!(answered, ["c1", "c2", "c4"]);
}

/// Data and source parts are content: a message (or a step) of them only is kept, and
/// they come back as they were; another format does without them, as `ai` does.
#[test]
fn data_and_source_only_messages_survive() {
    let wire = json!([
        {"id": "u1", "role": "user", "parts": [{"type": "data-context", "data": {"page": "/billing"}}]},
        {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "Why?"}]},
        {"id": "a1", "role": "assistant", "parts": [{"type": "step-start"},
            {"type": "data-card", "id": "inv", "data": {"invoice": "INV-7"}}]},
        {"id": "a2", "role": "assistant", "parts": [{"type": "step-start"},
            {"type": "tool-search", "toolCallId": "c", "state": "output-available", "input": {"q": "x"}, "output": "found"},
            {"type": "step-start"},
            {"type": "source-url", "sourceId": "s1", "url": "https://example.com"},
            {"type": "source-document", "sourceId": "d1", "mediaType": "application/pdf", "title": "Spec"},
            {"type": "data-suggestions", "data": ["more?"]}]},
        {"id": "u3", "role": "user", "parts": [{"type": "text", "text": "thanks"}]}
    ]);
    assert_eq!(repaired(&wire), wire);
    let messages = format::read(&wire, Format::AiSdkUi).unwrap();
    let texts: Vec<&str> = messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter(|p| p.is_native_block())
        .filter_map(|p| if let Part::Text(t) = p { Some(t.text.as_str()) } else { None })
        .collect();
    assert_eq!(
        texts,
        [
            "[data-context: {\"page\":\"/billing\"}]",
            "[data-card: {\"invoice\":\"INV-7\"}]",
            "[source: https://example.com]",
            "[source document: Spec]",
            "[data-suggestions: [\"more?\"]]"
        ]
    );
    let openai = contextfold::convert::convert(&wire, Some(Format::AiSdkUi), Format::OpenAi).unwrap().value.to_string();
    assert!(!openai.contains("billing") && !openai.contains("example.com"), "{openai}");
}

/// The kept last step of a turn whose earlier steps a summary pair replaced keeps the
/// turn's id and metadata (UIs key rendering by id), not an id of ours.
#[test]
fn a_kept_step_after_a_summary_pair_keeps_its_turns_id() {
    let wire = json!([
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "fix the build"}]},
        {"id": "a1", "role": "assistant", "metadata": {"model": "gpt-x"}, "parts": [
            {"type": "step-start"},
            {"type": "tool-run", "toolCallId": "c1", "state": "output-available", "input": {}, "output": "log"},
            {"type": "step-start"},
            {"type": "text", "text": "Fixed."}]}
    ]);
    let messages = format::read(&wire, Format::AiSdkUi).unwrap();
    assert_eq!(messages.len(), 4);
    // The first step and its results folded into a summarization call and its result.
    let call = ToolCallPart {
        id: "sum1".into(),
        name: "summarize".into(),
        arguments: "{}".into(),
        signature: None,
        extra: Extra::new(),
    };
    let folded = vec![
        messages[0].clone(),
        Message::new(Role::Assistant, vec![Part::ToolCall(call)]),
        Message::tool_result("sum1", "summarize", "ran the build"),
        messages[3].clone(),
    ];
    let out = format::write(&folded, Format::AiSdkUi).unwrap();
    assert_eq!(out.as_array().unwrap().len(), 2);
    assert_eq!(out[1]["id"], "a1");
    assert_eq!(out[1]["metadata"], json!({"model": "gpt-x"}));
    assert_eq!(out[1]["parts"][3], json!({"type": "text", "text": "Fixed."}));
}

/// A refusal given in `approval-responded` is read as `output-denied` is (the model is
/// told, with the reason) and written back as it came; the repair leaves it alone.
#[test]
fn a_denied_approval_responded_part_is_a_refusal() {
    let wire = json!([
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "clean up"}]},
        {"id": "a1", "role": "assistant", "parts": [{"type": "step-start"},
            {"type": "tool-rm", "toolCallId": "c1", "state": "approval-responded", "input": {"path": "~"},
             "approval": {"id": "ap1", "approved": false, "reason": "do not delete anything"}},
            {"type": "tool-rm", "toolCallId": "c2", "state": "approval-responded", "input": {"path": "/"},
             "approval": {"id": "ap2", "approved": false}}]},
        {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "list them instead"}]}
    ]);
    let messages = format::read(&wire, Format::AiSdkUi).unwrap();
    let results: Vec<(bool, String)> = messages
        .iter()
        .flat_map(Message::tool_results)
        .map(|r| (r.is_error, serde_json::to_string(&r.content).unwrap()))
        .collect();
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(results[0].0 && results[0].1.contains("do not delete anything"), "{results:?}");
    assert!(results[1].0 && results[1].1.contains("denied"), "{results:?}");
    assert_eq!(format::write(&messages, Format::AiSdkUi).unwrap(), wire);
    assert_eq!(repaired(&wire), wire);
    let openai = contextfold::convert::convert(&wire, Some(Format::AiSdkUi), Format::OpenAi).unwrap().value.to_string();
    assert!(openai.contains("do not delete anything") && !openai.contains("try again"), "{openai}");
}
