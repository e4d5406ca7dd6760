use super::*;
use crate::message::Extra;
use serde_json::json;

fn native(wire: Value) -> Value {
    let messages = read(&wire).unwrap_or_else(|e| panic!("{wire}: {e}"));
    serde_json::to_value(messages).unwrap()
}

#[test]
fn contents_map_field_by_field() {
    let id = made_up_id("ls", (0, 0));
    let cases = [
        (
            "text",
            json!([{"role": "user", "parts": [{"text": "hi"}]}]),
            json!([{"role": "user", "parts": [{"type": "text", "text": "hi"}]}]),
        ),
        (
            "missing role",
            json!([{"parts": [{"text": "hi"}]}]),
            json!([{"role": "user", "parts": [{"type": "text", "text": "hi"}], "_gemini": {"role": "absent"}}]),
        ),
        (
            "model thought, text with a signature, signature-only part",
            json!([{"role": "model", "parts": [
                {"text": "hmm", "thought": true, "thoughtSignature": "s1"},
                {"text": "Hello", "thoughtSignature": "s2"},
                {"text": "", "thoughtSignature": "s3"},
                {"thoughtSignature": "s4"}]}]),
            json!([{"role": "assistant", "parts": [
                {"type": "reasoning", "text": "hmm", "signature": "s1"},
                {"type": "text", "text": "Hello", "_gemini": {"thoughtSignature": "s2"}},
                {"type": "reasoning", "text": "", "signature": "s3", "_gemini": {"thought": false}},
                {"type": "reasoning", "text": "", "signature": "s4", "_gemini": {"thought": false, "text": "absent"}}]}]),
        ),
        (
            "inline image, file by URI",
            json!([{"role": "user", "parts": [
                {"inlineData": {"mimeType": "image/png", "data": "iVBOR"}},
                {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://b/a.pdf", "displayName": "a.pdf"}}]}]),
            json!([{"role": "user", "parts": [
                {"type": "image", "data": "iVBOR", "mediaType": "image/png"},
                {"type": "file", "url": "gs://b/a.pdf", "mediaType": "application/pdf", "name": "a.pdf"}]}]),
        ),
        (
            "a call without id, its response, with a signature",
            json!([{"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {"dir": "."}}, "thoughtSignature": "sig"}]},
                   {"role": "user", "parts": [{"functionResponse": {"name": "ls", "response": {"output": "a.rs"}}}]}]),
            json!([{"role": "assistant", "parts": [
                {"type": "toolCall", "id": id, "name": "ls", "arguments": "{\"dir\":\".\"}", "signature": "sig",
                 "_gemini": {"idGenerated": true}}]},
                   {"role": "tool", "parts": [
                {"type": "toolResult", "callId": id, "name": "ls", "content": [{"type": "text", "text": "a.rs"}],
                 "_gemini": {"idGenerated": true}}]}]),
        ),
        (
            "ids, an error response, a JSON response, no args",
            json!([{"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "f"}}, {"functionCall": {"id": "c2", "name": "g", "args": {}}}]},
                   {"role": "user", "parts": [
                       {"functionResponse": {"id": "c1", "name": "f", "response": {"error": "boom"}}},
                       {"functionResponse": {"id": "c2", "name": "g", "response": {"n": 1, "ok": true}}}]}]),
            json!([{"role": "assistant", "parts": [
                {"type": "toolCall", "id": "c1", "name": "f", "arguments": "{}", "_gemini": {"args": "absent"}},
                {"type": "toolCall", "id": "c2", "name": "g", "arguments": "{}"}]},
                   {"role": "tool", "parts": [
                {"type": "toolResult", "callId": "c1", "name": "f", "content": [{"type": "text", "text": "boom"}], "isError": true},
                {"type": "toolResult", "callId": "c2", "name": "g", "content": [{"type": "text", "text": "{\"n\":1,\"ok\":true}"}],
                 "_gemini": {"response": "json"}}]}]),
        ),
        (
            "responses beside text split off, unknown fields kept",
            json!([{"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "f", "args": {}}}]},
                   {"role": "user", "x": 1, "parts": [
                       {"functionResponse": {"id": "c1", "name": "f", "response": {}, "willContinue": false}},
                       {"text": "and now?", "videoMetadata": {}}]}]),
            json!([{"role": "assistant", "parts": [{"type": "toolCall", "id": "c1", "name": "f", "arguments": "{}"}]},
                   {"role": "tool", "x": 1, "parts": [
                {"type": "toolResult", "callId": "c1", "name": "f", "content": [],
                 "_gemini": {"functionResponse": {"willContinue": false}}}]},
                   {"role": "user", "parts": [{"type": "text", "text": "and now?", "videoMetadata": {}}],
                    "_gemini": {"mergeWithPrevious": [1]}}]),
        ),
        (
            "request with a system instruction",
            json!({"systemInstruction": {"parts": [{"text": "be brief"}]}, "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
                   "generationConfig": {}}),
            json!([{"role": "system", "parts": [{"type": "text", "text": "be brief"}]},
                   {"role": "user", "parts": [{"type": "text", "text": "hi"}]}]),
        ),
        (
            "string system instruction",
            json!({"systemInstruction": "be brief", "contents": []}),
            json!([{"role": "system", "parts": [{"type": "text", "text": "be brief"}], "_gemini": {"systemInstruction": "string"}}]),
        ),
    ];
    for (name, wire, expected) in cases {
        assert_eq!(native(wire), expected, "{name}");
    }
}

#[test]
fn made_up_ids_fit_the_template_and_differ_by_position() {
    let template = IdTemplate::parse(ID_TEMPLATE).unwrap();
    let a = made_up_id("f", (1, 0));
    let b = made_up_id("f", (1, 1));
    assert!(template.validate(&a, "f").is_ok());
    assert_ne!(a, b);
    assert_eq!(a, made_up_id("f", (1, 0)));
}

#[test]
fn id_less_responses_answer_calls_of_their_name_in_order() {
    let wire = json!([
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}, {"functionCall": {"name": "g", "args": {}}},
                                    {"functionCall": {"name": "f", "args": {"n": 2}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "g", "response": {}}},
                                   {"functionResponse": {"name": "f", "response": {}}},
                                   {"functionResponse": {"name": "f", "response": {}}}]}]);
    let messages = read(&wire).unwrap();
    let calls: Vec<&str> = messages[0].tool_calls().map(|c| c.id.as_str()).collect();
    let results: Vec<&str> = messages[1].tool_results().map(|r| r.call_id.as_str()).collect();
    assert_eq!(results, vec![calls[1], calls[0], calls[2]]);
    assert_eq!(write(&messages).unwrap(), wire);
}

#[test]
fn shape_errors_name_the_culprit() {
    let cases = [
        (json!("x"), ""),
        (json!([{"role": "system", "parts": []}]), "[0].role"),
        (json!([{"role": "user"}]), "[0].parts"),
        (json!([{"role": "user", "parts": [{"text": "a", "inlineData": {"data": "x"}}]}]), "[0].parts[0].inlineData"),
        (json!([{"role": "user", "parts": [{}]}]), "[0].parts[0].text"),
        (json!([{"role": "model", "parts": [{"functionCall": {"args": {}}}]}]), "[0].parts[0].functionCall.name"),
        (
            json!({"systemInstruction": {"parts": [{"inlineData": {"mimeType": "image/png", "data": "x"}}]}, "contents": []}),
            "systemInstruction.parts[0]",
        ),
        (json!({"contents": 3}), "contents"),
    ];
    for (wire, path) in cases {
        let err = read(&wire).unwrap_err();
        assert_eq!((err.code(), err.path()), ("invalid_shape", Some(path)), "{wire}: {err}");
    }
}

#[test]
fn natural_shape_of_foreign_messages() {
    let messages = vec![
        Message::text(Role::System, "sys"),
        Message::text(Role::User, "hi"),
        Message::new(
            Role::Assistant,
            vec![
                Part::Reasoning(crate::message::ReasoningPart {
                    redacted_data: Some("x".into()),
                    ..Default::default()
                }),
                Part::ToolCall(crate::message::ToolCallPart {
                    id: "call_1".into(),
                    name: "f".into(),
                    arguments: String::new(),
                    signature: None,
                    extra: Extra::new(),
                }),
            ],
        ),
        Message::new(
            Role::Tool,
            vec![Part::ToolResult(crate::message::ToolResultPart {
                call_id: "call_1".into(),
                name: None,
                content: vec![
                    Part::text("ok"),
                    Part::Image(crate::message::ImagePart {
                        url: Some("data:image/png;base64,AAA".into()),
                        ..Default::default()
                    }),
                ],
                is_error: false,
                extra: Extra::new(),
            })],
        ),
    ];
    let written = crate::format::write(&messages, crate::format::Format::Gemini).unwrap();
    assert_eq!(
        written,
        json!({"systemInstruction": {"parts": [{"text": "sys"}]}, "contents": [
            {"role": "user", "parts": [{"text": "hi"}]},
            {"role": "model", "parts": [{"functionCall": {"id": "call_1", "name": "f", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"id": "call_1", "name": "f", "response": {"output": "ok"},
                "parts": [{"inlineData": {"mimeType": "image/png", "data": "AAA"}}]}}]}]})
    );
    let err = write(&messages).unwrap_err();
    assert_eq!((err.code(), err.path()), ("unwritable", Some("[0]")));
    let bad_args = vec![Message::new(
        Role::Assistant,
        vec![Part::ToolCall(crate::message::ToolCallPart {
            id: "c".into(),
            name: "f".into(),
            arguments: "[1]".into(),
            signature: None,
            extra: Extra::new(),
        })],
    )];
    let err = write(&bad_args).unwrap_err();
    assert_eq!(err.path(), Some("[0].parts[0].arguments"));
}
