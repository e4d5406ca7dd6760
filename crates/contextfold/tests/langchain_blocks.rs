#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! LangChain content blocks that stand for something the message already says (a tool
//! call's `tool_use` / v1 `tool_call` block beside `tool_calls`) or for a native part
//! (v1 standard `image`, `file`, `reasoning` blocks): read as that, written back as read.

use contextfold::convert::convert;
use contextfold::format::{self, Format};
use contextfold::{Part, Role};
use serde_json::{json, Value};

fn js(class: &str, kwargs: Value) -> Value {
    json!({"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", class], "kwargs": kwargs})
}

/// What `@langchain/anthropic` returns for a tool call: the call as a `tool_use` block
/// and in `tool_calls`.
fn anthropic_tool_call_chain() -> Value {
    json!([
        js("HumanMessage", json!({"content": "weather in Paris?"})),
        js(
            "AIMessage",
            json!({
            "content": [{"type": "text", "text": "Let me check."},
                        {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Paris"}}],
            "tool_calls": [{"id": "toolu_01A", "name": "get_weather", "args": {"city": "Paris"}}],
            "response_metadata": {"model_provider": "anthropic"}})
        ),
        js("ToolMessage", json!({"content": "sunny", "tool_call_id": "toolu_01A"})),
        js("AIMessage", json!({"content": "Sunny."})),
    ])
}

/// A chain built with LangChain 1.x `contentBlocks` (what `toJSON()` gives for it).
fn v1_chain() -> Value {
    json!([
        js(
            "HumanMessage",
            json!({"content_blocks": [
            {"type": "text", "text": "what is in the picture?"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "image", "url": "https://example.com/cat.png"},
            {"type": "file", "data": "JVBERi0=", "mimeType": "application/pdf", "metadata": {"filename": "a.pdf"}}],
            "additional_kwargs": {}, "response_metadata": {"output_version": "v1"}})
        ),
        js(
            "AIMessage",
            json!({"content_blocks": [
            {"type": "reasoning", "reasoning": "PRIVATE_THOUGHT"},
            {"type": "text", "text": "Let me look it up."},
            {"type": "tool_call", "id": "c1", "name": "lookup", "args": {"q": "cat"}}],
            "tool_calls": [{"type": "tool_call", "id": "c1", "name": "lookup", "args": {"q": "cat"}}],
            "invalid_tool_calls": [], "additional_kwargs": {}, "response_metadata": {"output_version": "v1"}})
        ),
        js("ToolMessage", json!({"content": "a cat", "tool_call_id": "c1"})),
        js("AIMessage", json!({"content": "A cat."})),
    ])
}

fn texts(parts: &[Part]) -> Vec<String> {
    parts.iter().filter_map(|p| if let Part::Text(t) = p { Some(t.text.clone()) } else { None }).collect()
}

#[test]
fn a_tool_use_block_beside_tool_calls_is_that_call() {
    let wire = anthropic_tool_call_chain();
    let messages = format::read(&wire, Format::LangChain).unwrap();
    let assistant = &messages[1];
    assert_eq!(texts(&assistant.parts), ["Let me check."], "no text part stands for the call");
    assert_eq!(assistant.parts.iter().filter(|p| matches!(p, Part::ToolCall(_))).count(), 1);
    for to in [Format::Anthropic, Format::OpenAi, Format::OpenAiResponses, Format::Gemini, Format::AiSdk] {
        let out = convert(&wire, Some(Format::LangChain), to).unwrap();
        let text = out.value.to_string();
        assert!(!text.contains("[tool_use"), "{to:?}: the call written as text too: {text}");
        let calls = out.messages[1].parts.iter().filter(|p| matches!(p, Part::ToolCall(_))).count();
        assert_eq!((texts(&out.messages[1].parts), calls), (vec!["Let me check.".to_string()], 1), "{to:?}");
    }
    // Written back to LangChain: the block and tool_calls, as they came.
    assert_eq!(format::write(&messages, Format::LangChain).unwrap(), wire);
}

#[test]
fn a_call_block_follows_edits_of_the_call() {
    let wire = anthropic_tool_call_chain();
    let mut messages = format::read(&wire, Format::LangChain).unwrap();
    if let Some(Part::ToolCall(call)) = messages[1].parts.last_mut() {
        call.arguments = r#"{"city":"Lyon"}"#.to_string();
    }
    let written = format::write(&messages, Format::LangChain).unwrap();
    assert_eq!(written[1]["kwargs"]["content"][1]["input"], json!({"city": "Lyon"}));
    assert_eq!(written[1]["kwargs"]["tool_calls"][0]["args"], json!({"city": "Lyon"}));
    // No text left: the block alone, still an array.
    messages[1].parts.retain(|p| matches!(p, Part::ToolCall(_)));
    let written = format::write(&messages, Format::LangChain).unwrap();
    assert_eq!(written[1]["kwargs"]["content"][0]["type"], "tool_use");
}

#[test]
fn v1_standard_blocks_are_read_as_parts() {
    let wire = v1_chain();
    let messages = format::read(&wire, Format::LangChain).unwrap();
    let user = &messages[0];
    assert!(matches!(&user.parts[1], Part::Image(i) if i.data.as_deref() == Some("iVBORw0KGgo=")
        && i.media_type.as_deref() == Some("image/png")));
    assert!(matches!(&user.parts[2], Part::Image(i) if i.url.as_deref() == Some("https://example.com/cat.png")));
    assert!(matches!(&user.parts[3], Part::File(f) if f.media_type.as_deref() == Some("application/pdf")));
    let assistant = &messages[1];
    assert_eq!(assistant.role, Role::Assistant);
    assert!(matches!(&assistant.parts[0], Part::Reasoning(r) if r.text == "PRIVATE_THOUGHT"));
    assert_eq!(texts(&assistant.parts), ["Let me look it up."]);
    assert_eq!(assistant.parts.iter().filter(|p| matches!(p, Part::ToolCall(_))).count(), 1);
    for to in [Format::Anthropic, Format::OpenAi, Format::Gemini, Format::AiSdk] {
        let text = convert(&wire, Some(Format::LangChain), to).unwrap().value.to_string();
        assert!(text.contains("iVBORw0KGgo="), "{to:?}: the inline image is gone: {text}");
        assert!(text.contains("cat.png"), "{to:?}: the image URL is gone: {text}");
        assert!(!text.contains("[reasoning]") && !text.contains("[image") && !text.contains("[file"), "{to:?}: {text}");
        assert!(!text.contains("[tool_call"), "{to:?}: the call written as text too: {text}");
    }
    assert_eq!(format::write(&messages, Format::LangChain).unwrap(), wire);
}

/// Media given inline as a `data:` URL (an `image_url`, or a v1 block's `url`) is inline
/// data, as the same URL from OpenAI: Anthropic gets a base64 source, OpenAI's `file_data`;
/// written back to LangChain as it came.
#[test]
fn data_url_media_is_inline_data() {
    let png = "data:image/png;base64,iVBORw0KGgo=";
    let pdf = "data:application/pdf;base64,JVBERi0xLjQK";
    let wire = json!([
        {"type": "human", "data": {"content": [
            {"type": "text", "text": "what is this"},
            {"type": "image_url", "image_url": {"url": png, "detail": "low"}},
            {"type": "image_url", "image_url": png},
            {"type": "image", "url": png},
            {"type": "file", "url": pdf, "mimeType": "application/pdf"}]}},
    ]);
    let messages = format::read(&wire, Format::LangChain).unwrap();
    for part in &messages[0].parts[1..] {
        let (url, data, media) = match part {
            Part::Image(i) => (&i.url, &i.data, &i.media_type),
            Part::File(f) => (&f.url, &f.data, &f.media_type),
            other => panic!("{other:?}"),
        };
        assert!(url.is_none() && data.is_some() && media.is_some(), "{part:?}");
    }
    assert_eq!(format::write(&messages, Format::LangChain).unwrap(), wire);
    let anthropic = convert(&wire, Some(Format::LangChain), Format::Anthropic).unwrap().value;
    for block in anthropic[0]["content"].as_array().unwrap().iter().skip(1) {
        assert_eq!(block["source"]["type"], "base64", "{block}");
    }
    let openai = convert(&wire, Some(Format::LangChain), Format::OpenAi).unwrap().value;
    assert_eq!(openai[0]["content"][4]["file"]["file_data"], pdf, "{openai}");
    let responses = convert(&wire, Some(Format::LangChain), Format::OpenAiResponses).unwrap().value;
    let file = &responses[0]["content"][4];
    assert!(file.get("file_url").is_none() && file["file_data"] == pdf, "{responses}");
}
