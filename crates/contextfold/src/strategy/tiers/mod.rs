//! The `tiers` strategy ("eternal history"): by message count, the last `recent`
//! messages stay verbatim, the `condensed` before them become one condensed summary
//! (medium compression), and everything older one compressed summary (essential facts).
//!
//! Layout of the result:
//! ```text
//! leading system messages (kept)
//! | compressed summary: a system message     "[Compressed history: 30 messages] ..."
//! | bridge: a user message, only when what follows starts with an assistant message
//! | condensed summary: an assistant message  "[Condensed history: 50 messages] ..."
//! | bridge: a user message, only when the recent messages start with an assistant one
//! | the recent messages, verbatim
//! ```
//! A chain cannot go system -> assistant -> user, nor (for providers that require
//! alternation) assistant -> assistant, hence the bridge ([`BRIDGE_TEXT`]); it covers no
//! message.
//!
//! # Marking
//! A summary is marked twice. Its `extra` map holds, under [`METADATA_KEY`] (a field of
//! the message in the native JSON, written verbatim by formats that keep unknown
//! fields):
//! ```json
//! "contextfold": { "type": "summary", "level": "condensed", "messageCount": 50,
//!                  "createdAt": "2025-06-01T12:00:00Z" }
//! ```
//! `createdAt` is [`TiersConfig::now`] (the core has no clock), left out when `None`. The
//! bridge has `{ "type": "bridge" }`. And its text starts with [`COMPRESSED_PREFIX`] or
//! [`CONDENSED_PREFIX`] followed by `N messages] `. Text alone can be imitated by any
//! message, so it identifies only a system message (the developer's): a compressed
//! summary keeps its level and count through a format that drops unknown fields, and
//! Anthropic, which joins the leading system messages into one `system`, gives it back as
//! a text part of that message, recognized and split out again. A condensed summary
//! (an assistant message) is recognized by its metadata only. The bridge is recognized
//! by its exact text. [`summary_info`] reads both markings.
//!
//! # Boundaries
//! The recent tier starts `recent` messages (at least 1) from the end, never after the
//! last assistant message (the last exchange is never summarized); the condensed tier
//! `condensed` messages before it. Each boundary then moves BACK to a clean point: the
//! latest user message within half the tier's size, else the assistant message opening
//! the exchange it falls in. A tool call and its results always stay on one side, and a
//! tier is never smaller than asked.
//!
//! # Re-tiering merges
//! A second run never nests summaries. Messages aging out of the recent tier update the
//! condensed summary while it covers at most `condensed` messages. Beyond that, the old
//! condensed summary (as one of the messages) and the oldest new messages are merged
//! into the compressed summary with [`render_update`](crate::prompt::render_update), the old compressed text as
//! `<previous_summary>`; the condensed summary is rebuilt from the newer ones. Counts
//! add up, and there is at most one summary per level. Both calls of a run go in one
//! wave. A run where nothing is older than the recent tier makes no call, so compacting
//! a compacted chain with nothing new is free.
//!
//! # Size guard and errors
//! A summary not smaller than what it replaces (the bridge it may need included) is cut
//! to fit ([`Action::Truncated`]); discarded ([`Action::NoGain`], the content stays
//! verbatim) only when nothing would be left. A later run with nothing new makes no call. Content within `min_summarize_bytes` of a summary's fixed cost is not sent at
//! all ([`Action::Skipped`]). On a failed call, `Rollback` (default) returns the
//! original chain with the errors, `Throw` returns them as an error, and `Partial` keeps
//! the summary that succeeded and the failed one's content verbatim. In such a degraded
//! result a summary may sit among kept messages; a later run folds it in with its count.
//! Cancellation returns the original chain, `cancelled` set.
//!
//! # Report
//! Each action is listed under the input section holding the first message the summary
//! replaces (an earlier summary included: section 0 for a merged compressed summary),
//! found with [`ChainAst::section_starts`]; indexes are those of the repaired input.
//! Tiers count messages, not tokens: the meter is not consulted (it is taken for a
//! signature common to all strategies).

mod layout;
mod marker;

pub use marker::{
    is_bridge, sealed_info, summary_info, TierLevel, TierSummary, BRIDGE_TEXT, COMPRESSED_PREFIX, CONDENSED_PREFIX,
    METADATA_KEY,
};

use super::{Action, CompactError, CompactResult, OnError};
use crate::ast::{ChainAst, RepairAction};
use crate::measure::{Amount, Meter};
use crate::message::{Message, Role};
use crate::prompt::Draft;
use crate::summarize::{Controls, Engine, Job, JobPrompt, RequestKind, SummarizeError, Summarizer};
use layout::Span;

/// Settings of the tiers strategy; defaults are the seed's (20 / 50 / rest, trigger
/// above 100 messages).
#[derive(Debug, Clone, PartialEq)]
pub struct TiersConfig {
    /// Most recent messages kept verbatim (at least 1; extended back to a clean point).
    pub recent: usize,
    /// Messages before them condensed (medium compression).
    pub condensed: usize,
    /// Re-tiering happens above this many messages: [`needs_compaction`] turns true and
    /// [`compact`] changes anything only then.
    pub auto_threshold: usize,
    /// Whether the automatic trigger is on; off, [`needs_compaction`] is always false and
    /// [`compact`] re-tiers whenever it is called, whatever the count.
    pub auto: bool,
    /// Size hint of the condensed summary, in bytes.
    pub condensed_bytes: usize,
    /// Size hint of the compressed summary, in bytes.
    pub compressed_bytes: usize,
    /// Content is sent to the summarizer only when it is larger than this plus the fixed
    /// cost of its summary (prefix, and the bridge it may need): a summary could hardly
    /// beat smaller content, and skipping it by size keeps a rerun free of calls.
    pub min_summarize_bytes: usize,
    /// Creation time recorded on new summaries (ISO 8601, from the caller: the core has
    /// no clock); left out when `None`.
    pub now: Option<String>,
    pub on_error: OnError,
}

impl Default for TiersConfig {
    fn default() -> Self {
        TiersConfig {
            recent: 20,
            condensed: 50,
            auto_threshold: 100,
            auto: true,
            condensed_bytes: 2000,
            compressed_bytes: 800,
            min_summarize_bytes: 256,
            now: None,
            on_error: OnError::Rollback,
        }
    }
}

/// Smallest summary size hint [`TiersConfig::for_budget`] gives.
const MIN_TARGET_BYTES: usize = 200;

impl TiersConfig {
    /// Defaults with summary sizes derived from a context budget: the condensed summary
    /// gets 25% of it and the compressed one 10% (tokens count as 4 bytes), at least
    /// 200 bytes each.
    pub fn for_budget(max: Amount) -> Self {
        TiersConfig {
            condensed_bytes: max.percent(25).approx_bytes().max(MIN_TARGET_BYTES),
            compressed_bytes: max.percent(10).approx_bytes().max(MIN_TARGET_BYTES),
            ..TiersConfig::default()
        }
    }

    fn target_bytes(&self, level: TierLevel) -> usize {
        match level {
            TierLevel::Condensed => self.condensed_bytes,
            TierLevel::Compressed => self.compressed_bytes,
        }
    }
}

/// Whether `compact` would change anything now (short of a summary that gains nothing):
/// the automatic trigger is on, the chain has more than `auto_threshold` messages (every
/// message counts, summaries and the bridge included), and something older than the
/// recent tier is large enough to summarize. [`compact`] re-tiers under the same
/// condition ([`due`]), so the two always agree.
pub fn needs_compaction(messages: &[Message], config: &TiersConfig) -> bool {
    if !config.auto || !due(messages, config) {
        return false;
    }
    let existing = layout::detect(messages);
    layout::plan(messages, &existing, config).is_some_and(|plan| {
        plan.compressed
            .iter()
            .chain(&plan.condensed)
            .any(|s| !layout::too_small(config, s.level, s.bytes_before, s.count, s.bridge))
    })
}

/// Whether the chain is due for re-tiering: with the automatic trigger on, only past
/// `auto_threshold` messages (else a stateless caller compacting before every request
/// re-tiered, and called the summarizer, on nearly every turn); with it off, whenever
/// `compact` is called.
fn due(messages: &[Message], config: &TiersConfig) -> bool {
    !config.auto || messages.len() > config.auto_threshold
}

const CONDENSED_GUIDANCE: &str = "This summary is the assistant's medium-term memory: keep the key topics, \
the important decisions and conclusions, and the context needed to continue. Concise but informative.";

const COMPRESSED_GUIDANCE: &str = "This summary is long-term memory: keep only the main topics, the critical \
facts and decisions, and essential context. Be extremely brief.";

/// Compacts `messages` into tiers.
pub async fn compact<S: Summarizer + ?Sized>(
    messages: &[Message],
    config: &TiersConfig,
    summarizer: &S,
    controls: &Controls,
    _meter: Meter<'_>,
) -> Result<CompactResult, CompactError> {
    let super::Read { chain, starts, sections, repairs } = super::read(messages)?;
    let input: &[Message] = &chain;
    let mut run = Run {
        config,
        controls,
        engine: Engine::default(),
        errors: Vec::new(),
        actions: vec![Vec::new(); sections],
        starts,
    };
    // Nothing done: the repaired chain when the parse repaired anything, else the chain
    // as it came.
    let unchanged = || (!repairs.is_empty()).then(|| input.to_vec());
    if !due(messages, config) {
        return run.finish(messages, unchanged(), repairs);
    }
    let existing = layout::detect(input);
    let Some(plan) = layout::plan(input, &existing, config) else {
        return run.finish(messages, unchanged(), repairs);
    };
    let spans: Vec<Span> = plan.compressed.into_iter().chain(plan.condensed).collect();
    let summaries = run.summarize(summarizer, &spans).await;
    if run.should_stop() || summaries.iter().all(Option::is_none) {
        return run.finish(messages, unchanged(), repairs);
    }
    let out = assemble(&existing, &spans, summaries.clone(), plan.recent);
    let gain = crate::message::messages_size(&out) < crate::message::messages_size(input);
    for (span, summary) in spans.iter().zip(&summaries) {
        let Some(summary) = summary else { continue };
        let bytes_before = span.bytes_before;
        let action = if gain {
            let (level, messages, merged) = (span.level.as_str(), span.count, span.merged);
            Action::Tiered { level, messages, merged, bytes_before, bytes_after: summary.size() }
        } else {
            // Never reached while the bridge is counted against each summary.
            let summary_bytes = summary.size().saturating_add(span.bridge);
            Action::NoGain { kind: kind_of(span.level), bytes_before, summary_bytes }
        };
        run.record(span.range.start, action);
    }
    if !gain {
        return run.finish(messages, unchanged(), repairs);
    }
    if ChainAst::parse(&out).is_err() {
        // Never reached by construction; a safety net that keeps the result valid.
        run.record(0, Action::Skipped { reason: "the tiered chain would not parse" });
        return run.finish(messages, unchanged(), repairs);
    }
    run.finish(messages, Some(out), repairs)
}

/// The tiered chain: the system messages with the compressed summary, then the condensed
/// summary (or, for a span whose summary failed, its fallback), then the recent tier.
fn assemble(
    existing: &layout::Existing,
    spans: &[Span<'_>],
    summaries: Vec<Option<Message>>,
    recent: &[Message],
) -> Vec<Message> {
    let mut compressed_summary = None;
    let mut post = Vec::new();
    for (span, summary) in spans.iter().zip(summaries) {
        match (span.level, summary) {
            (TierLevel::Compressed, Some(m)) => compressed_summary = Some(m),
            (_, Some(m)) => post.push(m),
            (_, None) => post.extend(span.fallback_lead.into_iter().chain(span.content.iter().copied()).cloned()),
        }
    }
    let mut out = match compressed_summary {
        Some(m) => {
            let mut out = existing.systems.clone();
            out.push(m);
            out
        }
        None => existing.head.clone(),
    };
    // A condensed summary is an assistant message: before a recent tier that opens with
    // one, a bridge keeps the roles alternating, so providers that require it never
    // merge a kept message into the summary.
    let after_condensed = post.last().and_then(summary_info).is_some_and(|s| s.level == TierLevel::Condensed);
    if after_condensed && recent.first().is_some_and(|m| m.role == Role::Assistant) {
        post.push(marker::bridge_message());
    }
    post.extend(recent.iter().cloned());
    if post.first().is_some_and(|m| m.role == Role::Assistant) {
        out.push(marker::bridge_message());
    }
    out.extend(post);
    out
}

fn kind_of(level: TierLevel) -> RequestKind {
    match level {
        TierLevel::Condensed => RequestKind::TierCondensed,
        TierLevel::Compressed => RequestKind::TierCompressed,
    }
}

struct Run<'a> {
    config: &'a TiersConfig,
    controls: &'a Controls,
    engine: Engine,
    errors: Vec<SummarizeError>,
    /// Per input section.
    actions: Vec<Vec<Action>>,
    /// Index of each section's first message in the (repaired) input, then the total.
    starts: Vec<usize>,
}

impl Run<'_> {
    fn should_stop(&self) -> bool {
        self.controls.cancel.is_cancelled() || (!self.errors.is_empty() && self.config.on_error != OnError::Partial)
    }

    /// Records `action` under the section holding input message `index`.
    fn record(&mut self, index: usize, action: Action) {
        let section = self.starts.partition_point(|&s| s <= index).saturating_sub(1);
        if let Some(list) = self.actions.get_mut(section) {
            list.push(action);
        }
    }

    fn section_of(&self, index: usize) -> usize {
        self.starts.partition_point(|&s| s <= index).saturating_sub(1)
    }

    /// The request for `span`, or `None` (noted) when its content is too small.
    /// One wave of summary calls, one per span that has one; per span, the summary
    /// message to use.
    async fn summarize<S: Summarizer + ?Sized>(&mut self, summarizer: &S, spans: &[Span<'_>]) -> Vec<Option<Message>> {
        let mut planned = Vec::new();
        let mut jobs = Vec::new();
        for (i, span) in spans.iter().enumerate() {
            if let Some(job) = self.job(span) {
                planned.push(i);
                jobs.push(job);
            }
        }
        let results = self.engine.wave(summarizer, self.controls, jobs).await;
        let mut summaries: Vec<Option<Message>> = vec![None; spans.len()];
        for (i, result) in planned.into_iter().zip(results) {
            if let (Some(span), Some(slot)) = (spans.get(i), summaries.get_mut(i)) {
                *slot = self.apply(span, result);
            }
        }
        summaries
    }

    fn job<'s>(&mut self, span: &'s Span<'_>) -> Option<Job<'s>> {
        if layout::too_small(self.config, span.level, span.bytes_before, span.count, span.bridge) {
            self.record(span.range.start, Action::Skipped { reason: "too small to summarize" });
            return None;
        }
        // Rendered where the messages lie: a copy of the span's messages was the largest
        // memory of a tiers run.
        let tasks: Vec<&Message> =
            span.content.iter().copied().filter(|m| m.role == Role::User && !is_bridge(m)).collect();
        let work: Vec<&Message> = span.content.iter().copied().filter(|m| m.role != Role::User).collect();
        let note = match span.level {
            TierLevel::Condensed => CONDENSED_GUIDANCE,
            TierLevel::Compressed => COMPRESSED_GUIDANCE,
        };
        let draft = Draft { previous: span.previous.as_deref(), tasks, work, note };
        if !draft.holds_messages() {
            return None;
        }
        Some(Job {
            kind: kind_of(span.level),
            prompt: JobPrompt::Draft(draft),
            range: span.range,
            section: Some(self.section_of(span.range.start)),
            target_bytes: super::hint(
                self.config.target_bytes(span.level),
                span.bytes_before.saturating_sub(layout::fixed_cost(span.level, span.count, span.bridge)),
            ),
        })
    }

    /// The summary message for `span` from a call's result, or `None` (noted) when the
    /// call failed or the summary would not be smaller.
    fn apply(&mut self, span: &Span<'_>, result: Result<String, SummarizeError>) -> Option<Message> {
        let kind = kind_of(span.level);
        match result {
            Ok(text) => {
                let now = self.config.now.as_deref();
                let mut summary = marker::summary_message(span.level, span.count, now, &text);
                let bytes_before = span.bytes_before;
                // The bridge the summary may need counts against it.
                let excess = summary.size().saturating_add(span.bridge).saturating_add(1).saturating_sub(bytes_before);
                if let Some(cut) = (excess > 0).then(|| super::cut_by(text.trim(), excess)).flatten() {
                    let truncated =
                        Action::Truncated { message: None, bytes_before: text.len(), bytes_after: cut.len() };
                    self.record(span.range.start, truncated);
                    summary = marker::summary_message(span.level, span.count, now, &cut);
                }
                let summary_bytes = summary.size().saturating_add(span.bridge);
                if summary_bytes >= bytes_before {
                    self.record(span.range.start, Action::NoGain { kind, bytes_before, summary_bytes });
                    return None;
                }
                Some(summary)
            }
            Err(e) => {
                self.record(span.range.start, Action::Failed { kind, request: e.request });
                self.errors.push(e);
                None
            }
        }
    }

    fn finish(
        self,
        original: &[Message],
        result: Option<Vec<Message>>,
        repairs: Vec<RepairAction>,
    ) -> Result<CompactResult, CompactError> {
        super::conclude(super::Outcome {
            strategy: "tiers",
            original,
            result,
            engine: &self.engine,
            errors: self.errors,
            actions: self.actions,
            repairs,
            on_error: self.config.on_error,
            cancelled: self.controls.cancel.is_cancelled(),
            hard_budget: false,
            before_tokens: None,
            after_tokens: None,
        })
    }
}
