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

impl OptionError {
    pub fn new(path: &str, message: impl Into<String>) -> OptionError {
        OptionError { path: path.to_string(), message: message.into() }
    }

    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        "invalid_option"
    }
}
