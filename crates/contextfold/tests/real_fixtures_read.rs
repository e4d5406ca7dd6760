#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! Reads every real transcript in `../shared/fixtures/real/` (next to the project root)
//! with format auto-detection, and checks the result is a valid chain.

mod common;

use contextfold::format::{self, native, Format};
use contextfold::{ChainAst, Message};
use std::collections::HashSet;
use std::path::Path;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fixtures/real");

/// The format a file's name promises (`NAME.openai.json`, `NAME.anthropic.json`); other
/// files (a reference summary) only have to read.
fn expected_format(file: &Path) -> Option<Format> {
    let name = file.file_name()?.to_str()?;
    if name.ends_with(".openai.json") {
        Some(Format::OpenAi)
    } else if name.ends_with(".anthropic.json") {
        Some(Format::Anthropic)
    } else {
        None
    }
}

/// Every tool call id is answered by a tool result.
fn unanswered_calls(messages: &[Message]) -> Vec<String> {
    let answered: HashSet<&str> = messages.iter().flat_map(Message::tool_results).map(|r| r.call_id.as_str()).collect();
    messages
        .iter()
        .flat_map(Message::tool_calls)
        .filter(|c| !answered.contains(c.id.as_str()))
        .map(|c| c.id.clone())
        .collect()
}

fn check(file: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
    let value = format::parse_json(&text).map_err(|e| e.to_string())?;
    let wire_len = value.as_array().map_or(0, Vec::len);
    let (messages, format) = format::read_auto(&value).map_err(|e| format!("read_auto: {e}"))?;
    match expected_format(file) {
        Some(expected) if expected != format => {
            return Err(format!("detected {format:?}, the name says {expected:?}"));
        }
        Some(Format::OpenAi) if messages.len() != wire_len => {
            return Err(format!("{} messages read from {wire_len}", messages.len()));
        }
        Some(Format::Anthropic) if messages.len() < wire_len => {
            return Err(format!("{} messages read from {wire_len}", messages.len()));
        }
        _ => {}
    }
    let unanswered = unanswered_calls(&messages);
    if !unanswered.is_empty() {
        return Err(format!("tool calls without a result: {unanswered:?}"));
    }
    let ast = ChainAst::parse(&messages).map_err(|e| format!("strict parse: {e}"))?;
    // The native form must hold every kept field without clashes: it reads back equal.
    let again = native::read(&native::write(&messages)).map_err(|e| format!("native: {e}"))?;
    if again != messages {
        return Err("the native form does not read back to the same messages".to_string());
    }
    let calls = messages.iter().flat_map(Message::tool_calls).count();
    Ok(format!(
        "{} ({}): {wire_len} wire -> {} messages, {} sections, {} pairs, {calls} tool calls, {} bytes",
        file.file_name().unwrap().to_string_lossy(),
        format.as_str(),
        messages.len(),
        ast.sections().len(),
        ast.pair_count(),
        ast.size()
    ))
}

#[test]
fn every_real_transcript_reads_into_a_valid_chain() {
    let Some(files) = common::real_fixtures() else {
        return;
    };
    assert!(!files.is_empty(), "no *.json in {FIXTURES}");
    let mut failures = Vec::new();
    for file in &files {
        match check(file) {
            Ok(summary) => eprintln!("{summary}"),
            Err(why) => failures.push(format!("{}: {why}", file.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn missing_real_transcripts_skip_with_a_notice_outside_ci() {
    let nowhere = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("no-such-fixtures-dir");
    let notice = common::fixtures_in(&nowhere, false).unwrap_err();
    assert!(notice.contains("no-such-fixtures-dir") && notice.contains("skipped"), "{notice}");
}

#[test]
#[should_panic(expected = "CI=true and the real transcripts")]
fn missing_real_transcripts_fail_under_ci() {
    let nowhere = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("no-such-fixtures-dir");
    let _ = common::fixtures_in(&nowhere, true);
}
