//! JSON in, JSON out: what every binding (and a Rust user holding provider JSON) runs.
//! Read the chain in its format (given or detected), compact it with the chosen strategy
//! under the provider's rules, and write it back in the format and container it came in.
//! An error about a message as read is pointed at the caller's own JSON.

use crate::format::{self, Format, FormatError};
use crate::measure::Meter;
use crate::message::Message;
use crate::repair::RepairOptions;
use crate::reuse::{self, ReuseItem};
use crate::settings::CompactSettings;
use crate::strategy::run::{self, CompactOptions, NewSystem, StrategyConfig};
use crate::strategy::{CompactError, Report};
use crate::summarize::{Controls, Summarizer};
use serde_json::Value;

/// What [`compact_json`] gives back.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonOutput {
    /// The compacted chain in the format and container it was read in; the input itself
    /// when nothing changed. With a reuse plan, the output without its message array
    /// (`null` for a bare array; see [`crate::reuse`]).
    pub messages: Value,
    /// Whether any content changed; `false` after a rollback or with nothing to do.
    pub changed: bool,
    /// The format read, and written back.
    pub format: Format,
    pub report: Report,
    /// The output message array as input indices and new messages, when asked for.
    pub reuse: Option<Vec<ReuseItem>>,
}

/// A failed [`compact_json`]: the error, and where in the caller's JSON its message came
/// from (a provider message may be read as several; `None` when no message is at fault
/// or the place cannot be told).
#[derive(Debug, Clone, PartialEq)]
pub struct JsonError {
    pub error: CompactError,
    pub input_path: Option<String>,
}

impl From<FormatError> for JsonError {
    fn from(e: FormatError) -> Self {
        JsonError { error: CompactError::Input(e.into()), input_path: None }
    }
}

/// Reads messages in `format`, or in the detected format when `None`.
pub fn read_json(value: &Value, format: Option<Format>) -> Result<(Vec<Message>, Format), FormatError> {
    match format {
        Some(format) => format::read(value, format).map(|messages| (messages, format)),
        None => format::read_auto(value),
    }
}

/// Reads, compacts with the chosen strategy, repairs for the provider and writes back in
/// the format and container read.
pub async fn compact_json<S: Summarizer + ?Sized>(
    value: &Value,
    settings: &CompactSettings,
    summarizer: &S,
    controls: &Controls,
    meter: Meter<'_>,
) -> Result<JsonOutput, JsonError> {
    let (messages, format) = read_json(value, settings.format)?;
    let provider = settings.provider.unwrap_or_else(|| crate::convert::provider_of(format));
    // The output has the input's container: summaries go where that container holds them.
    let new_system =
        if format::may_gain_system(value, format, &messages) { NewSystem::Keep } else { NewSystem::AsUser };
    let options = CompactOptions {
        strategy: settings.strategy.clone(),
        repair: RepairOptions::for_provider(provider),
        new_system,
    };
    // The caller's focus reaches every prompt.
    let focused;
    let controls = match &settings.instructions {
        Some(focus) => {
            focused = Controls { focus: Some(focus.clone()), ..controls.clone() };
            &focused
        }
        None => controls,
    };
    let result = run::compact(&messages, &options, summarizer, controls, meter).await.map_err(|error| {
        let input_path = match &error {
            CompactError::Input(e) => crate::locate::error_path(e, value, format, messages.len()),
            _ => None,
        };
        JsonError { error, input_path }
    })?;
    // Unchanged (nothing to do, or a rollback): the caller's own JSON goes back as it came.
    let (messages, reuse) = if result.changed {
        let written = format::write_like(&result.messages, format, value)?;
        if settings.reuse {
            reuse::plan(value, written, format)
        } else {
            (written, None)
        }
    } else if settings.reuse {
        // The caller hands back its own input.
        (Value::Null, None)
    } else {
        (value.clone(), None)
    };
    let report = Report { format, ..result.report };
    Ok(JsonOutput { messages, changed: result.changed, format, report, reuse })
}

/// Bytes and estimated tokens of every message of the chain `value` holds, in `format`
/// (detected when `None`).
pub fn measure_json(value: &Value, format: Option<Format>) -> Result<crate::inspect::ChainMeasure, FormatError> {
    let (messages, format) = read_json(value, format)?;
    Ok(crate::inspect::measure(&messages, format))
}

/// Whether [`compact_json`] with this strategy would change anything now; no summarizer
/// is called.
pub fn needs_compaction_json(
    value: &Value,
    format: Option<Format>,
    strategy: &StrategyConfig,
    meter: Meter<'_>,
) -> Result<bool, FormatError> {
    let (messages, _) = read_json(value, format)?;
    Ok(run::needs_compaction(&messages, strategy, meter))
}
