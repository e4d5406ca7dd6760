use super::*;
use serde_json::json;

/// Reads `wire` and returns the native JSON form of the result.
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
            "developer keeps its name",
            json!([{"role": "developer", "content": "be brief"}]),
            json!([{"role": "system", "parts": [{"type": "text", "text": "be brief"}], "_openai": {"role": "developer"}}]),
        ),
        (
            "empty string content has no part",
            json!([{"role": "user", "content": ""}]),
            json!([{"role": "user", "parts": []}]),
        ),
        (
            "single text in an array",
            json!([{"role": "user", "content": [{"type": "text", "text": "hi"}]}]),
            json!([{"role": "user", "parts": [{"type": "text", "text": "hi"}], "_openai": {"content": "array"}}]),
        ),
        (
            "absent content",
            json!([{"role": "user"}]),
            json!([{"role": "user", "parts": [], "_openai": {"content": "absent"}}]),
        ),
        (
            "null user content",
            json!([{"role": "user", "content": null}]),
            json!([{"role": "user", "parts": [], "_openai": {"content": "null"}}]),
        ),
        (
            "unknown message fields are kept",
            json!([{"role": "user", "content": "hi", "name": "ann", "parts": 1}]),
            json!([{"role": "user", "parts": [{"type": "text", "text": "hi"}], "name": "ann", "_openai": {"shadowed": {"parts": 1}}}]),
        ),
        (
            "assistant with null content and tool calls",
            json!([{"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{\"path\": \"a.rs\"}"}},
                {"id": "c2", "type": "function", "function": {"name": "ls", "arguments": ""}}]}]),
            json!([{"role": "assistant", "parts": [
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": "{\"path\": \"a.rs\"}"},
                {"type": "toolCall", "id": "c2", "name": "ls", "arguments": ""}]}]),
        ),
        (
            "assistant with empty string content",
            json!([{"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]}]),
            json!([{"role": "assistant", "parts": [
                {"type": "toolCall", "id": "c1", "name": "ls", "arguments": "{}"}], "_openai": {"content": "string"}}]),
        ),
        (
            "assistant without content field",
            json!([{"role": "assistant", "tool_calls": [
                {"id": "c1", "function": {"name": "ls", "arguments": "{}", "strict": true}, "index": 0}]}]),
            json!([{"role": "assistant", "parts": [
                {"type": "toolCall", "id": "c1", "name": "ls", "arguments": "{}", "index": 0,
                 "_openai": {"type": "absent", "function": {"strict": true}}}],
                "_openai": {"content": "absent"}}]),
        ),
        (
            "reasoning first, empty tool_calls and refusal kept verbatim",
            json!([{"role": "assistant", "content": "ok", "reasoning_content": "think", "tool_calls": [], "refusal": null}]),
            json!([{"role": "assistant", "parts": [
                {"type": "reasoning", "text": "think"}, {"type": "text", "text": "ok"}],
                "tool_calls": [], "refusal": null}]),
        ),
        (
            "empty reasoning_content stays verbatim",
            json!([{"role": "assistant", "content": "ok", "reasoning_content": ""}]),
            json!([{"role": "assistant", "parts": [{"type": "text", "text": "ok"}], "reasoning_content": ""}]),
        ),
        (
            "tool message with legacy name",
            json!([{"role": "tool", "tool_call_id": "c1", "name": "read", "content": "fn main() {}"}]),
            json!([{"role": "tool", "parts": [{"type": "toolResult", "callId": "c1", "name": "read",
                "content": [{"type": "text", "text": "fn main() {}"}]}], "_openai": {"name": true}}]),
        ),
        (
            "tool message with parts and empty content",
            json!([{"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
                   {"role": "tool", "tool_call_id": "c2", "content": ""}]),
            json!([{"role": "tool", "parts": [{"type": "toolResult", "callId": "c1",
                      "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]},
                   {"role": "tool", "parts": [{"type": "toolResult", "callId": "c2", "content": []}]}]),
        ),
    ];
    for (name, wire, expected) in cases {
        assert_eq!(native(wire), expected, "{name}");
    }
}

/// A refusal and an audio reply are what the assistant said: parts (never an empty
/// message), written back as the fields they were read from.
#[test]
fn refusal_and_audio_replies_are_parts_and_write_back() {
    let wire = json!([
        {"role": "user", "content": "pick a lock"},
        {"role": "assistant", "content": null, "refusal": "I can't help with that."},
        {"role": "user", "content": "say hi"},
        {"role": "assistant", "content": null, "audio": {"id": "audio_abc123"}},
        {"role": "assistant", "content": null, "audio": {"id": "audio_2", "transcript": "Hi there!"}}
    ]);
    let messages = read(&wire).unwrap();
    assert_eq!(
        serde_json::to_value(&messages[1]).unwrap(),
        json!({"role": "assistant", "parts": [
            {"type": "text", "text": "I can't help with that.", "_openai": {"field": "refusal"}}]})
    );
    let said: Vec<&str> = messages[3..]
        .iter()
        .map(|m| match m.parts.as_slice() {
            [Part::Text(t)] => t.text.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(said, ["[audio reply]", "[audio reply] Hi there!"]);
    assert_eq!(write(&messages).unwrap(), wire);
    assert!(crate::repair::validate(&messages, crate::repair::Provider::OpenAi).is_empty());
}

#[test]
fn content_parts_map_to_neutral_parts() {
    let cases = [
        (
            json!({"type": "image_url", "image_url": {"url": "https://x/a.png", "detail": "high"}}),
            json!({"type": "image", "url": "https://x/a.png", "_openai": {"image_url": {"detail": "high"}}}),
        ),
        (
            json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}),
            json!({"type": "image", "data": "AAAA", "mediaType": "image/png"}),
        ),
        (
            json!({"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}}),
            json!({"type": "file", "data": "UklG", "mediaType": "audio/wav", "_openai": {"type": "input_audio"}}),
        ),
        (
            json!({"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBE", "filename": "a.pdf"}}),
            json!({"type": "file", "data": "JVBE", "mediaType": "application/pdf", "name": "a.pdf"}),
        ),
        (
            json!({"type": "file", "file": {"file_id": "file-1"}}),
            json!({"type": "file", "_openai": {"file": {"file_id": "file-1"}}}),
        ),
        (
            json!({"type": "refusal", "refusal": "no"}),
            json!({"type": "text", "text": "no", "_openai": {"type": "refusal"}}),
        ),
        (
            json!({"type": "text", "text": "a", "annotations": []}),
            json!({"type": "text", "text": "a", "annotations": []}),
        ),
    ];
    for (part, expected) in cases {
        let wire = json!([{"role": "user", "content": [part.clone()]}]);
        let out = native(wire);
        assert_eq!(out[0]["parts"][0], expected, "{part}");
    }
}

#[test]
fn legacy_function_calls_pair_by_position() {
    let wire = json!([
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": null, "function_call": {"name": "weather", "arguments": "{}"}},
        {"role": "function", "name": "weather", "content": "sunny"},
        {"role": "function", "name": "late", "content": "orphan"}
    ]);
    let out = native(wire);
    assert_eq!(
        out[1]["parts"],
        json!([{"type": "toolCall", "id": "legacy_function_call_1", "name": "weather", "arguments": "{}",
                "_openai": {"legacyFunctionCall": true}}])
    );
    assert_eq!(out[2]["role"], "tool");
    assert_eq!(out[2]["_openai"], json!({"role": "function"}));
    assert_eq!(out[2]["parts"][0]["callId"], "legacy_function_call_1");
    assert_eq!(out[3]["parts"][0]["callId"], "legacy_function_call_3");
}

#[test]
fn errors_name_the_culprit() {
    let cases = [
        (json!({"role": "user"}), ""),
        (json!([1]), "[0]"),
        (json!([{"content": "x"}]), "[0].role"),
        (json!([{"role": "bot", "content": "x"}]), "[0].role"),
        (json!([{"role": "user", "content": 3}]), "[0].content"),
        (
            json!([{"role": "user", "content": "a"}, {"role": "user", "content": [{"type": "image", "source": {}}]}]),
            "[1].content[0].type",
        ),
        (json!([{"role": "user", "content": [{"text": "x"}]}]), "[0].content[0].type"),
        (json!([{"role": "user", "content": [{"type": "text"}]}]), "[0].content[0].text"),
        (
            json!([{"role": "user", "content": [{"type": "image_url", "image_url": "https://x"}]}]),
            "[0].content[0].image_url",
        ),
        (
            json!([{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]),
            "[0].content[0].image_url.url",
        ),
        (json!([{"role": "assistant", "tool_calls": {}}]), "[0].tool_calls"),
        (
            json!([{"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "a", "arguments": "{}"}}]}]),
            "[0].tool_calls[0].id",
        ),
        (
            json!([{"role": "assistant", "tool_calls": [{"id": "c", "type": "custom", "custom": {"name": "a"}}]}]),
            "[0].tool_calls[0].custom.input",
        ),
        (
            json!([{"role": "assistant", "tool_calls": [{"id": "c", "type": "allowed", "function": {}}]}]),
            "[0].tool_calls[0].type",
        ),
        (
            json!([{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "a", "arguments": {}}}]}]),
            "[0].tool_calls[0].function.arguments",
        ),
        (json!([{"role": "assistant", "reasoning_content": 1}]), "[0].reasoning_content"),
        (json!([{"role": "assistant", "function_call": {"arguments": "{}"}}]), "[0].function_call.name"),
        (json!([{"role": "tool", "content": "x"}]), "[0].tool_call_id"),
    ];
    for (wire, path) in cases {
        let err = read(&wire).expect_err(&wire.to_string());
        assert_eq!((err.code(), err.path()), ("invalid_shape", Some(path)), "{wire}: {err}");
    }
}
