//! `extractiveSummarizer`: the built-in offline summarizer as a JS `Summarizer`.
//!
//! The function it returns can be called like any summarizer (it reads the request's
//! `transcript` and `targetBytes`); `compact` recognizes it by a marker property and
//! runs the Rust summarizer directly, without crossing into JS for every call.

use crate::error::{BindingError, JsResult};
use contextfold::summarize::extractive::ExtractiveSummarizer;
use js_sys::{Object, Promise, Reflect};
use tsify::Tsify;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;

/// Property that marks a function made by `extractiveSummarizer`; holds its settings.
pub const MARKER: &str = "__contextfoldExtractive";

/// Settings of the built-in extractive summarizer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ExtractiveOptions {
    /// Upper bound of a summary in bytes, whatever a request asks [4096].
    #[tsify(optional)]
    pub max_bytes: Option<usize>,
}

/// The built-in extractive summarizer: deterministic, offline, no API key. It keeps the
/// user's goals, error lines, decisions, actions, file paths and the last state within
/// each request's target size. It is the default when `compact` gets no summarizer.
///
/// @example
/// ```js
/// const result = await compact(chain, { summarizer: extractiveSummarizer({ maxBytes: 2048 }) });
/// ```
#[wasm_bindgen(js_name = extractiveSummarizer, unchecked_return_type = "Summarizer")]
pub fn extractive_summarizer(
    #[wasm_bindgen(unchecked_optional_param_type = "ExtractiveOptions")] options: JsValue,
) -> JsResult<JsValue> {
    let summarizer = read_options(&options)?;
    let settings = Object::new();
    let max_bytes = summarizer.max_bytes as f64;
    // Setting a property on a fresh ordinary object cannot fail.
    let _ = Reflect::set(&settings, &JsValue::from_str("maxBytes"), &JsValue::from_f64(max_bytes));
    let call = Closure::<dyn Fn(JsValue) -> JsValue>::new(move |request: JsValue| -> JsValue {
        let transcript = Reflect::get(&request, &JsValue::from_str("transcript")).ok().and_then(|v| v.as_string());
        let target = Reflect::get(&request, &JsValue::from_str("targetBytes")).ok().and_then(|v| v.as_f64());
        match transcript {
            Some(t) => {
                let target = target.filter(|n| n.is_finite() && *n > 0.0).map_or(summarizer.max_bytes, |n| n as usize);
                Promise::resolve(&JsValue::from_str(&summarizer.summarize_transcript(&t, target))).into()
            }
            None => Promise::reject(&js_sys::Error::new("extractiveSummarizer: the request has no transcript")).into(),
        }
    });
    let function = call.into_js_value();
    let _ = Reflect::set(&function, &JsValue::from_str(MARKER), &settings);
    Ok(function)
}

/// The summarizer a marked function stands for, if `value` is one.
pub fn from_marked(value: &JsValue) -> Option<ExtractiveSummarizer> {
    let settings = Reflect::get(value, &JsValue::from_str(MARKER)).ok().filter(JsValue::is_object)?;
    let max_bytes = Reflect::get(&settings, &JsValue::from_str("maxBytes")).ok().and_then(|v| v.as_f64());
    let default = ExtractiveSummarizer::default();
    Some(ExtractiveSummarizer { max_bytes: max_bytes.map_or(default.max_bytes, |n| n as usize), ..default })
}

fn read_options(options: &JsValue) -> Result<ExtractiveSummarizer, BindingError> {
    let default = ExtractiveSummarizer::default();
    if options.is_undefined() || options.is_null() {
        return Ok(default);
    }
    let invalid =
        |message: &str| BindingError::InvalidOption { path: ".maxBytes".to_string(), message: message.into() };
    let max = Reflect::get(options, &JsValue::from_str("maxBytes")).map_err(|_| invalid("unreadable"))?;
    if max.is_undefined() || max.is_null() {
        return Ok(default);
    }
    match max.as_f64() {
        Some(n) if n.is_finite() && n >= 128.0 && n.fract() == 0.0 => {
            Ok(ExtractiveSummarizer { max_bytes: n as usize, ..default })
        }
        _ => Err(invalid("expected a whole number of bytes, at least 128")),
    }
}
