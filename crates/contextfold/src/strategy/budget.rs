//! The `budget` strategy (RA.Aid's condenser plan, made safe): keep the leading system
//! messages and the most recent messages (never splitting a tool exchange), condense
//! everything older in parallel, then enforce a HARD token budget.
//!
//! Layout of the result:
//! ```text
//! system messages | one `[CONDENSED CONTEXT]` system message per condensed chunk
//! | the user message of the section the kept window starts in
//! | a summary pair of that section's older pairs (if the cut fell inside it)
//! | the kept pairs and sections
//! ```
//! The kept window holds at least `keep_recent` messages when they fit 100 -
//! `summary_percent` % of the budget; when they do not, the window shrinks (down to the
//! latest exchange) and more is condensed: content is condensed before anything is
//! dropped. If the result still does not fit (summaries larger than asked), the call
//! fails with [`CompactError::Budget`], unless `on_error` is `Partial`: then the oldest
//! condensed summaries, the in-section summary, then the oldest kept pairs and sections
//! are dropped, down to the latest exchange, each listed in the report. If even the
//! latest exchange (with the system prompt) does not fit, the call fails, saying what
//! alone is too large. The result always fits.
//!
//! On a summarizer failure the result still never exceeds the budget, so the original
//! chain (which does not fit, or there would be nothing to do) is never returned:
//! `Rollback` (default) and `Throw` fail with the errors (`summarizer_failed`; the
//! caller's chain is untouched); `Partial` falls back to trimming, as RA.Aid does: the
//! content whose summary failed is dropped, listed in the report. A summary that is not
//! smaller than the content it condenses is never used (invariant 4): that content is
//! kept as it is when it can stand alone (whole sections from their user message, or the
//! cut section's older pairs; `NoGain` in the report) and the result still fits, else it
//! counts as a failed call; content
//! under 512 bytes is never sent (no summary beats it): a lone such span before the cut
//! is kept verbatim, a small chunk joins its neighbour.
//! A cancelled compaction returns the original chain with `report.cancelled`.

use super::{Action, CompactError, CompactResult, OnError, Report, Totals};
use crate::ast::{BodyPair, ChainAst, IdTemplate, Section};
use crate::measure::{Amount, Meter, Unit};
use crate::message::{Message, Role};
use crate::prompt::render;
use crate::summarize::{
    Controls, Engine, Job, MessageRange, RequestKind, SummarizeError, SummarizeErrorKind, Summarizer,
};

/// Marks a system message that carries condensed history.
pub const CONDENSED_PREFIX: &str = "[CONDENSED CONTEXT] ";

#[derive(Debug, Clone, PartialEq)]
pub struct BudgetConfig {
    /// The budget the result must fit: tokens as the meter's counter counts them, or bytes.
    pub max: Amount,
    /// Most recent messages always kept (extended back to a whole tool exchange).
    pub keep_recent: usize,
    /// Share of `max_tokens` all summaries together should stay under, in percent.
    pub summary_percent: usize,
    pub id_template: String,
    pub on_error: OnError,
}

impl BudgetConfig {
    pub fn new(max: Amount) -> Self {
        BudgetConfig {
            max,
            keep_recent: 2,
            summary_percent: 20,
            id_template: crate::ast::tool_id::DEFAULT_TEMPLATE.to_string(),
            on_error: OnError::Rollback,
        }
    }
}

/// Pairs `pairs` of section `section`, with its user message when `with_human`.
#[derive(Debug, Clone)]
struct Segment {
    section: usize,
    pairs: std::ops::Range<usize>,
    with_human: bool,
}

/// One summary call's worth of history: consecutive segments, possibly spanning
/// several short sections.
struct Chunk {
    segments: Vec<Segment>,
    /// The older pairs of the section the kept window starts in (summarized in place).
    in_cut: bool,
}

impl Chunk {
    fn first_section(&self) -> usize {
        self.segments.first().map_or(0, |s| s.section)
    }
}

/// Content under this many bytes is never sent to be condensed: no useful summary is
/// smaller (the same floor as the other strategies' `minSummarizeBytes` default).
const MIN_CHUNK_BYTES: usize = 512;

/// Summaries get at least this many bytes each: more chunks than the summary budget
/// allows at that size would only be summarized to be dropped again.
const MIN_SUMMARY_BYTES: usize = 256;

/// Compacts `messages` to fit `config.max`.
pub async fn compact<S: Summarizer + ?Sized>(
    messages: &[Message],
    config: &BudgetConfig,
    summarizer: &S,
    controls: &Controls,
    meter: Meter<'_>,
) -> Result<CompactResult, CompactError> {
    let template = IdTemplate::parse(&config.id_template).map_err(|e| crate::Error::Ast(e.into()))?;
    let parsed = ChainAst::parse_repair(messages).map_err(crate::Error::Ast)?;
    let unit = config.max.unit();
    let max = config.max.value();
    let total = meter.total(unit, messages);
    let mut engine = Engine::default();
    let mut actions: Vec<Vec<Action>> = vec![Vec::new(); parsed.ast.sections().len()];
    if total <= max {
        return Ok(finish(messages, messages.to_vec(), &engine, Vec::new(), actions, false, controls, parsed.repairs));
    }
    let sections = parsed.ast.sections();
    let summary_share = config.summary_percent.min(100);
    let kept_budget = max.saturating_mul(100usize.saturating_sub(summary_share)) / 100;
    let (cut_section, mut cut_pair) = find_cut(&parsed.ast, config.keep_recent, kept_budget, meter, unit);
    // Older pairs of the cut section too small for any summary to beat stay as they are
    // (enforcement trims them if need be).
    let in_cut_bytes: usize =
        sections_of(&parsed.ast, cut_section).map_or(0, |s| s.body().iter().take(cut_pair).map(BodyPair::size).sum());
    if in_cut_bytes < MIN_CHUNK_BYTES {
        cut_pair = 0;
    }
    let summary_bytes = config.max.percent(summary_share).approx_bytes();
    // One budget's worth of text per call, unless that would make more summaries than
    // the summary budget can hold: then fewer, larger chunks.
    let condensed_bytes: usize = sections.iter().take(cut_section).map(Section::size).sum::<usize>().saturating_add(
        sections.get(cut_section).map_or(0, |s| s.body().iter().take(cut_pair).map(BodyPair::size).sum()),
    );
    let max_chunks = (summary_bytes / MIN_SUMMARY_BYTES).max(1);
    let chunk_bytes = config.max.approx_bytes().max(condensed_bytes.div_ceil(max_chunks));
    let mut chunks = plan_chunks(sections, cut_section, cut_pair, chunk_bytes);
    merge_small_chunks(&mut chunks, sections);
    // Everything before the cut section too small to condense: kept verbatim instead.
    let keep_before = match chunks.iter().filter(|c| !c.in_cut).collect::<Vec<_>>().as_slice() {
        [only] => chunk_bytes_of(sections, only) < MIN_CHUNK_BYTES,
        _ => false,
    };
    if keep_before {
        chunks.retain(|c| c.in_cut);
    }
    let target = (summary_bytes / chunks.len().max(1)).max(64);
    let starts = parsed.ast.section_starts();
    let (chunks, jobs): (Vec<Chunk>, Vec<Job>) = chunks
        .into_iter()
        .filter_map(|c| {
            let hint = super::hint(target, chunk_bytes_of(sections, &c));
            chunk_job(sections, &c, &starts, hint).map(|j| (c, j))
        })
        .unzip();
    let content_bytes: Vec<usize> = chunks.iter().map(|c| chunk_bytes_of(sections, c)).collect();
    let results = engine.wave(summarizer, controls, jobs).await;
    let first_request = engine.requests.len().saturating_sub(results.len());
    let mut errors = Vec::new();
    let mut summaries: Vec<Option<String>> = Vec::new();
    // Chunks whose summary would not be smaller: kept verbatim when they can stand alone.
    let mut verbatim = vec![false; chunks.len()];
    for (i, (chunk, result)) in chunks.iter().zip(results).enumerate() {
        let bytes = content_bytes.get(i).copied().unwrap_or(0);
        if let Ok(text) = &result {
            if text.len() >= bytes && stands_alone(chunk) {
                if let Some(a) = actions.get_mut(chunk.first_section()) {
                    a.push(Action::NoGain { kind: RequestKind::Chunk, bytes_before: bytes, summary_bytes: text.len() });
                }
                if let Some(v) = verbatim.get_mut(i) {
                    *v = true;
                }
                summaries.push(None);
                continue;
            }
        }
        let result = result.and_then(|text| no_gain(text, bytes, first_request.saturating_add(i)));
        match result {
            Ok(text) => summaries.push(Some(text)),
            Err(e) => {
                if let Some(a) = actions.get_mut(chunk.first_section()) {
                    a.push(Action::Failed { kind: RequestKind::Chunk, request: e.request });
                }
                errors.push(e);
                summaries.push(None);
            }
        }
    }
    let cancelled = controls.cancel.is_cancelled();
    if cancelled {
        return Ok(finish(messages, messages.to_vec(), &engine, errors, actions, true, controls, Vec::new()));
    }
    if !errors.is_empty() && config.on_error != OnError::Partial {
        return Err(CompactError::Summarizer(errors));
    }

    // Assemble: systems, condensed summaries, the cut section from its user message.
    let systems: Vec<Message> = sections.first().map(|s| s.header().system().to_vec()).unwrap_or_default();
    let mut condensed: Vec<Message> = Vec::new();
    let mut in_section: Option<BodyPair> = None;
    for (chunk, summary) in chunks.iter().zip(summaries) {
        let Some(text) = summary else { continue };
        if chunk.in_cut {
            let replaced = sections.get(cut_section).and_then(|s| s.body().get(..cut_pair)).unwrap_or_default();
            in_section = Some(super::summary_pair_for(&text, replaced, &template));
        } else {
            condensed.push(Message::text(Role::System, format!("{CONDENSED_PREFIX}{text}")));
        }
        for segment in &chunk.segments {
            if let Some(a) = actions.get_mut(segment.section) {
                a.push(Action::Condensed { pairs: segment.pairs.len() });
            }
        }
    }
    let cut_kept = chunks.iter().zip(&verbatim).any(|(c, v)| c.in_cut && *v);
    let kept_from = if cut_kept { 0 } else { cut_pair };
    let mut kept: Vec<Section> = sections.get(cut_section..).unwrap_or_default().to_vec();
    if let Some(first) = kept.first_mut() {
        let body = first.body().get(kept_from..).unwrap_or_default().to_vec();
        first.set_body(body);
        if cut_section == 0 {
            first.set_header(first.header().without_system());
        }
    }
    let mut before: Vec<Section> =
        if keep_before { sections.get(..cut_section).unwrap_or_default().to_vec() } else { Vec::new() };
    for (chunk, _) in chunks.iter().zip(&verbatim).filter(|(c, v)| **v && !c.in_cut) {
        before.extend(verbatim_sections(sections, chunk));
    }
    if let Some(first) = before.first_mut() {
        first.set_header(first.header().without_system());
    }
    let mut out = Assembly { systems, condensed, before, in_section, kept };
    let may_drop = config.on_error == OnError::Partial;
    enforce(&mut out, config.max, meter, &mut actions, cut_section, may_drop)?;
    Ok(finish(messages, out.messages(), &engine, errors, actions, false, controls, parsed.repairs))
}

fn sections_of(ast: &ChainAst, index: usize) -> Option<&Section> {
    ast.sections().get(index)
}

/// Folds each condensed chunk under [`MIN_CHUNK_BYTES`] into the chunk before it (or
/// after it, for the first), so no call is made for content no summary can beat. The
/// cut section's chunk is never merged: its summary goes in a different place.
fn merge_small_chunks(chunks: &mut Vec<Chunk>, sections: &[Section]) {
    let mut i = 0;
    while i < chunks.len() {
        let small = chunks.get(i).is_some_and(|c| !c.in_cut && chunk_bytes_of(sections, c) < MIN_CHUNK_BYTES);
        let into = if i > 0 { Some(i - 1) } else { Some(i + 1).filter(|&n| chunks.get(n).is_some_and(|c| !c.in_cut)) };
        match (small, into) {
            (true, Some(target)) => {
                let chunk = chunks.remove(i);
                if let Some(t) = chunks.get_mut(target.min(i)) {
                    if target < i {
                        t.segments.extend(chunk.segments);
                    } else {
                        let later = std::mem::replace(&mut t.segments, chunk.segments);
                        t.segments.extend(later);
                    }
                }
            }
            _ => i += 1,
        }
    }
}

/// A chunk whose content can be kept as it is in place of its summary: the cut
/// section's older pairs, or whole sections from their user message on.
fn stands_alone(chunk: &Chunk) -> bool {
    chunk.in_cut || chunk.segments.iter().all(|s| s.with_human)
}

/// The sections of a chunk kept verbatim (each from its user message, no system).
fn verbatim_sections(sections: &[Section], chunk: &Chunk) -> Vec<Section> {
    chunk
        .segments
        .iter()
        .filter_map(|seg| {
            let s = sections.get(seg.section)?;
            let body = s.body().get(seg.pairs.clone())?.to_vec();
            Some(Section::new(s.header().without_system(), body))
        })
        .collect()
}

/// Bytes of the content a chunk condenses (its pairs, and the user messages condensed
/// with them).
fn chunk_bytes_of(sections: &[Section], chunk: &Chunk) -> usize {
    chunk
        .segments
        .iter()
        .filter_map(|seg| {
            let s = sections.get(seg.section)?;
            let human = if seg.with_human { s.header().human().map_or(0, Message::size) } else { 0 };
            let pairs: usize = s.body().get(seg.pairs.clone())?.iter().map(BodyPair::size).sum();
            Some(human.saturating_add(pairs))
        })
        .sum()
}

/// A summary that is not smaller than what it condenses is an unusable answer.
fn no_gain(text: String, content_bytes: usize, request: usize) -> Result<String, SummarizeError> {
    if text.len() < content_bytes {
        return Ok(text);
    }
    Err(SummarizeError {
        kind: SummarizeErrorKind::InvalidResult,
        message: format!(
            "the summary ({} bytes) is not smaller than the content it condenses ({content_bytes} bytes)",
            text.len()
        ),
        request,
    })
}

/// The parts of the result, kept apart so enforcement can drop them in order.
#[derive(Clone)]
struct Assembly {
    systems: Vec<Message>,
    condensed: Vec<Message>,
    /// Sections before the cut kept verbatim (too small to condense).
    before: Vec<Section>,
    in_section: Option<BodyPair>,
    kept: Vec<Section>,
}

impl Assembly {
    fn messages(&self) -> Vec<Message> {
        let mut out = self.systems.clone();
        out.extend(self.condensed.iter().cloned());
        out.extend(self.before.iter().flat_map(Section::messages));
        let mut sections = self.kept.iter();
        if let Some(first) = sections.next() {
            out.extend(first.header().messages());
            if let Some(pair) = &self.in_section {
                out.extend(pair.messages());
            }
            out.extend(first.body().iter().flat_map(BodyPair::messages));
        }
        for s in sections {
            out.extend(s.messages());
        }
        out
    }

    fn cost(&self, meter: Meter<'_>, unit: Unit) -> usize {
        meter.total(unit, &self.messages())
    }
}

/// Drops summaries, then old kept content, until the result fits; fails with the reason
/// when the system prompt or the latest exchange alone is over the budget. Content is
/// dropped only when `may_drop` (`onError: "partial"`); otherwise a result that does not
/// fit fails the call, so nothing is ever lost unasked.
fn enforce(
    out: &mut Assembly,
    budget: Amount,
    meter: Meter<'_>,
    actions: &mut [Vec<Action>],
    cut_section: usize,
    may_drop: bool,
) -> Result<(), CompactError> {
    if !may_drop && out.cost(meter, budget.unit()) > budget.value() {
        let cost = out.cost(meter, budget.unit());
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
    let (unit, max) = (budget.unit(), budget.value());
    while out.cost(meter, unit) > max {
        if !out.condensed.is_empty() {
            out.condensed.remove(0);
            note(0, Action::Trimmed { what: "condensed summary" });
        } else if !out.before.is_empty() {
            out.before.remove(0);
            note(0, Action::Trimmed { what: "oldest kept section" });
        } else if out.in_section.take().is_some() {
            note(cut_section, Action::Trimmed { what: "in-section summary" });
        } else if out.kept.first().is_some_and(|s| s.body().len() > 1) {
            if let Some(first) = out.kept.first_mut() {
                let body = first.body().get(1..).unwrap_or_default().to_vec();
                first.set_body(body);
            }
            note(cut_section, Action::Trimmed { what: "oldest kept pair" });
        } else if out.kept.len() > 1 {
            out.kept.remove(0);
            note(cut_section, Action::Trimmed { what: "oldest kept section" });
        } else {
            let system = meter.total(unit, &out.systems);
            let reason = if system > max {
                format!("the system prompt alone is {}", budget.with_value(system))
            } else {
                let latest = out.cost(meter, unit).saturating_sub(system);
                format!("the latest exchange alone is {} (with {system} of system prompt)", budget.with_value(latest))
            };
            return Err(CompactError::Budget { max: budget, reason });
        }
    }
    Ok(())
}

/// Where the kept window starts: (section, first kept pair). At least the last `keep`
/// messages are kept, extended back to the start of the exchange (pair) they begin in;
/// then further back, exchange by exchange, while the system prompt and the kept
/// messages (with the user message of the section the window starts in) fit
/// `kept_budget` tokens: the budget is used, not just the minimum.
fn find_cut(ast: &ChainAst, keep: usize, kept_budget: usize, meter: Meter<'_>, unit: Unit) -> (usize, usize) {
    let messages = ast.messages();
    let tokens = meter.costs(unit, &messages);
    let sum = |range: std::ops::Range<usize>| tokens.get(range).map_or(0, |t| t.iter().sum::<usize>());
    let systems = ast.sections().first().map_or(0, |s| s.header().system().len());
    // Every place a window may start: (section, pair, first message, user message index).
    let mut starts: Vec<(usize, usize, usize, Option<usize>)> = Vec::new();
    let mut at = 0usize;
    for (si, s) in ast.sections().iter().enumerate() {
        let header_start = at.saturating_add(s.header().system().len());
        let human = s.header().human().map(|_| header_start);
        at = header_start.saturating_add(usize::from(human.is_some()));
        if human.is_some() {
            starts.push((si, 0, header_start, None));
        }
        for (pj, p) in s.body().iter().enumerate() {
            if pj > 0 || human.is_none() {
                starts.push((si, pj, at, human));
            }
            at = at.saturating_add(p.tools().len().saturating_add(1));
        }
    }
    let total = messages.len();
    let keep_from = total.saturating_sub(keep.max(1));
    let system_tokens = sum(0..systems);
    let fits = |&(_, _, first, human): &(usize, usize, usize, Option<usize>)| {
        let kept = sum(first.max(systems)..total).saturating_add(human.map_or(0, |h| sum(h..h.saturating_add(1))));
        system_tokens.saturating_add(kept) <= kept_budget
    };
    // The latest start that keeps at least `keep` messages, then earlier ones while they fit.
    let mut candidates = starts.iter().rev().skip_while(|s| s.2 > keep_from);
    let Some(mut chosen) = candidates.next() else {
        return starts.first().map_or((0, 0), |s| (s.0, s.1));
    };
    if !fits(chosen) {
        // Even `keep` messages do not fit: condense more rather than drop anything
        // later, down to the latest start (the latest exchange).
        let mut later = starts.iter().filter(|s| s.2 > chosen.2);
        let fitting = later.clone().find(|s| fits(s));
        return fitting.or_else(|| later.next_back()).map_or((chosen.0, chosen.1), |s| (s.0, s.1));
    }
    for candidate in candidates {
        if !fits(candidate) {
            break;
        }
        chosen = candidate;
    }
    (chosen.0, chosen.1)
}

/// Chunks of everything before the cut, packed in order up to `chunk_bytes` (a section
/// larger than that is split between pairs), then the cut section's older pairs alone.
fn plan_chunks(sections: &[Section], cut_section: usize, cut_pair: usize, chunk_bytes: usize) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut current: Vec<Segment> = Vec::new();
    let mut bytes = 0usize;
    for (si, s) in sections.iter().enumerate().take(cut_section) {
        let human = s.header().human().map_or(0, Message::size);
        let mut segment = Segment { section: si, pairs: 0..0, with_human: s.header().human().is_some() };
        bytes = bytes.saturating_add(human);
        for (pj, p) in s.body().iter().enumerate() {
            let open = segment.with_human || !segment.pairs.is_empty() || !current.is_empty();
            if open && bytes.saturating_add(p.size()) > chunk_bytes {
                if segment.with_human || !segment.pairs.is_empty() {
                    current.push(segment);
                }
                chunks.push(Chunk { segments: std::mem::take(&mut current), in_cut: false });
                bytes = 0;
                segment = Segment { section: si, pairs: pj..pj, with_human: false };
            }
            segment.pairs.end = pj.saturating_add(1);
            bytes = bytes.saturating_add(p.size());
        }
        if segment.with_human || !segment.pairs.is_empty() {
            current.push(segment);
        }
    }
    if !current.is_empty() {
        chunks.push(Chunk { segments: current, in_cut: false });
    }
    if cut_pair > 0 {
        let segment = Segment { section: cut_section, pairs: 0..cut_pair, with_human: false };
        chunks.push(Chunk { segments: vec![segment], in_cut: true });
    }
    chunks
}

fn chunk_job(sections: &[Section], c: &Chunk, starts: &[usize], target: usize) -> Option<Job> {
    let mut tasks: Vec<Message> = Vec::new();
    let mut work: Vec<Message> = Vec::new();
    for segment in &c.segments {
        let s = sections.get(segment.section)?;
        // The user message gives context. It is condensed with its section, or stays
        // in place for the section the kept window starts in.
        if segment.with_human || c.in_cut {
            tasks.extend(s.header().human().cloned());
        }
        work.extend(s.body().get(segment.pairs.clone())?.iter().flat_map(BodyPair::messages));
    }
    let prompt = render(&tasks, &work)?;
    let first = c.first_section();
    let last = c.segments.last().map_or(first, |s| s.section);
    let start = starts.get(first).copied().unwrap_or(0);
    let end = starts.get(last.saturating_add(1)).copied().unwrap_or(start);
    let kind = if c.in_cut { RequestKind::Rotation } else { RequestKind::Chunk };
    Some(Job { kind, prompt, range: MessageRange { start, end }, section: Some(first), target_bytes: target })
}

#[allow(clippy::too_many_arguments)]
fn finish(
    original: &[Message],
    messages: Vec<Message>,
    engine: &Engine,
    errors: Vec<SummarizeError>,
    actions: Vec<Vec<Action>>,
    rolled_back: bool,
    controls: &Controls,
    repairs: Vec<crate::ast::RepairAction>,
) -> CompactResult {
    let sections = super::section_reports(actions);
    let report = Report {
        provider_repairs: Vec::new(),
        strategy: "budget",
        before: Totals::of(original),
        after: Totals::of(&messages),
        calls: engine.requests.len(),
        waves: engine.waves,
        errors,
        repairs,
        sections,
        rolled_back,
        cancelled: controls.cancel.is_cancelled(),
    };
    CompactResult { changed: messages != original, messages, report }
}
