//! A caller's JS tokenizer behind the core's [`TokenCounter`]: one call per batch of
//! texts (`(texts: string[]) => number[]`), never one per message.
//!
//! The core's counter has no error channel (counting cannot fail in Rust), so a JS
//! counter that throws or answers with something other than one non-negative integer
//! per text is recorded here, the estimate stands in for that batch, and the export
//! turns the record into a `ContextfoldError` (`token_counter_failed`) before it returns
//! anything: a broken counter never yields a silently mis-measured result.

use crate::error::BindingError;
use contextfold::measure::{EstimateCounter, TokenCounter};
use js_sys::{Array, Function};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

// A function type: tsify declares data types only, so this one stays hand-written.
#[wasm_bindgen(typescript_custom_section)]
const TS_COUNTER: &str = r#"
/**
 * Counts the tokens of many texts at once (one count per text, in order), so a JS
 * tokenizer is called once per batch. Example with gpt-tokenizer:
 * `(texts) => texts.map((t) => countTokens(t))`.
 */
export type TokenCounter = (texts: string[]) => number[];
"#;

pub struct JsTokenCounter {
    function: Function,
    failure: RefCell<Option<String>>,
}

impl JsTokenCounter {
    pub fn new(function: Function) -> Self {
        JsTokenCounter { function, failure: RefCell::new(None) }
    }

    /// The first failure of the JS counter, as the error the export throws.
    pub fn check(&self) -> Result<(), BindingError> {
        match self.failure.borrow().clone() {
            None => Ok(()),
            Some(message) => Err(BindingError::TokenCounter(message)),
        }
    }

    fn call(&self, texts: &[&str]) -> Result<Vec<usize>, String> {
        let input: Array = texts.iter().map(|t| JsValue::from_str(t)).collect();
        let output = self.function.call1(&JsValue::UNDEFINED, &input).map_err(|e| crate::bridge::describe_js(&e))?;
        let array = output.dyn_into::<Array>().map_err(|_| "did not return an array".to_string())?;
        if array.length() as usize != texts.len() {
            return Err(format!("returned {} counts for {} texts", array.length(), texts.len()));
        }
        array
            .iter()
            .enumerate()
            .map(|(i, v)| match v.as_f64() {
                Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 9.0e15 => Ok(n as usize),
                _ => Err(format!(
                    "the count at index {i} is {}, not a whole number 0 or more",
                    crate::bridge::describe_js(&v)
                )),
            })
            .collect()
    }
}

impl TokenCounter for JsTokenCounter {
    fn count_texts(&self, texts: &[&str]) -> Vec<usize> {
        if texts.is_empty() {
            return Vec::new();
        }
        if self.failure.borrow().is_none() {
            match self.call(texts) {
                Ok(counts) => return counts,
                Err(message) => *self.failure.borrow_mut() = Some(message),
            }
        }
        EstimateCounter.count_texts(texts)
    }
}
