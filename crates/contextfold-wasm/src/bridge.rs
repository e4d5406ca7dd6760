//! The JS summarizer bridge: a JS function returning a Promise, behind the core's
//! [`Summarizer`] trait, and the link from an `AbortSignal` to the core's [`CancelFlag`].
//!
//! Whatever the JS side does (throw, reject, answer with a non-string, never answer),
//! the bridge turns it into a [`SummarizeError`]: never a panic, never a thrown string.
//! The core engine issues the calls (up to `concurrency` in flight), turns blank text
//! into `Empty` and ends calls in flight on cancellation; the bridge enforces
//! `timeoutMs` per call.
//!
//! Each call gets its own `AbortSignal` (following the compaction's `signal`): it aborts
//! when the call times out or is ended, so `fetch` stops. A timed-out call's slot is
//! freed only once the call has settled, so `concurrency` bounds the calls really in
//! flight; a summarizer that ignores its signal gets one more `timeoutMs` to settle
//! before it is abandoned, so a call that never answers cannot hang the compaction.

use crate::convert::to_js;
use contextfold::prompt::Draft;
use contextfold::summarize::{CancelFlag, SummarizeError, SummarizeErrorKind, Summarizer, SummaryRequest};
use futures::future::{self, Either};
use js_sys::{Function, JsString, Object, Promise, Reflect};
use tsify::Tsify;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The second argument of every summarizer call.
#[derive(Debug, Clone, Default, PartialEq, Eq, Tsify)]
pub struct SummarizerContext {
    /// Pass it on to `fetch`: it aborts when the call times out (`timeoutMs`), when the
    /// compaction ends it, or when the `signal` given to `compact` aborts. Every call has one.
    #[tsify(type = "AbortSignal")]
    pub signal: (),
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

/** One call to the summarizer. */
export interface SummaryRequest extends SummaryRequestFields {
    /**
     * The full prompt: instructions envelope and transcript. Send it as the user message.
     */
    prompt: string;
}
"#;

/// The request as JS gets it: its fields, and `prompt` joined from the instructions and
/// transcript strings just made (a JS string join: the transcript, often most of the
/// chain, is not copied out of wasm a second time).
fn js_request(request: &SummaryRequest) -> Result<JsValue, JsValue> {
    let object = to_js(request)?;
    set_prompt(&object)?;
    Ok(object)
}

/// Bytes of transcript wasm holds at a time while it crosses into JS.
const TRANSCRIPT_PIECE: usize = 64 * 1024;

/// [`js_request`] of a request whose messages are in `draft`: the transcript is written
/// a piece at a time, each piece a JS string, concatenated in JS. Wasm never holds it
/// whole (it was the largest memory of an `auto` or `tiers` call: most of the chain
/// again). Concatenation makes a rope of the pieces, as `prompt` is one of the envelope
/// and the transcript: the engine never copies the transcript as a whole; the runtime
/// copies it once, when the summarizer first reads `prompt` (a `join` here made a flat
/// copy, and reading `prompt` then copied that again).
fn js_request_of_draft(request: &SummaryRequest, draft: &Draft<'_>) -> Result<JsValue, JsValue> {
    let object = to_js(request)?;
    let mut transcript = JsString::from("");
    draft.render_pieces(TRANSCRIPT_PIECE, &mut |piece| {
        transcript = transcript.concat(&JsValue::from_str(piece));
    });
    Reflect::set(&object, &JsValue::from_str("transcript"), &transcript)?;
    set_prompt(&object)?;
    Ok(object)
}

/// Sets `prompt` on a request object from its `instructions` and `transcript`.
fn set_prompt(object: &JsValue) -> Result<(), JsValue> {
    let field = |key: &str| Reflect::get(object, &JsValue::from_str(key));
    let [open, close] = contextfold::prompt::ENVELOPE;
    let prompt = JsString::from(open)
        .concat(&field("instructions")?)
        .concat(&JsValue::from_str(close))
        .concat(&field("transcript")?);
    Reflect::set(object, &JsValue::from_str("prompt"), &prompt)?;
    Ok(())
}

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

    /// `Promise.resolve`, its failure caught: reading `constructor` of a Promise the
    /// summarizer returned may throw (a getter, a Proxy).
    #[wasm_bindgen(catch, js_namespace = Promise, js_name = resolve)]
    fn promise_resolve(value: &JsValue) -> Result<Promise, JsValue>;

    // Globals of every runtime we ship for (Node, browsers, workerd); no web-sys.
    #[wasm_bindgen(catch, js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: f64) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue) -> Result<(), JsValue>;

    /// The global `AbortController`.
    #[wasm_bindgen(js_name = AbortController)]
    #[derive(Debug, Clone)]
    type JsAbortController;

    #[wasm_bindgen(constructor, catch, js_class = "AbortController")]
    fn new() -> Result<JsAbortController, JsValue>;

    #[wasm_bindgen(method, getter, js_class = "AbortController")]
    fn signal(this: &JsAbortController) -> AbortSignalLike;

    #[wasm_bindgen(method, catch, js_class = "AbortController")]
    fn abort(this: &JsAbortController, reason: &JsValue) -> Result<(), JsValue>;
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
}

/// The signal of one call: its own controller, aborted when the compaction's signal
/// aborts (a listener removed on drop), on timeout, or when the call is dropped before
/// it settled (the engine ends calls in flight on cancellation).
struct CallSignal {
    controller: JsAbortController,
    _outer: Option<AbortLink>,
    settled: bool,
}

impl CallSignal {
    fn new(outer: Option<&AbortSignalLike>) -> Result<CallSignal, SummarizeError> {
        let controller = JsAbortController::new()
            .map_err(|e| SummarizeError::failed(format!("could not create an AbortController: {}", describe_js(&e))))?;
        let link =
            match outer {
                None => None,
                Some(outer) => {
                    let inner = controller.clone();
                    let abort = move || {
                        let _ = inner.abort(&abort_error("AbortError", "the compaction was cancelled"));
                    };
                    Some(AbortLink::on_abort(outer.clone(), Box::new(abort)).map_err(|e| {
                        SummarizeError::failed(format!("could not watch the signal: {}", describe_js(&e)))
                    })?)
                }
            };
        Ok(CallSignal { controller, _outer: link, settled: false })
    }

    /// `{ signal }`, the second argument of the call.
    fn context(&self) -> JsValue {
        let context = Object::new();
        // Setting a property on a fresh ordinary object cannot fail.
        let _ = Reflect::set(&context, &JsValue::from_str("signal"), &self.controller.signal());
        context.into()
    }

    fn abort(&self, name: &str, message: &str) {
        let _ = self.controller.abort(&abort_error(name, message));
    }
}

impl Drop for CallSignal {
    fn drop(&mut self) {
        if !self.settled {
            self.abort("AbortError", "the summary call was ended (the compaction was cancelled)");
        }
    }
}

/// An `Error` named `name` (`AbortError`, `TimeoutError`), the abort reason.
fn abort_error(name: &str, message: &str) -> JsValue {
    let error = js_sys::Error::new(message);
    error.set_name(name);
    error.into()
}

impl Summarizer for JsSummarizer {
    async fn summarize(&self, request: SummaryRequest) -> Result<String, SummarizeError> {
        let timeout_ms = request.timeout_ms;
        let js_request = js_request(&request).map_err(unconverted)?;
        // The transcript now lives in JS: let the wasm copy go while the call runs (with
        // four calls in flight, four transcripts were held at once).
        drop(request);
        self.call(js_request, timeout_ms).await
    }

    /// Messages are rendered straight into JS, a piece at a time.
    fn reads_messages(&self) -> bool {
        true
    }

    async fn summarize_draft(&self, request: SummaryRequest, draft: Draft<'_>) -> Result<String, SummarizeError> {
        let js_request = js_request_of_draft(&request, &draft).map_err(unconverted)?;
        self.call(js_request, request.timeout_ms).await
    }
}

fn unconverted(e: JsValue) -> SummarizeError {
    SummarizeError::failed(format!("could not convert the request: {}", describe_js(&e)))
}

impl JsSummarizer {
    /// Calls the function with `js_request` and `{ signal }`, within `timeout_ms`.
    async fn call(&self, js_request: JsValue, timeout_ms: Option<u64>) -> Result<String, SummarizeError> {
        let mut call = CallSignal::new(self.signal.as_ref())?;
        let returned = self
            .function
            .call2(&JsValue::UNDEFINED, &js_request, &call.context())
            .map_err(|e| SummarizeError::failed(describe_js(&e)));
        let returned = match returned {
            Ok(value) => value,
            Err(e) => {
                call.settled = true;
                return Err(e);
            }
        };
        // A plain (non-Promise) answer is accepted as if resolved.
        let promise = match promise_resolve(&returned) {
            Ok(promise) => promise,
            Err(e) => {
                call.settled = true;
                return Err(SummarizeError::failed(describe_js(&e)));
            }
        };
        let mut answer = JsFuture::from(promise);
        let settled = match timeout_ms {
            None => (&mut answer).await,
            Some(ms) => {
                let timer = Timer::start(ms)?;
                match future::select(&mut answer, JsFuture::from(timer.promise.clone())).await {
                    Either::Left((settled, _)) => settled,
                    Either::Right(_) => {
                        let message = format!("no answer within {ms} ms");
                        call.abort("TimeoutError", &message);
                        // The slot stays taken until the call settles (or its grace ends).
                        let grace = Timer::start(ms)?;
                        let _ = future::select(answer, JsFuture::from(grace.promise.clone())).await;
                        call.settled = true;
                        return Err(SummarizeError::new(SummarizeErrorKind::Timeout, message));
                    }
                }
            }
        };
        call.settled = true;
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

/// What this instance has hooked into the caller's JS (timers, abort listeners), each
/// under a key, for as long as it is hooked. A panic aborts the instance without dropping
/// anything: [`unhook_all`] then takes each hook out, so that none fires later into the
/// dead instance (an uncaught exception in the caller's process, out of their own
/// `controller.abort()` or a timer).
#[derive(Default)]
struct Hooks {
    next: u64,
    timers: Vec<(u64, JsValue)>,
    listeners: Vec<(u64, AbortSignalLike, Function)>,
}

thread_local! {
    static HOOKS: std::cell::RefCell<Hooks> = std::cell::RefCell::default();
}

impl Hooks {
    /// Runs `f` on the hooks; nothing when they are in use (a panic inside `f` itself).
    fn with<T: Default>(f: impl FnOnce(&mut Hooks) -> T) -> T {
        HOOKS.with(|hooks| hooks.try_borrow_mut().map(|mut h| f(&mut h)).unwrap_or_default())
    }

    fn key(&mut self) -> u64 {
        self.next = self.next.wrapping_add(1);
        self.next
    }
}

/// Clears every timer and removes every abort listener this instance set: the panic
/// hook's last act (src/lib.rs).
pub fn unhook_all() {
    let (timers, listeners) = Hooks::with(|h| (std::mem::take(&mut h.timers), std::mem::take(&mut h.listeners)));
    for (_, id) in timers {
        let _ = clear_timeout(&id);
    }
    for (_, signal, listener) in listeners {
        let _ = signal.remove_event_listener("abort", &listener);
    }
}

/// A `setTimeout` resolving `promise` after `ms`; cleared when dropped, so neither a
/// finished nor an abandoned call leaves a timer behind (which would keep Node alive).
struct Timer {
    promise: Promise,
    id: JsValue,
    key: u64,
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
        let key = Hooks::with(|h| {
            let key = h.key();
            h.timers.push((key, id.clone()));
            key
        });
        Ok(Timer { promise, id, key })
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        let _ = clear_timeout(&self.id);
        Hooks::with(|h| h.timers.retain(|(key, _)| *key != self.key));
    }
}

/// Runs an action when an `AbortSignal` aborts, for as long as it lives: the listener
/// is removed on drop.
pub struct AbortLink {
    signal: AbortSignalLike,
    listener: Option<Closure<dyn FnMut()>>,
    key: u64,
}

impl AbortLink {
    /// Cancels `cancel` at once when `signal` is already aborted; else on `abort`.
    pub fn attach(signal: AbortSignalLike, cancel: &CancelFlag) -> Result<AbortLink, JsValue> {
        let flag = cancel.clone();
        AbortLink::on_abort(signal, Box::new(move || flag.cancel()))
    }

    /// Runs `action` at once when `signal` is already aborted; else on `abort`.
    fn on_abort(signal: AbortSignalLike, mut action: Box<dyn FnMut()>) -> Result<AbortLink, JsValue> {
        if signal.aborted()?.is_truthy() {
            action();
            return Ok(AbortLink { signal, listener: None, key: 0 });
        }
        let listener = Closure::<dyn FnMut()>::new(action);
        let function: &Function = listener.as_ref().unchecked_ref();
        signal.add_event_listener("abort", function)?;
        let key = Hooks::with(|h| {
            let key = h.key();
            h.listeners.push((key, signal.clone(), function.clone()));
            key
        });
        Ok(AbortLink { signal, listener: Some(listener), key })
    }
}

impl Drop for AbortLink {
    fn drop(&mut self) {
        if let Some(listener) = &self.listener {
            let _ = self.signal.remove_event_listener("abort", listener.as_ref().unchecked_ref());
            Hooks::with(|h| h.listeners.retain(|(key, _, _)| *key != self.key));
        }
    }
}

/// A readable description of a thrown or rejected value: `Error: message` for errors,
/// the text of a string, else the value as JS writes it (`undefined`, `42`, `[object
/// Object]`), never Rust's `JsValue(...)` wrapper around it. The caller's value may be
/// hostile (a `name` or `message` getter that throws): each field is read through
/// `Reflect.get` with its failure caught, never through a binding that would let the JS
/// exception unwind through wasm.
pub fn describe_js(value: &JsValue) -> String {
    if value.is_instance_of::<js_sys::Error>() {
        let text = |key: &str| Reflect::get(value, &JsValue::from_str(key)).ok().and_then(|v| v.as_string());
        let name = text("name").unwrap_or_else(|| "Error".to_string());
        let message = text("message").unwrap_or_default();
        return if message.is_empty() { name } else { format!("{name}: {message}") };
    }
    value.as_string().unwrap_or_else(|| {
        let debug = format!("{value:?}");
        debug.strip_prefix("JsValue(").and_then(|d| d.strip_suffix(')')).map_or(debug.clone(), str::to_string)
    })
}

/// `typeof value`, with `null` and arrays told apart.
pub fn type_of(value: &JsValue) -> String {
    if value.is_null() {
        "null".to_string()
    } else if js_sys::Array::is_array(value) {
        "an array".to_string()
    } else {
        value.js_typeof().as_string().unwrap_or_default()
    }
}
