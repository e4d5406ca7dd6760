//! The `window` strategy (zrb's history summarizer): oversized tool results are
//! summarized alone, then, when the history is over its token threshold or its message
//! window, the oldest part folds into one state snapshot behind a restoration message.
//!
//! Pipeline:
//! 1. (a) every tool result over `message_threshold` is summarized on its own, prefixed
//!    `SUMMARY OF TOOL RESULT:` ([`tool_results`]); one wave.
//! 2. Trigger: the chain costs more than `threshold`, or has more than `window`
//!    messages. Otherwise done.
//! 3. The four-phase safe split ([`split`]): complete call/result pairs are never
//!    separated, no orphan result is kept, a pending call is kept. Split triggered by
//!    the count alone with a span under 30% of the threshold: skipped, "not worth it".
//! 4. The span is packed into chunks of 90% of the threshold, summarized in one wave;
//!    a message too large for a chunk is cut into pieces of 70% and summarized level by
//!    level, truncated past `max_depth` levels ([`chunk`]). All phases together take at
//!    most [`MAX_WAVES`] waves: levels go only as deep as the waves left allow.
//! 5. Consolidation into one `<state_snapshot>` (overall_goal, active_constraints,
//!    key_knowledge, work_log, task_state with DONE / IN PROGRESS / TODO) when there are
//!    several chunk summaries, an earlier snapshot to update, or a summary over 80% of
//!    the threshold; one wave.
//! 6. The result: system messages, the first user message (verbatim), the restoration
//!    message ("Automated Context Restoration" + the snapshot, user role), the latest
//!    user message (verbatim, when the split fell after it), the kept messages;
//!    consecutive user (or assistant) messages the fold brought together merged, parts
//!    in order, byte for byte ([`snapshot`]); kept messages that were neighbours in the
//!    input stay as they came (upstream merged them too).
//!
//! Over upstream: the first user message and the latest user message are never
//! summarized; truncation is never silent (an [`Action::Truncated`]); an earlier
//! snapshot is UPDATED (sent as `<previous_summary>` beside the new messages, see
//! [`crate::prompt::render_update`]), never re-summarized from its own text; a summary
//! never replaces content smaller than itself (a larger one goes one level deeper and is
//! cut past `max_depth`; a span that cannot outweigh the restoration message is never
//! sent); failures follow
//! [`OnError`] (upstream silently returned the original); a compacted chain with nothing
//! new makes no call (marked tool results are skipped; the split finds nothing older
//! than the snapshot).
//!
//! Input handling: the input is parsed in repair mode (a pending call gets a fallback
//! result, an orphan result a call) and, when anything is
//! changed, the repaired chain is the base of the result (its repairs are listed in the
//! report), so the result always parses strictly. When nothing is changed, the input
//! comes back as it was.
//!
//! Report: message indices (in [`Action`]s and request ranges) are indices in the
//! repaired input. Actions about one message or chunk go to the section holding that
//! message (the chunk's first); chain-level actions (the snapshot, skips, the
//! consolidation) go to section 0.

mod chunk;
mod fold;
mod run;
mod snapshot;
mod split;
mod tool_results;

pub(crate) use snapshot::{
    layout, layout_owned, merge_alternating, restoration_part_with, restoration_text_with, snapshot_body, Layout,
    LayoutCosts, Note, RESTORATION_MARK,
};
pub use snapshot::{restoration_snapshot, restoration_text, RESTORATION_PREFIX};
pub use tool_results::{is_marked, TOOL_SUMMARY_PREFIX, TOOL_TRUNCATED_PREFIX};

use super::{CompactError, CompactResult, OnError};
use crate::measure::{sum_costs, Amount, Meter};
use crate::message::{owned_messages, Message};
use crate::summarize::{Controls, Summarizer};
use run::Run;
use std::borrow::Cow;

pub use run::MAX_WAVES;

/// Settings of the window strategy; defaults are upstream's.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowConfig {
    /// Messages to keep (upstream's `summary_window`): a chain with more triggers
    /// compaction, and the split aims at keeping this many.
    pub window: usize,
    /// Conversation threshold: a chain costing more triggers compaction. The split
    /// (kept part under 70% / 80%), chunks (90%), long-text pieces (70%) and the
    /// consolidation trigger (80%) derive from it.
    pub threshold: Amount,
    /// A tool result costing more is summarized on its own.
    pub message_threshold: Amount,
    /// Levels of re-summarization of a long text before it is truncated (upstream: 5), as
    /// far as [`MAX_WAVES`] allows.
    pub max_depth: usize,
    /// A span (or tool result) smaller than this many bytes is never sent to the
    /// summarizer: a summary could hardly beat it, and skipping it by size keeps a second
    /// run free of calls.
    pub min_summarize_bytes: usize,
    /// Template of created tool-call ids. The window strategy creates none today; kept
    /// so every strategy's settings carry it.
    pub id_template: String,
    pub on_error: OnError,
}

impl Default for WindowConfig {
    /// Window 100 messages, threshold 76,800 tokens, message threshold 38,400 tokens.
    fn default() -> Self {
        WindowConfig {
            window: 100,
            threshold: Amount::Tokens(76_800),
            message_threshold: WindowConfig::message_threshold_for(Amount::Tokens(76_800)),
            max_depth: 5,
            min_summarize_bytes: 512,
            id_template: crate::ast::tool_id::DEFAULT_TEMPLATE.to_string(),
            on_error: OnError::Rollback,
        }
    }
}

impl WindowConfig {
    /// Settings for a result that should fit `max`: `threshold` is 80% of it (the kept
    /// part then stays under 56-64% of `max`, the snapshot is asked to stay under 8%,
    /// leaving room for the system prompt and first user message), the message
    /// threshold half of that; the other settings are the defaults. The window
    /// strategy aims at the budget but does not enforce it (use `budget` for a hard one).
    pub fn for_budget(max: Amount) -> Self {
        let threshold = max.percent(80);
        WindowConfig {
            threshold,
            message_threshold: WindowConfig::message_threshold_for(threshold),
            ..WindowConfig::default()
        }
    }

    /// The message threshold that goes with a threshold: half of it, as upstream derives it.
    pub fn message_threshold_for(threshold: Amount) -> Amount {
        threshold.with_value(threshold.value() / 2)
    }
}

/// Whether [`compact`] would call the summarizer: an unmarked tool result over the
/// message threshold, or a chain over the threshold or the window whose split finds
/// something worth folding (so a chain just compacted, with nothing new, says `false`
/// even when its kept part alone is over the window). No summarizer involved: one
/// measuring pass and the split search.
pub fn needs_compaction(messages: &[Message], config: &WindowConfig, meter: Meter<'_>) -> bool {
    needs_compaction_with(messages, None, config, meter)
}

/// [`needs_compaction`]; `known`: the messages' costs in the threshold's unit, when the
/// caller holds them (a session): then only the restoration layout's head is measured.
pub(crate) fn needs_compaction_with(
    messages: &[Message],
    known: Option<&[usize]>,
    config: &WindowConfig,
    meter: Meter<'_>,
) -> bool {
    let costs: Cow<'_, [usize]> = match known {
        Some(costs) => Cow::Borrowed(costs),
        None => Cow::Owned(meter.costs(config.threshold.unit(), messages)),
    };
    let known = Some((&*costs, config.threshold.unit()));
    if !tool_results::oversized(messages, known, config.message_threshold, config.min_summarize_bytes, meter).is_empty()
    {
        return true;
    }
    let by_tokens = sum_costs(&costs) > config.threshold.value();
    let by_count = messages.len() > config.window;
    (by_tokens || by_count) && fold::plan_fold(messages, &costs, config, meter, by_tokens).is_ok()
}

/// Compacts `messages` with the window strategy (see the module documentation).
pub async fn compact<S: Summarizer + ?Sized>(
    messages: &[Message],
    config: &WindowConfig,
    summarizer: &S,
    controls: &Controls,
    meter: Meter<'_>,
) -> Result<CompactResult, CompactError> {
    let super::Read { chain: read, starts, sections, repairs } = super::read(messages)?;
    let mut run = Run::new(config, controls, meter, starts, sections);
    // The chain is borrowed: the tool-result phase copies a message only to change it.
    let mut chain: Vec<Cow<'_, Message>> = read.iter().map(Cow::Borrowed).collect();
    // Every message is measured once; the tool-result phase has only the messages it
    // changed measured again.
    let unit = config.threshold.unit();
    let mut costs = meter.costs(unit, &chain);
    // The report's count of the input, when these are it (the estimate, of the chain as given).
    let before_tokens = (repairs.is_empty() && meter.is_estimate(unit)).then(|| sum_costs(&costs));
    let replaced = run.summarize_tool_results(summarizer, &mut chain, &costs).await;
    if run.should_stop() {
        return run.finish(messages, None, repairs, before_tokens);
    }
    let changed = !replaced.is_empty();
    let fresh: Vec<&Message> = replaced.iter().filter_map(|&i| chain.get(i)).map(|m| &**m).collect();
    for (&i, cost) in replaced.iter().zip(meter.costs_of(unit, &fresh)) {
        if let Some(slot) = costs.get_mut(i) {
            *slot = cost;
        }
    }
    let by_tokens = sum_costs(&costs) > config.threshold.value();
    let by_count = chain.len() > config.window;
    let chain = if by_tokens || by_count {
        match run.fold(summarizer, chain, &costs, by_tokens).await {
            Ok(folded) => return run.finish(messages, Some(folded), repairs, before_tokens),
            Err(unfolded) => unfolded,
        }
    } else {
        chain
    };
    run.finish(messages, changed.then(|| owned_messages(chain)), repairs, before_tokens)
}
