#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! Gemini rules found by the `@google/genai` probe: what Gemini rejects is flagged by
//! `validate` and fixed by `repair`, and what the SDK holds is read and written back.

use contextfold::format::{self, Format};
use contextfold::repair::{repair, validate, Provider, RepairOptions, RepairStep};
use serde_json::{json, Value};

fn gemini_repaired(wire: &Value) -> (Value, Vec<RepairStep>) {
    let messages = format::read(wire, Format::Gemini).unwrap();
    let repaired = repair(&messages, &RepairOptions::for_provider(Provider::Gemini));
    assert!(validate(&repaired.messages, Provider::Gemini).is_empty());
    (format::write(&repaired.messages, Format::Gemini).unwrap(), repaired.steps)
}

#[test]
fn responses_stored_one_content_each_are_flagged_and_joined_into_one_content() {
    let wire = json!([
        { "role": "user", "parts": [{ "text": "weather and file?" }] },
        { "role": "model", "parts": [
            { "functionCall": { "name": "get_weather", "args": { "city": "Paris" } }, "thoughtSignature": "SIG" },
            { "functionCall": { "name": "read_file", "args": { "path": "a" } } },
        ] },
        { "role": "user", "parts": [{ "functionResponse": { "name": "get_weather", "response": { "output": "sun" } } }] },
        { "role": "user", "parts": [{ "functionResponse": { "name": "read_file", "response": { "output": "text" } } }] },
        { "role": "user", "parts": [{ "text": "and now?" }] },
        { "role": "model", "parts": [{ "text": "done" }] },
    ]);
    // Read and written back as it came.
    let messages = format::read(&wire, Format::Gemini).unwrap();
    assert_eq!(format::write(&messages, Format::Gemini).unwrap(), wire);
    let diagnostics = validate(&messages, Provider::Gemini);
    let found: Vec<(&str, &str)> = diagnostics.iter().map(|d| (d.code, d.path.as_str())).collect();
    assert_eq!(found, vec![("split_function_responses", "[3]"), ("consecutive_same_role", "[4]")]);
    // Other providers' wires have no such split.
    assert!(validate(&messages, Provider::Generic).is_empty());

    let (written, steps) = gemini_repaired(&wire);
    assert_eq!(
        steps,
        vec![
            RepairStep::JoinedResultTurn { index: 3, into: 2, role: contextfold::message::Role::Tool },
            RepairStep::JoinedResultTurn { index: 4, into: 2, role: contextfold::message::Role::User },
        ]
    );
    assert_eq!(
        written,
        json!([
            wire[0],
            wire[1],
            { "role": "user", "parts": [
                { "functionResponse": { "name": "get_weather", "response": { "output": "sun" } } },
                { "functionResponse": { "name": "read_file", "response": { "output": "text" } } },
                { "text": "and now?" },
            ] },
            wire[5],
        ])
    );
    // A joined chain is a fixed point.
    assert!(gemini_repaired(&written).1.is_empty());
}

#[test]
fn a_placeholder_answering_a_call_without_id_has_no_id_either() {
    let wire = json!([
        { "role": "user", "parts": [{ "text": "weather in Paris and Rome?" }] },
        { "role": "model", "parts": [
            { "functionCall": { "name": "weather", "args": { "city": "Paris" } }, "thoughtSignature": "SIG" },
            { "functionCall": { "name": "weather", "args": { "city": "Rome" } } },
        ] },
        { "role": "user", "parts": [{ "functionResponse": { "name": "weather", "response": { "output": "sunny" } } }] },
        { "role": "user", "parts": [{ "text": "never mind Rome" }] },
        { "role": "model", "parts": [{ "text": "ok" }] },
    ]);
    let (written, steps) = gemini_repaired(&wire);
    assert!(steps.iter().any(|s| matches!(s, RepairStep::AnsweredPendingCall { .. })), "{steps:?}");
    let responses: Vec<&Value> =
        written[2]["parts"].as_array().unwrap().iter().filter_map(|p| p.get("functionResponse")).collect();
    assert_eq!(responses.len(), 2, "{written}");
    assert!(responses.iter().all(|r| r.get("id").is_none() && r["name"] == "weather"), "{written}");
}

#[test]
fn every_sdk_form_of_a_system_instruction_is_read_and_written_back_as_it_came() {
    let contents = json!([{ "role": "user", "parts": [{ "text": "hi" }] }]);
    for system in [
        json!("You are terse."),
        json!({ "parts": [{ "text": "You are terse." }] }),
        json!({ "text": "You are terse." }),
        json!(["You are terse.", "Answer in French."]),
        json!([{ "text": "You are terse." }, "Answer in French."]),
    ] {
        for wire in [
            json!({ "systemInstruction": system, "contents": contents }),
            json!({ "model": "gemini-2.5-flash", "contents": contents, "config": { "systemInstruction": system } }),
        ] {
            let messages = format::read(&wire, Format::Gemini).unwrap_or_else(|e| panic!("{system}: {e}"));
            let first = match &messages[0].parts[0] {
                contextfold::message::Part::Text(text) => text.text.as_str(),
                other => panic!("{other:?}"),
            };
            assert_eq!(first, "You are terse.", "{system}");
            assert_eq!(messages[0].role, contextfold::message::Role::System);
            assert_eq!(format::write_like(&messages, Format::Gemini, &wire).unwrap(), wire);
        }
    }
    // A part that gains a second one becomes the array of both, a form the SDK takes.
    let wire = json!({ "systemInstruction": { "text": "You are terse." }, "contents": contents });
    let mut messages = format::read(&wire, Format::Gemini).unwrap();
    messages[0].parts.push(contextfold::message::Part::text("summary"));
    let out = format::write_like(&messages, Format::Gemini, &wire).unwrap();
    assert_eq!(out["systemInstruction"], json!([{ "text": "You are terse." }, { "text": "summary" }]));
    // What the SDK refuses is refused, with its path.
    let wire = json!({ "systemInstruction": [{ "inlineData": { "mimeType": "image/png", "data": "AA==" } }], "contents": contents });
    let error = format::read(&wire, Format::Gemini).unwrap_err();
    assert!(error.to_string().contains("systemInstruction[0]"), "{error}");
}

/// A Gemini turn with a signed text part and a signed call, and the same in the AI SDK
/// as `@ai-sdk/google` keeps it.
fn signed_turns() -> (Value, Value) {
    let gemini = json!([
        { "role": "user", "parts": [{ "text": "Weather in Paris?" }] },
        { "role": "model", "parts": [
            { "text": "Checking.", "thoughtSignature": "SIG_TEXT" },
            { "functionCall": { "name": "weather", "args": { "city": "Paris" } }, "thoughtSignature": "SIG_CALL" },
        ] },
        { "role": "user", "parts": [{ "functionResponse": { "name": "weather", "response": { "output": "sunny" } } }] },
    ]);
    let aisdk = json!([
        { "role": "user", "content": "Weather in Paris?" },
        { "role": "assistant", "content": [
            { "type": "text", "text": "Checking.", "providerOptions": { "google": { "thoughtSignature": "SIG_TEXT" } } },
            { "type": "tool-call", "toolCallId": "c1", "toolName": "weather", "input": { "city": "Paris" },
              "providerOptions": { "google": { "thoughtSignature": "SIG_CALL" } } },
        ] },
        { "role": "tool", "content": [{ "type": "tool-result", "toolCallId": "c1", "toolName": "weather",
            "output": { "type": "text", "value": "sunny" } }] },
    ]);
    (gemini, aisdk)
}

#[test]
fn gemini_signatures_of_text_parts_and_calls_go_where_each_format_keeps_them() {
    use contextfold::convert::{convert, Change};
    let (gemini, aisdk) = signed_turns();
    // AI SDK -> Gemini: on their very parts, no placeholder.
    let out = convert(&aisdk, Some(Format::AiSdk), Format::Gemini).unwrap();
    let model = &out.value[1]["parts"];
    assert_eq!(model[0]["thoughtSignature"], "SIG_TEXT", "{}", out.value);
    assert_eq!(model[1]["thoughtSignature"], "SIG_CALL", "{}", out.value);
    assert!(!out.changes.iter().any(|c| matches!(c, Change::AddedSignature { .. })), "{:?}", out.changes);
    assert!(!out.changes.iter().any(|c| matches!(c, Change::DroppedFields { .. })), "{:?}", out.changes);
    // Gemini -> AI SDK (both shapes): in `@ai-sdk/google`'s entry.
    for (to, field, call_field) in [
        (Format::AiSdk, "providerOptions", "providerOptions"),
        (Format::AiSdkUi, "providerMetadata", "callProviderMetadata"),
    ] {
        let out = convert(&gemini, Some(Format::Gemini), to).unwrap();
        let parts = out.value[1]["content"].as_array().or(out.value[1]["parts"].as_array()).unwrap().clone();
        let text = parts.iter().find(|p| p["type"] == "text").unwrap();
        let call = parts.iter().find(|p| p.get("toolCallId").is_some()).unwrap();
        assert_eq!(text[field]["google"]["thoughtSignature"], "SIG_TEXT", "{to:?}: {}", out.value);
        assert_eq!(call[call_field]["google"]["thoughtSignature"], "SIG_CALL", "{to:?}: {}", out.value);
        // And back, as it came.
        let back = convert(&out.value, Some(to), Format::Gemini).unwrap();
        assert_eq!(back.value[1]["parts"][0]["thoughtSignature"], "SIG_TEXT", "{to:?}: {}", back.value);
        assert_eq!(back.value[1]["parts"][1]["thoughtSignature"], "SIG_CALL", "{to:?}: {}", back.value);
    }
    // Gemini -> native -> Gemini: the signatures stay on their parts (the made-up call
    // ids are native ids once converted).
    let native = convert(&gemini, Some(Format::Gemini), Format::Native).unwrap();
    let back = convert(&native.value, Some(Format::Native), Format::Gemini).unwrap();
    assert_eq!(back.value[1]["parts"][0], gemini[1]["parts"][0], "{}", back.value);
    assert_eq!(back.value[1]["parts"][1]["thoughtSignature"], "SIG_CALL", "{}", back.value);
    // Where a target has no place for it, the loss is listed.
    let out = convert(&gemini, Some(Format::Gemini), Format::Anthropic).unwrap();
    let dropped: Vec<usize> = out
        .changes
        .iter()
        .filter_map(|c| match c {
            Change::DroppedSignature { index: 1, part } => Some(*part),
            _ => None,
        })
        .collect();
    assert_eq!(dropped, vec![0, 1], "{:?}", out.changes);
}

#[test]
fn the_offline_summary_of_output_without_facts_keeps_its_first_and_last_lines() {
    use contextfold::message::{Message, Role};
    use contextfold::prompt::render;
    use contextfold::summarize::extractive::ExtractiveSummarizer;
    let hits: Vec<String> =
        (0..80).map(|i| format!("city0 result {i}: Hotel Nr {i}, 4 stars, 120 EUR, free cancellation")).collect();
    let work = vec![Message::tool_result("call_1", "search_hotels", hits.join("\n"))];
    let prompt = render(&Vec::<Message>::new(), &work).unwrap();
    for target in [300, 1200] {
        let summary = ExtractiveSummarizer::default().summarize_transcript(&prompt.transcript, target);
        assert!(summary.len() <= target, "{} > {target}", summary.len());
        assert!(summary.contains(&hits[0]), "{summary}");
        assert!(summary.contains("lines left out") && summary.contains(&hits[79]), "{summary}");
        assert!(!summary.contains("nothing to keep"), "{summary}");
    }
    // Nothing to read is still said so.
    let empty = render(&Vec::<Message>::new(), &[Message::text(Role::Assistant, " ")]).unwrap();
    assert_eq!(ExtractiveSummarizer::default().summarize_transcript(&empty.transcript, 200), "(nothing to keep)");
}

#[test]
fn a_body_in_the_rest_proto_spelling_is_refused_with_the_field_named() {
    let contents = json!([
        { "role": "user", "parts": [{ "text": "read it" }] },
        { "role": "model", "parts": [{ "function_call": { "name": "read", "args": {} }, "thought_signature": "S" }] },
        { "role": "user", "parts": [{ "function_response": { "name": "read", "response": { "output": "x" } } }] },
    ]);
    let camel = json!([{ "role": "user", "parts": [{ "text": "hi" }] }]);
    for (wire, path) in [
        (contents.clone(), "[1].parts[0].function_call"),
        (json!({ "contents": contents }), "contents[1].parts[0].function_call"),
        (json!({ "system_instruction": { "parts": [{ "text": "terse" }] }, "contents": camel }), "system_instruction"),
        (json!({ "model": "m", "contents": camel, "config": { "cached_content": "c/1" } }), "config.cached_content"),
        (
            json!([{ "role": "user", "parts": [{ "inlineData": { "mime_type": "image/png", "data": "AA==" } }] }]),
            "[0].parts[0].inlineData.mime_type",
        ),
    ] {
        let error = format::read(&wire, Format::Gemini).unwrap_err();
        match &error {
            format::FormatError::Shape { path: found, message } => {
                assert_eq!(found, path, "{message}");
                assert!(message.contains("camelCase"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        // Auto-detected alike.
        let auto = format::read_auto(&wire).unwrap_err();
        assert_eq!(auto.to_string(), error.to_string());
    }
}
