#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! `convert` through the native format: X -> native -> X gives X's JSON back (its fields
//! and markers stay in native, recorded as X's), and X -> native -> Y drops and lists X's
//! fields as the direct X -> Y conversion does, where the target rejects them.

use contextfold::convert::{convert, provider_of, Change};
use contextfold::format::Format;
use contextfold::repair::validate;
use serde_json::{json, Value};

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/// `wire` from `from` to native, then from native to `to`: the result and the changes of
/// the second step.
fn via_native(wire: &Value, from: Format, to: Format) -> (Value, Vec<Change>) {
    let native = convert(wire, Some(from), Format::Native).unwrap();
    let out = convert(&native.value, Some(Format::Native), to).unwrap();
    assert!(validate(&out.messages, provider_of(to)).is_empty(), "{from:?} -> native -> {to:?}");
    (out.value, out.changes)
}

fn dropped_fields(changes: &[Change], at: usize) -> Vec<String> {
    changes
        .iter()
        .filter_map(|c| match c {
            Change::DroppedFields { index, fields, .. } if *index == at => Some(fields.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

fn anthropic_chain() -> Value {
    json!({"system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]},
            {"role": "assistant", "content": "hello"}]})
}

fn responses_chain() -> Value {
    json!([
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "see"},
            {"type": "input_image", "image_url": format!("data:image/png;base64,{PNG}"), "detail": "high"}]},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "look"}]},
        {"type": "message", "role": "assistant", "content": "ok"}])
}

fn openai_chain() -> Value {
    json!([{"role": "user", "name": "alice", "content": [{"type": "text", "text": "read the small print"},
            {"type": "image_url", "image_url": {"url": "https://example.com/x.png", "detail": "high"}},
            {"type": "file", "file": {"file_id": "file-abc123"}}]},
        {"role": "assistant", "content": "ok"}])
}

#[test]
fn a_provider_chain_comes_back_whole_through_native() {
    let anthropic_files = json!([{"role": "user", "content": [{"type": "text", "text": "compare"},
            {"type": "image", "source": {"type": "file", "file_id": "file_011IMG"}},
            {"type": "document", "source": {"type": "file", "file_id": "file_011PDF"}}]},
        {"role": "assistant", "content": "ok"}]);
    let cases = [
        (anthropic_chain(), Format::Anthropic),
        (anthropic_files, Format::Anthropic),
        (responses_chain(), Format::OpenAiResponses),
        (openai_chain(), Format::OpenAi),
    ];
    for (wire, format) in cases {
        let (back, changes) = via_native(&wire, format, format);
        assert_eq!(back, convert(&wire, Some(format), format).unwrap().value, "{format:?}");
        assert!(changes.is_empty(), "{format:?}: {changes:?}");
        let native = convert(&wire, Some(format), Format::Native).unwrap();
        assert!(
            !native.changes.iter().any(|c| matches!(c, Change::DroppedFields { .. } | Change::Repaired { .. })),
            "{format:?}: {:?}",
            native.changes
        );
    }
}

#[test]
fn another_provider_gets_no_fields_of_the_first() {
    let (gemini, changes) = via_native(&anthropic_chain(), Format::Anthropic, Format::Gemini);
    assert!(!gemini.to_string().contains("cache_control"), "{gemini}");
    assert_eq!(dropped_fields(&changes, 1), ["cache_control"]);
    assert_eq!(dropped_fields(&changes, 0), ["cache_control"]);

    let (anthropic, changes) = via_native(&responses_chain(), Format::OpenAiResponses, Format::Anthropic);
    let user = &anthropic[0];
    assert!(user.get("type").is_none() && user["content"][1].get("detail").is_none(), "{user}");
    assert!(dropped_fields(&changes, 0).contains(&"detail".to_string()), "{changes:?}");
    assert!(!anthropic.to_string().contains("rs_1"), "{anthropic}");

    let (anthropic, changes) = via_native(&openai_chain(), Format::OpenAi, Format::Anthropic);
    assert!(anthropic[0].get("name").is_none(), "{}", anthropic[0]);
    assert_eq!(dropped_fields(&changes, 0), ["name"]);
    assert!(!anthropic.to_string().contains("_openai"));
}

#[test]
fn the_ai_sdk_ui_fields_stay_out_of_providers() {
    let ui = json!([
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "hi", "providerMetadata": {"x": {"y": 1}}}]},
        {"id": "a1", "role": "assistant", "parts": [{"type": "text", "text": "hello"}]}]);
    for to in [Format::OpenAi, Format::Anthropic, Format::Gemini] {
        let (value, changes) = via_native(&ui, Format::AiSdkUi, to);
        let text = value.to_string();
        assert!(!text.contains("providerMetadata") && !text.contains("\"u1\""), "{to:?}: {text}");
        assert!(dropped_fields(&changes, 0).contains(&"providerMetadata".to_string()), "{to:?}: {changes:?}");
    }
}

#[test]
fn the_callers_own_native_fields_stay() {
    let native = json!([{"role": "user", "parts": [{"type": "text", "text": "hi", "mine": 1}], "note": "x"}]);
    let out = convert(&native, Some(Format::Native), Format::OpenAi).unwrap();
    assert_eq!(out.value[0]["note"], "x");
    assert!(out.changes.iter().all(|c| !matches!(c, Change::DroppedFields { .. })), "{:?}", out.changes);
}

#[test]
fn a_mid_chain_developer_message_stays_one_through_native() {
    // An agent changing its instructions mid-conversation: the native form keeps the
    // message where it was said; the target converted to next places it by its rules.
    let responses = json!([
        {"role": "developer", "content": "You are a coding agent."},
        {"role": "user", "content": "Fix the build."},
        {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "Fixed.", "annotations": []}]},
        {"role": "developer", "content": "From now on, answer in French."},
        {"role": "user", "content": "Thanks, what next?"}
    ]);
    let chat = json!([
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Fix the build."},
        {"role": "assistant", "content": "Fixed."},
        {"role": "developer", "content": "From now on, answer in French."},
        {"role": "user", "content": "Thanks, what next?"}
    ]);
    for (wire, format) in [(responses, Format::OpenAiResponses), (chat, Format::OpenAi)] {
        let native = convert(&wire, Some(format), Format::Native).unwrap();
        assert!(native.changes.is_empty(), "{format:?}: {:?}", native.changes);
        let (back, changes) = via_native(&wire, format, format);
        assert_eq!(back, wire, "{format:?}");
        assert!(changes.is_empty(), "{format:?}: {changes:?}");
        // Gemini takes no system message mid-chain: it becomes the user's words there.
        let gemini = convert(&native.value, Some(Format::Native), Format::Gemini).unwrap();
        assert!(gemini.changes.iter().any(|c| matches!(
            c,
            Change::Repaired { step: contextfold::repair::RepairStep::SystemToUser { index: 3 } }
        )));
    }
}
