//! Compaction strategies and their common result.
//!
//! Every strategy takes messages, a [`Summarizer`] and [`Controls`], and returns a
//! [`CompactResult`]: the messages, whether anything changed, and a [`Report`].
//! On a summarizer failure the default ([`OnError::Rollback`]) is the original chain
//! unchanged with the errors in the report; nothing is ever lost silently.

pub mod auto;
pub mod budget;
pub mod mask;
pub mod run;
pub mod sections;
pub mod tiers;
pub mod window;

use crate::ast::{
    contains_tool_call_reasoning, extract_reasoning_message, BodyPair, ChainAst, IdTemplate, PairKind, Parsed,
    RepairAction, SUMMARIZED_CONTENT_PREFIX,
};
use crate::message::{messages_size, Message, Part};
use crate::summarize::{RequestKind, SummarizeError};
use serde::Serialize;

/// What to do when a summary call fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum OnError {
    /// Return the original chain unchanged, with the errors in the report.
    #[default]
    Rollback,
    /// Return the errors as an error.
    Throw,
    /// Keep every summary that succeeded and the original content where one failed:
    /// a valid, less compacted chain, with the errors in the report. A hard budget still
    /// holds (`budget` trims; `auto` fails with [`CompactError::Budget`] when only the
    /// failed summary could have met it).
    Partial,
}

/// Messages, bytes and estimated tokens of a chain, as `measureChain` gives them: the
/// tokens are the built-in estimate, whatever `tokenCounter` (which counts each message
/// once, where a strategy decides, not for the report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct Totals {
    pub messages: usize,
    pub bytes: usize,
    pub tokens: usize,
}

impl Totals {
    pub fn of(messages: &[Message]) -> Totals {
        Totals {
            messages: messages.len(),
            bytes: messages_size(messages),
            tokens: crate::measure::estimate_tokens(messages),
        }
    }
}

/// One thing a strategy did (or declined to do) to a section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[cfg_attr(feature = "tsify", tsify(rename = "SectionAction", missing_as_null))]
pub enum Action {
    /// The section's body was collapsed into one summary pair.
    #[serde(rename_all = "camelCase")]
    SectionSummarized { pairs: usize, bytes_before: usize, bytes_after: usize },
    /// One oversized pair was summarized on its own.
    #[serde(rename_all = "camelCase")]
    PairSummarized { pair: usize, bytes_before: usize, bytes_after: usize },
    /// The older pairs of a recent section were folded into one summary pair.
    #[serde(rename_all = "camelCase")]
    Rotated { pairs_summarized: usize, pairs_kept: usize, bytes_before: usize, bytes_after: usize },
    /// The section was folded into the QA summary section.
    #[serde(rename_all = "camelCase")]
    FoldedIntoQa { bytes_before: usize },
    /// A summary was discarded because it was not smaller than what it would replace.
    #[serde(rename_all = "camelCase")]
    NoGain {
        #[cfg_attr(feature = "tsify", tsify(type = "SummaryRequestKind"))]
        kind: RequestKind,
        bytes_before: usize,
        summary_bytes: usize,
    },
    /// Pairs of this section were condensed into a summary (budget strategy).
    #[serde(rename_all = "camelCase")]
    Condensed { pairs: usize },
    /// Content dropped to meet a hard budget, oldest first (budget strategy).
    #[serde(rename_all = "camelCase")]
    Trimmed {
        #[cfg_attr(feature = "tsify", tsify(type = "string"))]
        what: &'static str,
    },
    /// One oversized message (a tool result) was summarized on its own (window).
    #[serde(rename_all = "camelCase")]
    MessageSummarized { message: usize, bytes_before: usize, bytes_after: usize },
    /// Content was cut to fit because summarizing it failed or recursed too deep (window),
    /// or a summary larger than what it replaces was cut to fit (`message: None`, sizes of
    /// the summary text; budget: a condensed summary cut for the result to fit); never
    /// silent.
    #[serde(rename_all = "camelCase")]
    Truncated { message: Option<usize>, bytes_before: usize, bytes_after: usize },
    /// Older messages became one state snapshot; `updated` when an earlier snapshot was
    /// updated with them rather than re-summarized (window).
    #[serde(rename_all = "camelCase")]
    Snapshot { messages: usize, updated: bool, bytes_before: usize, bytes_after: usize },
    /// Compaction was possible but declined, with the rule that declined it.
    #[serde(rename_all = "camelCase")]
    Skipped {
        #[cfg_attr(feature = "tsify", tsify(type = "string"))]
        reason: &'static str,
    },
    /// Messages became (or were merged into) a tier summary (tiers).
    #[serde(rename_all = "camelCase")]
    Tiered {
        #[cfg_attr(feature = "tsify", tsify(type = "\"condensed\" | \"compressed\""))]
        level: &'static str,
        messages: usize,
        merged: bool,
        bytes_before: usize,
        bytes_after: usize,
    },
    /// A tool result (or a large argument value) was replaced by a placeholder saying what
    /// was there (mask, auto).
    #[serde(rename_all = "camelCase")]
    Masked { message: usize, tool: String, bytes_before: usize, bytes_after: usize },
    /// A summary call for this section failed; its content was kept (`budget`, which
    /// never returns a chain over its budget, drops it under `onError: "partial"`, listed
    /// as `Trimmed`).
    #[serde(rename_all = "camelCase")]
    Failed {
        #[cfg_attr(feature = "tsify", tsify(type = "SummaryRequestKind"))]
        kind: RequestKind,
        request: usize,
    },
}

/// What happened to one section of the input (index in the repaired input chain).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct SectionReport {
    pub section: usize,
    #[cfg_attr(feature = "tsify", tsify(type = "SectionAction[]"))]
    pub actions: Vec<Action>,
}

/// What a compaction did, call by call and section by section.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[cfg_attr(feature = "tsify", tsify(rename = "CompactReport"))]
pub struct Report {
    #[cfg_attr(feature = "tsify", tsify(type = "StrategyName"))]
    pub strategy: &'static str,
    /// The format the messages were read in, and are written back in (native for a
    /// compaction of messages).
    #[cfg_attr(feature = "tsify", tsify(type = "ChainFormat"))]
    pub format: crate::format::Format,
    /// The chain given.
    pub before: Totals,
    /// The chain returned (the original after a rollback), as written back in its format.
    pub after: Totals,
    /// Summary calls made.
    pub calls: usize,
    /// Sequential rounds of calls.
    pub waves: usize,
    /// Every summary call that failed (none are dropped).
    pub errors: Vec<SummarizeError>,
    /// Repairs parsing made to the input.
    pub repairs: Vec<RepairAction>,
    /// What the final provider-validity pass changed in the strategy's result.
    pub provider_repairs: Vec<crate::repair::RepairStep>,
    pub sections: Vec<SectionReport>,
    /// True when the result is the original chain because of errors or cancellation.
    pub rolled_back: bool,
    pub cancelled: bool,
}

/// The result of a compaction.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactResult {
    pub messages: Vec<Message>,
    pub changed: bool,
    pub report: Report,
    /// How many messages at the end of `messages` keep their reasoning through the
    /// provider pass ([`crate::repair::RepairOptions::thinking_kept_last`]): set by a
    /// stable compaction, `None` otherwise.
    pub thinking_kept_last: Option<usize>,
}

/// Why a compaction returned no chain.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CompactError {
    #[error(transparent)]
    Input(#[from] crate::Error),
    #[error("{} summary call(s) failed; first: {}", .0.len(), .0.first().map(ToString::to_string).unwrap_or_default())]
    Summarizer(Vec<SummarizeError>),
    #[error("compaction cancelled")]
    Cancelled,
    /// The budget cannot be met even with everything optional dropped.
    #[error("cannot fit {max}: {reason}")]
    Budget { max: crate::measure::Amount, reason: String },
    /// A setting the chain shows cannot work (a `summarizerMaxTokens` the instructions
    /// alone reach, counted with the caller's token counter).
    #[error(transparent)]
    Option(#[from] crate::settings::OptionError),
}

impl CompactError {
    pub fn code(&self) -> &'static str {
        match self {
            CompactError::Input(e) => e.code(),
            CompactError::Summarizer(_) => "summarizer_failed",
            CompactError::Cancelled => "cancelled",
            CompactError::Budget { .. } => "budget_exceeded",
            CompactError::Option(e) => e.code(),
        }
    }

    /// The option at fault, as the caller named it: the budget that cannot be met
    /// (`options.maxTokens` / `options.maxBytes`; the message says what alone is over it),
    /// the summarizer whose calls failed (`options.summarizer`; each failure, with its
    /// request, is in the error's list). An input error's path is its own.
    pub fn path(&self) -> Option<String> {
        match self {
            CompactError::Input(e) => e.path(),
            CompactError::Summarizer(_) => Some("options.summarizer".to_string()),
            CompactError::Cancelled => None,
            CompactError::Budget { max, .. } => Some(
                match max.unit() {
                    crate::measure::Unit::Tokens => "options.maxTokens",
                    crate::measure::Unit::Bytes => "options.maxBytes",
                }
                .to_string(),
            ),
            CompactError::Option(e) => Some(format!("options{}", e.path)),
        }
    }
}

/// The chain a strategy works on, read leniently (the parse repairs come with it): every
/// strategy starts here.
pub(crate) fn parse(messages: &[Message]) -> Result<Parsed<'_>, CompactError> {
    ChainAst::parse_repair(messages).map_err(|e| CompactError::Input(crate::Error::Ast(e)))
}

/// The chain a strategy that needs no AST reads, with what the parse found.
pub(crate) struct Read<'a> {
    /// The chain as it came when the parse repaired nothing, else the repaired chain.
    pub chain: std::borrow::Cow<'a, [Message]>,
    /// First message of each section, and how many sections (at least 1).
    pub starts: Vec<usize>,
    pub sections: usize,
    pub repairs: Vec<RepairAction>,
}

/// [`parse`], keeping only what a strategy working on the message list needs: no AST
/// nodes are built.
pub(crate) fn read(messages: &[Message]) -> Result<Read<'_>, CompactError> {
    let crate::ast::Outline { starts, sections, repairs, repaired } =
        crate::ast::outline(messages, crate::ast::ParseMode::Repair)
            .map_err(|e| CompactError::Input(crate::Error::Ast(e)))?;
    let chain = match repaired {
        Some(repaired) => std::borrow::Cow::Owned(repaired),
        None => std::borrow::Cow::Borrowed(messages),
    };
    Ok(Read { chain, starts, sections: sections.max(1), repairs })
}

/// The tool-call id template of the summary pairs a strategy writes.
pub(crate) fn id_template(text: &str) -> Result<IdTemplate, CompactError> {
    IdTemplate::parse(text).map_err(|e| CompactError::Input(crate::Error::Ast(e.into())))
}

/// Everything a strategy run ends with.
pub(crate) struct Outcome<'a> {
    pub strategy: &'static str,
    pub original: &'a [Message],
    /// The compacted chain; `None` when the strategy has none (it gave up).
    pub result: Option<Vec<Message>>,
    pub engine: &'a crate::summarize::Engine,
    pub errors: Vec<SummarizeError>,
    /// Per input section.
    pub actions: Vec<Vec<Action>>,
    pub repairs: Vec<RepairAction>,
    pub on_error: OnError,
    pub cancelled: bool,
    /// The result meets a hard budget the original exceeds: it is used even when it is not
    /// smaller in bytes (tokens and bytes need not agree).
    pub hard_budget: bool,
    /// The original's estimated tokens when the strategy already counted them.
    pub before_tokens: Option<usize>,
    /// The result's estimated tokens when the strategy already counted them.
    pub after_tokens: Option<usize>,
}

/// The rules every strategy ends by: with `Throw`, failures are the error (not a
/// cancellation); a cancellation, or a failure under `Rollback`, returns the original
/// chain; otherwise the result, with the report.
pub(crate) fn conclude(mut o: Outcome<'_>) -> Result<CompactResult, CompactError> {
    // A request cancellation came before was never a call: not a failed one either (the
    // report's `cancelled` says why it was not made).
    let engine = o.engine;
    o.errors.retain(|e| engine.issued(e.request));
    for actions in &mut o.actions {
        actions.retain(|a| !matches!(a, Action::Failed { request, .. } if !engine.issued(*request)));
    }
    let failed = !o.errors.is_empty();
    if failed && o.on_error == OnError::Throw && !o.cancelled {
        return Err(CompactError::Summarizer(o.errors));
    }
    let rolled_back = o.cancelled || (failed && o.on_error == OnError::Rollback);
    // Each chain's size is taken once (a walk over every part of a large chain).
    let before_bytes = messages_size(o.original);
    let result = o.result.filter(|_| !rolled_back).map(|messages| {
        let bytes = messages_size(&messages);
        (messages, bytes)
    });
    let (messages, repairs, after_tokens, after_bytes) = match result {
        // A result no smaller than the input gains nothing: what remains of it is only
        // the parse repairs (merged user messages, answered calls), and kept messages
        // must come back as they were.
        Some((messages, bytes)) if o.hard_budget || bytes < before_bytes => {
            (messages, o.repairs, o.after_tokens, bytes)
        }
        _ => (o.original.to_vec(), Vec::new(), o.before_tokens, before_bytes),
    };
    let totals = |messages: &[Message], bytes: usize, tokens: Option<usize>| Totals {
        messages: messages.len(),
        bytes,
        tokens: tokens.unwrap_or_else(|| crate::measure::estimate_tokens(messages)),
    };
    let report = Report {
        strategy: o.strategy,
        format: crate::format::Format::Native,
        before: totals(o.original, before_bytes, o.before_tokens),
        after: totals(&messages, after_bytes, after_tokens),
        calls: o.engine.calls,
        waves: o.engine.waves,
        errors: o.errors,
        repairs,
        provider_repairs: Vec::new(),
        sections: section_reports(o.actions),
        rolled_back,
        cancelled: o.cancelled,
    };
    Ok(CompactResult { changed: messages != o.original, messages, report, thinking_kept_last: None })
}

/// The sections that have actions, with their index.
pub(crate) fn section_reports(actions: Vec<Vec<Action>>) -> Vec<SectionReport> {
    actions
        .into_iter()
        .enumerate()
        .filter(|(_, a)| !a.is_empty())
        .map(|(section, actions)| SectionReport { section, actions })
        .collect()
}

/// The size hint for a summary meant to take `share` bytes in place of content that
/// leaves `room` bytes to gain (its size less the summary's fixed cost): never more than
/// half that room, so a summarizer that honours the hint always passes the no-gain guard.
pub(crate) fn hint(share: usize, room: usize) -> usize {
    share.min(room / 2).max(1)
}

/// `text` shortened by `excess` bytes (at a char boundary, ending with `…` when there is
/// room for it), or `None` when nothing would be left. A summary larger than what it
/// replaces is cut to fit rather than discarded: a discarded one would be asked for again
/// on every later run with nothing new (the cut is reported as [`Action::Truncated`]).
pub(crate) fn cut_by(text: &str, excess: usize) -> Option<String> {
    let keep = text.len().checked_sub(excess).filter(|&k| k > 0)?;
    let (keep, ellipsis) = if keep > 16 { (keep.saturating_sub('…'.len_utf8()), "…") } else { (keep, "") };
    let mut end = keep;
    while !text.is_char_boundary(end) {
        end = end.saturating_sub(1);
    }
    let head = text.get(..end).filter(|h| !h.is_empty())?;
    Some(format!("{head}{ellipsis}"))
}

/// A summary pair replacing `replaced`: a summarization pair when any of them used
/// tools (with the fake signature when their calls carried reasoning, and their first
/// movable reasoning before the call), else a prefixed completion.
///
/// Unlike upstream, only plain reasoning text moves before the summary call: a part with
/// a signature, redacted data or provider fields (an OpenAI Responses reasoning item's
/// id, the AI SDK's provider metadata) is bound to the output it was produced with, and
/// the provider rejects it before any other (a Responses reasoning item without its
/// following item); it goes with the messages summarized.
pub(crate) fn summary_pair_for(text: &str, replaced: &[BodyPair<'_>], template: &IdTemplate) -> BodyPair<'static> {
    if replaced.iter().all(|p| p.kind() == PairKind::Completion) {
        let part = crate::message::TextPart {
            text: crate::ast::seal(format!("{SUMMARIZED_CONTENT_PREFIX}{text}"), crate::ast::SUMMARY_TEXT_MARK),
            extra: crate::message::Extra::new(),
        };
        return BodyPair::build(
            Message::new(crate::message::Role::Assistant, vec![Part::Text(part)]),
            Vec::<Message>::new(),
        );
    }
    let messages = || replaced.iter().flat_map(BodyPair::message_refs);
    let reasoning = extract_reasoning_message(messages()).and_then(|mut m| {
        m.parts.retain(|p| {
            matches!(p, Part::Reasoning(r) if r.signature.is_none() && r.redacted_data.is_none() && r.extra.is_empty())
        });
        (!m.parts.is_empty()).then_some(m)
    });
    BodyPair::summarization_of(text, messages(), template, contains_tool_call_reasoning(messages()), reasoning.as_ref())
}
