//! Settings of the seed strategies (`sections`, `window`, `tiers`, `budget`): their types
//! (what the bindings read, with their TypeScript types), checks and the rules derived
//! from a budget.

use super::strategy::{amount, check_template, percent, split};
use super::OptionError;
use crate::measure::Amount;
use crate::strategy::budget::BudgetConfig;
use crate::strategy::sections::SectionsConfig;
use crate::strategy::tiers::TiersConfig;
use crate::strategy::window::WindowConfig;
use crate::strategy::OnError;
use serde::{Deserialize, Serialize};

/// Settings of the `sections` strategy; defaults in brackets.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SectionsStrategy {
    #[cfg_attr(feature = "tsify", tsify(type = "\"sections\""))]
    pub name: String,
    /// Rotate the last `keepQASections` sections when they outgrow `lastSecBytes` [true].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preserve_last: Option<bool>,
    /// Budget of each of those sections, in bytes [51200] (or `lastSecTokens`, at 4 bytes a token).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_sec_bytes: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_sec_tokens: Option<usize>,
    /// A body pair above this size is summarized on its own, never the last one [16384] (or `maxBpTokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bp_bytes: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bp_tokens: Option<usize>,
    /// Fold older sections into one QA section when too many or too large [false].
    #[serde(rename = "useQA", default, skip_serializing_if = "Option::is_none")]
    pub use_qa: Option<bool>,
    /// Sections at most before they fold [10].
    #[serde(rename = "maxQASections", default, skip_serializing_if = "Option::is_none")]
    pub max_qa_sections: Option<usize>,
    /// Bytes at most before they fold [65536] (or `maxQATokens`).
    #[serde(rename = "maxQABytes", default, skip_serializing_if = "Option::is_none")]
    pub max_qa_bytes: Option<usize>,
    #[serde(rename = "maxQATokens", default, skip_serializing_if = "Option::is_none")]
    pub max_qa_tokens: Option<usize>,
    /// Summarize the folded user messages instead of concatenating them [false].
    #[serde(rename = "summHumanInQA", default, skip_serializing_if = "Option::is_none")]
    pub summ_human_in_qa: Option<bool>,
    /// Recent sections kept out of section summarization, at least 1 [1].
    #[serde(rename = "keepQASections", default, skip_serializing_if = "Option::is_none")]
    pub keep_qa_sections: Option<usize>,
    /// Share of `lastSecBytes` left free after a rotation, 0 to 100 [25].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserve_percent: Option<usize>,
    /// Content smaller than this is never sent to the summarizer [512].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_summarize_bytes: Option<usize>,
    /// Template of the ids of created summarization tool calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_template: Option<String>,
}

/// Settings of the `window` strategy (zrb's safe-split summarizer); defaults in brackets.
/// Thresholds are given in tokens OR bytes (`thresholdTokens` or `thresholdBytes`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct WindowStrategy {
    #[cfg_attr(feature = "tsify", tsify(type = "\"window\""))]
    pub name: String,
    /// Messages kept; more trigger compaction [100].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<usize>,
    /// A chain over this triggers compaction [76800 tokens, or 80% of maxTokens/maxBytes].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_tokens: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_bytes: Option<usize>,
    /// A tool result over this is summarized on its own [half the threshold].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_threshold_tokens: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_threshold_bytes: Option<usize>,
    /// Re-summarization levels of a long text before it is truncated (reported) [5], as
    /// far as the three waves of calls a compaction takes at most allow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<usize>,
    /// Content smaller than this is never sent to the summarizer [512].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_summarize_bytes: Option<usize>,
    /// Template of the ids of created summarization tool calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_template: Option<String>,
}

/// Settings of the `tiers` strategy (eternal history); defaults in brackets.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct TiersStrategy {
    #[cfg_attr(feature = "tsify", tsify(type = "\"tiers\""))]
    pub name: String,
    /// Most recent messages kept verbatim [20].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recent: Option<usize>,
    /// Messages before them condensed (medium compression); older ones compressed [50].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condensed: Option<usize>,
    /// Re-tiering happens above this many messages: `needsCompaction` turns true, and
    /// `compact` changes nothing before [100].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_threshold: Option<usize>,
    /// Whether the automatic trigger is on [true]; off, `needsCompaction` is always false
    /// and `compact` re-tiers whenever it is called, whatever the count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto: Option<bool>,
    /// Size hints of the two summaries [2000 / 800 bytes, or 25% / 10% of the budget]; or in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condensed_bytes: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condensed_tokens: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compressed_bytes: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compressed_tokens: Option<usize>,
    /// Content smaller than this is never sent to the summarizer [256].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_summarize_bytes: Option<usize>,
}

/// Settings of the `budget` strategy: keep the system prompt and the recent messages,
/// condense the rest, then enforce `maxTokens` / `maxBytes` (required) as a hard limit.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct BudgetStrategy {
    #[cfg_attr(feature = "tsify", tsify(type = "\"budget\""))]
    pub name: String,
    /// Most recent messages always kept, extended to whole tool exchanges [2].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_recent: Option<usize>,
    /// Share of the budget all summaries together may take, 0 to 100 [20].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_percent: Option<usize>,
    /// Template of the ids of created summarization tool calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_template: Option<String>,
}

impl SectionsStrategy {
    /// Every setting at its default without a budget.
    pub(super) fn defaults() -> Self {
        let s = SectionsConfig::default();
        SectionsStrategy {
            name: "sections".into(),
            preserve_last: Some(s.preserve_last),
            last_sec_bytes: Some(s.last_sec_bytes),
            max_bp_bytes: Some(s.max_bp_bytes),
            use_qa: Some(s.use_qa),
            max_qa_sections: Some(s.max_qa_sections),
            max_qa_bytes: Some(s.max_qa_bytes),
            summ_human_in_qa: Some(s.summ_human_in_qa),
            keep_qa_sections: Some(s.keep_qa_sections),
            reserve_percent: Some(s.reserve_percent),
            min_summarize_bytes: Some(s.min_summarize_bytes),
            id_template: Some(s.id_template),
            ..Default::default()
        }
    }

    pub(super) fn to_config(&self, max: Option<Amount>, on_error: OnError) -> Result<SectionsConfig, OptionError> {
        check_template(&self.id_template)?;
        if self.keep_qa_sections == Some(0) {
            return Err(OptionError::new(".strategy.keepQASections", "must be at least 1"));
        }
        percent(self.reserve_percent, ".strategy.reservePercent")?;
        let d = max.map_or_else(SectionsConfig::default, SectionsConfig::for_budget);
        let bytes = |t, b, path| amount(t, b, path).map(|a| a.map(Amount::approx_bytes));
        Ok(SectionsConfig {
            preserve_last: self.preserve_last.unwrap_or(d.preserve_last),
            last_sec_bytes: bytes(self.last_sec_tokens, self.last_sec_bytes, ".strategy.lastSec")?
                .unwrap_or(d.last_sec_bytes),
            max_bp_bytes: bytes(self.max_bp_tokens, self.max_bp_bytes, ".strategy.maxBp")?.unwrap_or(d.max_bp_bytes),
            use_qa: self.use_qa.unwrap_or(d.use_qa),
            max_qa_sections: self.max_qa_sections.unwrap_or(d.max_qa_sections),
            max_qa_bytes: bytes(self.max_qa_tokens, self.max_qa_bytes, ".strategy.maxQA")?.unwrap_or(d.max_qa_bytes),
            summ_human_in_qa: self.summ_human_in_qa.unwrap_or(d.summ_human_in_qa),
            keep_qa_sections: self.keep_qa_sections.unwrap_or(d.keep_qa_sections),
            reserve_percent: self.reserve_percent.unwrap_or(d.reserve_percent),
            min_summarize_bytes: self.min_summarize_bytes.unwrap_or(d.min_summarize_bytes),
            id_template: self.id_template.clone().unwrap_or(d.id_template),
            on_error,
        })
    }
}

impl WindowStrategy {
    /// Every setting at its default without a budget.
    pub(super) fn defaults() -> Self {
        let w = WindowConfig::default();
        let (threshold_tokens, threshold_bytes) = split(w.threshold);
        let (message_threshold_tokens, message_threshold_bytes) = split(w.message_threshold);
        WindowStrategy {
            name: "window".into(),
            window: Some(w.window),
            threshold_tokens,
            threshold_bytes,
            message_threshold_tokens,
            message_threshold_bytes,
            max_depth: Some(w.max_depth),
            min_summarize_bytes: Some(w.min_summarize_bytes),
            id_template: Some(w.id_template),
        }
    }

    pub(super) fn to_config(&self, max: Option<Amount>, on_error: OnError) -> Result<WindowConfig, OptionError> {
        check_template(&self.id_template)?;
        if self.window == Some(0) {
            return Err(OptionError::new(".strategy.window", "must be at least 1"));
        }
        let d = max.map_or_else(WindowConfig::default, WindowConfig::for_budget);
        let threshold = amount(self.threshold_tokens, self.threshold_bytes, ".strategy.threshold")?;
        let message_threshold =
            amount(self.message_threshold_tokens, self.message_threshold_bytes, ".strategy.messageThreshold")?;
        let threshold = threshold.unwrap_or(d.threshold);
        Ok(WindowConfig {
            window: self.window.unwrap_or(d.window),
            message_threshold: message_threshold.unwrap_or_else(|| WindowConfig::message_threshold_for(threshold)),
            threshold,
            max_depth: self.max_depth.unwrap_or(d.max_depth),
            min_summarize_bytes: self.min_summarize_bytes.unwrap_or(d.min_summarize_bytes),
            id_template: self.id_template.clone().unwrap_or(d.id_template),
            on_error,
        })
    }
}

impl TiersStrategy {
    /// Every setting at its default without a budget.
    pub(super) fn defaults() -> Self {
        let t = TiersConfig::default();
        TiersStrategy {
            name: "tiers".into(),
            recent: Some(t.recent),
            condensed: Some(t.condensed),
            auto_threshold: Some(t.auto_threshold),
            auto: Some(t.auto),
            condensed_bytes: Some(t.condensed_bytes),
            compressed_bytes: Some(t.compressed_bytes),
            min_summarize_bytes: Some(t.min_summarize_bytes),
            ..Default::default()
        }
    }

    pub(super) fn to_config(
        &self,
        max: Option<Amount>,
        on_error: OnError,
        now: Option<String>,
    ) -> Result<TiersConfig, OptionError> {
        if self.recent == Some(0) {
            return Err(OptionError::new(".strategy.recent", "must be at least 1"));
        }
        let d = max.map_or_else(TiersConfig::default, TiersConfig::for_budget);
        Ok(TiersConfig {
            recent: self.recent.unwrap_or(d.recent),
            condensed: self.condensed.unwrap_or(d.condensed),
            auto_threshold: self.auto_threshold.unwrap_or(d.auto_threshold),
            auto: self.auto.unwrap_or(d.auto),
            condensed_bytes: amount(self.condensed_tokens, self.condensed_bytes, ".strategy.condensed")?
                .map_or(d.condensed_bytes, Amount::approx_bytes),
            compressed_bytes: amount(self.compressed_tokens, self.compressed_bytes, ".strategy.compressed")?
                .map_or(d.compressed_bytes, Amount::approx_bytes),
            min_summarize_bytes: self.min_summarize_bytes.unwrap_or(d.min_summarize_bytes),
            now,
            on_error,
        })
    }
}

impl BudgetStrategy {
    /// Every setting at its default (`budget` needs a budget; its own settings do not).
    pub(super) fn defaults() -> Self {
        let b = BudgetConfig::new(Amount::Tokens(1));
        BudgetStrategy {
            name: "budget".into(),
            keep_recent: Some(b.keep_recent),
            summary_percent: Some(b.summary_percent),
            id_template: Some(b.id_template),
        }
    }

    pub(super) fn to_config(&self, max: Option<Amount>, on_error: OnError) -> Result<BudgetConfig, OptionError> {
        check_template(&self.id_template)?;
        let Some(max) = max else {
            return Err(OptionError::new(".maxTokens", "the budget strategy needs maxTokens or maxBytes"));
        };
        percent(self.summary_percent, ".strategy.summaryPercent")?;
        let d = BudgetConfig::new(max);
        Ok(BudgetConfig {
            max,
            keep_recent: self.keep_recent.unwrap_or(d.keep_recent),
            summary_percent: self.summary_percent.unwrap_or(d.summary_percent),
            id_template: self.id_template.clone().unwrap_or(d.id_template),
            on_error,
        })
    }
}
