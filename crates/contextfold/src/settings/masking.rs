//! Settings of the strategies of measured studies, `auto` (the default) and `mask`:
//! their types (what the bindings read, with their TypeScript types), checks and defaults.

use super::OptionError;
use crate::measure::Amount;
use crate::strategy::auto::AutoConfig;
use crate::strategy::mask::MaskConfig;
use crate::strategy::OnError;
use serde::{Deserialize, Serialize};

/// Settings of the `auto` strategy (the default): over the budget (`maxTokens` /
/// `maxBytes`, else 100000 tokens), mask old tool results; if still over the fold target,
/// fold the oldest span into one structured summary; never over the budget. Defaults in
/// brackets.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct AutoStrategy {
    #[cfg_attr(feature = "tsify", tsify(type = "\"auto\""))]
    pub name: String,
    /// Share of the budget compaction brings the chain down to, 1 to 100 [70]: the turns
    /// that follow only append until the budget is crossed again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_percent: Option<usize>,
    /// Share of the budget the summary may take, 1 to 100 [50]; never more than the fold
    /// target leaves beside the system prompt, the first request and the last exchange.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_percent: Option<usize>,
    /// Newest tool exchanges whose results are never masked [3].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_last: Option<usize>,
    /// Tools whose results are never masked [none].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_tools: Option<Vec<String>>,
    /// Results smaller than this many bytes are never masked [512].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_bytes: Option<usize>,
    /// Also mask large argument values of older tool calls (a file write's content) [false].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mask_arguments: Option<bool>,
    /// A span smaller than this is never sent to the summarizer [512].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_summarize_bytes: Option<usize>,
    /// Fold as the conversation's requests would have, one after the other, so that the
    /// same raw history always gives the same compacted prefix: for stateless callers that
    /// send the whole history every time (the Worker middleware); with a summary cache no
    /// call is repeated [false].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stable: Option<bool>,
    /// Most tokens one summary request may hold (your summarizer's context), at least
    /// 1000: a longer span is summarized in parts, each updating the summary the one before
    /// gave, the summary asked for in bytes at most the tokens the instructions leave, less
    /// the messages' room, and never cut below what was asked [no limit].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summarizer_max_tokens: Option<usize>,
}

/// Settings of the `mask` strategy (observation masking alone, no summarizer call): tool
/// results older than the last `keepLast` exchanges become placeholders saying what was
/// there; with `maxTokens` / `maxBytes`, only when the chain is over it. Defaults in
/// brackets.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct MaskStrategy {
    #[cfg_attr(feature = "tsify", tsify(type = "\"mask\""))]
    pub name: String,
    /// Newest tool exchanges whose results are never masked [3].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_last: Option<usize>,
    /// Tools whose results are never masked [none].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_tools: Option<Vec<String>>,
    /// Results smaller than this many bytes are never masked [512].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_bytes: Option<usize>,
    /// Also mask large argument values of older tool calls (a file write's content) [false].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mask_arguments: Option<bool>,
}

/// A share of the budget, 1 to 100.
fn share(value: Option<usize>, path: &str) -> Result<(), OptionError> {
    match value {
        Some(p) if p == 0 || p > 100 => Err(OptionError::new(path, "must be 1 to 100")),
        _ => Ok(()),
    }
}

/// The masking settings `auto` and `mask` share, over `d`.
fn mask_config(
    d: MaskConfig,
    keep_last: Option<usize>,
    exclude_tools: &Option<Vec<String>>,
    min_bytes: Option<usize>,
    mask_arguments: Option<bool>,
) -> MaskConfig {
    MaskConfig {
        keep_last: keep_last.unwrap_or(d.keep_last),
        exclude_tools: exclude_tools.clone().unwrap_or(d.exclude_tools),
        min_bytes: min_bytes.unwrap_or(d.min_bytes),
        mask_arguments: mask_arguments.unwrap_or(d.mask_arguments),
        ..d
    }
}

impl AutoStrategy {
    /// Every setting at its default.
    pub(super) fn defaults() -> Self {
        let a = AutoConfig::default();
        AutoStrategy {
            name: "auto".into(),
            target_percent: Some(a.target_percent),
            summary_percent: Some(a.summary_percent),
            keep_last: Some(a.mask.keep_last),
            exclude_tools: Some(a.mask.exclude_tools),
            min_bytes: Some(a.mask.min_bytes),
            mask_arguments: Some(a.mask.mask_arguments),
            min_summarize_bytes: Some(a.min_summarize_bytes),
            stable: Some(a.stable),
            summarizer_max_tokens: a.summarizer_max_tokens,
        }
    }

    pub(super) fn to_config(&self, max: Option<Amount>, on_error: OnError) -> Result<AutoConfig, OptionError> {
        share(self.target_percent, ".strategy.targetPercent")?;
        share(self.summary_percent, ".strategy.summaryPercent")?;
        if self.summarizer_max_tokens.is_some_and(|t| t < 1000) {
            return Err(OptionError::new(".strategy.summarizerMaxTokens", "must be at least 1000"));
        }
        let d = max.map_or_else(AutoConfig::default, AutoConfig::for_budget);
        let mask = MaskConfig { on_error, ..d.mask.clone() };
        Ok(AutoConfig {
            target_percent: self.target_percent.unwrap_or(d.target_percent),
            summary_percent: self.summary_percent.unwrap_or(d.summary_percent),
            mask: mask_config(mask, self.keep_last, &self.exclude_tools, self.min_bytes, self.mask_arguments),
            min_summarize_bytes: self.min_summarize_bytes.unwrap_or(d.min_summarize_bytes),
            stable: self.stable.unwrap_or(d.stable),
            summarizer_max_tokens: self.summarizer_max_tokens.or(d.summarizer_max_tokens),
            on_error,
            ..d
        })
    }
}

impl MaskStrategy {
    /// Every setting at its default.
    pub(super) fn defaults() -> Self {
        let m = MaskConfig::default();
        MaskStrategy {
            name: "mask".into(),
            keep_last: Some(m.keep_last),
            exclude_tools: Some(m.exclude_tools),
            min_bytes: Some(m.min_bytes),
            mask_arguments: Some(m.mask_arguments),
        }
    }

    pub(super) fn to_config(&self, max: Option<Amount>, on_error: OnError) -> Result<MaskConfig, OptionError> {
        let d = MaskConfig { max, on_error, ..MaskConfig::default() };
        Ok(mask_config(d, self.keep_last, &self.exclude_tools, self.min_bytes, self.mask_arguments))
    }
}
