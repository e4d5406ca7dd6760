#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! `convert`: what the target cannot carry is listed in `changes`: a tool result's error
//! flag, provider-native blocks replaced by their rendering.

use contextfold::convert::{convert, provider_of, Change};
use contextfold::format::Format;
use contextfold::repair::validate;
use serde_json::{json, Value};

fn converted(wire: &Value, from: Format, to: Format) -> (Value, Vec<Change>) {
    let out = convert(wire, Some(from), to).unwrap();
    assert!(validate(&out.messages, provider_of(to)).is_empty(), "{from:?} -> {to:?}");
    (out.value, out.changes)
}

fn replaced(changes: &[Change], at: usize, what: &str) -> bool {
    changes.iter().any(|c| matches!(c, Change::ReplacedNativeBlock { index, kind, .. } if *index == at && kind == what))
}

#[test]
fn the_error_flag_openai_has_no_field_for_is_listed() {
    let chain = json!([
        {"role": "user", "content": "run ls"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "sh", "input": {"cmd": "ls"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true, "content": "permission denied"}]},
        {"role": "assistant", "content": "It failed."}]);
    for to in [Format::OpenAi, Format::OpenAiResponses] {
        let (_, changes) = converted(&chain, Format::Anthropic, to);
        let listed = changes.iter().any(|c| {
            matches!(c, Change::DroppedFields { index: 2, part: Some(0), fields } if fields.contains(&"is_error".to_string()))
        });
        assert!(listed, "{to:?}: {changes:?}");
    }
    // Formats with an error flag keep it: nothing to list.
    for to in [Format::Gemini, Format::AiSdk, Format::LangChain] {
        let (_, changes) = converted(&chain, Format::Anthropic, to);
        assert!(!changes.iter().any(|c| matches!(c, Change::DroppedFields { index: 2, .. })), "{to:?}: {changes:?}");
    }
}

#[test]
fn native_blocks_replaced_by_their_rendering_are_listed() {
    let search = json!([
        {"role": "user", "content": "search"},
        {"role": "assistant", "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                {"type": "web_search_result", "url": "https://a.com", "title": "A", "encrypted_content": "E", "page_age": null}]},
            {"type": "text", "text": "Found A"}]}]);
    let (_, changes) = converted(&search, Format::Anthropic, Format::OpenAi);
    assert!(replaced(&changes, 1, "server_tool_use") && replaced(&changes, 1, "web_search_tool_result"), "{changes:?}");
    // Staying Anthropic, the blocks stay.
    let (value, changes) = converted(&search, Format::Anthropic, Format::Anthropic);
    assert_eq!(value, search);
    assert!(changes.is_empty(), "{changes:?}");

    let image = json!([
        {"role": "user", "content": "draw a cat"},
        {"type": "image_generation_call", "id": "ig_1", "status": "completed", "result": "iVBORw0KGgo="},
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": "Here it is", "annotations": []}]}]);
    let (_, changes) = converted(&image, Format::OpenAiResponses, Format::OpenAi);
    assert!(replaced(&changes, 1, "image_generation_call"), "{changes:?}");

    // A built-in client tool becomes a plain call and result.
    let shell = json!([
        {"role": "user", "content": "list"},
        {"type": "shell_call", "call_id": "call_abcdefghijklmnopqrstuvwx", "status": "completed", "action": {"commands": ["ls"]}},
        {"type": "shell_call_output", "call_id": "call_abcdefghijklmnopqrstuvwx", "output": [
            {"stdout": "a.rs\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]}]);
    let (_, changes) = converted(&shell, Format::OpenAiResponses, Format::OpenAi);
    assert!(replaced(&changes, 1, "shell_call") && replaced(&changes, 2, "shell_call_output"), "{changes:?}");
}

#[test]
fn a_call_signature_the_target_has_no_place_for_is_listed() {
    let gemini = json!({"contents": [
        {"role": "user", "parts": [{"text": "weather?"}]},
        {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "get_weather", "args": {}}, "thoughtSignature": "CALL_SIG"}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "get_weather", "response": {"output": "sunny"}}}]},
        {"role": "model", "parts": [{"text": "Sunny."}]}]});
    for to in [Format::LangChain, Format::Anthropic, Format::OpenAi, Format::OpenAiResponses] {
        let (value, changes) = converted(&gemini, Format::Gemini, to);
        assert!(!value.to_string().contains("CALL_SIG"), "{to:?}");
        let listed = changes.iter().any(|c| matches!(c, Change::DroppedSignature { index: 1, part: 0 }));
        assert!(listed, "{to:?}: {changes:?}");
    }
    // Native keeps it; from there, a target with no place for it lists it too.
    let native = convert(&gemini, Some(Format::Gemini), Format::Native).unwrap();
    assert!(native.value.to_string().contains("CALL_SIG"));
    let (_, changes) = converted(&native.value, Format::Native, Format::Anthropic);
    assert!(changes.iter().any(|c| matches!(c, Change::DroppedSignature { index: 1, part: 0 })), "{changes:?}");
}
