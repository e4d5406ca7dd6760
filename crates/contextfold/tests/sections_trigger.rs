//! `sections::needs_compaction` is a planning pass (no summarizer, no prompt); it must
//! answer exactly what `compact` does: whether it would make a summary call. Checked over
//! generated chains of many shapes and sizes, their compacted results, and the real
//! transcripts, under many settings.

mod common;

use common::Rng;

use contextfold::measure::Amount;
use contextfold::message::{Message, Part, Role};
use contextfold::strategy::sections::{self, SectionsConfig};
use contextfold::summarize::mock::FixedSummarizer;
use contextfold::summarize::Controls;
use futures::executor::block_on;

/// Sections of assistant steps with tool calls whose results vary from tiny to large.
fn chain(rng: &mut Rng) -> Vec<Message> {
    let mut out = vec![Message::text(Role::System, "You are a coding agent.")];
    let sections = 1 + rng.below(12);
    for s in 0..sections {
        out.push(Message::text(Role::User, format!("task {s}: {}", "details ".repeat(rng.below(40) as usize))));
        let steps = 1 + rng.below(5);
        for p in 0..steps {
            if rng.below(3) == 0 {
                out.push(Message::text(Role::Assistant, "answer ".repeat(1 + rng.below(400) as usize)));
                continue;
            }
            let id = format!("call_{s}_{p}");
            let call = contextfold::testing::tool_call(&id, "read_file", &format!("src/f{s}_{p}.rs"));
            out.push(Message::new(Role::Assistant, vec![Part::text("reading"), call]));
            let size = [10, 200, 900, 3_000, 20_000].get(rng.below(5) as usize).copied().unwrap_or(10);
            out.push(Message::tool_result(id, "read_file", "x".repeat(size)));
        }
        out.push(Message::text(Role::Assistant, format!("done {s}")));
    }
    out
}

fn configs() -> Vec<SectionsConfig> {
    let d = SectionsConfig::default();
    vec![
        d.clone(),
        SectionsConfig::for_budget(Amount::Tokens(2_000)),
        SectionsConfig::for_budget(Amount::Tokens(8_000)),
        SectionsConfig::for_budget(Amount::Tokens(30_000)),
        // QA folding at a budget's thresholds, as `useQA: true` with `maxTokens` gives.
        SectionsConfig { use_qa: true, ..SectionsConfig::for_budget(Amount::Tokens(2_000)) },
        SectionsConfig { use_qa: true, ..SectionsConfig::for_budget(Amount::Tokens(8_000)) },
        SectionsConfig { use_qa: true, max_qa_sections: 3, max_qa_bytes: 20_000, ..d.clone() },
        SectionsConfig { use_qa: true, summ_human_in_qa: true, max_qa_sections: 2, ..d.clone() },
        SectionsConfig { preserve_last: false, ..d.clone() },
        SectionsConfig { keep_qa_sections: 3, last_sec_bytes: 4_000, max_bp_bytes: 1_000, ..d.clone() },
        SectionsConfig { min_summarize_bytes: 0, last_sec_bytes: 1_000, reserve_percent: 100, ..d.clone() },
        SectionsConfig { min_summarize_bytes: 100_000, ..d },
    ]
}

/// What `compact` does: `Some(calls made)`, `None` when it refuses the chain.
fn calls(messages: &[Message], config: &SectionsConfig) -> Option<(usize, Vec<Message>)> {
    let out = block_on(sections::compact(messages, config, &FixedSummarizer::new("-"), &Controls::default())).ok()?;
    Some((out.report.calls, out.messages))
}

fn check(messages: &[Message], config: &SectionsConfig, what: &str) -> Option<Vec<Message>> {
    let planned = sections::needs_compaction(messages, config);
    let (made, compacted) = calls(messages, config).unwrap_or((0, Vec::new()));
    assert_eq!(planned, made > 0, "{what}: planned {planned}, compact made {made} call(s); {config:?}");
    Some(compacted)
}

#[test]
fn the_planning_pass_answers_what_compact_does_on_generated_chains_and_their_results() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut positive = 0;
    for n in 0..60 {
        let messages = chain(&mut rng);
        for (k, config) in configs().iter().enumerate() {
            let what = format!("chain {n}, config {k}");
            positive += usize::from(sections::needs_compaction(&messages, config));
            if let Some(compacted) = check(&messages, config, &what) {
                // The compacted chain again: lone summaries are never summarized again.
                if !compacted.is_empty() {
                    check(&compacted, config, &format!("{what}, compacted"));
                }
            }
        }
    }
    // Both answers occur, or the comparison says little.
    let total = 60 * configs().len();
    assert!(positive > 50 && positive < total * 11 / 12, "{positive} of {total} need compaction");
}

#[test]
fn the_planning_pass_answers_what_compact_does_on_the_real_transcripts() {
    let Some(files) = common::real_fixtures() else { return };
    for path in files.iter().filter(|p| !p.to_string_lossy().contains("reference_summary")) {
        let text = std::fs::read_to_string(path).unwrap();
        let Ok((messages, _)) = contextfold::format::read_auto(&contextfold::format::parse_json(&text).unwrap()) else {
            continue;
        };
        for (k, config) in configs().iter().enumerate() {
            check(&messages, config, &format!("{}, config {k}", path.display()));
        }
    }
}
