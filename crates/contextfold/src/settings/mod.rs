//! The settings of one compaction, as callers give them: which format to read, which
//! strategy with which settings, whose provider rules to keep, and how summary calls run.
//! The JSON pipeline and every binding read options into this one type.

mod introspect;
mod masking;
mod seeds;
pub mod strategy;

pub use introspect::field_names;
pub use strategy::{
    AutoStrategy, BudgetStrategy, CompactStrategy, DefaultSettings, MaskStrategy, SectionsStrategy, StrategyName,
    TiersStrategy, WindowStrategy,
};

use crate::format::Format;
use crate::repair::Provider;
use crate::strategy::run::StrategyConfig;
use crate::summarize::DEFAULT_CONCURRENCY;

/// The options of `compact` other than the host objects (summarizer, signal, token
/// counter, progress callback).
#[derive(Debug, Clone, PartialEq)]
pub struct CompactSettings {
    /// `None`: auto-detect.
    pub format: Option<Format>,
    pub strategy: StrategyConfig,
    /// The provider rules the result must satisfy; `None`: those of the format read.
    pub provider: Option<Provider>,
    pub concurrency: usize,
    pub timeout_ms: Option<u64>,
    /// What the summaries should focus on, added to every prompt.
    pub instructions: Option<String>,
    /// Answer with a reuse plan instead of the messages (set by the JS layer).
    pub reuse: bool,
}

impl Default for CompactSettings {
    fn default() -> Self {
        CompactSettings {
            format: None,
            strategy: StrategyConfig::default(),
            provider: None,
            concurrency: DEFAULT_CONCURRENCY,
            timeout_ms: None,
            instructions: None,
            reuse: false,
        }
    }
}

/// An option of the wrong type or value, e.g. `{ format: "gemini" }`, or an unknown key.
/// `path` is where in the options object, e.g. `.strategy.useQA` (empty for the object).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("options{path}: {message}")]
pub struct OptionError {
    pub path: String,
    pub message: String,
}

/// serde's message about a value, its Rust integer types said as a caller reads them:
/// "expected usize" means nothing to a JS caller passing `maxTokens: 2 ** 32`.
pub fn plain_expectation(message: &str) -> String {
    let range = |max: u64| format!("expected a whole number from 0 to {max}");
    [
        ("expected usize", range(usize::MAX as u64)),
        ("expected u64", "expected a whole number, 0 or more".to_string()),
        ("expected u32", range(u64::from(u32::MAX))),
        ("expected u16", range(u64::from(u16::MAX))),
        ("expected u8", range(u64::from(u8::MAX))),
    ]
    .iter()
    .find_map(|(rust, plain)| {
        let at = message.rfind(rust)?;
        // The whole expectation only ("expected u8" is also the start of "expected u80").
        message.get(at.saturating_add(rust.len())..).filter(|rest| rest.is_empty())?;
        Some(format!("{}{plain}", message.get(..at).unwrap_or_default()))
    })
    .unwrap_or_else(|| message.to_string())
}

impl OptionError {
    pub fn new(path: &str, message: impl Into<String>) -> OptionError {
        OptionError { path: path.to_string(), message: message.into() }
    }

    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        "invalid_option"
    }
}

#[cfg(test)]
mod tests {
    use super::plain_expectation;

    #[test]
    fn rust_integer_types_are_said_plainly() {
        assert_eq!(
            plain_expectation("invalid value: integer `4294967296`, expected usize"),
            format!("invalid value: integer `4294967296`, expected a whole number from 0 to {}", usize::MAX)
        );
        assert_eq!(
            plain_expectation("invalid type: floating point `1.5`, expected u32"),
            "invalid type: floating point `1.5`, expected a whole number from 0 to 4294967295"
        );
        assert_eq!(
            plain_expectation("invalid type: string \"9\", expected u64"),
            "invalid type: string \"9\", expected a whole number, 0 or more"
        );
        // Other expectations, and a type name that only starts like one, stay as they are.
        for kept in ["invalid type: integer `1`, expected a string", "expected u80", "expected usize or a string"] {
            assert_eq!(plain_expectation(kept), kept);
        }
    }
}
