//! The JS summarizer bridge: a JS function returning a Promise, behind the core's
//! [`Summarizer`] trait, and the link from an `AbortSignal` to the core's [`CancelFlag`].
//!
//! Whatever the JS side does (throw, reject, answer with a non-string, never answer),
//! the bridge turns it into a [`SummarizeError`]: never a panic, never a thrown string.
//! The core engine issues the calls (up to `concurrency` in flight), turns blank text
//! into `Empty` and ends calls in flight on cancellation; the bridge enforces
//! `timeoutMs` per call.

use crate::convert::to_js;
use contextfold::summarize::{CancelFlag, SummarizeError, SummarizeErrorKind, Summarizer, SummaryRequest};
use futures::future::{self, Either};
use js_sys::{Function, Object, Promise, Reflect};
use tsify::Tsify;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The second argument of every summarizer call.
#[derive(Debug, Clone, Default, PartialEq, Eq, Tsify)]
pub struct SummarizerContext {
    /// The `signal` given to `compact`, to pass on to `fetch`.
    #[tsify(optional, type = "AbortSignal")]
    pub signal: Option<()>,
}

// A function type is the one thing tsify cannot declare (it derives data types from
// structs and enums), so the summarizer's signature stays hand-written; its parameter
// types are generated (`SummaryRequest` in crate::report, `SummarizerContext` above).
#[wasm_bindgen(typescript_custom_section)]
const TS_SUMMARIZER: &str = r#"
/**
 * Turns a summary request into summary text. A rejection, a thrown error, a
 * non-string or blank answer, or a timeout fails that call (see `onError`).
 */
export type Summarizer = (request: SummaryRequest, context: SummarizerContext) => Promise<string>;
"#;

#[wasm_bindgen]
extern "C" {
    /// A JS summarizer function (typed `Summarizer` in the `.d.ts`).
    #[wasm_bindgen(extends = Function, typescript_type = "Summarizer", is_type_of = JsValue::is_function)]
    #[derive(Debug, Clone)]
    pub type JsSummarizerFn;

    /// An `AbortSignal`, or anything with `aborted` and add/removeEventListener.
    #[wasm_bindgen(typescript_type = "AbortSignal")]
    #[derive(Debug, Clone)]
    pub type AbortSignalLike;

    #[wasm_bindgen(method, catch, getter)]
    fn aborted(this: &AbortSignalLike) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch, js_name = addEventListener)]
    fn add_event_listener(this: &AbortSignalLike, kind: &str, listener: &Function) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch, js_name = removeEventListener)]
    fn remove_event_listener(this: &AbortSignalLike, kind: &str, listener: &Function) -> Result<(), JsValue>;

    // Globals of every runtime we ship for (Node, browsers, workerd); no web-sys.
    #[wasm_bindgen(catch, js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: f64) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue) -> Result<(), JsValue>;
}

/// Longest delay `setTimeout` honours (2^31 - 1 ms, ~24.8 days); longer ones fire at once.
const MAX_TIMER_MS: u64 = 2_147_483_647;

/// The core's [`Summarizer`] over a JS function.
#[derive(Debug, Clone)]
pub struct JsSummarizer {
    function: JsSummarizerFn,
    /// Passed to every call as `{ signal }`.
    signal: Option<AbortSignalLike>,
}

impl JsSummarizer {
    pub fn new(function: JsSummarizerFn, signal: Option<AbortSignalLike>) -> Self {
        JsSummarizer { function, signal }
    }

    /// `{ signal }`, the second argument of every call.
    fn context(&self) -> JsValue {
        let context = Object::new();
        if let Some(signal) = &self.signal {
            // Setting a property on a fresh ordinary object cannot fail.
            let _ = Reflect::set(&context, &JsValue::from_str("signal"), signal);
        }
        context.into()
    }
}

impl Summarizer for JsSummarizer {
    async fn summarize(&self, request: SummaryRequest) -> Result<String, SummarizeError> {
        let timeout_ms = request.timeout_ms;
        let js_request = to_js(&crate::report::SummaryRequest::from(request))
            .map_err(|e| SummarizeError::failed(format!("could not convert the request: {}", describe_js(&e))))?;
        let returned = self
            .function
            .call2(&JsValue::UNDEFINED, &js_request, &self.context())
            .map_err(|e| SummarizeError::failed(describe_js(&e)))?;
        // A plain (non-Promise) answer is accepted as if resolved.
        let answer = JsFuture::from(Promise::resolve(&returned));
        let settled = match timeout_ms {
            None => answer.await,
            Some(ms) => {
                let timer = Timer::start(ms)?;
                match future::select(answer, JsFuture::from(timer.promise.clone())).await {
                    Either::Left((settled, _)) => settled,
                    Either::Right(_) => {
                        return Err(SummarizeError::new(
                            SummarizeErrorKind::Timeout,
                            format!("no answer within {ms} ms"),
                        ))
                    }
                }
            }
        };
        match settled {
            Ok(value) => value.as_string().ok_or_else(|| {
                SummarizeError::new(
                    SummarizeErrorKind::InvalidResult,
                    format!("expected a string, got {}", type_of(&value)),
                )
            }),
            Err(e) => Err(SummarizeError::failed(describe_js(&e))),
        }
    }
}

/// A `setTimeout` resolving `promise` after `ms`; cleared when dropped, so neither a
/// finished nor an abandoned call leaves a timer behind (which would keep Node alive).
struct Timer {
    promise: Promise,
    id: JsValue,
}

impl Timer {
    fn start(ms: u64) -> Result<Timer, SummarizeError> {
        let delay = ms.min(MAX_TIMER_MS) as f64;
        let mut started = Ok(JsValue::UNDEFINED);
        let promise = Promise::new(&mut |resolve, _reject| {
            started = set_timeout(&resolve, delay);
        });
        let id =
            started.map_err(|e| SummarizeError::failed(format!("could not start a timer: {}", describe_js(&e))))?;
        Ok(Timer { promise, id })
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        let _ = clear_timeout(&self.id);
    }
}

/// Cancels a [`CancelFlag`] when an `AbortSignal` aborts, for as long as it lives: the
/// listener is removed on drop.
pub struct AbortLink {
    signal: AbortSignalLike,
    listener: Option<Closure<dyn FnMut()>>,
}

impl AbortLink {
    /// Cancels at once when `signal` is already aborted; else listens for `abort`.
    pub fn attach(signal: AbortSignalLike, cancel: &CancelFlag) -> Result<AbortLink, JsValue> {
        if signal.aborted()?.is_truthy() {
            cancel.cancel();
            return Ok(AbortLink { signal, listener: None });
        }
        let flag = cancel.clone();
        let listener = Closure::<dyn FnMut()>::new(move || flag.cancel());
        signal.add_event_listener("abort", listener.as_ref().unchecked_ref())?;
        Ok(AbortLink { signal, listener: Some(listener) })
    }
}

impl Drop for AbortLink {
    fn drop(&mut self) {
        if let Some(listener) = &self.listener {
            let _ = self.signal.remove_event_listener("abort", listener.as_ref().unchecked_ref());
        }
    }
}

/// A readable description of a thrown or rejected value: `Error: message` for errors,
/// the text of a string, else the value's debug form.
pub fn describe_js(value: &JsValue) -> String {
    if let Some(error) = value.dyn_ref::<js_sys::Error>() {
        let name = String::from(error.name());
        let message = String::from(error.message());
        return if message.is_empty() { name } else { format!("{name}: {message}") };
    }
    value.as_string().unwrap_or_else(|| format!("{value:?}"))
}

/// `typeof value`, with `null` and arrays told apart.
fn type_of(value: &JsValue) -> String {
    if value.is_null() {
        "null".to_string()
    } else if js_sys::Array::is_array(value) {
        "an array".to_string()
    } else {
        value.js_typeof().as_string().unwrap_or_default()
    }
}
