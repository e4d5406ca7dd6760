//! `compact`: fold old content of a conversation into summaries made by a JS summarizer.
//!
//! The work happens in [`compact_value`], plain Rust over any core [`Summarizer`] that
//! the host tests exercise; the export reads the options (exact paths on every wrong
//! one), links the `AbortSignal`, and wraps the JS summarizer in the bridge.
//!
//! Every strategy (`sections`, `window`, `tiers`, `budget`) runs through the core's
//! dispatcher, which finishes with the provider-validity pass for the format read. The
//! result comes back in the format the messages were read in (OpenAI in, OpenAI out),
//! and says which in `format`. `needsCompaction` is the cheap trigger check.

use crate::bridge::{AbortLink, AbortSignalLike, JsSummarizer, JsSummarizerFn};
use crate::convert::{format_option, js_text, messages_and_text_from_js, messages_from_js, to_js, JsTextPieces};
use crate::error::{BindingError, JsResult};
use crate::options::{check_keys, invalid, provider_option, COMPACT_KEYS};
use crate::report::{CompactReport, ProgressEvent};
use crate::token_counter::JsTokenCounter;
use crate::types::ChainFormat;
use contextfold::measure::Meter;
use contextfold::settings::{CompactStrategy, StrategyName};
use contextfold::strategy::run::StrategyConfig;
use contextfold::strategy::OnError;
use contextfold::summarize::extractive::ExtractiveSummarizer;
use contextfold::summarize::{CancelFlag, Controls, Progress, ProgressSink, Summarizer, DEFAULT_CONCURRENCY};
use js_sys::Reflect;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use tsify::Tsify;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub use contextfold::settings::CompactSettings;

/// The provider whose rules a chain read in a format must keep.
pub use contextfold::convert::provider_of;

/// What `compact` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[tsify(type_params = "M = unknown")]
pub struct CompactResult {
    /// The compacted chain, in the format (see `format`) and the container it was read
    /// in: an array stays an array, a request object (`{ system, messages, ...}`) stays
    /// one with its other fields. `M` is the type of the input (see `compact`).
    #[tsify(type = "M")]
    pub messages: Value,
    /// Whether any content changed; `false` after a rollback or with nothing to do.
    pub changed: bool,
    /// The format `messages` were read in, and are written back in.
    pub format: ChainFormat,
    pub report: CompactReport,
}

/// What the `compact` export hands the package's JS layer: the result, and the reuse
/// plan it asked for (which it removes before the caller sees the result).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompactOutput {
    /// With a reuse plan, `result.messages` is the output without its message array
    /// (`null` for a bare array).
    #[serde(flatten)]
    pub result: CompactResult,
    /// The output message array as input indices and new messages (see [`contextfold::reuse`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reuse: Option<Vec<contextfold::reuse::ReuseItem>>,
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
    let JsCompactOptions { settings, summarizer, signal, counter, progress } = JsCompactOptions::read(&options)?;
    // The built-in summarizer runs in Rust: no crossing into JS for every call.
    let builtin = match &summarizer {
        None => Some(ExtractiveSummarizer::default()),
        Some(f) => crate::extractive::from_marked(f),
    };
    // JSON text with a reuse plan (what the JS layer sends) is parsed as it is read.
    let input = if settings.reuse && messages.is_string() {
        Input::Text(messages)
    } else {
        Input::Tree(messages_and_text_from_js(messages)?.1)
    };
    let controls = Controls {
        concurrency: settings.concurrency,
        cancel: CancelFlag::new(),
        timeout_ms: settings.timeout_ms,
        progress: progress.clone().map(progress_sink),
        focus: None,
    };
    // A failed token counter fails the compaction: no summary call starts after it.
    if let Some(counter) = &counter {
        counter.cancel_on_failure(controls.cancel.clone());
    }
    // Dropped (listener removed) when this function returns, whatever the outcome.
    let _abort = match &signal {
        Some(signal) => Some(
            AbortLink::attach(signal.clone(), &controls.cancel)
                .map_err(|_| invalid(".signal", "not an AbortSignal"))?,
        ),
        None => None,
    };
    let meter = match &counter {
        Some(c) => Meter::new(c),
        None => Meter::default(),
    };
    let chosen = match (builtin, summarizer) {
        (Some(extractive), _) => Either::Builtin(extractive),
        (None, Some(function)) => Either::Js(JsSummarizer::new(function, signal)),
        (None, None) => return Err(invalid(".summarizer", "required").into()),
    };
    let output = match input {
        Input::Text(messages) => {
            // The caller's string stays in JS: encoded a piece at a time each time it is
            // read, never held whole in wasm.
            let again =
                || JsTextPieces::of(&messages).map(|p| Box::new(p) as Box<dyn contextfold::text_pieces::TextPieces>);
            let input = contextfold::pipeline::InputText::from_host(&again);
            let streamed = contextfold::pipeline::compact_text(input, &settings, &chosen, &controls, meter).await;
            let output = match streamed {
                Some(output) => output,
                // Not a bare list, or not JSON: parsed whole (and its error reported).
                None => {
                    let text = js_text(&messages).ok_or_else(|| invalid("", "not a string"))?;
                    let value = contextfold::format::parse_json(&text).map_err(BindingError::from)?;
                    contextfold::pipeline::compact_json_text(&text, value, &settings, &chosen, &controls, meter).await
                }
            };
            output.map(CompactOutput::from).map_err(BindingError::from)
        }
        Input::Tree(value) => compact_value(&value, &settings, &chosen, &controls, meter).await,
    };
    // A failed token counter outranks whatever was computed with the stand-in estimate.
    if let Some(counter) = &counter {
        counter.check()?;
    }
    to_js(&output?)
}

/// The messages `compact` was given: JSON text still to parse, or the parsed tree.
enum Input {
    /// The caller's JSON string, encoded as it is read.
    Text(JsValue),
    Tree(Value),
}

/// Calls the caller's `onProgress`. What it throws is ignored: a progress bar must not
/// be able to fail a compaction.
fn notify(f: &js_sys::Function, event: &ProgressEvent) {
    if let Ok(value) = to_js(event) {
        let _ = f.call1(&JsValue::UNDEFINED, &value);
    }
}

fn progress_sink(f: js_sys::Function) -> ProgressSink {
    ProgressSink(std::rc::Rc::new(move |event: Progress| notify(&f, &event)))
}

/// The built-in or a JS summarizer behind one type, so that every strategy is compiled
/// once into the wasm rather than once per summarizer type (about a third of its size).
enum Either {
    Builtin(ExtractiveSummarizer),
    Js(JsSummarizer),
}

impl Summarizer for Either {
    async fn summarize(
        &self,
        request: contextfold::summarize::SummaryRequest,
    ) -> Result<String, contextfold::summarize::SummarizeError> {
        match self {
            Either::Builtin(s) => s.summarize(request).await,
            Either::Js(s) => s.summarize(request).await,
        }
    }

    fn reads_messages(&self) -> bool {
        match self {
            Either::Builtin(s) => s.reads_messages(),
            Either::Js(s) => s.reads_messages(),
        }
    }

    async fn summarize_draft(
        &self,
        request: contextfold::summarize::SummaryRequest,
        draft: contextfold::prompt::Draft<'_>,
    ) -> Result<String, contextfold::summarize::SummarizeError> {
        match self {
            Either::Builtin(s) => s.summarize_draft(request, draft).await,
            Either::Js(s) => s.summarize_draft(request, draft).await,
        }
    }
}

/// Whether `compact` with these options would change anything now: the cheap trigger
/// check for chat UIs and middleware (no summarizer is called). Per strategy: `sections`
/// would make a summary call; `window` is over its threshold or window, or holds an
/// oversized tool result; `tiers` has more than `autoThreshold` messages (and `auto`) and
/// something older than the recent tier to summarize (under it, `compact` changes nothing);
/// `budget` is over `maxTokens` / `maxBytes`. Whatever the strategy: the chain breaks a
/// rule of the provider that `compact`'s repair pass mends (a whitespace-only text block).
/// False while a turn waits for its tool results. The options are `compact`'s, read and
/// checked by the same reader (every key and value).
///
/// @example
/// ```js
/// if (needsCompaction(history, { strategy: "budget", maxTokens: 100_000 })) {
///   history = (await compact(history, { strategy: "budget", maxTokens: 100_000 })).messages;
/// }
/// ```
#[wasm_bindgen(js_name = needsCompaction)]
pub fn needs_compaction(
    #[wasm_bindgen(unchecked_param_type = "unknown")] messages: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "NeedsCompactionOptions")] options: JsValue,
) -> JsResult<bool> {
    let trigger = TriggerOptions::read(&options)?;
    let value = messages_from_js(messages)?;
    let needed = contextfold::pipeline::needs_compaction_json(
        &value,
        trigger.format,
        &trigger.strategy,
        trigger.provider,
        trigger.meter(),
    );
    trigger.check_counter()?;
    Ok(needed.map_err(BindingError::from)?)
}

/// What the trigger check reads of the options of `compact`: the format, the strategy,
/// the provider (whose repair pass `compact` ends with) and the token counter.
pub(crate) struct TriggerOptions {
    pub format: Option<contextfold::format::Format>,
    pub strategy: StrategyConfig,
    pub provider: Option<contextfold::repair::Provider>,
    pub counter: Option<JsTokenCounter>,
}

impl TriggerOptions {
    /// Reads the options of `compact` with `compact`'s own reader, so that every key and
    /// value is checked now (`History` and the middleware check them when made, not at
    /// the first compaction), and keeps what the trigger needs.
    pub(crate) fn read(options: &JsValue) -> JsResult<TriggerOptions> {
        let JsCompactOptions { settings, counter, .. } = JsCompactOptions::read(options)?;
        Ok(TriggerOptions {
            format: settings.format,
            strategy: settings.strategy,
            provider: settings.provider,
            counter,
        })
    }

    /// A failed token counter outranks whatever was computed with the stand-in estimate.
    pub(crate) fn check_counter(&self) -> JsResult<()> {
        match &self.counter {
            Some(counter) => Ok(counter.check()?),
            None => Ok(()),
        }
    }

    /// The meter of the token counter, or of the built-in estimate.
    pub(crate) fn meter(&self) -> Meter<'_> {
        match &self.counter {
            Some(c) => Meter::new(c),
            None => Meter::default(),
        }
    }
}

/// The Rust side of `compact`: the core's JSON pipeline, its result in the binding's types.
pub async fn compact_value<S: Summarizer + ?Sized>(
    value: &Value,
    settings: &CompactSettings,
    summarizer: &S,
    controls: &Controls,
    meter: Meter<'_>,
) -> Result<CompactOutput, BindingError> {
    let out = contextfold::pipeline::compact_json(value, settings, summarizer, controls, meter).await?;
    Ok(CompactOutput::from(out))
}

impl From<contextfold::pipeline::JsonOutput> for CompactOutput {
    fn from(out: contextfold::pipeline::JsonOutput) -> Self {
        CompactOutput {
            result: CompactResult {
                messages: out.messages,
                changed: out.changed,
                format: out.format,
                report: out.report,
            },
            reuse: out.reuse,
        }
    }
}

/// The options object, read field by field so that every error has its path.
struct JsCompactOptions {
    settings: CompactSettings,
    /// `None`: the built-in extractive summarizer.
    summarizer: Option<JsSummarizerFn>,
    signal: Option<AbortSignalLike>,
    /// `None`: the built-in estimate.
    counter: Option<JsTokenCounter>,
    progress: Option<js_sys::Function>,
}

impl JsCompactOptions {
    fn read(options: &JsValue) -> Result<JsCompactOptions, BindingError> {
        if options.is_undefined() || options.is_null() {
            return Ok(JsCompactOptions {
                settings: CompactSettings::default(),
                summarizer: None,
                signal: None,
                counter: None,
                progress: None,
            });
        }
        if !options.is_object() || crate::js_json::is_array_value(options) {
            return Err(invalid("", "expected an object"));
        }
        check_keys(own_keys(options, "")?.iter().map(String::as_str), COMPACT_KEYS, "")?;
        let summarizer = match get(options, "summarizer")? {
            None => None,
            Some(f) => Some(f.dyn_into::<JsSummarizerFn>().map_err(|_| invalid(".summarizer", "expected a function"))?),
        };
        let signal = match get(options, "signal")? {
            None => None,
            Some(s) if is_abort_signal(&s) => Some(s.unchecked_into::<AbortSignalLike>()),
            Some(_) => return Err(invalid(".signal", "expected an AbortSignal")),
        };
        let counter = match get(options, "tokenCounter")? {
            None => None,
            Some(f) => Some(JsTokenCounter::new(
                f.dyn_into::<js_sys::Function>().map_err(|_| invalid(".tokenCounter", "expected a function"))?,
            )),
        };
        let progress = match get(options, "onProgress")? {
            None => None,
            Some(f) => {
                Some(f.dyn_into::<js_sys::Function>().map_err(|_| invalid(".onProgress", "expected a function"))?)
            }
        };
        let format = format_option(field::<String>(options, "format")?.as_deref())?;
        let provider = provider_option(field::<String>(options, "provider")?.as_deref())?;
        let on_error = match field::<String>(options, "onError")?.as_deref() {
            None | Some("rollback") => OnError::Rollback,
            Some("throw") => OnError::Throw,
            Some("partial" | "trim") => OnError::Partial,
            Some(other) => {
                return Err(invalid(
                    ".onError",
                    format!("unknown value {other:?}; expected \"rollback\", \"throw\", \"partial\" or \"trim\""),
                ))
            }
        };
        let strategy = read_strategy(options, on_error)?;
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
            settings: CompactSettings {
                format,
                strategy,
                provider,
                concurrency,
                timeout_ms,
                instructions: field::<String>(options, "instructions")?,
                reuse: field::<bool>(options, "__reuse")?.unwrap_or(false),
            },
            summarizer,
            signal,
            counter,
            progress,
        })
    }
}

/// `strategy`, `maxTokens` / `maxBytes` and the clock, as the core config: the core
/// reads and checks the settings (`contextfold::settings`).
pub(crate) fn read_strategy(options: &JsValue, on_error: OnError) -> Result<StrategyConfig, BindingError> {
    let max = contextfold::settings::strategy::amount(
        field::<usize>(options, "maxTokens")?,
        field::<usize>(options, "maxBytes")?,
        ".max",
    )?;
    let strategy = match get(options, "strategy")? {
        None => CompactStrategy::Name(StrategyName::DEFAULT),
        Some(v) => CompactStrategy::from_json(&json_at(v, ".strategy")?)?,
    };
    // Tier summaries record when they were made; the core has no clock.
    let now = Some(String::from(js_sys::Date::new_0().to_iso_string()));
    Ok(strategy.to_config(max, on_error, now)?)
}

/// An option's value as JSON (`None` for `undefined`); a value JSON cannot hold (a
/// function, a `Set`, NaN) or that throws when read is an invalid option at its own path
/// (`.strategy.excludeTools`).
fn json_at(value: JsValue, path: &str) -> Result<Value, BindingError> {
    Ok(crate::js_json::to_json(&value, path)?.unwrap_or(Value::Null))
}

/// The own enumerable string keys of an options object (`Object.keys`); a throwing
/// proxy is an invalid option at `path`.
pub(crate) fn own_keys(options: &JsValue, path: &str) -> Result<Vec<String>, BindingError> {
    crate::js_json::keys_of(options, path)
}

/// `options[key]`, `None` when undefined or null or not an own enumerable key: the keys
/// a spread (`{ ...options }`) copies, and the ones the key check sees, so that an option
/// inherited from a prototype is never read here and ignored elsewhere. A throwing getter
/// is an invalid option.
pub(crate) fn get(options: &JsValue, key: &str) -> Result<Option<JsValue>, BindingError> {
    let path = format!(".{key}");
    if !crate::js_json::is_own_enumerable(options, key, &path)? {
        return Ok(None);
    }
    let value = crate::js_json::get(options, key, &path)?;
    Ok((!value.is_undefined() && !value.is_null()).then_some(value))
}

/// `options[key]` converted to `T`, with the path of any error.
pub(crate) fn field<T: DeserializeOwned>(options: &JsValue, key: &str) -> Result<Option<T>, BindingError> {
    get(options, key)?.map(|v| deserialize_at(v, &format!(".{key}"))).transpose()
}

/// `value` converted to `T`; errors are located under `path` (e.g. `.strategy.useQA`).
/// The value is read as JSON first ([`crate::js_json`]): every JS read caught.
fn deserialize_at<T: DeserializeOwned>(value: JsValue, path: &str) -> Result<T, BindingError> {
    let json = json_at(value, path)?;
    serde_path_to_error::deserialize(json).map_err(|e| {
        let inner = e.path().to_string();
        let at = if inner == "." { path.to_string() } else { format!("{path}.{}", inner.trim_start_matches('.')) };
        invalid(&at, contextfold::settings::plain_expectation(&e.inner().to_string()))
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
    use contextfold::strategy::sections::SectionsConfig;
    use contextfold::strategy::CompactError;
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
            strategy: StrategyConfig::Sections(SectionsConfig { on_error, ..SectionsConfig::default() }),
            ..CompactSettings::default()
        }
    }

    #[test]
    fn compacts_older_sections_and_writes_them_back_in_the_input_format() {
        let summarizer = Fixed::default();
        let out = block_on(compact_value(
            &chain(),
            &settings(OnError::Rollback),
            &summarizer,
            &Controls::default(),
            Meter::default(),
        ))
        .unwrap();
        let out = out.result;
        assert!(out.changed);
        assert_eq!((out.format, out.report.format), (ChainFormat::OpenAi, ChainFormat::OpenAi));
        assert!(out.report.after.bytes < out.report.before.bytes);
        assert!(!summarizer.requests.borrow().is_empty());
        let messages = contextfold::format::openai::read(&out.messages).unwrap();
        assert_eq!(messages.len(), out.report.after.messages);
    }

    #[test]
    fn rollback_keeps_the_original_and_throw_becomes_summarizer_failed() {
        let out = block_on(compact_value(
            &chain(),
            &settings(OnError::Rollback),
            &Failing,
            &Controls::default(),
            Meter::default(),
        ))
        .unwrap()
        .result;
        assert!(!out.changed);
        assert!(out.report.rolled_back);
        assert_eq!(out.report.errors.len(), out.report.calls);

        let err = block_on(compact_value(
            &chain(),
            &settings(OnError::Throw),
            &Failing,
            &Controls::default(),
            Meter::default(),
        ))
        .unwrap_err();
        assert_eq!(err.code(), "summarizer_failed");
        assert!(matches!(err, BindingError::Compact(CompactError::Summarizer(ref list)) if !list.is_empty()));
    }

    #[test]
    fn bad_input_keeps_its_code_and_path() {
        let bad = json!([{ "role": "user", "parts": "not a list" }]);
        let mut s = settings(OnError::Rollback);
        s.format = Some(contextfold::format::Format::Native);
        let err =
            block_on(compact_value(&bad, &s, &Fixed::default(), &Controls::default(), Meter::default())).unwrap_err();
        assert_eq!(err.code(), "invalid_shape");
        assert_eq!(err.path().as_deref(), Some("[0].parts"));
    }
}
