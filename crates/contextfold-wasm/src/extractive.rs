//! The built-in offline summarizer behind `extractiveSummarizer` (pkg/src/api.js).
//!
//! The JS layer makes the function (a Rust closure could not be called after the
//! instance is replaced, see [`crate::memory`]): it checks its options here, marks the
//! function with the settings, and summarizes here when called. `compact` recognizes the
//! marker and runs the Rust summarizer directly, without crossing into JS for every call.

use crate::error::{BindingError, JsResult};
use crate::options::{check_keys, invalid};
use contextfold::summarize::extractive::ExtractiveSummarizer;
use js_sys::{Object, Reflect};
use tsify::Tsify;
use wasm_bindgen::prelude::*;

/// Property that marks a function made by `extractiveSummarizer`; holds its settings.
pub const MARKER: &str = "__contextfoldExtractive";

/// Settings of the built-in extractive summarizer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ExtractiveOptions {
    /// Upper bound of a summary in bytes, whatever a request asks [32768].
    #[tsify(optional)]
    pub max_bytes: Option<usize>,
}

/// The settings `extractiveSummarizer` marks its function with (`{ maxBytes }`), the
/// options checked. The package's JS layer makes the function itself (pkg/src/api.js).
#[wasm_bindgen(js_name = __extractiveSettings, skip_typescript)]
pub fn extractive_settings(options: JsValue) -> JsResult<JsValue> {
    let summarizer = read_options(&options)?;
    let settings = Object::new();
    // Setting a property on a fresh ordinary object cannot fail.
    let _ = Reflect::set(&settings, &JsValue::from_str("maxBytes"), &JsValue::from_f64(summarizer.max_bytes as f64));
    Ok(settings.into())
}

/// What a function made by `extractiveSummarizer` does when called: the summary of
/// `transcript` within `target_bytes` (at most `max_bytes`). The package's JS layer makes
/// that function (pkg/src/api.js), so it keeps working in a fresh instance after a reset,
/// which a Rust closure would not.
#[wasm_bindgen(js_name = __extractiveSummarize, skip_typescript)]
pub fn extractive_summarize(transcript: &str, target_bytes: usize, max_bytes: usize) -> String {
    let summarizer = ExtractiveSummarizer { max_bytes, ..ExtractiveSummarizer::default() };
    summarizer.summarize_transcript(transcript, target_bytes)
}

/// The summarizer a marked function stands for, if `value` is one.
pub fn from_marked(value: &JsValue) -> Option<ExtractiveSummarizer> {
    let settings = Reflect::get(value, &JsValue::from_str(MARKER)).ok().filter(JsValue::is_object)?;
    let max_bytes = Reflect::get(&settings, &JsValue::from_str("maxBytes")).ok().and_then(|v| v.as_f64());
    let default = ExtractiveSummarizer::default();
    Some(ExtractiveSummarizer { max_bytes: max_bytes.map_or(default.max_bytes, |n| n as usize), ..default })
}

/// The keys of [`ExtractiveOptions`] (the tests check them against the declaration).
const EXTRACTIVE_KEYS: &[&str] = &["maxBytes"];

/// `extractiveSummarizer`'s options, read as every option reader reads: an object (or
/// nothing), no unknown key (`maxByte`: "did you mean maxBytes?"), each read caught.
fn read_options(options: &JsValue) -> Result<ExtractiveSummarizer, BindingError> {
    let default = ExtractiveSummarizer::default();
    if options.is_undefined() || options.is_null() {
        return Ok(default);
    }
    if !options.is_object() || crate::js_json::is_array_value(options) {
        let kind = if options.is_object() {
            "an array".to_string()
        } else {
            format!("a {}", options.js_typeof().as_string().unwrap_or_default())
        };
        return Err(invalid("", format!("expected an object, not {kind}")));
    }
    let keys = crate::compact::own_keys(options, "")?;
    check_keys(keys.iter().map(String::as_str), EXTRACTIVE_KEYS, "")?;
    let Some(max) = crate::compact::get(options, "maxBytes")? else { return Ok(default) };
    match max.as_f64() {
        Some(n) if n.is_finite() && n >= 128.0 && n.fract() == 0.0 => {
            Ok(ExtractiveSummarizer { max_bytes: n as usize, ..default })
        }
        _ => Err(invalid(".maxBytes", "expected a whole number of bytes, at least 128")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_known_keys_are_the_declared_ones() {
        for key in EXTRACTIVE_KEYS {
            assert!(ExtractiveOptions::DECL.contains(&format!("{key}?:")), "{key} is not declared");
        }
        let declared = ExtractiveOptions::DECL.matches("?:").count();
        assert_eq!(declared, EXTRACTIVE_KEYS.len(), "{}", ExtractiveOptions::DECL);
    }
}
