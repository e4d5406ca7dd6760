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
//!
//! Condensed summaries an earlier run left (its `[CONDENSED CONTEXT]` system messages)
//! are condensed again: they are the previous summary the oldest chunk's summary
//! updates, and that summary replaces them. Run after run (a history compacted as it
//! grows), the condensed history stays one summary instead of piling up until the
//! summaries alone are over the budget.

mod assembly;
mod chunks;

use super::{conclude, Action, CompactError, CompactResult, OnError, Outcome};
use crate::measure::{Amount, Meter};
use crate::message::Message;
use crate::summarize::{Controls, Engine, RequestKind, SummarizeError, SummarizeErrorKind, Summarizer};
use chunks::{stands_alone, Plan};

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

/// Compacts `messages` to fit `config.max`.
pub async fn compact<S: Summarizer + ?Sized>(
    messages: &[Message],
    config: &BudgetConfig,
    summarizer: &S,
    controls: &Controls,
    meter: Meter<'_>,
) -> Result<CompactResult, CompactError> {
    let template = super::id_template(&config.id_template)?;
    let parsed = super::parse(messages)?;
    let mut engine = Engine::default();
    let mut actions: Vec<Vec<Action>> = vec![Vec::new(); parsed.ast.sections().len()];
    // Every message is measured once: the chain as it came, or the repaired one.
    let unit = config.max.unit();
    let tokens = if parsed.repairs.is_empty() {
        meter.costs(unit, messages)
    } else {
        let repaired: Vec<&Message> =
            parsed.ast.sections().iter().flat_map(crate::ast::Section::message_refs).collect();
        meter.costs_of(unit, &repaired)
    };
    // The report's token totals are the estimate: made here already when it is the meter.
    let estimated = meter.is_estimate(unit);
    let before_tokens = (parsed.repairs.is_empty() && estimated).then(|| crate::measure::sum_costs(&tokens));
    let finish = |engine: &Engine, result, errors, actions, repairs, after_tokens| {
        conclude(Outcome {
            strategy: "budget",
            original: messages,
            result,
            engine,
            errors,
            actions,
            repairs,
            on_error: config.on_error,
            cancelled: controls.cancel.is_cancelled(),
            // What fits the budget is the result, whatever its bytes.
            hard_budget: true,
            before_tokens,
            after_tokens,
        })
    };
    let fits = if parsed.repairs.is_empty() {
        crate::measure::sum_costs(&tokens) <= config.max.value()
    } else {
        meter.fits(config.max, messages)
    };
    if fits {
        return finish(&engine, None, Vec::new(), actions, Vec::new(), None);
    }
    let earlier = earlier_condensed(&parsed.ast);
    let mut plan = chunks::plan(&parsed.ast, config, &tokens, earlier.as_deref());
    let first_request = engine.next_id();
    let results = engine.wave(summarizer, controls, std::mem::take(&mut plan.jobs)).await;
    let mut errors = Vec::new();
    let answers = sort_answers(&plan, results, first_request, &mut actions, &mut errors);
    if controls.cancel.is_cancelled() {
        return finish(&engine, None, errors, actions, Vec::new(), None);
    }
    if !errors.is_empty() && config.on_error != OnError::Partial {
        return Err(CompactError::Summarizer(errors));
    }
    let mut out = assembly::assemble(parsed.ast.sections(), &plan, answers, &template, &mut actions);
    let may_drop = config.on_error == OnError::Partial;
    let cost = assembly::enforce(&mut out, config.max, meter, &mut actions, plan.cut_section, may_drop)?;
    finish(&engine, Some(out.messages()), errors, actions, parsed.repairs, estimated.then_some(cost))
}

/// The text of a `[CONDENSED CONTEXT]` part an earlier run left in a system message (a
/// message of its own, or a block of the one system field Anthropic and Gemini have).
pub(super) fn condensed_text(part: &crate::message::Part) -> Option<&str> {
    match part {
        crate::message::Part::Text(t) => t.text.strip_prefix(CONDENSED_PREFIX),
        _ => None,
    }
}

/// The condensed summaries earlier runs left in the leading system messages, oldest
/// first, as one previous summary; `None` when there is none.
fn earlier_condensed(ast: &crate::ast::ChainAst) -> Option<String> {
    let system = ast.sections().first()?.header().system();
    let texts: Vec<&str> = system.iter().flat_map(|m| m.parts.iter()).filter_map(condensed_text).collect();
    (!texts.is_empty()).then(|| texts.join("\n\n"))
}

/// What became of each chunk's call: the summary to use, or (`verbatim`) the content kept
/// as it is because no summary of it would be smaller.
pub(super) struct Answers {
    pub summaries: Vec<Option<String>>,
    pub verbatim: Vec<bool>,
}

/// Sorts the wave's results: usable summaries, content kept verbatim (a summary no
/// smaller than what it condenses, for content that can stand alone), and failures,
/// each noted under the chunk's first section.
fn sort_answers(
    plan: &Plan,
    results: Vec<Result<String, SummarizeError>>,
    first_request: usize,
    actions: &mut [Vec<Action>],
    errors: &mut Vec<SummarizeError>,
) -> Answers {
    let mut answers = Answers { summaries: Vec::new(), verbatim: vec![false; plan.chunks.len()] };
    for (i, (chunk, result)) in plan.chunks.iter().zip(results).enumerate() {
        let bytes = plan.content_bytes.get(i).copied().unwrap_or(0);
        let note = actions.get_mut(chunk.first_section());
        if let Ok(text) = &result {
            if text.len() >= bytes && stands_alone(chunk) {
                if let Some(a) = note {
                    a.push(Action::NoGain { kind: RequestKind::Chunk, bytes_before: bytes, summary_bytes: text.len() });
                }
                if let Some(v) = answers.verbatim.get_mut(i) {
                    *v = true;
                }
                answers.summaries.push(None);
                continue;
            }
        }
        match result.and_then(|text| no_gain(text, bytes, first_request.saturating_add(i))) {
            Ok(text) => answers.summaries.push(Some(text)),
            Err(e) => {
                if let Some(a) = note {
                    a.push(Action::Failed { kind: RequestKind::Chunk, request: e.request });
                }
                errors.push(e);
                answers.summaries.push(None);
            }
        }
    }
    answers
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
