//! `Session`: the core's [`contextfold::session::Session`] held in wasm for `History`, so
//! that a push reads only the pushed messages and the trigger reads no chain from JS.
//! Internal to the package (not re-exported by its entry points).

use crate::compact::TriggerOptions;
use crate::convert::messages_from_js;
use crate::error::{BindingError, JsResult};
use contextfold::session::Pushed;
use serde_json::Value;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(js_name = __Session, skip_typescript)]
pub struct Session {
    inner: contextfold::session::Session,
    trigger: TriggerOptions,
}

#[wasm_bindgen(js_class = __Session)]
impl Session {
    /// An empty session for the options of `compact` (checked as `needsCompaction`
    /// checks them).
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_optional_param_type = "NeedsCompactionOptions")] options: JsValue,
    ) -> JsResult<Session> {
        let trigger = TriggerOptions::read(&options)?;
        let inner = contextfold::session::Session::new(trigger.format, trigger.strategy.clone(), trigger.provider);
        Ok(Session { inner, trigger })
    }

    /// Appends messages (an array, or its JSON text). `false` when the session must be
    /// given the whole array again with `reset` (the detected format changed). Throws
    /// when a message cannot be read, leaving the session as it was.
    pub fn push(&mut self, #[wasm_bindgen(unchecked_param_type = "unknown")] messages: JsValue) -> JsResult<bool> {
        let items = array(messages_from_js(messages)?)?;
        let pushed = self.inner.push(items, self.trigger.meter()).map_err(BindingError::from)?;
        self.trigger.check_counter()?;
        Ok(pushed == Pushed::Held)
    }

    /// Holds `messages` (the whole array) in place of what the session held.
    pub fn reset(&mut self, #[wasm_bindgen(unchecked_param_type = "unknown")] messages: JsValue) -> JsResult<()> {
        let items = array(messages_from_js(messages)?)?;
        self.inner.reset(items, self.trigger.meter()).map_err(BindingError::from)?;
        self.trigger.check_counter()
    }

    /// Whether `compact` would do anything now, as `needsCompaction` answers it.
    #[wasm_bindgen(js_name = needsCompaction)]
    pub fn needs_compaction(&self) -> JsResult<bool> {
        let needed = self.inner.needs_compaction(self.trigger.meter());
        self.trigger.check_counter()?;
        Ok(needed)
    }

    /// The messages' total in the unit of the strategy's budget (tokens by default).
    #[wasm_bindgen(getter)]
    pub fn total(&self) -> usize {
        self.inner.total()
    }
}

/// The items of a message array.
fn array(value: Value) -> JsResult<Vec<Value>> {
    match value {
        Value::Array(items) => Ok(items),
        _ => Err(BindingError::Argument("History holds message arrays".into()).into()),
    }
}
