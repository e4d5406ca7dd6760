//! The `auto` strategy (issue 16 item 4): nothing under the budget; masking first; one
//! structured summary of the oldest span in the restoration message after the first
//! request, updated in place later; the latest request and exchange verbatim; never over
//! the budget.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use common::*;
use contextfold::ast::ChainAst;
use contextfold::format::{parse_json, read_auto};
use contextfold::measure::{Amount, Meter};
use contextfold::message::{Message, Part, Role};
use contextfold::pipeline::compact_json;
use contextfold::repair::{validate, Provider, RepairOptions};
use contextfold::settings::CompactSettings;
use contextfold::strategy::auto::AutoConfig;
use contextfold::strategy::run::{compact, needs_compaction, CompactOptions, StrategyConfig};
use contextfold::strategy::window::{restoration_snapshot, RESTORATION_PREFIX};
use contextfold::strategy::{Action, CompactError, CompactResult, OnError};
use contextfold::summarize::extractive::ExtractiveSummarizer;
use contextfold::summarize::mock::FnSummarizer;
use contextfold::summarize::{Controls, RequestKind, SummarizeError, Summarizer, SummaryRequest};
use futures::executor::block_on;
use std::cell::RefCell;

/// Records every request, answers with the built-in summarizer.
#[derive(Default)]
struct Recording(RefCell<Vec<SummaryRequest>>);

impl Summarizer for Recording {
    async fn summarize(&self, request: SummaryRequest) -> Result<String, SummarizeError> {
        self.0.borrow_mut().push(request.clone());
        ExtractiveSummarizer::default().summarize(request).await
    }
}

/// `n` turns of a coding session: a request, a read of a large file, an answer.
fn turns(from: usize, n: usize) -> Vec<Message> {
    (from..from + n)
        .flat_map(|i| {
            let id = format!("c{i}");
            vec![
                user(&format!("Step {i}: update src/mod_{i}.rs.")),
                Message::new(Role::Assistant, vec![call(&id, "read_file", &format!(r#"{{"path":"src/mod_{i}.rs"}}"#))]),
                tool(&id, "read_file", &format!("pub fn item_{i}() {{}}\n{}", "// line of code\n".repeat(120))),
                ai(&format!("Updated src/mod_{i}.rs: item_{i} now returns a Result. {}", "More detail. ".repeat(30))),
            ]
        })
        .collect()
}

fn session(n: usize) -> Vec<Message> {
    let mut chain =
        vec![sys("You are a coding agent."), user("Port the app to Rust. Never touch the tests."), ai("On it.")];
    chain.extend(turns(0, n));
    chain
}

fn config(max: usize) -> AutoConfig {
    AutoConfig::for_budget(Amount::Tokens(max))
}

fn run<S: Summarizer>(chain: &[Message], config: AutoConfig, s: &S) -> Result<CompactResult, CompactError> {
    let options = CompactOptions {
        strategy: StrategyConfig::Auto(config),
        repair: RepairOptions::for_provider(Provider::OpenAi),
        ..Default::default()
    };
    block_on(compact(chain, &options, s, &Controls::default(), Meter::default()))
}

fn tokens(chain: &[Message]) -> usize {
    Meter::default().total(contextfold::measure::Unit::Tokens, chain)
}

fn restorations(chain: &[Message]) -> Vec<String> {
    chain
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Text(t) if t.text.starts_with(RESTORATION_PREFIX) => Some(t.text.clone()),
            _ => None,
        })
        .collect()
}

/// A long latest request (a pasted document and its question) mid agent loop stays
/// verbatim while the hard budget holds it, even past the fold target: it was folded into
/// the summary, and the model was left a summary of what it was asked.
#[test]
fn a_long_latest_request_stays_verbatim_while_the_budget_holds_it() {
    let contract =
        format!("Review this contract and list every clause about termination.\n{}", "Clause text. ".repeat(700));
    let mut chain = vec![sys("You are a legal assistant."), user("Hello."), ai("Hi, how can I help?"), user(&contract)];
    for i in 0..4 {
        let id = format!("c{i}");
        chain.push(Message::new(Role::Assistant, vec![call(&id, "search", &format!(r#"{{"q":"clause {i}"}}"#))]));
        chain.push(tool(&id, "search", &format!("result {i}: {}", "matching text ".repeat(420))));
    }
    let max = 4500;
    let request = tokens(&chain[3..4]);
    assert!(request > 3150 * 2 / 3 && request < max / 2, "{request} tokens");
    let out = run(&chain, config(max), &Recording::default()).unwrap();
    assert!(out.changed);
    assert!(tokens(&out.messages) <= max, "{} > {max}", tokens(&out.messages));
    // (Verbatim, in the user message the first request and the summary open.)
    assert!(out.messages.iter().any(|m| m.joined_text().contains(&contract)), "the request was folded");
    // The last exchange too.
    assert_eq!(out.messages.last(), chain.last());
}

/// The turn answering the latest request (its call, the call's large result and the
/// answer) stays verbatim when the target has room for it beside the head and a summary:
/// kept from the answer alone, the call and result were folded while most of the budget
/// stood empty, and the answer followed a summary of what it answers.
#[test]
fn the_latest_turn_stays_whole_when_the_target_has_room_for_it() {
    let mut chain = session(6);
    let turn = chain.len() - 3; // the latest request's call, its result, the answer
    let max = 3000;
    let whole = tokens(&chain[turn - 1..]);
    assert!(whole + tokens(&chain[..2]) + max * 7 / 10 / 4 <= max * 7 / 10, "{whole} tokens");
    let out = run(&chain, config(max), &Recording::default()).unwrap();
    assert!(out.changed && tokens(&out.messages) <= max * 7 / 10, "{}", tokens(&out.messages));
    assert!(out.messages.ends_with(&chain[turn..]), "the latest turn was folded: {:#?}", out.messages);
    // With no room for it beside a summary, the last exchange alone is what must stay.
    chain.truncate(turn + 3);
    let small = run(&chain, config(whole + 200), &Recording::default()).unwrap();
    assert_eq!(small.messages.last(), chain.last());
    assert!(tokens(&small.messages) <= whole + 200);
}

#[test]
fn under_the_budget_nothing_happens() {
    let chain = session(3);
    let max = tokens(&chain) + 10;
    let s = Recording::default();
    let out = run(&chain, config(max), &s).unwrap();
    assert!(!out.changed && s.0.borrow().is_empty());
    assert!(!needs_compaction(&chain, &StrategyConfig::Auto(config(max)), Meter::default()));
    assert!(needs_compaction(&chain, &StrategyConfig::Auto(config(max - 20)), Meter::default()));
}

#[test]
fn masking_alone_when_it_reaches_the_target() {
    let chain = session(6);
    // Tool output is most of the chain: masking it reaches 70% of this budget.
    let masked = contextfold::strategy::mask::mask(&chain, &contextfold::strategy::mask::MaskConfig::default()).0;
    let max = Meter::default().total(contextfold::measure::Unit::Tokens, &masked) * 10 / 7 + 5;
    assert!(max < tokens(&chain));
    let s = Recording::default();
    let out = run(&chain, config(max), &s).unwrap();
    assert!(out.changed);
    assert!(s.0.borrow().is_empty(), "no summarizer call");
    assert!(tokens(&out.messages) <= max * 70 / 100);
    assert!(out.report.sections.iter().flat_map(|s| &s.actions).all(|a| matches!(a, Action::Masked { .. })));
    // Every request and every assistant text is still there.
    let texts = |c: &[Message]| c.iter().filter(|m| m.role != Role::Tool).map(Message::joined_text).collect::<Vec<_>>();
    assert_eq!(texts(&out.messages), texts(&chain));
}

#[test]
fn one_structured_summary_after_the_first_request_then_updated_in_place() {
    let chain = session(12);
    let max = 3000;
    let s = Recording::default();
    let out = run(&chain, config(max), &s).unwrap();
    let requests = s.0.borrow().clone();
    assert_eq!(requests.len(), 1, "one summary per fold");
    let r = &requests[0];
    assert_eq!(r.kind, RequestKind::Fold);
    for needle in ["## User requests:", "## Files:", "## Next step:", "Target length: about"] {
        assert!(r.instructions.contains(needle), "{needle:?} not asked for");
    }
    // The summarizer read the span before masking.
    assert!(r.transcript.contains("pub fn item_0()"), "the span as it was");
    let m = &out.messages;
    assert!(tokens(m) <= max, "{} > {max}", tokens(m));
    assert!(validate(m, Provider::OpenAi).is_empty());
    ChainAst::parse(m).unwrap();
    // System prompt, then the first request verbatim with the restoration after it.
    assert_eq!(m[0], chain[0]);
    assert_eq!(m[1].role, Role::User);
    assert_eq!(m[1].parts[0], chain[1].parts[0], "the first request verbatim");
    let restored = restorations(m);
    assert_eq!(restored.len(), 1);
    let snapshot = restoration_snapshot(restored[0].split("\n[cf:").next().unwrap()).unwrap().to_string();
    assert!(snapshot.contains("## User requests") && snapshot.contains("Step 0: update src/mod_0.rs."), "{snapshot}");
    // The latest request and the last exchange verbatim.
    let latest = chain.iter().rposition(|x| x.role == Role::User).unwrap();
    assert!(m.iter().any(|x| x.parts.contains(&chain[latest].parts[0])));
    assert_eq!(m.last(), chain.last());
    // Nothing new: no call, no change.
    let again = Recording::default();
    let same = run(m, config(max), &again).unwrap();
    assert!(!same.changed && again.0.borrow().is_empty());

    // The conversation grows past the budget: the summary is updated, not re-summarized.
    let mut grown = m.clone();
    grown.extend(turns(12, 8));
    let s2 = Recording::default();
    let out2 = run(&grown, config(max), &s2).unwrap();
    let requests = s2.0.borrow();
    assert_eq!(requests.len(), 1);
    assert!(requests[0].transcript.starts_with("<previous_summary>"), "an update");
    assert!(!requests[0].transcript.contains(RESTORATION_PREFIX), "the old restoration is not re-sent as a message");
    let restored = restorations(&out2.messages);
    assert_eq!(restored.len(), 1, "one restoration, replaced");
    assert!(restored[0].contains("Step 0: update src/mod_0.rs.") && restored[0].contains("Step 12"), "{}", restored[0]);
    assert!(matches!(
        out2.report.sections.iter().flat_map(|s| &s.actions).find(|a| matches!(a, Action::Snapshot { .. })),
        Some(Action::Snapshot { updated: true, .. })
    ));
    assert!(tokens(&out2.messages) <= max);
}

#[test]
fn a_failed_summary_loses_nothing() {
    let chain = session(12);
    let fail = FnSummarizer(|_r: SummaryRequest| async { Err::<String, _>(SummarizeError::failed("model down")) });
    let rolled = run(&chain, config(3000), &fail).unwrap();
    assert!(rolled.report.rolled_back && !rolled.changed);
    assert_eq!(rolled.messages, chain);
    let err = run(&chain, AutoConfig { on_error: OnError::Throw, ..config(3000) }, &fail).unwrap_err();
    assert_eq!(err.code(), "summarizer_failed");
    // Partial: the masked chain, every message still there, when it keeps the budget...
    let partial = run(&chain, AutoConfig { on_error: OnError::Partial, ..config(4000) }, &fail).unwrap();
    assert_eq!(partial.messages.len(), chain.len());
    assert!(tokens(&partial.messages) <= 4000);
    assert_eq!(partial.report.errors.len(), 1);
    // ...else the call fails saying why, the chain untouched (it came back over the budget).
    let err = run(&chain, AutoConfig { on_error: OnError::Partial, ..config(3000) }, &fail).unwrap_err();
    assert_eq!(err.code(), "budget_exceeded");
    assert!(err.to_string().contains("failed: model down"), "{err}");
}

#[test]
fn a_partial_result_masking_cannot_fit_blames_the_failed_summary() {
    // The real Claude Code session: masking alone leaves it over the budget. `partial`
    // does not give it back over the budget (it did, the provider then refused it): the
    // call fails naming the failed summary, not the provider repair pass.
    let Some(path) = common::real_fixtures()
        .unwrap_or_default()
        .into_iter()
        .find(|p| p.to_string_lossy().ends_with("claude_code_opus46_precompact.anthropic.json"))
    else {
        return;
    };
    let value = parse_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let (messages, _) = read_auto(&value).unwrap();
    let fail = FnSummarizer(|_r: SummaryRequest| async { Err::<String, _>(SummarizeError::failed("model down")) });
    let max = tokens(&messages) / 4;
    let options = CompactOptions {
        strategy: StrategyConfig::Auto(AutoConfig { on_error: OnError::Partial, ..config(max) }),
        repair: RepairOptions::for_provider(Provider::Anthropic),
        ..Default::default()
    };
    let err = block_on(compact(&messages, &options, &fail, &Controls::default(), Meter::default())).unwrap_err();
    assert_eq!(err.code(), "budget_exceeded");
    let text = err.to_string();
    assert!(text.contains("failed: model down") && !text.contains("repair pass"), "{text}");
}

#[test]
fn never_over_the_budget() {
    // The first request is summarized too when it alone leaves no room.
    let mut chain = session(6);
    chain[1] = user(&"A very long first request. ".repeat(300));
    let max = 1500;
    let out = run(&chain, config(max), &Recording::default()).unwrap();
    assert!(tokens(&out.messages) <= max, "{}", tokens(&out.messages));
    // The last exchange alone over the budget: a typed error saying so.
    let mut huge = session(2);
    huge.push(user(&"x ".repeat(20_000)));
    let err = run(&huge, config(2000), &Recording::default()).unwrap_err();
    assert_eq!(err.code(), "budget_exceeded");
    // Real transcripts at several budgets: within it, valid, or a budget error.
    for path in common::real_fixtures().unwrap_or_default() {
        let value = parse_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let (messages, format) = read_auto(&value).unwrap();
        let provider = contextfold::convert::provider_of(format);
        for max in [500, 2000, 8000] {
            let options = CompactOptions {
                strategy: StrategyConfig::Auto(config(max)),
                repair: RepairOptions::for_provider(provider),
                ..Default::default()
            };
            let what = format!("{} at {max}", path.display());
            match block_on(compact(
                &messages,
                &options,
                &ExtractiveSummarizer::default(),
                &Controls::default(),
                Meter::default(),
            )) {
                Ok(out) => {
                    assert!(tokens(&out.messages) <= max || !out.changed && tokens(&messages) <= max, "{what}");
                    assert!(validate(&out.messages, provider).is_empty(), "{what}");
                }
                Err(e) => assert_eq!(e.code(), "budget_exceeded", "{what}: {e}"),
            }
        }
    }
}

#[test]
fn a_tight_budget_gets_a_brief_note_and_a_summary_sized_to_fit() {
    // A long system prompt leaves little room: the summary is asked for what is left, not
    // for summaryPercent of the budget, and is not cut to nothing afterwards.
    let mut chain = session(6);
    chain[0] = sys(&"Policy: answer only from the tools. ".repeat(120));
    // What is kept verbatim: the system prompt, the first and the latest request, the last answer.
    let latest = chain.iter().rposition(|m| m.role == Role::User).unwrap();
    let fixed = tokens(&chain[..2]) + tokens(&chain[latest..latest + 1]) + tokens(&chain[chain.len() - 1..]);
    let s = Recording::default();
    let max = fixed + 150;
    let out = run(&chain, config(max), &s).unwrap();
    assert!(tokens(&out.messages) <= max, "{} > {max}", tokens(&out.messages));
    let asked = s.0.borrow()[0].target_bytes;
    assert!(asked < 150 * 4, "asked for {asked} bytes with about 100 tokens of room");
    let snapshot = restorations(&out.messages).into_iter().next().expect("a restoration");
    assert!(snapshot.len() > RESTORATION_PREFIX.len() + 60, "the summary survives:\n{snapshot}");
    // A summary a little over (tokens are estimated from bytes) loses its last lines only.
    for a in out.report.sections.iter().flat_map(|s| &s.actions) {
        if let Action::Truncated { bytes_before, bytes_after, .. } = a {
            assert!(bytes_after * 2 >= *bytes_before, "cut from {bytes_before} to {bytes_after} bytes");
        }
    }
    // Where even the whole note does not fit, the brief one does, and it reads back as a
    // summary to update on the next fold.
    let max = fixed + 40;
    let out = run(&chain, config(max), &Recording::default()).unwrap();
    assert!(tokens(&out.messages) <= max, "{} > {max}", tokens(&out.messages));
    let text = restorations(&out.messages).into_iter().next().expect("a restoration");
    assert!(text.contains("context, not a request") && text.len() < 400, "{text}");
    let sealed = out.messages.iter().flat_map(|m| &m.parts).find_map(|p| match p {
        Part::Text(t) => contextfold::ast::unseal(&t.text, "snapshot").map(str::to_string),
        _ => None,
    });
    assert!(sealed.as_deref().and_then(restoration_snapshot).is_some_and(|s| !s.is_empty()));
}

/// A summarizer that overshoots its target is cut to what fits, not to its headings: a
/// last line that is most of the room (one long paragraph) is cut after a word, and a
/// summary in a script without spaces (or opening with a character of several bytes) is
/// cut at a character.
#[test]
fn an_overlong_summary_is_cut_to_what_fits_whatever_its_script_and_lines() {
    let chain = session(12);
    let max = tokens(&chain) / 3;
    let answers = [
        format!(
            "## User requests\n- refactor the modules\n## Current state\n{}",
            "Module refactored and tests pass. ".repeat(1000)
        ),
        "モジュールをリファクタリングしました。".repeat(550),
        format!("é{}", "Les modules ont été refactorisés à côté. ".repeat(1000)),
    ];
    for answer in answers {
        let given = answer.clone();
        let s = FnSummarizer(move |_| {
            let a = given.clone();
            async move { Ok(a) }
        });
        let out = run(&chain, config(max), &s).unwrap_or_else(|e| panic!("{e}: {}", &answer[..40]));
        assert!(tokens(&out.messages) <= max, "{} > {max}", tokens(&out.messages));
        let snapshot = restorations(&out.messages).into_iter().next().expect("a restoration");
        let cut = out.report.sections.iter().flat_map(|s| &s.actions).find_map(|a| match a {
            Action::Truncated { bytes_after, .. } => Some(*bytes_after),
            _ => None,
        });
        let kept = cut.expect("the answer was cut");
        // What fits is most of the room left, not a heading or two.
        assert!(kept * 4 >= max, "{kept} bytes kept of about {} bytes of room:\n{snapshot}", max * 4);
        assert!(snapshot.contains('…'), "a cut line ends with an ellipsis");
    }
}

#[test]
fn the_callers_focus_reaches_the_prompt() {
    let chain = session(12);
    let value = contextfold::format::write(&chain, contextfold::format::Format::OpenAi).unwrap();
    let settings = CompactSettings {
        strategy: StrategyConfig::Auto(config(3000)),
        instructions: Some("the error handling of item_3".into()),
        ..CompactSettings::default()
    };
    let s = Recording::default();
    block_on(compact_json(&value, &settings, &s, &Controls::default(), Meter::default())).unwrap();
    let requests = s.0.borrow();
    assert!(!requests.is_empty());
    assert!(requests.iter().all(|r| r.instructions.contains("focus on: the error handling of item_3")));
    assert!(requests.iter().all(|r| r.prompt().contains("focus on: the error handling of item_3")));
}

/// A summarizer that caches by prompt, as `cachedSummarizer` does, and counts real calls.
#[derive(Default)]
struct Cached {
    answers: RefCell<std::collections::HashMap<String, String>>,
    calls: RefCell<usize>,
}

impl Summarizer for Cached {
    async fn summarize(&self, request: SummaryRequest) -> Result<String, SummarizeError> {
        if let Some(hit) = self.answers.borrow().get(&request.prompt()) {
            return Ok(hit.clone());
        }
        *self.calls.borrow_mut() += 1;
        let key = request.prompt();
        let answer = ExtractiveSummarizer::default().summarize(request).await?;
        self.answers.borrow_mut().insert(key, answer.clone());
        Ok(answer)
    }
}

#[test]
fn stable_mode_gives_stateless_callers_the_same_prefix() {
    // The whole raw history is sent on every request, as the Worker middleware gets it.
    let raw = session(40);
    let config = AutoConfig { stable: true, ..config(3000) };
    let s = Cached::default();
    let requests: Vec<usize> =
        raw.iter().enumerate().filter(|(_, m)| m.role == Role::Assistant).map(|(i, _)| i).collect();
    let mut previous: Option<Vec<Message>> = None;
    let (mut stable, mut after_first, mut folds) = (0, 0, 0);
    for &at in &requests {
        let out = run(&raw[..at], config.clone(), &s).unwrap();
        let sent = out.messages;
        assert!(tokens(&sent) <= 3000, "request at {at}: {} tokens", tokens(&sent));
        assert!(validate(&sent, Provider::OpenAi).is_empty());
        if let Some(prev) = &previous {
            if out.changed {
                after_first += 1;
                if sent.len() >= prev.len() && sent[..prev.len()] == prev[..] {
                    stable += 1;
                } else {
                    folds += 1;
                }
            }
        }
        previous = out.changed.then_some(sent);
    }
    assert!(after_first > 50, "{after_first}");
    // Here a fold frees 30% of a small budget, about two turns: the prefix changes only
    // at folds.
    assert!(stable * 100 >= after_first * 75, "stable on {stable} of {after_first} requests");
    // At most one summary per fold: the cache answers every replayed one.
    assert!(*s.calls.borrow() <= folds + 1, "calls {} for {folds} folds after the first", s.calls.borrow());
    // Two requests sharing a raw prefix: byte-identical compacted prefixes.
    let a = run(&raw[..requests[60]], config.clone(), &s).unwrap().messages;
    let b = run(&raw[..requests[60] + 1], config.clone(), &s).unwrap().messages;
    assert_eq!(&b[..a.len()], &a[..]);
}

#[test]
fn no_summary_request_exceeds_the_summarizers_limit() {
    let mut chain = session(30);
    // One tool result alone longer than the limit.
    chain.push(Message::new(Role::Assistant, vec![call("big", "read_file", r#"{"path":"dump.txt"}"#)]));
    chain.push(tool("big", "read_file", &"a line of a very long file\n".repeat(2000)));
    chain.push(ai("Read the dump."));
    let limit = 4000;
    let s = Recording::default();
    let out = run(&chain, AutoConfig { summarizer_max_tokens: Some(limit), ..config(3000) }, &s).unwrap();
    let requests = s.0.borrow();
    assert!(requests.len() > 1, "the span is summarized in parts");
    for r in requests.iter() {
        let t = Meter::default().text(contextfold::measure::Unit::Tokens, &r.prompt());
        assert!(t <= limit, "request {} holds {t} tokens", r.id);
    }
    // Each part updates the summary the one before gave.
    assert!(requests.iter().skip(1).all(|r| r.transcript.starts_with("<previous_summary>")));
    assert!(tokens(&out.messages) <= 3000);
    let restored = restorations(&out.messages);
    assert!(restored[0].contains("Step 0: update src/mod_0.rs.") && restored[0].contains("Step 28"), "{}", restored[0]);
    // The message too long alone was cut for the summarizer, and the cut reported.
    assert!(out.report.sections.iter().flat_map(|s| &s.actions).any(|a| matches!(a, Action::Truncated { .. })));
}

/// A long chat (no tools): what `summarizerMaxTokens` has to split when the summary's
/// own allowance is larger than the limit.
fn long_chat(turns: usize) -> Vec<Message> {
    let words = "the ledger service reconciles accounts nightly and writes a report for finance ".repeat(40);
    let mut chain = vec![sys("You are a coding assistant.")];
    for i in 0..turns {
        chain.push(user(&format!("Request {i}: look at module {i}. {}", &words[..200])));
        chain.push(ai(&format!("Module {i} looks fine. {}", &words[..2500])));
    }
    chain.push(user("Now summarize what you found."));
    chain
}

#[test]
fn a_limit_below_the_summarys_allowance_still_holds_every_request() {
    // The summary may take half of 16000 tokens, more than the 6000 (and about the
    // 12000) a request may hold: the summary asked for is capped by the limit, and the
    // span goes in parts of sensible size, never in one request over the limit.
    let chain = long_chat(60);
    let meter = Meter::default();
    for limit in [6000, 12_000] {
        let s = Recording::default();
        let out = run(&chain, AutoConfig { summarizer_max_tokens: Some(limit), ..config(16_000) }, &s).unwrap();
        assert!(out.changed);
        let requests = s.0.borrow();
        let sizes: Vec<usize> =
            requests.iter().map(|r| meter.text(contextfold::measure::Unit::Tokens, &r.prompt())).collect();
        assert!(sizes.iter().all(|&t| t <= limit), "limit {limit}: requests of {sizes:?} tokens");
        // Parts fill the limit: a few requests, not one per message.
        let span: usize = tokens(&chain);
        assert!(
            requests.len() > 1 && requests.len() <= 2 * span / limit + 2,
            "limit {limit}: {} calls",
            requests.len()
        );
        assert!(requests.iter().all(|r| r.target_bytes < limit * 4), "a summary the limit cannot hold is asked for");
    }
}

#[test]
fn a_summary_longer_than_asked_is_cut_before_the_next_part() {
    // A summarizer that overshoots (four times the bytes asked for): each next part
    // still fits the limit, its running summary cut at a line end (reported).
    let chain = long_chat(60);
    let limit = 6000;
    let requests = RefCell::new(Vec::new());
    let s = FnSummarizer(|r: SummaryRequest| {
        requests.borrow_mut().push(r.prompt());
        let line = "- a fact the summary keeps about the ledger module and its report\n";
        async move { Ok::<_, SummarizeError>(format!("## Current state\n{}", line.repeat(r.target_bytes * 4 / line.len()))) }
    });
    let out = run(&chain, AutoConfig { summarizer_max_tokens: Some(limit), ..config(16_000) }, &s).unwrap();
    assert!(out.changed);
    let meter = Meter::default();
    let requests = requests.borrow();
    assert!(requests.len() > 1);
    for prompt in requests.iter() {
        let t = meter.text(contextfold::measure::Unit::Tokens, prompt);
        assert!(t <= limit, "a request of {t} tokens");
    }
    assert!(out.report.sections.iter().flat_map(|s| &s.actions).any(|a| matches!(a, Action::Truncated { .. })));
}

/// A coding agent writing files: each call carries a whole module in its arguments.
fn file_writes(n: usize) -> Vec<Message> {
    let mut chain = vec![sys("You are a coding agent."), user("Write the modules.")];
    for i in 0..n {
        let body: String = (0..220).map(|j| format!("  def fn_{i}_{j}(x), do: x + {j}\n")).collect();
        let args = serde_json::json!({ "file_path": format!("lib/m{i}.ex"), "content": format!("defmodule M{i} do\n{body}end\n") });
        let id = format!("call_{i}");
        chain.push(Message::new(
            Role::Assistant,
            vec![Part::text(format!("Writing module {i}.")), call(&id, "Write", &args.to_string())],
        ));
        chain.push(tool(&id, "Write", &format!("wrote lib/m{i}.ex")));
    }
    chain.push(ai("All modules written."));
    chain.push(user("Now run the tests."));
    chain
}

#[test]
fn long_tool_call_arguments_are_cut_and_a_summary_within_its_target_reaches_the_next_part_whole() {
    // Calls whose arguments alone are over the limit: they reach the summarizer cut (the
    // path kept, the content's start), every request under the limit. A summarizer that
    // writes what it is asked for, in lines of paths and numbers (more tokens a byte than
    // prose), has each answer reach the next part whole (it was cut to one byte).
    let chain = file_writes(12);
    let limit = 2000;
    let meter = Meter::default();
    let seen = RefCell::new(Vec::new());
    let answers = RefCell::new(Vec::<String>::new());
    let s = FnSummarizer(|r: SummaryRequest| {
        seen.borrow_mut().push((r.prompt(), r.transcript.clone()));
        let mut answers = answers.borrow_mut();
        let k = answers.len();
        let lines = r.target_bytes.saturating_sub(9) / 18;
        let answer: String = std::iter::once("## Files\n".to_string())
            .chain((0..lines).map(|i| format!("fact no {:08}\n", k * 1000 + i)))
            .collect();
        assert!(answer.len() <= r.target_bytes);
        answers.push(answer.clone());
        async move { Ok::<_, SummarizeError>(answer) }
    });
    let out = run(&chain, AutoConfig { summarizer_max_tokens: Some(limit), ..config(3000) }, &s).unwrap();
    assert!(out.changed);
    let (seen, answers) = (seen.borrow(), answers.borrow());
    assert!(seen.len() > 2, "{} requests", seen.len());
    for (i, (prompt, transcript)) in seen.iter().enumerate() {
        let t = meter.text(contextfold::measure::Unit::Tokens, prompt);
        assert!(t <= limit, "request {i} holds {t} tokens");
        if transcript.contains("<tool_call ") {
            assert!(
                transcript.contains(r#"{"file_path":"lib/m"#),
                "request {i}: the call's arguments tell what it wrote"
            );
        }
        if i > 0 {
            let previous = format!("<previous_summary>\n{}\n</previous_summary>", answers[i - 1].trim_end());
            assert!(transcript.starts_with(&previous), "request {i}: the summary before it was cut");
        }
    }
}

/// A support agent's bookings: small results, long answers (masking frees little).
fn bookings(n: usize) -> Vec<Message> {
    let mut chain = vec![sys("You are a support agent."), user("Look up my bookings.")];
    for i in 0..n {
        let id = format!("call_{i}");
        let segments: Vec<String> = (0..6)
            .map(|j| format!(r#"{{"from":"LHR","to":"JFK","flight":"BA{}","fare":"Y","seat":"{}A"}}"#, 100 + j, j + 10))
            .collect();
        chain.push(Message::new(
            Role::Assistant,
            vec![
                Part::text(format!("Checking booking {i}.")),
                call(&id, "get_booking", &format!(r#"{{"id":"B{i}"}}"#)),
            ],
        ));
        chain.push(tool(&id, "get_booking", &format!(r#"{{"id":"B{i}","segments":[{}]}}"#, segments.join(","))));
        chain.push(ai(&format!("Booking B{i} has 6 segments, all confirmed, and the passenger asked about upgrades.")));
        chain.push(user(&format!("And booking {}? Please also tell me about the baggage rules for it.", i + 1)));
    }
    chain
}

#[test]
fn a_failed_summary_under_partial_keeps_the_budget_or_fails_saying_why() {
    let chain = bookings(10);
    let calls = RefCell::new(0);
    let failing = FnSummarizer(|_r: SummaryRequest| {
        *calls.borrow_mut() += 1;
        async { Err::<String, _>(SummarizeError::failed("summarizer unavailable")) }
    });
    let partial = |max: usize| AutoConfig { on_error: OnError::Partial, ..config(max) };
    // Only the summary could bring the chain under 1000 tokens: no chain over the budget
    // comes back (it did, with no error), the call fails naming the failed summary, and
    // the summary is not asked for again.
    let err = match run(&chain, partial(1000), &failing) {
        Ok(out) => panic!("{} tokens came back, {:?}", tokens(&out.messages), out.report.errors),
        Err(e) => e,
    };
    assert_eq!(err.code(), "budget_exceeded", "{err}");
    assert!(err.to_string().contains("summarizer unavailable"), "{err}");
    assert_eq!(*calls.borrow(), 1);
    // Masking keeps a budget the summary was not needed for: what succeeded is kept,
    // within it, the failure in the report.
    let mut masked = chain.clone();
    let long = "line of a log\n".repeat(400);
    masked.insert(3, Message::new(Role::Assistant, vec![call("log", "read_log", "{}")]));
    masked.insert(4, tool("log", "read_log", &long));
    let max = tokens(&chain) + 300;
    let out = run(&masked, partial(max), &failing).unwrap();
    assert!(out.changed && !out.report.rolled_back);
    assert!(tokens(&out.messages) <= max, "{} tokens", tokens(&out.messages));
    assert!(!out.report.errors.is_empty());
    // Under rollback the chain comes back untouched, rolled back.
    let out = run(&chain, AutoConfig { on_error: OnError::Rollback, ..config(1000) }, &failing).unwrap();
    assert!(out.report.rolled_back && !out.changed && !out.report.errors.is_empty());
}

#[test]
fn a_limit_the_instructions_alone_reach_is_an_option_error() {
    // A focus as long as the limit: no summary request can be under it.
    let chain = long_chat(60);
    let options = CompactOptions {
        strategy: StrategyConfig::Auto(AutoConfig { summarizer_max_tokens: Some(2000), ..config(16_000) }),
        repair: RepairOptions::for_provider(Provider::OpenAi),
        ..Default::default()
    };
    let controls = Controls { focus: Some("the ledger module ".repeat(600)), ..Controls::default() };
    let err = block_on(compact(&chain, &options, &Recording::default(), &controls, Meter::default())).unwrap_err();
    let CompactError::Option(e) = &err else { panic!("{err:?}") };
    assert_eq!((err.code(), e.path.as_str()), ("invalid_option", ".strategy.summarizerMaxTokens"));
}

#[test]
fn a_target_under_the_summarys_share_is_reached() {
    // `targetPercent` 30 with the default `summaryPercent` 50: the summary asked for is
    // no larger than the target leaves, so a summarizer writing what it is asked for
    // brings the chain down to the target (it stayed at ~60% of the budget).
    let para = "We went through the reconcile job of the ledger service and the nightly report it writes. ";
    let mut chain = vec![sys("You are a coding assistant.")];
    for i in 0..40 {
        chain.push(user(&format!("Request {i}: {}", para.repeat(2))));
        chain.push(ai(&format!("Answer {i}: {}", para.repeat(12))));
    }
    chain.push(user("What next?"));
    let s = FnSummarizer(|r: SummaryRequest| async move {
        let mut out = String::from("## Current state\n");
        let mut i = 0;
        while out.len() + 40 < r.target_bytes {
            out.push_str(&format!("- finding {i} about the ledger\n"));
            i += 1;
        }
        Ok::<_, SummarizeError>(out)
    });
    let max = 8000;
    let out = run(&chain, AutoConfig { target_percent: 30, ..config(max) }, &s).unwrap();
    assert!(out.changed);
    let after = tokens(&out.messages);
    assert!(after <= max * 30 / 100 * 105 / 100, "{after} tokens, the target is {}", max * 30 / 100);
}

/// The built-in estimate, counting the bytes it is given to count.
#[derive(Default)]
struct CountingEstimate(std::cell::Cell<usize>);

impl contextfold::measure::TokenCounter for CountingEstimate {
    fn count_texts(&self, texts: &[&str]) -> Vec<usize> {
        self.0.set(self.0.get() + texts.iter().map(|t| t.len()).sum::<usize>());
        contextfold::measure::EstimateCounter.count_texts(texts)
    }
}

#[test]
fn window_and_budget_count_the_chain_about_once() {
    // Window's tool-result phase and fold, and budget's trigger and cut, share one count
    // of the chain; once each counted it two or three times.
    let chain = session(40);
    let once = {
        let c = CountingEstimate::default();
        contextfold::measure::message_tokens(&chain, &c);
        c.0.get()
    };
    for strategy in [
        StrategyConfig::Window(contextfold::strategy::window::WindowConfig::for_budget(Amount::Tokens(3000))),
        StrategyConfig::Budget(contextfold::strategy::budget::BudgetConfig::new(Amount::Tokens(3000))),
    ] {
        let counter = CountingEstimate::default();
        let options =
            CompactOptions { strategy, repair: RepairOptions::for_provider(Provider::OpenAi), ..Default::default() };
        let s = FnSummarizer(|_| async { Ok("S".to_string()) });
        let out = block_on(compact(&chain, &options, &s, &Controls::default(), Meter::new(&counter))).unwrap();
        assert!(out.changed, "{}", out.report.strategy);
        let counted = counter.0.get();
        assert!(counted <= once * 17 / 10, "{}: counted {counted} bytes of text for {once} in", out.report.strategy);
    }
}

#[test]
fn each_message_is_counted_once() {
    // A tokenizer behind a boundary (a JS token counter) is crossed for every text counted:
    // the chain is counted once, then only what masking and folding wrote (placeholders,
    // the restoration's note, the result). Counting the span and the masked chain again,
    // as it once did, read more than twice the chain.
    let chain = session(40);
    // What one count of a chain reads.
    let text_bytes = |chain: &[Message]| {
        let once = CountingEstimate::default();
        contextfold::measure::message_tokens(chain, &once);
        once.0.get()
    };
    let counter = CountingEstimate::default();
    let options = CompactOptions {
        strategy: StrategyConfig::Auto(config(3000)),
        repair: RepairOptions::for_provider(Provider::OpenAi),
        ..Default::default()
    };
    let out = block_on(compact(
        &chain,
        &options,
        &FnSummarizer(|_| async { Ok("S".to_string()) }),
        &Controls::default(),
        Meter::new(&counter),
    ))
    .unwrap();
    assert!(out.changed);
    let (input, counted) = (text_bytes(&chain), counter.0.get());
    assert!(counted <= input + input / 5, "counted {counted} bytes of text for {input} in");
    // The report's totals are the estimate, whatever the counter.
    assert_eq!(out.report.before.tokens, tokens(&chain));
    assert_eq!(out.report.after.tokens, tokens(&out.messages));
}

/// `n` words of a request, tagged.
fn request_words(tag: &str, n: usize) -> String {
    let words = ["fix", "the", "parser", "cache", "build", "tests"];
    let body: Vec<String> = (0..n).map(|i| format!("{}{i}", words[i % words.len()])).collect();
    format!("{tag}: {}", body.join(" "))
}

/// The latest request is kept verbatim at every budget that holds it with the system
/// prompt, the last exchange, the summary's note and a least summary; below that, the call
/// fails. Kept behind the answer to it, it once lost to the first request (pinned only
/// when it fitted the room left once the first request was counted): from 140 to 220
/// tokens the result held an answer to a request folded, then cut out of the summary.
#[test]
fn the_latest_request_stays_verbatim_at_every_budget_that_holds_it() {
    let output: Vec<String> = (0..60).map(|i| format!("line {i}: function f{i}(x) {{ return x * {i}; }}")).collect();
    let (first, latest) = (request_words("FIRST request", 30), request_words("LATEST request", 30));
    let chain = vec![
        sys("You are a coding agent."),
        user(&first),
        Message::new(Role::Assistant, vec![call("c1", "read_file", r#"{"path":"src/a.ts"}"#)]),
        tool("c1", "read_file", &output.join("\n")),
        ai("Answer 0: done"),
        user(&latest),
        ai("Answer 1: ok, fixed"),
    ];
    // What must stay verbatim; the brief note and a least summary take about 40 more.
    let floor = tokens(&[chain[0].clone(), chain[5].clone(), chain[6].clone()]);
    let mut met = None;
    for max in (floor / 2..=tokens(&chain)).step_by(5) {
        let s = Recording::default();
        match run(&chain, config(max), &s) {
            Ok(out) => {
                assert!(tokens(&out.messages) <= max, "{max}: {} tokens", tokens(&out.messages));
                let texts: Vec<String> = out.messages.iter().map(Message::joined_text).collect();
                assert!(texts.iter().any(|t| t.contains(&latest)), "{max}: the latest request was lost: {texts:#?}");
                assert_eq!(out.messages.last(), chain.last(), "{max}");
                // Asked for no summary too small to write.
                assert!(s.0.borrow().iter().all(|r| r.target_bytes >= 32), "{max}");
                met.get_or_insert(max);
            }
            Err(e) => {
                assert_eq!(e.code(), "budget_exceeded", "{max}: {e}");
                assert!(met.is_none(), "{max} failed where {met:?} was met: {e}");
                assert!(e.to_string().contains("the latest request"), "{max}: {e}");
            }
        }
    }
    let met = met.expect("some budget is met");
    assert!(met <= floor + 50, "first met at {met} tokens, {floor} kept verbatim");
}

/// `chain` (JSON) compacted by `auto` with the built-in summarizer, recording its requests.
fn run_json(
    chain: &serde_json::Value,
    config: AutoConfig,
    s: &Recording,
) -> Result<contextfold::pipeline::JsonOutput, CompactError> {
    let settings = CompactSettings { strategy: StrategyConfig::Auto(config), ..CompactSettings::default() };
    block_on(compact_json(chain, &settings, s, &Controls::default(), Meter::default())).map_err(|e| e.error)
}

/// A fold that meets the budget is kept though it is larger in bytes than the chain it
/// came from (an image folded into a summary: fewer tokens, more bytes). It was given
/// back as a fold that gained nothing: the chain over its budget, with no error.
#[test]
fn a_fold_that_meets_the_budget_is_kept_though_larger_in_bytes() {
    let chain = serde_json::json!([
        { "role": "system", "content": "42; mismatched = types fix types x" },
        { "role": "user", "content": [
            { "type": "image_url", "image_url": { "url": "https://example.com/a.png" } },
            { "type": "text", "text": "the parser const parser build TODO fix résumé types types" },
        ] },
        { "role": "assistant", "content": "mismatched" },
        { "role": "user", "content": "continue" },
    ]);
    let mut larger = 0;
    for min_summarize_bytes in [1, 64, 512] {
        for max in 60..=130 {
            let config = AutoConfig { min_summarize_bytes, ..config(max) };
            match run_json(&chain, config, &Recording::default()) {
                Ok(out) => {
                    let after = &out.report.after;
                    assert!(
                        after.tokens <= max,
                        "{max}/{min_summarize_bytes}: {} tokens, changed {}",
                        after.tokens,
                        out.changed
                    );
                    larger += usize::from(out.changed && after.bytes >= out.report.before.bytes);
                }
                Err(e) => assert_eq!(e.code(), "budget_exceeded", "{max}/{min_summarize_bytes}: {e}"),
            }
        }
    }
    assert!(larger > 0, "no fold larger in bytes was met: the case is not covered");
}

/// With no room for a summary worth having, none is asked for: asked for a byte or a few,
/// the built-in summarizer wrote nothing, the call failed on it (and under `rollback` the
/// chain came back blamed on the summarizer), where the budget could not be met anyway.
/// Stable mode replays folds at the conversation's earlier, smaller requests: it met that
/// first.
#[test]
fn no_summary_is_asked_for_without_room_for_one() {
    let lines: String = (0..20).map(|i| format!("{i}: build build build build build\n")).collect();
    let chain = serde_json::json!([
        { "role": "system", "content": "build build build" },
        { "role": "user", "content": [
            { "type": "file", "file": { "filename": "spec.pdf", "file_data": "data:application/pdf;base64,JVBERi0xLjQKMSAwIG9iajw8Pj5lbmRvYmoKdHJhaWxlcjw8Pj4KJSVFT0Y=" } },
            { "type": "text", "text": "日本語" },
        ] },
        { "role": "assistant", "content": null, "tool_calls": [
            { "id": "call_1", "type": "function", "function": { "name": "read_file", "arguments": "{\"path\":\"src/a.rs\"}" } },
        ] },
        { "role": "tool", "tool_call_id": "call_1", "content": lines },
        { "role": "assistant", "content": "build" },
        { "role": "user", "content": [{ "type": "file", "file": { "file_id": "file-abc123" } }, { "type": "text", "text": "build" }] },
        { "role": "assistant", "content": "build" },
        { "role": "user", "content": "continue" },
    ]);
    for stable in [true, false] {
        for max in (40..=200).step_by(4) {
            let s = Recording::default();
            match run_json(&chain, AutoConfig { stable, ..config(max) }, &s) {
                Ok(out) => {
                    assert!(out.report.errors.is_empty(), "{max} (stable {stable}): {:?}", out.report.errors);
                    assert!(out.report.after.tokens <= max, "{max} (stable {stable}): {}", out.report.after.tokens);
                }
                Err(e) => assert_eq!(e.code(), "budget_exceeded", "{max} (stable {stable}): {e}"),
            }
            let asked: Vec<usize> = s.0.borrow().iter().map(|r| r.target_bytes).collect();
            assert!(asked.iter().all(|&b| b >= 32), "{max} (stable {stable}): asked for {asked:?} bytes");
        }
    }
}
