#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! The codes `validateChain` reports are the one list `repair::DIAGNOSTIC_CODES`, from
//! which the TypeScript union `DiagnosticCode` is generated: a code used but not listed
//! would be missing from the declarations.

use contextfold::repair::{validate, Provider, DIAGNOSTIC_CODES, DIAGNOSTIC_CODES_TS};
use serde_json::json;

/// The source of the validator, up to its tests (if it has any).
const SOURCE: &str = include_str!("../src/repair/validate.rs");

/// Every snake_case string literal of the validator's code (`"orphan_result"`): its codes,
/// whether passed to a constructor or chosen in a `match` first.
fn literals() -> Vec<&'static str> {
    let code = SOURCE.split("#[cfg(test)]").next().unwrap_or(SOURCE);
    code.split('"')
        .skip(1)
        .step_by(2)
        .filter(|s| {
            s.contains('_')
                && !s.starts_with('_')
                && !s.ends_with('_')
                && s.chars().all(|c| c.is_ascii_lowercase() || c == '_')
        })
        .collect()
}

#[test]
fn every_code_the_validator_uses_is_listed() {
    let used = literals();
    assert!(used.contains(&"orphan_result"), "the scan finds the codes: {used:?}");
    for code in used {
        assert!(DIAGNOSTIC_CODES.contains(&code), "{code} is used by repair/validate.rs but not in its code list");
    }
}

#[test]
fn the_typescript_union_has_every_code_once() {
    for code in DIAGNOSTIC_CODES {
        assert_eq!(DIAGNOSTIC_CODES_TS.matches(&format!("\"{code}\"")).count(), 1, "{code}: {DIAGNOSTIC_CODES_TS}");
    }
    assert!(DIAGNOSTIC_CODES_TS.starts_with("/**"));
    assert!(DIAGNOSTIC_CODES_TS.contains("export type DiagnosticCode ="));
    let mut sorted = DIAGNOSTIC_CODES.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), DIAGNOSTIC_CODES.len(), "a code listed twice");
}

#[test]
fn the_codes_reported_are_listed() {
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    let chains = [
        json!([
            { "role": "user", "content": "q" },
            { "role": "assistant", "content": [{ "type": "thinking", "thinking": "hmm", "signature": "" }, { "type": "text", "text": "a" }] },
        ]),
        json!([
            { "role": "user", "content": "q" },
            { "role": "assistant", "content": [{ "type": "tool_use", "id": "t1", "name": "shot", "input": {} }] },
            { "role": "user", "content": [{ "type": "tool_result", "tool_use_id": "t1", "content": [{ "type": "image", "source": { "type": "base64", "media_type": "image/png", "data": png } }] }] },
        ]),
        json!([{ "role": "user", "content": "a" }, { "role": "assistant", "content": "" }]),
    ];
    let mut seen = Vec::new();
    for chain in &chains {
        let messages = contextfold::format::anthropic::read(chain).unwrap();
        for provider in
            [Provider::Generic, Provider::OpenAi, Provider::OpenAiResponses, Provider::Anthropic, Provider::Gemini]
        {
            seen.extend(validate(&messages, provider).into_iter().map(|d| d.code));
        }
    }
    for code in ["unsigned_thinking", "media_in_tool_result", "empty_message"] {
        assert!(seen.contains(&code), "{code} not reported: {seen:?}");
    }
    for code in seen {
        assert!(DIAGNOSTIC_CODES.contains(&code), "{code} reported but not listed");
    }
}
