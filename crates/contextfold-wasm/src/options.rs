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
pub use contextfold::settings::{
    AutoStrategy, BudgetStrategy, CompactStrategy, DefaultSettings, MaskStrategy, SectionsStrategy, StrategyName,
    TiersStrategy, WindowStrategy,
};
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
    "instructions",
    "signal",
    "onError",
    "onProgress",
    "__reuse",
];

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
                format!(
                    "unknown provider {name:?}; expected \"generic\", \"openai\", \"openai-responses\", \"anthropic\" or \"gemini\""
                ),
            )
        })
    })
    .transpose()
}

/// On a failed summary call: `"rollback"` returns the original chain with the errors in
/// the report (default), `"throw"` throws a `ContextfoldError` with code
/// `summarizer_failed` and an `errors` array, `"partial"` (alias `"trim"`) keeps every
/// summary that succeeded and the content whose summary failed, as it was (the `budget`
/// strategy trims it to keep the budget; `auto` keeps its budget with what succeeded, or
/// throws `budget_exceeded` naming the failed summary).
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
    /// Default `"auto"`: over the budget, old tool results are masked, then the oldest
    /// span folds into one structured summary; never over the budget.
    #[tsify(optional)]
    pub strategy: Option<CompactStrategy>,
    /// The budget the result should fit (give one of the two); each strategy derives its
    /// thresholds from it unless they are set. `budget` guarantees it, or throws
    /// `budget_exceeded` saying what alone is too large.
    #[tsify(optional)]
    pub max_tokens: Option<usize>,
    #[tsify(optional)]
    pub max_bytes: Option<usize>,
    /// Counts tokens instead of the built-in estimate (one call per batch of texts) where a
    /// strategy decides in tokens: `auto`, `budget`, `window`, `mask` with a budget (and
    /// `summarizerMaxTokens`). `sections` and `tiers` work in bytes and never call it; the
    /// report's totals are the built-in estimate whatever it counts.
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
    /// Summary calls in flight at most, at least 1 [4]; a timed-out call that ignores its
    /// signal is abandoned one more `timeoutMs` later, and its slot freed then.
    #[tsify(optional)]
    pub concurrency: Option<usize>,
    /// Time limit of each summary call, in ms: a late call fails with kind `"timeout"`.
    #[tsify(optional)]
    pub timeout_ms: Option<u64>,
    /// What the summaries should focus on, added to every summary prompt (e.g. "the
    /// database migration and its open questions").
    #[tsify(optional)]
    pub instructions: Option<String>,
    /// Aborting it cancels the compaction: the original chain comes back with `report.cancelled`.
    #[tsify(optional, type = "AbortSignal")]
    pub signal: Option<()>,
    #[tsify(optional, type = "OnError")]
    pub on_error: Option<OnErrorName>,
    /// Told when each wave of summary calls starts, when each call ends, and when all is done.
    #[tsify(optional, type = "(event: ProgressEvent) => void")]
    pub on_progress: Option<()>,
}

/// Every strategy's settings at their defaults without a budget (with one, some derive
/// from it, as each setting's doc says): what a form or a command line shows for a
/// setting left blank, from the same table the strategies use.
///
/// @example
/// ```js
/// const { sections } = defaultSettings();
/// // sections.lastSecBytes: 51200, sections.keepQASections: 1, ...
/// ```
#[wasm_bindgen::prelude::wasm_bindgen(js_name = defaultSettings, unchecked_return_type = "DefaultSettings")]
pub fn default_settings() -> crate::error::JsResult<wasm_bindgen::JsValue> {
    crate::convert::to_js(&CompactStrategy::defaults())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // The strategy settings: the TypeScript and the reader's keys come from one type.
        for (decl, name) in [
            (AutoStrategy::DECL, StrategyName::Auto),
            (MaskStrategy::DECL, StrategyName::Mask),
            (SectionsStrategy::DECL, StrategyName::Sections),
            (WindowStrategy::DECL, StrategyName::Window),
            (TiersStrategy::DECL, StrategyName::Tiers),
            (BudgetStrategy::DECL, StrategyName::Budget),
        ] {
            assert_eq!(sorted(declared_keys(decl)), sorted(owned(name.keys())), "{decl}");
        }
        let mut options = declared_keys(StrategyOptions::DECL);
        options.extend(declared_keys(CompactOptions::DECL));
        options.push("__reuse".to_string());
        assert_eq!(sorted(options), sorted(owned(COMPACT_KEYS)));
    }

    #[test]
    fn unknown_keys_name_the_nearest_known_one() {
        let err = check_keys(["format", "maxToken"], COMPACT_KEYS, "").unwrap_err();
        assert_eq!(err.code(), "invalid_option");
        assert_eq!(err.path().as_deref(), Some("options.maxToken"));
        assert!(err.to_string().ends_with("did you mean maxTokens?"), "{err}");
        assert!(check_keys(COMPACT_KEYS.iter().copied(), COMPACT_KEYS, "").is_ok());
    }
}
