//! Phase (b): the oldest part of the history folds into one state snapshot.
//!
//! The body (what follows the system messages, the first user message and any earlier
//! snapshot) is split safely; its older part is packed into chunks summarized in ONE
//! wave; the chunk summaries are consolidated in one more call when there are several,
//! when an earlier snapshot must be updated with them, or when they are too large. An
//! earlier snapshot is never re-summarized from its own text: it goes to the summarizer
//! as `<previous_summary>` beside the new messages, to be updated.
//!
//! The result is `head`, the restoration message, the latest user message when the split
//! fell after it, then the kept messages; consecutive same-role messages of one
//! participant are merged.

use super::chunk::{message_text, plan_chunks, run_items, split_text, ChunkPlan, Item, Outcome, Piece, Source};
use super::run::Run;
use super::snapshot::{
    count_snapshots, layout, layout_owned, merge_alternating, restoration_part, restoration_text, snapshot_body,
    Layout, LayoutCosts, CONSOLIDATE_NOTE, LONG_MESSAGE_NOTE, SNAPSHOT_SCHEMA,
};
use super::split::{find_split, SplitRequest};
use super::WindowConfig;
use crate::measure::Meter;
use crate::message::{Message, Role};
use crate::prompt::{render, render_update, with_note, Draft};
use crate::strategy::{Action, OnError};
use crate::summarize::{RequestKind, Summarizer};
use std::borrow::Cow;

/// Largest chunk, in percent of the threshold.
const CHUNK_PERCENT: usize = 90;
/// A summary over this share of the threshold is consolidated (made smaller), in percent.
const CONSOLIDATE_PERCENT: usize = 80;
/// Split triggered by the message count alone, span under this share: not worth it.
const NOT_WORTH_PERCENT: usize = 30;
/// Size hint of the whole snapshot, in percent of the threshold.
const SNAPSHOT_PERCENT: usize = 10;
/// Least room (bytes a snapshot can gain) worth a call.
const MIN_ROOM_BYTES: usize = 64;
/// Smallest size hint of a summary, in bytes.
const MIN_TARGET_BYTES: usize = 256;

pub(super) const NOTHING_NEW: &str = "nothing new to summarize: no safe split leaves older messages";
pub(super) const NOT_WORTH_IT: &str =
    "not worth it: triggered by the message count only, and the span is under 30% of the threshold";
pub(super) const TOO_SMALL: &str = "the span to summarize is under min_summarize_bytes";
pub(super) const CANNOT_SHRINK: &str = "the span is too small for any snapshot to replace it with a gain";

/// What the summarizer produced for the span.
struct SpanSummary {
    text: String,
    kind: RequestKind,
}

/// A fold decided on: the layout, the split and what it summarizes.
pub(super) struct FoldPlan<'a> {
    layout: Layout<'a>,
    /// Cost of each body message, in the threshold's unit.
    costs: Vec<usize>,
    /// `body[..split]` is summarized (but the pinned message), the rest kept.
    split: usize,
    /// The latest user message, kept verbatim wherever the split falls.
    pinned: Option<usize>,
    /// Body messages summarized.
    summarized: usize,
    span_bytes: usize,
}

/// Decides whether and where `chain` folds; `Err` gives the rule that declined. No
/// summarizer involved: [`super::needs_compaction`] uses it too.
/// `chain_costs`: of each message of `chain`, in the threshold's unit.
pub(super) fn plan_fold<'a>(
    chain: &'a [Message],
    chain_costs: &[usize],
    config: &WindowConfig,
    meter: Meter<'_>,
    by_tokens: bool,
) -> Result<FoldPlan<'a>, &'static str> {
    plan_layout(layout(chain), chain_costs, config, meter, by_tokens).map_err(|declined| declined.0)
}

/// [`plan_fold`] of the chain `layout` was made of; a decline gives the layout back.
fn plan_layout<'a>(
    layout: Layout<'a>,
    chain_costs: &[usize],
    config: &WindowConfig,
    meter: Meter<'_>,
    by_tokens: bool,
) -> Result<FoldPlan<'a>, Box<(&'static str, Layout<'a>)>> {
    let threshold = config.threshold;
    let body = &layout.body;
    let costs = LayoutCosts::of(&layout, chain_costs, meter, threshold.unit()).body;
    let total = layout.body_offset().saturating_add(body.len());
    let target = total.saturating_sub(config.window).saturating_sub(layout.body_offset());
    // The last exchange (the last non-tool message and its results) is always kept.
    let limit = body.iter().rposition(|m| m.role != Role::Tool).unwrap_or(body.len());
    let pinned = body.iter().rposition(|m| m.role == Role::User);
    let request = SplitRequest { messages: body, costs: &costs, threshold: threshold.value(), target, limit, pinned };
    let split = find_split(&request).index.min(body.len());
    let summarized: Vec<usize> = (0..split).filter(|&i| Some(i) != pinned).collect();
    if summarized.is_empty() {
        return Err(Box::new((NOTHING_NEW, layout)));
    }
    let span_cost = summarized.iter().filter_map(|&i| costs.get(i)).fold(0usize, |a, c| a.saturating_add(*c));
    if !by_tokens && span_cost < threshold.percent(NOT_WORTH_PERCENT).value() {
        return Err(Box::new((NOT_WORTH_IT, layout)));
    }
    let span_bytes = summarized.iter().filter_map(|&i| body.get(i)).map(|m| m.size()).sum::<usize>();
    if span_bytes < config.min_summarize_bytes {
        return Err(Box::new((TOO_SMALL, layout)));
    }
    // Judged by size, never by a discarded attempt, so a rerun makes the same choice: a
    // span (with the snapshot it updates) that cannot outweigh the restoration message's
    // fixed text is never sent.
    let previous_bytes = layout.previous.as_ref().map_or(0, |p| p.bytes);
    let room = span_bytes.saturating_add(previous_bytes).saturating_sub(restoration_text("").len());
    if room <= MIN_ROOM_BYTES {
        return Err(Box::new((CANNOT_SHRINK, layout)));
    }
    Ok(FoldPlan { summarized: summarized.len(), layout, costs, split, pinned, span_bytes })
}

impl Run<'_> {
    /// Folds the older part of `chain` into a snapshot; `None` when nothing was folded
    /// (skipped, failed, or no gain: each reported).
    /// The chain is taken over (laid out without a copy): `Err` gives it back as it came.
    /// The folded chain owns its messages (the kept ones copied as they leave).
    pub(super) async fn fold<'a, S: Summarizer + ?Sized>(
        &mut self,
        summarizer: &S,
        chain: Vec<Cow<'a, Message>>,
        chain_costs: &[usize],
        by_tokens: bool,
    ) -> Result<Vec<Message>, Vec<Cow<'a, Message>>> {
        let plan = match plan_layout(layout_owned(chain), chain_costs, self.config, self.meter, by_tokens) {
            Ok(plan) => plan,
            Err(declined) => {
                let (reason, layout) = *declined;
                self.record(0, Action::Skipped { reason });
                return Err(layout.into_chain());
            }
        };
        let FoldPlan { layout, costs, split: s, pinned, summarized, span_bytes } = plan;
        let previous_bytes = layout.previous.as_ref().map_or(0, |p| p.bytes);
        let bytes_before = span_bytes.saturating_add(previous_bytes);
        // What the snapshot can gain: the span less the restoration message's fixed text.
        let room = bytes_before.saturating_sub(restoration_text("").len());
        let Some(summary) = self.summarize_span(summarizer, &layout, s, &costs, room).await else {
            return Err(layout.into_chain());
        };
        let body_text = snapshot_body(&summary.text);
        let snapshot = restoration_text(&body_text);
        let bytes_after = snapshot.len();
        if bytes_after >= bytes_before {
            self.record(0, Action::NoGain { kind: summary.kind, bytes_before, summary_bytes: bytes_after });
            return Err(layout.into_chain());
        }
        let updated = layout.previous.is_some();
        self.record(0, Action::Snapshot { messages: summarized, updated, bytes_before, bytes_after });
        let Layout { head: mut out, body, .. } = layout;
        out.push(Cow::Owned(Message::new(Role::User, vec![restoration_part(&body_text)])));
        let pinned = pinned.filter(|&p| p < s);
        let seam = out.len().saturating_add(usize::from(pinned.is_some()));
        out.extend(body.into_iter().enumerate().filter(|(i, _)| Some(*i) == pinned || *i >= s).map(|(_, m)| m));
        Ok(merge_alternating(out, seam))
    }

    /// Summarizes `body[..s]` (updating the earlier snapshot, if any) into one text.
    async fn summarize_span<S: Summarizer + ?Sized>(
        &mut self,
        summarizer: &S,
        layout: &Layout<'_>,
        s: usize,
        costs: &[usize],
        room: usize,
    ) -> Option<SpanSummary> {
        let threshold = self.config.threshold;
        let span = layout.body.get(..s)?;
        let origin = |i: usize| layout.origin.get(i).copied().unwrap_or(0);
        let plans = plan_chunks(span, costs.get(..s)?, threshold.percent(CHUNK_PERCENT).value().max(1));
        let previous = layout.previous.as_ref().map(|p| p.snapshot.as_str());
        let single_update = previous.is_some() && matches!(plans.as_slice(), [ChunkPlan::Messages(_)]);
        let goal = threshold.percent(CONSOLIDATE_PERCENT);
        let snapshot_bytes = threshold.percent(SNAPSHOT_PERCENT).approx_bytes().max(MIN_TARGET_BYTES);
        let per_chunk = (snapshot_bytes / plans.len().max(1)).max(MIN_TARGET_BYTES);
        // Each chunk's fair share of the room (the joined summaries are separated by a
        // blank line each).
        let span_bytes: usize = span.iter().map(|m| m.size()).sum::<usize>().max(1);
        let room_left = room.saturating_sub(plans.len().saturating_mul(2));
        // Several summaries, or an earlier snapshot to carry, take a consolidation wave
        // after this one (a lone summary is cut to its goal at the last level).
        let consolidates = plans.len() > 1 || previous.is_some() && !single_update;
        let levels = self.levels(usize::from(consolidates));
        let mut items = Vec::new();
        for plan in &plans {
            let (first, last, pieces, note) = match plan {
                ChunkPlan::Messages(r) => {
                    let messages = span.get(r.clone())?;
                    // Rendered where they lie: a chunk is often most of the chain.
                    let (tasks, work): (Vec<&Message>, Vec<&Message>) =
                        messages.iter().map(|m| &**m).partition(|m| m.role == Role::User);
                    if tasks.is_empty() && work.is_empty() {
                        return None;
                    }
                    let previous = previous.filter(|_| single_update);
                    let piece = Piece::Messages(Draft { previous, tasks, work, note: SNAPSHOT_SCHEMA });
                    (r.start, r.end.saturating_sub(1), vec![piece], SNAPSHOT_SCHEMA)
                }
                ChunkPlan::Long(i) => {
                    let m = span.get(*i)?;
                    let source = Source::Message(m.role);
                    let pieces = split_text(&message_text(m), levels.piece_limit, self.meter)
                        .iter()
                        .filter_map(|piece| source.render(piece, LONG_MESSAGE_NOTE).map(Piece::Ready))
                        .collect();
                    (*i, *i, pieces, LONG_MESSAGE_NOTE)
                }
            };
            let bytes: usize = span.get(first..=last).map_or(0, |ms| ms.iter().map(|m| m.size()).sum());
            items.push(Item {
                pieces,
                goal,
                note,
                kind: RequestKind::Chunk,
                range: Run::range(origin(first), origin(last).saturating_add(1)),
                section: Some(self.section_of(origin(first))),
                target_bytes: crate::strategy::hint(
                    (bytes / 4).clamp(MIN_TARGET_BYTES, per_chunk),
                    room_left.saturating_mul(bytes) / span_bytes,
                ),
                // A lone chunk's summary is the snapshot; several are consolidated.
                max_bytes: if plans.len() == 1 { room.saturating_sub(1) } else { usize::MAX },
                input_bytes: bytes,
            });
        }
        let covered: Vec<(usize, usize, usize)> =
            items.iter().map(|it| (it.range.start, it.range.end, it.input_bytes)).collect();
        let outcomes = run_items(&mut self.engine, summarizer, self.controls, levels, items).await;
        // A failed chunk leaves a hole: no snapshot (under Partial the span stays as is).
        let summaries = self.chunk_summaries(covered, outcomes)?;
        if self.cancelled() {
            return None;
        }
        let joined = summaries.join("\n\n");
        let too_large = self.meter.text(goal.unit(), &joined) > goal.value();
        let carry_previous = previous.filter(|_| !single_update);
        if summaries.len() <= 1 && carry_previous.is_none() && count_snapshots(&joined) <= 1 && !too_large {
            return Some(SpanSummary { text: joined, kind: RequestKind::Chunk });
        }
        self.consolidate(summarizer, layout, s, summaries, carry_previous, room).await
    }

    /// The chunks' summaries in order, each truncation and failure recorded at the
    /// chunk's `(start, end, bytes)`; `None` when any failed.
    fn chunk_summaries(&mut self, covered: Vec<(usize, usize, usize)>, outcomes: Vec<Outcome>) -> Option<Vec<String>> {
        let mut summaries = Vec::new();
        let mut failed = false;
        for ((start, end, bytes_before), outcome) in covered.into_iter().zip(outcomes) {
            match outcome {
                Outcome::Done { text, truncated } => {
                    if truncated {
                        let message = (end == start.saturating_add(1)).then_some(start);
                        self.record_at(start, Action::Truncated { message, bytes_before, bytes_after: text.len() });
                    }
                    summaries.push(text);
                }
                Outcome::Failed(errors) => {
                    failed = true;
                    for e in errors {
                        self.record_at(start, Action::Failed { kind: RequestKind::Chunk, request: e.request });
                        self.errors.push(e);
                    }
                }
            }
        }
        (!failed).then_some(summaries)
    }

    /// One call merging chunk summaries (and updating `previous` with them).
    async fn consolidate<S: Summarizer + ?Sized>(
        &mut self,
        summarizer: &S,
        layout: &Layout<'_>,
        s: usize,
        summaries: Vec<String>,
        previous: Option<&str>,
        room: usize,
    ) -> Option<SpanSummary> {
        let threshold = self.config.threshold;
        let goal = threshold.percent(CONSOLIDATE_PERCENT);
        let work: Vec<Message> = summaries.iter().map(|t| Message::text(Role::Assistant, t.as_str())).collect();
        let prompt = match previous {
            Some(p) => render_update(p, &[], &work),
            None => render(&[], &work),
        }?;
        let note = CONSOLIDATE_NOTE;
        let start = layout.origin.first().copied().unwrap_or(0);
        let end = layout.origin.get(s.saturating_sub(1)).map_or(start, |e| e.saturating_add(1));
        let item = Item {
            pieces: vec![with_note(prompt, note).into()],
            goal,
            note,
            kind: RequestKind::Consolidate,
            range: Run::range(start, end),
            section: Some(0),
            target_bytes: crate::strategy::hint(
                threshold.percent(SNAPSHOT_PERCENT).approx_bytes().max(MIN_TARGET_BYTES),
                room,
            ),
            max_bytes: room.saturating_sub(1),
            input_bytes: summaries.iter().map(String::len).sum::<usize>().saturating_add(previous.map_or(0, str::len)),
        };
        let levels = self.levels(0);
        let outcome = run_items(&mut self.engine, summarizer, self.controls, levels, vec![item]).await;
        let kind = RequestKind::Consolidate;
        match outcome.into_iter().next() {
            Some(Outcome::Done { text, truncated }) => {
                if truncated {
                    let bytes_before = summaries.iter().map(String::len).sum();
                    self.record(0, Action::Truncated { message: None, bytes_before, bytes_after: text.len() });
                }
                Some(SpanSummary { text, kind })
            }
            Some(Outcome::Failed(errors)) => {
                for e in errors {
                    self.record(0, Action::Failed { kind, request: e.request });
                    self.errors.push(e);
                }
                if self.config.on_error != OnError::Partial || self.cancelled() {
                    return None;
                }
                // Degraded but complete: the earlier snapshot, then the partial ones.
                let mut parts: Vec<String> = previous.map(str::to_string).into_iter().collect();
                parts.extend(summaries);
                Some(SpanSummary { text: parts.join("\n\n"), kind })
            }
            None => None,
        }
    }
}
