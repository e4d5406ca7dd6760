//! Observation masking (issue 16 item 1): old tool results become placeholders that say
//! what was there; recent exchanges, requests and assistant text stay; no summarizer
//! call; pairs intact; idempotent.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use common::*;
use contextfold::ast::ChainAst;
use contextfold::measure::{Amount, Meter};
use contextfold::message::{Message, Part, Role};
use contextfold::repair::{validate, Provider, RepairOptions};
use contextfold::strategy::mask::{is_masked, MaskConfig, Masked, MASK_PREFIX};

/// The library's mask, its borrowed messages copied: the chain as a caller keeps it.
fn mask(chain: &[Message], config: &MaskConfig) -> (Vec<Message>, Vec<Masked>) {
    let (out, items) = contextfold::strategy::mask::mask(chain, config);
    (out.into_iter().map(std::borrow::Cow::into_owned).collect(), items)
}
use contextfold::strategy::run::{compact, needs_compaction, CompactOptions, StrategyConfig};
use contextfold::strategy::Action;
use contextfold::summarize::mock::FnSummarizer;
use contextfold::summarize::{Controls, SummarizeError, SummaryRequest};
use futures::executor::block_on;

/// A coding session: a request, then `n` exchanges each reading a large file.
fn session(n: usize) -> Vec<Message> {
    let mut chain = vec![sys("You code."), user("Fix the parser in src/parse.rs.")];
    for i in 0..n {
        let id = format!("c{i}");
        chain.push(Message::new(
            Role::Assistant,
            vec![
                Part::text(format!("Reading part {i}.")),
                call(&id, "read_file", &format!(r#"{{"path":"src/p{i}.rs"}}"#)),
            ],
        ));
        chain.push(tool(&id, "read_file", &format!("fn part_{i}() {{}}\n{}", "// body line\n".repeat(100))));
    }
    chain.push(ai("The parser is fixed."));
    chain
}

fn texts(chain: &[Message]) -> Vec<String> {
    chain.iter().filter(|m| m.role != Role::Tool).map(Message::joined_text).collect()
}

/// Only a message something was masked in is new; every other is the input's own.
#[test]
fn masking_copies_only_the_messages_it_masks() {
    use std::borrow::Cow;
    let chain = session(6);
    let (out, masked) =
        contextfold::strategy::mask::mask(&chain, &MaskConfig { keep_last: 2, ..MaskConfig::default() });
    let changed: Vec<usize> = masked.iter().map(|m| m.message).collect();
    assert_eq!(changed.len(), 4);
    for (i, (m, input)) in out.iter().zip(&chain).enumerate() {
        match m {
            Cow::Borrowed(m) => assert!(!changed.contains(&i) && std::ptr::eq(*m, input), "message {i}"),
            Cow::Owned(m) => assert!(changed.contains(&i) && m != input, "message {i}"),
        }
    }
}

#[test]
fn old_results_become_placeholders_that_say_what_was_there() {
    let chain = session(6);
    let (out, masked) = mask(&chain, &MaskConfig { keep_last: 2, ..MaskConfig::default() });
    assert_eq!(masked.len(), 4, "every exchange but the last two");
    assert_eq!(out.len(), chain.len(), "no message dropped");
    // Every request and every assistant text (and call) is kept as it was.
    assert_eq!(texts(&out), texts(&chain));
    let calls = |c: &[Message]| c.iter().flat_map(Message::tool_calls).cloned().collect::<Vec<_>>();
    assert_eq!(calls(&out), calls(&chain));
    for (i, m) in out.iter().enumerate().filter(|(_, m)| m.role == Role::Tool) {
        let result = m.tool_results().next().unwrap();
        let Part::Text(t) = &result.content[0] else { panic!() };
        let old = masked.iter().any(|x| x.message == i);
        assert_eq!(is_masked(&t.text), old, "message {i}");
        if old {
            let n = (i - 3) / 2;
            assert!(t.text.starts_with(MASK_PREFIX), "{}", t.text);
            for needle in ["read_file", &format!("src/p{n}.rs"), "bytes", "101 lines", &format!("fn part_{n}() {{}}")] {
                assert!(t.text.contains(needle), "{needle:?} missing in {}", t.text);
            }
            assert!(t.text.contains("call the tool again"));
        } else {
            assert_eq!(m, &chain[i], "a recent result is kept whole");
        }
    }
    // Pairs intact: the chain parses strictly and is valid for every provider.
    ChainAst::parse(&out).unwrap();
    for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Gemini] {
        assert!(validate(&out, provider).is_empty(), "{provider:?}");
    }
    // Idempotent: masking again changes nothing.
    let (again, none) = mask(&out, &MaskConfig { keep_last: 2, ..MaskConfig::default() });
    assert!(none.is_empty());
    assert_eq!(again, out);
}

#[test]
fn excluded_tools_small_results_and_arguments_follow_the_settings() {
    let mut chain = session(4);
    chain.insert(2, Message::new(Role::Assistant, vec![call("s", "search", r#"{"query":"x"}"#)]));
    chain.insert(3, tool("s", "search", "3 hits"));
    let config = MaskConfig { keep_last: 1, exclude_tools: vec!["read_file".into()], ..MaskConfig::default() };
    let (out, masked) = mask(&chain, &config);
    assert!(masked.is_empty(), "read_file is excluded and the search result is small: {masked:?}");
    assert_eq!(out, chain);

    // Large argument values of old calls, when asked: keys kept, values replaced, valid JSON.
    let big = format!(r#"{{"path":"src/a.rs","content":"{}"}}"#, "x".repeat(4000));
    let chain = vec![
        user("write it"),
        Message::new(Role::Assistant, vec![call("w", "write_file", &big)]),
        tool("w", "write_file", "ok"),
        Message::new(Role::Assistant, vec![call("v", "read_file", r#"{"path":"src/a.rs"}"#)]),
        tool("v", "read_file", "short"),
        ai("done"),
    ];
    let (out, masked) = mask(&chain, &MaskConfig { keep_last: 1, mask_arguments: true, ..MaskConfig::default() });
    assert_eq!(masked.len(), 1);
    let args: serde_json::Value = serde_json::from_str(&out[1].tool_calls().next().unwrap().arguments).unwrap();
    assert_eq!(args["path"], "src/a.rs");
    assert!(args["content"].as_str().unwrap().starts_with("[masked: 4000 bytes"), "{args}");
    assert_eq!(mask(&out, &MaskConfig { keep_last: 1, mask_arguments: true, ..MaskConfig::default() }).1, vec![]);
}

#[test]
fn the_mask_strategy_makes_no_call_and_runs_over_its_budget_only() {
    let chain = session(8);
    let never = FnSummarizer(|_r: SummaryRequest| async { Err::<String, _>(SummarizeError::failed("never called")) });
    let meter = Meter::default();
    let run = |config: MaskConfig| {
        let options = CompactOptions {
            strategy: StrategyConfig::Mask(config),
            repair: RepairOptions::for_provider(Provider::OpenAi),
            ..Default::default()
        };
        (
            needs_compaction(&chain, &options.strategy, meter),
            block_on(compact(&chain, &options, &never, &Controls::default(), meter)).unwrap(),
        )
    };
    let (needed, out) = run(MaskConfig::default());
    assert!(needed && out.changed);
    assert_eq!((out.report.calls, out.report.errors.len(), out.report.strategy), (0, 0, "mask"));
    assert!(out.report.sections.iter().flat_map(|s| &s.actions).all(|a| matches!(a, Action::Masked { .. })));
    assert!(out.report.after.bytes < out.report.before.bytes / 2);
    // The report's totals (counted once, the masked messages again) are a fresh count's.
    let estimate = |m: &[Message]| contextfold::measure::estimate_tokens(m);
    assert_eq!((out.report.before.tokens, out.report.after.tokens), (estimate(&chain), estimate(&out.messages)));
    // Within its budget, nothing is masked.
    let (needed, out) = run(MaskConfig { max: Some(Amount::Tokens(1_000_000)), ..MaskConfig::default() });
    assert!(!needed && !out.changed);
    assert_eq!(out.messages, chain);
}
