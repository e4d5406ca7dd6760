//! The window strategy (zrb's history summarizer): upstream's scenarios, the fixes over
//! upstream (first and latest user message verbatim, snapshot updates, no silent
//! truncation, no gain, idempotence), fault injection, cancellation, the real
//! transcripts and generated chains.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use common::*;
use contextfold::ast::{ChainAst, RepairAction};
use contextfold::format::{parse_json, read_auto};
use contextfold::measure::{Amount, Meter};
use contextfold::message::{messages_size, Message, Part, Role};
use contextfold::strategy::window::{
    compact, needs_compaction, restoration_snapshot, WindowConfig, MAX_WAVES, RESTORATION_PREFIX, TOOL_SUMMARY_PREFIX,
    TOOL_TRUNCATED_PREFIX,
};
use contextfold::strategy::{Action, CompactError, CompactResult, OnError, Report};
use contextfold::summarize::extractive::ExtractiveSummarizer;
use contextfold::summarize::mock::{FixedSummarizer, FnSummarizer};
use contextfold::summarize::{Controls, RequestKind, SummarizeError, SummarizeErrorKind, Summarizer, SummaryRequest};
use contextfold::testing::{generate_chain, ChainConfig};
use futures::executor::block_on;
use proptest::prelude::*;
use std::cell::{Cell, RefCell};

const GOAL: &str = "GOAL: port the tokenizer to Rust, keep the public API";

/// Thresholds in bytes (exact and easy to reason about); the message threshold is half.
fn bytes_config(window: usize, threshold: usize) -> WindowConfig {
    WindowConfig {
        window,
        threshold: Amount::Bytes(threshold),
        message_threshold: Amount::Bytes(threshold / 2),
        ..WindowConfig::default()
    }
}

fn run<S: Summarizer + ?Sized>(chain: &[Message], config: &WindowConfig, s: &S) -> CompactResult {
    block_on(compact(chain, config, s, &Controls::default(), Meter::default())).unwrap()
}

fn try_run<S: Summarizer + ?Sized>(
    chain: &[Message],
    config: &WindowConfig,
    s: &S,
) -> Result<CompactResult, CompactError> {
    block_on(compact(chain, config, s, &Controls::default(), Meter::default()))
}

/// `n` turns after a system prompt, the goal and its answer: a user step, a read, its
/// ~300-byte result, and an answer. Turn `t` starts at index `3 + 4t`.
fn session(n: usize) -> Vec<Message> {
    let mut chain = vec![sys("You are a careful agent."), user(GOAL), ai("I will port it file by file.")];
    chain.extend((0..n).flat_map(turn));
    chain
}

fn turn(i: usize) -> Vec<Message> {
    let id = format!("read_{i}");
    vec![
        user(&format!("step {i}: inspect file {i}")),
        ai_calls("", &[(&id, "read_file")]),
        tool(&id, "read_file", &format!("line {i}\n").repeat(40)),
        ai(&format!("file {i} looks fine")),
    ]
}

fn actions(report: &Report) -> Vec<Action> {
    report.sections.iter().flat_map(|s| s.actions.iter().cloned()).collect()
}

fn snapshot_action(report: &Report) -> Option<Action> {
    actions(report).into_iter().find(|a| matches!(a, Action::Snapshot { .. }))
}

/// The output parses strictly (every call answered, no orphan result).
fn strict(messages: &[Message]) -> ChainAst<'_> {
    ChainAst::parse(messages).unwrap_or_else(|e| panic!("output must parse strictly: {e}"))
}

/// No user (or assistant) messages in a row that the fold brought together: same-role
/// neighbours are only messages kept as they came, neighbours in the input too.
fn no_same_role_neighbours(messages: &[Message], input: &[Message]) {
    for w in messages.windows(2) {
        let same = w[0].role == w[1].role && matches!(w[0].role, Role::User | Role::Assistant);
        let kept_pair = input.windows(2).any(|c| c == w);
        assert!(!same || kept_pair, "consecutive {:?} messages", w[0].role);
    }
}

/// The restoration parts of a chain.
fn restorations(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .flat_map(|m| m.parts.iter())
        .filter_map(|p| match p {
            Part::Text(t) if t.text.starts_with(RESTORATION_PREFIX) => Some(t.text.clone()),
            _ => None,
        })
        .collect()
}

/// Answers with the kind and range, wrapped as a snapshot.
fn labelled() -> FnSummarizer<impl Fn(SummaryRequest) -> std::future::Ready<Result<String, SummarizeError>>> {
    FnSummarizer(|r: SummaryRequest| {
        std::future::ready(Ok(format!(
            "<state_snapshot>{:?} {}..{} wave {}</state_snapshot>",
            r.kind, r.range.start, r.range.end, r.wave
        )))
    })
}

// ---------------------------------------------------------------- triggers

#[test]
fn under_both_thresholds_nothing_changes() {
    let chain = session(3);
    let s = FixedSummarizer::new("S");
    let out = run(&chain, &WindowConfig::default(), &s);
    assert_eq!((out.changed, s.calls(), out.report.calls), (false, 0, 0));
    assert_eq!(out.messages, chain);
    assert_eq!(out.report.strategy, "window");
    assert!(out.report.sections.is_empty());
    assert!(!needs_compaction(&chain, &WindowConfig::default(), Meter::default()));
}

#[test]
fn defaults_are_upstreams_and_for_budget_derives_thresholds() {
    let d = WindowConfig::default();
    assert_eq!((d.window, d.threshold, d.message_threshold), (100, Amount::Tokens(76_800), Amount::Tokens(38_400)));
    assert_eq!((d.max_depth, d.on_error), (5, OnError::Rollback));
    let b = WindowConfig::for_budget(Amount::Tokens(10_000));
    assert_eq!((b.threshold, b.message_threshold), (Amount::Tokens(8_000), Amount::Tokens(4_000)));
    let b = WindowConfig::for_budget(Amount::Bytes(10_000));
    assert_eq!((b.threshold, b.message_threshold), (Amount::Bytes(8_000), Amount::Bytes(4_000)));
}

#[test]
fn triggers_on_tokens_over_threshold_and_on_count_over_window() {
    let chain = session(20);
    let s = labelled();
    // By size.
    let config = bytes_config(1000, 3000);
    assert!(needs_compaction(&chain, &config, Meter::default()));
    let out = run(&chain, &config, &s);
    assert!(out.changed && snapshot_action(&out.report).is_some());
    // By count, with a large enough span.
    let config = bytes_config(20, 15_000);
    assert!(needs_compaction(&chain, &config, Meter::default()));
    let out = run(&chain, &config, &s);
    assert!(out.changed && snapshot_action(&out.report).is_some());
    assert!(out.messages.len() <= 22, "{}", out.messages.len());
    // The same in tokens.
    let config = WindowConfig {
        threshold: Amount::Tokens(800),
        message_threshold: Amount::Tokens(400),
        ..WindowConfig::default()
    };
    assert!(needs_compaction(&chain, &config, Meter::default()));
    let out = run(&chain, &config, &s);
    assert!(out.changed && snapshot_action(&out.report).is_some());
    strict(&out.messages);
}

#[test]
fn not_worth_it_when_only_the_count_triggers_and_the_span_is_small() {
    // 60 tiny messages over a window of 40; the span is far under 30% of the threshold.
    let mut chain = vec![sys("s"), user(GOAL), ai("ok")];
    for i in 0..30 {
        chain.push(user(&format!("q{i}")));
        chain.push(ai(&format!("a{i}")));
    }
    let config = bytes_config(40, 100_000);
    let s = FixedSummarizer::new("S");
    assert!(!needs_compaction(&chain, &config, Meter::default()), "the cheap check applies the same rule");
    let out = run(&chain, &config, &s);
    assert_eq!((out.changed, s.calls()), (false, 0));
    assert_eq!(out.messages, chain);
    assert!(
        matches!(actions(&out.report).as_slice(), [Action::Skipped { reason }] if reason.starts_with("not worth it"))
    );
}

// ---------------------------------------------------------------- phase (a)

fn big_result_chain(result: &str) -> Vec<Message> {
    vec![
        sys("s"),
        user(GOAL),
        ai_calls("reading", &[("big", "read_file")]),
        tool("big", "read_file", result),
        ai("read it"),
    ]
}

fn result_text(m: &Message) -> String {
    match &m.parts[0] {
        Part::ToolResult(r) => match &r.content[0] {
            Part::Text(t) => t.text.clone(),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

#[test]
fn oversized_tool_results_are_summarized_alone_and_only_once() {
    let chain = big_result_chain(&"fn parse() { /* ... */ }\n".repeat(200));
    let config = WindowConfig { message_threshold: Amount::Bytes(1000), ..WindowConfig::default() };
    let s = FixedSummarizer::new("parse() is defined in lexer.rs");
    assert!(needs_compaction(&chain, &config, Meter::default()));
    let out = run(&chain, &config, &s);
    assert_eq!(s.calls(), 1);
    let request = &s.requests.borrow()[0];
    assert_eq!(request.kind, RequestKind::Message);
    assert!(request.transcript.contains("<tool_call name=\"read_file\">"), "the call is given for context");
    assert_eq!(result_text(&out.messages[3]), format!("{TOOL_SUMMARY_PREFIX}\nparse() is defined in lexer.rs"));
    assert!(matches!(actions(&out.report).as_slice(), [Action::MessageSummarized { message: 3, .. }]));
    // Everything else is untouched.
    assert_eq!(out.messages[..3], chain[..3]);
    assert_eq!(out.messages[4], chain[4]);
    strict(&out.messages);
    // Idempotent: a prefixed result is skipped.
    assert!(!needs_compaction(&out.messages, &config, Meter::default()));
    let again = run(&out.messages, &config, &s);
    assert_eq!((again.report.calls, again.changed), (0, false));
}

#[test]
fn a_failed_tool_result_summary_follows_on_error() {
    let chain = big_result_chain(&"data ".repeat(1000));
    let failing = FnSummarizer(|_r: SummaryRequest| async { Err(SummarizeError::failed("model down")) });
    let base = WindowConfig { message_threshold: Amount::Bytes(1000), ..WindowConfig::default() };
    // Rollback (default): the original chain, the error in the report.
    let out = run(&chain, &base, &failing);
    assert!(out.report.rolled_back && !out.changed);
    assert_eq!(out.messages, chain);
    assert_eq!(out.report.errors.len(), 1);
    // Throw.
    let config = WindowConfig { on_error: OnError::Throw, ..base.clone() };
    assert!(matches!(try_run(&chain, &config, &failing), Err(CompactError::Summarizer(e)) if e.len() == 1));
    // Partial: the result whose summary failed keeps its content (it was cut, the tool
    // output lost with no summary standing for it), the failure reported.
    let config = WindowConfig { on_error: OnError::Partial, ..base };
    let out = run(&chain, &config, &failing);
    assert!(!out.report.rolled_back);
    assert_eq!(out.messages, chain);
    let acts = actions(&out.report);
    assert!(acts.iter().any(|a| matches!(a, Action::Failed { kind: RequestKind::Message, .. })));
    assert!(!acts.iter().any(|a| matches!(a, Action::Truncated { .. })), "{acts:?}");
    assert_eq!(out.report.errors.len(), 1);
    // A later run summarizes it.
    let s = FixedSummarizer::new("S");
    let again = run(&out.messages, &config, &s);
    assert_eq!(again.report.calls, 1);
    assert_eq!(result_text(&again.messages[3]), format!("{TOOL_SUMMARY_PREFIX}\nS"));
}

#[test]
fn a_failed_tool_result_summary_under_partial_keeps_it_while_the_fold_goes_on() {
    // A long test log whose summary fails, in a chain over the window's threshold: the
    // fold still folds what it can, and the log reaches the result as it was.
    let log: String = (0..400).map(|i| format!("line {i}: test_case_{i} PASSED in {}.0{}s\n", i % 7, i % 10)).collect();
    let chain = vec![
        sys("You are a coding agent."),
        user("Run the test suite and tell me what fails."),
        Message::new(Role::Assistant, vec![call("call_1", "bash", r#"{"cmd":"pytest -v"}"#)]),
        tool("call_1", "bash", &log),
        ai("All 400 tests pass."),
        user("Great, thanks."),
    ];
    let failing = FnSummarizer(|_r: SummaryRequest| async { Err(SummarizeError::failed("summarizer down")) });
    let config = WindowConfig { on_error: OnError::Partial, ..WindowConfig::for_budget(Amount::Tokens(3000)) };
    let out = run(&chain, &config, &failing);
    assert!(!out.report.errors.is_empty());
    let tool = out.messages.iter().find(|m| m.role == Role::Tool).expect("the result is kept");
    assert_eq!(result_text(tool), log);
    assert!(!actions(&out.report).iter().any(|a| matches!(a, Action::Truncated { .. })));
    strict(&out.messages);
}

#[test]
fn long_results_recurse_level_by_level_then_truncate() {
    // 12 KB result, pieces of 70% x 3000 bytes; the summarizer always answers 1100 bytes,
    // over the 1000-byte goal: levels 0..=max_depth as far as the waves allow (no fold
    // follows here, so all of them), then truncation.
    let chain = big_result_chain(&"x".repeat(12_000));
    let s = FixedSummarizer::new("y".repeat(1100));
    let config = WindowConfig {
        threshold: Amount::Bytes(3000),
        message_threshold: Amount::Bytes(1000),
        window: 1000,
        ..WindowConfig::default()
    };
    let out = run(&chain, &config, &s);
    assert_eq!(out.report.waves, MAX_WAVES, "depth 0..=2 of max_depth 5, one wave each");
    let first_wave = s.requests.borrow().iter().filter(|r| r.wave == 0).count();
    assert!(first_wave >= 5, "the long result is cut into pieces sent together: {first_wave}");
    let text = result_text(&out.messages[3]);
    assert!(text.starts_with(TOOL_TRUNCATED_PREFIX));
    assert!(actions(&out.report).iter().any(|a| matches!(a, Action::Truncated { message: Some(3), .. })));
    strict(&out.messages);

    let config = WindowConfig { max_depth: 1, ..config };
    let s = FixedSummarizer::new("y".repeat(1100));
    assert_eq!(run(&chain, &config, &s).report.waves, 2);
}

#[test]
fn a_summary_never_replaces_smaller_content() {
    // A 1000-byte result over a 1000-byte threshold (with its ids); a 990-byte summary
    // plus its prefix is no smaller. Issue 14: it was discarded, and asked for again on
    // every rerun. Now an answer over what can replace the content with a gain goes one
    // level deeper like one over the goal, and is cut past the depth limit: the result
    // is smaller, reported as truncated, and a rerun asks nothing.
    let chain = big_result_chain(&"z".repeat(1000));
    let s = FixedSummarizer::new("w".repeat(990));
    let config = WindowConfig { message_threshold: Amount::Bytes(1000), ..WindowConfig::default() };
    let out = run(&chain, &config, &s);
    assert!(s.calls() >= 1);
    assert!(messages_size(&out.messages) < messages_size(&chain));
    assert!(result_text(&out.messages[3]).starts_with(TOOL_TRUNCATED_PREFIX));
    assert!(actions(&out.report).iter().any(|a| matches!(a, Action::Truncated { message: Some(3), .. })));
    assert!(actions(&out.report).iter().all(|a| !matches!(a, Action::NoGain { .. })));
    let again = FixedSummarizer::new("w".repeat(990));
    assert_eq!((run(&out.messages, &config, &again).report.calls, again.calls()), (0, 0));

    // The same for the snapshot: a span of about 1 KB, a 1.5 KB answer.
    let chain = session(6);
    let s = FixedSummarizer::new("v".repeat(1500));
    let config = bytes_config(1000, 2000);
    let out = run(&chain, &config, &s);
    assert!(s.calls() >= 1);
    assert!(messages_size(&out.messages) < messages_size(&chain));
    assert!(actions(&out.report).iter().any(|a| matches!(a, Action::Truncated { message: None, .. })));
    let again = FixedSummarizer::new("v".repeat(1500));
    assert_eq!(run(&out.messages, &config, &again).report.calls, 0);
}

#[test]
fn a_summarizer_answering_more_than_it_got_cannot_blow_up_the_levels() {
    let chain = session(20);
    let s = FixedSummarizer::new("v".repeat(20_000));
    let out = run(&chain, &bytes_config(1000, 3000), &s);
    assert!(s.calls() < 40, "{} calls", s.calls());
    strict(&out.messages);
    assert!(actions(&out.report).iter().any(|a| matches!(a, Action::Truncated { .. })), "never silent");
}

// ---------------------------------------------------------------- split

#[test]
fn the_split_never_separates_tool_pairs() {
    // Parallel calls, results of several sizes, many windows and thresholds.
    let mut chain = vec![sys("s"), user(GOAL), ai("on it")];
    for i in 0..12 {
        let (a, b) = (format!("a{i}"), format!("b{i}"));
        chain.push(user(&format!("step {i}")));
        chain.push(ai_calls("two reads", &[(&a, "read"), (&b, "grep")]));
        chain.push(tool(&a, "read", &"r".repeat(50 + 40 * i)));
        chain.push(tool(&b, "grep", &"g".repeat(30 * (i % 4))));
        chain.push(ai_calls("", &[(&format!("c{i}"), "run")]));
        chain.push(tool(&format!("c{i}"), "run", "ok"));
        chain.push(ai(&format!("done {i}")));
    }
    let s = FixedSummarizer::new("<state_snapshot>work so far</state_snapshot>");
    for window in [3, 7, 20, 50] {
        for threshold in [800, 1500, 3000, 6000] {
            let out = run(&chain, &bytes_config(window, threshold), &s);
            let ast = strict(&out.messages);
            assert_sizes_consistent(&ast);
            no_same_role_neighbours(&out.messages, &chain);
            // Kept assistant messages come back unchanged.
            for m in out.messages.iter().filter(|m| m.role == Role::Assistant) {
                assert!(chain.contains(m), "window {window}, threshold {threshold}");
            }
        }
    }
}

#[test]
fn a_pending_call_at_the_end_is_kept_and_answered() {
    let mut chain = session(20);
    chain.push(user("now run the tests"));
    let pending = ai_calls("running", &[("pending", "run_tests")]);
    chain.push(pending.clone());
    let s = FixedSummarizer::new("S");
    let out = run(&chain, &bytes_config(8, 3000), &s);
    assert!(out.changed);
    strict(&out.messages);
    let n = out.messages.len();
    assert_eq!(out.messages[n - 2], pending, "the pending call is kept, not summarized");
    assert_eq!(out.messages[n - 1].role, Role::Tool);
    assert!(out.report.repairs.iter().any(|r| matches!(r, RepairAction::AddedMissingResult { .. })));
}

#[test]
fn an_orphaned_result_is_stripped() {
    let mut chain = session(20);
    chain.insert(23, tool("ghost", "read_file", "orphan")); // after a completion
    let s = FixedSummarizer::new("S");
    let out = run(&chain, &bytes_config(8, 3000), &s);
    strict(&out.messages);
    assert!(!out.messages.iter().flat_map(Message::tool_results).any(|r| r.call_id == "ghost"));
    assert!(out.report.repairs.iter().any(|r| matches!(r, RepairAction::DroppedToolMessage { .. })));
}

// ---------------------------------------------------------------- snapshot

#[test]
fn chunks_run_in_one_wave_then_one_consolidation() {
    let chain = session(40);
    let s = labelled();
    let config = bytes_config(1000, 3000);
    let recorded = RefCell::new(Vec::new());
    let spy = FnSummarizer(|r: SummaryRequest| {
        recorded.borrow_mut().push(r.clone());
        (s.0)(r)
    });
    let out = run(&chain, &config, &spy);
    let requests = recorded.into_inner();
    let chunks: Vec<&SummaryRequest> = requests.iter().filter(|r| r.kind == RequestKind::Chunk).collect();
    assert!(chunks.len() >= 2, "{} chunks", chunks.len());
    assert!(chunks.iter().all(|r| r.wave == 0), "all chunks in one wave");
    let consolidations: Vec<&SummaryRequest> = requests.iter().filter(|r| r.kind == RequestKind::Consolidate).collect();
    assert_eq!(consolidations.len(), 1);
    assert_eq!(consolidations[0].wave, 1);
    assert_eq!(out.report.waves, 2);
    assert_eq!(out.report.calls, requests.len());
    for r in &chunks {
        assert!(r.instructions.contains("<state_snapshot>") && r.instructions.contains("task_state"));
        assert!(r.instructions.contains("DONE, IN PROGRESS or TODO"));
    }
    // Chunks cover consecutive ranges; the consolidation covers them all.
    for w in chunks.windows(2) {
        assert_eq!(w[0].range.end, w[1].range.start);
    }
    assert_eq!(consolidations[0].range.start, chunks[0].range.start);
    assert_eq!(consolidations[0].range.end, chunks.last().unwrap().range.end);
    // The snapshot is the consolidation's, unwrapped once and put in a restoration.
    let r = restorations(&out.messages);
    assert_eq!(r.len(), 1);
    assert!(restoration_snapshot(&r[0]).unwrap().starts_with("Consolidate"));
    assert!(matches!(snapshot_action(&out.report), Some(Action::Snapshot { updated: false, .. })));
}

#[test]
fn a_single_chunk_needs_no_consolidation() {
    let chain = session(12);
    let s = labelled();
    let out = run(&chain, &bytes_config(1000, 3000), &s);
    assert_eq!((out.report.calls, out.report.waves), (1, 1));
    let r = restorations(&out.messages);
    assert!(restoration_snapshot(&r[0]).unwrap().starts_with("Chunk"));
}

#[test]
fn phase_a_chunks_and_consolidation_take_three_waves() {
    let mut chain = session(40);
    chain[5] = tool("read_0", "read_file", &"huge ".repeat(1000));
    let s = labelled();
    let out = run(&chain, &bytes_config(1000, 3000), &s);
    assert_eq!(out.report.waves, 3);
    let acts = actions(&out.report);
    assert!(acts.iter().any(|a| matches!(a, Action::MessageSummarized { message: 5, .. })));
    assert!(acts.iter().any(|a| matches!(a, Action::Snapshot { .. })));
}

#[test]
fn the_restoration_is_user_role_and_roles_alternate() {
    let chain = session(20);
    let s = FixedSummarizer::new("<state_snapshot>\n<overall_goal>port</overall_goal>\n</state_snapshot>");
    let out = run(&chain, &bytes_config(1000, 3000), &s);
    strict(&out.messages);
    no_same_role_neighbours(&out.messages, &chain);
    // System, then ONE user message: the first user message, the restoration, and the
    // first kept user message, merged with their parts in order, byte for byte.
    assert_eq!(out.messages[0], chain[0]);
    let merged = &out.messages[1];
    assert_eq!(merged.role, Role::User);
    assert_eq!(merged.parts[0], chain[1].parts[0]);
    let Part::Text(t) = &merged.parts[1] else { panic!() };
    assert!(t.text.starts_with(RESTORATION_PREFIX));
    assert!(t.text.contains("<state_snapshot>\n<overall_goal>port</overall_goal>\n</state_snapshot>"));
    assert_eq!(t.text.matches("<state_snapshot>").count(), 1, "the answer's own wrapper is not doubled");
    let kept_user = chain.iter().find(|m| m.parts == merged.parts[2..]).expect("a turn start of the input");
    let k = chain.iter().position(|m| m == kept_user).unwrap();
    assert_eq!(out.messages[2..], chain[k + 1..], "kept messages come back unchanged");
    assert!(matches!(
        snapshot_action(&out.report),
        Some(Action::Snapshot { messages, updated: false, .. }) if messages == k - 2
    ));
}

#[test]
fn the_first_and_the_latest_user_messages_stay_verbatim() {
    // One long agent turn after the latest user message: the split falls inside it, yet
    // the latest user message (and the first) are kept.
    let mut chain = session(3);
    let latest = user("LATEST: now benchmark the tokenizer against the Python one");
    chain.push(latest.clone());
    for i in 0..30 {
        let id = format!("bench_{i}");
        chain.push(ai_calls(&format!("run {i}"), &[(&id, "bench")]));
        chain.push(tool(&id, "bench", &format!("{i} ms\n").repeat(30)));
    }
    chain.push(ai("benchmarks done"));
    let s = FixedSummarizer::new("ran benchmarks");
    let out = run(&chain, &bytes_config(1000, 3000), &s);
    strict(&out.messages);
    no_same_role_neighbours(&out.messages, &chain);
    let merged = &out.messages[1];
    assert_eq!(merged.parts[0], Part::text(GOAL), "first user message first");
    assert!(matches!(&merged.parts[1], Part::Text(t) if t.text.starts_with(RESTORATION_PREFIX)));
    assert_eq!(merged.parts[2..], latest.parts[..], "latest user message after the restoration");
    assert_eq!(out.messages[2].role, Role::Assistant, "the split fell inside the latest turn");
    assert_eq!(out.messages.last(), chain.last());
    // The summarizer saw the latest request as context.
    assert!(s.requests.borrow().iter().any(|r| r.transcript.contains("<content>LATEST: now benchmark")));
}

#[test]
fn an_earlier_snapshot_is_updated_not_resummarized() {
    let config = bytes_config(1000, 3000);
    let first = run(&session(20), &config, &FixedSummarizer::new("FIRST-SNAPSHOT: ported the lexer"));
    assert!(first.changed);
    // New work arrives; the next compaction updates the snapshot.
    let mut chain = first.messages.clone();
    chain.extend((20..32).flat_map(turn));
    let s = FixedSummarizer::new("UPDATED-SNAPSHOT: ported lexer and parser");
    let out = run(&chain, &config, &s);
    strict(&out.messages);
    no_same_role_neighbours(&out.messages, &chain);
    let requests = s.requests.borrow();
    let update = requests.iter().find(|r| r.transcript.contains("<previous_summary>")).expect("an update request");
    assert!(update.transcript.contains("FIRST-SNAPSHOT: ported the lexer"));
    assert!(update.instructions.contains("section by section into ONE summary"));
    for r in requests.iter() {
        assert!(!r.transcript.contains(RESTORATION_PREFIX), "the old restoration is not sent as a message");
        assert_eq!(r.transcript.matches("FIRST-SNAPSHOT").count(), usize::from(r.id == update.id));
    }
    let r = restorations(&out.messages);
    assert_eq!(r.len(), 1, "one restoration, replaced");
    assert_eq!(restoration_snapshot(&r[0]), Some("UPDATED-SNAPSHOT: ported lexer and parser"));
    assert_eq!(out.messages[1].parts[0], Part::text(GOAL), "the first user message survives both runs");
    assert!(matches!(snapshot_action(&out.report), Some(Action::Snapshot { updated: true, .. })));
}

#[test]
fn an_update_over_several_chunks_consolidates_with_the_previous_summary() {
    let config = bytes_config(1000, 3000);
    let first = run(&session(20), &config, &FixedSummarizer::new("FIRST"));
    let mut chain = first.messages.clone();
    chain.extend((20..60).flat_map(turn));
    let s = labelled();
    let recorded = RefCell::new(Vec::new());
    let spy = FnSummarizer(|r: SummaryRequest| {
        recorded.borrow_mut().push(r.clone());
        (s.0)(r)
    });
    let out = run(&chain, &config, &spy);
    strict(&out.messages);
    let requests = recorded.into_inner();
    let chunks = requests.iter().filter(|r| r.kind == RequestKind::Chunk).count();
    assert!(chunks >= 2);
    assert!(requests.iter().filter(|r| r.kind == RequestKind::Chunk).all(|r| !r.transcript.contains("FIRST")));
    let consolidation = requests.iter().find(|r| r.kind == RequestKind::Consolidate).unwrap();
    assert!(consolidation.transcript.starts_with("<previous_summary>\nFIRST\n</previous_summary>"));
}

#[test]
fn a_compacted_chain_with_nothing_new_makes_no_call() {
    for config in [bytes_config(1000, 3000), bytes_config(30, 20_000), bytes_config(8, 2500)] {
        let chain = session(30);
        let s = FixedSummarizer::new("<state_snapshot>all files inspected</state_snapshot>");
        let first = run(&chain, &config, &s);
        assert!(first.changed);
        let calls = s.calls();
        let again = run(&first.messages, &config, &s);
        assert_eq!(s.calls(), calls, "second run makes no call ({config:?})");
        assert_eq!(again.messages, first.messages);
        assert!(!again.changed);
        assert!(!needs_compaction(&first.messages, &config, Meter::default()), "{config:?}");
    }
}

// ---------------------------------------------------------------- failures

#[test]
fn a_failed_chunk_rolls_back_throws_or_keeps_the_span() {
    let mut chain = session(30);
    chain[5] = tool("read_0", "read_file", &"huge ".repeat(400));
    let config = bytes_config(1000, 3000);
    let s = FnSummarizer(|r: SummaryRequest| async move {
        if r.kind == RequestKind::Message {
            Ok("short".to_string())
        } else {
            Err(SummarizeError::failed("chunk failed"))
        }
    });
    let out = run(&chain, &config, &s);
    assert!(out.report.rolled_back);
    assert_eq!(out.messages, chain, "rollback returns the original chain");
    assert!(!out.report.errors.is_empty());
    assert!(actions(&out.report).iter().any(|a| matches!(a, Action::Failed { kind: RequestKind::Chunk, .. })));

    let throw = WindowConfig { on_error: OnError::Throw, ..config.clone() };
    assert!(matches!(try_run(&chain, &throw, &s), Err(CompactError::Summarizer(_))));

    // Partial: the tool-result summary is kept, the span stays as it was.
    let partial = WindowConfig { on_error: OnError::Partial, ..config };
    let out = run(&chain, &partial, &s);
    assert!(!out.report.rolled_back && out.changed);
    strict(&out.messages);
    assert_eq!(out.messages.len(), chain.len());
    assert_eq!(result_text(&out.messages[5]), format!("{TOOL_SUMMARY_PREFIX}\nshort"));
    assert!(restorations(&out.messages).is_empty());
}

#[test]
fn a_failed_consolidation_under_partial_keeps_the_partial_snapshots() {
    let chain = session(40);
    let s = FnSummarizer(|r: SummaryRequest| async move {
        match r.kind {
            RequestKind::Consolidate => Err(SummarizeError::failed("consolidation failed")),
            _ => Ok(format!("part {}..{}", r.range.start, r.range.end)),
        }
    });
    let config = WindowConfig { on_error: OnError::Partial, ..bytes_config(1000, 3000) };
    let out = run(&chain, &config, &s);
    strict(&out.messages);
    let r = restorations(&out.messages);
    assert_eq!(r.len(), 1);
    assert!(r[0].matches("part ").count() >= 2, "every chunk summary is carried");
    assert_eq!(out.report.errors.len(), 1);
    assert!(actions(&out.report).iter().any(|a| matches!(a, Action::Failed { kind: RequestKind::Consolidate, .. })));
}

#[test]
fn cancellation_rolls_back() {
    let chain = session(30);
    let config = bytes_config(1000, 3000);
    let controls = Controls::default();
    controls.cancel.cancel();
    let s = FixedSummarizer::new("S");
    let out = block_on(compact(&chain, &config, &s, &controls, Meter::default())).unwrap();
    assert_eq!(s.calls(), 0);
    assert!(out.report.cancelled && out.report.rolled_back);
    assert_eq!(out.messages, chain);

    // Cancelled during the chunk wave: no consolidation wave, the original back.
    let controls = Controls { concurrency: 1, ..Controls::default() };
    let cancel = controls.cancel.clone();
    let calls = Cell::new(0);
    let cancelling = FnSummarizer(|_r: SummaryRequest| {
        calls.set(calls.get() + 1);
        cancel.cancel();
        async { Ok("S".to_string()) }
    });
    let out = block_on(compact(&session(40), &config, &cancelling, &controls, Meter::default())).unwrap();
    assert_eq!(calls.get(), 1);
    assert!(out.report.cancelled && out.report.rolled_back);
    assert_eq!(out.messages, session(40));
    assert!(out.report.errors.iter().all(|e| e.kind == SummarizeErrorKind::Cancelled));
}

#[test]
fn a_summarizer_that_never_answers_is_ended_by_cancellation() {
    let controls = Controls::default();
    let cancel = controls.cancel.clone();
    let s = FnSummarizer(|r: SummaryRequest| {
        let cancel = cancel.clone();
        async move {
            if r.id == 0 {
                std::future::pending::<()>().await;
            }
            Delay(3).await;
            cancel.cancel();
            Ok("S".to_string())
        }
    });
    let chain = session(40);
    let out = block_on(compact(&chain, &bytes_config(1000, 3000), &s, &controls, Meter::default())).unwrap();
    assert!(out.report.cancelled);
    assert_eq!(out.messages, chain);
}

#[test]
fn invalid_input_is_an_error_not_a_panic() {
    let chain = vec![tool("c", "f", "a result answering nothing"), user("q")];
    let err = try_run(&chain, &WindowConfig::default(), &FixedSummarizer::new("S")).unwrap_err();
    assert!(matches!(err, CompactError::Input(_)));
    assert!(!err.code().is_empty());
}

// ---------------------------------------------------------------- real transcripts

#[test]
fn real_transcripts_compact_validly_smaller_and_idempotently() {
    let Some(files) = real_fixtures() else { return };
    let extractive = ExtractiveSummarizer::default();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let Ok((messages, _)) = parse_json(&text).and_then(|v| read_auto(&v)) else {
            println!("{name}: not a transcript, skipped");
            continue;
        };
        let before = Meter::default().total(contextfold::measure::Unit::Tokens, &messages);
        for (label, config) in [
            ("a third", WindowConfig::for_budget(Amount::Tokens((before / 3).max(200)))),
            ("window 10", WindowConfig { window: 10, ..WindowConfig::for_budget(Amount::Tokens(before.max(200))) }),
            ("bytes", WindowConfig::for_budget(Amount::Bytes((messages_size(&messages) / 4).max(800)))),
        ] {
            let name = format!("{name} ({label})");
            let out = run(&messages, &config, &extractive);
            assert!(out.report.errors.is_empty(), "{name}");
            let ast = ChainAst::parse(&out.messages).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_sizes_consistent(&ast);
            if out.changed {
                assert!(out.report.after.bytes < out.report.before.bytes, "{name}: smaller");
            }
            // The last exchange is kept (a tool result may have been summarized alone).
            let (last_in, last_out) = (messages.last().unwrap(), out.messages.last().unwrap());
            assert_eq!(last_in.role, last_out.role, "{name}");
            if last_in.role != Role::Tool {
                assert_eq!(last_in, last_out, "{name}");
            }
            // The first user message leads the first user message of the result.
            let first_in = messages.iter().find(|m| m.role == Role::User);
            let first_out = out.messages.iter().find(|m| m.role == Role::User);
            if let (Some(a), Some(b)) = (first_in, first_out) {
                assert_eq!(b.parts[..a.parts.len()], a.parts[..], "{name}: first user message verbatim");
            }
            println!(
                "{name}: {} -> {} bytes, {} -> {} messages, {} calls in {} waves",
                out.report.before.bytes,
                out.report.after.bytes,
                out.report.before.messages,
                out.report.after.messages,
                out.report.calls,
                out.report.waves
            );
            let again = run(&out.messages, &config, &extractive);
            assert_eq!(again.report.calls, 0, "{name}: second run makes no call");
            assert_eq!(again.messages, out.messages, "{name}: second run changes nothing");
        }
    }
}

// ---------------------------------------------------------------- generated chains

/// Generated chains, some tool results padded to a few KB (so phase (a) runs too).
fn generated() -> impl Strategy<Value = Vec<Message>> {
    (
        1usize..12,
        prop::collection::vec(1usize..4, 12),
        prop::collection::vec(any::<bool>(), 36),
        1usize..4,
        any::<bool>(),
        prop::collection::vec(0usize..4000, 0..8),
    )
        .prop_map(|(sections, pairs, tools, calls, all, padding)| {
            let mut chain = generate_chain(&ChainConfig {
                include_system: true,
                sections,
                pairs_per_section: pairs,
                tools_for_pairs: tools,
                tool_calls_per_pair: vec![calls; 36],
                include_all_tool_responses: all,
            });
            let tools: Vec<usize> = (0..chain.len()).filter(|&i| chain[i].role == Role::Tool).collect();
            for (k, pad) in padding.into_iter().enumerate() {
                if let Some(&i) = tools.get(k * 3 % tools.len().max(1)) {
                    if let Part::ToolResult(r) = &mut chain[i].parts[0] {
                        r.content.push(Part::text("data ".repeat(pad / 5)));
                    }
                }
            }
            chain
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generated_chains_compact_to_valid_chains(
        chain in generated(),
        window in 1usize..30,
        threshold in 100usize..3000,
        fail_every in 0usize..4,
        on_error in prop::sample::select(vec![OnError::Rollback, OnError::Partial]),
    ) {
        let s = FnSummarizer(|r: SummaryRequest| async move {
            if fail_every > 0 && r.id % (fail_every + 2) == fail_every {
                Err(SummarizeError::failed("injected"))
            } else {
                Ok(format!("<state_snapshot>summary {}..{}</state_snapshot>", r.range.start, r.range.end))
            }
        });
        let config = WindowConfig { on_error, ..bytes_config(window, threshold) };
        let out = run(&chain, &config, &s);
        if out.changed {
            let ast = ChainAst::parse(&out.messages);
            prop_assert!(ast.is_ok(), "output must parse strictly: {:?}", ast.err());
            // Roles alternate where a snapshot brought messages together (the merge is part of
            // the fold); neighbours kept from the input stay as they came.
            if actions(&out.report).iter().any(|a| matches!(a, Action::Snapshot { .. })) {
                no_same_role_neighbours(&out.messages, &chain);
            }
            prop_assert!(restorations(&out.messages).len() <= 1);
            // The first user message leads the result.
            let first = chain.iter().find(|m| m.role == Role::User).unwrap();
            let lead = out.messages.iter().find(|m| m.role == Role::User).unwrap();
            prop_assert_eq!(&lead.parts[..first.parts.len()], &first.parts[..], "first user");
        } else {
            prop_assert_eq!(&out.messages, &chain, "unchanged");
        }
        if out.report.rolled_back {
            prop_assert_eq!(&out.messages, &chain, "rolled back");
        }
        prop_assert_eq!(out.report.calls, out.report.errors.len() + (out.report.calls - out.report.errors.len()));
        // Tool-pair integrity: every kept call is answered right after it.
        for (i, m) in out.messages.iter().enumerate() {
            let ids: Vec<&str> = m.tool_calls().map(|c| c.id.as_str()).collect();
            if ids.is_empty() || !out.changed { continue; }
            let answered: Vec<&str> = out.messages[i + 1..]
                .iter()
                .take_while(|t| t.role == Role::Tool)
                .flat_map(Message::tool_results)
                .map(|r| r.call_id.as_str())
                .collect();
            for id in ids {
                prop_assert!(answered.contains(&id), "call {} unanswered", id);
            }
        }
        // A second run with nothing new makes no call once a run succeeded cleanly.
        if out.changed && out.report.errors.is_empty() {
            let ok = FixedSummarizer::new("S");
            let again = run(&out.messages, &WindowConfig { on_error: OnError::Rollback, ..config }, &ok);
            prop_assert_eq!(ok.calls(), 0, "second run calls: {}", serde_json::to_string(&out.messages).unwrap());
            prop_assert_eq!(&again.messages, &out.messages, "second run same");
        }
    }
}

#[test]
fn at_most_three_waves_at_any_budget() {
    // Long tool results, long answers and many turns, from a budget of 50 tokens up: the
    // tool results, the chunks (with levels of long texts) and the consolidation share
    // MAX_WAVES. Levels alone once took 14 waves at 50 tokens.
    let mut chain = vec![sys("You are a coding agent."), user("Port the app.")];
    for i in 0..30 {
        let id = format!("c{i}");
        chain.push(ai_calls("", &[(&id, "read_file")]));
        chain.push(tool(&id, "read_file", &format!("line {i} of a long file\n").repeat(40 + 10 * (i % 5))));
        chain.push(ai(&format!("Step {i} done. {}", "Details of the change. ".repeat(60))));
        chain.push(user(&format!("Next, step {}.", i + 1)));
    }
    // A summarizer that ignores size hints: levels never reach their goal by themselves.
    let s = FixedSummarizer::new("A summary that takes no notice of the size asked for. ".repeat(8));
    for max in [50, 100, 200, 500, 1000, 3000, 10_000] {
        let out = run(&chain, &WindowConfig::for_budget(Amount::Tokens(max)), &s);
        assert!(out.report.waves <= MAX_WAVES, "{max} tokens: {} waves", out.report.waves);
        assert!(out.report.calls > 0, "{max} tokens: compacted");
        strict(&out.messages);
    }
}

/// Messages of several participants (OpenAI `name`): the fold never joins one's request to
/// another's message (bob's latest request was sent as alice's), and a second run still
/// finds the snapshot in the first user message.
#[test]
fn participants_requests_are_never_joined() {
    let named = |name: &str, text: &str| {
        let mut m = user(text);
        m.extra.insert("name".into(), serde_json::json!(name));
        m
    };
    let mut chain = vec![sys("Group chat assistant."), named("alice", "Hi, I'm alice.")];
    for i in 0..6 {
        chain.extend(turn(i).into_iter().skip(1));
    }
    chain.push(named("bob", "bob here: delete my account"));
    let out = run(&chain, &bytes_config(4, 1200), &labelled());
    assert!(snapshot_action(&out.report).is_some(), "{:?}", out.report);
    let firsts: Vec<&Message> = out.messages.iter().filter(|m| m.role == Role::User).collect();
    assert_eq!(firsts.len(), 2, "{:?}", out.messages);
    assert_eq!(firsts[0].extra.get("name"), Some(&serde_json::json!("alice")));
    assert_eq!(restorations(&[firsts[0].clone()]).len(), 1, "the snapshot is in alice's first message");
    assert_eq!(firsts[1], chain.last().unwrap(), "bob's request as it came");
    // Found again: a second run with nothing new changes nothing.
    let again = run(&out.messages, &bytes_config(4, 1200), &labelled());
    assert_eq!(restorations(&again.messages), restorations(&out.messages));
}
