//! `compact`: fold old content of a conversation into summaries made by a JS summarizer.
//!
//! The work happens in [`compact_value`], plain Rust over any core [`Summarizer`] that
//! the host tests exercise; the export reads the options (exact paths on every wrong
//! one), links the `AbortSignal`, and wraps the JS summarizer in the bridge.
//!
//! For now the only strategy is `sections`. The result comes back in the format the
//! messages were read in (OpenAI in, OpenAI out), and says which in `format`.

use crate::bridge::{AbortLink, AbortSignalLike, JsSummarizer, JsSummarizerFn};
use crate::convert::{describe, format_option, messages_from_js, read_messages, to_js};
use crate::error::{BindingError, JsResult};
use contextfold::ast::IdTemplate;
use contextfold::format::Format;
use contextfold::strategy::sections::{self, SectionsConfig};
use contextfold::strategy::{OnError, Report};
use contextfold::summarize::extractive::ExtractiveSummarizer;
use contextfold::summarize::{CancelFlag, Controls, Summarizer, DEFAULT_CONCURRENCY};
use js_sys::Reflect;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(typescript_custom_section)]
const TS_COMPACT: &str = r#"
/** Settings of the `sections` strategy; defaults in brackets. */
export interface SectionsStrategy {
    name: "sections";
    /** Rotate the last `keepQASections` sections when they outgrow `lastSecBytes` [true]. */
    preserveLast?: boolean;
    /** Budget of each of those sections, in bytes [51200]. */
    lastSecBytes?: number;
    /** A body pair above this size is summarized on its own, never the last one [16384]. */
    maxBpBytes?: number;
    /** Fold older sections into one QA section when too many or too large [false]. */
    useQA?: boolean;
    maxQASections?: number;
    maxQABytes?: number;
    /** Summarize the folded user messages instead of concatenating them [false]. */
    summHumanInQA?: boolean;
    /** Recent sections kept out of section summarization, at least 1 [1]. */
    keepQASections?: number;
    /** Share of `lastSecBytes` left free after a rotation, 0 to 100 [25]. */
    reservePercent?: number;
    /** Content smaller than this is never sent to the summarizer [512]. */
    minSummarizeBytes?: number;
    /** Template of the ids of created summarization tool calls. */
    idTemplate?: string;
}

/** A strategy name, or a name with settings. */
export type CompactStrategy = "sections" | SectionsStrategy;

/**
 * On a failed summary call: `"rollback"` returns the original chain with the errors in
 * the report (default), `"throw"` throws a `ContextfoldError` with code
 * `summarizer_failed` and an `errors` array, `"partial"` keeps every summary that
 * succeeded.
 */
export type OnError = "rollback" | "throw" | "partial";

/** Options of `compact`. Unknown keys are ignored; `null` counts as absent. */
export interface CompactOptions {
    /** The format of `messages`; `"auto"` (default) detects it. */
    format?: "auto" | ChainFormat;
    /** Default `"sections"`. */
    strategy?: CompactStrategy;
    /** Makes the summaries; the built-in `extractiveSummarizer()` when absent. */
    summarizer?: Summarizer;
    /** Summary calls in flight at most, at least 1 [4]. */
    concurrency?: number;
    /** Time limit of each summary call, in ms: a late call fails with kind `"timeout"`. */
    timeoutMs?: number;
    /** Aborting it cancels the compaction: the original chain comes back with `report.cancelled`. */
    signal?: AbortSignal;
    onError?: OnError;
}

/** A message in contextfold's native, provider-neutral format. */
export interface NativeMessage {
    role: "system" | "user" | "assistant" | "tool";
    parts: Array<{ type: string; [key: string]: unknown }>;
    [key: string]: unknown;
}

/** Why a summary call gave nothing usable. */
export type SummarizeErrorKind = "failed" | "empty" | "invalidResult" | "timeout" | "cancelled";

export interface SummarizeError {
    kind: SummarizeErrorKind;
    message: string;
    /** The `id` of the request. */
    request: number;
}

export interface Totals {
    messages: number;
    bytes: number;
    tokens: number;
}

/** One thing the strategy did (or declined to do) to a section. */
export type SectionAction =
    | { action: "sectionSummarized"; pairs: number; bytesBefore: number; bytesAfter: number }
    | { action: "pairSummarized"; pair: number; bytesBefore: number; bytesAfter: number }
    | { action: "rotated"; pairsSummarized: number; pairsKept: number; bytesBefore: number; bytesAfter: number }
    | { action: "foldedIntoQa"; bytesBefore: number }
    | { action: "noGain"; kind: SummaryRequestKind; bytesBefore: number; summaryBytes: number }
    | { action: "failed"; kind: SummaryRequestKind; request: number };

export interface SectionReport {
    /** Index of the section in the (repaired) input. */
    section: number;
    actions: SectionAction[];
}

export interface CompactReport {
    strategy: "sections";
    before: Totals;
    after: Totals;
    /** Summary calls made. */
    calls: number;
    /** Sequential rounds of calls. */
    waves: number;
    /** Every summary call that failed. */
    errors: SummarizeError[];
    /** Repairs parsing made to the input. */
    repairs: RepairAction[];
    sections: SectionReport[];
    /** The result is the original chain because of errors or cancellation. */
    rolledBack: boolean;
    cancelled: boolean;
}

/** What `compact` returns. */
export interface CompactResult {
    /**
     * The compacted chain, in the format it was read in (see `format`): an array of
     * messages, or for Anthropic input that had a system prompt, `{ system, messages }`.
     */
    messages: unknown;
    /** Whether any content changed; `false` after a rollback or with nothing to do. */
    changed: boolean;
    /** The format `messages` were read in, and are written back in. */
    format: ChainFormat;
    report: CompactReport;
}
"#;

/// Settings of the `sections` strategy as JS gives them; absent ones keep the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct SectionsSettings {
    pub name: String,
    #[serde(default, rename = "preserveLast")]
    pub preserve_last: Option<bool>,
    #[serde(default, rename = "lastSecBytes")]
    pub last_sec_bytes: Option<usize>,
    #[serde(default, rename = "maxBpBytes")]
    pub max_bp_bytes: Option<usize>,
    #[serde(default, rename = "useQA")]
    pub use_qa: Option<bool>,
    #[serde(default, rename = "maxQASections")]
    pub max_qa_sections: Option<usize>,
    #[serde(default, rename = "maxQABytes")]
    pub max_qa_bytes: Option<usize>,
    #[serde(default, rename = "summHumanInQA")]
    pub summ_human_in_qa: Option<bool>,
    #[serde(default, rename = "keepQASections")]
    pub keep_qa_sections: Option<usize>,
    #[serde(default, rename = "reservePercent")]
    pub reserve_percent: Option<usize>,
    #[serde(default, rename = "minSummarizeBytes")]
    pub min_summarize_bytes: Option<usize>,
    #[serde(default, rename = "idTemplate")]
    pub id_template: Option<String>,
}

impl SectionsSettings {
    /// The core config: defaults overridden by what is given, after range checks.
    pub fn to_config(&self, on_error: OnError) -> Result<SectionsConfig, BindingError> {
        if self.name != "sections" {
            return Err(invalid(".strategy.name", format!("unknown strategy {:?}; expected \"sections\"", self.name)));
        }
        if self.keep_qa_sections == Some(0) {
            return Err(invalid(".strategy.keepQASections", "must be at least 1"));
        }
        if self.reserve_percent.is_some_and(|p| p > 100) {
            return Err(invalid(".strategy.reservePercent", "must be 0 to 100"));
        }
        if let Some(template) = &self.id_template {
            IdTemplate::parse(template).map_err(|e| invalid(".strategy.idTemplate", e.to_string()))?;
        }
        let d = SectionsConfig::default();
        Ok(SectionsConfig {
            preserve_last: self.preserve_last.unwrap_or(d.preserve_last),
            last_sec_bytes: self.last_sec_bytes.unwrap_or(d.last_sec_bytes),
            max_bp_bytes: self.max_bp_bytes.unwrap_or(d.max_bp_bytes),
            use_qa: self.use_qa.unwrap_or(d.use_qa),
            max_qa_sections: self.max_qa_sections.unwrap_or(d.max_qa_sections),
            max_qa_bytes: self.max_qa_bytes.unwrap_or(d.max_qa_bytes),
            summ_human_in_qa: self.summ_human_in_qa.unwrap_or(d.summ_human_in_qa),
            keep_qa_sections: self.keep_qa_sections.unwrap_or(d.keep_qa_sections),
            reserve_percent: self.reserve_percent.unwrap_or(d.reserve_percent),
            min_summarize_bytes: self.min_summarize_bytes.unwrap_or(d.min_summarize_bytes),
            id_template: self.id_template.clone().unwrap_or(d.id_template),
            on_error,
        })
    }
}

/// The options of `compact` other than the JS objects (summarizer, signal).
#[derive(Debug, Clone, PartialEq)]
pub struct CompactSettings {
    /// `None`: auto-detect.
    pub format: Option<Format>,
    pub sections: SectionsConfig,
    pub concurrency: usize,
    pub timeout_ms: Option<u64>,
}

impl Default for CompactSettings {
    fn default() -> Self {
        CompactSettings {
            format: None,
            sections: SectionsConfig::default(),
            concurrency: DEFAULT_CONCURRENCY,
            timeout_ms: None,
        }
    }
}

/// What `compact` returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactOutput {
    /// The messages, written in the format they were read in.
    pub messages: Value,
    pub changed: bool,
    pub format: &'static str,
    pub report: Report,
}

/// Compacts a conversation, folding old content into summaries.
///
/// `messages` is an array of messages in any supported format, or the JSON text of one;
/// `options.summarizer` is called with each `SummaryRequest` (and `{ signal }`) and
/// must resolve to the summary text (the built-in extractive summarizer when absent).
/// Returns the compacted chain in the format it was read in, whether it changed, and a
/// report. A failed summary call rolls back by default
/// (`onError`); bad input or options reject with a `ContextfoldError`.
///
/// @example
/// ```js
/// const { messages, changed, report } = await compact(chain, {
///   summarizer: async (request) => callMyModel(request.prompt),
///   concurrency: 4,
///   timeoutMs: 30_000,
/// });
/// ```
#[wasm_bindgen(js_name = compact, unchecked_return_type = "CompactResult")]
pub async fn compact(
    #[wasm_bindgen(unchecked_param_type = "unknown", param_description = "an array of messages, or its JSON text")]
    messages: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "CompactOptions")] options: JsValue,
) -> JsResult<JsValue> {
    let JsCompactOptions { settings, summarizer, signal } = JsCompactOptions::read(&options)?;
    // The built-in summarizer runs in Rust: no crossing into JS for every call.
    let builtin = match &summarizer {
        None => Some(ExtractiveSummarizer::default()),
        Some(f) => crate::extractive::from_marked(f),
    };
    let value = messages_from_js(messages)?;
    let controls =
        Controls { concurrency: settings.concurrency, cancel: CancelFlag::new(), timeout_ms: settings.timeout_ms };
    // Dropped (listener removed) when this function returns, whatever the outcome.
    let _abort = match &signal {
        Some(signal) => Some(
            AbortLink::attach(signal.clone(), &controls.cancel)
                .map_err(|_| invalid(".signal", "not an AbortSignal"))?,
        ),
        None => None,
    };
    let output = match (builtin, summarizer) {
        (Some(extractive), _) => compact_value(&value, &settings, &extractive, &controls).await?,
        (None, Some(function)) => {
            let bridge = JsSummarizer::new(function, signal);
            compact_value(&value, &settings, &bridge, &controls).await?
        }
        (None, None) => return Err(invalid(".summarizer", "required").into()),
    };
    to_js(&output)
}

/// The Rust side of `compact`: read, compact with the sections strategy, write back in
/// the format read.
pub async fn compact_value<S: Summarizer + ?Sized>(
    value: &Value,
    settings: &CompactSettings,
    summarizer: &S,
    controls: &Controls,
) -> Result<CompactOutput, BindingError> {
    let (messages, format) = read_messages(value, settings.format)?;
    let result = sections::compact(&messages, &settings.sections, summarizer, controls).await?;
    // Unchanged (nothing to do, or a rollback): the caller's own JSON goes back as it came.
    let messages = if result.changed {
        contextfold::format::write(&result.messages, format).map_err(|e| BindingError::Core(e.into()))?
    } else {
        value.clone()
    };
    Ok(CompactOutput { messages, changed: result.changed, format: format.as_str(), report: result.report })
}

/// The options object, read field by field so that every error has its path.
struct JsCompactOptions {
    settings: CompactSettings,
    /// `None`: the built-in extractive summarizer.
    summarizer: Option<JsSummarizerFn>,
    signal: Option<AbortSignalLike>,
}

impl JsCompactOptions {
    fn read(options: &JsValue) -> Result<JsCompactOptions, BindingError> {
        if options.is_undefined() || options.is_null() {
            return Ok(JsCompactOptions { settings: CompactSettings::default(), summarizer: None, signal: None });
        }
        if !options.is_object() {
            return Err(invalid("", "expected an object"));
        }
        let summarizer = match get(options, "summarizer")? {
            None => None,
            Some(f) => Some(f.dyn_into::<JsSummarizerFn>().map_err(|_| invalid(".summarizer", "expected a function"))?),
        };
        let signal = match get(options, "signal")? {
            None => None,
            Some(s) if is_abort_signal(&s) => Some(s.unchecked_into::<AbortSignalLike>()),
            Some(_) => return Err(invalid(".signal", "expected an AbortSignal")),
        };
        let format = format_option(field::<String>(options, "format")?.as_deref())?;
        let on_error = match field::<String>(options, "onError")?.as_deref() {
            None | Some("rollback") => OnError::Rollback,
            Some("throw") => OnError::Throw,
            Some("partial") => OnError::Partial,
            Some(other) => {
                return Err(invalid(
                    ".onError",
                    format!("unknown value {other:?}; expected \"rollback\", \"throw\" or \"partial\""),
                ))
            }
        };
        let strategy = match get(options, "strategy")? {
            None => SectionsSettings { name: "sections".to_string(), ..SectionsSettings::default() },
            Some(v) if v.is_string() => {
                let name = v.as_string().unwrap_or_default();
                if name != "sections" {
                    return Err(invalid(".strategy", format!("unknown strategy {name:?}; expected \"sections\"")));
                }
                SectionsSettings { name, ..SectionsSettings::default() }
            }
            Some(v) if v.is_object() => deserialize_at(v, ".strategy")?,
            Some(_) => return Err(invalid(".strategy", "expected a strategy name or { name, ...settings }")),
        };
        let sections = strategy.to_config(on_error)?;
        let concurrency = match field::<usize>(options, "concurrency")? {
            None => DEFAULT_CONCURRENCY,
            Some(0) => return Err(invalid(".concurrency", "must be at least 1")),
            Some(n) => n,
        };
        let timeout_ms = match field::<u64>(options, "timeoutMs")? {
            Some(0) => return Err(invalid(".timeoutMs", "must be at least 1")),
            t => t,
        };
        Ok(JsCompactOptions {
            settings: CompactSettings { format, sections, concurrency, timeout_ms },
            summarizer,
            signal,
        })
    }
}

fn invalid(path: &str, message: impl Into<String>) -> BindingError {
    BindingError::InvalidOption { path: path.to_string(), message: message.into() }
}

/// `options[key]`, `None` when undefined or null. A throwing getter is an invalid option.
fn get(options: &JsValue, key: &str) -> Result<Option<JsValue>, BindingError> {
    let value = Reflect::get(options, &JsValue::from_str(key))
        .map_err(|e| invalid(&format!(".{key}"), crate::bridge::describe_js(&e)))?;
    Ok((!value.is_undefined() && !value.is_null()).then_some(value))
}

/// `options[key]` converted to `T`, with the path of any error.
fn field<T: DeserializeOwned>(options: &JsValue, key: &str) -> Result<Option<T>, BindingError> {
    get(options, key)?.map(|v| deserialize_at(v, &format!(".{key}"))).transpose()
}

/// `value` converted to `T`; errors are located under `path` (e.g. `.strategy.useQA`).
fn deserialize_at<T: DeserializeOwned>(value: JsValue, path: &str) -> Result<T, BindingError> {
    serde_path_to_error::deserialize(serde_wasm_bindgen::Deserializer::from(value)).map_err(|e| {
        let inner = e.path().to_string();
        let at = if inner == "." { path.to_string() } else { format!("{path}.{}", inner.trim_start_matches('.')) };
        invalid(&at, describe(e.inner()))
    })
}

/// Duck-typed: an object with `addEventListener` and `removeEventListener` functions.
fn is_abort_signal(value: &JsValue) -> bool {
    value.is_object()
        && ["addEventListener", "removeEventListener"]
            .iter()
            .all(|m| Reflect::get(value, &JsValue::from_str(m)).is_ok_and(|f| f.is_function()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use contextfold::summarize::{SummarizeError, SummaryRequest};
    use futures::executor::block_on;
    use serde_json::json;
    use std::cell::RefCell;

    /// Answers every request with a short fixed text and records the requests.
    #[derive(Default)]
    struct Fixed {
        requests: RefCell<Vec<SummaryRequest>>,
    }

    impl Summarizer for Fixed {
        async fn summarize(&self, request: SummaryRequest) -> Result<String, SummarizeError> {
            self.requests.borrow_mut().push(request);
            Ok("short summary".to_string())
        }
    }

    struct Failing;

    impl Summarizer for Failing {
        async fn summarize(&self, _: SummaryRequest) -> Result<String, SummarizeError> {
            Err(SummarizeError::failed("boom"))
        }
    }

    /// Three sections of OpenAI messages, each with a long answer.
    fn chain() -> Value {
        let long = "lorem ipsum dolor sit amet ".repeat(60);
        let mut messages = vec![json!({ "role": "system", "content": "be brief" })];
        for i in 0..3 {
            messages.push(json!({ "role": "user", "content": format!("question {i}") }));
            messages.push(json!({ "role": "assistant", "content": format!("{long} {i}") }));
            messages.push(json!({ "role": "user", "content": "more?" }));
        }
        messages.pop();
        Value::Array(messages)
    }

    fn settings(on_error: OnError) -> CompactSettings {
        CompactSettings {
            sections: SectionsConfig { on_error, ..SectionsConfig::default() },
            ..CompactSettings::default()
        }
    }

    #[test]
    fn compacts_older_sections_and_writes_them_back_in_the_input_format() {
        let summarizer = Fixed::default();
        let out =
            block_on(compact_value(&chain(), &settings(OnError::Rollback), &summarizer, &Controls::default())).unwrap();
        assert!(out.changed);
        assert_eq!(out.format, "openai");
        assert!(out.report.after.bytes < out.report.before.bytes);
        assert!(!summarizer.requests.borrow().is_empty());
        let messages = contextfold::format::openai::read(&out.messages).unwrap();
        assert_eq!(messages.len(), out.report.after.messages);
    }

    #[test]
    fn rollback_keeps_the_original_and_throw_becomes_summarizer_failed() {
        let out =
            block_on(compact_value(&chain(), &settings(OnError::Rollback), &Failing, &Controls::default())).unwrap();
        assert!(!out.changed);
        assert!(out.report.rolled_back);
        assert_eq!(out.report.errors.len(), out.report.calls);

        let err =
            block_on(compact_value(&chain(), &settings(OnError::Throw), &Failing, &Controls::default())).unwrap_err();
        assert_eq!(err.code(), "summarizer_failed");
        assert!(matches!(err, BindingError::Summarizer(ref list) if !list.is_empty()));
    }

    #[test]
    fn bad_input_keeps_its_code_and_path() {
        let bad = json!([{ "role": "user", "parts": "not a list" }]);
        let mut s = settings(OnError::Rollback);
        s.format = Some(Format::Native);
        let err = block_on(compact_value(&bad, &s, &Fixed::default(), &Controls::default())).unwrap_err();
        assert_eq!(err.code(), "invalid_shape");
        assert_eq!(err.path().as_deref(), Some("[0].parts"));
    }

    #[test]
    fn settings_are_checked_with_their_path() {
        let base = SectionsSettings { name: "sections".to_string(), ..SectionsSettings::default() };
        let config = SectionsSettings { use_qa: Some(true), keep_qa_sections: Some(2), ..base.clone() }
            .to_config(OnError::Partial)
            .unwrap();
        assert!(config.use_qa);
        assert_eq!(config.keep_qa_sections, 2);
        assert_eq!(config.on_error, OnError::Partial);
        assert_eq!(config.last_sec_bytes, SectionsConfig::default().last_sec_bytes);

        let cases = [
            (SectionsSettings { name: "window".to_string(), ..base.clone() }, "options.strategy.name"),
            (SectionsSettings { keep_qa_sections: Some(0), ..base.clone() }, "options.strategy.keepQASections"),
            (SectionsSettings { reserve_percent: Some(101), ..base.clone() }, "options.strategy.reservePercent"),
        ];
        for (settings, path) in cases {
            let err = settings.to_config(OnError::Rollback).unwrap_err();
            assert_eq!(err.code(), "invalid_option");
            assert_eq!(err.path().as_deref(), Some(path));
        }
    }
}
