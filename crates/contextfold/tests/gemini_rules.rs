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
