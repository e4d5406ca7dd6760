//! Phase (a): every tool result over the message threshold is summarized on its own,
//! before the history is measured. The summary replaces the result's content, prefixed
//! [`TOOL_SUMMARY_PREFIX`]; a result already prefixed (by an earlier run) is skipped, so
//! a second run makes no call for it. A result too large for one call goes through the
//! long-text levels; past the depth limit it is truncated and prefixed
//! [`TOOL_TRUNCATED_PREFIX`] (reported). A result whose summary failed keeps its
//! content, under [`OnError::Partial`] too, which keeps what failed as it was (it was
//! cut: the tool output lost, with no summary standing for it).
//!
//! [`OnError::Partial`]: crate::strategy::OnError::Partial

use super::chunk::{push_parts_text, run_items, split_text, Item, Outcome, Piece, Source};
use super::run::Run;
use super::snapshot::TOOL_RESULT_NOTE;
use crate::hashing::HashMap;
use crate::measure::{Amount, Meter, Unit};
use crate::message::{Message, Part, Role, ToolCallPart, ToolResultPart};
use crate::prompt::render;
use crate::strategy::Action;
use crate::summarize::{RequestKind, Summarizer};
use std::borrow::{Borrow, Cow};

/// Starts the content of a summarized tool result.
pub const TOOL_SUMMARY_PREFIX: &str = "SUMMARY OF TOOL RESULT:";
/// Starts the content of a truncated tool result.
pub const TOOL_TRUNCATED_PREFIX: &str = "TRUNCATED TOOL RESULT:";

/// Smallest size hint for one tool-result summary, in bytes.
const MIN_TARGET_BYTES: usize = 256;

/// True when an earlier run already summarized or truncated this result.
pub fn is_marked(r: &ToolResultPart) -> bool {
    matches!(r.content.first(), Some(Part::Text(t))
        if t.text.starts_with(TOOL_SUMMARY_PREFIX) || t.text.starts_with(TOOL_TRUNCATED_PREFIX))
}

/// `(message, part)` of every tool result not yet marked that costs more than `limit`
/// (measured as a tool message holding only that result) and has at least `min_bytes`
/// (smaller content is never sent: a summary could hardly beat it, and skipping it by
/// size rather than by a failed attempt keeps a second run free of calls). `known`: the
/// cost of each message in some unit, reused for a message holding one result alone.
pub(crate) fn oversized(
    messages: &[impl Borrow<Message>],
    known: Option<(&[usize], Unit)>,
    limit: Amount,
    min_bytes: usize,
    meter: Meter<'_>,
) -> Vec<(usize, usize)> {
    let known = known.filter(|(_, unit)| *unit == limit.unit()).map(|(costs, _)| costs);
    let calls: HashMap<&str, &ToolCallPart> =
        messages.iter().flat_map(|m| m.borrow().tool_calls()).map(|c| (c.id.as_str(), c)).collect();
    // Candidates in order, each with the message cost it may reuse: a message holding
    // only this result costs what the result alone does.
    let candidates: Vec<((usize, usize), &Part, Option<usize>)> = messages
        .iter()
        .map(Borrow::borrow)
        .enumerate()
        .filter(|(_, m)| m.role == Role::Tool)
        .flat_map(|(i, m)| {
            let lone = known.filter(|_| m.parts.len() == 1).and_then(|c| c.get(i)).copied();
            m.parts.iter().enumerate().map(move |(j, p)| ((i, j), p, lone))
        })
        .filter(
            |(_, p, _)| matches!(p, Part::ToolResult(r) if !is_marked(r) && p.size() >= min_bytes && !fixed(r, &calls)),
        )
        .collect();
    // The others cost what a tool message holding them alone would.
    let probes: Vec<&Part> = candidates.iter().filter(|(_, _, lone)| lone.is_none()).map(|(_, p, _)| *p).collect();
    let mut measured = meter.part_costs(limit.unit(), &probes).into_iter();
    candidates
        .into_iter()
        .filter_map(|(at, _, lone)| {
            let cost = lone.or_else(|| measured.next())?;
            (cost > limit.value()).then_some(at)
        })
        .collect()
}

/// Whether only the result's own item can answer its call (a screenshot): no summary
/// can replace it.
fn fixed(r: &ToolResultPart, calls: &HashMap<&str, &ToolCallPart>) -> bool {
    crate::format::responses::native::only_item_answers(r, calls.get(r.call_id.as_str()).copied())
}

fn result_at(messages: &[impl Borrow<Message>], (i, j): (usize, usize)) -> Option<&ToolResultPart> {
    match messages.get(i)?.borrow().parts.get(j)? {
        Part::ToolResult(r) => Some(r),
        _ => None,
    }
}

/// The result with `text` as its only content.
fn with_content(r: &ToolResultPart, text: String) -> ToolResultPart {
    ToolResultPart { content: vec![Part::text(text)], ..r.clone() }
}

impl Run<'_> {
    /// Whether the chain may still be over the window or the threshold once the tool
    /// results `texts` are summarized (each then costs at most the message threshold
    /// and its prefix): the fold would follow.
    fn fold_expected(&self, chain: &[Cow<'_, Message>], costs: &[usize], texts: &[&str]) -> bool {
        let (threshold, goal) = (self.config.threshold, self.config.message_threshold);
        let prefix = self.meter.text(goal.unit(), &format!("{TOOL_SUMMARY_PREFIX}\n"));
        let before = crate::measure::sum_costs(costs);
        // Thresholds in different units: no saving assumed.
        let saved = texts
            .iter()
            .filter(|_| goal.unit() == threshold.unit())
            .map(|t| self.meter.text(goal.unit(), t).saturating_sub(goal.value().saturating_add(prefix)))
            .fold(0usize, usize::saturating_add);
        chain.len() > self.config.window || before.saturating_sub(saved) > threshold.value()
    }

    /// Summarizes the oversized tool results of `chain` in place (`costs`: of each of its
    /// messages, in the threshold's unit); the indices of the messages changed (each
    /// then owned: the others stay borrowed).
    pub(super) async fn summarize_tool_results<S: Summarizer + ?Sized>(
        &mut self,
        summarizer: &S,
        chain: &mut [Cow<'_, Message>],
        costs: &[usize],
    ) -> Vec<usize> {
        let goal = self.config.message_threshold;
        let known = Some((costs, self.config.threshold.unit()));
        let found = oversized(chain, known, goal, self.config.min_summarize_bytes, self.meter);
        if found.is_empty() || self.cancelled() {
            return Vec::new();
        }
        // The call that asked for each result (sent alone, for context).
        let calls: HashMap<&str, &ToolCallPart> =
            chain.iter().flat_map(|m| m.tool_calls()).map(|c| (c.id.as_str(), c)).collect();
        let piece_limit = self.piece_limit();
        let cap = goal.approx_bytes() / 2;
        let mut items = Vec::new();
        let mut targets = Vec::new();
        for &(i, j) in &found {
            let Some(r) = result_at(chain, (i, j)) else { continue };
            let call = calls
                .get(r.call_id.as_str())
                .map(|c| Message::new(Role::Assistant, vec![Part::ToolCall(ToolCallPart::clone(c))]));
            let mut text = String::new();
            push_parts_text(&mut text, &r.content);
            let pieces = if self.meter.text(piece_limit.unit(), &text) <= piece_limit.value() {
                let mut work: Vec<Message> = call.iter().cloned().collect();
                work.push(Message::new(Role::Tool, vec![Part::ToolResult(r.clone())]));
                render(&[], &work)
                    .map(|p| Piece::Ready(crate::prompt::with_note(p, TOOL_RESULT_NOTE)))
                    .into_iter()
                    .collect()
            } else {
                let source =
                    Source::ToolResult { call: call.map(Box::new), template: Box::new(with_content(r, String::new())) };
                split_text(&text, piece_limit, self.meter)
                    .iter()
                    .filter_map(|piece| source.render(piece, TOOL_RESULT_NOTE).map(Piece::Ready))
                    .collect()
            };
            let bytes = Part::ToolResult(r.clone()).size();
            let fixed = Part::ToolResult(with_content(r, format!("{TOOL_SUMMARY_PREFIX}\n"))).size();
            items.push(Item {
                pieces,
                goal,
                note: TOOL_RESULT_NOTE,
                kind: RequestKind::Message,
                range: Run::range(i, i.saturating_add(1)),
                section: Some(self.section_of(i)),
                target_bytes: crate::strategy::hint(
                    (bytes / 4).clamp(MIN_TARGET_BYTES, cap.max(MIN_TARGET_BYTES)),
                    bytes.saturating_sub(fixed),
                ),
                max_bytes: bytes.saturating_sub(fixed).saturating_sub(1),
                input_bytes: text.len(),
            });
            targets.push(((i, j), text));
        }
        // A fold to come takes two waves after this one (chunks, consolidation).
        let texts: Vec<&str> = targets.iter().map(|(_, text)| text.as_str()).collect();
        let levels = self.levels(if self.fold_expected(chain, costs, &texts) { 2 } else { 0 });
        let outcomes = run_items(&mut self.engine, summarizer, self.controls, levels, items).await;
        let mut changed: Vec<usize> = Vec::new();
        for (((i, j), _), outcome) in targets.into_iter().zip(outcomes) {
            let replacement = match outcome {
                Outcome::Done { text, truncated: false } => Some((format!("{TOOL_SUMMARY_PREFIX}\n{text}"), false)),
                Outcome::Done { text, truncated: true } => Some((format!("{TOOL_TRUNCATED_PREFIX}\n{text}"), true)),
                Outcome::Failed(errors) => {
                    for e in errors {
                        self.record_at(i, Action::Failed { kind: RequestKind::Message, request: e.request });
                        self.errors.push(e);
                    }
                    None
                }
            };
            let Some((text, truncated)) = replacement else { continue };
            // Results come in message order: a message with several is listed once.
            if self.replace_result(chain, (i, j), text, truncated) && changed.last() != Some(&i) {
                changed.push(i);
            }
        }
        changed
    }

    /// Puts `text` in place of result `(i, j)` when it is smaller; reports either way.
    /// The message is copied only then (it was borrowed from the input).
    fn replace_result(
        &mut self,
        chain: &mut [Cow<'_, Message>],
        (i, j): (usize, usize),
        text: String,
        truncated: bool,
    ) -> bool {
        let Some(old @ Part::ToolResult(r)) = chain.get(i).and_then(|m| m.parts.get(j)) else { return false };
        let new = Part::ToolResult(with_content(r, text));
        let bytes_before = old.size();
        let bytes_after = new.size();
        if bytes_after >= bytes_before {
            let kind = RequestKind::Message;
            self.record_at(i, Action::NoGain { kind, bytes_before, summary_bytes: bytes_after });
            return false;
        }
        let Some(slot) = chain.get_mut(i).and_then(|m| m.to_mut().parts.get_mut(j)) else { return false };
        *slot = new;
        let action = if truncated {
            Action::Truncated { message: Some(i), bytes_before, bytes_after }
        } else {
            Action::MessageSummarized { message: i, bytes_before, bytes_after }
        };
        self.record_at(i, action);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oversized_finds_unmarked_results_over_the_limit() {
        let big = "word ".repeat(400);
        let mut marked = Message::tool_result("b", "f", format!("{TOOL_SUMMARY_PREFIX}\n{big}"));
        marked.parts.push(Part::ToolResult(ToolResultPart {
            call_id: "c".into(),
            name: None,
            content: vec![Part::text(big.clone())],
            is_error: false,
            extra: Default::default(),
        }));
        let chain = vec![
            Message::text(Role::User, big.clone()),
            Message::tool_result("a", "f", big.clone()),
            Message::tool_result("s", "f", "small"),
            marked,
        ];
        let found = oversized(&chain, None, Amount::Bytes(1000), 0, Meter::default());
        assert_eq!(found, vec![(1, 0), (3, 1)]);
        assert!(oversized(&chain, None, Amount::Tokens(1000), 0, Meter::default()).is_empty());
        assert!(oversized(&chain, None, Amount::Bytes(1000), 5000, Meter::default()).is_empty());
        // The chain's own costs, reused for lone results, find the same ones.
        for limit in [Amount::Bytes(1000), Amount::Tokens(100), Amount::Tokens(1000)] {
            let costs = Meter::default().costs(limit.unit(), &chain);
            let known = Some((costs.as_slice(), limit.unit()));
            assert_eq!(
                oversized(&chain, known, limit, 0, Meter::default()),
                oversized(&chain, None, limit, 0, Meter::default())
            );
        }
    }
}
