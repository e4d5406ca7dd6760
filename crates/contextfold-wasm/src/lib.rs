//! WebAssembly bindings of contextfold: the `contextfold` npm package loads this crate.
//!
//! Bindings only. Every algorithm lives in the `contextfold` core crate; this crate
//! converts JS values to core types and back, and core errors into JS `Error`s. One
//! module per API area:
//! - [`chain`] holds `parseChain`;
//! - [`compact`] holds `compact`;
//! - [`bridge`] puts a JS summarizer function behind the core's `Summarizer` trait;
//! - [`extractive`] holds `extractiveSummarizer`, the built-in offline summarizer;
//! - [`measure`] holds `estimateTokens` and `measureChain`;
//! - [`options`] reads the strategy settings of `compact` and `needsCompaction`;
//! - [`reuse`] hands kept messages back as the caller's own objects;
//! - [`token_counter`] puts a JS tokenizer behind the core's `TokenCounter`;
//! - [`validity`] holds `validateChain` and `repairChain`;
//! - [`formats`] holds `convert`, from one message format to another;
//! - [`convert`] holds the conversions the exports share;
//! - [`error`] holds the boundary's error type and its JS form (`ContextfoldError`).

pub mod bridge;
pub mod chain;
pub mod compact;
pub mod convert;
pub mod error;
pub mod extractive;
pub mod formats;
pub mod measure;
pub mod options;
pub mod reuse;
pub mod token_counter;
pub mod validity;

pub use chain::parse_chain;
pub use compact::compact;
pub use error::{BindingError, JsResult};
pub use extractive::extractive_summarizer;

use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsCast;

/// Runs once when the module is instantiated (and again after a reinit).
///
/// Stable Rust on wasm aborts on panic: the instance survives with possibly broken
/// state. The hook logs the panic to the console and schedules a reinit, so the next
/// call into the module gets a fresh instance instead of a corrupted one.
#[wasm_bindgen(start)]
fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        wasm_bindgen::handler::schedule_reinit();
        notify_js_of_panic(&info.to_string());
    }));
}

/// A panic inside an async export would leave its Promise unsettled forever: the JS
/// layer (pkg/src/api.js) registers a function under `Symbol.for("contextfold.panic")`
/// that rejects every pending call; the hook calls it.
fn notify_js_of_panic(message: &str) {
    let key = js_sys::Symbol::for_("contextfold.panic");
    if let Ok(f) = js_sys::Reflect::get(&js_sys::global(), &key) {
        if let Some(f) = f.dyn_ref::<js_sys::Function>() {
            let _ = f.call1(&wasm_bindgen::JsValue::UNDEFINED, &wasm_bindgen::JsValue::from_str(message));
        }
    }
}

/// Panics on purpose: the tests call it to prove that after a panic (which aborts the
/// wasm instance) the next call gets a fresh instance. Not part of the API.
#[doc(hidden)]
#[wasm_bindgen(js_name = __contextfoldPanicForTests, skip_typescript)]
#[allow(clippy::panic)]
pub fn panic_for_tests() {
    panic!("deliberate panic for the reinit test");
}

/// Panics on purpose after an await, inside an async export: the tests call it to prove
/// that the returned Promise rejects instead of hanging. Not part of the API.
#[doc(hidden)]
#[wasm_bindgen(js_name = __contextfoldAsyncPanicForTests, skip_typescript)]
#[allow(clippy::panic)]
pub async fn async_panic_for_tests() {
    let tick = js_sys::Promise::resolve(&wasm_bindgen::JsValue::NULL);
    let _ = wasm_bindgen_futures::JsFuture::from(tick).await;
    panic!("deliberate panic for the reinit test");
}
