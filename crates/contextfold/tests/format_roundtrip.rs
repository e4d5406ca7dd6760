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
