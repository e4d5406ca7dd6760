//! The sections strategy over the real transcripts in ../shared/fixtures/real, with
//! small budgets: the output parses strictly (every tool call answered), the last pair
//! of every kept section is byte-identical to the input, and a second run with nothing
//! new makes no call and changes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use contextfold::ast::ChainAst;
use contextfold::format::{parse_json, read_auto};
use contextfold::strategy::sections::{compact, SectionsConfig};
use contextfold::summarize::mock::FixedSummarizer;
use contextfold::summarize::Controls;
use futures::executor::block_on;

#[test]
fn real_transcripts_compact_validly_and_idempotently() {
    let Some(files) = common::real_fixtures() else { return };
    let configs = [
        SectionsConfig { last_sec_bytes: 8 * 1024, max_bp_bytes: 2 * 1024, ..SectionsConfig::default() },
        SectionsConfig {
            last_sec_bytes: 4 * 1024,
            max_bp_bytes: 1024,
            keep_qa_sections: 2,
            use_qa: true,
            max_qa_sections: 4,
            max_qa_bytes: 16 * 1024,
            ..SectionsConfig::default()
        },
    ];
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let (messages, _) = read_auto(&parse_json(&text).unwrap()).unwrap();
        let input = ChainAst::parse(&messages).unwrap();
        for (c, config) in configs.iter().enumerate() {
            let name = format!("{} (config {c})", path.file_name().unwrap().to_string_lossy());
            let s = FixedSummarizer::new("Summary: the agent read files, ran commands and reported results.");
            let out = block_on(compact(&messages, config, &s, &Controls::default())).unwrap();
            assert!(out.report.errors.is_empty(), "{name}");
            let ast = ChainAst::parse(&out.messages).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(out.report.after.bytes <= out.report.before.bytes, "{name}");
            assert_eq!(out.report.calls, s.calls(), "{name}");
            // The last pair of every kept section is byte-identical to the input's.
            let keep = config.keep_qa_sections.min(input.sections().len());
            let (n_in, n_out) = (input.sections().len(), ast.sections().len());
            for k in 1..=keep.min(n_out) {
                let before = input.sections()[n_in - k].body().last();
                let after = ast.sections()[n_out - k].body().last();
                assert_eq!(
                    before.map(|p| p.messages()),
                    after.map(|p| p.messages()),
                    "{name}: last pair of kept section -{k}"
                );
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
            let again = block_on(compact(&out.messages, config, &s, &Controls::default())).unwrap();
            assert_eq!(again.report.calls, 0, "{name}: second run makes no call");
            assert_eq!(again.messages, out.messages, "{name}: second run changes nothing");
        }
    }
}

#[test]
fn real_transcripts_fit_a_hard_budget() {
    use contextfold::measure::{message_tokens, Amount, EstimateCounter, Meter};
    use contextfold::strategy::budget::{self, BudgetConfig};
    let Some(files) = common::real_fixtures() else { return };
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let (messages, _) = read_auto(&parse_json(&text).unwrap()).unwrap();
        for max in [2_000usize, 8_000, 32_000] {
            let name = format!("{} (max {max})", path.file_name().unwrap().to_string_lossy());
            let s = FixedSummarizer::new("Summary: the agent read files, ran commands and reported results.");
            let config = BudgetConfig::new(Amount::Tokens(max));
            match block_on(budget::compact(&messages, &config, &s, &Controls::default(), Meter::default())) {
                Ok(out) => {
                    let tokens: usize = message_tokens(&out.messages, &EstimateCounter).iter().sum();
                    assert!(tokens <= max, "{name}: {tokens} tokens");
                    ChainAst::parse(&out.messages).unwrap_or_else(|e| panic!("{name}: {e}"));
                    assert_eq!(out.messages.last(), messages.last(), "{name}: the latest message is kept");
                    println!(
                        "{name}: {} -> {tokens} tokens, {} calls in {} waves",
                        out.report.before.tokens, out.report.calls, out.report.waves
                    );
                }
                Err(e) => {
                    assert_eq!(e.code(), "budget_exceeded", "{name}: {e}");
                    println!("{name}: {e}");
                }
            }
        }
    }
}
