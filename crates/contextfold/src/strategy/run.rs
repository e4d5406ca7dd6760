//! One entry point over every strategy: pick the strategy, compact, then finish with the
//! provider-validity pass ([`crate::repair`]) so every result is a chain the target
//! provider accepts.

use super::budget::{self, BudgetConfig};
use super::sections::{self, SectionsConfig};
use super::tiers::{self, TiersConfig};
use super::window::{self, WindowConfig};
use super::{CompactError, CompactResult, Totals};
use crate::measure::Meter;
use crate::message::Message;
use crate::repair::{repair, repair_compacted, validate, RepairOptions};
use crate::summarize::{Controls, Summarizer};

/// A strategy with its settings.
#[derive(Debug, Clone, PartialEq)]
pub enum StrategyConfig {
    Sections(SectionsConfig),
    Window(WindowConfig),
    Tiers(TiersConfig),
    Budget(BudgetConfig),
}

impl StrategyConfig {
    pub fn name(&self) -> &'static str {
        match self {
            StrategyConfig::Sections(_) => "sections",
            StrategyConfig::Window(_) => "window",
            StrategyConfig::Tiers(_) => "tiers",
            StrategyConfig::Budget(_) => "budget",
        }
    }
}

impl Default for StrategyConfig {
    fn default() -> Self {
        StrategyConfig::Sections(SectionsConfig::default())
    }
}

/// Everything `compact` needs besides the messages, the summarizer and the controls.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompactOptions {
    pub strategy: StrategyConfig,
    /// The validity pass the result finishes with (provider rules).
    pub repair: RepairOptions,
}

/// Compacts with the chosen strategy, then repairs the result for the provider: a
/// changed chain always goes through the repair pass; an unchanged one (nothing to do,
/// or a rollback) comes back exactly as given when the provider accepts it, and
/// repaired (every step listed in `report.provider_repairs`) when it does not, so the
/// output is always valid for the provider.
pub async fn compact<S: Summarizer + ?Sized>(
    messages: &[Message],
    options: &CompactOptions,
    summarizer: &S,
    controls: &Controls,
    meter: Meter<'_>,
) -> Result<CompactResult, CompactError> {
    let mut result = match &options.strategy {
        StrategyConfig::Sections(c) => sections::compact(messages, c, summarizer, controls).await?,
        StrategyConfig::Window(c) => window::compact(messages, c, summarizer, controls, meter).await?,
        StrategyConfig::Tiers(c) => tiers::compact(messages, c, summarizer, controls, meter).await?,
        StrategyConfig::Budget(c) => budget::compact(messages, c, summarizer, controls, meter).await?,
    };
    let repaired = if result.changed {
        repair_compacted(messages, &result.messages, &options.repair)
    } else if validate(messages, options.repair.provider).is_empty() {
        return Ok(result);
    } else {
        repair(messages, &options.repair)
    };
    if !repaired.steps.is_empty() {
        result.messages = repaired.messages;
        result.report.after = Totals::of(&result.messages);
        result.report.provider_repairs = repaired.steps;
        result.changed = result.messages != messages;
        // The budget is hard: a repair that pushes the result over it (a placeholder
        // answer, say) fails the call rather than breaking the guarantee.
        if let StrategyConfig::Budget(c) = &options.strategy {
            let cost = meter.total(c.max.unit(), &result.messages);
            if result.changed && !result.report.cancelled && cost > c.max.value() {
                let reason = format!(
                    "the provider repair pass ({} step(s)) made the result {}",
                    result.report.provider_repairs.len(),
                    c.max.with_value(cost)
                );
                return Err(CompactError::Budget { max: c.max, reason });
            }
        }
    }
    Ok(result)
}

/// The cheap trigger check: whether `compact` with these settings would do anything.
pub fn needs_compaction(messages: &[Message], strategy: &StrategyConfig, meter: Meter<'_>) -> bool {
    match strategy {
        StrategyConfig::Sections(c) => sections::needs_compaction(messages, c),
        StrategyConfig::Window(c) => window::needs_compaction(messages, c, meter),
        StrategyConfig::Tiers(c) => tiers::needs_compaction(messages, c),
        StrategyConfig::Budget(c) => !meter.fits(c.max, messages),
    }
}
