//! The strategy settings of `compact` and `needsCompaction` as JS gives them, turned
//! into the core's [`StrategyConfig`] with the exact path of every wrong value.
//!
//! `maxTokens` / `maxBytes` (one of them) is the budget the result should fit; each
//! strategy derives its thresholds from it (`for_budget`) and settings given explicitly
//! override what was derived. Every budget-like setting can be given in tokens or in
//! bytes (`thresholdTokens` or `thresholdBytes`), never both. The `sections` strategy's
//! thresholds and the `tiers` summary sizes work in bytes (the seeds' algorithms do), so
//! their token forms are converted at four bytes a token; the `window` and `budget`
//! strategies measure in the unit given, with the token counter when it is tokens.

use crate::error::BindingError;
use contextfold::ast::IdTemplate;
use contextfold::measure::Amount;
use contextfold::strategy::budget::BudgetConfig;
use contextfold::strategy::run::StrategyConfig;
use contextfold::strategy::sections::SectionsConfig;
use contextfold::strategy::tiers::TiersConfig;
use contextfold::strategy::window::WindowConfig;
use contextfold::strategy::OnError;
use serde::{Deserialize, Serialize};
use tsify::Tsify;

pub fn invalid(path: &str, message: impl Into<String>) -> BindingError {
    BindingError::InvalidOption { path: path.to_string(), message: message.into() }
}

/// The keys of `compact`'s options (`CompactOptions`), which `needsCompaction` accepts
/// too (one options object serves both, as `History` and the middleware pass it).
/// `__reuse` is the JS layer's own. The tests check these lists against the declarations.
pub const COMPACT_KEYS: &[&str] = &[
    "format",
    "strategy",
    "maxTokens",
    "maxBytes",
    "tokenCounter",
    "summarizer",
    "provider",
    "concurrency",
    "timeoutMs",
    "signal",
    "onError",
    "onProgress",
    "__reuse",
];

/// The settings each strategy reads (`SectionsStrategy` ... `BudgetStrategy`).
pub const SECTIONS_KEYS: &[&str] = &[
    "name",
    "preserveLast",
    "lastSecBytes",
    "lastSecTokens",
    "maxBpBytes",
    "maxBpTokens",
    "useQA",
    "maxQASections",
    "maxQABytes",
    "maxQATokens",
    "summHumanInQA",
    "keepQASections",
    "reservePercent",
    "minSummarizeBytes",
    "idTemplate",
];
pub const WINDOW_KEYS: &[&str] = &[
    "name",
    "window",
    "thresholdTokens",
    "thresholdBytes",
    "messageThresholdTokens",
    "messageThresholdBytes",
    "maxDepth",
    "minSummarizeBytes",
    "idTemplate",
];
pub const TIERS_KEYS: &[&str] = &[
    "name",
    "recent",
    "condensed",
    "autoThreshold",
    "auto",
    "condensedBytes",
    "condensedTokens",
    "compressedBytes",
    "compressedTokens",
    "minSummarizeBytes",
];
pub const BUDGET_KEYS: &[&str] = &["name", "keepRecent", "summaryPercent", "idTemplate"];

/// The settings strategy `name` reads, `None` for an unknown strategy.
pub fn strategy_keys(name: &str) -> Option<&'static [&'static str]> {
    match name {
        "sections" => Some(SECTIONS_KEYS),
        "window" => Some(WINDOW_KEYS),
        "tiers" => Some(TIERS_KEYS),
        "budget" => Some(BUDGET_KEYS),
        _ => None,
    }
}

/// An error for the first of `keys` not in `known`, at `<path>.<key>`, naming the
/// nearest known key (the check is the core's, [`contextfold::names`]).
pub fn check_keys<'k>(keys: impl IntoIterator<Item = &'k str>, known: &[&str], path: &str) -> Result<(), BindingError> {
    match contextfold::names::unknown_key(keys, known) {
        None => Ok(()),
        Some(unknown) => Err(invalid(&format!("{path}.{}", unknown.key), unknown.message(known))),
    }
}

/// The keys of the chain functions' own options (`parseChain`'s `repair`, `repairChain`'s
/// settings) beyond those of `compact`.
const CHAIN_KEYS: &[&str] = &["repair", "orphanResults", "pendingPlaceholder", "mergeSameRole"];

/// The keys the chain functions (`parseChain`, `validateChain`, `repairChain`,
/// `normalizeToolCallIds`, `clearReasoning`) accept: every chain function's own and every
/// key of `compact`'s, since one options object may serve them all. Any other key is a
/// typo: `invalid_option` naming the nearest known one.
pub fn check_chain_keys(options: &wasm_bindgen::JsValue) -> Result<(), BindingError> {
    let known: Vec<&str> = COMPACT_KEYS.iter().chain(CHAIN_KEYS).copied().collect();
    let keys = crate::compact::own_keys(options, "")?;
    check_keys(keys.iter().map(String::as_str), &known, "")
}

/// The same check for options read in JS (the Worker middleware's): throws
/// `invalid_option` at `options.<key>` for the first of `keys` not in `known`.
/// Internal: not part of the API.
#[doc(hidden)]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = __checkOptionKeys, skip_typescript)]
pub fn check_option_keys(keys: Vec<String>, known: Vec<String>) -> crate::error::JsResult<()> {
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    check_keys(keys.iter().map(String::as_str), &known, "").map_err(Into::into)
}

/// The `provider` option: whose rules apply (`None`: the provider of the format read).
pub fn provider_option(name: Option<&str>) -> Result<Option<contextfold::repair::Provider>, BindingError> {
    name.map(|name| {
        contextfold::repair::Provider::from_name(name).ok_or_else(|| {
            invalid(
                ".provider",
                format!("unknown provider {name:?}; expected \"generic\", \"openai\", \"anthropic\" or \"gemini\""),
            )
        })
    })
    .transpose()
}

/// A strategy name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum StrategyName {
    Sections,
    Window,
    Tiers,
    Budget,
}

// The option objects below are declarations: tsify generates their TypeScript, and the
// exports name them with `unchecked_param_type`. The exports read options field by field
// (every error gets its exact path, a throwing getter becomes an invalid option), and the
// strategy settings through [`StrategySettings`]; the tests check that every declared
// setting is one it reads.

/// Settings of the `sections` strategy; defaults in brackets.
#[derive(Debug, Clone, Default, PartialEq, Eq, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SectionsStrategy {
    #[tsify(type = "\"sections\"")]
    pub name: String,
    /// Rotate the last `keepQASections` sections when they outgrow `lastSecBytes` [true].
    #[tsify(optional)]
    pub preserve_last: Option<bool>,
    /// Budget of each of those sections, in bytes [51200] (or `lastSecTokens`, at 4 bytes a token).
    #[tsify(optional)]
    pub last_sec_bytes: Option<usize>,
    #[tsify(optional)]
    pub last_sec_tokens: Option<usize>,
    /// A body pair above this size is summarized on its own, never the last one [16384] (or `maxBpTokens`).
    #[tsify(optional)]
    pub max_bp_bytes: Option<usize>,
    #[tsify(optional)]
    pub max_bp_tokens: Option<usize>,
    /// Fold older sections into one QA section when too many or too large [false].
    #[tsify(optional)]
    #[serde(rename = "useQA")]
    pub use_qa: Option<bool>,
    #[tsify(optional)]
    #[serde(rename = "maxQASections")]
    pub max_qa_sections: Option<usize>,
    /// Or `maxQATokens`.
    #[tsify(optional)]
    #[serde(rename = "maxQABytes")]
    pub max_qa_bytes: Option<usize>,
    #[tsify(optional)]
    #[serde(rename = "maxQATokens")]
    pub max_qa_tokens: Option<usize>,
    /// Summarize the folded user messages instead of concatenating them [false].
    #[tsify(optional)]
    #[serde(rename = "summHumanInQA")]
    pub summ_human_in_qa: Option<bool>,
    /// Recent sections kept out of section summarization, at least 1 [1].
    #[tsify(optional)]
    #[serde(rename = "keepQASections")]
    pub keep_qa_sections: Option<usize>,
    /// Share of `lastSecBytes` left free after a rotation, 0 to 100 [25].
    #[tsify(optional)]
    pub reserve_percent: Option<usize>,
    /// Content smaller than this is never sent to the summarizer [512].
    #[tsify(optional)]
    pub min_summarize_bytes: Option<usize>,
    /// Template of the ids of created summarization tool calls.
    #[tsify(optional)]
    pub id_template: Option<String>,
}

/// Settings of the `window` strategy (zrb's safe-split summarizer); defaults in brackets.
/// Thresholds are given in tokens OR bytes (`thresholdTokens` or `thresholdBytes`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct WindowStrategy {
    #[tsify(type = "\"window\"")]
    pub name: String,
    /// Messages kept; more trigger compaction [100].
    #[tsify(optional)]
    pub window: Option<usize>,
    /// A chain over this triggers compaction [76800 tokens, or 80% of maxTokens/maxBytes].
    #[tsify(optional)]
    pub threshold_tokens: Option<usize>,
    #[tsify(optional)]
    pub threshold_bytes: Option<usize>,
    /// A tool result over this is summarized on its own [half the threshold].
    #[tsify(optional)]
    pub message_threshold_tokens: Option<usize>,
    #[tsify(optional)]
    pub message_threshold_bytes: Option<usize>,
    /// Re-summarization levels of a long text before it is truncated (reported) [5].
    #[tsify(optional)]
    pub max_depth: Option<usize>,
    /// Content smaller than this is never sent to the summarizer [512].
    #[tsify(optional)]
    pub min_summarize_bytes: Option<usize>,
    /// Template of the ids of created summarization tool calls.
    #[tsify(optional)]
    pub id_template: Option<String>,
}

/// Settings of the `tiers` strategy (eternal history); defaults in brackets.
#[derive(Debug, Clone, Default, PartialEq, Eq, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct TiersStrategy {
    #[tsify(type = "\"tiers\"")]
    pub name: String,
    /// Most recent messages kept verbatim [20].
    #[tsify(optional)]
    pub recent: Option<usize>,
    /// Messages before them condensed (medium compression); older ones compressed [50].
    #[tsify(optional)]
    pub condensed: Option<usize>,
    /// `needsCompaction` is true above this many messages [100].
    #[tsify(optional)]
    pub auto_threshold: Option<usize>,
    /// Whether the automatic trigger is on [true].
    #[tsify(optional)]
    pub auto: Option<bool>,
    /// Size hints of the two summaries [2000 / 800 bytes, or 25% / 10% of the budget]; or in tokens.
    #[tsify(optional)]
    pub condensed_bytes: Option<usize>,
    #[tsify(optional)]
    pub condensed_tokens: Option<usize>,
    #[tsify(optional)]
    pub compressed_bytes: Option<usize>,
    #[tsify(optional)]
    pub compressed_tokens: Option<usize>,
    /// Content smaller than this is never sent to the summarizer [256].
    #[tsify(optional)]
    pub min_summarize_bytes: Option<usize>,
}

/// Settings of the `budget` strategy: keep the system prompt and the recent messages,
/// condense the rest, then enforce `maxTokens` / `maxBytes` (required) as a hard limit.
#[derive(Debug, Clone, Default, PartialEq, Eq, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct BudgetStrategy {
    #[tsify(type = "\"budget\"")]
    pub name: String,
    /// Most recent messages always kept, extended to whole tool exchanges [2].
    #[tsify(optional)]
    pub keep_recent: Option<usize>,
    /// Share of the budget all summaries together may take, 0 to 100 [20].
    #[tsify(optional)]
    pub summary_percent: Option<usize>,
    /// Template of the ids of created summarization tool calls.
    #[tsify(optional)]
    pub id_template: Option<String>,
}

/// A strategy name, or a name with settings.
#[derive(Debug, Clone, PartialEq, Eq, Tsify)]
#[serde(untagged)]
pub enum CompactStrategy {
    Name(StrategyName),
    Sections(SectionsStrategy),
    Window(WindowStrategy),
    Tiers(TiersStrategy),
    Budget(BudgetStrategy),
}

/// On a failed summary call: `"rollback"` returns the original chain with the errors in
/// the report (default), `"throw"` throws a `ContextfoldError` with code
/// `summarizer_failed` and an `errors` array, `"partial"` (alias `"trim"`) keeps every
/// summary that succeeded and the content whose summary failed (the `budget` strategy
/// trims it to keep the budget).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Tsify)]
#[tsify(rename = "OnError")]
#[serde(rename_all = "camelCase")]
pub enum OnErrorName {
    Rollback,
    Throw,
    Partial,
    Trim,
}

/// Options shared by `compact` and `needsCompaction`.
#[derive(Debug, Clone, Default, PartialEq, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct StrategyOptions {
    /// The format of `messages`; `"auto"` (default) detects it.
    #[tsify(optional, type = "\"auto\" | ChainFormat")]
    pub format: Option<String>,
    /// Default `"sections"`.
    #[tsify(optional)]
    pub strategy: Option<CompactStrategy>,
    /// The budget the result should fit (give one of the two); each strategy derives its
    /// thresholds from it unless they are set. `budget` guarantees it, or throws
    /// `budget_exceeded` saying what alone is too large.
    #[tsify(optional)]
    pub max_tokens: Option<usize>,
    #[tsify(optional)]
    pub max_bytes: Option<usize>,
    /// Counts tokens instead of the built-in estimate (one call per batch of texts).
    #[tsify(optional, type = "TokenCounter")]
    pub token_counter: Option<()>,
}

/// Options of `needsCompaction`.
#[derive(Debug, Clone, Default, PartialEq, Tsify)]
pub struct NeedsCompactionOptions {
    #[serde(flatten)]
    pub common: StrategyOptions,
}

/// Options of `compact`. An unknown key is an `invalid_option` error naming the nearest
/// known one; `null` counts as absent.
#[derive(Debug, Clone, Default, PartialEq, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CompactOptions {
    #[serde(flatten)]
    pub common: StrategyOptions,
    /// Makes the summaries; the built-in `extractiveSummarizer()` when absent.
    #[tsify(optional, type = "Summarizer")]
    pub summarizer: Option<()>,
    /// Whose rules the result keeps; default: the provider of the format read.
    #[tsify(optional)]
    pub provider: Option<crate::types::ProviderName>,
    /// Summary calls in flight at most, at least 1 [4].
    #[tsify(optional)]
    pub concurrency: Option<usize>,
    /// Time limit of each summary call, in ms: a late call fails with kind `"timeout"`.
    #[tsify(optional)]
    pub timeout_ms: Option<u64>,
    /// Aborting it cancels the compaction: the original chain comes back with `report.cancelled`.
    #[tsify(optional, type = "AbortSignal")]
    pub signal: Option<()>,
    #[tsify(optional, type = "OnError")]
    pub on_error: Option<OnErrorName>,
    /// Told when each wave of summary calls starts, when each call ends, and when all is done.
    #[tsify(optional, type = "(event: ProgressEvent) => void")]
    pub on_progress: Option<()>,
}

/// The strategy names, for messages.
const NAMES: &str = "\"sections\", \"window\", \"tiers\" or \"budget\"";

/// Settings of any strategy; which apply depends on `name` (the reader rejects keys
/// the named strategy does not read, see [`strategy_keys`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StrategySettings {
    pub name: String,
    // sections
    pub preserve_last: Option<bool>,
    pub last_sec_bytes: Option<usize>,
    pub last_sec_tokens: Option<usize>,
    pub max_bp_bytes: Option<usize>,
    pub max_bp_tokens: Option<usize>,
    #[serde(rename = "useQA")]
    pub use_qa: Option<bool>,
    #[serde(rename = "maxQASections")]
    pub max_qa_sections: Option<usize>,
    #[serde(rename = "maxQABytes")]
    pub max_qa_bytes: Option<usize>,
    #[serde(rename = "maxQATokens")]
    pub max_qa_tokens: Option<usize>,
    #[serde(rename = "summHumanInQA")]
    pub summ_human_in_qa: Option<bool>,
    #[serde(rename = "keepQASections")]
    pub keep_qa_sections: Option<usize>,
    pub reserve_percent: Option<usize>,
    // window
    pub window: Option<usize>,
    pub threshold_tokens: Option<usize>,
    pub threshold_bytes: Option<usize>,
    pub message_threshold_tokens: Option<usize>,
    pub message_threshold_bytes: Option<usize>,
    pub max_depth: Option<usize>,
    // tiers
    pub recent: Option<usize>,
    pub condensed: Option<usize>,
    pub auto_threshold: Option<usize>,
    pub auto: Option<bool>,
    pub condensed_bytes: Option<usize>,
    pub condensed_tokens: Option<usize>,
    pub compressed_bytes: Option<usize>,
    pub compressed_tokens: Option<usize>,
    // budget
    pub keep_recent: Option<usize>,
    pub summary_percent: Option<usize>,
    // shared
    pub min_summarize_bytes: Option<usize>,
    pub id_template: Option<String>,
}

impl StrategySettings {
    pub fn named(name: &str) -> Self {
        StrategySettings { name: name.to_string(), ..StrategySettings::default() }
    }

    /// The core config: derived from `max` when given, overridden by what is set.
    /// `now` is the creation time recorded on tier summaries.
    pub fn to_config(
        &self,
        max: Option<Amount>,
        on_error: OnError,
        now: Option<String>,
    ) -> Result<StrategyConfig, BindingError> {
        if let Some(template) = &self.id_template {
            IdTemplate::parse(template).map_err(|e| invalid(".strategy.idTemplate", e.to_string()))?;
        }
        match self.name.as_str() {
            "sections" => self.sections(max, on_error).map(StrategyConfig::Sections),
            "window" => self.window(max, on_error).map(StrategyConfig::Window),
            "tiers" => self.tiers(max, on_error, now).map(StrategyConfig::Tiers),
            "budget" => self.budget(max, on_error).map(StrategyConfig::Budget),
            other => Err(invalid(".strategy.name", format!("unknown strategy {other:?}; expected {NAMES}"))),
        }
    }

    fn sections(&self, max: Option<Amount>, on_error: OnError) -> Result<SectionsConfig, BindingError> {
        if self.keep_qa_sections == Some(0) {
            return Err(invalid(".strategy.keepQASections", "must be at least 1"));
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

    fn window(&self, max: Option<Amount>, on_error: OnError) -> Result<WindowConfig, BindingError> {
        if self.window == Some(0) {
            return Err(invalid(".strategy.window", "must be at least 1"));
        }
        let d = max.map_or_else(WindowConfig::default, WindowConfig::for_budget);
        let threshold = amount(self.threshold_tokens, self.threshold_bytes, ".strategy.threshold")?;
        let message_threshold =
            amount(self.message_threshold_tokens, self.message_threshold_bytes, ".strategy.messageThreshold")?;
        let threshold = threshold.unwrap_or(d.threshold);
        Ok(WindowConfig {
            window: self.window.unwrap_or(d.window),
            // Half the threshold unless given, as upstream derives it.
            message_threshold: message_threshold.unwrap_or(if threshold == d.threshold {
                d.message_threshold
            } else {
                threshold.with_value(threshold.value() / 2)
            }),
            threshold,
            max_depth: self.max_depth.unwrap_or(d.max_depth),
            min_summarize_bytes: self.min_summarize_bytes.unwrap_or(d.min_summarize_bytes),
            id_template: self.id_template.clone().unwrap_or(d.id_template),
            on_error,
        })
    }

    fn tiers(&self, max: Option<Amount>, on_error: OnError, now: Option<String>) -> Result<TiersConfig, BindingError> {
        if self.recent == Some(0) {
            return Err(invalid(".strategy.recent", "must be at least 1"));
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

    fn budget(&self, max: Option<Amount>, on_error: OnError) -> Result<BudgetConfig, BindingError> {
        let Some(max) = max else {
            return Err(invalid(".maxTokens", "the budget strategy needs maxTokens or maxBytes"));
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

fn percent(value: Option<usize>, path: &str) -> Result<(), BindingError> {
    match value {
        Some(p) if p > 100 => Err(invalid(path, "must be 0 to 100")),
        _ => Ok(()),
    }
}

/// An amount given as `<path>Tokens` or `<path>Bytes`, not both.
pub fn amount(tokens: Option<usize>, bytes: Option<usize>, path: &str) -> Result<Option<Amount>, BindingError> {
    match (tokens, bytes) {
        (Some(_), Some(_)) => {
            Err(invalid(&format!("{path}Bytes"), format!("give {path}Tokens or {path}Bytes, not both")))
        }
        (Some(0), None) => Err(invalid(&format!("{path}Tokens"), "must be at least 1")),
        (None, Some(0)) => Err(invalid(&format!("{path}Bytes"), "must be at least 1")),
        (Some(t), None) => Ok(Some(Amount::Tokens(t))),
        (None, Some(b)) => Ok(Some(Amount::Bytes(b))),
        (None, None) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_strategy_reads_its_settings_and_the_budget() {
        let max = Some(Amount::Tokens(8000));
        let s = StrategySettings { use_qa: Some(false), ..StrategySettings::named("sections") };
        let StrategyConfig::Sections(c) = s.to_config(max, OnError::Partial, None).unwrap() else { panic!() };
        assert!(!c.use_qa);
        assert_eq!(c.last_sec_bytes, 16_000);
        assert_eq!(c.on_error, OnError::Partial);

        let s = StrategySettings { last_sec_tokens: Some(1000), ..StrategySettings::named("sections") };
        let StrategyConfig::Sections(c) = s.to_config(None, OnError::Rollback, None).unwrap() else { panic!() };
        assert_eq!(c.last_sec_bytes, 4000);
        let s = StrategySettings { compressed_tokens: Some(100), ..StrategySettings::named("tiers") };
        let StrategyConfig::Tiers(c) = s.to_config(None, OnError::Rollback, None).unwrap() else { panic!() };
        assert_eq!(c.compressed_bytes, 400);

        let s = StrategySettings { threshold_bytes: Some(10_000), ..StrategySettings::named("window") };
        let StrategyConfig::Window(c) = s.to_config(None, OnError::Rollback, None).unwrap() else { panic!() };
        assert_eq!(c.threshold, Amount::Bytes(10_000));
        assert_eq!(c.message_threshold, Amount::Bytes(5_000));

        let s = StrategySettings { recent: Some(4), ..StrategySettings::named("tiers") };
        let now = Some("2026-11-22T00:00:00.000Z".to_string());
        let StrategyConfig::Tiers(c) = s.to_config(None, OnError::Rollback, now.clone()).unwrap() else { panic!() };
        assert_eq!((c.recent, c.condensed, c.now), (4, 50, now));

        let s = StrategySettings { keep_recent: Some(6), ..StrategySettings::named("budget") };
        let StrategyConfig::Budget(c) = s.to_config(Some(Amount::Bytes(9000)), OnError::Throw, None).unwrap() else {
            panic!()
        };
        assert_eq!((c.max, c.keep_recent), (Amount::Bytes(9000), 6));
    }

    /// `(setting, TS type)` of every optional setting a declaration lists.
    fn declared(decl: &str) -> Vec<(String, String)> {
        decl.lines()
            .filter_map(|line| line.trim().split_once("?: "))
            .map(|(key, ty)| (key.to_string(), ty.trim_end_matches(';').to_string()))
            .collect()
    }

    #[test]
    fn every_declared_setting_is_one_the_reader_reads() {
        for (name, decl) in [
            ("sections", SectionsStrategy::DECL),
            ("window", WindowStrategy::DECL),
            ("tiers", TiersStrategy::DECL),
            ("budget", BudgetStrategy::DECL),
        ] {
            let settings = declared(decl);
            assert!(settings.len() >= 3, "{decl}");
            for (key, ty) in settings {
                let value = match ty.as_str() {
                    "number" => serde_json::json!(7),
                    "boolean" => serde_json::json!(true),
                    "string" => serde_json::json!("x_{r:4:d}"),
                    other => panic!("{name}.{key}: unexpected type {other}"),
                };
                let read: StrategySettings =
                    serde_json::from_value(serde_json::json!({ "name": name, key.as_str(): value }))
                        .unwrap_or_else(|e| panic!("{name}.{key}: {e}"));
                assert_ne!(read, StrategySettings::named(name), "{name}.{key} is declared but not read");
            }
        }
        let options = declared(CompactOptions::DECL);
        for key in ["summarizer", "provider", "concurrency", "timeoutMs", "signal", "onError", "onProgress"] {
            assert!(options.iter().any(|(k, _)| k == key), "CompactOptions.{key}");
        }
        let common = declared(StrategyOptions::DECL);
        for key in ["format", "strategy", "maxTokens", "maxBytes", "tokenCounter"] {
            assert!(common.iter().any(|(k, _)| k == key), "StrategyOptions.{key}");
        }
    }

    /// Every key a declaration lists, required or optional.
    fn declared_keys(decl: &str) -> Vec<String> {
        decl.lines()
            .filter_map(|line| {
                let line = line.trim();
                let (key, _) = line.split_once(": ")?;
                let key = key.trim_end_matches('?');
                (!line.starts_with('*') && !line.starts_with("/*") && !key.contains(' ')).then(|| key.to_string())
            })
            .collect()
    }

    #[test]
    fn the_known_keys_are_the_declared_ones() {
        let sorted = |mut keys: Vec<String>| {
            keys.sort();
            keys
        };
        let owned = |keys: &[&str]| keys.iter().map(ToString::to_string).collect::<Vec<_>>();
        for (decl, keys) in [
            (SectionsStrategy::DECL, SECTIONS_KEYS),
            (WindowStrategy::DECL, WINDOW_KEYS),
            (TiersStrategy::DECL, TIERS_KEYS),
            (BudgetStrategy::DECL, BUDGET_KEYS),
        ] {
            assert_eq!(sorted(declared_keys(decl)), sorted(owned(keys)), "{decl}");
        }
        let mut options = declared_keys(StrategyOptions::DECL);
        options.extend(declared_keys(CompactOptions::DECL));
        options.push("__reuse".to_string());
        assert_eq!(sorted(options), sorted(owned(COMPACT_KEYS)));
    }

    /// The `[N]` default the declaration documents for `minSummarizeBytes`.
    fn documented_min_summarize_bytes(decl: &str) -> usize {
        let lines: Vec<&str> = decl.lines().map(str::trim).collect();
        let at = lines.iter().position(|l| l.starts_with("minSummarizeBytes?:")).unwrap();
        let doc = lines[..at].iter().rev().find(|l| l.contains('[')).unwrap();
        let inside = doc.split_once('[').unwrap().1.split_once(']').unwrap().0;
        inside.parse().unwrap_or_else(|_| panic!("{doc}"))
    }

    #[test]
    fn documented_defaults_are_the_core_defaults() {
        assert_eq!(
            documented_min_summarize_bytes(SectionsStrategy::DECL),
            SectionsConfig::default().min_summarize_bytes
        );
        assert_eq!(documented_min_summarize_bytes(WindowStrategy::DECL), WindowConfig::default().min_summarize_bytes);
        assert_eq!(documented_min_summarize_bytes(TiersStrategy::DECL), TiersConfig::default().min_summarize_bytes);
    }

    #[test]
    fn unknown_keys_name_the_nearest_known_one() {
        let err = check_keys(["format", "maxToken"], COMPACT_KEYS, "").unwrap_err();
        assert_eq!(err.code(), "invalid_option");
        assert_eq!(err.path().as_deref(), Some("options.maxToken"));
        assert!(err.to_string().ends_with("did you mean maxTokens?"), "{err}");
        let err = check_keys(["name", "keepRecnt"], BUDGET_KEYS, ".strategy").unwrap_err();
        assert_eq!(err.path().as_deref(), Some("options.strategy.keepRecnt"));
        assert!(err.to_string().ends_with("did you mean keepRecent?"), "{err}");
        assert!(check_keys(COMPACT_KEYS.iter().copied(), COMPACT_KEYS, "").is_ok());
    }

    #[test]
    fn wrong_settings_name_their_path() {
        let cases = [
            (StrategySettings::named("nope"), None, "options.strategy.name"),
            (StrategySettings::named("budget"), None, "options.maxTokens"),
            (
                StrategySettings { keep_qa_sections: Some(0), ..StrategySettings::named("sections") },
                None,
                "options.strategy.keepQASections",
            ),
            (
                StrategySettings {
                    threshold_tokens: Some(1),
                    threshold_bytes: Some(1),
                    ..StrategySettings::named("window")
                },
                None,
                "options.strategy.thresholdBytes",
            ),
            (
                StrategySettings { summary_percent: Some(101), ..StrategySettings::named("budget") },
                Some(Amount::Tokens(10)),
                "options.strategy.summaryPercent",
            ),
            (StrategySettings { recent: Some(0), ..StrategySettings::named("tiers") }, None, "options.strategy.recent"),
            (
                StrategySettings { id_template: Some("{r:0:q}".into()), ..StrategySettings::named("sections") },
                None,
                "options.strategy.idTemplate",
            ),
        ];
        for (settings, max, path) in cases {
            let err = settings.to_config(max, OnError::Rollback, None).unwrap_err();
            assert_eq!(err.code(), "invalid_option");
            assert_eq!(err.path().as_deref(), Some(path), "{settings:?}");
        }
    }
}
