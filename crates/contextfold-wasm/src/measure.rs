//! `estimateTokens` and `measureChain`: the built-in token estimate, exposed so that
//! callers (and the accuracy benchmark) see exactly what the strategies count.

use crate::convert::{format_option, messages_from_js, read_messages, to_js};
use crate::error::{BindingError, JsResult};
use crate::types::{ChainFormat, Role, Totals};
use contextfold::measure::{estimate_message_tokens, estimate_text_tokens};
use contextfold::message::{Message, Part};
use serde::Serialize;
use tsify::Tsify;
use wasm_bindgen::prelude::*;

/// Options of `measureChain`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Tsify)]
pub struct MeasureOptions {
    /// The format of `messages`; `"auto"` (default) detects it.
    #[tsify(optional, type = "\"auto\" | ChainFormat")]
    pub format: Option<String>,
}

/// Size of one message: bytes as the strategies count them, and estimated tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct MessageMeasure {
    pub role: Role,
    /// What the message mostly holds: `"text"`, `"reasoning"`, `"toolCall"`, `"toolResult"` or `"media"`.
    #[tsify(type = "\"text\" | \"reasoning\" | \"toolCall\" | \"toolResult\" | \"media\"")]
    pub kind: &'static str,
    pub bytes: usize,
    pub tokens: usize,
    /// Every text the estimate counts (text, reasoning, tool names, arguments, results), in order.
    pub texts: Vec<String>,
    /// Tokens the estimate adds beyond those texts (message overhead, tool framing, media).
    pub fixed_tokens: usize,
}

/// What `measureChain` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
pub struct ChainMeasure {
    pub format: ChainFormat,
    pub messages: Vec<MessageMeasure>,
    pub total: Totals,
}

/// The estimated tokens of a text, as contextfold counts them. Anything but a string
/// throws a `ContextfoldError` (`invalid_shape`, path `""`).
#[wasm_bindgen(js_name = estimateTokens)]
pub fn estimate_tokens(#[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> JsResult<usize> {
    match text.as_string() {
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
    let (messages, format) = read_messages(&value, format).map_err(BindingError::from)?;
    to_js(&measure(&messages, format.into()))
}

pub fn measure(messages: &[Message], format: ChainFormat) -> ChainMeasure {
    let list = messages
        .iter()
        .map(|m| {
            let mut texts = Vec::new();
            collect(&m.parts, &mut texts);
            let tokens = estimate_message_tokens(m);
            let counted: usize = texts.iter().map(|t| estimate_text_tokens(t)).sum();
            MessageMeasure {
                role: m.role.into(),
                kind: kind(m),
                bytes: m.size(),
                tokens,
                texts,
                fixed_tokens: tokens.saturating_sub(counted),
            }
        })
        .collect();
    ChainMeasure { format, messages: list, total: contextfold::strategy::Totals::of(messages).into() }
}

fn collect(parts: &[Part], texts: &mut Vec<String>) {
    for p in parts {
        match p {
            Part::Text(t) => texts.push(t.text.clone()),
            Part::Reasoning(r) => texts.push(r.text.clone()),
            Part::ToolCall(c) => {
                texts.push(c.name.clone());
                texts.push(c.arguments.clone());
            }
            Part::ToolResult(r) => collect(&r.content, texts),
            Part::Image(_) | Part::File(_) => {}
        }
    }
}

/// The kind of the message's largest part.
fn kind(m: &Message) -> &'static str {
    let weight = |p: &Part| match p {
        Part::Text(t) => ("text", t.text.len()),
        Part::Reasoning(r) => ("reasoning", r.text.len()),
        Part::ToolCall(c) => ("toolCall", c.arguments.len().saturating_add(c.name.len())),
        Part::ToolResult(r) => ("toolResult", r.content.iter().map(Part::size).sum()),
        Part::Image(_) | Part::File(_) => ("media", 0),
    };
    m.parts.iter().map(weight).max_by_key(|(_, w)| *w).map_or("text", |(k, _)| k)
}
