//! Property tests of the sections strategy: random chains, random settings and random
//! summarizer behaviour (fail, empty, huge, slow, out of order). Every outcome is a
//! chain that parses strictly; the original comes back on rollback; the last pair of the
//! last section is never touched; with a well-behaved summarizer a second run makes no
//! call.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use common::Delay;
use contextfold::ast::ChainAst;
use contextfold::message::Message;
use contextfold::strategy::sections::{compact, SectionsConfig};
use contextfold::strategy::OnError;
use contextfold::summarize::mock::FnSummarizer;
use contextfold::summarize::{Controls, SummarizeError, SummaryRequest};
use contextfold::testing::{generate_chain, ChainConfig};
use futures::executor::block_on;
use proptest::prelude::*;

/// What the summarizer does with call `id`.
#[derive(Debug, Clone, Copy)]
enum Behaviour {
    Short,
    Fail,
    Empty,
    Huge,
    Slow(usize),
}

fn behaviour() -> impl Strategy<Value = Behaviour> {
    prop_oneof![
        6 => Just(Behaviour::Short),
        1 => Just(Behaviour::Fail),
        1 => Just(Behaviour::Empty),
        1 => Just(Behaviour::Huge),
        2 => (1usize..6).prop_map(Behaviour::Slow),
    ]
}

fn chain() -> impl Strategy<Value = Vec<Message>> {
    (1usize..8, prop::collection::vec(0usize..5, 8), prop::collection::vec(0usize..4, 40), any::<bool>()).prop_map(
        |(sections, pairs, calls, system)| {
            let pairs: Vec<usize> = pairs.iter().take(sections).map(|p| p + 1).collect();
            let n: usize = pairs.iter().sum();
            let calls: Vec<usize> = (0..n).map(|i| calls[i % calls.len()]).collect();
            generate_chain(&ChainConfig {
                include_system: system,
                sections,
                pairs_per_section: pairs,
                tools_for_pairs: calls.iter().map(|c| *c > 0).collect(),
                tool_calls_per_pair: calls,
                include_all_tool_responses: true,
            })
        },
    )
}

fn config() -> impl Strategy<Value = SectionsConfig> {
    (1usize..4, 0usize..2000, 50usize..1500, any::<bool>(), 1usize..5, 200usize..4000, any::<bool>(), 0usize..3)
        .prop_map(|(keep, last, bp, qa, qa_sections, qa_bytes, summ_human, on_error)| SectionsConfig {
            keep_qa_sections: keep,
            last_sec_bytes: last,
            max_bp_bytes: bp,
            use_qa: qa,
            max_qa_sections: qa_sections,
            max_qa_bytes: qa_bytes,
            summ_human_in_qa: summ_human,
            min_summarize_bytes: 0,
            on_error: [OnError::Rollback, OnError::Partial, OnError::Throw][on_error],
            ..SectionsConfig::default()
        })
}

async fn answer(b: Behaviour, r: &SummaryRequest) -> Result<String, SummarizeError> {
    match b {
        Behaviour::Short => Ok(format!("s{}", r.id)),
        Behaviour::Fail => Err(SummarizeError::failed("boom")),
        Behaviour::Empty => Ok(String::new()),
        Behaviour::Huge => Ok("h".repeat(50_000)),
        Behaviour::Slow(n) => {
            Delay(n).await;
            Ok(format!("slow{}", r.id))
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_outcome_is_valid(chain in chain(), config in config(), plan in prop::collection::vec(behaviour(), 1..16), limit in 1usize..5) {
        let s = FnSummarizer(|r: SummaryRequest| {
            let b = plan[r.id % plan.len()];
            async move { answer(b, &r).await }
        });
        let controls = Controls { concurrency: limit, ..Controls::default() };
        let input = ChainAst::parse(&chain).unwrap();
        match block_on(compact(&chain, &config, &s, &controls)) {
            Err(e) => {
                prop_assert_eq!(config.on_error, OnError::Throw);
                prop_assert_eq!(e.code(), "summarizer_failed");
            }
            Ok(out) => {
                let ast = ChainAst::parse(&out.messages);
                prop_assert!(ast.is_ok(), "output must parse strictly: {:?}", ast.err());
                let ast = ast.unwrap();
                prop_assert!(out.report.after.bytes <= out.report.before.bytes);
                prop_assert_eq!(out.report.calls, out.report.errors.len() + out.report.calls - out.report.errors.len());
                if out.report.rolled_back {
                    prop_assert_eq!(&out.messages, &chain);
                    prop_assert!(!out.report.errors.is_empty());
                }
                if !out.report.errors.is_empty() && config.on_error == OnError::Rollback {
                    prop_assert!(out.report.rolled_back);
                }
                // The newest pair is never summarized.
                let last_in = input.sections().last().and_then(|s| s.body().last()).map(|p| p.messages());
                let last_out = ast.sections().last().and_then(|s| s.body().last()).map(|p| p.messages());
                prop_assert_eq!(last_in, last_out);
            }
        }
    }

    #[test]
    fn a_well_behaved_summarizer_makes_a_second_run_free(chain in chain(), config in config()) {
        let s = FnSummarizer(|r: SummaryRequest| async move { Ok(format!("s{}", r.id)) });
        let first = block_on(compact(&chain, &config, &s, &Controls::default())).unwrap();
        let second = block_on(compact(&first.messages, &config, &s, &Controls::default())).unwrap();
        prop_assert_eq!(second.report.calls, 0, "first report: {:?}", first.report);
        prop_assert_eq!(second.messages, first.messages);
    }
}
