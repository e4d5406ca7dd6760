//! The settings a caller gives each strategy, as one type per strategy: what the
//! bindings read, what their TypeScript types are generated from (feature `tsify`), and
//! where validation and the rules derived from a budget live. Defaults in brackets; a
//! size is given in tokens OR bytes (`lastSecTokens` or `lastSecBytes`).

use super::introspect::field_names;
pub use super::masking::{AutoStrategy, MaskStrategy};
pub use super::seeds::{BudgetStrategy, SectionsStrategy, TiersStrategy, WindowStrategy};
use super::OptionError;
use crate::ast::IdTemplate;
use crate::measure::Amount;
use crate::strategy::run::StrategyConfig;
use crate::strategy::OnError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A strategy name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub enum StrategyName {
    Auto,
    Mask,
    Sections,
    Window,
    Tiers,
    Budget,
}

impl StrategyName {
    /// The strategy when none is named.
    pub const DEFAULT: StrategyName = StrategyName::Auto;

    pub const ALL: [StrategyName; 6] = [
        StrategyName::Auto,
        StrategyName::Mask,
        StrategyName::Sections,
        StrategyName::Window,
        StrategyName::Tiers,
        StrategyName::Budget,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            StrategyName::Auto => "auto",
            StrategyName::Mask => "mask",
            StrategyName::Sections => "sections",
            StrategyName::Window => "window",
            StrategyName::Tiers => "tiers",
            StrategyName::Budget => "budget",
        }
    }

    pub fn from_name(name: &str) -> Option<StrategyName> {
        StrategyName::ALL.into_iter().find(|n| n.as_str() == name)
    }

    /// The keys a `{ name, ...settings }` object of this strategy may hold.
    pub fn keys(self) -> &'static [&'static str] {
        match self {
            StrategyName::Auto => field_names::<AutoStrategy>(),
            StrategyName::Mask => field_names::<MaskStrategy>(),
            StrategyName::Sections => field_names::<SectionsStrategy>(),
            StrategyName::Window => field_names::<WindowStrategy>(),
            StrategyName::Tiers => field_names::<TiersStrategy>(),
            StrategyName::Budget => field_names::<BudgetStrategy>(),
        }
    }
}

/// A strategy name, or a name with settings: the `strategy` option.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(untagged)]
pub enum CompactStrategy {
    Name(StrategyName),
    Auto(AutoStrategy),
    Mask(MaskStrategy),
    Sections(SectionsStrategy),
    Window(WindowStrategy),
    Tiers(TiersStrategy),
    Budget(BudgetStrategy),
}

/// The strategy names, for messages.
const NAMES: &str = "\"auto\", \"mask\", \"sections\", \"window\", \"tiers\" or \"budget\"";

impl CompactStrategy {
    /// The named strategy with every setting at its default.
    pub fn named(name: StrategyName) -> CompactStrategy {
        let name_of = || name.as_str().to_string();
        match name {
            StrategyName::Auto => CompactStrategy::Auto(AutoStrategy { name: name_of(), ..Default::default() }),
            StrategyName::Mask => CompactStrategy::Mask(MaskStrategy { name: name_of(), ..Default::default() }),
            StrategyName::Sections => {
                CompactStrategy::Sections(SectionsStrategy { name: name_of(), ..Default::default() })
            }
            StrategyName::Window => CompactStrategy::Window(WindowStrategy { name: name_of(), ..Default::default() }),
            StrategyName::Tiers => CompactStrategy::Tiers(TiersStrategy { name: name_of(), ..Default::default() }),
            StrategyName::Budget => CompactStrategy::Budget(BudgetStrategy { name: name_of(), ..Default::default() }),
        }
    }

    /// Reads the `strategy` option: a name, or `{ name, ...settings }` with only the keys
    /// that strategy reads (an unknown one names the nearest known one). Errors carry
    /// their path under `.strategy`.
    pub fn from_json(value: &Value) -> Result<CompactStrategy, OptionError> {
        let (name, path) = match value {
            Value::String(name) => (name.as_str(), ".strategy"),
            Value::Object(map) => match map.get("name") {
                Some(Value::String(name)) => (name.as_str(), ".strategy.name"),
                Some(other) => {
                    return Err(OptionError::new(".strategy.name", format!("expected a string, got {other}")))
                }
                None => return Err(OptionError::new(".strategy", "missing field `name`")),
            },
            _ => return Err(OptionError::new(".strategy", "expected a strategy name or { name, ...settings }")),
        };
        let Some(kind) = StrategyName::from_name(name) else {
            return Err(OptionError::new(path, format!("unknown strategy {name:?}; expected {NAMES}")));
        };
        let Value::Object(map) = value else { return Ok(CompactStrategy::named(kind)) };
        let known = kind.keys();
        if let Some(unknown) = crate::names::unknown_key(map.keys().map(String::as_str), known) {
            return Err(OptionError::new(&format!(".strategy.{}", unknown.key), unknown.message(known)));
        }
        Ok(match kind {
            StrategyName::Auto => CompactStrategy::Auto(read(value)?),
            StrategyName::Mask => CompactStrategy::Mask(read(value)?),
            StrategyName::Sections => CompactStrategy::Sections(read(value)?),
            StrategyName::Window => CompactStrategy::Window(read(value)?),
            StrategyName::Tiers => CompactStrategy::Tiers(read(value)?),
            StrategyName::Budget => CompactStrategy::Budget(read(value)?),
        })
    }

    /// The core config: derived from `max` when given, overridden by what is set, every
    /// value checked. `now` is the creation time recorded on tier summaries.
    pub fn to_config(
        &self,
        max: Option<Amount>,
        on_error: OnError,
        now: Option<String>,
    ) -> Result<StrategyConfig, OptionError> {
        match self {
            CompactStrategy::Name(name) => CompactStrategy::named(*name).to_config(max, on_error, now),
            CompactStrategy::Auto(s) => s.to_config(max, on_error).map(StrategyConfig::Auto),
            CompactStrategy::Mask(s) => s.to_config(max, on_error).map(StrategyConfig::Mask),
            CompactStrategy::Sections(s) => s.to_config(max, on_error).map(StrategyConfig::Sections),
            CompactStrategy::Window(s) => s.to_config(max, on_error).map(StrategyConfig::Window),
            CompactStrategy::Tiers(s) => s.to_config(max, on_error, now).map(StrategyConfig::Tiers),
            CompactStrategy::Budget(s) => s.to_config(max, on_error).map(StrategyConfig::Budget),
        }
    }

    /// Every strategy's settings at their defaults without a budget (a budget derives some
    /// of them, as each setting's doc says); `budget` needs one and shows its own settings.
    pub fn defaults() -> DefaultSettings {
        DefaultSettings {
            auto: AutoStrategy::defaults(),
            mask: MaskStrategy::defaults(),
            sections: SectionsStrategy::defaults(),
            window: WindowStrategy::defaults(),
            tiers: TiersStrategy::defaults(),
            budget: BudgetStrategy::defaults(),
        }
    }
}

/// Every strategy's settings at their defaults (see [`CompactStrategy::defaults`]): what
/// forms and command lines show when a setting is left blank.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct DefaultSettings {
    pub auto: AutoStrategy,
    pub mask: MaskStrategy,
    pub sections: SectionsStrategy,
    pub window: WindowStrategy,
    pub tiers: TiersStrategy,
    pub budget: BudgetStrategy,
}

impl DefaultSettings {
    pub fn all(&self) -> [CompactStrategy; 6] {
        [
            CompactStrategy::Auto(self.auto.clone()),
            CompactStrategy::Mask(self.mask.clone()),
            CompactStrategy::Sections(self.sections.clone()),
            CompactStrategy::Window(self.window.clone()),
            CompactStrategy::Tiers(self.tiers.clone()),
            CompactStrategy::Budget(self.budget.clone()),
        ]
    }
}

/// An amount as its `(tokens, bytes)` pair of settings.
pub(super) fn split(amount: Amount) -> (Option<usize>, Option<usize>) {
    match amount {
        Amount::Tokens(t) => (Some(t), None),
        Amount::Bytes(b) => (None, Some(b)),
    }
}

/// `value` as settings `T`; a wrong value is an error at its path under `.strategy`.
pub(super) fn read<T: serde::de::DeserializeOwned>(value: &Value) -> Result<T, OptionError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let inner = e.path().to_string();
        let path =
            if inner == "." { ".strategy".to_string() } else { format!(".strategy.{}", inner.trim_start_matches('.')) };
        OptionError::new(&path, super::plain_expectation(&e.inner().to_string()))
    })
}

pub(super) fn check_template(template: &Option<String>) -> Result<(), OptionError> {
    match template {
        Some(t) => {
            IdTemplate::parse(t).map(|_| ()).map_err(|e| OptionError::new(".strategy.idTemplate", e.to_string()))
        }
        None => Ok(()),
    }
}

pub(super) fn percent(value: Option<usize>, path: &str) -> Result<(), OptionError> {
    match value {
        Some(p) if p > 100 => Err(OptionError::new(path, "must be 0 to 100")),
        _ => Ok(()),
    }
}

/// An amount given as `<path>Tokens` or `<path>Bytes`, not both.
pub fn amount(tokens: Option<usize>, bytes: Option<usize>, path: &str) -> Result<Option<Amount>, OptionError> {
    match (tokens, bytes) {
        (Some(_), Some(_)) => {
            Err(OptionError::new(&format!("{path}Bytes"), format!("give {path}Tokens or {path}Bytes, not both")))
        }
        (Some(0), None) => Err(OptionError::new(&format!("{path}Tokens"), "must be at least 1")),
        (None, Some(0)) => Err(OptionError::new(&format!("{path}Bytes"), "must be at least 1")),
        (Some(t), None) => Ok(Some(Amount::Tokens(t))),
        (None, Some(b)) => Ok(Some(Amount::Bytes(b))),
        (None, None) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config(value: Value, max: Option<Amount>) -> Result<StrategyConfig, OptionError> {
        CompactStrategy::from_json(&value)?.to_config(max, OnError::Rollback, None)
    }

    #[test]
    fn every_strategy_reads_its_settings_and_the_budget() {
        let strategy = CompactStrategy::from_json(&json!({ "name": "sections", "useQA": false })).unwrap();
        let StrategyConfig::Sections(c) =
            strategy.to_config(Some(Amount::Tokens(8000)), OnError::Partial, None).unwrap()
        else {
            panic!()
        };
        assert!(!c.use_qa);
        assert_eq!(c.last_sec_bytes, 16_000);
        assert_eq!(c.on_error, OnError::Partial);

        // A budget derives the thresholds, never QA folding: off unless asked for, as
        // `defaultSettings()` says, with a budget or without.
        for (strategy, max) in [(json!("sections"), Some(Amount::Tokens(4000))), (json!("sections"), None)] {
            let Ok(StrategyConfig::Sections(c)) = config(strategy, max) else { panic!() };
            assert!(!c.use_qa, "QA folding on with {max:?}");
        }
        let Ok(StrategyConfig::Sections(c)) =
            config(json!({ "name": "sections", "useQA": true }), Some(Amount::Tokens(4000)))
        else {
            panic!()
        };
        assert!(c.use_qa && c.max_qa_bytes == 14_400);

        let Ok(StrategyConfig::Sections(c)) = config(json!({ "name": "sections", "lastSecTokens": 1000 }), None) else {
            panic!()
        };
        assert_eq!(c.last_sec_bytes, 4000);
        let Ok(StrategyConfig::Tiers(c)) = config(json!({ "name": "tiers", "compressedTokens": 100 }), None) else {
            panic!()
        };
        assert_eq!(c.compressed_bytes, 400);
        // zrb's rule, in one place: the message threshold is half the threshold.
        let Ok(StrategyConfig::Window(c)) = config(json!({ "name": "window", "thresholdBytes": 10_000 }), None) else {
            panic!()
        };
        assert_eq!((c.threshold, c.message_threshold), (Amount::Bytes(10_000), Amount::Bytes(5_000)));
        let Ok(StrategyConfig::Window(c)) = config(json!("window"), Some(Amount::Tokens(1000))) else { panic!() };
        assert_eq!((c.threshold, c.message_threshold), (Amount::Tokens(800), Amount::Tokens(400)));

        let now = Some("2026-11-22T00:00:00.000Z".to_string());
        let strategy = CompactStrategy::from_json(&json!({ "name": "tiers", "recent": 4 })).unwrap();
        let Ok(StrategyConfig::Tiers(c)) = strategy.to_config(None, OnError::Rollback, now.clone()) else { panic!() };
        assert_eq!((c.recent, c.condensed, c.now), (4, 50, now));

        let Ok(StrategyConfig::Budget(c)) =
            config(json!({ "name": "budget", "keepRecent": 6 }), Some(Amount::Bytes(9000)))
        else {
            panic!()
        };
        assert_eq!((c.max, c.keep_recent), (Amount::Bytes(9000), 6));
    }

    #[test]
    fn wrong_settings_name_their_path() {
        let cases = [
            (json!("nope"), None, ".strategy"),
            (json!({ "name": "nope" }), None, ".strategy.name"),
            (json!({ "name": 3 }), None, ".strategy.name"),
            (json!({ "useQA": true }), None, ".strategy"),
            (json!(7), None, ".strategy"),
            (json!("budget"), None, ".maxTokens"),
            (json!({ "name": "sections", "keepQASections": 0 }), None, ".strategy.keepQASections"),
            (json!({ "name": "sections", "useQA": "yes" }), None, ".strategy.useQA"),
            (json!({ "name": "window", "thresholdTokens": 1, "thresholdBytes": 1 }), None, ".strategy.thresholdBytes"),
            (json!({ "name": "budget", "summaryPercent": 101 }), Some(Amount::Tokens(10)), ".strategy.summaryPercent"),
            (json!({ "name": "tiers", "recent": 0 }), None, ".strategy.recent"),
            (json!({ "name": "sections", "idTemplate": "{r:0:q}" }), None, ".strategy.idTemplate"),
            (json!({ "name": "budget", "keepRecnt": 1 }), Some(Amount::Tokens(10)), ".strategy.keepRecnt"),
            // A key of another strategy is unknown to this one.
            (json!({ "name": "tiers", "useQA": true }), None, ".strategy.useQA"),
        ];
        for (value, max, path) in cases {
            let err = config(value.clone(), max).unwrap_err();
            assert_eq!(err.code(), "invalid_option");
            assert_eq!(err.path, path, "{value}: {err}");
        }
        let err = config(json!({ "name": "budget", "keepRecnt": 1 }), None).unwrap_err();
        assert!(err.message.ends_with("did you mean keepRecent?"), "{err}");
    }

    #[test]
    fn the_keys_are_the_fields_and_the_defaults_are_the_configs() {
        assert_eq!(StrategyName::Budget.keys(), ["name", "keepRecent", "summaryPercent", "idTemplate"]);
        assert!(StrategyName::Sections.keys().contains(&"useQA"));
        for strategy in CompactStrategy::defaults().all() {
            // Every default is a valid setting, read back to the very default config.
            let value = serde_json::to_value(&strategy).unwrap();
            let read = CompactStrategy::from_json(&value).unwrap();
            let max = matches!(read, CompactStrategy::Budget(_)).then_some(Amount::Tokens(1));
            let name = value["name"].as_str().and_then(StrategyName::from_name).unwrap();
            // Every setting shows its default: a size in one of its units, and only the
            // settings that have none (one summary request) left out.
            for key in name.keys() {
                let sibling = key
                    .strip_suffix("Tokens")
                    .map(|k| format!("{k}Bytes"))
                    .or_else(|| key.strip_suffix("Bytes").map(|k| format!("{k}Tokens")));
                let shown = value.get(key).is_some() || sibling.is_some_and(|s| value.get(&s).is_some());
                assert!(shown || ["summarizerMaxTokens"].contains(key), "{key} has no default in {value}");
            }
            assert_eq!(
                read.to_config(max, OnError::Rollback, None).unwrap(),
                CompactStrategy::named(name).to_config(max, OnError::Rollback, None).unwrap(),
                "{value}"
            );
        }
    }
}
