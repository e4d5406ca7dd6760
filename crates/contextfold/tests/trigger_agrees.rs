//! `needs_compaction` (the entry point's trigger) answers what `compact` with the same
//! strategy does: whether it changes the chain. Checked over generated chains, among them
//! chains that end in what `compact` sets aside and gives back as it was (a final tool
//! cycle that thinks, then the user's words; a turn whose approvals the user answered).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use common::Rng;

use contextfold::measure::{Amount, Meter};
use contextfold::message::{Message, Role};
use contextfold::strategy::mask::MaskConfig;
use contextfold::strategy::run::{compact, needs_compaction, CompactOptions, StrategyConfig};
use contextfold::strategy::sections::SectionsConfig;
use contextfold::strategy::tiers::TiersConfig;
use contextfold::strategy::window::WindowConfig;
use contextfold::summarize::mock::FixedSummarizer;
use contextfold::summarize::Controls;
use futures::executor::block_on;

fn text(rng: &mut Rng, word: &str) -> String {
    word.repeat(1 + rng.below(300) as usize)
}

/// A tool step: the call (thinking, signed, when `thinks`) and its result.
fn step(rng: &mut Rng, id: &str, thinks: bool) -> [Message; 2] {
    let mut parts = Vec::new();
    if thinks {
        parts.push(common::reasoning("let me look", Some("sig")));
    }
    parts.push(contextfold::testing::tool_call(id, "read_file", &text(rng, "src/a.rs ")));
    let size = [10, 200, 900, 3_000, 12_000][rng.below(5) as usize];
    [Message::new(Role::Assistant, parts), Message::tool_result(id, "read_file", "x".repeat(size))]
}

/// Sections of steps and answers, ending in one of the ways a chat ends.
fn chain(rng: &mut Rng) -> Vec<Message> {
    let thinks = rng.below(2) == 0;
    let mut out = vec![Message::text(Role::System, "You are a coding agent.")];
    for s in 0..1 + rng.below(6) {
        out.push(Message::text(Role::User, format!("task {s}: {}", text(rng, "details "))));
        for p in 0..rng.below(4) {
            out.extend(step(rng, &format!("call_{s}_{p}"), thinks));
        }
        out.push(Message::text(Role::Assistant, text(rng, "answer ")));
    }
    out.push(Message::text(Role::User, text(rng, "next ")));
    match rng.below(4) {
        // The assistant's answer.
        0 => out.push(Message::text(Role::Assistant, text(rng, "done "))),
        // A tool cycle, then the user's words (on Anthropic's wire, in one message).
        1 => {
            out.extend(step(rng, "last", thinks));
            out.push(Message::text(Role::User, "TODO fix"));
        }
        // A call waiting for approval, the user's answer given (AI SDK).
        2 => {
            let [call, _] = step(rng, "asked", thinks);
            out.push(call);
            let answer = serde_json::json!([{ "role": "tool", "content": [
                { "type": "tool-approval-response", "approvalId": "ap", "approved": true }
            ]}]);
            out.extend(contextfold::format::read(&answer, contextfold::format::Format::AiSdk).unwrap());
        }
        // A tool cycle answered, the assistant still to speak.
        _ => out.extend(step(rng, "last", thinks)),
    }
    out
}

fn strategies() -> Vec<StrategyConfig> {
    let d = SectionsConfig::default();
    let mut out: Vec<StrategyConfig> = [
        SectionsConfig { last_sec_bytes: 2_000, max_bp_bytes: 800, min_summarize_bytes: 100, ..d.clone() },
        SectionsConfig::for_budget(Amount::Tokens(2_000)),
        SectionsConfig { use_qa: true, ..SectionsConfig::for_budget(Amount::Tokens(4_000)) },
        SectionsConfig { keep_qa_sections: 2, last_sec_bytes: 4_000, max_bp_bytes: 1_000, ..d },
    ]
    .into_iter()
    .map(StrategyConfig::Sections)
    .collect();
    out.push(StrategyConfig::Mask(MaskConfig { keep_last: 1, ..MaskConfig::default() }));
    out.push(StrategyConfig::Mask(MaskConfig { max: Some(Amount::Tokens(3_000)), ..MaskConfig::default() }));
    out.push(StrategyConfig::Window(WindowConfig {
        window: 6,
        threshold: Amount::Tokens(3_000),
        message_threshold: Amount::Tokens(800),
        ..WindowConfig::default()
    }));
    out.push(StrategyConfig::Tiers(TiersConfig {
        recent: 4,
        condensed: 4,
        auto_threshold: 10,
        ..TiersConfig::default()
    }));
    out
}

#[test]
fn the_trigger_answers_whether_compact_changes_the_chain() {
    let mut rng = Rng(0x5eed_cafe);
    let summarizer = FixedSummarizer::new("-");
    let mut checked = 0;
    for n in 0..150 {
        let messages = chain(&mut rng);
        for strategy in strategies() {
            let options = CompactOptions { strategy: strategy.clone(), ..CompactOptions::default() };
            let needs = needs_compaction(&messages, &strategy, Meter::default());
            let Ok(out) = block_on(compact(&messages, &options, &summarizer, &Controls::default(), Meter::default()))
            else {
                continue;
            };
            assert_eq!(needs, out.changed, "chain {n}: {strategy:?}; report {:?}", out.report);
            checked += 1;
        }
    }
    assert!(checked > 1_000, "{checked}");
}
