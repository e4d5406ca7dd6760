//! State of one compaction: the engine, the errors, the actions per section, and how it
//! ends (result, rollback or error).

use super::chunk::Levels;
use super::WindowConfig;
use crate::ast::RepairAction;
use crate::measure::Meter;
use crate::message::Message;
use crate::strategy::{Action, CompactError, CompactResult, OnError};
use crate::summarize::{Controls, Engine, MessageRange, SummarizeError};

/// Share of the threshold one call's piece of a long text may take, in percent.
const LONG_PIECE_PERCENT: usize = 70;

/// Sequential waves of calls one compaction takes at most, all phases together (tool
/// results, chunks, consolidation): levels of a long text go only as deep as the waves
/// left allow (and `max_depth`), then the text is truncated, reported. A caller waits
/// for every wave in turn; at very small thresholds, levels alone once took 14.
pub const MAX_WAVES: usize = 3;

pub(super) struct Run<'a> {
    pub config: &'a WindowConfig,
    pub controls: &'a Controls,
    pub meter: Meter<'a>,
    pub engine: Engine,
    pub errors: Vec<SummarizeError>,
    /// Per section of the (repaired) input.
    actions: Vec<Vec<Action>>,
    /// First message of each section, then the message count.
    starts: Vec<usize>,
}

impl<'a> Run<'a> {
    /// `starts`: the first message of each of the `sections` sections, then the count.
    pub fn new(
        config: &'a WindowConfig,
        controls: &'a Controls,
        meter: Meter<'a>,
        starts: Vec<usize>,
        sections: usize,
    ) -> Self {
        Run {
            config,
            controls,
            meter,
            engine: Engine::default(),
            errors: Vec::new(),
            actions: vec![Vec::new(); sections.max(1)],
            starts,
        }
    }

    /// The section holding message `index` of the (repaired) input.
    pub fn section_of(&self, index: usize) -> usize {
        let sections = self.starts.len().saturating_sub(1);
        let starts = self.starts.get(..sections).unwrap_or_default();
        starts.partition_point(|&s| s <= index).saturating_sub(1)
    }

    pub fn record(&mut self, section: usize, action: Action) {
        if let Some(list) = self.actions.get_mut(section) {
            list.push(action);
        }
    }

    /// Records an action about message `index`, in its section.
    pub fn record_at(&mut self, index: usize, action: Action) {
        self.record(self.section_of(index), action);
    }

    pub fn range(start: usize, end: usize) -> MessageRange {
        MessageRange { start, end: end.max(start) }
    }

    pub fn cancelled(&self) -> bool {
        self.controls.cancel.is_cancelled()
    }

    /// Stop now: cancelled, or an error that is not to be degraded around.
    pub fn should_stop(&self) -> bool {
        self.cancelled() || (!self.errors.is_empty() && self.config.on_error != OnError::Partial)
    }

    /// Largest piece of a long text sent in one call.
    pub fn piece_limit(&self) -> crate::measure::Amount {
        self.config.threshold.percent(LONG_PIECE_PERCENT)
    }

    /// How the next phase summarizes long texts, keeping `reserve` waves for the phases
    /// after it: a phase always takes its first wave, and goes deeper only in the waves
    /// [`MAX_WAVES`] leaves.
    pub fn levels(&self, reserve: usize) -> Levels<'a> {
        let left = MAX_WAVES.saturating_sub(self.engine.waves).saturating_sub(reserve);
        Levels {
            meter: self.meter,
            piece_limit: self.piece_limit(),
            max_depth: self.config.max_depth.min(left.saturating_sub(1)),
        }
    }

    /// The result: `result` (or the original when `None`), the original on rollback, or
    /// the errors under [`OnError::Throw`]. `before_tokens`: the original's estimate, when
    /// counted already.
    pub fn finish(
        self,
        original: &[Message],
        result: Option<Vec<Message>>,
        repairs: Vec<RepairAction>,
        before_tokens: Option<usize>,
    ) -> Result<CompactResult, CompactError> {
        let cancelled = self.cancelled();
        crate::strategy::conclude(crate::strategy::Outcome {
            strategy: "window",
            original,
            result,
            engine: &self.engine,
            errors: self.errors,
            actions: self.actions,
            repairs,
            on_error: self.config.on_error,
            cancelled,
            hard_budget: false,
            before_tokens,
            after_tokens: None,
        })
    }
}
