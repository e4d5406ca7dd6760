#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! Lossless round trips: provider JSON -> native messages -> the same provider gives the
//! very same JSON value, for every real transcript in `../shared/fixtures/real/`, the
//! demo session, and one hand-written case per wire feature. The native step goes through
//! the native JSON form too, so the markers survive serialization.

mod common;

use contextfold::format::{self, anthropic, native, openai, Format};
use serde_json::{json, Value};
use std::path::Path;

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/demo-session.openai.json");

/// wire -> native -> native JSON -> native -> wire.
fn round_trip(wire: &Value, format: Format) -> Value {
    let messages = format::read(wire, format).unwrap_or_else(|e| panic!("read {format:?}: {e}\n{wire}"));
    let native_json = native::write(&messages);
    let again = native::read(&native_json).unwrap();
    assert_eq!(again, messages, "native JSON round trip");
    format::write(&again, format).unwrap_or_else(|e| panic!("write {format:?}: {e}\n{wire}"))
}

/// The first place two values differ, for readable failures on big files.
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for key in x.keys().chain(y.keys()) {
                match (x.get(key), y.get(key)) {
                    (Some(u), Some(v)) => {
                        if let Some(d) = first_difference(u, v, &format!("{path}.{key}")) {
                            return Some(d);
                        }
                    }
                    (u, v) => return Some(format!("{path}.{key}: {u:?} vs {v:?}")),
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_difference(u, v, &format!("{path}[{i}]")) {
                    return Some(d);
                }
            }
            (x.len() != y.len()).then(|| format!("{path}: length {} vs {}", x.len(), y.len()))
        }
        _ => (a != b).then(|| format!("{path}: {a} vs {b}")),
    }
}

fn assert_same(original: &Value, written: &Value, what: &str) {
    if let Some(d) = first_difference(original, written, "") {
        panic!("{what}: round trip differs at {d}");
    }
    assert_eq!(original, written, "{what}");
}

fn load(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn real_transcripts_round_trip_exactly() {
    let Some(files) = common::real_fixtures() else {
        return;
    };
    assert!(!files.is_empty());
    for file in files {
        let wire = load(&file);
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let (_, detected) = format::read_auto(&wire).unwrap();
        // The name says the format; a plain text chat (the reference summary) is
        // detected as OpenAI, and must round-trip in both.
        let formats: Vec<Format> = if name.ends_with(".openai.json") {
            vec![Format::OpenAi]
        } else if name.ends_with(".anthropic.json") {
            vec![Format::Anthropic]
        } else {
            vec![detected, Format::Anthropic]
        };
        for format in formats {
            let written = round_trip(&wire, format);
            assert_same(&wire, &written, &format!("{name} as {format:?}"));
        }
    }
}

#[test]
fn demo_session_round_trips_exactly() {
    let wire = load(Path::new(DEMO));
    assert_same(&wire, &round_trip(&wire, Format::OpenAi), "demo session");
}

#[test]
fn openai_features_round_trip_exactly() {
    let cases = [
        ("string content", json!([{"role": "user", "content": "hi"}])),
        ("empty string content", json!([{"role": "user", "content": ""}])),
        ("single text part in an array", json!([{"role": "user", "content": [{"type": "text", "text": "hi"}]}])),
        (
            "several text parts",
            json!([{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b", "annotations": []}]}]),
        ),
        ("null user content", json!([{"role": "user", "content": null}])),
        ("absent user content", json!([{"role": "user", "name": "ann"}])),
        ("developer role", json!([{"role": "developer", "content": "be brief"}])),
        (
            "system with a name",
            json!([{"role": "system", "name": "rules", "content": [{"type": "text", "text": "x"}]}]),
        ),
        (
            "image_url with detail, data URL image",
            json!([{"role": "user", "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": "https://x/a.png", "detail": "high"}},
                {"type": "image_url", "image_url": {"detail": "low", "url": "data:image/png;base64,iVBORw0KGgo="}}]}]),
        ),
        (
            "input_audio",
            json!([{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}]}]),
        ),
        (
            "file parts: inline, by id, plain data",
            json!([{"role": "user", "content": [
                {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"}},
                {"type": "file", "file": {"file_id": "file-abc"}},
                {"type": "file", "file": {"file_data": "JVBERi0=", "filename": "b.pdf"}}]}]),
        ),
        (
            "a custom tool's call (free-text input) and its result",
            json!([
                {"role": "user", "content": "count them"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_1", "type": "custom", "custom": {"name": "sql", "input": "SELECT count(*) FROM t"}}]},
                {"role": "tool", "tool_call_id": "call_1", "content": "42"}]),
        ),
        (
            "refusal part, refusal field",
            json!([{"role": "assistant", "content": [{"type": "refusal", "refusal": "no"}], "refusal": "no"}]),
        ),
        (
            "assistant null content with tool calls, parallel calls, tool messages",
            json!([
                {"role": "user", "content": "read both"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{\"path\": \"a.rs\"}"}},
                    {"id": "c2", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"b.rs\"}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "fn a() {}"},
                {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "fn b() {}"}]}]),
        ),
        (
            "assistant without content, call without type, extra call fields",
            json!([{"role": "assistant", "tool_calls": [
                {"index": 0, "id": "c1", "function": {"name": "ls", "arguments": "", "strict": true}}]},
                {"role": "tool", "tool_call_id": "c1", "content": ""}]),
        ),
        (
            "assistant empty string content with calls",
            json!([{"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "."}]),
        ),
        (
            "legacy name on tool messages",
            json!([{"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "get", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "name": "get", "content": "{}"}]),
        ),
        (
            "legacy function_call and function message",
            json!([
                {"role": "user", "content": "weather?"},
                {"role": "assistant", "content": null, "function_call": {"name": "weather", "arguments": "{\"city\":\"Oslo\"}"}},
                {"role": "function", "name": "weather", "content": "sunny"},
                {"role": "assistant", "content": "Sunny.", "function_call": null}]),
        ),
        (
            "reasoning_content, empty reasoning_content, empty tool_calls",
            json!([
                {"role": "assistant", "content": "ok", "reasoning_content": "think first"},
                {"role": "assistant", "content": null, "reasoning_content": "", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "."},
                {"role": "assistant", "content": "done", "tool_calls": []}]),
        ),
        ("reasoning only", json!([{"role": "assistant", "reasoning_content": "hmm", "content": null}])),
        (
            "fields named like native or marker fields",
            json!([{"role": "user", "parts": 1, "_openai": 2, "_anthropic": 3, "content": [
                {"type": "text", "text": "a", "_anthropic": {}, "type2": "x"}]}]),
        ),
    ];
    for (name, wire) in cases {
        assert_same(&wire, &round_trip(&wire, Format::OpenAi), name);
        assert_eq!(openai::write(&openai::read(&wire).unwrap()).unwrap(), wire, "{name}");
    }
}

#[test]
fn anthropic_features_round_trip_exactly() {
    let cases = [
        ("string content", json!([{"role": "user", "content": "hi"}])),
        ("single text block", json!([{"role": "user", "content": [{"type": "text", "text": "hi"}]}])),
        ("empty string content", json!([{"role": "assistant", "content": ""}])),
        ("empty block content", json!([{"role": "user", "content": []}])),
        (
            "text, image and document blocks",
            json!([{"role": "user", "content": [
                {"type": "text", "text": "see"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQ"}},
                {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}},
                {"type": "document", "title": "spec", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}},
                {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "plain"}},
                {"type": "image", "source": {"type": "file", "file_id": "file_1"}}]}]),
        ),
        (
            "tool_use and tool_result with string, block, absent content and is_error",
            json!([
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Reading."},
                    {"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a.rs", "limit": 5}},
                    {"type": "tool_use", "id": "t2", "name": "read", "input": {}, "caller": {"type": "direct"}},
                    {"type": "tool_use", "id": "t3", "name": "ls", "input": {"deep": {"z": 1.5, "a": [null, true]}}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "fn a() {}"},
                    {"type": "tool_result", "tool_use_id": "t2", "content": [{"type": "text", "text": "boom"}], "is_error": true},
                    {"type": "tool_result", "tool_use_id": "t3", "is_error": false},
                    {"type": "tool_result", "tool_use_id": "t4", "content": ""},
                    {"type": "tool_result", "tool_use_id": "t5", "content": [
                        {"type": "text", "text": "img"},
                        {"type": "image", "source": {"type": "url", "url": "https://x/b.png"}}]}]}]),
        ),
        (
            "thinking with signature, redacted_thinking",
            json!([{"role": "assistant", "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "EqQBCkYIBRgCKkA="},
                {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
                {"type": "thinking", "thinking": "unsigned"},
                {"type": "text", "text": "Answer."}]}]),
        ),
        (
            "cache_control on text, image, tool_result",
            json!([
                {"role": "user", "content": [
                    {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "t1", "name": "n", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "r", "cache_control": {"type": "ephemeral", "ttl": "1h"}}]}]),
        ),
        (
            "a user message with tool results and text, in any order",
            json!([
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "t1", "name": "n", "input": {}},
                    {"type": "tool_use", "id": "t2", "name": "n", "input": {}}]},
                {"role": "user", "id": "u1", "content": [
                    {"type": "text", "text": "before"},
                    {"type": "tool_result", "tool_use_id": "t1", "content": "r1"},
                    {"type": "text", "text": "between"},
                    {"type": "tool_result", "tool_use_id": "t2", "content": "r2"},
                    {"type": "text", "text": "after"}]}]),
        ),
        (
            "consecutive user messages of tool results stay apart",
            json!([
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "t1", "name": "n", "input": {}},
                    {"type": "tool_use", "id": "t2", "name": "n", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r1"}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "r2"}]},
                {"role": "user", "content": "and a plain user turn after"}]),
        ),
        (
            "unknown message fields",
            json!([{"role": "assistant", "id": "msg_1", "model": "claude", "content": "x", "parts": 0}]),
        ),
    ];
    for (name, wire) in cases {
        assert_same(&wire, &round_trip(&wire, Format::Anthropic), name);
        assert_eq!(anthropic::write(&anthropic::read(&wire).unwrap()).unwrap(), wire, "{name}");
    }
}

#[test]
fn anthropic_requests_round_trip_exactly() {
    let cases = [
        ("system string", json!({"system": "be brief", "messages": [{"role": "user", "content": "hi"}]})),
        (
            "system blocks with cache_control",
            json!({"system": [
                {"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": "b"}],
                "messages": [{"role": "user", "content": "hi"}]}),
        ),
        ("system as a single block", json!({"system": [{"type": "text", "text": "a"}], "messages": []})),
        ("empty system string", json!({"system": "", "messages": []})),
    ];
    for (name, wire) in cases {
        assert_same(&wire, &round_trip(&wire, Format::Anthropic), name);
        assert_eq!(anthropic::write_request(&anthropic::read(&wire).unwrap()).unwrap(), wire, "{name}");
    }
}

#[test]
fn native_round_trips_through_format_write() {
    let wire = json!([{"role": "user", "parts": [{"type": "text", "text": "hi"}], "x": 1}]);
    assert_eq!(round_trip(&wire, Format::Native), wire);
}

#[test]
fn gemini_features_round_trip_exactly() {
    let cases = [
        ("text, missing role", json!([{"role": "user", "parts": [{"text": "hi"}]}, {"parts": [{"text": "again"}]}])),
        ("empty parts", json!([{"role": "user", "parts": []}])),
        (
            "thoughts and signatures on every kind of part",
            json!([{"role": "user", "parts": [{"text": "go"}]}, {"role": "model", "parts": [
                {"text": "hmm", "thought": true, "thoughtSignature": "s1"},
                {"text": "plain thought", "thought": true},
                {"thought": true, "thoughtSignature": "s0"},
                {"text": "Hello", "thoughtSignature": "s2"},
                {"text": "", "thoughtSignature": "s3"},
                {"thoughtSignature": "s4"},
                {"text": "not a thought", "thought": false}]}]),
        ),
        (
            "inline data, file data, display names, unknown nested fields",
            json!([{"role": "user", "parts": [
                {"inlineData": {"mimeType": "image/png", "data": "iVBOR", "displayName": "x.png"}},
                {"inlineData": {"mimeType": "audio/wav", "data": "UklGRg=="}, "thoughtSignature": "s"},
                {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://b/a.pdf", "displayName": "a.pdf"}},
                {"fileData": {"fileUri": "https://x/v.mp4"}, "videoMetadata": {"startOffset": "1s"}},
                {"fileData": {"mimeType": "image/png", "fileUri": "data:image/png;base64,AAA"}},
                {"inlineData": {"data": "AAA"}}]}]),
        ),
        (
            "function calls with and without ids, args absent, parallel responses",
            json!([
                {"role": "user", "parts": [{"text": "list"}]},
                {"role": "model", "parts": [
                    {"functionCall": {"name": "ls", "args": {"dir": "."}}, "thoughtSignature": "sig"},
                    {"functionCall": {"id": "c2", "name": "pwd"}},
                    {"functionCall": {"name": "ls", "args": {"deep": {"z": 1.5, "a": [null, true]}}}}]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "ls", "response": {"output": "a.rs"}}},
                    {"functionResponse": {"id": "c2", "name": "pwd", "response": {"output": "/"}}},
                    {"functionResponse": {"name": "ls", "response": {"result": {"files": [1, 2.5]}}, "willContinue": false}}]},
                {"role": "model", "parts": [{"text": "Done."}]}]),
        ),
        (
            "error, empty, absent responses, multimodal response parts",
            json!([
                {"role": "model", "parts": [{"functionCall": {"id": "a", "name": "f", "args": {}}},
                    {"functionCall": {"id": "b", "name": "g", "args": {}}},
                    {"functionCall": {"id": "c", "name": "h", "args": {}}},
                    {"functionCall": {"id": "d", "name": "i", "args": {}}}]},
                {"role": "user", "parts": [
                    {"functionResponse": {"id": "a", "name": "f", "response": {"error": "boom"}}},
                    {"functionResponse": {"id": "b", "name": "g", "response": {}}},
                    {"functionResponse": {"id": "c", "name": "h"}},
                    {"functionResponse": {"id": "d", "name": "i", "response": {"output": "see"},
                        "parts": [{"inlineData": {"mimeType": "image/png", "data": "AAA"}}]}}]}]),
        ),
        (
            "responses and text in one content, in any order; separate response contents",
            json!([
                {"role": "model", "parts": [{"functionCall": {"id": "a", "name": "f", "args": {}}},
                    {"functionCall": {"id": "b", "name": "f", "args": {}}}]},
                {"role": "user", "id": 7, "parts": [
                    {"text": "before"},
                    {"functionResponse": {"id": "a", "name": "f", "response": {"output": "1"}}},
                    {"text": "after"}]},
                {"role": "function", "parts": [{"functionResponse": {"id": "b", "name": "f", "response": {"output": "2"}}}]}]),
        ),
        (
            "request with system instruction, role and extra fields",
            json!({"systemInstruction": {"role": "system", "parts": [{"text": "a"}, {"text": "b"}]},
                   "contents": [{"role": "user", "parts": [{"text": "hi"}]}]}),
        ),
        (
            "string system instruction",
            json!({"systemInstruction": "be brief", "contents": [{"role": "user", "parts": [{"text": "hi"}]}]}),
        ),
        ("request without system", json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})),
        (
            "fields named like native or marker fields",
            json!([{"role": "user", "type": 1, "_gemini": 2, "_openai": 3, "parts": [
                {"text": "a", "_anthropic": {}, "type": "x", "parts": 1}]}]),
        ),
    ];
    for (name, wire) in cases {
        let expected = if name == "request without system" { wire["contents"].clone() } else { wire.clone() };
        assert_same(&expected, &round_trip(&wire, Format::Gemini), name);
        // `{role: "user", parts: []}` fits native too, which detection prefers; a part
        // with a `type` field looks native, and must be read with an explicit format.
        if !name.starts_with("empty parts") && !name.starts_with("fields named") {
            assert_eq!(format::detect(&wire).unwrap(), Format::Gemini, "{name}");
        }
    }
}

#[test]
fn aisdk_features_round_trip_exactly() {
    let cases = [(
        "every role, string and part contents, providerOptions",
        json!([
                {"role": "system", "content": "be brief", "providerOptions": {"anthropic": {"cacheControl": {"type": "ephemeral"}}}},
                {"role": "user", "content": [
                    {"type": "text", "text": "see"},
                    {"type": "image", "image": "https://x/a.png"},
                    {"type": "image", "image": "iVBOR", "mediaType": "image/png"},
                    {"type": "file", "data": "JVBERi0=", "mediaType": "application/pdf", "filename": "a.pdf"}]},
                {"role": "assistant", "content": [
                    {"type": "reasoning", "text": "hmm", "providerOptions": {"anthropic": {"signature": "sig"}}},
                    {"type": "text", "text": "Listing."},
                    {"type": "tool-call", "toolCallId": "c1", "toolName": "ls", "input": {"dir": "."}},
                    {"type": "tool-call", "toolCallId": "c2", "toolName": "cat", "input": {"deep": {"z": 1.5}}},
                    {"type": "tool-call", "toolCallId": "c3", "toolName": "f", "input": {}},
                    {"type": "tool-call", "toolCallId": "c4", "toolName": "g", "input": {}},
                    {"type": "tool-call", "toolCallId": "c5", "toolName": "h", "input": {}}]},
                {"role": "tool", "content": [
                    {"type": "tool-result", "toolCallId": "c1", "toolName": "ls", "output": {"type": "text", "value": "a.rs"}},
                    {"type": "tool-result", "toolCallId": "c2", "toolName": "cat", "output": {"type": "json", "value": {"n": 1}}},
                    {"type": "tool-result", "toolCallId": "c3", "toolName": "f", "output": {"type": "error-text", "value": "boom"}},
                    {"type": "tool-result", "toolCallId": "c4", "toolName": "g", "output": {"type": "error-json", "value": [1]}},
                    {"type": "tool-result", "toolCallId": "c5", "toolName": "h", "output": {"type": "content", "value": [
                        {"type": "text", "text": "img"}, {"type": "media", "data": "AAA", "mediaType": "image/png"},
                        // `ai` 7's inline text file (`FileDataText`), as `toModelOutput` returns it.
                        {"type": "file", "mediaType": "text/markdown", "data": {"type": "text", "text": "# Notes"}}]}}]},
                {"role": "assistant", "content": "Done."},
                {"role": "user", "content": [{"type": "text", "text": "single part"}]},
                {"role": "user", "content": ""}]),
    )];
    for (name, wire) in cases {
        assert_same(&wire, &round_trip(&wire, Format::AiSdk), name);
        assert_eq!(format::detect(&wire).unwrap(), Format::AiSdk, "{name}");
    }
}

#[test]
fn langchain_features_round_trip_exactly() {
    let cases = [
        (
            "python toDict form",
            json!([
                {"type": "system", "data": {"content": "be brief", "additional_kwargs": {}, "type": "system"}},
                {"type": "human", "data": {"content": "list", "additional_kwargs": {}, "response_metadata": {}, "id": null}},
                {"type": "ai", "data": {"content": "", "tool_calls": [
                    {"name": "ls", "args": {"dir": "."}, "id": "call_1", "type": "tool_call"}],
                    "invalid_tool_calls": [], "usage_metadata": {"input_tokens": 3}}},
                {"type": "tool", "data": {"content": "a.rs", "tool_call_id": "call_1", "name": "ls", "status": "success"}},
                {"type": "ai", "data": {"content": [
                    {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                    {"type": "text", "text": "One file."}], "tool_calls": []}},
                {"type": "human", "data": {"content": [{"type": "text", "text": "look"},
                    {"type": "image_url", "image_url": {"url": "https://x/a.png", "detail": "low"}},
                    {"type": "image_url", "image_url": "data:image/png;base64,AAA"}]}}]),
        ),
        (
            "JS toJSON form, error status",
            json!([
                {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "HumanMessage"],
                 "kwargs": {"content": "list", "additional_kwargs": {}, "response_metadata": {}}},
                {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "AIMessage"],
                 "kwargs": {"content": [{"type": "text", "text": "calling"}], "tool_calls": [{"name": "ls", "args": {}, "id": "t1"}]}},
                {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "ToolMessage"],
                 "kwargs": {"content": "boom", "tool_call_id": "t1", "status": "error"}}]),
        ),
        (
            // What @langchain/anthropic returns for a tool call: its tool_use block beside
            // the message's tool_calls; redacted thinking; v1 standard and unknown blocks.
            "provider blocks kept verbatim",
            json!([
                {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "HumanMessage"],
                 "kwargs": {"content": "read a.rs"}},
                {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "AIMessage"],
                 "kwargs": {"content": [
                    {"type": "redacted_thinking", "data": "EmwKAhgB"},
                    {"type": "text", "text": "Reading."},
                    {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.rs"}},
                    {"type": "reasoning", "reasoning": "the file first"},
                    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"q": "x"}}],
                  "tool_calls": [{"name": "read", "args": {"path": "a.rs"}, "id": "toolu_1", "type": "tool_call"}]}},
                {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "ToolMessage"],
                 "kwargs": {"content": [{"type": "text", "text": "fn main() {}"}], "tool_call_id": "toolu_1"}}]),
        ),
        (
            "ChatMessage: a role of its own (JS form)",
            json!([
                {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "ChatMessage"],
                 "kwargs": {"content": "be brief", "role": "system"}},
                {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "ChatMessage"],
                 "kwargs": {"content": "too long", "role": "critic"}},
                {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "ChatMessage"],
                 "kwargs": {"content": "shorter, then", "role": "assistant"}}]),
        ),
        (
            "chat: a role of its own (Python form)",
            json!([
                {"type": "chat", "data": {"content": "too long", "role": "critic"}},
                {"type": "ai", "data": {"content": "shorter, then"}}]),
        ),
    ];
    for (name, wire) in cases {
        assert_same(&wire, &round_trip(&wire, Format::LangChain), name);
        assert_eq!(format::detect(&wire).unwrap(), Format::LangChain, "{name}");
        if name.starts_with("ChatMessage") {
            use contextfold::Role;
            let roles: Vec<Role> = format::read(&wire, Format::LangChain).unwrap().iter().map(|m| m.role).collect();
            assert_eq!(roles, [Role::System, Role::User, Role::Assistant], "a standard role is read as one");
        }
    }
}

/// A hand-written AI SDK v5 `UIMessage` chat with every part kind and tool state.
fn aisdk_ui_chat() -> Value {
    json!([
        {"id": "s1", "role": "system", "parts": [{"type": "text", "text": "Be brief."}]},
        {"id": "u1", "role": "user", "metadata": {"createdAt": 1_700_000_000}, "parts": [
            {"type": "text", "text": "Look at these"},
            {"type": "file", "mediaType": "image/png", "url": "data:image/png;base64,iVBOR"},
            {"type": "file", "mediaType": "image/jpeg", "url": "https://x/a.jpg"},
            {"type": "file", "mediaType": "application/pdf", "filename": "a.pdf", "url": "data:application/pdf;base64,JVBERi0="},
            {"type": "file", "mediaType": "image/png", "filename": "shot.png", "url": "https://x/shot.png"},
            {"type": "file", "mediaType": "text/plain", "url": "data:image/png;base64,mismatch"},
            {"type": "data-weather", "id": "w1", "data": {"city": "Paris"}}]},
        {"id": "a1", "role": "assistant", "metadata": {"model": "gpt-5"}, "custom": [1, 2], "parts": [
            {"type": "step-start"},
            {"type": "reasoning", "text": "Let me look.", "state": "done", "providerMetadata": {"anthropic": {"signature": "sig"}}},
            {"type": "text", "text": "Checking.", "state": "done"},
            {"type": "tool-ls", "toolCallId": "c1", "state": "output-available", "input": {"dir": "."}, "output": "a.rs\nb.rs"},
            {"type": "tool-stat", "toolCallId": "c2", "state": "output-available", "input": {"path": "a.rs"},
             "output": {"size": 12, "deep": [1.5, null]}, "providerExecuted": true, "callProviderMetadata": {"x": {"y": 1}}},
            {"type": "tool-cat", "toolCallId": "c3", "state": "output-error", "input": {"path": "nope"}, "errorText": "not found"},
            {"type": "source-url", "sourceId": "src1", "url": "https://docs", "title": "Docs"},
            {"type": "step-start"},
            {"type": "dynamic-tool", "toolName": "mcp_search", "toolCallId": "c4", "state": "output-available",
             "input": {"q": "rust"}, "output": [{"hit": 1}]},
            {"type": "tool-void", "toolCallId": "c5", "state": "output-available", "input": {}},
            {"type": "step-start"},
            {"type": "text", "text": "Still working."},
            {"type": "step-start"},
            {"type": "source-document", "sourceId": "d1", "mediaType": "application/pdf", "title": "Spec"},
            {"type": "step-start"},
            {"type": "tool-write", "toolCallId": "c6", "state": "input-available", "input": {"path": "c.rs"}},
            {"type": "tool-edit", "toolCallId": "c7", "state": "input-streaming", "input": {"pa": null}},
            {"type": "tool-move", "toolCallId": "c8", "state": "input-streaming"},
            {"type": "dynamic-tool", "toolName": "mcp_ask", "toolCallId": "c9", "state": "output-error", "input": {}, "errorText": "denied"},
            {"type": "data-progress", "data": {"pct": 50}, "transient": false}]},
        {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "And?"}]},
        {"id": "a2", "role": "assistant", "parts": [{"type": "text", "text": "No step-start here."}]},
        {"id": "a3", "role": "assistant", "parts": [
            {"type": "step-start"},
            {"type": "tool-ls", "toolCallId": "c10", "state": "output-available", "input": {}, "output": ""}]},
        {"id": "a4", "role": "assistant", "parts": [{"type": "step-start"}, {"type": "text", "text": "A new message after results."}]},
        {"id": "a5", "role": "assistant", "parts": []},
        {"id": "u3", "role": "user", "_openai": 1, "parts": [{"type": "text", "text": "x", "_aisdk": "clash", "name": "n"}]}
    ])
}

#[test]
fn aisdk_ui_features_round_trip_exactly() {
    let wire = aisdk_ui_chat();
    assert_eq!(format::detect(&wire).unwrap(), Format::AiSdkUi);
    assert_same(&wire, &round_trip(&wire, Format::AiSdkUi), "UIMessage chat");
}

#[test]
fn aisdk_ui_splits_steps_into_calls_and_results() {
    use contextfold::message::{Part, Role};
    let messages = format::read(&aisdk_ui_chat(), Format::AiSdkUi).unwrap();
    let roles: Vec<Role> = messages.iter().map(|m| m.role).collect();
    use Role::*;
    assert_eq!(
        roles,
        [
            System, User, Assistant, Tool, Assistant, Tool, Assistant, Assistant, Assistant, Tool, User, Assistant,
            Assistant, Tool, Assistant, Assistant, User
        ]
    );
    // A step of sources only is a step of its own: its part stands for the source.
    assert!(matches!(&messages[7].parts[..], [Part::Text(t)] if t.text == "[source document: Spec]"));
    // Step 1: reasoning, text, three calls, a source; their results follow.
    let kinds: Vec<&str> = messages[2].parts.iter().map(Part::kind).collect();
    assert_eq!(kinds, ["reasoning", "text", "toolCall", "toolCall", "toolCall", "text"]);
    let results: Vec<(String, bool, String)> = messages[3]
        .tool_results()
        .map(|r| (r.call_id.clone(), r.is_error, serde_json::to_string(&r.content).unwrap()))
        .collect();
    assert_eq!(results[0].0, "c1");
    assert!(results[0].2.contains("a.rs\\nb.rs"));
    let stat = messages[3].tool_results().nth(1).unwrap();
    match stat.content.as_slice() {
        [Part::Text(t)] => {
            assert_eq!(serde_json::from_str::<Value>(&t.text).unwrap(), json!({"size": 12, "deep": [1.5, null]}))
        }
        other => panic!("{other:?}"),
    }
    assert_eq!((results[2].0.as_str(), results[2].1), ("c3", true));
    // Pending calls have no result: the last step has four calls and one result.
    assert_eq!(messages[9].tool_results().map(|r| r.call_id.as_str()).collect::<Vec<_>>(), ["c9"]);
    let last_calls: Vec<&str> = messages[8].tool_calls().map(|c| c.id.as_str()).collect();
    assert_eq!(last_calls, ["c6", "c7", "c8", "c9"]);
    assert_eq!(messages[8].tool_calls().nth(2).unwrap().arguments, "");
    // The user message: text, an inline image, an image by URL, two files, a file whose
    // data URL does not match its media type (kept as a URL), a data part (a text
    // standing for it).
    let kinds: Vec<&str> = messages[1].parts.iter().map(Part::kind).collect();
    assert_eq!(kinds, ["text", "image", "image", "file", "file", "file", "text"]);
    assert!(messages[1].parts[6].is_native_block());
    match &messages[1].parts[1] {
        Part::Image(image) => assert_eq!((image.data.as_deref(), image.url.as_deref()), (Some("iVBOR"), None)),
        other => panic!("{other:?}"),
    }
    assert_eq!(messages[1].extra["id"], json!("u1"));
}

#[test]
fn aisdk_ui_writes_foreign_chains_in_the_natural_shape() {
    let openai = json!([
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "List files"},
        {"role": "assistant", "content": "Listing.", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{\"dir\":\".\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "a.rs"},
        {"role": "assistant", "content": "One file."}]);
    let messages = format::read(&openai, Format::OpenAi).unwrap();
    let written = format::write(&messages, Format::AiSdkUi).unwrap();
    assert_eq!(
        written,
        json!([
            {"id": "msg-0", "role": "system", "parts": [{"type": "text", "text": "Be brief."}]},
            {"id": "msg-1", "role": "user", "parts": [{"type": "text", "text": "List files"}]},
            {"id": "msg-2", "role": "assistant", "parts": [
                {"type": "step-start"},
                {"type": "text", "text": "Listing."},
                {"type": "tool-ls", "toolCallId": "call_1", "state": "output-available", "input": {"dir": "."}, "output": "a.rs"},
                {"type": "step-start"},
                {"type": "text", "text": "One file."}]}])
    );
    assert_eq!(format::detect(&written).unwrap(), Format::AiSdkUi);
    // And back: the same calls, results and texts.
    let back = format::read(&written, Format::AiSdkUi).unwrap();
    assert_eq!(back.len(), messages.len());
    assert_eq!(format::write(&back, Format::AiSdkUi).unwrap(), written);
}

#[test]
fn aisdk_ui_errors_name_the_culprit() {
    let err = format::read(&json!([{"id": "a", "role": "tool", "parts": []}]), Format::AiSdkUi).unwrap_err();
    assert_eq!((err.code(), err.path()), ("invalid_shape", Some("[0].role")));
    let err = format::read(
        &json!([{"id": "a", "role": "user", "parts": [{"type": "tool-x", "toolCallId": "c"}]}]),
        Format::AiSdkUi,
    )
    .unwrap_err();
    assert_eq!(err.path(), Some("[0].parts[0].type"));
    let err = format::read(&json!([{"id": "a", "role": "assistant", "parts": [{"type": "tool-x"}]}]), Format::AiSdkUi)
        .unwrap_err();
    assert_eq!(err.path(), Some("[0].parts[0].toolCallId"));
    let orphan = vec![contextfold::message::Message::tool_result("c9", "f", "r")];
    let err = format::write(&orphan, Format::AiSdkUi).unwrap_err();
    assert_eq!((err.code(), err.path()), ("unwritable", Some("[0].parts[0]")));
}

/// The system prompt as leading `{"role": "system"}` messages inside Anthropic
/// `messages` (as SDK wrappers and proxies send it): read as system messages, detected
/// as Anthropic, written back in place, and kept in place by a compaction that adds a
/// system summary of its own.
#[test]
fn anthropic_leading_system_messages_round_trip_in_place() {
    use contextfold::message::Role;
    let wire = json!([
        {"role": "system", "content": "You are terse."},
        {"role": "system", "content": [{"type": "text", "text": "Rules.", "cache_control": {"type": "ephemeral"}}]},
        {"role": "user", "content": "list"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.rs"}]},
        {"role": "assistant", "content": "One file."}
    ]);
    assert_eq!(format::detect(&wire).unwrap(), Format::Anthropic);
    let messages = format::read(&wire, Format::Anthropic).unwrap();
    let roles: Vec<Role> = messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::System, Role::System, Role::User, Role::Assistant, Role::Tool, Role::Assistant]);
    assert_same(&wire, &round_trip(&wire, Format::Anthropic), "leading system messages");
    // A request object keeps its own convention: `system` stays a field.
    let request = json!({"system": "S", "messages": [{"role": "user", "content": "q"}]});
    assert_same(&request, &round_trip(&request, Format::Anthropic), "request form");
    // A summary system message added after the leading run goes with it, in place.
    let mut more = messages.clone();
    more.insert(2, contextfold::message::Message::text(Role::System, "[CONDENSED CONTEXT] earlier work"));
    let written = format::write(&more, Format::Anthropic).unwrap();
    assert_eq!(written[2], json!({"role": "system", "content": "[CONDENSED CONTEXT] earlier work"}));
    assert_eq!(written[3], wire[2]);
    // A request with both a `system` field and a system message inside `messages`: the
    // repair pass joins them (one system prompt), and the request form stays.
    let both = json!({"system": "s", "messages": [
        {"role": "system", "content": "rules"}, {"role": "user", "content": "hi"}]});
    let read = format::read(&both, Format::Anthropic).unwrap();
    let repaired = contextfold::repair::repair(
        &read,
        &contextfold::repair::RepairOptions::for_provider(contextfold::repair::Provider::Anthropic),
    );
    let written = format::write(&repaired.messages, Format::Anthropic).unwrap();
    assert_eq!(written["system"], json!([{"type": "text", "text": "s"}, {"type": "text", "text": "rules"}]));
    assert_eq!(written["messages"], json!([{"role": "user", "content": "hi"}]));
    // A system message after the conversation started (`SystemMessageParam`) stays there.
    let late = json!([{"role": "user", "content": "q"}, {"role": "system", "content": "x"}]);
    assert_same(&late, &round_trip(&late, Format::Anthropic), "a later system message");
}

/// Diagnostics point into the caller's JSON: the source map of every real transcript,
/// the demo and the UIMessage chat adds up to the chain as read.
#[test]
fn every_message_read_knows_its_wire_path() {
    use contextfold::format::source_map::message_paths;
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/demo-session.openai.json");
    let mut files = vec![demo];
    files.extend(common::real_fixtures().unwrap_or_default());
    let mut inputs: Vec<(String, Value)> =
        files.iter().map(|f| (f.file_name().unwrap().to_string_lossy().into_owned(), load(f))).collect();
    inputs.push(("UIMessage chat".into(), aisdk_ui_chat()));
    for (name, wire) in inputs {
        let (messages, format) = format::read_auto(&wire).unwrap();
        let paths = message_paths(&wire, format, messages.len()).unwrap_or_else(|| panic!("{name}: no source map"));
        assert_eq!(paths.len(), messages.len(), "{name}");
        // Paths never go backwards: wire messages are read in order.
        let index = |p: &str| p.rsplit('[').next().and_then(|s| s.trim_end_matches(']').parse::<usize>().ok());
        let indices: Vec<usize> = paths.iter().filter_map(|p| index(p)).collect();
        assert!(indices.windows(2).all(|w| w[0] <= w[1]), "{name}: {paths:?}");
    }
}

/// AI SDK 6 tool approval: a denied call is answered (the model is told it was denied,
/// with the user's reason), a call awaiting approval stays pending; both round-trip.
#[test]
fn aisdk_ui_denied_and_awaiting_approval_tool_parts() {
    let wire = json!([
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "clean up"}]},
        {"id": "a1", "role": "assistant", "parts": [
            {"type": "step-start"},
            {"type": "tool-rm", "toolCallId": "c1", "state": "output-denied", "input": {"path": "/"},
             "approval": {"id": "ap1", "approved": false, "reason": "never delete the root"}},
            {"type": "tool-rm", "toolCallId": "c2", "state": "output-denied", "input": {"path": "/tmp"},
             "approval": {"id": "ap2", "approved": false}}]},
        {"id": "a2", "role": "assistant", "parts": [
            {"type": "step-start"},
            {"type": "tool-ls", "toolCallId": "c3", "state": "approval-requested", "input": {}, "approval": {"id": "ap3"}}]}
    ]);
    assert_same(&wire, &round_trip(&wire, Format::AiSdkUi), "approval states");
    let messages = format::read(&wire, Format::AiSdkUi).unwrap();
    let results: Vec<(String, bool, String)> = messages
        .iter()
        .flat_map(|m| m.tool_results())
        .map(|r| (r.call_id.clone(), r.is_error, serde_json::to_string(&r.content).unwrap()))
        .collect();
    assert_eq!(results.len(), 2, "the call awaiting approval has no result");
    assert!(results[0].1 && results[0].2.contains("never delete the root"), "{results:?}");
    assert!(results[1].1 && results[1].2.contains("denied"), "{results:?}");
    // To OpenAI the denial is a tool message the model reads.
    let converted = contextfold::convert::convert(&wire, Some(Format::AiSdkUi), Format::OpenAi).unwrap();
    let text = converted.value.to_string();
    assert!(text.contains("never delete the root"), "{text}");
}
