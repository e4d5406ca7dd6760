//! The budget strategy: keep system + recent, condense the rest, hard budget.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use common::*;
use contextfold::ast::{ChainAst, PairKind};
use contextfold::measure::{message_tokens, Amount, EstimateCounter, Meter, TokenCounter};
use contextfold::message::{Message, Part, Role};
use contextfold::repair::{validate, Provider, RepairOptions};
use contextfold::strategy::budget::{compact, BudgetConfig, CONDENSED_PREFIX};
use contextfold::strategy::run::{self, CompactOptions, StrategyConfig};
use contextfold::strategy::{Action, CompactError, CompactResult, OnError};
use contextfold::summarize::mock::{FixedSummarizer, FnSummarizer};
use contextfold::summarize::{Controls, SummarizeError, SummarizeErrorKind, Summarizer, SummaryRequest};
use contextfold::testing::{generate_chain, ChainConfig};
use futures::executor::block_on;
use proptest::prelude::*;
use std::cell::RefCell;

fn tokens(messages: &[Message]) -> usize {
    message_tokens(messages, &EstimateCounter).iter().sum()
}

fn run<S: Summarizer>(chain: &[Message], config: &BudgetConfig, s: &S) -> Result<CompactResult, CompactError> {
    block_on(compact(chain, config, s, &Controls::default(), Meter::default()))
}

/// `n` sections of a user question, a tool exchange with a 2 KB result, and an answer.
fn session(n: usize) -> Vec<Message> {
    let mut chain = vec![sys("You are a careful agent.")];
    for i in 0..n {
        let id = format!("c{i}");
        chain.push(user(&format!("step {i}: inspect file {i}")));
        chain.push(ai_calls("", &[(&id, "read_file")]));
        chain.push(tool(&id, "read_file", &format!("line {i}\n").repeat(300)));
        chain.push(ai(&format!("file {i} looks fine")));
    }
    chain
}

#[test]
fn under_budget_nothing_changes() {
    let chain = session(2);
    let s = FixedSummarizer::new("S");
    let out = run(&chain, &BudgetConfig::new(Amount::Tokens(100_000)), &s).unwrap();
    assert_eq!((out.changed, s.calls()), (false, 0));
    assert_eq!(out.messages, chain);
}

#[test]
fn older_sections_are_condensed_in_one_wave_and_the_result_fits() {
    let chain = session(6);
    let max = 3000;
    assert!(tokens(&chain) > max);
    let s = FixedSummarizer::new("earlier: files were inspected and looked fine");
    let out = run(&chain, &BudgetConfig::new(Amount::Tokens(max)), &s).unwrap();
    assert!(tokens(&out.messages) <= max, "{} > {max}", tokens(&out.messages));
    assert_eq!(out.report.waves, 1);
    let ast = ChainAst::parse(&out.messages).unwrap();
    // Leading run: the system prompt, then condensed summaries as system messages.
    let systems = ast.sections()[0].header().system();
    assert_eq!(systems[0], sys("You are a careful agent."));
    assert!(systems.len() > 1, "condensed summaries are kept when they fit");
    assert!(systems[1..].iter().all(|m| m.joined_text().starts_with(CONDENSED_PREFIX)));
    // The most recent exchange is kept verbatim.
    assert_eq!(out.messages.last(), chain.last());
    assert!(out.report.sections.iter().any(|s| s.actions.iter().any(|a| matches!(a, Action::Condensed { .. }))));
}

/// Compacted run after run as it grows (a history), the condensed history stays one
/// summary: each run's oldest chunk updates the summaries the run before left, and
/// replaces them. They piled up before, one per run, until they alone were over the
/// budget and every run failed.
#[test]
fn condensed_summaries_are_condensed_again_run_after_run() {
    // As its own system messages, and as blocks of one system field (Anthropic, Gemini).
    for one_system in [false, true] {
        condensed_again(one_system);
    }
}

fn condensed_again(one_system: bool) {
    let all = session(40);
    let max = 3000;
    let config = BudgetConfig::new(Amount::Tokens(max));
    let updated = RefCell::new(0usize);
    let s = FnSummarizer(|r: SummaryRequest| {
        if r.transcript.contains("<previous_summary>") {
            *updated.borrow_mut() += 1;
        }
        async move { Ok(format!("Condensed: {} bytes of history.", r.transcript.len())) }
    });
    let mut held: Vec<Message> = Vec::new();
    let mut runs = 0;
    for m in all {
        let ends_turn = m.role == Role::Assistant && !m.has_tool_calls();
        held.push(m);
        if !ends_turn {
            continue;
        }
        if one_system {
            let systems = held.iter().take_while(|m| m.role == Role::System).count();
            let parts: Vec<_> = held.drain(..systems).flat_map(|m| m.parts).collect();
            held.insert(0, Message::new(Role::System, parts));
        }
        let out = run(&held, &config, &s).unwrap_or_else(|e| panic!("after {} messages: {e}", held.len()));
        assert!(tokens(&out.messages) <= max);
        let condensed = out
            .messages
            .iter()
            .flat_map(|m| &m.parts)
            .filter(|p| matches!(p, Part::Text(t) if t.text.starts_with(CONDENSED_PREFIX)))
            .count();
        assert!(condensed <= 2, "{condensed} condensed summaries after {} messages", held.len());
        if out.changed {
            runs += 1;
        }
        held = out.messages;
    }
    assert!(runs >= 5, "{runs} compactions");
    assert!(*updated.borrow() >= runs - 1, "the earlier summary was updated by {} of {runs}", updated.borrow());
}

#[test]
fn a_cut_inside_a_section_keeps_its_user_message_and_whole_exchanges() {
    // One long section: the kept window starts mid-section; keep_recent points at a
    // tool result, so the window extends back to its call.
    let mut chain = vec![sys("s"), user("do the whole job")];
    for i in 0..8 {
        let id = format!("c{i}");
        chain.push(ai_calls("", &[(&id, "run")]));
        chain.push(tool(&id, "run", &"output ".repeat(200)));
    }
    let s = FixedSummarizer::new("ran seven commands, all fine");
    let config = BudgetConfig { keep_recent: 1, ..BudgetConfig::new(Amount::Tokens(1200)) };
    let out = run(&chain, &config, &s).unwrap();
    let ast = ChainAst::parse(&out.messages).unwrap();
    assert_eq!(ast.sections().len(), 1);
    let section = &ast.sections()[0];
    assert_eq!(section.header().human(), Some(&user("do the whole job")));
    let kinds: Vec<PairKind> = section.body().iter().map(|p| p.kind()).collect();
    assert_eq!(kinds[0], PairKind::Summarization);
    assert!(kinds[1..].iter().all(|k| *k == PairKind::RequestResponse));
    // The budget keeps more than the one-message minimum, and never a partial exchange.
    assert!(kinds.len() >= 3, "{kinds:?}");
    assert_eq!(out.messages[out.messages.len() - 2..], chain[chain.len() - 2..]);
    assert!(tokens(&out.messages) <= 1200);
}

/// A `keep_recent` beyond the chain's length asks to keep everything: when that does not
/// fit, the kept window shrinks down to the latest exchange and the rest is condensed,
/// as with a smaller one. It once kept every message (no start was at or before the
/// chain's start, the system prompt taking it), so nothing was condensed.
#[test]
fn a_keep_recent_beyond_the_chain_still_condenses_what_does_not_fit() {
    let mut chain = session(6);
    chain.push(user("now what?"));
    let max = 1000;
    for keep in [2, chain.len(), 50] {
        let s = FixedSummarizer::new("earlier: files were inspected and looked fine");
        let config = BudgetConfig { keep_recent: keep, ..BudgetConfig::new(Amount::Tokens(max)) };
        let out = run(&chain, &config, &s).unwrap_or_else(|e| panic!("keep_recent {keep}: {e}"));
        assert!(s.calls() > 0, "keep_recent {keep}: nothing condensed");
        assert!(tokens(&out.messages) <= max, "keep_recent {keep}: {} > {max}", tokens(&out.messages));
        assert_eq!(out.messages.last(), chain.last());
    }
    // Everything kept when everything fits, whatever `keep_recent` asks.
    let s = FixedSummarizer::new("S");
    let config = BudgetConfig { keep_recent: 50, ..BudgetConfig::new(Amount::Tokens(100_000)) };
    let out = run(&chain, &config, &s).unwrap();
    assert_eq!((out.changed, s.calls()), (false, 0));
}

#[test]
fn summaries_too_large_are_dropped_oldest_first_under_partial() {
    // Each summary is smaller than its chunk (else it would not be used), but together
    // they do not fit.
    let chain = session(6);
    let max = 1500;
    let s = FixedSummarizer::new("a very detailed summary ".repeat(85));
    let config = BudgetConfig { on_error: OnError::Partial, ..BudgetConfig::new(Amount::Tokens(max)) };
    let out = run(&chain, &config, &s).unwrap();
    assert!(tokens(&out.messages) <= max);
    let trimmed = out.report.sections.iter().flat_map(|s| &s.actions).filter(|a| matches!(a, Action::Trimmed { .. }));
    assert!(trimmed.count() >= 1);
    ChainAst::parse(&out.messages).unwrap();
    assert_eq!(out.report.after.tokens, tokens(&out.messages));
}

#[test]
fn what_is_dropped_to_fit_is_counted_off_exactly_at_every_budget() {
    // Each drop takes its own cost off the count made once: at every budget the result
    // fits by a full count, and the report's totals are those of the chains.
    let chain = session(8);
    let s = FixedSummarizer::new("a detailed summary ".repeat(40));
    let mut trimmed = 0;
    for max in (400..4000).step_by(150) {
        let config = BudgetConfig { on_error: OnError::Partial, ..BudgetConfig::new(Amount::Tokens(max)) };
        let Ok(out) = run(&chain, &config, &s) else { continue };
        assert!(tokens(&out.messages) <= max, "{max}: {}", tokens(&out.messages));
        assert_eq!(out.report.after.tokens, tokens(&out.messages), "{max}");
        assert_eq!(out.report.before.tokens, tokens(&chain), "{max}");
        // Summaries are cut (truncated) before anything is dropped (trimmed).
        trimmed += out
            .report
            .sections
            .iter()
            .flat_map(|s| &s.actions)
            .filter(|a| matches!(a, Action::Trimmed { .. } | Action::Truncated { .. }))
            .count();
    }
    assert!(trimmed >= 3, "{trimmed}");
}

#[test]
fn a_budget_that_cannot_be_met_says_why() {
    let chain = vec![sys(&"policy ".repeat(2000)), user("q"), ai("a"), user("q2"), ai("a2")];
    let s = FixedSummarizer::new("S");
    let err = run(&chain, &BudgetConfig::new(Amount::Tokens(500)), &s).unwrap_err();
    assert_eq!(err.code(), "budget_exceeded");
    assert!(err.to_string().contains("the system prompt alone is"), "{err}");

    let chain = vec![sys("s"), user("q"), ai("a"), user("paste"), ai(&"huge answer ".repeat(2000))];
    let err = run(&chain, &BudgetConfig::new(Amount::Tokens(500)), &s).unwrap_err();
    assert!(err.to_string().contains("the latest exchange alone is"), "{err}");
}

#[test]
fn summarizer_failures_fail_the_call_or_trim_within_budget() {
    let chain = session(6);
    assert!(tokens(&chain) > 3000);
    let fail = FnSummarizer(|_r: SummaryRequest| async { Err(SummarizeError::failed("down")) });
    // Rollback cannot return the original: it is over the budget. The call fails instead.
    let err = run(&chain, &BudgetConfig::new(Amount::Tokens(3000)), &fail).unwrap_err();
    assert_eq!(err.code(), "summarizer_failed");
    assert!(err.to_string().contains("down"), "{err}");

    let config = BudgetConfig { on_error: OnError::Partial, ..BudgetConfig::new(Amount::Tokens(3000)) };
    let out = run(&chain, &config, &fail).unwrap();
    assert!(tokens(&out.messages) <= 3000);
    assert!(!out.report.errors.is_empty() && !out.report.rolled_back);
    ChainAst::parse(&out.messages).unwrap();
    // What went is listed where it was (the report said only that the calls failed).
    for section in out.report.sections.iter().filter(|s| s.actions.iter().any(|a| matches!(a, Action::Failed { .. }))) {
        let dropped = Action::Trimmed { what: "content whose summary failed" };
        assert!(section.actions.contains(&dropped), "{:?}", section.actions);
    }
    assert!(out.report.sections.iter().any(|s| s.actions.iter().any(|a| matches!(a, Action::Failed { .. }))));

    let config = BudgetConfig { on_error: OnError::Throw, ..BudgetConfig::new(Amount::Tokens(3000)) };
    assert_eq!(run(&chain, &config, &fail).unwrap_err().code(), "summarizer_failed");
}

#[test]
fn a_summary_not_smaller_than_its_content_is_never_used() {
    let chain = session(6);
    // Answers with more text than any chunk holds.
    let huge = FnSummarizer(|r: SummaryRequest| async move { Ok("x".repeat(r.prompt().len() * 2)) });
    // Content no summary shrinks is kept as it is (issue 14): here that does not fit.
    let err = run(&chain, &BudgetConfig::new(Amount::Tokens(3000)), &huge).unwrap_err();
    assert_eq!(err.code(), "budget_exceeded", "{err}");
    // Trimming instead: the oversized summaries are not in the result, which fits.
    let config = BudgetConfig { on_error: OnError::Partial, ..BudgetConfig::new(Amount::Tokens(3000)) };
    let out = run(&chain, &config, &huge).unwrap();
    assert!(tokens(&out.messages) <= 3000);
    assert!(out.messages.iter().all(|m| !m.joined_text().contains("xxxxxxxx")), "an oversized summary was kept");
    assert!(out.report.errors.iter().all(|e| e.kind == SummarizeErrorKind::InvalidResult));
    ChainAst::parse(&out.messages).unwrap();
}

/// A counter that counts every text as 1 token per byte: the strategy must use it.
struct Bytes;

impl TokenCounter for Bytes {
    fn count_texts(&self, texts: &[&str]) -> Vec<usize> {
        texts.iter().map(|t| t.len()).collect()
    }
}

#[test]
fn the_budget_is_in_the_caller_s_tokens() {
    let chain = session(4);
    let s = FixedSummarizer::new("S");
    let max = 4000;
    let out = block_on(compact(
        &chain,
        &BudgetConfig::new(Amount::Tokens(max)),
        &s,
        &Controls::default(),
        Meter::new(&Bytes),
    ))
    .unwrap();
    assert!(message_tokens(&out.messages, &Bytes).iter().sum::<usize>() <= max);
    // With the estimate (about 4 bytes a token) the same chain needs no change.
    assert!(!run(&chain, &BudgetConfig::new(Amount::Tokens(max)), &s).unwrap().changed);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn output_fits_the_budget_or_fails_with_a_reason(
        sections in 1usize..7,
        pairs in 1usize..4,
        tools in any::<bool>(),
        max in 20usize..2000,
        keep in 1usize..6,
        summary_len in 1usize..400,
    ) {
        let chain = generate_chain(&ChainConfig {
            include_system: true,
            sections,
            pairs_per_section: vec![pairs; sections],
            tools_for_pairs: vec![tools; sections * pairs],
            tool_calls_per_pair: vec![2; sections * pairs],
            include_all_tool_responses: true,
        });
        let s = FixedSummarizer::new("x".repeat(summary_len));
        let config = BudgetConfig { keep_recent: keep, ..BudgetConfig::new(Amount::Tokens(max)) };
        match run(&chain, &config, &s) {
            Ok(out) => {
                prop_assert!(tokens(&out.messages) <= max, "{} > {max}", tokens(&out.messages));
                prop_assert!(ChainAst::parse(&out.messages).is_ok());
                prop_assert_eq!(out.messages.last(), chain.last());
                prop_assert!(out.messages.iter().filter(|m| m.role == Role::System).count() >= 1);
            }
            // Content under 512 bytes is never sent, so these summaries always gain.
            Err(e) => prop_assert_eq!(e.code(), "budget_exceeded", "{}", e),
        }
    }

    /// The same guarantee through the one entry point, after the provider repair pass
    /// (which may merge, answer or add messages), for every provider.
    #[test]
    fn the_guarantee_holds_after_the_provider_repair_pass(
        sections in 1usize..6,
        pairs in 1usize..4,
        tools in any::<bool>(),
        max in 20usize..2000,
        provider in prop::sample::select(vec![Provider::Generic, Provider::OpenAi, Provider::Anthropic, Provider::Gemini]),
    ) {
        let chain = generate_chain(&ChainConfig {
            include_system: true,
            sections,
            pairs_per_section: vec![pairs; sections],
            tools_for_pairs: vec![tools; sections * pairs],
            tool_calls_per_pair: vec![2; sections * pairs],
            include_all_tool_responses: true,
        });
        let options = CompactOptions {
            strategy: StrategyConfig::Budget(BudgetConfig::new(Amount::Tokens(max))),
            repair: RepairOptions { provider, ..RepairOptions::default() },
            ..Default::default()
        };
        let s = FixedSummarizer::new("S");
        match block_on(run::compact(&chain, &options, &s, &Controls::default(), Meter::default())) {
            Ok(out) => {
                prop_assert!(tokens(&out.messages) <= max, "{} > {max}", tokens(&out.messages));
                prop_assert!(validate(&out.messages, provider).is_empty());
            }
            Err(e) => prop_assert_eq!(e.code(), "budget_exceeded"),
        }
    }
}

#[test]
fn the_budget_can_be_given_in_bytes() {
    let chain = session(6);
    let s = FixedSummarizer::new("S");
    let max = 6000;
    let out = run(&chain, &BudgetConfig::new(Amount::Bytes(max)), &s).unwrap();
    assert!(out.changed);
    let bytes: usize = out.messages.iter().map(Message::size).sum();
    assert!(bytes <= max, "{bytes} > {max}");
    ChainAst::parse(&out.messages).unwrap();
    let err = run(&[sys(&"policy ".repeat(200)), user("q"), ai("a")], &BudgetConfig::new(Amount::Bytes(100)), &s)
        .unwrap_err();
    assert!(err.to_string().contains("bytes"), "{err}");
}

/// Issue 14: a long first question was dropped unsummarized under the default rollback
/// (`[Q2]`, changed, no call). It is condensed instead.
#[test]
fn content_is_condensed_before_anything_is_dropped() {
    let chain = vec![user(&format!("Q1 {}", "word ".repeat(20000))), ai("A1"), user("Q2")];
    let s = FixedSummarizer::new("the user asked a long question Q1, answered with A1");
    let out = run(&chain, &BudgetConfig::new(Amount::Tokens(5500)), &s).unwrap();
    assert_eq!(s.calls(), 1, "{:?}", out.messages);
    assert!(tokens(&out.messages) <= 5500);
    assert_eq!(out.messages.last(), chain.last());
    assert!(out.messages.iter().any(|m| m.joined_text().contains("asked a long question")), "{:?}", out.messages);
    assert!(out.report.sections.iter().flat_map(|s| &s.actions).all(|a| !matches!(a, Action::Trimmed { .. })));
}

/// Dropping is only for `Partial`: a result that does not fit otherwise fails the call.
#[test]
fn dropping_content_needs_partial() {
    let chain = session(6);
    let s = FixedSummarizer::new("a very detailed summary ".repeat(85));
    let err = run(&chain, &BudgetConfig::new(Amount::Tokens(1500)), &s).unwrap_err();
    assert_eq!(err.code(), "budget_exceeded");
    assert!(err.to_string().contains("partial"), "{err}");
}

/// Issue 14: one chunk that will not shrink sank the whole call (`summarizer_failed`)
/// though the budget still fit with it kept as it is.
#[test]
fn one_chunk_that_will_not_shrink_does_not_sink_the_call() {
    let chain = session(12);
    let max = tokens(&chain) * 6 / 10;
    let config = BudgetConfig::new(Amount::Tokens(max));
    // The smallest chunk of a first run is the one that will not shrink.
    let probe = FixedSummarizer::new("all fine");
    run(&chain, &config, &probe).unwrap();
    let requests = probe.requests.borrow();
    assert!(requests.len() > 1, "{}", requests.len());
    let smallest = requests.iter().map(|r| r.transcript.clone()).min_by_key(String::len).unwrap();
    let s = FnSummarizer(|r: SummaryRequest| {
        let grow = r.transcript == smallest;
        async move { Ok(if grow { "y".repeat(r.prompt().len() * 2) } else { "all fine".to_string() }) }
    });
    let out = run(&chain, &config, &s).unwrap();
    assert!(tokens(&out.messages) <= max);
    assert!(out.report.errors.is_empty(), "{:?}", out.report.errors);
    let actions: Vec<&Action> = out.report.sections.iter().flat_map(|s| &s.actions).collect();
    assert!(actions.iter().any(|a| matches!(a, Action::NoGain { .. })), "{actions:?}");
    assert!(actions.iter().any(|a| matches!(a, Action::Condensed { .. })), "{actions:?}");
    assert!(out.messages.iter().all(|m| !m.joined_text().contains("yyyy")));
    ChainAst::parse(&out.messages).unwrap();
}
