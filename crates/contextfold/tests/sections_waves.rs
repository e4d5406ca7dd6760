//! The wave bound of `sections` (README: "Every strategy takes at most 3 waves of
//! summarizer calls at budgets from 50 tokens up"): over generated chains, with QA
//! folding on and off, budgets from 50 tokens up and any other setting, and summaries
//! that keep to `targetBytes` or overshoot it, a compaction takes at most three waves.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use common::{ai, ai_calls, sys, tool, user};
use contextfold::measure::{Amount, Meter};
use contextfold::message::Message;
use contextfold::strategy::run::{compact, CompactOptions, StrategyConfig};
use contextfold::strategy::sections::SectionsConfig;
use contextfold::strategy::OnError;
use contextfold::summarize::mock::FnSummarizer;
use contextfold::summarize::{Controls, RequestKind, SummaryRequest};
use futures::executor::block_on;
use proptest::prelude::*;
use std::cell::RefCell;

const WORDS: &[&str] = &[
    "the",
    "build",
    "fails",
    "because",
    "config",
    "loader",
    "reads",
    "an",
    "empty",
    "path",
    "src/main.rs",
    "E0308",
    "sqlite",
    "wal",
    "migration",
    "friday",
    "handler",
    "returns",
    "500",
    "retry",
    "backoff",
    "token",
];

fn text(seed: usize, len: usize) -> String {
    let mut s = String::new();
    let mut x = seed.wrapping_mul(2_654_435_761).wrapping_add(7);
    while s.len() < len {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        s.push_str(WORDS[(x >> 8) % WORDS.len()]);
        s.push(if (x >> 4) % 11 == 0 { '\n' } else { ' ' });
    }
    s.truncate(len);
    s
}

/// One body pair: a plain answer of `len` bytes, or a call of `calls` tools whose
/// results take `len` bytes each.
#[derive(Debug, Clone, Copy)]
struct Pair {
    calls: usize,
    len: usize,
}

fn pair() -> impl Strategy<Value = Pair> {
    (0usize..3, prop_oneof![5usize..80, 80usize..1500, 1500usize..6000]).prop_map(|(calls, len)| Pair { calls, len })
}

/// Sections of a request and 1 to 5 pairs, sizes from a few bytes to several KiB.
fn chain() -> impl Strategy<Value = Vec<Message>> {
    (any::<bool>(), prop::collection::vec((5usize..200, prop::collection::vec(pair(), 1..6)), 1..8)).prop_map(
        |(system, sections)| {
            let mut out = Vec::new();
            if system {
                out.push(sys("You are a coding agent."));
            }
            for (s, (request, pairs)) in sections.iter().enumerate() {
                out.push(user(&format!("request {s}: {}", text(s, *request))));
                for (p, pair) in pairs.iter().enumerate() {
                    let seed = s * 100 + p;
                    if pair.calls == 0 {
                        out.push(ai(&text(seed, pair.len)));
                        continue;
                    }
                    let ids: Vec<String> = (0..pair.calls).map(|c| format!("call_{s}_{p}_{c}")).collect();
                    let calls: Vec<(&str, &str)> = ids.iter().map(|id| (id.as_str(), "read_file")).collect();
                    out.push(ai_calls("", &calls));
                    for (c, id) in ids.iter().enumerate() {
                        out.push(tool(id, "read_file", &text(seed * 10 + c, pair.len)));
                    }
                }
            }
            out
        },
    )
}

/// How summaries relate to the request's `targetBytes`: a share of it (within), or
/// beyond it.
#[derive(Debug, Clone, Copy)]
enum Answer {
    Within(usize),
    Over(usize),
}

fn answer() -> impl Strategy<Value = Answer> {
    prop_oneof![(1usize..=10).prop_map(Answer::Within), (2usize..6).prop_map(Answer::Over)]
}

fn summary(a: Answer, r: &SummaryRequest) -> String {
    let len = match a {
        Answer::Within(tenths) => (r.target_bytes * tenths / 10).max(1),
        Answer::Over(times) => r.target_bytes * times + 100,
    };
    text(r.transcript.len(), len)
}

/// The settings `compact(messages, { maxTokens, strategy: { name: "sections", ... } })`
/// gives: those of the budget, QA folding as asked, some others as a caller may set.
fn budget_config() -> impl Strategy<Value = SectionsConfig> {
    (
        prop_oneof![50usize..400, 400usize..5000, 5000usize..60_000],
        any::<bool>(),
        any::<bool>(),
        1usize..4,
        any::<bool>(),
        prop_oneof![Just(512usize), 0usize..600],
        any::<bool>(),
    )
        .prop_map(|(tokens, qa, summ_human, keep, preserve, min, partial)| SectionsConfig {
            use_qa: qa,
            summ_human_in_qa: summ_human,
            keep_qa_sections: keep,
            preserve_last: preserve || !qa,
            min_summarize_bytes: min,
            on_error: if partial { OnError::Partial } else { OnError::Rollback },
            ..SectionsConfig::for_budget(Amount::Tokens(tokens))
        })
}

/// Any byte setting, not only the budget's.
fn raw_config() -> impl Strategy<Value = SectionsConfig> {
    (1usize..4, 0usize..4000, 50usize..3000, any::<bool>(), 1usize..6, 200usize..20_000, any::<bool>(), 0usize..101)
        .prop_map(|(keep, last, bp, qa, qa_sections, qa_bytes, summ_human, reserve)| SectionsConfig {
            keep_qa_sections: keep,
            last_sec_bytes: last,
            max_bp_bytes: bp,
            use_qa: qa,
            max_qa_sections: qa_sections,
            max_qa_bytes: qa_bytes,
            summ_human_in_qa: summ_human,
            reserve_percent: reserve,
            min_summarize_bytes: 0,
            ..SectionsConfig::default()
        })
}

/// Compacts `chain` with `config`, the summarizer answering as `answers` says (by
/// request id); the kinds of the requests of each wave, and the wave count reported.
fn waves(chain: &[Message], config: SectionsConfig, answers: &[Answer]) -> (Vec<Vec<RequestKind>>, usize) {
    let (seen, reported, _) = waves_and_calls(chain, config, answers);
    (seen, reported)
}

/// [`waves`], and each call: its request and its answer.
fn waves_and_calls(
    chain: &[Message],
    config: SectionsConfig,
    answers: &[Answer],
) -> (Vec<Vec<RequestKind>>, usize, Vec<(SummaryRequest, String)>) {
    let seen = RefCell::new(Vec::<Vec<RequestKind>>::new());
    let calls = RefCell::new(Vec::new());
    let s = FnSummarizer(|r: SummaryRequest| {
        let text = summary(answers[r.id % answers.len()], &r);
        let mut seen = seen.borrow_mut();
        if seen.len() <= r.wave {
            seen.resize(r.wave + 1, Vec::new());
        }
        seen[r.wave].push(r.kind);
        calls.borrow_mut().push((r, text.clone()));
        async move { Ok(text) }
    });
    let options = CompactOptions { strategy: StrategyConfig::Sections(config), ..Default::default() };
    let out = block_on(compact(chain, &options, &s, &Controls::default(), Meter::default())).unwrap();
    (seen.into_inner(), out.report.waves, calls.into_inner())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn at_most_three_waves_at_budgets_from_50_tokens(
        chain in chain(),
        config in budget_config(),
        answers in prop::collection::vec(answer(), 1..8),
    ) {
        let (seen, reported) = waves(&chain, config, &answers);
        prop_assert_eq!(seen.len(), reported);
        prop_assert!(reported <= 3, "{} waves: {:?}", reported, seen);
    }

    #[test]
    fn at_most_three_waves_with_any_setting(
        chain in chain(),
        config in raw_config(),
        answers in prop::collection::vec(answer(), 1..8),
    ) {
        let (seen, reported) = waves(&chain, config, &answers);
        prop_assert_eq!(seen.len(), reported);
        prop_assert!(reported <= 3, "{} waves: {:?}", reported, seen);
    }
}

/// The README's case: three turns, ten messages, 50 tokens, QA on, summaries within
/// `targetBytes`: every phase makes a call (sections, an oversized pair, the rotation,
/// the QA fold), in three waves, the QA fold last over what the others left.
#[test]
fn every_phase_at_50_tokens_with_qa_in_three_waves() {
    let chain = vec![
        user("request 0: cargo"),
        ai("retry"),
        user("request 1: with"),
        ai_calls("", &[("call_1", "read_file")]),
        tool("call_1", "read_file", &text(1, 1000)),
        ai(&text(2, 1300)),
        user("request 2: first"),
        ai_calls("", &[("call_2", "read_file")]),
        tool("call_2", "read_file", &text(4, 400)),
        ai_calls("", &[("call_3", "read_file")]),
        tool("call_3", "read_file", &text(3, 1800)),
        ai("build"),
    ];
    let config = SectionsConfig { use_qa: true, ..SectionsConfig::for_budget(Amount::Tokens(50)) };
    let (seen, reported, calls) = waves_and_calls(&chain, config, &[Answer::Within(9)]);
    assert_eq!(reported, 3, "{seen:?}");
    let all: Vec<RequestKind> = seen.concat();
    for kind in [RequestKind::Section, RequestKind::Pair, RequestKind::Rotation, RequestKind::QaAi] {
        assert!(all.contains(&kind), "{kind:?} in {seen:?}");
    }
    assert_eq!(seen[2], vec![RequestKind::QaAi], "the QA fold last");
    // As upstream: the QA fold summarizes what phase 0 made of the older sections.
    let answer_of = |kind| calls.iter().find(|(r, _)| r.kind == kind).map(|(r, a)| (r.transcript.clone(), a.clone()));
    let (_, section) = answer_of(RequestKind::Section).unwrap();
    let (qa, _) = answer_of(RequestKind::QaAi).unwrap();
    assert!(qa.contains(section.trim()), "the QA fold's transcript holds the section summary:\n{qa}");
}
