//! `estimateTokens` and `measureChain`: the built-in token estimate, exposed so that
//! callers (and the accuracy benchmark) see exactly what the strategies count.

use crate::convert::{format_option, messages_from_js, to_js_objects};
use crate::error::{BindingError, JsResult};
use contextfold::measure::estimate_text_tokens;
use tsify::Tsify;
use wasm_bindgen::prelude::*;

/// Options of `measureChain`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Tsify)]
pub struct MeasureOptions {
    /// The format of `messages`; `"auto"` (default) detects it.
    #[tsify(optional, type = "\"auto\" | ChainFormat")]
    pub format: Option<String>,
}

pub use contextfold::inspect::{ChainMeasure, MessageMeasure};

/// The estimated tokens of a text, as contextfold counts them. Anything but a string
/// throws a `ContextfoldError` (`invalid_shape`, path `""`).
#[wasm_bindgen(js_name = estimateTokens)]
pub fn estimate_tokens(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> JsResult<usize> {
    match crate::convert::js_text(&text) {
        Some(text) => Ok(estimate_text_tokens(&text)),
        None => Err(BindingError::Argument(format!(
            "estimateTokens: expected a string, got {}",
            crate::bridge::type_of(&text)
        ))
        .into()),
    }
}

/// The keys `measureChain` reads.
const MEASURE_KEYS: &[&str] = &["format"];

/// Bytes and estimated tokens of every message of a chain, with the texts counted.
#[wasm_bindgen(js_name = measureChain, unchecked_return_type = "ChainMeasure")]
pub fn measure_chain(
    #[wasm_bindgen(unchecked_param_type = "unknown")] messages: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "MeasureOptions")] options: JsValue,
) -> JsResult<JsValue> {
    let format = if options.is_undefined() || options.is_null() {
        None
    } else if options.is_object() {
        let keys = crate::compact::own_keys(&options, "")?;
        crate::options::check_keys(keys.iter().map(String::as_str), MEASURE_KEYS, "")?;
        let value = js_sys::Reflect::get(&options, &JsValue::from_str("format")).unwrap_or(JsValue::UNDEFINED);
        match value.as_string() {
            Some(name) => format_option(Some(&name))?,
            None if value.is_undefined() || value.is_null() => None,
            None => {
                return Err(
                    BindingError::InvalidOption { path: ".format".into(), message: "expected a string".into() }.into()
                )
            }
        }
    } else {
        return Err(crate::options::invalid("", "expected an object").into());
    };
    let value = messages_from_js(messages)?;
    to_js_objects(&contextfold::pipeline::measure_json(&value, format).map_err(BindingError::from)?)
}
