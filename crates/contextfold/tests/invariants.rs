//! The DESIGN.md invariants, asserted for every strategy on every real transcript (and the
//! shipped demo session) through the one entry point users reach, `strategy::run`:
//! valid output for the provider, the latest message kept, signatures never altered,
//! smaller when changed, idempotent, rollback on failure, input never mutated.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use contextfold::format::{parse_json, read_auto, Format};
use contextfold::measure::{Amount, Meter};
use contextfold::message::{Message, Part};
use contextfold::repair::{validate, Provider, RepairOptions};
use contextfold::strategy::budget::BudgetConfig;
use contextfold::strategy::run::{compact, CompactOptions, StrategyConfig};
use contextfold::strategy::sections::SectionsConfig;
use contextfold::strategy::tiers::TiersConfig;
use contextfold::strategy::window::WindowConfig;
use contextfold::summarize::extractive::ExtractiveSummarizer;
use contextfold::summarize::mock::FnSummarizer;
use contextfold::summarize::{Controls, SummarizeError, SummaryRequest};
use futures::executor::block_on;
use std::collections::HashSet;
use std::path::PathBuf;

/// Settings that make each strategy act on chains of a few dozen messages and more.
fn strategies() -> Vec<StrategyConfig> {
    vec![
        StrategyConfig::Sections(SectionsConfig {
            last_sec_bytes: 8192,
            max_bp_bytes: 2048,
            ..SectionsConfig::default()
        }),
        StrategyConfig::Window(WindowConfig {
            window: 12,
            threshold: Amount::Tokens(6000),
            message_threshold: Amount::Tokens(1500),
            ..WindowConfig::default()
        }),
        StrategyConfig::Tiers(TiersConfig { recent: 8, condensed: 12, ..TiersConfig::default() }),
        StrategyConfig::Budget(BudgetConfig::new(Amount::Tokens(12_000))),
    ]
}

fn provider(format: Format) -> Provider {
    contextfold::format::convert::provider_of(format)
}

fn inputs() -> Vec<(String, Vec<Message>, Format)> {
    let demo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/demo-session.openai.json");
    let mut files = vec![demo];
    files.extend(common::real_fixtures().unwrap_or_default());
    files
        .iter()
        .map(|path| {
            let (messages, format) = read_auto(&parse_json(&std::fs::read_to_string(path).unwrap()).unwrap()).unwrap();
            (path.file_name().unwrap().to_string_lossy().into_owned(), messages, format)
        })
        .collect()
}

/// Every signature (reasoning or tool call) a chain carries.
fn signatures(messages: &[Message]) -> HashSet<String> {
    fn walk(parts: &[Part], out: &mut HashSet<String>) {
        for p in parts {
            match p {
                Part::Reasoning(r) => out.extend(r.signature.clone()),
                Part::ToolCall(c) => out.extend(c.signature.clone()),
                Part::ToolResult(r) => walk(&r.content, out),
                _ => {}
            }
        }
    }
    let mut out = HashSet::new();
    for m in messages {
        walk(&m.parts, &mut out);
    }
    out
}

#[test]
fn every_strategy_keeps_every_invariant_on_every_transcript() {
    let summarizer = ExtractiveSummarizer::default();
    for (name, messages, format) in inputs() {
        let provider = provider(format);
        let original = messages.clone();
        let known = signatures(&messages);
        for strategy in strategies() {
            let what = format!("{name} / {}", strategy.name());
            let options = CompactOptions { strategy, repair: RepairOptions::for_provider(provider) };
            let out = block_on(compact(&messages, &options, &summarizer, &Controls::default(), Meter::default()))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            // 8. The input is never mutated.
            assert_eq!(messages, original, "{what}: input mutated");
            // 1. Valid for the provider.
            let diagnostics = validate(&out.messages, provider);
            assert!(diagnostics.is_empty(), "{what}: {diagnostics:?}");
            // The latest message is never summarized away.
            assert_eq!(out.messages.last(), messages.last(), "{what}: the latest message changed");
            // 2. Signatures pass through unaltered (or are dropped); the only new one is the
            // documented fake signature of summarization calls.
            for s in signatures(&out.messages) {
                assert!(known.contains(&s) || s == "skip_thought_signature_validator", "{what}: new signature {s}");
            }
            // 4. A change makes the chain smaller.
            if out.changed {
                assert!(out.report.after.bytes < out.report.before.bytes, "{what}: {:?}", out.report);
            }
            // 5. Idempotent: nothing new, no call.
            let again = block_on(compact(&out.messages, &options, &summarizer, &Controls::default(), Meter::default()))
                .unwrap_or_else(|e| panic!("{what} (second run): {e}"));
            assert_eq!(again.report.calls, 0, "{what}: the second run made calls");
            println!(
                "{what}: {} -> {} messages, {} -> {} bytes, {} calls in {} waves, changed {}",
                out.report.before.messages,
                out.report.after.messages,
                out.report.before.bytes,
                out.report.after.bytes,
                out.report.calls,
                out.report.waves,
                out.changed
            );
        }
    }
}

#[test]
fn a_failing_summarizer_returns_the_original_chain_for_every_strategy() {
    let fail = FnSummarizer(|_r: SummaryRequest| async { Err(SummarizeError::failed("model down")) });
    for (name, messages, format) in inputs() {
        for strategy in strategies() {
            let what = format!("{name} / {}", strategy.name());
            let options = CompactOptions { strategy, repair: RepairOptions::for_provider(provider(format)) };
            let out = block_on(compact(&messages, &options, &fail, &Controls::default(), Meter::default())).unwrap();
            // 3. Nothing is lost: the original chain, the errors reported.
            if out.report.calls > 0 {
                assert!(out.report.rolled_back, "{what}");
                assert!(!out.report.errors.is_empty(), "{what}");
            }
            assert_eq!(out.messages, messages, "{what}");
            assert!(!out.changed, "{what}");
        }
    }
}
