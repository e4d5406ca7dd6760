//! The `auto` strategy, the default: what measured studies (`shared/reference/PEERS.md`)
//! find keeps the most of what the next turn needs, for the least.
//!
//! Nothing happens while the chain fits `max` (the high-water mark). Over it:
//! 1. **Mask** ([`super::mask`]): tool results older than the last few exchanges become
//!    placeholders. If that brings the chain down to the fold target (`target_percent` of
//!    `max`, the low-water mark), only the oldest ones needed are masked, and that is all:
//!    no summarizer call.
//! 2. **Fold** the oldest span into ONE structured summary ([`crate::schema`]), in the
//!    restoration message right after the system prompt and the first user request
//!    (both verbatim, never merged into the system prompt). The summarizer reads the
//!    span as it was, before masking. An earlier summary is updated in place (sent as
//!    `<previous_summary>` beside the new messages), never summarized again. The latest
//!    user request stays verbatim whatever the budget (folded, a request is no shorter,
//!    and a summary cut to fit lost it), and so do the newest messages that fit the
//!    target (at least the last exchange).
//!    With `summarizer_max_tokens`, a span too long for one request is summarized in
//!    parts, each updating the summary the one before gave ([`span`]).
//!    A summary over its share (past the target) is cut at a line end to the target,
//!    reported as `truncated`, so that the turns that follow have their room.
//! 3. **The hard budget last**: a result still over `max` has its kept exchanges masked
//!    too, then its summary cut. A budget with no room for the restoration's whole note
//!    gets a brief one. When the system prompt, the first request, the latest request
//!    and the last exchange leave no room for the least summary worth asking for, the
//!    first request (unless it is the latest) is summarized with the span, then the
//!    answer before a closing user message; with still no room, no summary is asked for
//!    (the masked chain fits, or the call fails with `budget_exceeded` saying what is too
//!    large). So does a failed summary under [`OnError::Partial`] that masking cannot
//!    stand in for. A result meets `max` (it is kept even when larger in bytes than the
//!    chain: tokens and bytes need not agree).
//!
//! Folding down to the low-water mark leaves room for the turns that follow: they only
//! append until `max` is crossed again, so the prefix sent upstream stays the same. A
//! caller that keeps no state (the Worker middleware) sets `stable`: the chain is then
//! folded as the conversation's requests would have folded it ([`replay`]), so the same
//! raw history always gives the same compacted prefix. Each of those folds is a wave of
//! its own (it updates the summary the one before wrote): a long history sent whole at
//! a small budget takes as many (with a summary cache, each asked once).
//!
//! The restoration message is window's ([`super::window`]): a chain compacted by one is
//! understood by the other.

mod costs;
mod span;

use super::mask::{self, after_mask, MaskConfig};
use super::window::{
    layout_owned, merge_alternating, restoration_part_with, restoration_snapshot, restoration_text_with, Layout,
    LayoutCosts, Note, RESTORATION_MARK,
};
use super::{conclude, cut_by, hint, Action, CompactError, CompactResult, OnError, Outcome};
use crate::measure::{sum_costs as sum, Amount, Meter};
use crate::message::{owned_messages, Message, Part, Role};
use crate::summarize::{Controls, Engine, MessageRange, Summarizer};
use costs::Unmasked;
use std::borrow::Cow;

/// Settings of the `auto` strategy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoConfig {
    /// The budget: over it, compaction runs, and the result never exceeds it.
    pub max: Amount,
    /// Share of `max` compaction brings the chain down to, 1 to 100.
    pub target_percent: usize,
    /// Share of `max` the summary may take, 1 to 100.
    pub summary_percent: usize,
    /// The masking phase (its `max` is ignored: `auto` decides when).
    pub mask: MaskConfig,
    /// A span smaller than this many bytes is never sent to the summarizer.
    pub min_summarize_bytes: usize,
    /// Fold as the conversation's requests would have, one after the other (see
    /// [`replay`]): for stateless callers that send the whole raw history every time.
    pub stable: bool,
    /// Most tokens one summary request may hold: a longer span is summarized in parts,
    /// each updating the summary the one before gave (`None`: one request).
    pub summarizer_max_tokens: Option<usize>,
    pub on_error: OnError,
}

/// The budget when none is given, in tokens.
pub const DEFAULT_MAX_TOKENS: usize = 100_000;

impl AutoConfig {
    /// The defaults for a budget: fold to 70% of it, the summary at most 50% of it,
    /// masking with its defaults.
    pub fn for_budget(max: Amount) -> Self {
        AutoConfig {
            max,
            target_percent: 70,
            summary_percent: 50,
            mask: MaskConfig::default(),
            min_summarize_bytes: 512,
            stable: false,
            summarizer_max_tokens: None,
            on_error: OnError::Rollback,
        }
    }
}

impl Default for AutoConfig {
    fn default() -> Self {
        AutoConfig::for_budget(Amount::Tokens(DEFAULT_MAX_TOKENS))
    }
}

/// Whether [`compact`] would do anything: the chain is over `max`.
pub fn needs_compaction(messages: &[Message], config: &AutoConfig, meter: Meter<'_>) -> bool {
    !meter.fits(config.max, messages)
}

/// What every fold of one `compact` call is given.
struct Call<'a, S: ?Sized> {
    config: &'a AutoConfig,
    summarizer: &'a S,
    controls: &'a Controls,
    meter: Meter<'a>,
}

// By hand: a derive would ask `S: Copy`, and only references are copied.
impl<S: ?Sized> Clone for Call<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S: ?Sized> Copy for Call<'_, S> {}

/// Where the chain folds.
struct Fold {
    /// `body[..split]` is summarized (but `pinned`), the rest kept.
    split: usize,
    /// The latest user message, kept verbatim when it falls in the span.
    pinned: Option<usize>,
}

/// Compacts `messages` with the auto strategy (see the module documentation).
pub async fn compact<S: Summarizer + ?Sized>(
    messages: &[Message],
    config: &AutoConfig,
    summarizer: &S,
    controls: &Controls,
    meter: Meter<'_>,
) -> Result<CompactResult, CompactError> {
    let super::Read { chain, starts, sections, repairs } = super::read(messages)?;
    let chain: &[Message] = &chain;
    // Every message is measured once; what follows reuses the counts ([`costs`]).
    let costs = meter.costs(config.max.unit(), chain);
    // The report counts the input as given: the very chain read when nothing was repaired.
    let before_tokens = (repairs.is_empty() && meter.is_estimate(config.max.unit())).then(|| sum(&costs));
    let mut run = Run { actions: vec![Vec::new(); sections], starts, engine: Engine::default(), errors: Vec::new() };
    let finish = |run: Run, result: Option<Vec<Message>>, repairs| {
        let hard_budget = result.is_some();
        conclude(Outcome {
            strategy: "auto",
            original: messages,
            result,
            engine: &run.engine,
            errors: run.errors,
            actions: run.actions,
            repairs,
            on_error: config.on_error,
            cancelled: controls.cancel.is_cancelled(),
            // Every result meets the budget (each path ends in its check: `enforce`, the
            // masking's target, the replay's sums): it is kept even when it is no smaller
            // in bytes (an image folded into a summary: fewer tokens, more bytes). Given
            // back, the chain stayed over the budget with no error.
            hard_budget,
            before_tokens,
            after_tokens: None,
        })
    };
    let call = Call { config, summarizer, controls, meter };
    let (result, thinking_kept_last) = if config.stable {
        replay(chain, &costs, call, &mut run).await?
    } else {
        (fold(chain, &costs, call, &mut run).await?, None)
    };
    let mut out = finish(run, result, repairs)?;
    out.thinking_kept_last = thinking_kept_last.filter(|_| out.changed);
    Ok(out)
}

/// Stable mode: the chain compacted as if each request of the conversation had been (a
/// request is the history before each assistant message, and the whole chain last): a
/// fold whenever what would have been sent was over `max`, each on the result of the one
/// before. The outcome depends only on the raw history, so a stateless caller sending a
/// longer history gets the same compacted prefix, and with a summary cache no call is
/// repeated. Folds at earlier requests that could not fit are skipped (that request would
/// have failed then); only the last one's error counts. Action indices are those of the
/// chain each fold saw. With the chain, how many messages at its end keep their thinking
/// (the current tool cycle of the last fold's request, and all that came after it: the
/// provider saw them after the same prefix).
#[allow(clippy::type_complexity)]
async fn replay<S: Summarizer + ?Sized>(
    chain: &[Message],
    costs: &[usize],
    call: Call<'_, S>,
    run: &mut Run,
) -> Result<(Option<Vec<Message>>, Option<usize>), CompactError> {
    let Call { config, controls, meter, .. } = call;
    let max = config.max;
    let points: Vec<usize> = chain
        .iter()
        .enumerate()
        .filter(|(_, m)| m.role == Role::Assistant)
        .map(|(i, _)| i)
        .chain(std::iter::once(chain.len()))
        .collect();
    let (mut state, mut state_costs, mut covered, mut pending, mut last) =
        (Vec::new(), Vec::new(), 0usize, 0usize, 0usize);
    let mut folded = false;
    for (n, &p) in points.iter().enumerate() {
        pending = costs.get(last..p).unwrap_or_default().iter().fold(pending, |a, c| a.saturating_add(*c));
        last = p;
        if sum(&state_costs).saturating_add(pending) <= max.value() {
            continue;
        }
        let mut current = state.clone();
        current.extend_from_slice(chain.get(covered..p).unwrap_or_default());
        let mut current_costs = state_costs.clone();
        current_costs.extend_from_slice(costs.get(covered..p).unwrap_or_default());
        let next = match fold(&current, &current_costs, call, run).await {
            Ok(next) => next,
            Err(CompactError::Budget { .. }) if n.saturating_add(1) < points.len() => None,
            Err(e) => return Err(e),
        };
        if controls.cancel.is_cancelled() || (!run.errors.is_empty() && config.on_error != OnError::Partial) {
            return Ok((None, None));
        }
        if let Some(next) = next {
            state_costs = meter.costs(max.unit(), &next);
            state = next;
            covered = p;
            pending = 0;
            folded = true;
        }
    }
    if !folded {
        return Ok((None, None));
    }
    let settled = crate::repair::current_cycle_start(&state).map(|cycle| state.len().saturating_sub(cycle));
    let appended = chain.get(covered..).unwrap_or_default();
    state.extend_from_slice(appended);
    Ok((Some(state), settled.map(|kept| kept.saturating_add(appended.len()))))
}

/// One compaction of `chain` at its end (see the module documentation); `None` when it
/// fits or nothing could be done.
/// `costs`: of each message of `chain`, in `config.max`'s unit.
async fn fold<S: Summarizer + ?Sized>(
    chain: &[Message],
    costs: &[usize],
    call: Call<'_, S>,
    run: &mut Run,
) -> Result<Option<Vec<Message>>, CompactError> {
    let (actions, errors) = (run.actions.clone(), run.errors.len());
    match fold_once(chain, costs, call, run, false).await {
        // The first request and the last exchange kept verbatim can leave the summary too
        // little room, just under the budget (a budget a smaller one was met at, folding
        // them too, failed): folded with them, as a smaller budget is. Not when a summary
        // failed (under `partial`): that would only ask it again.
        Err(CompactError::Budget { .. }) if !call.controls.cancel.is_cancelled() && run.errors.len() == errors => {
            run.actions = actions;
            fold_once(chain, costs, call, run, true).await
        }
        other => other,
    }
}

/// [`fold`], the first request and the answer before a closing user message summarized
/// too when `tight` (else only when they alone leave no room).
async fn fold_once<S: Summarizer + ?Sized>(
    chain: &[Message],
    costs: &[usize],
    call: Call<'_, S>,
    run: &mut Run,
    force_tight: bool,
) -> Result<Option<Vec<Message>>, CompactError> {
    let Call { config, summarizer, controls, meter } = call;
    let max = config.max;
    if sum(costs) <= max.value() {
        return Ok(None);
    }
    // 1. Mask, oldest first, as little as reaches the target.
    let target = max.percent(config.target_percent.clamp(1, 100));
    let (masked, masked_costs) = match mask_to(chain, costs, config, target, meter, run) {
        Ok(enough) => return Ok(Some(enough)),
        Err(all) => all,
    };
    // 2. Fold the oldest span.
    // The layout takes the masked chain over; the rare paths that end with the masked
    // chain itself mask again.
    let remask = || owned_messages(mask::mask(chain, &config.mask).0);
    let mut shape = layout_owned(masked);
    let mut shape_costs = LayoutCosts::of(&shape, &masked_costs, meter, max.unit());
    let mut unmasked = Unmasked::new(chain, costs, meter, max.unit());
    // What no fold removes: the head, the last exchange, the latest request (verbatim
    // whatever else goes: folded, a request is no shorter, and a summary cut to fit lost
    // it) and the restoration message's own text. The first request stays verbatim unless,
    // with those, it leaves the summary no room: then it is summarized with the rest
    // (unless it is the latest request).
    let note_cost = |note: Note| meter.text(max.unit(), &restoration_text_with("", note));
    let fixed = |shape: &Layout<'_>, costs: &LayoutCosts, tight: bool, note: Note| {
        let last = last_exchange(&shape.body, tight);
        let tail = sum(costs.body.get(last..).unwrap_or_default());
        let request = pinned_request(&shape.body, last).and_then(|r| costs.body.get(r)).copied().unwrap_or(0);
        sum(&costs.head).saturating_add(tail).saturating_add(request).saturating_add(note_cost(note))
    };
    // Room for a summary worth asking for beside what is fixed.
    let least = meter.text(max.unit(), LEAST_SUMMARY);
    let no_room = |fixed: usize| fixed.saturating_add(least) > max.value();
    // A budget with no room for the whole note gets the brief one.
    let note = if no_room(fixed(&shape, &shape_costs, false, Note::Whole)) { Note::Brief } else { Note::Whole };
    let later_request = shape.body.iter().any(|m| m.role == Role::User);
    if later_request && (force_tight || no_room(fixed(&shape, &shape_costs, false, note))) {
        unpin_first_request(&mut shape, &mut shape_costs);
        unmasked.unpin();
    }
    // Still no room: the answer before a closing user message is summarized too.
    let tight = force_tight || no_room(fixed(&shape, &shape_costs, false, note));
    let SpanPlan { at, span, span_cost, allowance } =
        plan_span(&shape, &shape_costs, &unmasked, target, config, note_cost(note), tight);
    let span_bytes: usize = span.iter().map(|m| m.size()).sum();
    let previous = shape.previous.as_ref();
    let bytes_before = span_bytes.saturating_add(previous.map_or(0, |p| p.bytes));
    // What the hard budget's error would say, before the fold takes the layout over.
    let head_has_user = shape.head.iter().any(|m| m.role == Role::User);
    let request_pinned = pinned_request(&shape.body, last_exchange(&shape.body, tight)).is_some();
    let fixed_cost = fixed(&shape, &shape_costs, tight, note);
    // With no room for a summary worth having, none is asked for (the built-in summarizer
    // asked for a byte wrote none, and the call failed, blamed on it): the masked chain
    // fits, or the budget cannot be met.
    // A span too small to summarize, though the budget had room for its summary.
    let unsummarized = !span.is_empty() && bytes_before < config.min_summarize_bytes && !no_room(fixed_cost);
    let out = if span.is_empty() || bytes_before < config.min_summarize_bytes || no_room(fixed_cost) {
        remask()
    } else {
        // Bytes a token of this conversation takes, to ask for the allowance in bytes; at
        // most four (the library's rule of thumb): a summary's bullets, paths and numbers
        // take more tokens a byte than prose, and asked for prose's ratio it came back
        // over its allowance (and over the target: a cut never goes below what was asked).
        let span_cost = span_cost.max(1);
        // No less than the least summary worth having: there is room for it (above).
        let allowance = allowance.max(least);
        let ratio_bytes = span_bytes.min(span_cost.saturating_mul(4));
        let first = shape.origin.first().copied().unwrap_or(0);
        let end = shape.origin.get(at.split.saturating_sub(1)).map_or(first, |e| e.saturating_add(1));
        // A summarizer with a small context is asked for no more than its limit leaves
        // room for beside the instructions and the messages of each part.
        let limit =
            config.summarizer_max_tokens.map(|l| span::Limit::new(l, controls.focus.as_deref(), meter)).transpose()?;
        // At least what a summary worth having takes: asked for a few bytes, the built-in
        // summarizer wrote nothing (and an LLM writes more anyway). The result need not
        // be smaller in bytes: it is kept when it meets the budget (tokens and bytes
        // need not agree).
        let target_bytes = hint(
            allowance.saturating_mul(ratio_bytes) / span_cost,
            bytes_before.saturating_sub(restoration_text_with("", note).len()),
        )
        .max(LEAST_SUMMARY.len());
        let request = span::SpanRequest {
            span: &span,
            previous: previous.map(|p| p.snapshot.as_str()),
            target_bytes: limit.map_or(target_bytes, |l| target_bytes.min(l.room())),
            limit,
            range: MessageRange { start: first, end: end.max(first) },
        };
        // The span's masked copies are neither sent (the span is rendered from the chain
        // as it came) nor kept: let them go before the call, which holds its transcript.
        for (i, m) in shape.body.iter_mut().enumerate().take(at.split) {
            // Borrowed ones are the chain's own: nothing to let go.
            if let (true, Cow::Owned(m)) = (Some(i) != at.pinned, m) {
                m.parts = Vec::new();
            }
        }
        let asked = request.target_bytes;
        let Some(body) = span::summarize_span(request, summarizer, controls, meter, run).await else {
            // Rollback and throw end in `conclude`. Partial keeps what masking did, within
            // the budget: it is guaranteed (it came back over it, with no error, and the
            // provider refused it); what only the summary could have brought under it
            // fails the call, saying so.
            let out = remask();
            if config.on_error != OnError::Partial || controls.cancel.is_cancelled() {
                return Ok(Some(out));
            }
            let cost = meter.total(max.unit(), &out);
            let why = run.errors.last().map_or_else(String::new, |e| format!(": {}", e.message));
            let reason = move || {
                format!(
                    "the summary of {} message(s) failed{why}; without it the masked chain is {} (onError \"partial\" keeps the budget)",
                    span.len(),
                    max.with_value(cost)
                )
            };
            return enforce(out, config, meter, run, note, reason).map(Some);
        };
        let bytes_after = restoration_text_with(&body, note).len();
        let updated = previous.is_some();
        run.record(0, Action::Snapshot { messages: span.len(), updated, bytes_before, bytes_after });
        let (folded, seam) = restored(shape, &at, &body, note);
        to_target(merge_alternating(folded, seam), asked, target, meter, run, note)
    };
    // 3. The hard budget.
    let alone = || {
        if unsummarized {
            return format!(
                "the {bytes_before} bytes to fold are under minSummarizeBytes ({}): no summary was asked for, and \
                 masking alone leaves the chain over it",
                config.min_summarize_bytes
            );
        }
        let kept = format!(
            "the system prompt{}{}, the latest message{} and the summary's own note alone are {}",
            if head_has_user { ", the first request" } else { "" },
            if request_pinned { ", the latest request" } else { "" },
            if tight { "" } else { "s from the last assistant message" },
            max.with_value(fixed_cost)
        );
        // Under the budget, what they leave is too little for any summary.
        match max.value().checked_sub(fixed_cost).filter(|left| *left > 0) {
            Some(left) => {
                format!("{kept}, which leaves {} for the summary, too little for one", max.with_value(left))
            }
            None => kept,
        }
    };
    enforce(out, config, meter, run, note, alone).map(Some)
}

/// Step 1: the chain with its oldest results masked, as few as bring it to `target`
/// (`Ok`); `Err` with everything maskable masked, and its costs, when that is not enough.
/// Messages nothing was masked in are the chain's own, borrowed.
#[allow(clippy::type_complexity)]
fn mask_to<'a>(
    chain: &'a [Message],
    costs: &[usize],
    config: &AutoConfig,
    target: Amount,
    meter: Meter<'_>,
    run: &mut Run,
) -> Result<Vec<Message>, (Vec<Cow<'a, Message>>, Vec<usize>)> {
    let unit = target.unit();
    let (all, items) = mask::mask(chain, &config.mask);
    let all_costs = after_mask(costs, &all, &items, meter, unit);
    if sum(&all_costs) > target.value() {
        run.masked(&items);
        return Err((all, all_costs));
    }
    // The fewest oldest items that reach the target: each try costs one message at most.
    let oldest = mask::Oldest::new(chain, costs, &all, &all_costs, &items);
    let (mut lo, mut hi) = (0usize, items.len());
    while lo < hi {
        let mid = lo.saturating_add(hi) / 2;
        if oldest.cost(mid, meter, unit) <= target.value() {
            hi = mid;
        } else {
            lo = mid.saturating_add(1);
        }
    }
    let (masked, items) = oldest.chain(lo);
    run.masked(items);
    Ok(owned_messages(masked))
}

/// What step 2 folds: the span before `at.split` (less the pinned request), read from
/// the chain before masking, and the tokens its summary may take: what the target leaves
/// (at least `summary_percent` of `max`, itself capped by what the target leaves), never
/// more than `max` leaves.
struct SpanPlan<'a> {
    at: Fold,
    /// The span's messages, where they lie (in the chain, or the first request's layout).
    span: Vec<&'a Message>,
    /// What the span costs.
    span_cost: usize,
    allowance: usize,
}

/// `note`: the cost of the restoration message's own text.
fn plan_span<'a>(
    shape: &Layout<'_>,
    shape_costs: &LayoutCosts,
    unmasked: &'a Unmasked<'_>,
    target: Amount,
    config: &AutoConfig,
    note: usize,
    tight: bool,
) -> SpanPlan<'a> {
    let costs = &shape_costs.body;
    let head_cost = sum(&shape_costs.head);
    let limit = kept_from(&shape.body, costs, target.value(), head_cost, tight);
    // The summary's share, never more than the target leaves beside the head and the last
    // exchange (at least a quarter of the target): a share past it (`targetPercent` 30
    // with `summaryPercent` 50) left the chain over the target after every fold.
    let tail = sum(costs.get(limit..).unwrap_or_default());
    let left = target.value().saturating_sub(head_cost.saturating_add(tail)).max(target.value() / 4);
    let share = config.max.percent(config.summary_percent.clamp(1, 100)).value().min(left);
    let keep = target.value().saturating_sub(head_cost.saturating_add(share));
    let at = plan(&shape.body, costs, limit, keep);
    // The summary may take what the target leaves, at least its share.
    let kept: usize = (at.split..costs.len())
        .chain(at.pinned.filter(|&p| p < at.split))
        .filter_map(|i| costs.get(i))
        .fold(0usize, |a, c| a.saturating_add(*c));
    // ...but never more than the hard budget leaves: a summary cut to fit loses its end.
    let room = config.max.value().saturating_sub(head_cost.saturating_add(kept).saturating_add(note));
    let allowance = target.value().saturating_sub(head_cost.saturating_add(kept)).max(share).min(room.max(1));
    let in_span =
        || (0..at.split).filter(|&i| Some(i) != at.pinned).filter_map(|i| unmasked.body(i, *shape.origin.get(i)?));
    let span = in_span().map(|(m, _)| m).collect();
    let span_cost = in_span().fold(0usize, |a, (_, c)| a.saturating_add(c));
    SpanPlan { at, span, span_cost, allowance }
}

/// The chain after a fold: the head, the restoration message (opened by `note`) with the
/// summary `body`, the pinned request, and everything from the split on; and where that
/// last run (neighbours in the input) starts.
fn restored<'a>(shape: Layout<'a>, at: &Fold, summary: &str, note: Note) -> (Vec<Cow<'a, Message>>, usize) {
    let Layout { head: mut folded, body, .. } = shape;
    folded.push(Cow::Owned(Message::new(Role::User, vec![restoration_part_with(summary, note)])));
    let pinned = at.pinned.filter(|&p| p < at.split);
    let mut kept = Vec::with_capacity(body.len().saturating_sub(at.split));
    for (i, m) in body.into_iter().enumerate() {
        if Some(i) == pinned {
            folded.push(m);
        } else if i >= at.split {
            kept.push(m);
        }
    }
    let seam = folded.len();
    folded.append(&mut kept);
    (folded, seam)
}

/// A fold whose summary came back over its share (summarizers overshoot the bytes asked
/// for, and a summary takes more tokens per byte than the span it stands for): the
/// summary cut at a line end to bring the chain to the fold target. Left over it, the
/// chain sat at `max` and the next turn folded again (a summarizer call and a new prefix
/// on nearly every turn). The cut never leaves less than the `asked` bytes: a chain it
/// cannot bring to the target so is left whole.
fn to_target(
    out: Vec<Message>,
    asked: usize,
    target: Amount,
    meter: Meter<'_>,
    run: &mut Run,
    note: Note,
) -> Vec<Message> {
    if meter.fits(target, &out) {
        return out;
    }
    cut_summary(out.clone(), asked, target, meter, run, note).unwrap_or(out)
}

/// Step 3, the hard budget: the kept exchanges masked too, then the summary cut; else
/// the call fails, saying what `alone` is too large.
fn enforce(
    mut out: Vec<Message>,
    config: &AutoConfig,
    meter: Meter<'_>,
    run: &mut Run,
    note: Note,
    alone: impl FnOnce() -> String,
) -> Result<Vec<Message>, CompactError> {
    let max = config.max;
    if meter.fits(max, &out) {
        return Ok(out);
    }
    let tight = MaskConfig { keep_last: 1, min_bytes: 0, ..config.mask.clone() };
    let (remasked, items) = mask::mask(&out, &tight);
    run.masked(&items);
    out = owned_messages(remasked);
    if meter.fits(max, &out) {
        return Ok(out);
    }
    cut_summary(out, 0, max, meter, run, note).ok_or_else(|| CompactError::Budget { max, reason: alone() })
}

/// The fold that keeps the most recent messages costing at most `keep` (at least the last
/// exchange: the last assistant message and what follows, so the latest message is never
/// merged with the summary), splitting only before a message that is no tool result, so
/// no call is parted from its result. The latest request stays verbatim, whatever it
/// costs: the plan counted it as fixed, beside the head and the last exchange.
fn plan(body: &[Cow<'_, Message>], costs: &[usize], limit: usize, keep: usize) -> Fold {
    let pinned = body.iter().rposition(|m| m.role == Role::User);
    let mut split = limit;
    let mut kept: usize = costs.get(limit..).map_or(0, |c| c.iter().fold(0usize, |a, b| a.saturating_add(*b)));
    let pinned_cost = |s: usize| pinned.filter(|&p| p < s).and_then(|p| costs.get(p)).copied().unwrap_or(0);
    for s in (0..limit).rev() {
        kept = kept.saturating_add(costs.get(s).copied().unwrap_or(0));
        if kept.saturating_add(pinned_cost(s)) > keep {
            break;
        }
        if body.get(s).is_some_and(|m| m.role != Role::Tool) {
            split = s;
        }
    }
    Fold { split, pinned }
}

/// Where what is kept verbatim whatever the fold starts: the whole turn answering the
/// latest request (its calls, their results and the answer) when it fits in the target
/// with the head, that request and the summary's least share (a quarter of the target);
/// else the last exchange. Kept from its answer alone, a turn's
/// calls and results were folded while the budget had room for them, and the answer then
/// stood after a summary of what it answers.
fn kept_from(body: &[Cow<'_, Message>], costs: &[usize], target: usize, head: usize, tight: bool) -> usize {
    let last = last_exchange(body, tight);
    let turn = body.iter().rposition(|m| m.role == Role::User).map(|request| (request, request.saturating_add(1)));
    match turn {
        Some((request, start)) if !tight && start < last => {
            let turn_cost = sum(costs.get(request..).unwrap_or_default());
            if head.saturating_add(turn_cost).saturating_add(target / 4) <= target {
                start
            } else {
                last
            }
        }
        _ => last,
    }
}

/// The latest user request when it lies in the body before `last` (where the last
/// exchange starts): kept verbatim beside that exchange.
fn pinned_request(body: &[Cow<'_, Message>], last: usize) -> Option<usize> {
    body.iter().rposition(|m| m.role == Role::User).filter(|&r| r < last)
}

/// The least summary worth asking for, as long as one: a heading and a short bullet.
/// With less room than it takes, no summary is asked for (asked for a byte, the built-in
/// summarizer wrote none, and the call failed, blamed on it); a summary is never asked
/// for fewer bytes.
const LEAST_SUMMARY: &str = "## Current state\n- Latest: tests pass";

/// Where the last exchange starts: the last assistant message (else the last message that
/// is no tool result); `tight`: a closing user message alone.
fn last_exchange(body: &[Cow<'_, Message>], tight: bool) -> usize {
    let closing_user = body.len().checked_sub(1).filter(|&i| body.get(i).is_some_and(|m| m.role == Role::User));
    if let Some(i) = closing_user.filter(|_| tight) {
        return i;
    }
    body.iter()
        .rposition(|m| m.role == Role::Assistant)
        .or_else(|| body.iter().rposition(|m| m.role != Role::Tool))
        .unwrap_or(0)
}

/// Moves the first user request from the verbatim head into the body, to be summarized,
/// with its cost.
fn unpin_first_request(shape: &mut Layout<'_>, costs: &mut LayoutCosts) {
    if shape.head.last().is_some_and(|m| m.role == Role::User) {
        if let Some(first) = shape.head.pop() {
            // Its index in the chain: after the system messages.
            shape.body.insert(0, first);
            shape.origin.insert(0, shape.head.len());
            costs.body.insert(0, costs.head.pop().unwrap_or(0));
        }
    }
}

/// `out` with its summary cut so the chain fits `max` (as little as needed, at the end
/// of a whole line when one is left), at least `keep` bytes of it left; `None` when it
/// cannot.
fn cut_summary(
    mut out: Vec<Message>,
    keep: usize,
    max: Amount,
    meter: Meter<'_>,
    run: &mut Run,
    note: Note,
) -> Option<Vec<Message>> {
    let (at, pi, snapshot) = out.iter().enumerate().find_map(|(at, m)| {
        m.parts.iter().enumerate().find_map(|(pi, p)| match p {
            Part::Text(t) => crate::ast::unseal(&t.text, RESTORATION_MARK)
                .and_then(restoration_snapshot)
                .map(|s| (at, pi, s.to_string())),
            _ => None,
        })
    })?;
    let cut_to = |excess: usize| cut_at_line(cut_by(&snapshot, excess)?);
    let with = |cut: &str| {
        let mut chain = out.clone();
        *chain.get_mut(at)?.parts.get_mut(pi)? = restoration_part_with(cut, note);
        meter.fits(max, &chain).then_some(chain)
    };
    // The smallest cut that fits: fitting only grows with the cut. The most a cut takes
    // leaves the first character (one byte of it would leave nothing).
    let first = snapshot.chars().next().map_or(1, char::len_utf8);
    let most = snapshot.len().saturating_sub(first.max(keep));
    with(&cut_to(most)?)?;
    let (mut lo, mut hi) = (1usize, most.max(1));
    while lo < hi {
        let mid = lo.saturating_add(hi) / 2;
        match cut_to(mid).and_then(|c| with(&c)) {
            Some(_) => hi = mid,
            None => lo = mid.saturating_add(1),
        }
    }
    let cut = cut_to(hi)?;
    out = with(&cut)?;
    run.record(0, Action::Truncated { message: None, bytes_before: snapshot.len(), bytes_after: cut.len() });
    Some(out)
}

/// A summary cut short (`cut`, ending with `…` when it ends mid-line) ended as a reader
/// can take it: at the end of its last whole line (a structured summary cut mid-bullet
/// reads as a broken fact), unless that line is most of what fits (a summary written as
/// one long paragraph, which would go whole): then after its last whole word.
fn cut_at_line(cut: String) -> Option<String> {
    let body = cut.strip_suffix('…').unwrap_or(&cut);
    let line_start = body.rfind('\n').map_or(0, |nl| nl.saturating_add(1));
    if line_start > 0 && line_start.saturating_mul(2) >= body.len() {
        return Some(body.get(..line_start)?.trim_end().to_string());
    }
    if body.len() == cut.len() {
        return Some(cut); // not cut mid-line
    }
    // After a word, when the line has spaces not too far back (scripts without spaces
    // are cut at a character).
    let line = body.get(line_start..)?;
    let head = match line.rfind(' ') {
        Some(space) if space > 0 && line.len().saturating_sub(space) <= 64 => {
            body.get(..line_start.saturating_add(space))?
        }
        _ => body,
    };
    Some(format!("{}…", head.trim_end()))
}

/// What one run did, by section of the (repaired) input.
struct Run {
    actions: Vec<Vec<Action>>,
    /// First message of each section.
    starts: Vec<usize>,
    engine: Engine,
    errors: Vec<crate::summarize::SummarizeError>,
}

impl Run {
    fn record(&mut self, section: usize, action: Action) {
        if let Some(list) = self.actions.get_mut(section) {
            list.push(action);
        }
    }

    fn masked(&mut self, items: &[mask::Masked]) {
        for item in items {
            let section = self.starts.partition_point(|&s| s <= item.message).saturating_sub(1);
            let section = section.min(self.actions.len().saturating_sub(1));
            self.record(
                section,
                Action::Masked {
                    message: item.message,
                    tool: item.tool.clone(),
                    bytes_before: item.bytes_before,
                    bytes_after: item.bytes_after,
                },
            );
        }
    }
}
