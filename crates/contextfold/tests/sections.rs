//! The sections strategy: upstream's black-box scenarios, the fixes over upstream,
//! fault injection, cancellation and waves.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use common::*;
use contextfold::ast::{ChainAst, PairKind, SUMMARIZATION_TOOL_NAME, SUMMARIZED_CONTENT_PREFIX};
use contextfold::message::{messages_size, Message, Part, Role};
use contextfold::strategy::sections::{compact, SectionsConfig};
use contextfold::strategy::{Action, CompactError, CompactResult, OnError};
use contextfold::summarize::mock::{FixedSummarizer, FnSummarizer};
use contextfold::summarize::{Controls, RequestKind, SummarizeError, SummarizeErrorKind, Summarizer, SummaryRequest};
use futures::executor::block_on;
use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Upstream's settings: every size is worth a summary (the scenarios use tiny chains).
fn upstream() -> SectionsConfig {
    SectionsConfig { min_summarize_bytes: 0, ..SectionsConfig::default() }
}

fn run<S: Summarizer>(chain: &[Message], config: &SectionsConfig, s: &S) -> CompactResult {
    block_on(compact(chain, config, s, &Controls::default())).unwrap()
}

fn kinds(messages: &[Message]) -> Vec<Vec<PairKind>> {
    let ast = ChainAst::parse(messages).unwrap();
    ast.sections().iter().map(|s| s.body().iter().map(|p| p.kind()).collect()).collect()
}

/// `n` sections, each: user question, a tool round trip, a final answer.
fn conversation(n: usize) -> Vec<Message> {
    let mut chain = vec![sys("You are a coding agent.")];
    for i in 0..n {
        let id = format!("call_{i}");
        chain.push(user(&format!("task {i}: fix the bug in module {i}")));
        chain.push(ai_calls("looking", &[(&id, "read_file")]));
        chain.push(tool(&id, "read_file", &"x".repeat(400)));
        chain.push(ai(&format!("fixed module {i}, {}", "details ".repeat(30))));
    }
    chain
}

#[test]
fn sections_are_summarized_except_the_last_n() {
    let chain = conversation(5);
    let s = FixedSummarizer::new("S");
    let config = SectionsConfig { keep_qa_sections: 2, ..upstream() };
    let out = run(&chain, &config, &s);
    assert!(out.changed);
    assert_eq!(s.calls(), 3);
    assert_eq!(out.report.calls, 3);
    assert_eq!(out.report.waves, 1, "all section summaries in one wave");
    let k = kinds(&out.messages);
    assert_eq!(k[..3], vec![vec![PairKind::Summarization]; 3]);
    assert_eq!(k[3..], vec![vec![PairKind::RequestResponse, PairKind::Completion]; 2]);
    // Kept sections come back byte-identical.
    assert_eq!(out.messages[out.messages.len() - 8..], chain[chain.len() - 8..]);
    // Requests carry kind, range and the user's task; reasoning never appears.
    let requests = s.requests.borrow();
    assert!(requests.iter().all(|r| r.kind == RequestKind::Section && r.wave == 0));
    assert_eq!((requests[0].range.start, requests[0].range.end), (2, 5));
    assert!(requests[0].prompt().contains("task 0: fix the bug"));
    assert_eq!(out.report.sections.len(), 3);
    assert!(matches!(out.report.sections[0].actions[0], Action::SectionSummarized { pairs: 2, .. }));
    assert!(out.report.after.bytes < out.report.before.bytes);
}

#[test]
fn completion_only_sections_become_prefixed_completions() {
    let chain = vec![user("q1"), ai(&"long answer ".repeat(20)), user("q2"), ai("a2")];
    let s = FixedSummarizer::new("short");
    let out = run(&chain, &upstream(), &s);
    assert_eq!(kinds(&out.messages), vec![vec![PairKind::Completion], vec![PairKind::Completion]]);
    // Upstream's prefixed text, sealed so that it is recognised as ours (issue 14).
    let sealed = out.messages[1].joined_text();
    assert_eq!(
        contextfold::ast::unseal(&sealed, contextfold::ast::SUMMARY_TEXT_MARK),
        Some(format!("{SUMMARIZED_CONTENT_PREFIX}short").as_str())
    );
}

/// A summarized completion as compaction writes it: prefixed and sealed.
fn summarized_ai(text: &str) -> Message {
    let text =
        contextfold::ast::seal(format!("{SUMMARIZED_CONTENT_PREFIX}{text}"), contextfold::ast::SUMMARY_TEXT_MARK);
    Message::new(
        Role::Assistant,
        vec![contextfold::message::Part::Text(contextfold::message::TextPart {
            text,
            extra: contextfold::message::Extra::new(),
        })],
    )
}

#[test]
fn already_summarized_sections_make_no_call() {
    let chain = vec![
        user("q1"),
        ai_calls("", &[("s1", SUMMARIZATION_TOOL_NAME)]),
        tool("s1", SUMMARIZATION_TOOL_NAME, "old summary"),
        user("q2"),
        summarized_ai("older summary"),
        user("q3"),
        ai("a3"),
    ];
    let s = FixedSummarizer::new("S");
    let out = run(&chain, &upstream(), &s);
    assert_eq!(s.calls(), 0);
    assert!(!out.changed);
    assert_eq!(out.messages, chain);
    assert_eq!(out.report.waves, 0);
}

#[test]
fn rotation_of_four_pairs_keeps_the_newest_within_the_reserve() {
    // Upstream scenario: header 13 B, pairs 110/110/110/10 B, limit 200 B, reserve 25%.
    // A pair of 110 bytes: call (2 + 8 + 1 + 40 args) + result (2 + 57 content; the
    // result's name is not counted, it repeats the call's).
    let pair = |i: usize| {
        let id = format!("c{i}");
        vec![Message::new(Role::Assistant, vec![call(&id, "t", &"a".repeat(40))]), tool(&id, "t", &"r".repeat(57))]
    };
    let mut chain = vec![user("13 bytes here")];
    for i in 0..3 {
        chain.extend(pair(i));
    }
    chain.push(ai("ten bytes!"));
    let ast = ChainAst::parse(&chain).unwrap();
    let sizes: Vec<usize> = ast.sections()[0].body().iter().map(|p| p.size()).collect();
    assert_eq!((ast.sections()[0].header().size(), sizes.clone()), (13, vec![110, 110, 110, 10]));

    let s = FixedSummarizer::new("S");
    let config = SectionsConfig { last_sec_bytes: 200, ..upstream() };
    let out = run(&chain, &config, &s);
    assert_eq!(s.calls(), 1);
    assert_eq!(s.requests.borrow()[0].kind, RequestKind::Rotation);
    let after = ChainAst::parse(&out.messages).unwrap();
    let body = after.sections()[0].body();
    assert_eq!(body.len(), 3, "[summary, P2, P3]");
    assert_eq!(body[0].kind(), PairKind::Summarization);
    assert_eq!(body[1].messages(), ast.sections()[0].body()[2].messages());
    assert_eq!(body[2].messages(), ast.sections()[0].body()[3].messages());
    // Nothing new: a second run makes no call (the lone summary is not re-summarized).
    let again = run(&out.messages, &config, &s);
    assert_eq!(s.calls(), 1);
    assert_eq!(again.messages, out.messages);
}

#[test]
fn only_the_oversized_middle_pair_is_summarized() {
    let chain = vec![
        user("q"),
        ai_calls("", &[("a", "read")]),
        tool("a", "read", "small"),
        ai_calls("", &[("b", "read")]),
        tool("b", "read", &"z".repeat(20 * 1024)),
        ai_calls("", &[("c", "read")]),
        tool("c", "read", "small"),
        ai("done"),
    ];
    let s = FixedSummarizer::new("the big file holds z");
    let out = run(&chain, &upstream(), &s);
    assert_eq!(s.calls(), 1);
    assert_eq!(s.requests.borrow()[0].kind, RequestKind::Pair);
    assert_eq!(
        kinds(&out.messages),
        vec![vec![PairKind::RequestResponse, PairKind::Summarization, PairKind::RequestResponse, PairKind::Completion]]
    );
    assert_eq!(out.messages[..3], chain[..3]);
    assert_eq!(out.messages[5..], chain[5..]);
}

#[test]
fn a_rotation_after_a_pair_summary_names_the_input_messages_it_covers() {
    // Pair 0 (a call of two tools: 3 messages) is oversized and becomes a 2-message
    // summary pair first; the rotation then folds pairs 0 and 1. Its range is in input
    // indices (messages 1..6), not in the chain the first wave shortened (1..5).
    let chain = vec![
        user("q"),
        ai_calls("", &[("a", "read"), ("b", "read")]),
        tool("a", "read", &"z".repeat(10 * 1024)),
        tool("b", "read", &"z".repeat(10 * 1024)),
        ai_calls("", &[("c", "read")]),
        tool("c", "read", &"m".repeat(1000)),
        ai_calls("", &[("d", "read")]),
        tool("d", "read", &"m".repeat(1000)),
        ai("done"),
    ];
    let s = FixedSummarizer::new("S");
    let config = SectionsConfig { last_sec_bytes: 2000, ..upstream() };
    run(&chain, &config, &s);
    let requests = s.requests.borrow();
    let ranges: Vec<_> = requests.iter().map(|r| (r.kind, r.range.start, r.range.end)).collect();
    assert_eq!(ranges, vec![(RequestKind::Pair, 1, 4), (RequestKind::Rotation, 1, 6)]);
}

#[test]
fn the_last_pair_is_never_summarized_even_when_huge() {
    let chain = vec![user("q"), ai_calls("", &[("a", "read")]), tool("a", "read", &"z".repeat(100_000))];
    let s = FixedSummarizer::new("S");
    let out = run(&chain, &upstream(), &s);
    assert_eq!(s.calls(), 0);
    assert_eq!(out.messages, chain);
}

#[test]
fn last_pair_with_reasoning_keeps_type_size_and_reasoning() {
    let mut thinking = ai_calls("", &[("z", "read")]);
    thinking.parts.insert(0, reasoning("deep thought", Some("EqQCsig")));
    let mut chain = vec![user("q")];
    for i in 0..4 {
        let id = format!("p{i}");
        chain.push(ai_calls("", &[(&id, "read")]));
        chain.push(tool(&id, "read", &"y".repeat(3000)));
    }
    chain.push(thinking.clone());
    chain.push(tool("z", "read", "last result"));
    let s = FixedSummarizer::new("S");
    let config = SectionsConfig { last_sec_bytes: 4000, ..upstream() };
    let out = run(&chain, &config, &s);
    assert_eq!(s.calls(), 1);
    assert_eq!(out.messages[out.messages.len() - 2..], [thinking, tool("z", "read", "last result")]);
    let ast = ChainAst::parse(&out.messages).unwrap();
    let last = ast.sections()[0].body().last().unwrap();
    assert_eq!(last.kind(), PairKind::RequestResponse);
    assert_eq!(last.size(), ChainAst::parse(&chain).unwrap().sections()[0].body().last().unwrap().size());
}

#[test]
fn summary_of_signed_tool_calls_gets_the_fake_signature() {
    let mut signed = ai_calls("", &[("a", "read")]);
    if let Part::ToolCall(c) = &mut signed.parts[1] {
        c.signature = Some("gemini-thought".into());
    }
    let chain = vec![user("q1"), signed, tool("a", "read", &"r".repeat(500)), ai("ok"), user("q2"), ai("a2")];
    let s = FixedSummarizer::new("S");
    let out = run(&chain, &upstream(), &s);
    let call = out.messages[1].tool_calls().next().unwrap();
    assert_eq!(call.name, SUMMARIZATION_TOOL_NAME);
    assert_eq!(call.signature.as_deref(), Some(contextfold::ast::FAKE_REASONING_SIGNATURE));
}

fn qa_chain(n: usize) -> Vec<Message> {
    let mut chain = vec![sys("system prompt")];
    for i in 0..n {
        chain.push(user(&format!("question {i}")));
        chain.push(ai(&format!("answer {i} {}", "words ".repeat(10))));
    }
    chain
}

#[test]
fn qa_over_count_folds_older_sections_into_one() {
    let chain = qa_chain(8);
    let s = FixedSummarizer::new("QA");
    let config = SectionsConfig { use_qa: true, max_qa_sections: 3, ..upstream() };
    let out = run(&chain, &config, &s);
    let ast = ChainAst::parse(&out.messages).unwrap();
    // Upstream keeps older sections while fewer than max_qa_sections are kept, so
    // the summary section comes on top of three kept ones.
    assert_eq!(ast.sections().len(), 4);
    let first = &ast.sections()[0];
    assert_eq!(first.header().system(), &[sys("system prompt")]);
    let human = first.header().human().unwrap();
    assert_eq!(human.parts.len(), 5, "merged user messages of the five folded sections");
    assert_eq!(first.body().len(), 1);
    assert!(first.body()[0].is_summarized());
    assert!(ast.sections()[1..].iter().all(|s| s.header().system().is_empty()));
    // Phase 0 summarized 7 sections in one wave, QA made one call in a second wave.
    assert_eq!(out.report.calls, 7 + 1);
    assert_eq!(out.report.waves, 2);
    // Idempotent: nothing new, no call, same output, twice over.
    let calls = s.calls();
    let second = run(&out.messages, &config, &s);
    let third = run(&second.messages, &config, &s);
    assert_eq!(s.calls(), calls);
    assert_eq!(second.messages, out.messages);
    assert_eq!(third.messages, out.messages);
}

#[test]
fn qa_over_bytes_with_summarized_humans_runs_both_calls_in_one_wave() {
    let chain = qa_chain(6);
    let total = contextfold::message::messages_size(&chain);
    let s = FixedSummarizer::new("QA");
    let config =
        SectionsConfig { use_qa: true, summ_human_in_qa: true, max_qa_bytes: 200, keep_qa_sections: 2, ..upstream() };
    let out = run(&chain, &config, &s);
    let requests = s.requests.borrow();
    let qa: Vec<&SummaryRequest> =
        requests.iter().filter(|r| matches!(r.kind, RequestKind::QaAi | RequestKind::QaHuman)).collect();
    assert_eq!(qa.len(), 2);
    assert_eq!(qa[0].wave, qa[1].wave, "human and AI QA summaries in the same wave");
    let ast = ChainAst::parse(&out.messages).unwrap();
    assert_eq!(ast.sections()[0].header().human().unwrap().joined_text(), "QA");
    assert!(ast.size() < total);
}

#[test]
fn every_error_is_collected_and_the_default_rolls_back() {
    let chain = conversation(6);
    let fail_all =
        FnSummarizer(|r: SummaryRequest| async move { Err(SummarizeError::failed(format!("down {}", r.id))) });
    let out = run(&chain, &upstream(), &fail_all);
    assert!(!out.changed && out.report.rolled_back);
    assert_eq!(out.messages, chain);
    assert_eq!(out.report.errors.len(), 5, "none lost");
    let ids: Vec<usize> = out.report.errors.iter().map(|e| e.request).collect();
    assert_eq!(ids, vec![0, 1, 2, 3, 4]);
    assert!(out.report.sections.iter().all(|s| matches!(s.actions[..], [Action::Failed { .. }])));
}

#[test]
fn failing_kth_call_with_throw_and_partial() {
    let chain = conversation(4);
    let k = Cell::new(0usize);
    let fail_second = FnSummarizer(|_r: SummaryRequest| {
        let n = k.get();
        k.set(n + 1);
        async move {
            if n == 1 {
                Err(SummarizeError::failed("rate limited"))
            } else {
                Ok("S".to_string())
            }
        }
    });
    let config = SectionsConfig { on_error: OnError::Throw, ..upstream() };
    let err = block_on(compact(&chain, &config, &fail_second, &Controls::default())).unwrap_err();
    let CompactError::Summarizer(errors) = &err else { panic!("{err:?}") };
    assert_eq!(errors.len(), 1);
    assert_eq!(err.code(), "summarizer_failed");

    k.set(0);
    let config = SectionsConfig { on_error: OnError::Partial, ..upstream() };
    let out = run(&chain, &config, &fail_second);
    assert!(out.changed && !out.report.rolled_back);
    assert_eq!(out.report.errors.len(), 1);
    let k2 = kinds(&out.messages);
    assert_eq!(k2[1], vec![PairKind::RequestResponse, PairKind::Completion], "the failed section is kept whole");
    assert_eq!(k2[0], vec![PairKind::Summarization]);
    ChainAst::parse(&out.messages).unwrap();
}

#[test]
fn empty_answers_are_errors() {
    let chain = conversation(2);
    let blank = FixedSummarizer::new("  \n");
    let out = run(&chain, &upstream(), &blank);
    assert_eq!(out.messages, chain);
    assert_eq!(out.report.errors[0].kind, SummarizeErrorKind::Empty);
}

#[test]
fn a_summary_larger_than_its_content_is_cut_to_fit() {
    // Upstream kept a 489-byte summary of 207 bytes. Issue 14: it was discarded, and
    // asked for again on every run. It is cut to fit (reported), and a rerun is free.
    let chain = vec![user("q1"), ai(&"x".repeat(207)), user("q2"), ai("a2")];
    let s = FixedSummarizer::new("y".repeat(489));
    let out = run(&chain, &upstream(), &s);
    assert_eq!(s.calls(), 1);
    assert!(out.changed);
    assert!(messages_size(&out.messages) < messages_size(&chain));
    assert!(matches!(out.report.sections[0].actions[0], Action::Truncated { message: None, bytes_before: 489, .. }));
    assert!(out.report.sections[0].actions.iter().all(|a| !matches!(a, Action::NoGain { .. })));
    let again = FixedSummarizer::new("y".repeat(489));
    run(&out.messages, &upstream(), &again);
    assert_eq!(again.calls(), 0);
}

#[test]
fn cancellation_before_and_between_waves() {
    let chain = conversation(4);
    let controls = Controls::default();
    controls.cancel.cancel();
    let s = FixedSummarizer::new("S");
    let out = block_on(compact(&chain, &upstream(), &s, &controls)).unwrap();
    assert_eq!(s.calls(), 0);
    assert!(out.report.cancelled && out.report.rolled_back);
    assert_eq!(out.messages, chain);

    // Cancelled during the first wave: no second wave, original chain back.
    let controls = Controls { concurrency: 1, ..Controls::default() };
    let cancel = controls.cancel.clone();
    let calls = Cell::new(0);
    let cancelling = FnSummarizer(|_r: SummaryRequest| {
        calls.set(calls.get() + 1);
        cancel.cancel();
        async { Ok("S".to_string()) }
    });
    let mut big = conversation(4);
    big.push(ai_calls("", &[("late", "read")]));
    big.push(tool("late", "read", &"q".repeat(20_000)));
    big.push(ai("end"));
    let out = block_on(compact(&big, &upstream(), &cancelling, &controls)).unwrap();
    assert_eq!(calls.get(), 1, "calls after the cancel are not issued");
    assert!(out.report.cancelled);
    assert_eq!(out.messages, big);
    // The report counts the one call made; the calls never made are no failures.
    assert_eq!(out.report.calls, 1);
    assert!(out.report.errors.is_empty(), "{:?}", out.report.errors);
    assert!(out.report.sections.iter().flat_map(|s| &s.actions).all(|a| !matches!(a, Action::Failed { .. })));
}

#[test]
fn a_cancelled_compaction_reports_only_the_calls_made() {
    // Aborted while the first two calls (concurrency 2) are in flight: two calls made,
    // both ended by the cancellation; the other requests were never made.
    let chain = conversation(9);
    let controls = Controls { concurrency: 2, ..Controls::default() };
    let cancel = controls.cancel.clone();
    let made = Cell::new(0);
    let s = FnSummarizer(|_r: SummaryRequest| {
        made.set(made.get() + 1);
        let cancel = cancel.clone();
        let second = made.get() == 2;
        async move {
            if second {
                cancel.cancel();
            }
            std::future::pending::<()>().await;
            Ok("S".to_string())
        }
    });
    let out = block_on(compact(&chain, &upstream(), &s, &controls)).unwrap();
    assert_eq!(made.get(), 2);
    assert!(out.report.cancelled && out.report.rolled_back);
    assert_eq!(out.report.calls, 2);
    assert_eq!(out.report.errors.len(), 2, "{:?}", out.report.errors);
    assert!(out.report.errors.iter().all(|e| e.kind == SummarizeErrorKind::Cancelled && e.request < 2));
}

/// A future that is pending once before it resolves, counting calls in flight.
struct Yield<'a> {
    polled: bool,
    live: &'a Cell<usize>,
    peak: &'a Cell<usize>,
}

impl Future for Yield<'_> {
    type Output = Result<String, SummarizeError>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if !self.polled {
            self.polled = true;
            self.live.set(self.live.get() + 1);
            self.peak.set(self.peak.get().max(self.live.get()));
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        self.live.set(self.live.get() - 1);
        Poll::Ready(Ok("S".to_string()))
    }
}

#[test]
fn independent_calls_run_concurrently_up_to_the_limit() {
    let chain = conversation(9);
    for (limit, expected_peak) in [(4, 4), (1, 1), (16, 8)] {
        let (live, peak) = (Cell::new(0), Cell::new(0));
        let s = FnSummarizer(|_r: SummaryRequest| Yield { polled: false, live: &live, peak: &peak });
        let controls = Controls { concurrency: limit, ..Controls::default() };
        let out = block_on(compact(&chain, &upstream(), &s, &controls)).unwrap();
        assert_eq!(out.report.calls, 8);
        assert_eq!(out.report.waves, 1);
        assert_eq!(peak.get(), expected_peak, "limit {limit}");
    }
}

#[test]
fn results_resolving_out_of_order_land_in_their_sections() {
    let chain = conversation(4);
    // Each answer names its request; later requests resolve first.
    let s = FnSummarizer(|r: SummaryRequest| async move {
        Delay(10 - r.id).await;
        Ok(format!("summary of {}..{}", r.range.start, r.range.end))
    });
    let out = block_on(compact(&chain, &upstream(), &s, &Controls::default()));
    let out = out.unwrap();
    let ast = ChainAst::parse(&out.messages).unwrap();
    for (i, section) in ast.sections()[..3].iter().enumerate() {
        let text = section.body()[0].tools()[0].tool_results().next().unwrap().content[0].clone();
        let start = 2 + i * 4;
        assert_eq!(text, Part::text(format!("summary of {}..{}", start, start + 3)));
    }
}

#[test]
fn content_under_the_minimum_is_not_sent_and_a_rerun_stays_free() {
    // A verbose summarizer would not beat these small answers: with the default minimum
    // they are never sent, so neither run makes a call.
    let answer = "an answer of a hundred bytes ".repeat(4);
    let chain = vec![user("q1"), ai(&answer), user("q2"), ai(&answer), user("q3"), ai("a3")];
    let s = FixedSummarizer::new("a summary that is longer than the answers it replaces ".repeat(3));
    let out = run(&chain, &SectionsConfig::default(), &s);
    assert_eq!((s.calls(), out.changed), (0, false));
    // With the minimum at zero the calls happen; the summaries are cut to fit (issue 14:
    // discarded, they were asked for again on every run), and a rerun is free.
    let out = run(&chain, &upstream(), &s);
    assert_eq!((s.calls(), out.changed), (2, true));
    let again = FixedSummarizer::new("x");
    run(&out.messages, &upstream(), &again);
    assert_eq!(again.calls(), 0);
}

#[test]
fn a_summarizer_that_never_answers_is_ended_by_cancellation() {
    let chain = conversation(5);
    let controls = Controls::default();
    let cancel = controls.cancel.clone();
    // Call 0 never resolves; call 2 cancels the compaction when it answers.
    let s = FnSummarizer(|r: SummaryRequest| {
        let cancel = cancel.clone();
        async move {
            if r.id == 0 {
                std::future::pending::<()>().await;
            }
            if r.id == 2 {
                cancel.cancel();
            }
            Ok("S".to_string())
        }
    });
    let out = block_on(compact(&chain, &upstream(), &s, &controls)).unwrap();
    assert!(out.report.cancelled && out.report.rolled_back);
    assert_eq!(out.messages, chain, "the original chain comes back");
    assert!(out.report.errors.iter().any(|e| e.request == 0 && e.kind == SummarizeErrorKind::Cancelled));
}

#[test]
fn content_no_larger_than_a_summary_pair_is_never_sent() {
    // A summarization pair costs about 210 bytes before any summary text: replacing a
    // 150-byte tool exchange can never gain, so no call is made even at minimum zero.
    let chain = vec![user("q1"), ai_calls("", &[("a", "f")]), tool("a", "f", &"r".repeat(120)), user("q2"), ai("a2")];
    let s = FixedSummarizer::new("S");
    let out = run(&chain, &upstream(), &s);
    assert_eq!((s.calls(), out.changed), (0, false));
}

/// Consecutive requests of two participants (OpenAI `name`, a group chat) read as one
/// section keep who said what: the field cannot name both, so each text says it.
#[test]
fn consecutive_requests_of_two_participants_keep_who_said_what() {
    let named = |name: &str, text: &str| {
        let mut m = Message::text(Role::User, text);
        m.extra.insert("name".into(), serde_json::json!(name));
        m
    };
    let chain = vec![named("alice", "first idea"), named("bob", "second idea"), Message::text(Role::Assistant, "ok")];
    let ast = contextfold::ast::ChainAst::parse_repair(&chain).unwrap();
    let human = ast.ast.sections()[0].header().human().unwrap();
    assert_eq!(human.joined_text(), "alice: first idea\nbob: second idea");
    assert_eq!(human.extra.get("name"), None);
}
