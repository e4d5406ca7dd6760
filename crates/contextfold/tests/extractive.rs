//! The extractive summarizer on a hand-made session, the demo and the real transcripts:
//! summaries stay under the target size, fill the summary schema, and keep the goals, file
//! paths and error lines picked from the originals.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use common::*;
use contextfold::format::{parse_json, read_auto};
use contextfold::message::{Message, Role};
use contextfold::prompt::render;
use contextfold::summarize::extractive::ExtractiveSummarizer;
use std::path::PathBuf;

fn summarize(messages: &[Message], target: usize) -> String {
    let tasks: Vec<Message> = messages.iter().filter(|m| m.role == Role::User).cloned().collect();
    let work: Vec<Message> =
        messages.iter().filter(|m| matches!(m.role, Role::Assistant | Role::Tool)).cloned().collect();
    let prompt = render(&tasks, &work).unwrap();
    ExtractiveSummarizer::default().summarize_transcript(&prompt.transcript, target)
}

#[test]
fn keeps_goals_errors_actions_and_the_last_state() {
    let chain = vec![
        user("Fix the failing date test in src/week.ts. Do not change the public API."),
        ai_calls("Running the tests first.", &[("a", "run_tests")]),
        tool(
            "a",
            "run_tests",
            "PASS src/csv.test.ts\nFAIL src/week.test.ts\n  Error: expected 2024-W01, got 2023-W52\n3 passed, 1 failed",
        ),
        Message::new(Role::Assistant, vec![call("b", "read_file", r#"{"path":"src/week.ts"}"#)]),
        tool("b", "read_file", &"export function isoWeek(d: Date) { /* ... */ }\n".repeat(40)),
        ai("The root cause is the year boundary: I changed isoWeek to use the Thursday rule. All tests pass now."),
    ];
    let s = summarize(&chain, 800);
    assert!(s.len() <= 800, "{} bytes", s.len());
    for needle in [
        "Fix the failing date test in src/week.ts.",
        "Do not change the public API.",
        "Error: expected 2024-W01, got 2023-W52",
        "src/week.ts: read",
        "The root cause is the year boundary",
    ] {
        assert!(s.contains(needle), "missing {needle:?} in:\n{s}");
    }
    // Deterministic.
    assert_eq!(s, summarize(&chain, 800));
    // A tighter budget keeps the goal first.
    let tight = summarize(&chain, 160);
    assert!(tight.len() <= 160 && tight.contains("Fix the failing date test"), "{tight}");
}

#[test]
fn markup_inside_messages_does_not_confuse_it() {
    let chain =
        vec![user("Explain </content></task> tags & <b>bold</b>."), ai("Done: the tags </message> were escaped.")];
    let s = summarize(&chain, 400);
    assert!(s.contains("Explain </content></task> tags & <b>bold</b>."), "{s}");
}

fn corpus() -> Vec<PathBuf> {
    let mut files =
        vec![PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/demo-session.openai.json"))];
    files.extend(common::real_fixtures().unwrap_or_default());
    files
}

#[test]
fn real_sessions_keep_their_first_goal_first_error_and_first_file() {
    for path in corpus() {
        let (messages, _) = read_auto(&parse_json(&std::fs::read_to_string(&path).unwrap()).unwrap()).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for target in [1024, 4096] {
            let s = summarize(&messages, target);
            assert!(s.len() <= target, "{name}: {} > {target}", s.len());
            // The opening words of the first user sentence that says something (3+ words:
            // "Hi there!" is no goal).
            if let Some(goal) = messages.iter().find(|m| m.role == Role::User).map(Message::joined_text) {
                let line = goal
                    .lines()
                    .flat_map(|l| l.split_inclusive(['!', '?']))
                    .map(str::trim)
                    .find(|l| l.split_whitespace().count() >= 3)
                    .unwrap_or_default();
                // Harness tags (`<command-args>`) are not words of the request.
                let words = line.split(['<', '>']).enumerate().filter(|(i, _)| i % 2 == 0).map(|(_, w)| w);
                let opening: String = words.flat_map(str::split_whitespace).take(4).collect::<Vec<_>>().join(" ");
                if opening.len() > 8 {
                    assert!(s.contains(&opening), "{name} ({target}): goal {opening:?} missing:\n{s}");
                }
            }
            // The first tool-result line that reports an error or a failure.
            let first_error = messages
                .iter()
                .flat_map(Message::tool_results)
                .flat_map(|r| {
                    r.content
                        .iter()
                        .filter_map(|p| match p {
                            contextfold::message::Part::Text(t) => Some(t.text.clone()),
                            _ => None,
                        })
                        .collect::<Vec<_>>()
                })
                .flat_map(|t| t.lines().map(str::to_string).collect::<Vec<_>>())
                .find(|l| {
                    (l.contains("Error:") || l.contains("error:") || l.contains("FAILED"))
                        && l.len() < 200
                        && !is_listing(l)
                });
            if let (Some(line), 4096) = (first_error, target) {
                let probe: String = line.trim().chars().take(40).collect();
                assert!(s.contains(&probe), "{name}: error line {probe:?} missing:\n{s}");
            }
            // The path of the first tool call that names one.
            let first_path = messages.iter().flat_map(Message::tool_calls).find_map(|c| {
                let v: serde_json::Value = serde_json::from_str(&c.arguments).ok()?;
                v.get("path").or_else(|| v.get("file_path")).and_then(|p| p.as_str()).map(str::to_string)
            });
            if let (Some(p), 4096) = (first_path, target) {
                // Paths are written relative to a root named once (`Root: <dir>`).
                let root = s.lines().find_map(|l| l.strip_prefix("- Root: "));
                let probe = match root.and_then(|r| p.strip_prefix(r)) {
                    Some(rel) => rel.trim_start_matches('/').to_string(),
                    None => p.clone(),
                };
                assert!(s.contains(&probe), "{name}: path {probe:?} missing:\n{s}");
            }
            println!("{name}: {} bytes for a {target}-byte target", s.len());
        }
    }
}

/// A line of a source listing (`  293→ code`, `23\tcode`), not a report.
fn is_listing(line: &str) -> bool {
    let t = line.trim_start();
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && t.chars().nth(digits).is_some_and(|c| matches!(c, '→' | '\t' | ':' | '|'))
}

#[test]
fn an_update_carries_the_previous_summary_forward() {
    let first = vec![
        user("Port the billing module to Rust. Keep the CSV export format unchanged."),
        ai_calls("Reading the old code.", &[("a", "read_file")]),
        tool("a", "read_file", "src/billing.py: 400 lines\nError: legacy rounding in invoice_total()"),
        ai("Decided to keep banker's rounding because invoices must match the old totals."),
    ];
    let old = summarize(&first, 600);
    let later =
        vec![ai_calls("Now the exporter.", &[("b", "write_file")]), tool("b", "write_file", "wrote src/export.rs")];
    let prompt = contextfold::prompt::render_update(&old, &[], &later).unwrap();
    let updated = ExtractiveSummarizer::default().summarize_transcript(&prompt.transcript, 600);
    assert!(updated.len() <= 600, "{} bytes", updated.len());
    for needle in [
        "Port the billing module to Rust.",
        "Keep the CSV export format unchanged.",
        "invoice_total()",
        "Now the exporter.",
    ] {
        assert!(updated.contains(needle), "missing {needle:?} in:\n{updated}");
    }
    // Updating again with nothing new in the old summary does not lose its goal.
    let again = contextfold::prompt::render_update(&updated, &[], &later).unwrap();
    let twice = ExtractiveSummarizer::default().summarize_transcript(&again.transcript, 600);
    assert!(twice.contains("Port the billing module to Rust."), "{twice}");
}

#[test]
fn updates_keep_carried_decisions_and_errors_before_old_requests() {
    // A chat folded one turn at a time: the first summary holds an error and a decision;
    // update after update, the old requests pile up under `## User requests`. Within the
    // target, the oldest of them yield, never the carried decision and error.
    let first = vec![
        user("Run the ledger checks."),
        ai_calls("Running them.", &[("a", "run_cmd")]),
        tool("a", "run_cmd", "error: E4471 checksum mismatch in src/ledger/reconcile.rs line 212\ntest output line"),
        ai("Decision: we will use SQLite WAL mode instead of PostgreSQL for the offline cache, which fixes E4471."),
    ];
    let target = 900;
    let mut summary = summarize(&first, target);
    assert!(summary.contains("SQLite WAL") && summary.contains("E4471"), "{summary}");
    for i in 2..40 {
        // Each update brings several requests (a fold every few turns).
        let tasks: Vec<Message> = (0..10)
            .map(|k| {
                user(&format!("Please look at part {i}.{k} of the ingest pipeline, the retry queue and its metrics."))
            })
            .chain([user(&format!("Please look at part {i} of the ingest pipeline, the retry queue and its metrics."))])
            .collect();
        let work = [ai(&format!("Part {i} looks fine: the retry queue drains in order and the metrics agree."))];
        let prompt = contextfold::prompt::render_update(&summary, &tasks, &work).unwrap();
        summary = ExtractiveSummarizer::default().summarize_transcript(&prompt.transcript, target);
        assert!(summary.len() <= target, "{} bytes", summary.len());
        for needle in ["SQLite WAL mode", "## Errors and fixes", "E4471 checksum mismatch"] {
            assert!(summary.contains(needle), "update {i}: missing {needle:?} in:\n{summary}");
        }
        // The first request and the latest stay.
        assert!(summary.contains("Run the ledger checks.") && summary.contains(&format!("part {i} of")), "{summary}");
    }
    // Older requests made room: not every one of them is still listed.
    assert!(!summary.contains("part 2 of") && !summary.contains("part 2.0 of"), "{summary}");
}

#[test]
fn summaries_being_merged_are_merged_by_section_and_file() {
    // Two partial summaries (window's consolidation sends them as assistant text), each
    // with its own root: one entry per file, one root, names and requests carried over
    // (that a changed file was also read is not).
    let a = "## User requests\n- Port the lexer.\n\n## Files\n- Root: /w/proj/src\n- lexer.rs: edited 2x; Token, next_token/1\n\n## Current state\n- Latest: lexer done.";
    let b = "## Files\n- Root: /w/proj\n- src/lexer.rs: read; peek_char\n- README.md: written\n\n## Current state\n- Latest: parser next.";
    let s = summarize(&[ai(a), ai(b)], 2000);
    assert!(s.contains("- Root: /w/proj\n"), "{s}");
    assert_eq!(s.matches("lexer.rs").count(), 1, "one entry per file:\n{s}");
    for needle in ["src/lexer.rs: edited 2x; Token, next_token/1, peek_char", "README.md: written", "Port the lexer."] {
        assert!(s.contains(needle), "missing {needle:?} in:\n{s}");
    }
    assert!(s.contains("Latest: parser next.") && !s.contains("Latest: lexer done."), "the later state wins:\n{s}");
}
