//! The `sections` strategy (PentAGI's csum): whole older sections collapse into one
//! summary pair; the last `keep_qa_sections` sections are rotated (oversized pairs first,
//! then the older pairs beyond a reserve); optionally older sections fold into one QA
//! section.
//!
//! Over upstream: independent calls run in one wave (all sections' rotations together,
//! QA human and AI together, the older sections' summaries with the oversized pairs of
//! the recent ones: three waves at most); every error is collected; a summary that is not
//! smaller than what it replaces is cut to fit ([`Action::Truncated`]; discarded only
//! when nothing would be left); a lone summary (pair, or prefixed and marked
//! completion) is never summarized again, so a second run with nothing new makes no call;
//! cancellation is checked between waves and before every call.
//!
//! THE LAST BODY PAIR OF A SECTION IS NEVER SUMMARIZED: it carries the reasoning
//! signatures Gemini and Anthropic validate.

mod qa;

use super::{Action, CompactError, CompactResult, OnError};
use crate::ast::{BodyPair, ChainAst, IdTemplate, Section};
use crate::message::Message;
use crate::prompt::Draft;
use crate::summarize::{Controls, Engine, Job, JobPrompt, MessageRange, RequestKind, SummarizeError, Summarizer};

/// Settings of the sections strategy; defaults are upstream's.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionsConfig {
    /// Rotate the last `keep_qa_sections` sections when they grow too large.
    pub preserve_last: bool,
    /// Budget of each of those sections, in bytes.
    pub last_sec_bytes: usize,
    /// A body pair above this size is summarized on its own (never the last one).
    pub max_bp_bytes: usize,
    /// Fold older sections into one QA section when there are too many or too large.
    pub use_qa: bool,
    pub max_qa_sections: usize,
    pub max_qa_bytes: usize,
    /// Summarize the folded user messages instead of concatenating them.
    pub summ_human_in_qa: bool,
    /// Recent sections kept out of section summarization (at least 1).
    pub keep_qa_sections: usize,
    /// Share of `last_sec_bytes` left free for new messages after a rotation, in percent.
    pub reserve_percent: usize,
    /// Content whose bytes beyond the fixed cost of its summary pair (ids, tool name,
    /// carried reasoning) are fewer than this is never sent to the summarizer: a summary
    /// could hardly beat it, and skipping it by size (not by a failed attempt) keeps a
    /// second run free of calls.
    pub min_summarize_bytes: usize,
    /// Template of the ids of created summarization calls.
    pub id_template: String,
    pub on_error: OnError,
}

impl Default for SectionsConfig {
    fn default() -> Self {
        SectionsConfig {
            preserve_last: true,
            last_sec_bytes: 51_200,
            max_bp_bytes: 16_384,
            use_qa: false,
            max_qa_sections: 10,
            max_qa_bytes: 65_536,
            summ_human_in_qa: false,
            keep_qa_sections: 1,
            reserve_percent: 25,
            min_summarize_bytes: 512,
            id_template: crate::ast::tool_id::DEFAULT_TEMPLATE.to_string(),
            on_error: OnError::Rollback,
        }
    }
}

impl SectionsConfig {
    /// Thresholds derived from a budget the result should fit (the seed's algorithm
    /// works in bytes; a token budget is converted at about four bytes a token): the
    /// recent section may take half of it, a pair a fifth (at most upstream's 16 KB),
    /// and, when QA folding is on (off unless the caller turns it on: the budget alone
    /// never does), older sections fold into one QA section beyond 90% of it. A soft
    /// target: the `budget` strategy is the one that guarantees a fit.
    pub fn for_budget(max: crate::measure::Amount) -> Self {
        let bytes = max.approx_bytes();
        let d = SectionsConfig::default();
        SectionsConfig {
            last_sec_bytes: bytes / 2,
            max_bp_bytes: (bytes / 5).min(d.max_bp_bytes),
            max_qa_bytes: bytes.saturating_mul(9) / 10,
            ..d
        }
    }
}

/// Whether compacting now would make a summary call, found by planning alone: the
/// phases run in order and each only acts on what the ones before left, so with no plan
/// in the earlier phases every phase sees the chain as it is. No summarizer, no prompt
/// rendered; about the cost of parsing the chain once.
pub fn needs_compaction(messages: &[Message], config: &SectionsConfig) -> bool {
    // Unreadable input or template: compaction cannot help; `compact` reports the error.
    let Ok(template) = IdTemplate::parse(&config.id_template) else { return false };
    let Ok(parsed) = ChainAst::parse_repair(messages) else { return false };
    let controls = Controls::default();
    let run = Run {
        config,
        template,
        controls: &controls,
        engine: Engine::default(),
        errors: Vec::new(),
        actions: Vec::new(),
        starts: parsed.ast.section_starts(),
        spans: input_spans(&parsed.ast),
        ast: parsed.ast,
    };
    let keep = config.keep_qa_sections.max(1);
    let worth =
        |targets: Vec<(usize, std::ops::Range<usize>)>| targets.into_iter().any(|(i, r)| run.room(i, &r).is_some());
    worth(run.section_targets(keep))
        || (config.preserve_last && (worth(run.oversized_targets(keep)) || worth(run.rotation_targets(keep))))
        || (config.use_qa && run.qa_would_fold(keep))
}

/// The prompt summarizing pairs `pairs` of section `i`, with the section's user message
/// as context: the messages where they lie in the AST (none when they are not there).
fn draft_of<'a>(ast: &'a ChainAst, i: usize, pairs: &std::ops::Range<usize>) -> Draft<'a> {
    let Some(s) = ast.sections().get(i) else { return Draft::default() };
    let work: Vec<&Message> =
        s.body().get(pairs.clone()).map_or_else(Vec::new, |b| b.iter().flat_map(BodyPair::message_refs).collect());
    let tasks: Vec<&Message> = s.header().human().into_iter().collect();
    Draft { tasks, work, ..Draft::default() }
}

/// The least room (bytes a summary may take and still gain) worth a summarizer call.
const MIN_SUMMARY_ROOM: usize = 16;

/// Compacts `messages` with the sections strategy.
pub async fn compact<S: Summarizer + ?Sized>(
    messages: &[Message],
    config: &SectionsConfig,
    summarizer: &S,
    controls: &Controls,
) -> Result<CompactResult, CompactError> {
    let template = super::id_template(&config.id_template)?;
    let parsed = super::parse(messages)?;
    let mut run = Run {
        config,
        template,
        controls,
        engine: Engine::default(),
        errors: Vec::new(),
        actions: vec![Vec::new(); parsed.ast.sections().len()],
        starts: parsed.ast.section_starts(),
        spans: input_spans(&parsed.ast),
        ast: parsed.ast,
    };
    let keep = config.keep_qa_sections.max(1);
    // Phases 0 and 1a in one wave: they touch different sections and neither reads what
    // the other gives. Rotation and the QA fold each need the wave before (the sizes it
    // leaves; the QA fold summarizes phase 0's summaries), so three waves at most.
    run.summarize_sections_and_oversized_pairs(summarizer, keep).await;
    if run.should_stop() {
        return run.finish(messages, parsed.repairs);
    }
    if config.preserve_last {
        run.rotate_last_sections(summarizer, keep).await;
        if run.should_stop() {
            return run.finish(messages, parsed.repairs);
        }
    }
    if config.use_qa {
        run.summarize_qa(summarizer, keep).await;
    }
    run.finish(messages, parsed.repairs)
}

/// `'m`: the input messages the AST borrows.
struct Run<'a, 'm> {
    config: &'a SectionsConfig,
    template: IdTemplate,
    controls: &'a Controls,
    engine: Engine,
    errors: Vec<SummarizeError>,
    /// Per input section.
    actions: Vec<Vec<Action>>,
    /// Index of each section's first message in the (repaired) input.
    starts: Vec<usize>,
    /// Per section, the input messages each body pair stands for (a summary pair for
    /// all it replaced): a request's range names input messages, not positions in the
    /// chain an earlier wave already changed.
    spans: Vec<Vec<std::ops::Range<usize>>>,
    ast: ChainAst<'m>,
}

/// A planned replacement: which section, which pairs, the messages they are in the
/// input and the summary's target length. Its prompt is made when its call starts.
struct Plan {
    section: usize,
    pairs: std::ops::Range<usize>,
    kind: RequestKind,
    range: MessageRange,
    target_bytes: usize,
}

impl<'m> Run<'_, 'm> {
    fn should_stop(&self) -> bool {
        self.controls.cancel.is_cancelled() || (!self.errors.is_empty() && self.config.on_error != OnError::Partial)
    }

    fn section(&self, i: usize) -> Option<&Section<'m>> {
        self.ast.sections().get(i)
    }

    /// The input messages pairs `pairs` of section `i` stand for.
    fn range(&self, i: usize, pairs: &std::ops::Range<usize>) -> MessageRange {
        let spans = self.spans.get(i).and_then(|s| s.get(pairs.clone())).unwrap_or_default();
        match (spans.first(), spans.last()) {
            (Some(first), Some(last)) => MessageRange { start: first.start, end: last.end },
            _ => MessageRange { start: 0, end: 0 },
        }
    }

    /// Pairs `..end` of section `i` became one summary pair: it stands for all they did.
    fn fold_spans(&mut self, i: usize, end: usize) {
        let Some(spans) = self.spans.get_mut(i) else { return };
        let end = end.min(spans.len());
        let folded: Vec<_> = spans.drain(..end).collect();
        if let (Some(first), Some(last)) = (folded.first(), folded.last()) {
            spans.insert(0, first.start..last.end);
        }
    }

    /// The bytes of pairs `pairs` of section `i` and the fixed cost of the pair that would
    /// carry their summary; `None` when a summary is not worth a call. The pair carrying
    /// a summary has a fixed cost (ids, tool name, arguments, carried reasoning): only
    /// what exceeds it can shrink, and it must be worth a call. Judged by size, never by a
    /// failed attempt, so a second run makes the same choice. A room smaller than
    /// MIN_SUMMARY_ROOM holds no useful summary: asking would only fail.
    fn room(&self, i: usize, pairs: &std::ops::Range<usize>) -> Option<(usize, usize)> {
        let replaced = self.section(i)?.body().get(pairs.clone())?;
        let bytes: usize = replaced.iter().map(BodyPair::size).sum();
        let overhead = super::summary_pair_for("", replaced, &self.template).size();
        (bytes.saturating_sub(overhead) >= self.config.min_summarize_bytes.max(MIN_SUMMARY_ROOM))
            .then_some((bytes, overhead))
    }

    /// Plans a summary of pairs `pairs` of section `i`, with the section's user message
    /// as context.
    fn plan(&self, i: usize, pairs: std::ops::Range<usize>, kind: RequestKind) -> Option<Plan> {
        // A room means pairs to replace: the prompt has work to show.
        let (bytes, overhead) = self.room(i, &pairs)?;
        Some(Plan {
            section: i,
            range: self.range(i, &pairs),
            target_bytes: super::hint(target_for(bytes), bytes.saturating_sub(overhead)),
            pairs,
            kind,
        })
    }

    fn plans(&self, targets: Vec<(usize, std::ops::Range<usize>)>, kind: RequestKind) -> Vec<Plan> {
        targets.into_iter().filter_map(|(i, pairs)| self.plan(i, pairs, kind)).collect()
    }

    /// Phase 0's candidates: the whole body of every section but the last `keep`, unless
    /// empty or already one summary.
    fn section_targets(&self, keep: usize) -> Vec<(usize, std::ops::Range<usize>)> {
        let n = self.ast.sections().len();
        (0..n.saturating_sub(keep))
            .filter_map(|i| {
                let s = self.section(i)?;
                let lone_summary = matches!(s.body(), [only] if only.is_summarized());
                (!s.body().is_empty() && !lone_summary).then(|| (i, 0..s.body().len()))
            })
            .collect()
    }

    /// Phase 1a's candidates: in the last `keep` sections, every pair but the last over
    /// `max_bp_bytes` and not yet a summary.
    fn oversized_targets(&self, keep: usize) -> Vec<(usize, std::ops::Range<usize>)> {
        let n = self.ast.sections().len();
        let mut targets = Vec::new();
        for i in n.saturating_sub(keep)..n {
            let Some(s) = self.section(i) else { continue };
            let last = s.body().len().saturating_sub(1);
            for (j, pair) in s.body().iter().enumerate().take(last) {
                if pair.size() > self.config.max_bp_bytes && !pair.is_summarized() {
                    targets.push((i, j..j.saturating_add(1)));
                }
            }
        }
        targets
    }

    /// Phase 1b's candidates: the older pairs of each of the last `keep` sections over
    /// `last_sec_bytes`, newest section first.
    fn rotation_targets(&self, keep: usize) -> Vec<(usize, std::ops::Range<usize>)> {
        let n = self.ast.sections().len();
        let threshold =
            self.config.last_sec_bytes.saturating_mul(100usize.saturating_sub(self.config.reserve_percent.min(100)))
                / 100;
        (n.saturating_sub(keep)..n)
            .rev()
            .filter_map(|i| {
                let s = self.section(i)?;
                if s.size() <= self.config.last_sec_bytes {
                    return None;
                }
                Some((i, 0..rotation_cut(s, threshold)?))
            })
            .collect()
    }

    /// Runs plans as one wave and applies each success through `apply`.
    async fn run_plans<S: Summarizer + ?Sized>(
        &mut self,
        summarizer: &S,
        plans: Vec<Plan>,
        apply: impl Fn(&mut Self, &Plan, &str),
    ) {
        if plans.is_empty() || self.controls.cancel.is_cancelled() {
            return;
        }
        let ast = &self.ast;
        let jobs = plans
            .iter()
            .map(|p| Job {
                kind: p.kind,
                prompt: JobPrompt::Draft(draft_of(ast, p.section, &p.pairs)),
                range: p.range,
                section: Some(p.section),
                target_bytes: p.target_bytes,
            })
            .collect();
        let results = self.engine.wave(summarizer, self.controls, jobs).await;
        for (plan, result) in plans.iter().zip(results) {
            match result {
                Ok(text) => apply(self, plan, &text),
                Err(e) => {
                    self.record(plan.section, Action::Failed { kind: plan.kind, request: e.request });
                    self.errors.push(e);
                }
            }
        }
    }

    fn record(&mut self, section: usize, action: Action) {
        if let Some(list) = self.actions.get_mut(section) {
            list.push(action);
        }
    }

    /// The pair that replaces `replaced`, or `None` (and a `NoGain` note) when it would
    /// not be smaller.
    fn summary_pair(&mut self, plan: &Plan, text: &str) -> Option<BodyPair<'m>> {
        let replaced = self.section(plan.section)?.body().get(plan.pairs.clone())?;
        let before: usize = replaced.iter().map(BodyPair::size).sum();
        let mut pair = super::summary_pair_for(text, replaced, &self.template);
        let excess = pair.size().saturating_add(1).saturating_sub(before);
        if let Some(cut) = (excess > 0).then(|| super::cut_by(text, excess)).flatten() {
            let bytes_after = cut.len();
            pair = super::summary_pair_for(&cut, replaced, &self.template);
            self.record(plan.section, Action::Truncated { message: None, bytes_before: text.len(), bytes_after });
        }
        if pair.size() >= before {
            let summary_bytes = pair.size();
            self.record(plan.section, Action::NoGain { kind: plan.kind, bytes_before: before, summary_bytes });
            return None;
        }
        Some(pair)
    }

    /// Phase 0: every section but the last `keep` collapses into one summary pair; and
    /// phase 1a (with `preserve_last`): in the last `keep` sections, every pair but the
    /// last that is over `max_bp_bytes` and not yet a summary is summarized on its own.
    /// One wave for all: phase 0 never touches the last `keep` sections, phase 1a only
    /// them, so each plans on the input and its requests are those it made on its own.
    async fn summarize_sections_and_oversized_pairs<S: Summarizer + ?Sized>(&mut self, summarizer: &S, keep: usize) {
        let mut plans = self.plans(self.section_targets(keep), RequestKind::Section);
        if self.config.preserve_last {
            plans.extend(self.plans(self.oversized_targets(keep), RequestKind::Pair));
        }
        self.run_plans(summarizer, plans, |run, plan, text| match plan.kind {
            RequestKind::Pair => run.apply_pair(plan, text),
            _ => run.apply_section(plan, text),
        })
        .await;
    }

    /// A section's summary becomes its whole body.
    fn apply_section(&mut self, plan: &Plan, text: &str) {
        let Some(pair) = self.summary_pair(plan, text) else {
            return;
        };
        let Some(section) = self.ast.sections_mut().get_mut(plan.section) else {
            return;
        };
        let bytes_before = section.body().iter().map(BodyPair::size).sum();
        let bytes_after = pair.size();
        section.set_body(vec![pair]);
        self.fold_spans(plan.section, plan.pairs.end);
        let pairs = plan.pairs.len();
        self.record(plan.section, Action::SectionSummarized { pairs, bytes_before, bytes_after });
    }

    /// An oversized pair's summary takes its place.
    fn apply_pair(&mut self, plan: &Plan, text: &str) {
        let Some(pair) = self.summary_pair(plan, text) else {
            return;
        };
        let bytes_after = pair.size();
        let Some(section) = self.ast.sections_mut().get_mut(plan.section) else {
            return;
        };
        if let Some(old) = section.replace_pair(plan.pairs.start, pair) {
            let action = Action::PairSummarized { pair: plan.pairs.start, bytes_before: old.size(), bytes_after };
            self.record(plan.section, action);
        }
    }

    /// Phase 1b: each of the last `keep` sections still over `last_sec_bytes` keeps its
    /// newest pairs within the reserve threshold and folds the older ones into one
    /// summary pair placed first; one wave for all sections.
    async fn rotate_last_sections<S: Summarizer + ?Sized>(&mut self, summarizer: &S, keep: usize) {
        let plans = self.plans(self.rotation_targets(keep), RequestKind::Rotation);
        self.run_plans(summarizer, plans, |run, plan, text| {
            let Some(pair) = run.summary_pair(plan, text) else {
                return;
            };
            let Some(section) = run.ast.sections_mut().get_mut(plan.section) else {
                return;
            };
            let bytes_before = section.size();
            let mut body = vec![pair];
            body.extend(section.body().get(plan.pairs.end..).unwrap_or_default().iter().cloned());
            let pairs_kept = body.len().saturating_sub(1);
            section.set_body(body);
            let action = Action::Rotated {
                pairs_summarized: plan.pairs.len(),
                pairs_kept,
                bytes_before,
                bytes_after: section.size(),
            };
            run.fold_spans(plan.section, plan.pairs.end);
            run.record(plan.section, action);
        })
        .await;
    }

    fn finish(
        self,
        original: &[Message],
        repairs: Vec<crate::ast::RepairAction>,
    ) -> Result<CompactResult, CompactError> {
        let cancelled = self.controls.cancel.is_cancelled();
        super::conclude(super::Outcome {
            strategy: "sections",
            original,
            result: Some(self.ast.into_messages()),
            engine: &self.engine,
            errors: self.errors,
            actions: self.actions,
            repairs,
            on_error: self.config.on_error,
            cancelled,
            hard_budget: false,
            before_tokens: None,
            after_tokens: None,
        })
    }
}

/// The input messages of every body pair of every section of `ast` (as parsed: each pair
/// its assistant message and tool results, after the section's header).
fn input_spans(ast: &ChainAst) -> Vec<Vec<std::ops::Range<usize>>> {
    let mut next = 0usize;
    ast.sections()
        .iter()
        .map(|s| {
            next = next
                .saturating_add(s.header().system().len())
                .saturating_add(usize::from(s.header().human().is_some()));
            s.body()
                .iter()
                .map(|p| {
                    let start = next;
                    next = next.saturating_add(p.tools().len()).saturating_add(1);
                    start..next
                })
                .collect()
        })
        .collect()
}

/// Where the rotation cut falls: pairs `..cut` are summarized. Keeps the last pair
/// always, then older pairs newest-first while header + kept + pair fits `threshold`.
/// `None` when nothing would be summarized, or only a lone existing summary.
fn rotation_cut(s: &Section, threshold: usize) -> Option<usize> {
    let (last, older) = s.body().split_last()?;
    let mut kept = s.header().size().saturating_add(last.size());
    let mut cut = 0;
    for (j, pair) in older.iter().enumerate().rev() {
        if kept.saturating_add(pair.size()) <= threshold {
            kept = kept.saturating_add(pair.size());
        } else {
            cut = j.saturating_add(1);
            break;
        }
    }
    match s.body().get(..cut)? {
        [] => None,
        [only] if only.is_summarized() => None,
        _ => Some(cut),
    }
}

/// Size hint for a summary of `bytes` of content.
fn target_for(bytes: usize) -> usize {
    (bytes / 4).clamp(256, 8192)
}
