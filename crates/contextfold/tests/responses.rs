//! The OpenAI Responses API format (issue 19 item 3), on items in the shapes the API
//! reference and the `openai` SDK types document: read, detected, written back as the same
//! JSON, and compacted into input the API accepts (every output after its call, every
//! reasoning item followed by the item it led to, opaque items unchanged).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use contextfold::format::{self, Format};
use contextfold::message::{Part, Role};
use contextfold::repair::{repair, validate, Provider, RepairOptions, RepairStep};
use serde_json::{json, Value};
use std::collections::HashSet;

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/// One agent turn: a user question, reasoning, a function call and its output, a server
/// web search, a custom tool call, a shell call, and the answer.
fn turn(i: usize) -> Vec<Value> {
    let log = format!("line {i}: the build log repeats the same warning again and again\n").repeat(40);
    vec![
        json!({ "role": "user", "content": format!("Task {i}: why does the build fail?") }),
        json!({ "type": "reasoning", "id": format!("rs_{i}a"), "summary": [
            { "type": "summary_text", "text": format!("**Reading the log {i}**") },
            { "type": "summary_text", "text": "Then the config." }
        ], "encrypted_content": format!("gAAAAABo{i}{}", "x".repeat(60)) }),
        json!({ "type": "function_call", "id": format!("fc_{i}"), "call_id": format!("call_{i}a"), "name": "read_file",
            "arguments": format!("{{\"path\":\"logs/build{i}.log\"}}"), "status": "completed" }),
        json!({ "type": "function_call_output", "call_id": format!("call_{i}a"), "output": log }),
        json!({ "type": "web_search_call", "id": format!("ws_{i}"), "status": "completed",
            "action": { "type": "search", "query": format!("cargo warning {i}") } }),
        json!({ "type": "custom_tool_call", "id": format!("ctc_{i}"), "call_id": format!("call_{i}b"), "name": "apply_diff",
            "input": format!("*** Begin Patch\n*** Update File: src/lib{i}.rs\n-old\n+new\n*** End Patch") }),
        json!({ "type": "custom_tool_call_output", "call_id": format!("call_{i}b"), "output": "Done." }),
        json!({ "type": "shell_call", "id": format!("sh_{i}"), "call_id": format!("call_{i}c"), "status": "completed",
            "action": { "commands": [format!("cargo test -p crate{i}")], "timeout_ms": 60000, "max_output_length": 4096 } }),
        json!({ "type": "shell_call_output", "call_id": format!("call_{i}c"), "output": [
            { "stdout": "test result: ok. 12 passed\n".repeat(30), "stderr": "", "outcome": { "type": "exit", "exit_code": 0 } }
        ] }),
        json!({ "type": "reasoning", "id": format!("rs_{i}b"), "summary": [], "encrypted_content": format!("gAAAAABp{i}") }),
        json!({ "type": "message", "id": format!("msg_{i}"), "status": "completed", "role": "assistant", "content": [
            { "type": "output_text", "text": format!("The build {i} fails on a stale lock file."), "annotations": [] }
        ] }),
    ]
}

/// Everything else the input takes: developer and system messages, media, files, an
/// easy assistant message, a refusal, MCP, compaction, computer use, item references.
fn opening() -> Vec<Value> {
    vec![
        json!({ "role": "developer", "content": "Answer tersely." }),
        json!({ "role": "system", "content": [{ "type": "input_text", "text": "Stay on task." }] }),
        json!({ "type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAAABcompacted" }),
        json!({ "type": "message", "role": "user", "content": [
            { "type": "input_text", "text": "Here is the screenshot and the spec." },
            { "type": "input_image", "image_url": format!("data:image/png;base64,{PNG}"), "detail": "high" },
            { "type": "input_image", "image_url": "https://example.com/a.png" },
            { "type": "input_image", "file_id": "file-abc", "detail": "auto" },
            { "type": "input_file", "filename": "spec.pdf", "file_data": "data:application/pdf;base64,JVBERi0xLjQ=" },
            { "type": "input_file", "file_id": "file-def" },
            { "type": "input_file", "file_url": "https://example.com/spec.pdf" }
        ] }),
        json!({ "role": "assistant", "content": "Got them." }),
        json!({ "type": "message", "id": "msg_r", "status": "completed", "role": "assistant", "phase": "final_answer", "content": [
            { "type": "refusal", "refusal": "I can't share that." },
            { "type": "output_text", "text": "But here is the rest.", "annotations": [
                { "type": "url_citation", "start_index": 0, "end_index": 3, "url": "https://example.com", "title": "Ex" }
            ], "logprobs": [] }
        ] }),
        json!({ "type": "mcp_list_tools", "id": "mcpl_1", "server_label": "deepwiki", "tools": [{ "name": "ask", "input_schema": {} }] }),
        json!({ "type": "mcp_call", "id": "mcp_1", "server_label": "deepwiki", "name": "ask", "arguments": "{\"q\":\"x\"}", "output": "An answer." }),
        json!({ "type": "computer_call", "id": "cu_1", "call_id": "call_cu", "status": "completed", "pending_safety_checks": [],
            "action": { "type": "click", "button": "left", "x": 10, "y": 20 } }),
        json!({ "type": "computer_call_output", "call_id": "call_cu",
            "output": { "type": "computer_screenshot", "image_url": format!("data:image/png;base64,{PNG}") } }),
        json!({ "id": "msg_earlier" }),
        json!({ "type": "function_call", "call_id": "call_img", "name": "screenshot", "arguments": "{}" }),
        json!({ "type": "function_call_output", "call_id": "call_img", "output": [
            { "type": "input_text", "text": "the page" },
            { "type": "input_image", "image_url": format!("data:image/png;base64,{PNG}"), "detail": "low" }
        ] }),
    ]
}

fn items(turns: usize) -> Value {
    let mut all = opening();
    for i in 0..turns {
        all.extend(turn(i));
    }
    Value::Array(all)
}

#[test]
fn every_documented_item_is_read_and_written_back_as_the_same_json() {
    let value = items(2);
    let messages = format::read(&value, Format::OpenAiResponses).unwrap();
    assert_eq!(format::write(&messages, Format::OpenAiResponses).unwrap(), value);
    assert_eq!(format::read_auto(&value).unwrap().1, Format::OpenAiResponses);
    assert!(
        validate(&messages, Provider::OpenAiResponses).is_empty(),
        "{:?}",
        validate(&messages, Provider::OpenAiResponses)
    );
    // The items of an assistant turn are one assistant message, each output its own tool
    // message: user, assistant, tool, assistant, tool, assistant, tool, assistant.
    let roles: Vec<Role> = messages[messages.len() - 8..].iter().map(|m| m.role).collect();
    use Role::{Assistant as A, Tool as T, User as U};
    assert_eq!(roles, [U, A, T, A, T, A, T, A]);
    // Reasoning keeps its encrypted content as its signature; summaries are its text.
    let reasoning = messages.iter().flat_map(|m| &m.parts).find_map(|p| match p {
        Part::Reasoning(r) => Some(r),
        _ => None,
    });
    let reasoning = reasoning.unwrap();
    assert_eq!(reasoning.text, "**Reading the log 0**\n\nThen the config.");
    assert!(reasoning.signature.as_deref().unwrap().starts_with("gAAAAABo0"));
    // What a summarizer reads of opaque items: a rendering, never encrypted content.
    let text: String = messages.iter().map(contextfold::Message::joined_text).collect();
    for needle in ["[web search: cargo warning 0]", "[earlier context, compacted by the provider]"] {
        assert!(text.contains(needle), "{needle:?} missing");
    }
    assert!(!text.contains("gAAAAAB"));
    // An MCP call is a call and its result, the output its content.
    let mcp = messages.iter().position(|m| m.tool_calls().any(|c| c.id == "mcp_1")).unwrap();
    assert_eq!(messages[mcp + 1].role, Role::Tool);
    assert!(matches!(&messages[mcp + 1].parts[..], [Part::ToolResult(r)] if r.content == [Part::text("An answer.")]));
}

#[test]
fn a_request_keeps_its_instructions_and_string_input() {
    let cases = [
        json!({ "instructions": "Be brief.", "input": "Hello" }),
        json!({ "instructions": "Be brief.", "input": [{ "role": "user", "content": "Hello" }] }),
        json!({ "input": "Hello" }),
    ];
    for value in cases {
        let messages = format::read(&value, Format::OpenAiResponses).unwrap();
        assert_eq!(format::read_auto(&value).unwrap().1, Format::OpenAiResponses, "{value}");
        assert_eq!(format::write(&messages, Format::OpenAiResponses).unwrap(), value);
        // In its container, the request comes back whole.
        assert_eq!(format::write_like(&messages, Format::OpenAiResponses, &value).unwrap()["input"], value["input"]);
    }
}

#[test]
fn bad_items_name_their_path() {
    let cases = [
        (json!([{ "type": "function_call", "call_id": "c", "name": "f" }]), "invalid_shape", "[0].arguments"),
        (json!([{ "role": "user" }]), "invalid_shape", "[0].content"),
        (json!([{ "role": "critic", "content": "x" }]), "invalid_shape", "[0].role"),
        (json!([{ "type": "function_call_output", "call_id": "c", "output": 3 }]), "invalid_shape", "[0].output"),
        (json!({ "input": [{ "role": "user", "content": "a" }, 7] }), "invalid_shape", "input[1]"),
        (json!({ "instructions": 1, "input": "a" }), "invalid_shape", "instructions"),
    ];
    for (value, code, path) in cases {
        let err = format::read(&value, Format::OpenAiResponses).unwrap_err();
        assert_eq!((err.code(), err.path()), (code, Some(path)), "{value}: {err}");
    }
    // Detection names the first item that is no Responses item.
    let err = format::detect(&json!([{ "type": "function_call", "call_id": "c", "name": "f", "arguments": "{}" },
        { "role": "tool", "tool_call_id": "c", "content": "x" }]))
    .unwrap_err();
    assert_eq!((err.code(), err.path()), ("unknown_format", Some("[1]")));
}

#[test]
fn plain_chats_stay_openai_chat() {
    let chat = json!([{ "role": "system", "content": "s" }, { "role": "user", "content": "hi" }]);
    assert_eq!(format::detect(&chat).unwrap(), Format::OpenAi);
    let responses = json!([{ "role": "user", "content": [{ "type": "input_text", "text": "hi" }] }]);
    assert_eq!(format::detect(&responses).unwrap(), Format::OpenAiResponses);
}

/// The API's rules on an item list, written out from its reference independently of the
/// reader: each output answers an earlier call of its kind; each function or custom call
/// is answered; content parts are content parts; a reasoning item is followed by an item other than an output or a message
/// from the user side.
fn api_problems(list: &[Value]) -> Vec<String> {
    let mut out = Vec::new();
    let mut calls = std::collections::HashMap::new();
    let mut answered = HashSet::new();
    for (i, item) in list.iter().enumerate() {
        let kind = item["type"].as_str().unwrap_or("message");
        for part in item["content"].as_array().into_iter().flatten() {
            let part_type = part["type"].as_str().unwrap_or_default();
            if !["input_text", "output_text", "refusal", "input_image", "input_file"].contains(&part_type) {
                out.push(format!("[{i}]: a `{part_type}` content part"));
            }
        }
        if let Some(call) = kind.strip_suffix("_output") {
            match calls.get(item["call_id"].as_str().unwrap_or_default()) {
                Some(k) if *k == call => {
                    answered.insert(item["call_id"].as_str().unwrap().to_string());
                }
                _ => out.push(format!("[{i}]: {kind} answers no earlier {call}")),
            }
        } else if let Some(id) = item["call_id"].as_str() {
            calls.insert(id.to_string(), kind.to_string());
        }
        if kind == "reasoning" {
            let next = list.get(i + 1).map(|n| n["type"].as_str().unwrap_or("message").to_string());
            let user_side = list.get(i + 1).is_some_and(|n| n["role"].as_str().is_some_and(|r| r != "assistant"));
            if next.is_none() || next.as_deref().is_some_and(|n| n.ends_with("_output")) || user_side {
                out.push(format!("[{i}]: reasoning without its following item"));
            }
        }
    }
    for (id, kind) in &calls {
        if matches!(kind.as_str(), "function_call" | "custom_tool_call") && !answered.contains(id) {
            out.push(format!("{kind} {id} unanswered"));
        }
    }
    out
}

#[test]
fn compaction_gives_input_the_api_accepts_with_opaque_items_unchanged() {
    let value = items(30);
    let messages = format::read(&value, Format::OpenAiResponses).unwrap();
    // The stub PDF of the first request counts as a page (1,500 tokens).
    assert!(api_problems(value.as_array().unwrap()).is_empty());
    let out = common::compact_auto(&messages, 16000, Provider::OpenAiResponses);
    assert!(out.changed);
    assert!(validate(&out.messages, Provider::OpenAiResponses).is_empty());
    let written = format::write(&out.messages, Format::OpenAiResponses).unwrap();
    let list = written.as_array().unwrap();
    assert!(list.len() < value.as_array().unwrap().len());
    assert_eq!(api_problems(list), Vec::<String>::new(), "{written:#}");
    // Opaque and signed items that are left are the originals, byte for byte.
    let originals = value.as_array().unwrap();
    for item in list {
        let kind = item["type"].as_str().unwrap_or("message");
        if ["reasoning", "web_search_call", "shell_call", "computer_call_output", "compaction"].contains(&kind) {
            assert!(originals.contains(item), "changed: {item}");
        }
        // A text output masked stays its own item type, with a placeholder for its text.
        if kind == "shell_call_output" && !originals.contains(item) {
            assert!(item["output"][0]["stdout"].as_str().unwrap().starts_with("[masked tool output]"), "{item}");
        }
    }
    // The newest turn is kept as it came.
    let last = turn(29);
    assert_eq!(&list[list.len() - last.len()..], &last[..]);
}

#[test]
fn masking_leaves_screenshots_whole_and_shrinks_text_outputs_in_their_own_items() {
    let value = items(8);
    let messages = format::read(&value, Format::OpenAiResponses).unwrap();
    let (masked, report) = contextfold::strategy::mask::mask(&messages, &Default::default());
    assert!(!report.is_empty());
    let masked: Vec<_> = masked.into_iter().map(std::borrow::Cow::into_owned).collect();
    let written = format::write(&masked, Format::OpenAiResponses).unwrap();
    let list = written.as_array().unwrap();
    assert_eq!(api_problems(list), Vec::<String>::new());
    let originals = value.as_array().unwrap();
    let (mut shrunk, mut shells) = (0, 0);
    for item in list {
        match item["type"].as_str() {
            Some("computer_call_output" | "shell_call") => assert!(originals.contains(item)),
            Some("function_call_output") if !originals.contains(item) => {
                assert!(item["output"].as_str().unwrap().contains("read_file"), "{item}");
                shrunk += 1;
            }
            // A shell output's placeholder is its stdout, its outcome kept.
            Some("shell_call_output") if !originals.contains(item) => {
                let entry = &item["output"][0];
                assert!(entry["stdout"].as_str().unwrap().starts_with("[masked tool output]"), "{item}");
                assert_eq!(entry["outcome"], json!({ "type": "exit", "exit_code": 0 }));
                shells += 1;
            }
            _ => {}
        }
    }
    assert!(shrunk > 0 && shells > 0, "{shrunk} function and {shells} shell outputs masked");
}

#[test]
fn conversion_from_chat_and_to_chat() {
    let chat = json!([
        { "role": "system", "content": "s" },
        { "role": "user", "content": "list files" },
        { "role": "assistant", "content": null, "tool_calls": [
            { "id": "call_1", "type": "function", "function": { "name": "ls", "arguments": "{}" } }] },
        { "role": "tool", "tool_call_id": "call_1", "content": "a.txt" },
        { "role": "assistant", "content": "One file." }
    ]);
    let converted = contextfold::convert::convert(&chat, Some(Format::OpenAi), Format::OpenAiResponses).unwrap();
    assert_eq!(
        converted.value,
        json!([
            { "role": "system", "content": "s" },
            { "role": "user", "content": "list files" },
            { "type": "function_call", "call_id": "call_1", "name": "ls", "arguments": "{}" },
            { "type": "function_call_output", "call_id": "call_1", "output": "a.txt" },
            { "role": "assistant", "content": "One file." }
        ])
    );
    // Back to Chat: reasoning (no Chat field) and opaque items' renderings.
    let back = contextfold::convert::convert(&items(1), Some(Format::OpenAiResponses), Format::OpenAi).unwrap();
    let list = back.value.as_array().unwrap();
    assert!(list.iter().all(|m| m["role"].is_string()));
    assert!(back.value.to_string().contains("[web search: cargo warning 0]"));
}

#[test]
fn a_custom_tool_call_stays_custom_through_the_native_form() {
    use contextfold::convert::{convert, Change};
    let responses = json!([
        { "role": "user", "content": "patch it" },
        { "type": "custom_tool_call", "call_id": "call_1", "name": "apply_diff", "input": "*** Begin Patch\n+b\n*** End Patch" },
        { "type": "custom_tool_call_output", "call_id": "call_1", "output": "done" },
    ]);
    let native = convert(&responses, Some(Format::OpenAiResponses), Format::Native).unwrap();
    let back = convert(&native.value, Some(Format::Native), Format::OpenAiResponses).unwrap();
    assert_eq!(back.value, responses);
    // From Chat, and on to Chat.
    let chat = json!([
        { "role": "user", "content": "patch it" },
        { "role": "assistant", "content": null, "tool_calls": [
            { "id": "call_1", "type": "custom", "custom": { "name": "apply_diff", "input": "*** patch" } }] },
        { "role": "tool", "tool_call_id": "call_1", "content": "done" },
    ]);
    let native = convert(&chat, Some(Format::OpenAi), Format::Native).unwrap();
    let back = convert(&native.value, Some(Format::Native), Format::OpenAi).unwrap();
    assert_eq!(back.value[1]["tool_calls"][0]["type"], "custom", "{}", back.value);
    assert_eq!(back.value[1]["tool_calls"][0]["custom"]["input"], "*** patch");
    // A target without custom tools gets the input as JSON, and says so.
    let anthropic = convert(&native.value, Some(Format::Native), Format::Anthropic).unwrap();
    assert_eq!(anthropic.value[1]["content"][0]["input"], json!({ "input": "*** patch" }));
    assert!(anthropic.changes.iter().any(|c| matches!(c, Change::SanitizedArguments { replaced: true, .. })));
}

#[test]
fn an_assistant_message_without_its_item_id_is_written_as_an_easy_input_message() {
    use contextfold::convert::{convert, Change};
    let responses = json!([
        { "role": "user", "content": "Where are the docs?" },
        { "type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [
            { "type": "output_text", "text": "See the docs.", "annotations": [
                { "type": "url_citation", "url": "https://x.dev", "title": "docs", "start_index": 4, "end_index": 12 }] }] },
        { "role": "user", "content": "thanks" },
    ]);
    // With its id, the output message goes back whole.
    assert_eq!(
        format::write(&format::read(&responses, Format::OpenAiResponses).unwrap(), Format::OpenAiResponses).unwrap(),
        responses
    );
    // Through the native form too, which keeps the item for the way back.
    let native = convert(&responses, Some(Format::OpenAiResponses), Format::Native).unwrap();
    let back = convert(&native.value, Some(Format::Native), Format::OpenAiResponses).unwrap();
    assert_eq!(back.value, responses);
    // A native message without the item (the caller's own): a string, the annotations
    // listed as dropped.
    let native = json!([
        { "role": "user", "parts": [{ "type": "text", "text": "Where are the docs?" }] },
        { "role": "assistant", "parts": [{ "type": "text", "text": "See the docs.", "annotations": [
            { "type": "url_citation", "url": "https://x.dev", "title": "docs", "start_index": 4, "end_index": 12 }] }] },
        { "role": "user", "parts": [{ "type": "text", "text": "thanks" }] },
    ]);
    let back = convert(&native, Some(Format::Native), Format::OpenAiResponses).unwrap();
    assert_eq!(back.value[1], json!({ "role": "assistant", "content": "See the docs." }));
    assert!(back
        .changes
        .iter()
        .any(|c| matches!(c, Change::DroppedFields { fields, .. } if fields == &["annotations"])));
    // An assistant item read without id with output text parts goes back as it came.
    let hybrid = json!([
        { "role": "user", "content": "hi" },
        { "role": "assistant", "content": [{ "type": "output_text", "text": "a", "annotations": [] }, { "type": "output_text", "text": "b" }] },
    ]);
    assert_eq!(
        format::write(&format::read(&hybrid, Format::OpenAiResponses).unwrap(), Format::OpenAiResponses).unwrap(),
        hybrid
    );
    // Texts without an item: easy messages.
    let native = json!([
        { "role": "user", "parts": [{ "type": "text", "text": "hi" }] },
        { "role": "assistant", "parts": [{ "type": "text", "text": "a" }, { "type": "text", "text": "b" }] },
    ]);
    let written = convert(&native, Some(Format::Native), Format::OpenAiResponses).unwrap();
    assert_eq!(written.value[1], json!({ "role": "assistant", "content": "a" }));
    assert_eq!(written.value[2], json!({ "role": "assistant", "content": "b" }));
}

#[test]
fn content_parts_the_api_rejects_are_reported() {
    let cases = [
        (json!([{ "role": "user", "content": [{ "type": "input_txt", "text": "hi" }] }]), "[0].parts[0]"),
        (json!([{ "role": "user", "content": [{ "type": "output_text", "text": "hi" }] }]), "[0].parts[0]"),
        (
            json!([{ "role": "user", "content": "hi" }, { "role": "assistant", "content": [{ "type": "input_text", "text": "x" }] }]),
            "[1].parts[0]",
        ),
        (
            json!([{ "role": "user", "content": "hi" }, { "type": "function_call", "call_id": "c", "name": "f", "arguments": "{}" },
                { "type": "function_call_output", "call_id": "c", "output": [{ "type": "output_text", "text": "x" }] }]),
            "[2].parts[0].content[0]",
        ),
    ];
    for (items, path) in cases {
        let found = validate(&format::read(&items, Format::OpenAiResponses).unwrap(), Provider::OpenAiResponses);
        assert_eq!(
            found.iter().map(|d| (d.code, d.path.as_str())).collect::<Vec<_>>(),
            [("invalid_part", path)],
            "{items}"
        );
    }
    // What the API takes is not: input parts of every kind, by id too, and output text.
    let fine = json!([
        { "role": "user", "content": [{ "type": "input_text", "text": "a" }, { "type": "input_image", "file_id": "file-1", "detail": "auto" },
            { "type": "input_file", "file_id": "file-2" }] },
        { "type": "message", "id": "msg_1", "status": "completed", "role": "assistant", "content": [
            { "type": "refusal", "refusal": "no" }, { "type": "output_text", "text": "b", "annotations": [] }] },
    ]);
    assert!(validate(&format::read(&fine, Format::OpenAiResponses).unwrap(), Provider::OpenAiResponses).is_empty());
}

#[test]
fn repair_puts_rejected_content_parts_in_the_type_the_api_takes() {
    // Chat Completions parts in Responses input (found by the fuzzer): repair kept them and
    // the output still failed validation.
    let items = json!([
        { "role": "user", "content": [{ "type": "text", "text": "Thanks." },
            { "type": "image_url", "image_url": { "url": "https://example.com/a.png" } },
            { "type": "output_text", "text": "pasted", "annotations": [] },
            { "type": "input_audio_clip", "data": "AAAA" }] },
        { "role": "assistant", "content": [{ "type": "input_text", "text": "Welcome." },
            { "type": "input_image", "image_url": "https://example.com/b.png" }] },
        { "type": "function_call", "call_id": "c", "name": "f", "arguments": "{}" },
        { "type": "function_call_output", "call_id": "c", "output": [{ "type": "text", "text": "out" }] },
    ]);
    let messages = format::read(&items, Format::OpenAiResponses).unwrap();
    assert_eq!(validate(&messages, Provider::OpenAiResponses).len(), 7);
    let fixed = repair(&messages, &RepairOptions::for_provider(Provider::OpenAiResponses));
    assert!(validate(&fixed.messages, Provider::OpenAiResponses).is_empty(), "{:?}", fixed.steps);
    let written = format::write(&fixed.messages, Format::OpenAiResponses).unwrap();
    assert_eq!(
        written,
        json!([
            { "role": "user", "content": [{ "type": "input_text", "text": "Thanks." },
                { "type": "input_image", "image_url": "https://example.com/a.png", "detail": "auto" },
                { "type": "input_text", "text": "pasted" }] },
            { "role": "assistant", "content": "Welcome." },
            { "type": "function_call", "call_id": "c", "name": "f", "arguments": "{}" },
            { "type": "function_call_output", "call_id": "c", "output": "out" },
        ])
    );
    let dropped: Vec<_> = fixed.steps.iter().filter(|s| matches!(s, RepairStep::DroppedContentPart { .. })).collect();
    assert_eq!(
        dropped,
        [
            &RepairStep::DroppedContentPart { index: 0, part: 3, content: None },
            &RepairStep::DroppedContentPart { index: 1, part: 1, content: None }
        ]
    );
    assert!(repair(&fixed.messages, &RepairOptions::for_provider(Provider::OpenAiResponses)).is_unchanged());
}

/// Repair of `list` for the Responses API: its steps, and the items written.
fn repaired(list: &Value) -> (Vec<RepairStep>, Value) {
    let messages = format::read(list, Format::OpenAiResponses).unwrap();
    let out = repair(&messages, &RepairOptions::for_provider(Provider::OpenAiResponses));
    assert_eq!(validate(&out.messages, Provider::OpenAiResponses), vec![], "repair output does not validate");
    (out.steps, format::write(&out.messages, Format::OpenAiResponses).unwrap())
}

fn codes(list: &Value) -> Vec<(&'static str, String)> {
    let messages = format::read(list, Format::OpenAiResponses).unwrap();
    validate(&messages, Provider::OpenAiResponses).into_iter().map(|d| (d.code, d.path)).collect()
}

fn reasoning_item(id: &str) -> Value {
    json!({ "type": "reasoning", "id": id, "summary": [], "encrypted_content": format!("gAAAAAB{id}") })
}

#[test]
fn an_interrupted_computer_call_goes_with_the_reasoning_that_led_to_it() {
    // The user interrupted a computer-use step: its call has no screenshot and cannot get
    // one; the reasoning before it, left last in its turn, would be rejected by the API.
    let list = json!([
        { "role": "user", "content": "Open the billing page." },
        reasoning_item("rs_1"),
        { "type": "computer_call", "id": "cu_1", "call_id": "call_1", "action": { "type": "screenshot" },
          "pending_safety_checks": [], "status": "completed" },
        { "role": "user", "content": "Stop, open the settings page instead." },
    ]);
    let (steps, written) = repaired(&list);
    assert_eq!(
        steps,
        vec![
            RepairStep::DroppedUnansweredCall { index: 1, part: 1, call_id: "call_1".into(), name: "computer".into() },
            RepairStep::DroppedOrphanReasoning { index: 1, part: 0 },
        ]
    );
    assert_eq!(written, json!([list[0], list[3]]));
    // Every strategy ends with that repair.
    let messages = format::read(&list, Format::OpenAiResponses).unwrap();
    for strategy in common::folding_strategies() {
        let options = contextfold::strategy::run::CompactOptions {
            strategy: strategy.clone(),
            repair: RepairOptions::for_provider(Provider::OpenAiResponses),
            ..Default::default()
        };
        let summarizer = contextfold::summarize::extractive::ExtractiveSummarizer::default();
        let controls = contextfold::summarize::Controls::default();
        let meter = contextfold::measure::Meter::default();
        let run = contextfold::strategy::run::compact(&messages, &options, &summarizer, &controls, meter);
        let out = futures::executor::block_on(run).unwrap();
        let written = format::write(&out.messages, Format::OpenAiResponses).unwrap();
        assert_eq!(api_problems(written.as_array().unwrap()), Vec::<String>::new(), "{strategy:?}: {written:#}");
    }
}

#[test]
fn reasoning_without_its_following_item_is_reported_and_dropped() {
    let ends = json!([{ "role": "user", "content": "a" }, reasoning_item("rs_1")]);
    assert_eq!(codes(&ends), [("orphan_reasoning", "[1].parts[0]".to_string())]);
    let (steps, written) = repaired(&ends);
    assert_eq!(
        steps,
        vec![RepairStep::DroppedOrphanReasoning { index: 1, part: 0 }, RepairStep::RemovedEmptyMessage { index: 1 }]
    );
    assert_eq!(written, json!([ends[0]]));
    let then_user =
        json!([{ "role": "user", "content": "a" }, reasoning_item("rs_1"), { "role": "user", "content": "b" }]);
    assert_eq!(codes(&then_user), [("orphan_reasoning", "[1].parts[0]".to_string())]);
    assert_eq!(repaired(&then_user).1, json!([then_user[0], then_user[2]]));
    // Reasoning followed by the item it led to is fine, in the same turn or the next.
    let fine = json!([{ "role": "user", "content": "a" }, reasoning_item("rs_1"),
        { "type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}" },
        { "type": "function_call_output", "call_id": "c1", "output": "ok" }, reasoning_item("rs_2"),
        { "id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
          "content": [{ "type": "output_text", "text": "done", "annotations": [] }] }]);
    assert_eq!(codes(&fine), []);
    assert_eq!(repaired(&fine), (vec![], fine.clone()));
}

#[test]
fn an_item_id_given_twice_is_reported_and_the_later_copy_loses_it() {
    let answer = |id: &str| {
        json!({ "id": id, "type": "message", "role": "assistant", "status": "completed",
                "content": [{ "type": "output_text", "text": "x", "annotations": [] }] })
    };
    let search = json!({ "type": "web_search_call", "id": "ws_1", "status": "completed",
        "action": { "type": "search", "query": "q" } });
    let list = json!([
        { "role": "user", "content": "a" }, reasoning_item("rs_1"), answer("msg_1"),
        { "role": "user", "content": "b" }, search, reasoning_item("rs_1"), answer("msg_1"),
        { "role": "user", "content": "c" }, search,
        { "type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}" },
        { "type": "function_call_output", "call_id": "c1", "output": "ok" },
    ]);
    assert_eq!(
        codes(&list),
        [
            ("duplicate_item_id", "[3].parts[1]".to_string()),
            ("duplicate_item_id", "[3].parts[2]".to_string()),
            ("duplicate_item_id", "[5].parts[0]".to_string()),
        ]
    );
    let (steps, written) = repaired(&list);
    assert_eq!(
        steps,
        vec![
            RepairStep::DroppedDuplicateItem { index: 3, part: 1, id: "rs_1".into() },
            RepairStep::DroppedDuplicateItemId { index: 3, part: Some(2), id: "msg_1".into() },
            RepairStep::DroppedDuplicateItem { index: 5, part: 0, id: "ws_1".into() },
        ]
    );
    let items = written.as_array().unwrap();
    // The later reasoning and search go whole; the answer stays, as an easy message.
    assert_eq!(items.len(), list.as_array().unwrap().len() - 2, "{written:#}");
    assert_eq!(items[5], json!({ "type": "message", "role": "assistant", "content": "x", "status": "completed" }));
    assert_eq!(api_problems(items), Vec::<String>::new());
}

#[test]
fn an_mcp_call_given_twice_goes_whole_with_its_output() {
    let mcp = json!({ "type": "mcp_call", "id": "mcp_1", "server_label": "docs", "name": "lookup",
        "arguments": "{}", "output": "found", "status": "completed" });
    let list = json!([{ "role": "user", "content": "look it up" }, mcp, { "role": "user", "content": "again" }, mcp]);
    // Read as a call (message 4) and its output (message 5); the item id, not a call id to
    // rename: the item is written back with its own `id`.
    assert_eq!(codes(&list), [("duplicate_item_id", "[4].parts[0]".to_string())]);
    let (steps, written) = repaired(&list);
    assert_eq!(
        steps,
        vec![
            RepairStep::DroppedDuplicateItem { index: 4, part: 0, id: "mcp_1".into() },
            RepairStep::RemovedEmptyMessage { index: 4 },
            RepairStep::DroppedDuplicateItem { index: 5, part: 0, id: "mcp_1".into() },
            RepairStep::RemovedEmptyMessage { index: 5 },
        ]
    );
    assert_eq!(written, json!([list[0], mcp, list[2]]));
    assert_eq!(codes(&written), []);
    assert_eq!(repaired(&written), (vec![], written.clone()));
}
