//! The result of `budget` in its parts, and the hard budget enforced on it.

use super::chunks::{verbatim_sections, Plan};
use super::{condensed_text, Answers, CONDENSED_PREFIX};
use crate::ast::{BodyPair, IdTemplate, Section};
use crate::measure::{sum_costs, Amount, Meter, Unit};
use crate::message::{Message, Role};
use crate::strategy::{Action, CompactError};

/// The parts of the result, kept apart so enforcement can drop them in order.
#[derive(Clone)]
pub(super) struct Assembly<'a> {
    systems: Vec<Message>,
    condensed: Vec<Message>,
    /// Sections before the cut kept verbatim (too small to condense).
    before: Vec<Section<'a>>,
    in_section: Option<BodyPair<'a>>,
    kept: Vec<Section<'a>>,
}

impl Assembly<'_> {
    /// The result's messages where they lie, in order.
    fn message_refs(&self) -> Vec<&Message> {
        let mut out: Vec<&Message> = self.systems.iter().chain(&self.condensed).collect();
        out.extend(self.before.iter().flat_map(Section::message_refs));
        let mut sections = self.kept.iter();
        if let Some(first) = sections.next() {
            out.extend(first.header().message_refs());
            out.extend(self.in_section.iter().flat_map(BodyPair::message_refs));
            out.extend(first.body().iter().flat_map(BodyPair::message_refs));
        }
        out.extend(sections.flat_map(Section::message_refs));
        out
    }

    pub(super) fn messages(&self) -> Vec<Message> {
        self.message_refs().into_iter().cloned().collect()
    }

    /// Counted where the messages lie: no copy of the result to measure it.
    fn cost(&self, meter: Meter<'_>, unit: Unit) -> usize {
        sum_costs(&meter.costs_of(unit, &self.message_refs()))
    }
}

/// The result in its parts: the system prompt, the condensed summaries, what is kept
/// verbatim before the cut, the cut section from its user message (with the summary of
/// its older pairs) and everything after it.
pub(super) fn assemble<'a>(
    sections: &[Section<'a>],
    plan: &Plan,
    answers: Answers,
    template: &IdTemplate,
    actions: &mut [Vec<Action>],
) -> Assembly<'a> {
    // The earlier condensed summaries go when the oldest chunk's summary, which updated
    // them, takes their place.
    let replaced_earlier = plan.updates_earlier && answers.summaries.first().is_some_and(Option::is_some);
    let mut systems: Vec<Message> =
        sections.first().map(|s| s.header().system().iter().map(|m| m.as_ref().clone()).collect()).unwrap_or_default();
    if replaced_earlier {
        for m in &mut systems {
            m.parts.retain(|p| condensed_text(p).is_none());
        }
        systems.retain(|m| !m.parts.is_empty());
    }
    let mut condensed: Vec<Message> = Vec::new();
    let mut in_section: Option<BodyPair> = None;
    for ((chunk, summary), verbatim) in plan.chunks.iter().zip(answers.summaries).zip(&answers.verbatim) {
        let Some(text) = summary else {
            // A failed call under `onError: "partial"` (else there is no result): its
            // content goes, said where it was.
            if !verbatim {
                for segment in &chunk.segments {
                    if let Some(a) = actions.get_mut(segment.section) {
                        a.push(Action::Trimmed { what: "content whose summary failed" });
                    }
                }
            }
            continue;
        };
        if chunk.in_cut {
            let replaced =
                sections.get(plan.cut_section).and_then(|s| s.body().get(..plan.cut_pair)).unwrap_or_default();
            in_section = Some(crate::strategy::summary_pair_for(&text, replaced, template));
        } else {
            condensed.push(Message::text(Role::System, format!("{CONDENSED_PREFIX}{text}")));
        }
        for segment in &chunk.segments {
            if let Some(a) = actions.get_mut(segment.section) {
                a.push(Action::Condensed { pairs: segment.pairs.len() });
            }
        }
    }
    let verbatim = || plan.chunks.iter().zip(&answers.verbatim).filter(|(_, v)| **v).map(|(c, _)| c);
    let kept_from = if verbatim().any(|c| c.in_cut) { 0 } else { plan.cut_pair };
    let mut kept: Vec<Section> = sections.get(plan.cut_section..).unwrap_or_default().to_vec();
    if let Some(first) = kept.first_mut() {
        let body = first.body().get(kept_from..).unwrap_or_default().to_vec();
        first.set_body(body);
        if plan.cut_section == 0 {
            first.set_header(first.header().without_system());
        }
    }
    let mut before: Vec<Section> =
        if plan.keep_before { sections.get(..plan.cut_section).unwrap_or_default().to_vec() } else { Vec::new() };
    for chunk in verbatim().filter(|c| !c.in_cut) {
        before.extend(verbatim_sections(sections, chunk));
    }
    // The first section's system messages are the prompt, in `systems`; a later section's
    // (a mid-chat instruction) stay with it.
    if let Some(first) = before.first_mut().filter(|_| plan.keep_before) {
        first.set_header(first.header().without_system());
    }
    Assembly { systems, condensed, before, in_section, kept }
}

/// The condensed summaries, longest first, cut at a line end until the result fits: a
/// summary's target is in bytes, and a summarizer that keeps to it may still write more
/// tokens than its share (lists and numbers cost more tokens a byte). Each cut is
/// reported; a summary is never cut below a third of its cost. Returns the new cost.
fn shorten_summaries(
    out: &mut Assembly<'_>,
    budget: Amount,
    meter: Meter<'_>,
    actions: &mut [Vec<Action>],
    mut cost: usize,
) -> usize {
    let (unit, max) = (budget.unit(), budget.value());
    let mut order: Vec<(usize, usize)> = out.condensed.iter().enumerate().map(|(k, m)| (m.size(), k)).collect();
    order.sort_unstable_by(|a, b| b.cmp(a));
    for (_, k) in order {
        if cost <= max {
            break;
        }
        let Some(message) = out.condensed.get_mut(k) else { continue };
        let Some(crate::message::Part::Text(part)) = message.parts.first_mut() else { continue };
        let own = summary_cost(meter, unit, &part.text);
        // Its share of the excess, or as much as it can give: the next ones give the rest.
        let goal = own.saturating_sub(cost.saturating_sub(max)).max(own / 3);
        let text = part.text.clone();
        let floor = text.len() / 5;
        let mut room = text.len().saturating_mul(goal) / own.max(1);
        let mut cut = None;
        while room > floor {
            let end = (0..=room.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
            let head = text.get(..end).unwrap_or_default();
            // At a line end when one is near (a bullet cut in half reads as a broken fact).
            let candidate = match head.rfind('\n').and_then(|nl| head.get(..nl)).filter(|h| h.len() > floor) {
                Some(lines) => lines.to_string(),
                None => format!("{head}…"),
            };
            if candidate.len() > floor && summary_cost(meter, unit, &candidate) <= goal {
                cut = Some(candidate);
                break;
            }
            room = room.saturating_mul(9) / 10;
        }
        let Some(cut) = cut else { continue };
        let shortened = summary_cost(meter, unit, &cut);
        if let Some(list) = actions.get_mut(0) {
            list.push(Action::Truncated { message: None, bytes_before: text.len(), bytes_after: cut.len() });
        }
        part.text = cut;
        cost = cost.saturating_sub(own.saturating_sub(shortened));
    }
    cost
}

/// The cost of a condensed summary (a system message) holding `text`.
fn summary_cost(meter: Meter<'_>, unit: Unit, text: &str) -> usize {
    sum_costs(&meter.costs_of(unit, &[&Message::text(Role::System, text)]))
}

/// Drops summaries, then old kept content, until the result fits; fails with the reason
/// when the system prompt or the latest exchange alone is over the budget. Content is
/// dropped only when `may_drop` (`onError: "partial"`); otherwise a result that does not
/// fit fails the call, so nothing is ever lost unasked. Returns the result's cost.
pub(super) fn enforce(
    out: &mut Assembly<'_>,
    budget: Amount,
    meter: Meter<'_>,
    actions: &mut [Vec<Action>],
    cut_section: usize,
    may_drop: bool,
) -> Result<usize, CompactError> {
    let (unit, max) = (budget.unit(), budget.value());
    // Counted once: a message's cost does not depend on its neighbours, so each drop
    // takes off what it dropped.
    let mut cost = out.cost(meter, unit);
    if cost > max {
        cost = shorten_summaries(out, budget, meter, actions, cost);
    }
    if !may_drop && cost > max {
        let mut probe = out.clone();
        enforce(&mut probe, budget, meter, &mut [], cut_section, true)?;
        let reason = format!(
            "the condensed history with the kept messages is {}; dropping content to fit needs onError \"partial\"",
            budget.with_value(cost)
        );
        return Err(CompactError::Budget { max: budget, reason });
    }
    let mut note = |section: usize, a: Action| {
        if let Some(list) = actions.get_mut(section) {
            list.push(a);
        }
    };
    let cost_of = |messages: Vec<&Message>| sum_costs(&meter.costs_of(unit, &messages));
    while cost > max {
        let dropped = if !out.condensed.is_empty() {
            note(0, Action::Trimmed { what: "condensed summary" });
            cost_of(vec![&out.condensed.remove(0)])
        } else if !out.before.is_empty() {
            note(0, Action::Trimmed { what: "oldest kept section" });
            cost_of(out.before.remove(0).message_refs().collect())
        } else if let Some(pair) = out.in_section.take() {
            note(cut_section, Action::Trimmed { what: "in-section summary" });
            cost_of(pair.message_refs().collect())
        } else if let Some(first) = out.kept.first_mut().filter(|s| s.body().len() > 1) {
            let pair_cost = cost_of(first.body().first().map(|p| p.message_refs().collect()).unwrap_or_default());
            let body = first.body().get(1..).unwrap_or_default().to_vec();
            first.set_body(body);
            note(cut_section, Action::Trimmed { what: "oldest kept pair" });
            pair_cost
        } else if out.kept.len() > 1 {
            note(cut_section, Action::Trimmed { what: "oldest kept section" });
            cost_of(out.kept.remove(0).message_refs().collect())
        } else {
            let system = meter.total(unit, &out.systems);
            let reason = if system > max {
                format!("the system prompt alone is {}", budget.with_value(system))
            } else {
                let latest = cost.saturating_sub(system);
                format!("the latest exchange alone is {} (with {system} of system prompt)", budget.with_value(latest))
            };
            return Err(CompactError::Budget { max: budget, reason });
        };
        cost = cost.saturating_sub(dropped);
    }
    Ok(cost)
}
