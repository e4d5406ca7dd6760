//! Provider-native blocks (issue 19 item 4), in the shapes the providers document:
//! Anthropic's server-tool, MCP, search-result, container and compaction blocks, Gemini's
//! code execution parts. Read, kept byte for byte, written back, never parted from each
//! other, and compacted like any other content.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use contextfold::format::{self, Format};
use contextfold::repair::{validate, Provider};
use serde_json::{json, Value};

/// A turn that used web search, web fetch, code execution and an MCP tool.
fn native_turn(i: usize) -> Vec<Value> {
    vec![
        json!({ "role": "user", "content": format!("Question {i}: what changed in the latest release?") }),
        json!({ "role": "assistant", "content": [
            { "type": "text", "text": "Let me search for that." },
            { "type": "server_tool_use", "id": format!("srvtoolu_{i}a"), "name": "web_search", "input": { "query": "release notes" } },
            { "type": "web_search_tool_result", "tool_use_id": format!("srvtoolu_{i}a"), "content": [
                { "type": "web_search_result", "url": "https://example.com/notes", "title": "Release notes", "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5", "page_age": "April 30, 2025" }
            ]},
            { "type": "server_tool_use", "id": format!("srvtoolu_{i}b"), "name": "web_fetch", "input": { "url": "https://example.com/notes" } },
            { "type": "web_fetch_tool_result", "tool_use_id": format!("srvtoolu_{i}b"), "content": {
                "type": "web_fetch_result", "url": "https://example.com/notes",
                "content": { "type": "document", "source": { "type": "text", "media_type": "text/plain", "data": "Version 2 adds streaming. ".repeat(40) }, "title": "Notes" },
                "retrieved_at": "2025-08-25T10:30:00Z"
            }},
            { "type": "server_tool_use", "id": format!("srvtoolu_{i}c"), "name": "code_execution", "input": { "code": "print(2 + 2)" } },
            { "type": "code_execution_tool_result", "tool_use_id": format!("srvtoolu_{i}c"), "content": { "type": "code_execution_result", "stdout": "4\n", "stderr": "", "return_code": 0 } },
            { "type": "mcp_tool_use", "id": format!("mcptoolu_{i}"), "name": "echo", "server_name": "example-mcp", "input": { "param1": "value1" } },
            { "type": "mcp_tool_result", "tool_use_id": format!("mcptoolu_{i}"), "is_error": false, "content": [{ "type": "text", "text": "Hello" }] },
            { "type": "text", "text": format!("Version 2 adds streaming (answer {i}).") }
        ]}),
    ]
}

fn chain(turns: usize) -> Value {
    let mut messages = vec![json!({ "role": "user", "content": [
        { "type": "text", "text": "Track the releases for me." },
        { "type": "container_upload", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w" },
        { "type": "search_result", "source": "https://docs.example.com", "title": "Docs", "content": [{ "type": "text", "text": "The API reference." }], "citations": { "enabled": true } }
    ]})];
    messages.push(json!({ "role": "assistant", "content": [
        { "type": "compaction", "content": "Earlier: the user asked to track releases." },
        { "type": "text", "text": "Noted." }
    ]}));
    for i in 0..turns {
        messages.extend(native_turn(i));
    }
    Value::Array(messages)
}

#[test]
fn native_blocks_are_read_and_written_back_byte_for_byte() {
    let value = chain(2);
    let messages = format::read(&value, Format::Anthropic).unwrap();
    assert!(validate(&messages, Provider::Anthropic).is_empty(), "{:?}", validate(&messages, Provider::Anthropic));
    assert_eq!(format::write(&messages, Format::Anthropic).unwrap(), value);
    // Detected as Anthropic, not refused as `invalid_shape`.
    assert_eq!(format::read_auto(&value).unwrap().1, Format::Anthropic);
    // What a summarizer reads of them: a short rendering, never the encrypted content.
    let text: String = messages.iter().map(contextfold::Message::joined_text).collect();
    for needle in [
        "[server_tool_use web_search:",
        "[web search results: Release notes <https://example.com/notes>]",
        "4",
        "example-mcp/echo",
        "[container upload file_011",
    ] {
        assert!(text.contains(needle), "{needle:?} missing in {text}");
    }
    assert!(!text.contains("EqgfCioIARgB"));
}

#[test]
fn compaction_keeps_each_server_tool_use_with_its_result() {
    let value = chain(12);
    let messages = format::read(&value, Format::Anthropic).unwrap();
    let out = common::compact_auto(&messages, 2500, Provider::Anthropic);
    assert!(out.changed);
    assert!(validate(&out.messages, Provider::Anthropic).is_empty());
    let written = format::write(&out.messages, Format::Anthropic).unwrap();
    // Every server tool use left has its result right after it, unchanged; and the
    // blocks that are left are the originals, byte for byte.
    let originals: Vec<Value> =
        value.as_array().unwrap().iter().flat_map(|m| m["content"].as_array().cloned().unwrap_or_default()).collect();
    for m in written.as_array().unwrap() {
        let blocks = m["content"].as_array().cloned().unwrap_or_default();
        for (j, b) in blocks.iter().enumerate() {
            let kind = b["type"].as_str().unwrap_or_default();
            if kind.ends_with("_tool_result") || kind == "mcp_tool_result" {
                assert!(originals.contains(b), "a result changed: {b}");
            }
            if kind == "server_tool_use" || kind == "mcp_tool_use" {
                let next = &blocks[j + 1];
                assert_eq!(next["tool_use_id"], b["id"], "a server tool use parted from its result");
            }
        }
    }
}

#[test]
fn other_formats_get_the_rendering() {
    let messages = format::read(&chain(1), Format::Anthropic).unwrap();
    let openai = format::write(&messages, Format::OpenAi).unwrap();
    let text = openai.to_string();
    assert!(text.contains("[web search results: Release notes"), "{text}");
}

#[test]
fn gemini_code_execution_parts_are_kept_byte_for_byte() {
    let value = json!([
        { "role": "user", "parts": [{ "text": "What is the sum of the first 50 primes? Run code." }] },
        { "role": "model", "parts": [
            { "text": "I'll compute it." },
            { "executableCode": { "language": "PYTHON", "code": "print(sum(primes[:50]))" } },
            { "codeExecutionResult": { "outcome": "OUTCOME_OK", "output": "5117\n" }, "thoughtSignature": "c2lnbmF0dXJl" },
            { "text": "The sum is 5117." }
        ]}
    ]);
    let messages = format::read(&value, Format::Gemini).unwrap();
    assert_eq!(format::read_auto(&value).unwrap().1, Format::Gemini);
    assert!(validate(&messages, Provider::Gemini).is_empty());
    assert_eq!(format::write(&messages, Format::Gemini).unwrap(), value);
    let text: String = messages.iter().map(contextfold::Message::joined_text).collect();
    assert!(
        text.contains("[code (PYTHON): print(sum(primes[:50]))]") && text.contains("[code result (OUTCOME_OK): 5117]"),
        "{text}"
    );
}

/// An AI SDK agent's turns as `ai` writes them: a call waiting for approval, the user's
/// answer (a yes, then a no with its reason), the result or the refusal, and a web
/// search the provider ran (its call and result in the assistant message).
fn aisdk_turns() -> Value {
    json!([
        { "role": "user", "content": "rm /tmp/a" },
        { "role": "assistant", "content": [
            { "type": "tool-call", "toolCallId": "call_1", "toolName": "rm", "input": { "path": "/tmp/a" } },
            { "type": "tool-approval-request", "approvalId": "ap_1", "toolCallId": "call_1" }
        ]},
        { "role": "tool", "content": [{ "type": "tool-approval-response", "approvalId": "ap_1", "approved": true }] },
        { "role": "tool", "content": [{ "type": "tool-result", "toolCallId": "call_1", "toolName": "rm", "output": { "type": "text", "value": "removed" } }] },
        { "role": "user", "content": "rm /tmp/b" },
        { "role": "assistant", "content": [
            { "type": "tool-call", "toolCallId": "call_2", "toolName": "rm", "input": { "path": "/tmp/b" } },
            { "type": "tool-approval-request", "approvalId": "ap_2", "toolCallId": "call_2" }
        ]},
        { "role": "tool", "content": [{ "type": "tool-approval-response", "approvalId": "ap_2", "approved": false, "reason": "keep it" }] },
        { "role": "tool", "content": [
            { "type": "tool-result", "toolCallId": "call_2", "toolName": "rm", "output": { "type": "execution-denied", "reason": "keep it" } }
        ]},
        { "role": "user", "content": "and /tmp/c?" },
        { "role": "assistant", "content": [
            { "type": "tool-call", "toolCallId": "call_3", "toolName": "rm", "input": { "path": "/tmp/c" } }
        ]},
        { "role": "tool", "content": [
            { "type": "tool-result", "toolCallId": "call_3", "toolName": "rm", "output": { "type": "execution-denied" } }
        ]},
        { "role": "user", "content": "search the docs" },
        { "role": "assistant", "content": [
            { "type": "tool-call", "toolCallId": "srv_1", "toolName": "web_search", "input": { "query": "docs" }, "providerExecuted": true },
            { "type": "tool-result", "toolCallId": "srv_1", "toolName": "web_search", "output": { "type": "json", "value": [{ "url": "https://example.com" }] } },
            { "type": "reasoning-file", "data": { "type": "url", "url": "https://example.com/r.png" }, "mediaType": "image/png" },
            { "type": "custom", "kind": "openai.compaction" },
            { "type": "text", "text": "Found the docs." }
        ]}
    ])
}

#[test]
fn aisdk_approvals_and_provider_parts_are_read_and_written_back() {
    let value = aisdk_turns();
    let messages = format::read(&value, Format::AiSdk).unwrap();
    assert_eq!(format::read_auto(&value).unwrap().1, Format::AiSdk);
    assert!(validate(&messages, Provider::Generic).is_empty(), "{:?}", validate(&messages, Provider::Generic));
    assert_eq!(format::write(&messages, Format::AiSdk).unwrap(), value);
    // A refusal reads as what the model is told; the provider's call is not one to answer.
    let refusals: Vec<String> = messages
        .iter()
        .flat_map(|m| m.tool_results())
        .filter(|r| r.call_id != "call_1")
        .map(|r| {
            contextfold::Message { role: contextfold::Role::Tool, parts: r.content.clone(), extra: Default::default() }
                .joined_text()
        })
        .collect();
    assert_eq!(refusals, ["keep it", "Tool execution denied."]);
    let text: String = messages.iter().map(contextfold::Message::joined_text).collect();
    assert!(text.contains("[provider tool call web_search: {\"query\":\"docs\"}]"), "{text}");
    assert!(text.contains("[tool call denied: keep it]") && text.contains("[approval asked for tool call call_1]"));
}

#[test]
fn repair_keeps_an_approval_response_beside_the_results_it_moves() {
    // The second call's result comes late: repair moves it up, the answer stays.
    let mut value = aisdk_turns();
    let list = value.as_array_mut().unwrap();
    let late = list.remove(7);
    list.insert(9, late);
    let messages = format::read(&value, Format::AiSdk).unwrap();
    let repaired = contextfold::repair::repair(&messages, &contextfold::repair::RepairOptions::default());
    assert!(!repaired.is_unchanged());
    let written = format::write(&repaired.messages, Format::AiSdk).unwrap().to_string();
    for id in ["ap_1", "ap_2"] {
        assert_eq!(written.matches(&format!("\"approvalId\":\"{id}\"")).count(), 2, "{written}");
    }
}

#[test]
fn aisdk_turns_compact_with_their_approvals() {
    let mut list = Vec::new();
    for _ in 0..6 {
        list.extend(aisdk_turns().as_array().unwrap().iter().cloned());
    }
    let value = Value::Array(list);
    let messages = format::read(&value, Format::AiSdk).unwrap();
    let out = common::compact_auto(&messages, 300, Provider::Generic);
    assert!(out.changed);
    assert!(validate(&out.messages, Provider::Generic).is_empty());
    let written = format::write(&out.messages, Format::AiSdk).unwrap();
    // Each approval request left sits beside its call.
    for m in written.as_array().unwrap() {
        let parts = m["content"].as_array().cloned().unwrap_or_default();
        for asked in parts.iter().filter(|p| p["type"] == "tool-approval-request") {
            assert!(parts.iter().any(|p| p["type"] == "tool-call" && p["toolCallId"] == asked["toolCallId"]));
        }
    }
}

#[test]
fn anthropic_tool_references_and_documents_by_file_or_blocks_are_kept() {
    let value = json!([
        { "role": "user", "content": [
            { "type": "document", "source": { "type": "content", "content": [{ "type": "text", "text": "Chunk one." }] }, "title": "Notes", "citations": { "enabled": true } },
            { "type": "document", "source": { "type": "file", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w" } },
            { "type": "image", "source": { "type": "file", "file_id": "file_2" } },
            { "type": "text", "text": "Which tool fits?" }
        ]},
        { "role": "assistant", "content": [{ "type": "tool_use", "id": "toolu_1", "name": "find_tools", "input": { "query": "weather" } }] },
        { "role": "user", "content": [
            { "type": "tool_result", "tool_use_id": "toolu_1", "content": [{ "type": "tool_reference", "tool_name": "get_weather" }] },
            { "type": "tool_addition", "tool": { "type": "tool_reference", "tool_name": "get_weather" } }
        ]},
        { "role": "assistant", "content": "get_weather fits." }
    ]);
    let messages = format::read(&value, Format::Anthropic).unwrap();
    assert_eq!(format::read_auto(&value).unwrap().1, Format::Anthropic);
    assert!(validate(&messages, Provider::Anthropic).is_empty(), "{:?}", validate(&messages, Provider::Anthropic));
    assert_eq!(format::write(&messages, Format::Anthropic).unwrap(), value);
    let text = serde_json::to_string(&messages).unwrap();
    assert!(text.contains("[tool reference get_weather]"), "{text}");
    // Another provider has no such file: conversion drops the two media by file id; the
    // document given as blocks goes over as its text.
    let converted = contextfold::convert::convert(&value, Some(Format::Anthropic), Format::OpenAi).unwrap();
    let dropped = converted
        .changes
        .iter()
        .filter(|c| ["DroppedMedia", "MediaWithoutSource"].iter().any(|k| format!("{c:?}").contains(k)))
        .count();
    assert_eq!(dropped, 2, "{:?}", converted.changes);
    let written = converted.value.to_string();
    assert!(written.contains("Q2h1bmsgb25lLg=="), "{written}");
    assert!(
        !written.contains("file_011") && !written.contains("file_2") && !written.contains("image_url"),
        "{written}"
    );
}

#[test]
fn gemini_parts_of_other_kinds_are_kept_and_an_empty_part_is_still_an_error() {
    let value = json!([
        { "role": "user", "parts": [
            { "audioTranscription": { "text": "turn the lights off" } },
            { "imageGenerationRequest": { "prompt": "a lamp" }, "partMetadata": { "k": 1 } },
            { "text": "as I said" }
        ]},
        { "role": "model", "parts": [{ "text": "Done." }] }
    ]);
    let messages = format::read(&value, Format::Gemini).unwrap();
    assert!(validate(&messages, Provider::Gemini).is_empty());
    assert_eq!(format::write(&messages, Format::Gemini).unwrap(), value);
    let text = serde_json::to_string(&messages).unwrap();
    assert!(text.contains("[audio transcription: turn the lights off]"), "{text}");
    let empty = json!([{ "role": "user", "parts": [{}] }]);
    let err = format::read(&empty, Format::Gemini).unwrap_err();
    assert_eq!((err.code(), err.path()), ("invalid_shape", Some("[0].parts[0].text")), "{err}");
}

#[test]
fn conversion_drops_ai_sdk_approvals_and_renders_the_other_native_parts() {
    use contextfold::convert::{convert, Change};
    let value = aisdk_turns();
    for to in [Format::OpenAi, Format::Anthropic, Format::Gemini, Format::AiSdkUi, Format::LangChain] {
        let converted = convert(&value, Some(Format::AiSdk), to).unwrap();
        let dropped = converted.changes.iter().filter(|c| matches!(c, Change::DroppedSdkPart { .. })).count();
        assert_eq!(dropped, 4, "{to:?}: two requests, two responses");
        let text = converted.value.to_string();
        assert!(!text.contains("approval"), "{to:?}: {text}");
        assert!(text.contains("[provider tool call web_search"), "{to:?}: the rendering stands for the call");
        let provider = contextfold::convert::provider_of(to);
        assert!(validate(&converted.messages, provider).is_empty(), "{to:?}");
    }
}

/// The probe's chat: an approval turn after a chain that needs a repair (`extra` after the
/// second user message: another user message, or a system note).
fn approval_chat(extra: Value) -> Value {
    let big: String = (0..300).map(|i| format!("line {i}: function f{i}(x) {{ return x * {i}; }}\n")).collect();
    let mut chat = vec![
        json!({ "role": "user", "content": "read a.ts" }),
        json!({ "role": "assistant", "content": [{ "type": "tool-call", "toolCallId": "c1", "toolName": "read_file", "input": { "path": "a.ts" } }] }),
        json!({ "role": "tool", "content": [{ "type": "tool-result", "toolCallId": "c1", "toolName": "read_file", "output": { "type": "text", "value": big } }] }),
        json!({ "role": "assistant", "content": "read it" }),
        json!({ "role": "user", "content": "now delete it" }),
    ];
    chat.push(extra);
    chat.extend([
        json!({ "role": "assistant", "content": [
            { "type": "tool-call", "toolCallId": "c2", "toolName": "delete_file", "input": { "path": "a.ts" } },
            { "type": "tool-approval-request", "approvalId": "ap2", "toolCallId": "c2" }
        ]}),
        json!({ "role": "tool", "content": [{ "type": "tool-approval-response", "approvalId": "ap2", "approved": true, "reason": "go ahead" }] }),
        json!({ "role": "tool", "content": [{ "type": "tool-result", "toolCallId": "c2", "toolName": "delete_file", "output": { "type": "text", "value": "deleted" } }] }),
        json!({ "role": "assistant", "content": "Deleted." }),
        json!({ "role": "user", "content": "thanks" }),
        json!({ "role": "assistant", "content": "You're welcome." }),
    ]);
    Value::Array(chat)
}

#[test]
fn an_approval_response_alone_in_its_tool_message_survives_a_repaired_chain() {
    use contextfold::measure::{Amount, Meter};
    use contextfold::strategy::run::{compact, CompactOptions, StrategyConfig};
    let summarizer = contextfold::summarize::extractive::ExtractiveSummarizer::default();
    let controls = contextfold::summarize::Controls::default();
    let mut strategies = common::folding_strategies();
    strategies.push(StrategyConfig::Auto(contextfold::strategy::auto::AutoConfig::for_budget(Amount::Tokens(1000))));
    strategies.push(StrategyConfig::Mask(Default::default()));
    for extra in [
        json!({ "role": "user", "content": "(and empty the trash)" }),
        json!({ "role": "system", "content": "Note: the user is an admin." }),
    ] {
        let messages = format::read(&approval_chat(extra.clone()), Format::AiSdk).unwrap();
        for strategy in &strategies {
            let options = CompactOptions { strategy: strategy.clone(), ..Default::default() };
            let out =
                futures::executor::block_on(compact(&messages, &options, &summarizer, &controls, Meter::default()))
                    .unwrap();
            let written = format::write(&out.messages, Format::AiSdk).unwrap().to_string();
            // The request and the user's answer stay together (or go together into a summary).
            let asked = written.contains("\"tool-approval-request\"");
            let answered = written.contains("\"tool-approval-response\"") && written.contains("go ahead");
            assert_eq!(asked, answered, "{extra} {strategy:?}: {written}");
        }
    }
}
