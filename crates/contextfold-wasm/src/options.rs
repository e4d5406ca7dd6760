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
use serde::Deserialize;

pub fn invalid(path: &str, message: impl Into<String>) -> BindingError {
    BindingError::InvalidOption { path: path.to_string(), message: message.into() }
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

/// The strategy names, for messages.
const NAMES: &str = "\"sections\", \"window\", \"tiers\" or \"budget\"";

/// Settings of any strategy; which apply depends on `name`. Unknown keys are ignored.
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
