//! The DESIGN.md invariants, asserted for every strategy on every real transcript (and the
//! shipped demo session) through the one entry point users reach, `strategy::run`:
//! valid output for the provider, the latest exchange kept, signatures never altered,
//! every summary smaller than what it replaced, kept content unchanged, idempotent,
//! rollback on failure, input never mutated.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;
use common::folding_strategies;

use contextfold::ast::{ChainAst, SUMMARIZATION_TOOL_NAME};
use contextfold::format::{parse_json, read_auto, Format};
use contextfold::measure::Meter;
use contextfold::message::{Message, Part};
use contextfold::repair::{validate, Provider, RepairOptions};
use contextfold::strategy::run::{compact, needs_compaction, CompactOptions, StrategyConfig};
use contextfold::strategy::Action;
use contextfold::summarize::extractive::ExtractiveSummarizer;
use contextfold::summarize::mock::FnSummarizer;
use contextfold::summarize::{Controls, SummarizeError, Summarizer, SummaryRequest};
use futures::executor::block_on;
use std::cell::RefCell;
use std::collections::HashSet;
use std::path::PathBuf;

fn provider(format: Format) -> Provider {
    contextfold::convert::provider_of(format)
}

/// `messages` compacted by every folding strategy under `format`'s provider rules, each
/// result with the strategy's name.
fn by_every_strategy(
    messages: &[Message],
    format: Format,
    summarizer: &ExtractiveSummarizer,
) -> Vec<(&'static str, contextfold::strategy::CompactResult)> {
    folding_strategies()
        .into_iter()
        .map(|strategy| {
            let what = strategy.name();
            let options = CompactOptions {
                strategy,
                repair: RepairOptions::for_provider(provider(format)),
                ..Default::default()
            };
            let out = block_on(compact(messages, &options, summarizer, &Controls::default(), Meter::default()))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            (what, out)
        })
        .collect()
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

/// The extractive summarizer, remembering every summary it gave.
#[derive(Default)]
struct Recording {
    inner: ExtractiveSummarizer,
    given: RefCell<Vec<(String, usize)>>,
}

impl Summarizer for Recording {
    async fn summarize(&self, request: SummaryRequest) -> Result<String, SummarizeError> {
        let transcript = request.transcript.len();
        let text = self.inner.summarize(request).await?;
        self.given.borrow_mut().push((text.clone(), transcript));
        Ok(text)
    }
}

/// A part with its reasoning removed, as the thinking rule may drop it from a call.
fn without_reasoning(part: &Part) -> Part {
    let mut part = part.clone();
    if let Part::ToolCall(c) = &mut part {
        c.signature = None;
    }
    part
}

/// Invariant 6, kept content comes back unchanged: every part of the output is a part of the input
/// (possibly with its reasoning dropped by the provider rule), a summary the summarizer
/// gave, the call of a summarization pair, or a placeholder the repair pass adds.
fn assert_kept_parts_unchanged(what: &str, input: &[Message], output: &[Message], summaries: &[(String, usize)]) {
    let known: Vec<Part> = input.iter().flat_map(|m| m.parts.iter().map(without_reasoning)).collect();
    let is_summary = |text: &str| summaries.iter().any(|(s, _)| !s.trim().is_empty() && text.contains(s.trim()));
    for (i, m) in output.iter().enumerate() {
        for part in &m.parts {
            let ok = match part {
                Part::ToolCall(c) if c.name == SUMMARIZATION_TOOL_NAME => true,
                Part::ToolResult(r) => {
                    known.contains(&without_reasoning(part))
                        // Masked: the same call answered by a placeholder saying what was there.
                        || matches!(r.content.as_slice(), [Part::Text(t)] if contextfold::strategy::mask::is_masked(&t.text))
                        || r.content.iter().any(|p| matches!(p, Part::Text(t) if is_summary(&t.text)))
                        || r.content.iter().all(|p| matches!(p, Part::Text(t) if t.text.len() < 200))
                }
                Part::Text(t) => known.contains(part) || is_summary(&t.text) || t.text.len() < 200,
                other => known.contains(&without_reasoning(other)),
            };
            assert!(ok, "{what}: output message {i} has a part that is neither kept nor a summary: {part:?}");
        }
    }
}

/// Invariant 2: the latest exchange (the last body pair) comes back whole.
fn assert_latest_pair_kept(what: &str, input: &[Message], output: &[Message]) {
    let Ok(ast) = ChainAst::parse(input) else { return };
    let Some(pair) = ast.sections().last().and_then(|s| s.body().last()) else { return };
    let latest = pair.messages();
    let tail = output.get(output.len().saturating_sub(latest.len())..).unwrap_or_default();
    let strip = |ms: &[Message]| -> Vec<Vec<Part>> {
        ms.iter()
            .map(|m| m.parts.iter().filter(|p| !matches!(p, Part::Reasoning(_))).map(without_reasoning).collect())
            .collect()
    };
    assert_eq!(strip(tail), strip(&latest), "{what}: the latest exchange changed");
}

#[test]
fn every_strategy_keeps_every_invariant_on_every_transcript() {
    for (name, messages, format) in inputs() {
        let provider = provider(format);
        let original = messages.clone();
        let known = signatures(&messages);
        for strategy in folding_strategies() {
            let what = format!("{name} / {}", strategy.name());
            let options =
                CompactOptions { strategy, repair: RepairOptions::for_provider(provider), ..Default::default() };
            let summarizer = Recording::default();
            let out = block_on(compact(&messages, &options, &summarizer, &Controls::default(), Meter::default()))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let given = summarizer.given.borrow().clone();
            // 8. The input is never mutated.
            assert_eq!(messages, original, "{what}: input mutated");
            // 1. Valid for the provider.
            let diagnostics = validate(&out.messages, provider);
            assert!(diagnostics.is_empty(), "{what}: {diagnostics:?}");
            // 2. The latest exchange is never summarized away.
            assert_eq!(out.messages.last(), messages.last(), "{what}: the latest message changed");
            assert_latest_pair_kept(&what, &messages, &out.messages);
            // 6. Kept content unchanged.
            assert_kept_parts_unchanged(&what, &messages, &out.messages, &given);
            // 2. Signatures pass through unaltered (or are dropped); the only new one is the
            // documented fake signature of summarization calls.
            for s in signatures(&out.messages) {
                assert!(known.contains(&s) || s == "skip_thought_signature_validator", "{what}: new signature {s}");
            }
            // 4. Every summary is smaller than the transcript it was made from, and a
            // change makes the chain smaller.
            for (text, transcript) in &given {
                assert!(text.len() < *transcript, "{what}: a summary of {} bytes for {transcript}", text.len());
            }
            if out.changed {
                assert!(out.report.after.bytes < out.report.before.bytes, "{what}: {:?}", out.report);
            }
            // The report's totals are the estimate of the chains as given and as returned,
            // however a strategy reuses the counts it made.
            let estimate = contextfold::measure::estimate_tokens;
            assert_eq!(out.report.before.tokens, estimate(&messages), "{what}: tokens before");
            assert_eq!(out.report.after.tokens, estimate(&out.messages), "{what}: tokens after");
            // 5. Idempotent: nothing new, no call.
            let again = block_on(compact(
                &out.messages,
                &options,
                &Recording::default(),
                &Controls::default(),
                Meter::default(),
            ))
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

/// The built-in summarizer reads the messages of a request where they lie, no transcript
/// rendered; wrapped in a summarizer that only has `summarize`, it reads the transcript.
/// Both give the same compaction, whatever the strategy and transcript.
/// Every input with every folding strategy: what it is, its messages, and the options
/// (the strategy, the repair of the input format's provider).
fn cases() -> Vec<(String, Vec<Message>, CompactOptions)> {
    let mut cases = Vec::new();
    for (name, messages, format) in inputs() {
        for strategy in folding_strategies() {
            let what = format!("{name} / {}", strategy.name());
            let repair = RepairOptions::for_provider(provider(format));
            cases.push((what, messages.clone(), CompactOptions { strategy, repair, ..Default::default() }));
        }
    }
    cases
}

#[test]
fn the_built_in_summarizer_reads_messages_as_it_reads_their_transcript() {
    let direct = ExtractiveSummarizer::default();
    assert!(direct.reads_messages());
    for (what, messages, options) in cases() {
        let from_messages = block_on(compact(&messages, &options, &direct, &Controls::default(), Meter::default()));
        let transcripts = Recording::default();
        assert!(!transcripts.reads_messages());
        let from_transcripts =
            block_on(compact(&messages, &options, &transcripts, &Controls::default(), Meter::default()));
        let (a, b) = (from_messages.unwrap_or_else(|e| panic!("{what}: {e}")), from_transcripts.unwrap());
        assert_eq!(a.messages, b.messages, "{what}");
        assert_eq!(a.report, b.report, "{what}");
        assert_eq!(a.report.calls, transcripts.given.borrow().len(), "{what}");
    }
}

#[test]
fn a_failing_summarizer_returns_the_original_chain_or_fails_the_call() {
    let fail = FnSummarizer(|_r: SummaryRequest| async { Err(SummarizeError::failed("model down")) });
    for (what, messages, options) in cases() {
        let result = block_on(compact(&messages, &options, &fail, &Controls::default(), Meter::default()));
        // The budget is hard: the original does not fit it, so the call fails instead.
        if matches!(options.strategy, StrategyConfig::Budget(_)) {
            if let Err(e) = &result {
                assert_eq!(e.code(), "summarizer_failed", "{what}: {e}");
                assert!(e.to_string().contains("model down"), "{what}: {e}");
                continue;
            }
        }
        let out = result.unwrap_or_else(|e| panic!("{what}: {e}"));
        // 3. Nothing is lost: the original chain, the errors reported.
        if out.report.calls > 0 {
            assert!(out.report.rolled_back, "{what}");
            assert!(!out.report.errors.is_empty(), "{what}");
        } else if out.changed {
            // Masking alone (mask, or auto when it sufficed) calls no summarizer.
            assert!(out.report.errors.is_empty(), "{what}");
            let masked = out.report.sections.iter().flat_map(|s| &s.actions);
            assert!(
                masked.clone().count() > 0 && masked.into_iter().all(|a| matches!(a, Action::Masked { .. })),
                "{what}"
            );
            continue;
        }
        // The original, with the provider repairs it needs (an Anthropic assistant
        // message's whitespace-only text beside its tool use, say).
        let expected = if validate(&messages, options.repair.provider).is_empty() {
            messages.clone()
        } else {
            contextfold::repair::repair(&messages, &options.repair).messages
        };
        assert_eq!(out.messages, expected, "{what}");
        assert_eq!(out.changed, expected != messages, "{what}");
    }
}

/// What a strategy writes measures the same once written in any format and read back
/// (a Gemini or AI SDK summary result carries its call's name on the wire, and that name
/// counted made the chain read back 30 bytes per summary larger), so compacting it again,
/// as the caller's next request does, makes no call.
#[test]
fn a_compacted_chain_measures_the_same_read_back_in_every_format() {
    use contextfold::format::{read, write};
    use contextfold::message::messages_size;
    let summarizer = ExtractiveSummarizer::default();
    let (_, demo, _) = inputs().into_iter().next().unwrap();
    for format in [Format::OpenAi, Format::Anthropic, Format::Gemini, Format::AiSdk, Format::LangChain] {
        let Ok(written) = write(&demo, format) else { continue };
        let messages = read(&written, format).unwrap();
        for (what, out) in by_every_strategy(&messages, format, &summarizer) {
            let what = format!("{format:?} {what}");
            assert!(out.report.calls > 0 || out.changed, "{what}: nothing compacted");
            let back = read(&write(&out.messages, format).unwrap(), format).unwrap();
            assert_eq!(messages_size(&back), messages_size(&out.messages), "{what}");
            assert_eq!(messages_size(&back), out.report.after.bytes, "{what}");
        }
    }
}

/// A result stored before its call, an empty user message between them (found by the
/// fuzzer): the repair pass drops the empty message first and then moves the result behind
/// its call, so `compact` repairs the chain as `repairChain` does before compacting it, and
/// a rollback gives exactly that back (it dropped the result as an orphan before).
#[test]
fn a_rollback_gives_the_chain_repaired_as_repair_chain_does() {
    use contextfold::message::{Role, ToolCallPart};
    let fail = FnSummarizer(|_r: SummaryRequest| async { Err(SummarizeError::failed("model down")) });
    let (_, demo, _) = inputs().into_iter().next().unwrap();
    let mut messages = demo.clone();
    messages.push(Message::text(Role::Assistant, "Searching."));
    messages.push(Message::tool_result("call_late", "search", "3 matches"));
    messages.push(Message::new(Role::User, Vec::new()));
    messages.push(Message::new(
        Role::Assistant,
        vec![Part::ToolCall(ToolCallPart {
            id: "call_late".into(),
            name: "search".into(),
            arguments: "{}".into(),
            signature: None,
            extra: Default::default(),
        })],
    ));
    for format in [Format::OpenAi, Format::Anthropic, Format::Gemini] {
        let repair = RepairOptions::for_provider(provider(format));
        let expected = contextfold::repair::repair(&messages, &repair).messages;
        assert_eq!(
            expected.last().and_then(|m| m.tool_results().next()).map(|r| r.call_id.as_str()),
            Some("call_late")
        );
        for strategy in folding_strategies() {
            let what = format!("{format:?} {}", strategy.name());
            let options = CompactOptions { strategy, repair: repair.clone(), ..Default::default() };
            let out = match block_on(compact(&messages, &options, &fail, &Controls::default(), Meter::default())) {
                // A hard budget the original does not fit fails the call instead.
                Err(e) if matches!(options.strategy, StrategyConfig::Budget(_)) => {
                    assert_eq!(e.code(), "summarizer_failed", "{what}: {e}");
                    continue;
                }
                other => other.unwrap_or_else(|e| panic!("{what}: {e}")),
            };
            if out.report.calls > 0 {
                assert!(out.report.rolled_back, "{what}");
                assert_eq!(out.messages, expected, "{what}");
            }
            assert!(validate(&out.messages, provider(format)).is_empty(), "{what}");
        }
    }
}

/// A system message after the start (a mid-chat instruction, the AI SDK's
/// `allowSystemInMessages`) stays a system message where the provider takes one there
/// (OpenAI, Anthropic), and is made a user message in place where it does not (Gemini,
/// the generic rules), as `repairChain` does; either way the chain compacts (it failed as
/// `system_after_start` before) and the instruction is kept or summarized.
#[test]
fn a_system_message_after_the_start_stays_or_is_repaired_and_the_chain_compacts() {
    use contextfold::message::Role;
    use contextfold::repair::RepairStep;
    let summarizer = ExtractiveSummarizer::default();
    let (_, demo, _) = inputs().into_iter().next().unwrap();
    let mut messages = demo.clone();
    let late = messages.len() - 1;
    messages.insert(late, Message::text(Role::System, "The user is now on the billing page."));
    for format in [Format::OpenAi, Format::Anthropic, Format::Gemini] {
        let anywhere = provider(format).system_anywhere();
        for (what, out) in by_every_strategy(&messages, format, &summarizer) {
            let lowered = out.report.provider_repairs.contains(&RepairStep::SystemToUser { index: late });
            assert_eq!(lowered, !anywhere, "{format:?} {what}");
            assert!(validate(&out.messages, provider(format)).is_empty(), "{format:?} {what}");
            let role = if anywhere { Role::System } else { Role::User };
            let said = out.messages.iter().filter(|m| m.role == role).any(|m| m.joined_text().contains("billing page"));
            assert!(said, "{format:?} {what}: the instruction is kept, as a {} message", role.as_str());
        }
    }
}

/// A turn in progress (the last message calls tools whose results have not come yet: a
/// tool running, a call waiting for the user's approval) comes back as it was, its
/// calls open, for every strategy; the history before it is compacted as usual.
#[test]
fn a_turn_in_progress_comes_back_open_for_every_strategy() {
    use contextfold::message::{Role, ToolCallPart};
    let summarizer = ExtractiveSummarizer::default();
    let (_, demo, format) = inputs().into_iter().next().unwrap();
    let mut messages = demo.clone();
    messages.push(Message::text(Role::User, "Now run the migration."));
    let mut turn = Message::text(Role::Assistant, "Asking first.");
    turn.parts.push(Part::ToolCall(ToolCallPart {
        id: "call_confirm".into(),
        name: "askForConfirmation".into(),
        arguments: r#"{"message":"Run migration 0042?"}"#.into(),
        signature: None,
        extra: Default::default(),
    }));
    messages.push(turn.clone());
    for (what, out) in by_every_strategy(&messages, format, &summarizer) {
        assert_eq!(out.messages.last(), Some(&turn), "{what}: the turn in progress changed");
        assert!(out.messages.iter().all(|m| m.tool_results().all(|r| r.call_id != "call_confirm")), "{what}");
        assert!(validate(&out.messages, provider(format)).is_empty(), "{what}");
        assert!(out.changed && out.report.after.bytes < out.report.before.bytes, "{what}: nothing compacted");
        assert_eq!(out.report.before.messages, messages.len(), "{what}");
    }
    // Parallel calls answered one at a time: the turn and its results so far come back
    // as they were, the call still open gets no made-up result.
    let mut messages = demo;
    messages.push(Message::text(Role::User, "Read both files."));
    let mut turn = Message::text(Role::Assistant, "Reading.");
    for id in ["call_a", "call_b"] {
        turn.parts.push(Part::ToolCall(ToolCallPart {
            id: id.into(),
            name: "read".into(),
            arguments: "{}".into(),
            signature: None,
            extra: Default::default(),
        }));
    }
    let answered = Message::tool_result("call_a", "read", "the first file");
    messages.push(turn.clone());
    messages.push(answered.clone());
    for (what, out) in by_every_strategy(&messages, format, &summarizer) {
        assert_eq!(out.messages[out.messages.len() - 2..], [turn.clone(), answered.clone()], "{what}");
        assert!(out.messages.iter().all(|m| m.tool_results().all(|r| r.call_id != "call_b")), "{what}");
        assert!(validate(&out.messages, provider(format)).is_empty(), "{what}");
        assert!(out.changed && out.report.after.bytes < out.report.before.bytes, "{what}: nothing compacted");
        // The trigger waits for the last result: no request can be made before it.
        let over = StrategyConfig::Budget(contextfold::strategy::budget::BudgetConfig::new(
            contextfold::measure::Amount::Tokens(100),
        ));
        assert!(!needs_compaction(&messages, &over, Meter::default()), "mid-turn");
        let mut done = messages.clone();
        done.push(Message::tool_result("call_b", "read", "the second file"));
        assert!(needs_compaction(&done, &over, Meter::default()), "once the turn is answered");
    }
}
