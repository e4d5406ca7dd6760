//! The tiers strategy: recent / condensed / compressed by message count.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use common::*;
use contextfold::ast::ChainAst;
use contextfold::format::{parse_json, read, read_auto, write, Format};
use contextfold::measure::{Amount, Meter};
use contextfold::message::{messages_size, Message, Part, Role};
use contextfold::strategy::tiers::{
    compact, is_bridge, needs_compaction, summary_info, TierLevel, TierSummary, TiersConfig, BRIDGE_TEXT,
    COMPRESSED_PREFIX, CONDENSED_PREFIX, METADATA_KEY,
};
use contextfold::strategy::{Action, CompactError, CompactResult, OnError};
use contextfold::summarize::extractive::ExtractiveSummarizer;
use contextfold::summarize::mock::{FixedSummarizer, FnSummarizer};
use contextfold::summarize::{Controls, RequestKind, SummarizeError, Summarizer, SummaryRequest};
use contextfold::testing::{generate_chain, ChainConfig};
use futures::executor::block_on;
use proptest::prelude::*;
use std::cell::RefCell;

/// Re-tiering whenever `compact` is called (the automatic trigger off), as these tests of
/// the layout want.
fn on_demand() -> TiersConfig {
    TiersConfig { auto: false, ..TiersConfig::default() }
}

fn run<S: Summarizer>(chain: &[Message], config: &TiersConfig, s: &S) -> Result<CompactResult, CompactError> {
    block_on(compact(chain, config, s, &Controls::default(), Meter::default()))
}

/// `n` messages alternating user / assistant, from number `from`, user first when
/// `from` is even.
fn chat_from(from: usize, n: usize) -> Vec<Message> {
    (from..from + n)
        .map(|i| {
            if i % 2 == 0 {
                user(&format!("question {i}: please explain topic number {i} in some detail"))
            } else {
                ai(&format!("answer {i}: topic number {} works like this, in some detail", i - 1))
            }
        })
        .collect()
}

fn with_system(mut rest: Vec<Message>) -> Vec<Message> {
    rest.insert(0, sys("You are a helpful assistant."));
    rest
}

/// Answers by request kind: `COMPRESSED-<call>` / `CONDENSED-<call>`, and records the
/// requests.
struct Tagged {
    requests: RefCell<Vec<SummaryRequest>>,
}

impl Tagged {
    fn new() -> Self {
        Tagged { requests: RefCell::new(Vec::new()) }
    }
}

impl Summarizer for Tagged {
    async fn summarize(&self, request: SummaryRequest) -> Result<String, SummarizeError> {
        let n = self.requests.borrow().len();
        let tag = if request.kind == RequestKind::TierCompressed { "COMPRESSED" } else { "CONDENSED" };
        self.requests.borrow_mut().push(request);
        Ok(format!("{tag}-{n}: the user asked about topics and got answers."))
    }
}

fn info(m: &Message) -> TierSummary {
    summary_info(m).unwrap_or_else(|| panic!("not a tier summary: {m:?}"))
}

/// Original messages a chain stands for (system messages that are not summaries aside).
fn covered(chain: &[Message]) -> usize {
    chain
        .iter()
        .map(|m| match summary_info(m) {
            Some(i) => i.message_count,
            None if is_bridge(m) || m.role == Role::System => 0,
            None => 1,
        })
        .sum()
}

fn summaries(chain: &[Message], level: TierLevel) -> usize {
    chain.iter().filter(|m| summary_info(m).is_some_and(|i| i.level == level)).count()
}

#[test]
fn a_hundred_messages_become_compressed_condensed_and_the_last_twenty() {
    let chain = with_system(chat_from(0, 100));
    let before = chain.clone();
    let s = Tagged::new();
    let out = run(&chain, &on_demand(), &s).unwrap();
    assert_eq!(chain, before, "input unchanged");
    assert!(out.changed);
    ChainAst::parse(&out.messages).unwrap();
    let m = &out.messages;
    assert_eq!(m.len(), 24);
    assert_eq!(m[0], chain[0]);
    // Compressed: a system message right after the system prompt; 30 oldest messages.
    assert_eq!(m[1].role, Role::System);
    assert_eq!(info(&m[1]), TierSummary { level: TierLevel::Compressed, message_count: 30, created_at: None });
    assert!(m[1].joined_text().starts_with("[Compressed history: 30 messages] COMPRESSED-"));
    // The bridge, then the condensed summary as an assistant message: 50 messages.
    assert!(is_bridge(&m[2]));
    assert_eq!(m[2].joined_text(), BRIDGE_TEXT);
    assert_eq!(m[3].role, Role::Assistant);
    assert_eq!(info(&m[3]).level, TierLevel::Condensed);
    assert_eq!(info(&m[3]).message_count, 50);
    // The last 20 verbatim, starting at a user message.
    assert_eq!(&m[4..], &chain[81..]);
    assert_eq!(m[4].role, Role::User);
    assert_eq!(30 + 50 + 20, chain.len() - 1);
    assert_eq!(covered(m), 100);
    // Both calls in one wave, with their own kinds, ranges and size hints.
    assert_eq!((out.report.calls, out.report.waves), (2, 1));
    let requests = s.requests.borrow();
    let compressed = requests.iter().find(|r| r.kind == RequestKind::TierCompressed).unwrap();
    let condensed = requests.iter().find(|r| r.kind == RequestKind::TierCondensed).unwrap();
    assert_eq!((compressed.range.start, compressed.range.end), (1, 31));
    assert_eq!((condensed.range.start, condensed.range.end), (31, 81));
    // The configured sizes (800 / 2000), capped at half of what each span can gain
    // (issue 14: a hint larger than the content made an honouring summarizer fail).
    let span = |r: std::ops::Range<usize>| chain[r].iter().map(Message::size).sum::<usize>();
    assert!(compressed.target_bytes <= 800 && compressed.target_bytes * 2 <= span(1..31));
    assert!(condensed.target_bytes < 2000 && condensed.target_bytes * 2 <= span(31..81), "the cap applies here");
    assert!(compressed.instructions.contains("Be extremely brief"));
    assert!(condensed.instructions.contains("medium-term memory"));
    assert!(compressed.transcript.contains("question 0:") && !compressed.transcript.contains("question 30:"));
    assert!(condensed.transcript.contains("question 30:") && !condensed.transcript.contains("question 80:"));
    assert_eq!(out.report.strategy, "tiers");
    let tiered: Vec<&Action> = out.report.sections.iter().flat_map(|s| &s.actions).collect();
    assert_eq!(tiered.len(), 2);
    assert!(tiered.iter().all(|a| matches!(a, Action::Tiered { merged: false, .. })));
    assert_eq!(out.report.after.messages, 24);
}

#[test]
fn without_a_system_prompt_the_compressed_summary_opens_the_chain() {
    let chain = chat_from(0, 100);
    let out = run(&chain, &on_demand(), &Tagged::new()).unwrap();
    ChainAst::parse(&out.messages).unwrap();
    assert_eq!(info(&out.messages[0]).level, TierLevel::Compressed);
    assert!(is_bridge(&out.messages[1]));
    assert_eq!(info(&out.messages[2]).level, TierLevel::Condensed);
    assert_eq!(&out.messages[3..], &chain[80..]);
    assert_eq!(covered(&out.messages), 100);
}

#[test]
fn metadata_records_type_level_count_and_now() {
    let chain = with_system(chat_from(0, 100));
    let config = TiersConfig { now: Some("2025-06-01T12:00:00Z".into()), ..on_demand() };
    let out = run(&chain, &config, &Tagged::new()).unwrap();
    assert_eq!(
        out.messages[1].extra[METADATA_KEY],
        serde_json::json!({"type": "summary", "level": "compressed", "messageCount": 30, "createdAt": "2025-06-01T12:00:00Z"})
    );
    assert_eq!(
        out.messages[3].extra[METADATA_KEY],
        serde_json::json!({"type": "summary", "level": "condensed", "messageCount": 50, "createdAt": "2025-06-01T12:00:00Z"})
    );
    assert_eq!(info(&out.messages[3]).created_at.as_deref(), Some("2025-06-01T12:00:00Z"));
    // Without `now`, no creation time.
    let out = run(&chain, &on_demand(), &Tagged::new()).unwrap();
    assert!(out.messages[1].extra[METADATA_KEY].get("createdAt").is_none());
    // In the native JSON the metadata is a field of the message.
    let json = serde_json::to_value(&out.messages[1]).unwrap();
    assert_eq!(json[METADATA_KEY]["level"], "compressed");
}

#[test]
fn a_compressed_summary_is_recognized_by_its_prefix_when_metadata_is_lost() {
    let chain = with_system(chat_from(0, 100));
    let config = TiersConfig { now: Some("2025-06-01T12:00:00Z".into()), ..on_demand() };
    let out = run(&chain, &config, &Tagged::new()).unwrap();
    let stripped: Vec<Message> =
        out.messages.iter().map(|m| Message { extra: Default::default(), ..m.clone() }).collect();
    assert!(stripped[1].joined_text().starts_with(COMPRESSED_PREFIX));
    assert!(stripped[3].joined_text().starts_with(CONDENSED_PREFIX));
    assert_eq!(info(&stripped[1]), TierSummary { level: TierLevel::Compressed, message_count: 30, created_at: None });
    // Issue 14: an assistant (or user) text can imitate the prefix: only the system
    // message (the developer's) is recognized by it alone; without its metadata (a
    // provider format) the condensed summary is recognized by its seal, and the same
    // text without the seal is plain assistant text.
    assert_eq!(info(&stripped[3]).message_count, 50);
    let unsealed = contextfold::ast::unseal(&stripped[3].joined_text(), "condensed").unwrap().to_string();
    assert!(summary_info(&Message::text(Role::Assistant, unsealed)).is_none());
    assert_eq!(info(&out.messages[3]).message_count, 50);
    assert!(is_bridge(&stripped[2]));
    // A user message that merely contains the bridge text among other content is not one.
    let mut merged = out.messages[2].clone();
    merged.parts.push(Part::text("and my real question"));
    assert!(!is_bridge(&merged));
    // The role must fit the level.
    assert!(summary_info(&Message { role: Role::User, ..out.messages[3].clone() }).is_none());
    assert!(summary_info(&user("[Condensed history: 3 messages] hi")).is_none());
    assert!(summary_info(&ai("[Condensed history: many messages] hi")).is_none());
    assert!(summary_info(&ai("[Condensed history: 1 message] hi")).is_none());
    assert!(summary_info(&user("[Compressed history: 1 message] hi")).is_none());
    // Nothing new: still no call.
    let s = FixedSummarizer::new("S");
    let again = run(&stripped, &on_demand(), &s).unwrap();
    assert_eq!((s.calls(), again.changed), (0, false));
}

#[test]
fn a_round_trip_through_anthropic_keeps_the_tiers_recognizable() {
    let chain = with_system(chat_from(0, 100));
    let out = run(&chain, &on_demand(), &Tagged::new()).unwrap();
    // Anthropic joins the leading system messages into one `system` field.
    let json = write(&out.messages, Format::Anthropic).unwrap();
    let back = read(&json, Format::Anthropic).unwrap();
    assert_eq!(back.iter().filter(|m| m.role == Role::System).count(), 1);
    let mut grown = back.clone();
    grown.extend(chat_from(100, 60));
    let s = Tagged::new();
    let second = run(&grown, &on_demand(), &s).unwrap();
    ChainAst::parse(&second.messages).unwrap();
    assert_eq!(second.messages[0], chain[0], "the system prompt is split back out");
    assert_eq!(summaries(&second.messages, TierLevel::Compressed), 1);
    assert_eq!(summaries(&second.messages, TierLevel::Condensed), 1);
    assert_eq!(covered(&second.messages), 160);
    let requests = s.requests.borrow();
    let compressed = requests.iter().find(|r| r.kind == RequestKind::TierCompressed).unwrap();
    assert!(compressed.transcript.starts_with("<previous_summary>\nCOMPRESSED-"));
}

#[test]
fn parallel_tool_exchanges_are_never_split() {
    // 20 sections: user, an assistant with 3 calls, 3 results, an answer.
    let mut chain = vec![sys("You are an agent.")];
    for i in 0..20 {
        let ids: Vec<String> = (0..3).map(|c| format!("c{i}_{c}")).collect();
        chain.push(user(&format!("step {i}: look up three things about item {i}")));
        chain.push(ai_calls("", &ids.iter().map(|id| (id.as_str(), "search")).collect::<Vec<_>>()));
        for id in &ids {
            chain.push(tool(id, "search", &format!("result of {id}: three facts about the item")));
        }
        chain.push(ai(&format!("item {i} has three facts")));
    }
    // The 20-from-the-end and 50-before-that points fall on tool results; the tiers
    // start at the user messages before them.
    assert_eq!(chain[101].role, Role::Tool);
    let out = run(&chain, &on_demand(), &Tagged::new()).unwrap();
    ChainAst::parse(&out.messages).unwrap();
    let m = &out.messages;
    assert_eq!(info(&m[1]).message_count, 42);
    assert_eq!(info(&m[3]).message_count, 54);
    assert_eq!(&m[4..], &chain[97..]);
    assert_eq!(m[4].role, Role::User);
    assert_eq!(covered(m), 120);
}

#[test]
fn without_a_user_message_nearby_the_recent_tier_starts_at_an_exchange() {
    // One long agentic section: no user message after the first.
    let mut chain = vec![sys("You are an agent."), user("do the whole job, step by step")];
    for i in 0..60 {
        let id = format!("c{i}");
        chain.push(ai_calls(&format!("step {i}"), &[(&id, "run")]));
        chain.push(tool(&id, "run", &format!("output of step {i}: all fine, nothing to report")));
    }
    let config = TiersConfig { recent: 21, condensed: 30, ..on_demand() };
    let out = run(&chain, &config, &Tagged::new()).unwrap();
    ChainAst::parse(&out.messages).unwrap();
    let n = out.messages.len();
    // 22 recent messages: extended back to the call whose result was 21st from the end.
    let recent = &out.messages[n - 22..];
    assert_eq!(recent, &chain[chain.len() - 22..]);
    assert_eq!(recent[0].role, Role::Assistant);
    assert!(recent[0].has_tool_calls());
    assert_eq!(covered(&out.messages), chain.len() - 1);
    // The condensed summary is preceded by the bridge.
    let condensed = out.messages.iter().position(|m| summary_info(m).is_some_and(|i| i.level == TierLevel::Condensed));
    assert!(is_bridge(&out.messages[condensed.unwrap() - 1]));
}

#[test]
fn the_last_exchange_is_never_summarized() {
    // recent: 1 with the last message a tool result: the recent tier is the whole exchange.
    let mut chain = with_system(chat_from(0, 40));
    chain.push(user("now run it"));
    chain.push(ai_calls("running", &[("x", "run")]));
    chain.push(tool("x", "run", "done"));
    let config = TiersConfig { recent: 1, ..on_demand() };
    let out = run(&chain, &config, &Tagged::new()).unwrap();
    ChainAst::parse(&out.messages).unwrap();
    let n = out.messages.len();
    assert_eq!(&out.messages[n - 3..], &chain[chain.len() - 3..]);
}

#[test]
fn a_second_run_merges_summaries_instead_of_nesting_them() {
    let chain = with_system(chat_from(0, 100));
    let first = run(&chain, &on_demand(), &Tagged::new()).unwrap();
    let mut grown = first.messages.clone();
    grown.extend(chat_from(100, 60));
    let s = Tagged::new();
    let config = TiersConfig { now: Some("2025-06-02T08:00:00Z".into()), ..on_demand() };
    let second = run(&grown, &config, &s).unwrap();
    ChainAst::parse(&second.messages).unwrap();
    let m = &second.messages;
    assert_eq!(summaries(m, TierLevel::Compressed), 1);
    assert_eq!(summaries(m, TierLevel::Condensed), 1);
    // 30 + 50 + 10 newly aged messages are compressed, 50 condensed, 20 recent.
    assert_eq!(info(&m[1]).message_count, 90);
    assert_eq!(info(&m[1]).created_at.as_deref(), Some("2025-06-02T08:00:00Z"));
    assert_eq!(info(&m[3]).message_count, 50);
    assert_eq!(&m[4..], &grown[grown.len() - 20..]);
    assert_eq!(covered(m), 160);
    assert_eq!((second.report.calls, second.report.waves), (2, 1));
    // The compressed request updates the old compressed summary, with the old
    // condensed summary among the messages aging into it.
    let requests = s.requests.borrow();
    let compressed = requests.iter().find(|r| r.kind == RequestKind::TierCompressed).unwrap();
    assert!(compressed.transcript.starts_with("<previous_summary>\nCOMPRESSED-"));
    assert!(compressed.prompt().contains("</previous_summary>"));
    assert!(compressed.transcript.contains("[Condensed history: 50 messages] CONDENSED-"));
    assert!(compressed.transcript.contains("question 80:") && !compressed.transcript.contains("question 90:"));
    let condensed = requests.iter().find(|r| r.kind == RequestKind::TierCondensed).unwrap();
    assert!(!condensed.transcript.contains("<previous_summary>"));
    let merged: Vec<bool> = second
        .report
        .sections
        .iter()
        .flat_map(|s| &s.actions)
        .filter_map(|a| match a {
            Action::Tiered { level, merged, .. } => Some((*level == "compressed") == *merged),
            _ => None,
        })
        .collect();
    assert_eq!(merged, vec![true, true]);
    // A third run over 100 more messages still leaves one summary per level.
    let mut grown = second.messages.clone();
    grown.extend(chat_from(160, 100));
    let third = run(&grown, &on_demand(), &Tagged::new()).unwrap();
    ChainAst::parse(&third.messages).unwrap();
    assert_eq!(summaries(&third.messages, TierLevel::Compressed), 1);
    assert_eq!(summaries(&third.messages, TierLevel::Condensed), 1);
    assert_eq!(covered(&third.messages), 260);
}

#[test]
fn a_condensed_summary_absorbs_new_messages_while_it_has_room() {
    let chain = with_system(chat_from(0, 60));
    let first = run(&chain, &on_demand(), &Tagged::new()).unwrap();
    ChainAst::parse(&first.messages).unwrap();
    // 40 messages condensed, no compressed summary yet.
    assert_eq!(summaries(&first.messages, TierLevel::Compressed), 0);
    assert!(is_bridge(&first.messages[1]));
    assert_eq!(info(&first.messages[2]).message_count, 40);
    let mut grown = first.messages.clone();
    grown.extend(chat_from(60, 6));
    let s = Tagged::new();
    let second = run(&grown, &on_demand(), &s).unwrap();
    ChainAst::parse(&second.messages).unwrap();
    assert_eq!(s.requests.borrow().len(), 1);
    let request = &s.requests.borrow()[0];
    assert_eq!(request.kind, RequestKind::TierCondensed);
    assert!(request.transcript.starts_with("<previous_summary>\nCONDENSED-"));
    assert_eq!(info(&second.messages[2]).message_count, 46);
    assert_eq!(summaries(&second.messages, TierLevel::Condensed), 1);
    assert_eq!(covered(&second.messages), 66);
}

#[test]
fn compacting_a_compacted_chain_makes_no_call() {
    let chain = with_system(chat_from(0, 130));
    let first = run(&chain, &on_demand(), &Tagged::new()).unwrap();
    assert!(!needs_compaction(&first.messages, &on_demand()));
    let s = FixedSummarizer::new("S");
    let again = run(&first.messages, &on_demand(), &s).unwrap();
    assert_eq!((s.calls(), again.report.calls, again.report.waves), (0, 0, 0));
    assert!(!again.changed);
    assert_eq!(again.messages, first.messages);
    assert!(again.report.sections.is_empty());
    // A chain at or under the recent tier: nothing to do either.
    let short = with_system(chat_from(0, 20));
    let out = run(&short, &on_demand(), &s).unwrap();
    assert_eq!((s.calls(), out.changed), (0, false));
}

#[test]
fn the_trigger_counts_all_messages() {
    let config = TiersConfig::default();
    assert!(!needs_compaction(&chat_from(0, 100), &config));
    assert!(needs_compaction(&chat_from(0, 101), &config));
    assert!(!needs_compaction(&chat_from(0, 500), &TiersConfig { auto: false, ..config.clone() }));
    let low = TiersConfig { auto_threshold: 10, recent: 4, min_summarize_bytes: 0, ..config };
    assert!(needs_compaction(&chat_from(0, 11), &low));
    assert!(!needs_compaction(&[], &low));
    // Nothing older than the recent tier: nothing to do, however many messages.
    assert!(!needs_compaction(&chat_from(0, 11), &TiersConfig { recent: 20, ..low }));
    // A compacted history triggers again only after enough new messages.
    let first = run(&with_system(chat_from(0, 101)), &TiersConfig::default(), &Tagged::new()).unwrap();
    let mut grown = first.messages.clone();
    let mut added = 0;
    while !needs_compaction(&grown, &TiersConfig::default()) {
        grown.extend(chat_from(101 + added, 1));
        added += 1;
    }
    assert_eq!(added, 101 - first.messages.len());
    assert!(added > 70);
}

#[test]
fn the_trigger_and_compact_agree_as_a_chat_grows() {
    // A caller compacting before every request (as a stateless route handler does): the
    // chain is re-tiered, and the summarizer called, exactly when the trigger says so,
    // past `autoThreshold` messages, not on every other turn.
    let config = TiersConfig { auto_threshold: 40, ..TiersConfig::for_budget(Amount::Tokens(8000)) };
    let s = Tagged::new();
    let mut chain = with_system(Vec::new());
    let mut fired = 0;
    for turn in 0..120 {
        chain.extend(chat_from(2 * turn, 1));
        let needs = needs_compaction(&chain, &config);
        let calls = s.requests.borrow().len();
        let out = run(&chain, &config, &s).unwrap();
        assert_eq!(out.changed, needs, "turn {turn}: needsCompaction {needs}, compact changed {}", out.changed);
        assert_eq!(s.requests.borrow().len() > calls, needs, "turn {turn}");
        fired += usize::from(needs);
        chain = out.messages;
        chain.extend(chat_from(2 * turn + 1, 1));
    }
    // Each fold brings 40+ messages down to about 20: a fold every ten turns or so.
    assert!((3..=12).contains(&fired), "{fired} folds in 120 turns");
}

#[test]
fn sizes_follow_the_budget() {
    let c = TiersConfig::for_budget(Amount::Tokens(8000));
    assert_eq!((c.condensed_bytes, c.compressed_bytes), (8000, 3200));
    assert_eq!((c.recent, c.condensed, c.auto_threshold, c.auto), (20, 50, 100, true));
    let c = TiersConfig::for_budget(Amount::Bytes(1000));
    assert_eq!((c.condensed_bytes, c.compressed_bytes), (250, 200));
}

fn failing_on(
    kind: RequestKind,
) -> FnSummarizer<impl Fn(SummaryRequest) -> std::future::Ready<Result<String, SummarizeError>>> {
    FnSummarizer(move |r: SummaryRequest| {
        std::future::ready(if r.kind == kind {
            Err(SummarizeError::failed("provider down"))
        } else {
            Ok("the user asked about topics and got answers".to_string())
        })
    })
}

#[test]
fn a_failed_call_rolls_back_by_default() {
    let chain = with_system(chat_from(0, 100));
    let out = run(&chain, &on_demand(), &failing_on(RequestKind::TierCondensed)).unwrap();
    assert_eq!(out.messages, chain);
    assert!(!out.changed && out.report.rolled_back && !out.report.cancelled);
    assert_eq!(out.report.errors.len(), 1);
    assert_eq!(out.report.calls, 2);
    let failed = out
        .report
        .sections
        .iter()
        .flat_map(|s| &s.actions)
        .any(|a| matches!(a, Action::Failed { kind: RequestKind::TierCondensed, .. }));
    assert!(failed);
}

#[test]
fn throw_returns_the_errors() {
    let chain = with_system(chat_from(0, 100));
    let config = TiersConfig { on_error: OnError::Throw, ..on_demand() };
    let err = run(&chain, &config, &failing_on(RequestKind::TierCompressed)).unwrap_err();
    assert!(matches!(&err, CompactError::Summarizer(e) if e.len() == 1));
    assert_eq!(err.code(), "summarizer_failed");
}

#[test]
fn partial_keeps_what_succeeded_and_the_rest_verbatim() {
    let chain = with_system(chat_from(0, 100));
    let config = TiersConfig { on_error: OnError::Partial, ..on_demand() };
    // The condensed call fails: compressed summary, then everything newer verbatim.
    let out = run(&chain, &config, &failing_on(RequestKind::TierCondensed)).unwrap();
    ChainAst::parse(&out.messages).unwrap();
    assert!(!out.report.rolled_back && out.changed);
    assert_eq!(out.report.errors.len(), 1);
    assert_eq!(info(&out.messages[1]).message_count, 30);
    assert_eq!(&out.messages[2..], &chain[31..]);
    assert_eq!(covered(&out.messages), 100);
    // The compressed call fails: the oldest messages verbatim, then the condensed summary.
    let out = run(&chain, &config, &failing_on(RequestKind::TierCompressed)).unwrap();
    ChainAst::parse(&out.messages).unwrap();
    assert_eq!(&out.messages[..31], &chain[..31]);
    assert_eq!(info(&out.messages[31]).level, TierLevel::Condensed);
    assert_eq!(&out.messages[32..], &chain[81..]);
    assert_eq!(covered(&out.messages), 100);
    // Both fail: the original chain, errors reported.
    let fail_all = FnSummarizer(|_r: SummaryRequest| async { Err(SummarizeError::failed("down")) });
    let out = run(&chain, &config, &fail_all).unwrap();
    assert_eq!((out.messages == chain, out.report.errors.len()), (true, 2));
}

#[test]
fn cancellation_rolls_back() {
    let chain = with_system(chat_from(0, 100));
    let controls = Controls::default();
    let flag = controls.cancel.clone();
    let s = FnSummarizer(move |_r: SummaryRequest| {
        let flag = flag.clone();
        async move {
            flag.cancel();
            Delay(3).await;
            Ok("summary".to_string())
        }
    });
    let out = block_on(compact(&chain, &on_demand(), &s, &controls, Meter::default())).unwrap();
    assert!(out.report.cancelled && out.report.rolled_back);
    assert_eq!(out.messages, chain);
    // Throw does not turn a cancellation into an error.
    let controls = Controls::default();
    controls.cancel.cancel();
    let config = TiersConfig { on_error: OnError::Throw, ..on_demand() };
    let out = block_on(compact(&chain, &config, &FixedSummarizer::new("S"), &controls, Meter::default())).unwrap();
    assert!(out.report.cancelled && out.messages == chain);
}

#[test]
fn a_summary_never_replaces_smaller_content() {
    let chain = with_system(chat_from(0, 100));
    let s = FixedSummarizer::new("x".repeat(10_000));
    let out = run(&chain, &on_demand(), &s).unwrap();
    // Issue 14: a summary larger than its span was discarded and asked for again on every
    // run; it is cut to fit instead (reported), so the result is smaller and a rerun free.
    assert!(out.changed && !out.report.rolled_back);
    assert!(messages_size(&out.messages) < messages_size(&chain));
    let actions: Vec<&Action> = out.report.sections.iter().flat_map(|s| &s.actions).collect();
    assert_eq!(actions.iter().filter(|a| matches!(a, Action::Truncated { .. })).count(), 2, "{actions:?}");
    assert!(actions.iter().all(|a| !matches!(a, Action::NoGain { .. })));
    let again = FixedSummarizer::new("x".repeat(10_000));
    run(&out.messages, &on_demand(), &again).unwrap();
    assert_eq!(again.calls(), 0);
    // Content under the minimum is not even sent.
    let tiny: Vec<Message> = (0..60).map(|i| if i % 2 == 0 { user("q") } else { ai("a") }).collect();
    let s = FixedSummarizer::new("S");
    let out = run(&tiny, &on_demand(), &s).unwrap();
    assert_eq!((s.calls(), out.changed), (0, false));
    assert!(out.report.sections[0].actions.iter().any(|a| matches!(a, Action::Skipped { .. })));
}

#[test]
fn a_repaired_input_gives_a_strict_chain() {
    // A missing tool result among old messages: repaired, then tiered.
    let mut chain = with_system(chat_from(0, 40));
    chain.insert(10, ai_calls("checking", &[("lost", "run")]));
    chain.extend(chat_from(40, 40));
    let out = run(&chain, &on_demand(), &Tagged::new()).unwrap();
    assert!(!out.report.repairs.is_empty());
    ChainAst::parse(&out.messages).unwrap();
}

#[test]
fn every_real_transcript_tiers_into_a_smaller_strict_chain() {
    let Some(files) = real_fixtures() else { return };
    let s = ExtractiveSummarizer::default();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let (messages, _) = read_auto(&parse_json(&text).unwrap()).unwrap();
        let before = messages.clone();
        for (recent, condensed) in [(4, 10), (1, 2)] {
            let config = TiersConfig { recent, condensed, ..on_demand() };
            let name = format!("{name} ({recent}/{condensed})");
            let out = run(&messages, &config, &s).unwrap();
            assert_eq!(messages, before, "{name}: input unchanged");
            assert!(out.report.errors.is_empty(), "{name}");
            let ast = ChainAst::parse(&out.messages).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_sizes_consistent(&ast);
            println!(
                "{name}: {} -> {} messages, {} -> {} bytes, {} calls",
                out.report.before.messages,
                out.report.after.messages,
                out.report.before.bytes,
                out.report.after.bytes,
                out.report.calls
            );
            if messages.len() > recent {
                assert!(out.report.after.bytes < out.report.before.bytes, "{name}: smaller");
            } else {
                assert!(!out.changed, "{name}: nothing older than the recent tier");
            }
            assert!(summaries(&out.messages, TierLevel::Compressed) <= 1, "{name}");
            assert!(summaries(&out.messages, TierLevel::Condensed) <= 1, "{name}");
            assert_eq!(out.messages.last(), messages.last(), "{name}: the latest message is kept");
            let again = run(&out.messages, &config, &s).unwrap();
            assert_eq!(again.report.calls, 0, "{name}: a second run makes no call");
            assert_eq!(again.messages, out.messages, "{name}");
        }
    }
}

fn chain_strategy() -> impl Strategy<Value = (ChainConfig, usize, usize)> {
    (1usize..25, any::<bool>(), 1usize..20, 0usize..30).prop_flat_map(|(sections, system, recent, condensed)| {
        (
            prop::collection::vec(1usize..4, sections),
            prop::collection::vec(any::<bool>(), sections * 3),
            prop::collection::vec(1usize..4, sections * 3),
        )
            .prop_map(move |(pairs, tools, calls)| {
                let config = ChainConfig {
                    include_system: system,
                    sections,
                    pairs_per_section: pairs,
                    tools_for_pairs: tools,
                    tool_calls_per_pair: calls,
                    include_all_tool_responses: true,
                };
                (config, recent, condensed)
            })
    })
}

proptest! {
    #[test]
    fn generated_chains_tier_strictly_and_counts_add_up((shape, recent, condensed) in chain_strategy()) {
        let chain = generate_chain(&shape);
        let before = chain.clone();
        let config = TiersConfig { recent, condensed, min_summarize_bytes: 0, ..on_demand() };
        let s = FixedSummarizer::new("S");
        let out = run(&chain, &config, &s).unwrap();
        prop_assert_eq!(&chain, &before);
        ChainAst::parse(&out.messages).unwrap();
        let body = chain.len() - usize::from(shape.include_system);
        prop_assert_eq!(covered(&out.messages), body);
        prop_assert!(summaries(&out.messages, TierLevel::Compressed) <= 1);
        prop_assert!(summaries(&out.messages, TierLevel::Condensed) <= 1);
        // The recent tier is the input's tail, at least `recent` messages long.
        let tail = out.messages.iter().rev().take_while(|m| summary_info(m).is_none() && !is_bridge(m) && m.role != Role::System).count();
        prop_assert_eq!(&out.messages[out.messages.len() - tail..], &chain[chain.len() - tail..]);
        prop_assert!(tail >= recent.min(body));
        if out.changed {
            prop_assert_eq!(out.report.waves, 1);
            prop_assert!(out.report.after.bytes < out.report.before.bytes);
        }
        // More messages, a second run: still one summary per level, counts add up.
        let mut grown = out.messages.clone();
        let next = generate_chain(&ChainConfig { include_system: false, ..shape.clone() });
        grown.extend(next.iter().cloned());
        let second = run(&grown, &config, &s).unwrap();
        ChainAst::parse(&second.messages).unwrap();
        prop_assert_eq!(covered(&second.messages), body + next.len());
        prop_assert!(summaries(&second.messages, TierLevel::Compressed) <= 1);
        prop_assert!(summaries(&second.messages, TierLevel::Condensed) <= 1);
        // Nothing new: no call, unless a summary was discarded for no gain.
        let no_gain = second.report.sections.iter().flat_map(|s| &s.actions).any(|a| matches!(a, Action::NoGain { .. }));
        if !no_gain {
            let calls = s.calls();
            let third = run(&second.messages, &config, &s).unwrap();
            prop_assert_eq!(s.calls(), calls);
            prop_assert_eq!(third.messages, second.messages);
        }
    }
}

#[test]
fn summary_parts_survive_serialization() {
    let chain = with_system(chat_from(0, 100));
    let out = run(&chain, &on_demand(), &Tagged::new()).unwrap();
    let json = serde_json::to_string(&out.messages).unwrap();
    let back: Vec<Message> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, out.messages);
    assert!(matches!(&back[3].parts[..], [Part::Text(_)]));
}
