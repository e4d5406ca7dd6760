#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! Writers on messages without restoration markers (made by compaction, or read from
//! another format): the provider's natural shape; and typed errors, with the path of the
//! culprit in the native messages, for what a format cannot express.

use contextfold::format::{self, anthropic, openai, Format};
use contextfold::message::{
    Extra, FilePart, ImagePart, Message, Part, ReasoningPart, Role, ToolCallPart, ToolResultPart,
};
use serde_json::{json, Value};

fn call(id: &str, name: &str, arguments: &str) -> Part {
    Part::ToolCall(ToolCallPart {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
        signature: None,
        extra: Extra::new(),
    })
}

fn result(call_id: &str, text: &str, is_error: bool) -> Part {
    Part::ToolResult(ToolResultPart {
        call_id: call_id.into(),
        name: None,
        content: vec![Part::text(text)],
        is_error,
        extra: Extra::new(),
    })
}

fn reasoning(text: &str, signature: Option<&str>, redacted: Option<&str>) -> Part {
    Part::Reasoning(ReasoningPart {
        text: text.into(),
        signature: signature.map(str::to_string),
        redacted_data: redacted.map(str::to_string),
        extra: Extra::new(),
    })
}

/// The pair a compaction strategy inserts: a call to the summary tool and its answer.
fn summarization_chain() -> Vec<Message> {
    vec![
        Message::text(Role::System, "You are helpful."),
        Message::text(Role::User, "Fix the build."),
        Message::new(
            Role::Assistant,
            vec![call("summary_1", "execute_task_and_return_summary", r#"{"task":"earlier work"}"#)],
        ),
        Message::tool_result("summary_1", "execute_task_and_return_summary", "Found the bug in a.rs."),
        Message::text(Role::User, "Go on."),
    ]
}

#[test]
fn openai_natural_shape() {
    let written = openai::write(&summarization_chain()).unwrap();
    assert_eq!(
        written,
        json!([
            {"role": "system", "content": "You are helpful."},
            {"role": "user", "content": "Fix the build."},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "summary_1", "type": "function", "function": {
                    "name": "execute_task_and_return_summary", "arguments": "{\"task\":\"earlier work\"}"}}]},
            // No `name`: the official tool message has none (issue 14).
            {"role": "tool", "tool_call_id": "summary_1", "content": "Found the bug in a.rs."},
            {"role": "user", "content": "Go on."}])
    );
}

#[test]
fn anthropic_natural_shape_and_request_form() {
    let messages = summarization_chain();
    let request = anthropic::write_request(&messages).unwrap();
    let expected_messages = json!([
        {"role": "user", "content": "Fix the build."},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "summary_1", "name": "execute_task_and_return_summary",
             "input": {"task": "earlier work"}}]},
        // The user turn after the results joins their user message: turns alternate (issue 14).
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "summary_1", "content": "Found the bug in a.rs."},
            {"type": "text", "text": "Go on."}]}]);
    assert_eq!(request, json!({"system": "You are helpful.", "messages": expected_messages}));
    // `format::write` picks the request form when there is a system message...
    assert_eq!(format::write(&messages, Format::Anthropic).unwrap(), request);
    // ... and the bare array otherwise.
    let rest = messages[1..].to_vec();
    assert_eq!(anthropic::write(&rest).unwrap(), expected_messages);
    assert_eq!(format::write(&rest, Format::Anthropic).unwrap(), expected_messages);
    assert_eq!(anthropic::write_request(&rest).unwrap(), json!({"messages": expected_messages}));
}

#[test]
fn anthropic_merges_consecutive_tool_messages() {
    let messages = vec![
        Message::new(
            Role::Assistant,
            vec![
                reasoning("plan", Some("sig=="), None),
                reasoning("", None, Some("EqQB")),
                call("a", "read", r#"{"p":1}"#),
                call("b", "ls", ""),
            ],
        ),
        Message::new(Role::Tool, vec![result("a", "one", false)]),
        Message::new(Role::Tool, vec![result("b", "two", true)]),
        Message::text(Role::Assistant, "Done."),
    ];
    assert_eq!(
        anthropic::write(&messages).unwrap(),
        json!([
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "plan", "signature": "sig=="},
                {"type": "redacted_thinking", "data": "EqQB"},
                {"type": "tool_use", "id": "a", "name": "read", "input": {"p": 1}},
                {"type": "tool_use", "id": "b", "name": "ls", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "a", "content": "one"},
                {"type": "tool_result", "tool_use_id": "b", "content": "two", "is_error": true}]},
            {"role": "assistant", "content": "Done."}])
    );
}

#[test]
fn openai_from_anthropic_shaped_messages() {
    // Read from Anthropic, written to OpenAI: thinking -> reasoning_content (signatures
    // dropped), one tool message per result (is_error dropped), foreign markers ignored.
    let wire = json!([
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "plan", "signature": "sig"},
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "a", "name": "read", "input": {"p": 1}},
            {"type": "tool_use", "id": "b", "name": "read", "input": {"p": 2}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": "one"},
            {"type": "tool_result", "tool_use_id": "b", "content": "two", "is_error": true},
            {"type": "text", "text": "hurry"}]}]);
    let messages = anthropic::read(&wire).unwrap();
    assert_eq!(
        openai::write(&messages).unwrap(),
        json!([
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": "Reading.", "reasoning_content": "plan", "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "read", "arguments": "{\"p\":1}"}},
                {"id": "b", "type": "function", "function": {"name": "read", "arguments": "{\"p\":2}"}}]},
            {"role": "tool", "tool_call_id": "a", "content": "one"},
            {"role": "tool", "tool_call_id": "b", "content": "two"},
            {"role": "user", "content": "hurry"}])
    );
}

#[test]
fn anthropic_from_openai_shaped_messages() {
    let wire = json!([
        {"role": "developer", "content": "rules"},
        {"role": "user", "content": [
            {"type": "text", "text": "see"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO", "detail": "high"}}]},
        {"role": "assistant", "content": null, "reasoning_content": "think", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "ls", "arguments": "{\"d\": \"src\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "name": "ls", "content": "a"},
        {"role": "tool", "tool_call_id": "c2", "name": "ls", "content": "b"}]);
    let messages = openai::read(&wire).unwrap();
    assert_eq!(
        format::write(&messages, Format::Anthropic).unwrap(),
        json!({"system": "rules", "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "see"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "think"},
                {"type": "tool_use", "id": "c1", "name": "ls", "input": {}},
                {"type": "tool_use", "id": "c2", "name": "ls", "input": {"d": "src"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "a"},
                {"type": "tool_result", "tool_use_id": "c2", "content": "b"}]}]})
    );
}

#[test]
fn edited_messages_fall_back_to_the_natural_shape() {
    // A marker recorded for the original parts no longer fits once parts change.
    let wire = json!([{"role": "user", "content": "one"}, {"role": "assistant", "content": null}]);
    let mut messages = openai::read(&wire).unwrap();
    messages[1].parts.push(Part::text("added"));
    messages[0].parts.push(Part::text("two"));
    assert_eq!(
        openai::write(&messages).unwrap(),
        json!([
            {"role": "user", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]},
            {"role": "assistant", "content": "added"}])
    );
    // A tool_use input kept by the reader is used only while the arguments are still
    // its compact JSON text.
    let mut extra = Extra::new();
    extra.insert("_anthropic".into(), json!({"input": {"n": 1}}));
    let edited = Message::new(
        Role::Assistant,
        vec![Part::ToolCall(ToolCallPart {
            id: "t".into(),
            name: "n".into(),
            arguments: r#"{"n":2}"#.into(),
            signature: None,
            extra,
        })],
    );
    assert_eq!(anthropic::write(&[edited]).unwrap()[0]["content"][0]["input"], json!({"n": 2}));
}

#[test]
fn what_a_format_cannot_express_is_an_error_with_a_path() {
    let file_by_url = Part::File(FilePart { url: Some("https://x/a.pdf".into()), ..FilePart::default() });
    let bare_image = Part::Image(ImagePart::default());
    let user_with = |part: Part| Message::new(Role::User, vec![Part::text("x"), part]);
    let openai_cases: Vec<(Vec<Message>, &str)> = vec![
        (vec![user_with(file_by_url.clone())], "[0].parts[1]"),
        (vec![user_with(bare_image.clone())], "[0].parts[1]"),
        (
            vec![
                Message::text(Role::User, "x"),
                Message::new(
                    Role::Tool,
                    vec![Part::ToolResult(ToolResultPart {
                        call_id: "c".into(),
                        name: None,
                        content: vec![Part::text("a"), file_by_url.clone()],
                        is_error: false,
                        extra: Extra::new(),
                    })],
                ),
            ],
            "[1].parts[0].content[1]",
        ),
        (vec![user_with(reasoning("r", None, None))], "[0].parts[1]"),
        (vec![user_with(call("c", "n", "{}"))], "[0].parts[1]"),
        (vec![Message::new(Role::Assistant, vec![result("c", "r", false)])], "[0].parts[0]"),
        (vec![Message::new(Role::Tool, vec![])], "[0]"),
        (vec![Message::new(Role::Tool, vec![Part::text("loose")])], "[0].parts[0]"),
    ];
    for (messages, path) in openai_cases {
        let err = openai::write(&messages).unwrap_err();
        assert_eq!((err.code(), err.path()), ("unwritable", Some(path)), "{err}");
    }
    let anthropic_cases: Vec<(Vec<Message>, &str)> = vec![
        (vec![user_with(bare_image)], "[0].parts[1]"),
        (vec![Message::new(Role::Assistant, vec![call("c", "n", "not json")])], "[0].parts[0].arguments"),
        (vec![user_with(reasoning("r", Some("s"), None))], "[0].parts[1]"),
        (vec![Message::new(Role::Assistant, vec![reasoning("text", None, Some("data"))])], "[0].parts[0]"),
        (vec![Message::new(Role::User, vec![result("c", "r", false)])], "[0].parts[0]"),
        (vec![Message::new(Role::Tool, vec![])], "[0]"),
        (
            vec![
                Message::text(Role::User, "x"),
                Message::new(Role::System, vec![Part::text("late"), Part::Image(ImagePart::default())]),
            ],
            "[1].parts[1]",
        ),
    ];
    for (messages, path) in anthropic_cases {
        let err = anthropic::write_request(&messages).unwrap_err();
        assert_eq!((err.code(), err.path()), ("unwritable", Some(path)), "{err}");
    }
    // The bare array has no room for a system prompt at all.
    let err = anthropic::write(&[Message::text(Role::System, "s")]).unwrap_err();
    assert_eq!((err.code(), err.path()), ("unwritable", Some("[0]")));
    assert!(err.to_string().contains("request"), "{err}");
    // Only text in the system prompt.
    let err = anthropic::write_request(&[Message::new(
        Role::System,
        vec![Part::Image(ImagePart { url: Some("u".into()), ..ImagePart::default() })],
    )])
    .unwrap_err();
    assert_eq!(err.path(), Some("[0].parts[0]"));
}

#[test]
fn several_leading_system_messages_become_system_blocks() {
    let messages =
        vec![Message::text(Role::System, "a"), Message::text(Role::System, "b"), Message::text(Role::User, "hi")];
    assert_eq!(
        anthropic::write_request(&messages).unwrap(),
        json!({"system": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
               "messages": [{"role": "user", "content": "hi"}]})
    );
    let value: Value = format::write(&messages, Format::OpenAi).unwrap();
    assert_eq!(value[1], json!({"role": "system", "content": "b"}));
}
