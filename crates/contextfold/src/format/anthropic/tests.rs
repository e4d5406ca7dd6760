use super::*;
use serde_json::json;

fn native(wire: Value) -> Value {
    let messages = read(&wire).unwrap_or_else(|e| panic!("{wire}: {e}"));
    serde_json::to_value(messages).unwrap()
}

#[test]
fn messages_map_field_by_field() {
    let cases = [
        (
            "string content",
            json!([{"role": "user", "content": "hi"}]),
            json!([{"role": "user", "parts": [{"type": "text", "text": "hi"}]}]),
        ),
        (
            "one text block",
            json!([{"role": "user", "content": [{"type": "text", "text": "hi"}]}]),
            json!([{"role": "user", "parts": [{"type": "text", "text": "hi"}], "_anthropic": {"content": "array"}}]),
        ),
        (
            "one text block with cache_control is naturally an array",
            json!([{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}]),
            json!([{"role": "user", "parts": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}]),
        ),
        (
            "empty string content",
            json!([{"role": "assistant", "content": ""}]),
            json!([{"role": "assistant", "parts": [], "_anthropic": {"content": "string"}}]),
        ),
        (
            "assistant keeps block order",
            json!([{"role": "assistant", "id": "msg_1", "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "sig=="},
                {"type": "text", "text": "Let me look."},
                {"type": "redacted_thinking", "data": "EqQB"},
                {"type": "tool_use", "id": "tu_1", "name": "read", "input": {"path": "a.rs", "limit": 5}, "caller": {"type": "direct"}}]}]),
            json!([{"role": "assistant", "parts": [
                {"type": "reasoning", "text": "hmm", "signature": "sig=="},
                {"type": "text", "text": "Let me look."},
                {"type": "reasoning", "text": "", "redactedData": "EqQB"},
                {"type": "toolCall", "id": "tu_1", "name": "read", "arguments": "{\"path\":\"a.rs\",\"limit\":5}", "caller": {"type": "direct"}}],
                "id": "msg_1"}]),
        ),
        (
            "tool results become a tool message",
            json!([{"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "tu_1", "content": "ok", "is_error": false},
                {"type": "tool_result", "tool_use_id": "tu_2", "content": [{"type": "text", "text": "boom"}], "is_error": true},
                {"type": "tool_result", "tool_use_id": "tu_3"}]}]),
            json!([{"role": "tool", "parts": [
                {"type": "toolResult", "callId": "tu_1", "content": [{"type": "text", "text": "ok"}], "is_error": false},
                {"type": "toolResult", "callId": "tu_2", "content": [{"type": "text", "text": "boom"}], "isError": true,
                 "_anthropic": {"content": "array"}},
                {"type": "toolResult", "callId": "tu_3", "content": []}]}]),
        ),
        (
            "empty tool result content string",
            json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": ""}]}]),
            json!([{"role": "tool", "parts": [{"type": "toolResult", "callId": "tu_1", "content": [], "_anthropic": {"content": "string"}}]}]),
        ),
        (
            "mixed user message splits, other blocks marked with their positions",
            json!([{"role": "user", "cache": 1, "content": [
                {"type": "text", "text": "first"},
                {"type": "tool_result", "tool_use_id": "tu_1", "content": "ok"},
                {"type": "text", "text": "then"}]}]),
            json!([
                {"role": "tool", "parts": [{"type": "toolResult", "callId": "tu_1", "content": [{"type": "text", "text": "ok"}]}], "cache": 1},
                {"role": "user", "parts": [{"type": "text", "text": "first"}, {"type": "text", "text": "then"}],
                 "_anthropic": {"mergeWithPrevious": [0, 2]}}]),
        ),
        (
            "a second user message of tool results is marked as a message of its own",
            json!([
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "1"}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "b", "content": "2"}]}]),
            json!([
                {"role": "tool", "parts": [{"type": "toolResult", "callId": "a", "content": [{"type": "text", "text": "1"}]}]},
                {"role": "tool", "parts": [{"type": "toolResult", "callId": "b", "content": [{"type": "text", "text": "2"}]}],
                 "_anthropic": {"newMessage": true}}]),
        ),
        (
            "wire fields named like a marker namespace are shadowed",
            json!([{"role": "user", "_openai": 1, "content": "x"}]),
            json!([{"role": "user", "parts": [{"type": "text", "text": "x"}], "_anthropic": {"shadowed": {"_openai": 1}}}]),
        ),
    ];
    for (name, wire, expected) in cases {
        assert_eq!(native(wire), expected, "{name}");
    }
}

#[test]
fn sources_map_to_media_parts() {
    let cases = [
        (
            json!({"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/"}}),
            json!({"type": "image", "data": "/9j/", "mediaType": "image/jpeg"}),
        ),
        (
            json!({"type": "image", "source": {"type": "url", "url": "https://x/a.png"}}),
            json!({"type": "image", "url": "https://x/a.png"}),
        ),
        (
            json!({"type": "document", "title": "spec", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE"}}),
            json!({"type": "file", "data": "JVBE", "mediaType": "application/pdf", "name": "spec"}),
        ),
        (
            json!({"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "plain"}}),
            // Its text as base64, as file data is everywhere else.
            json!({"type": "file", "data": "cGxhaW4=", "mediaType": "text/plain", "_anthropic": {"source": {"type": "text"}}}),
        ),
        (
            json!({"type": "image", "source": {"type": "file", "file_id": "file_1"}}),
            json!({"type": "image", "_anthropic": {"source": {"type": "file", "file_id": "file_1"}}}),
        ),
    ];
    for (block, expected) in cases {
        let out = native(json!([{"role": "user", "content": [block.clone(), {"type": "text", "text": "x"}]}]));
        assert_eq!(out[0]["parts"][0], expected, "{block}");
    }
    // Images inside a tool result.
    let out = native(json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [
        {"type": "image", "source": {"type": "url", "url": "https://x/b.png"}}]}]}]));
    assert_eq!(out[0]["parts"][0]["content"], json!([{"type": "image", "url": "https://x/b.png"}]));
}

#[test]
fn request_objects_read_system_first() {
    let cases = [
        (
            json!({"model": "claude", "system": "be brief", "messages": [{"role": "user", "content": "hi"}]}),
            json!([{"role": "system", "parts": [{"type": "text", "text": "be brief"}]},
                   {"role": "user", "parts": [{"type": "text", "text": "hi"}]}]),
        ),
        (
            json!({"system": [{"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}}, {"type": "text", "text": "b"}],
                   "messages": []}),
            json!([{"role": "system", "parts": [{"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}}, {"type": "text", "text": "b"}]}]),
        ),
        (
            json!({"system": [{"type": "text", "text": "a"}], "messages": []}),
            json!([{"role": "system", "parts": [{"type": "text", "text": "a"}], "_anthropic": {"content": "array"}}]),
        ),
        (json!({"messages": []}), json!([])),
    ];
    for (wire, expected) in cases {
        assert_eq!(native(wire.clone()), expected, "{wire}");
    }
}

#[test]
fn tool_use_input_is_compact_json_in_key_order() {
    let out = native(json!([{"role": "assistant", "content": [
        {"type": "tool_use", "id": "t", "name": "n", "input": {"z": 1, "a": [1.5, "x"], "m": {"k": null}}}]}]));
    assert_eq!(out[0]["parts"][0]["arguments"], r#"{"z":1,"a":[1.5,"x"],"m":{"k":null}}"#);
    assert!(out[0]["parts"][0].get("_anthropic").is_none());
}

#[test]
fn errors_name_the_culprit() {
    let cases = [
        (json!("x"), ""),
        (json!([{"role": "user", "content": "q"}, {"role": "developer", "content": "x"}]), "[1].role"),
        (json!([{"role": "user"}]), "[0].content"),
        (json!([{"role": "user", "content": null}]), "[0].content"),
        (
            json!([{"role": "user", "content": [{"type": "tool_use", "id": "t", "name": "n", "input": {}}]}]),
            "[0].content[0].type",
        ),
        (json!([{"role": "user", "content": [{"type": "thinking", "thinking": "x"}]}]), "[0].content[0].type"),
        (
            json!([{"role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "t"}]}]),
            "[0].content[0].type",
        ),
        (json!([{"role": "assistant", "content": [{"type": "bogus_block"}]}]), "[0].content[0].type"),
        (
            json!([{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "n"}]}]),
            "[0].content[0].input",
        ),
        (
            json!([{"role": "assistant", "content": [{"type": "tool_use", "name": "n", "input": {}}]}]),
            "[0].content[0].id",
        ),
        (json!([{"role": "assistant", "content": [{"type": "thinking"}]}]), "[0].content[0].thinking"),
        (json!([{"role": "user", "content": [{"type": "image"}]}]), "[0].content[0].source"),
        (
            json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "is_error": "no"}]}]),
            "[0].content[0].is_error",
        ),
        (
            json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "tool_result"}]}]}]),
            "[0].content[0].content[0].type",
        ),
        (
            json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": 5}]}]),
            "[0].content[0].content",
        ),
        (json!({"system": "x"}), "messages"),
        (json!({"system": 1, "messages": []}), "system"),
        (json!({"system": [{"type": "image", "source": {}}], "messages": []}), "system[0].type"),
        (json!({"messages": [{"role": "user", "content": [{"type": "text"}]}]}), "messages[0].content[0].text"),
    ];
    for (wire, path) in cases {
        let err = read(&wire).expect_err(&wire.to_string());
        assert_eq!((err.code(), err.path()), ("invalid_shape", Some(path)), "{wire}: {err}");
    }
}

#[test]
fn a_system_message_mid_conversation_stays_one() {
    // `SystemMessageParam` (and the beta's `clear_at`, `output_config`): read as a system
    // message, written back in `messages` as it came, in the list and the request form.
    let mid = json!({"role": "system", "content": "Be terse from now on.", "clear_at": "next_user_message",
        "output_config": {"effort": "low"}});
    let turns = json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}, mid,
        {"role": "user", "content": "go on"}]);
    let messages = read(&turns).unwrap();
    assert_eq!(messages[2].role, Role::System);
    assert_eq!(writer::write(&messages).unwrap(), turns);
    let request = json!({"model": "claude-opus-4-5", "system": "sys", "messages": turns.clone()});
    let messages = read(&request).unwrap();
    assert_eq!(messages[0].role, Role::System);
    assert_eq!(messages[3].role, Role::System);
    assert_eq!(writer::write_request(&messages).unwrap(), json!({"system": "sys", "messages": turns}));
}
