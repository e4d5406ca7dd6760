//! A caller's JS tokenizer behind the core's [`TokenCounter`]: one call per batch of
//! texts (`(texts: string[]) => number[]`), never one per message.
//!
//! The core's counter has no error channel (counting cannot fail in Rust), so a JS
//! counter that throws or answers with something other than one non-negative integer
//! per text is recorded here, the estimate stands in for that batch, and the export
//! turns the record into a `ContextfoldError` (`token_counter_failed`) before it returns
//! anything: a broken counter never yields a silently mis-measured result. A compaction
//! given a cancel flag ([`JsTokenCounter::cancel_on_failure`]) is cancelled at the first
//! failure, so that no summary call (a paid LLM call) starts for a result that will be
//! thrown away.
//!
//! Every read of what the counter returned is guarded (a Proxy or an accessor may throw):
//! a JS exception thrown through wasm would skip Rust's unwinding and leave its state
//! borrowed.

use crate::error::BindingError;
use contextfold::measure::{EstimateCounter, TokenCounter};
use contextfold::summarize::CancelFlag;
use js_sys::{Array, Function, Reflect};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

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
    /// Cancelled at the first failure.
    cancel: RefCell<Option<CancelFlag>>,
}

impl JsTokenCounter {
    pub fn new(function: Function) -> Self {
        JsTokenCounter { function, failure: RefCell::new(None), cancel: RefCell::new(None) }
    }

    /// Cancels `flag` at the first failure of the counter (at once if it already failed).
    pub fn cancel_on_failure(&self, flag: CancelFlag) {
        if self.failure.borrow().is_some() {
            flag.cancel();
        }
        *self.cancel.borrow_mut() = Some(flag);
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
        if !Array::is_array(&output) {
            return Err("did not return an array".to_string());
        }
        let read = |key: JsValue, what: &str| {
            Reflect::get(&output, &key).map_err(|e| format!("reading {what} threw {}", crate::bridge::describe_js(&e)))
        };
        let length = read(JsValue::from_str("length"), "the length")?.as_f64().unwrap_or(f64::NAN);
        if length != texts.len() as f64 {
            return Err(format!("returned {length} counts for {} texts", texts.len()));
        }
        (0..texts.len())
            .map(|i| {
                let v = read(JsValue::from_f64(i as f64), &format!("the count at index {i}"))?;
                match v.as_f64() {
                    Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 9.0e15 => Ok(n as usize),
                    _ => Err(format!(
                        "the count at index {i} is {}, not a whole number 0 or more",
                        crate::bridge::describe_js(&v)
                    )),
                }
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
                Err(message) => {
                    *self.failure.borrow_mut() = Some(message);
                    if let Some(flag) = self.cancel.borrow().as_ref() {
                        flag.cancel();
                    }
                }
            }
        }
        EstimateCounter.count_texts(texts)
    }
}
