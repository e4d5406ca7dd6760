//! An option's JS value as JSON data, read with accessors that catch what JS throws.
//!
//! serde-wasm-bindgen reads objects through bindings that do not catch: a throwing getter
//! or a revoked `Proxy` (an immer draft kept after `produce`) inside an option threw a JS
//! exception through the wasm frames, which inside `compact`'s future left its Promise
//! unsettled for ever. It also reads NaN and Infinity as JSON `null` (absent: the default
//! applied in silence) and a `Set` or a function as an error at the option, worded in
//! Rust's debug form. Here every read is caught, and every value JSON cannot hold is an
//! `invalid_option` at the exact path of the culprit (`.strategy.excludeTools`).

use crate::bridge::describe_js;
use crate::error::BindingError;
use crate::options::invalid;
use serde_json::{Map, Number, Value};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    fn object_keys(value: &JsValue) -> Result<js_sys::Array, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Object, js_name = getPrototypeOf)]
    fn prototype_of(value: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn is_array(value: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = get)]
    fn reflect_get(target: &JsValue, key: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = getOwnPropertyDescriptor)]
    fn own_descriptor(target: &JsValue, key: &JsValue) -> Result<JsValue, JsValue>;
}

/// Deeper than any option holds: a cycle, reported rather than followed.
const MAX_DEPTH: usize = 64;

/// The largest integer a double holds exactly (2^53 - 1).
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// `value` as JSON, `None` when it is `undefined`. Object members that are `undefined`
/// are left out (as `JSON.stringify` does). Errors are `invalid_option` under `path`
/// (`.strategy`, then `.strategy.recent`, `.strategy.excludeTools[1]`).
pub fn to_json(value: &JsValue, path: &str) -> Result<Option<Value>, BindingError> {
    read(value, path, 0)
}

/// `own_keys` of an object, caught: the own enumerable string keys (`Object.keys`).
pub fn keys_of(value: &JsValue, path: &str) -> Result<Vec<String>, BindingError> {
    let keys = object_keys(value).map_err(|e| unreadable(path, &e))?;
    Ok(keys.iter().filter_map(|k| k.as_string()).collect())
}

/// Whether `value` is an array (`Array.isArray`, which throws on a revoked proxy: `false` then).
pub fn is_array_value(value: &JsValue) -> bool {
    is_array(value).unwrap_or(false)
}

/// `value[key]`, caught.
pub fn get(value: &JsValue, key: &str, path: &str) -> Result<JsValue, BindingError> {
    reflect_get(value, &JsValue::from_str(key)).map_err(|e| unreadable(path, &e))
}

/// Whether `key` is an own enumerable property of the object `value` (a key `Object.keys`
/// lists), caught.
pub fn is_own_enumerable(value: &JsValue, key: &str, path: &str) -> Result<bool, BindingError> {
    let descriptor = own_descriptor(value, &JsValue::from_str(key)).map_err(|e| unreadable(path, &e))?;
    if descriptor.is_undefined() {
        return Ok(false);
    }
    Ok(get(&descriptor, "enumerable", path)?.is_truthy())
}

fn unreadable(path: &str, error: &JsValue) -> BindingError {
    invalid(path, format!("could not be read: {}", describe_js(error)))
}

fn not_json(path: &str, what: &str) -> BindingError {
    invalid(path, format!("expected JSON data (an object, array, string, number, boolean or null), not {what}"))
}

fn read(value: &JsValue, path: &str, depth: usize) -> Result<Option<Value>, BindingError> {
    if value.is_undefined() {
        return Ok(None);
    }
    if value.is_null() {
        return Ok(Some(Value::Null));
    }
    if let Some(b) = value.as_bool() {
        return Ok(Some(Value::Bool(b)));
    }
    if let Some(n) = value.as_f64() {
        return number(n, path).map(Some);
    }
    if let Some(s) = value.as_string() {
        return Ok(Some(Value::String(s)));
    }
    if value.is_function() {
        return Err(not_json(path, "a function"));
    }
    if !value.is_object() {
        // A symbol or a bigint.
        let kind = value.js_typeof().as_string().unwrap_or_default();
        return Err(not_json(path, &format!("a {kind}")));
    }
    if depth >= MAX_DEPTH {
        return Err(invalid(path, format!("nested more than {MAX_DEPTH} levels deep (a cycle?)")));
    }
    if is_array(value).map_err(|e| unreadable(path, &e))? {
        let length = get(value, "length", path)?.as_f64().unwrap_or(0.0);
        let mut items = Vec::new();
        // Indices of an array: below 2^32.
        for index in 0..(length as u32) {
            let at = format!("{path}[{index}]");
            let item = get(value, &index.to_string(), &at)?;
            // `JSON.stringify` writes a hole or `undefined` in an array as `null`.
            items.push(read(&item, &at, depth + 1)?.unwrap_or(Value::Null));
        }
        return Ok(Some(Value::Array(items)));
    }
    check_plain(value, path)?;
    let mut map = Map::new();
    for key in keys_of(value, path)? {
        let at = format!("{path}.{key}");
        if let Some(item) = read(&get(value, &key, &at)?, &at, depth + 1)? {
            map.insert(key, item);
        }
    }
    Ok(Some(Value::Object(map)))
}

/// A plain object: made by `{}` or `Object.create(null)` (in any realm), not a `Set`, a
/// `Map`, a `Date` or another class's instance, whose content is not in its own keys.
fn check_plain(value: &JsValue, path: &str) -> Result<(), BindingError> {
    let prototype = prototype_of(value).map_err(|e| unreadable(path, &e))?;
    if prototype.is_null() || prototype_of(&prototype).map_err(|e| unreadable(path, &e))?.is_null() {
        return Ok(());
    }
    let name = get(&prototype, "constructor", path)
        .ok()
        .and_then(|c| get(&c, "name", path).ok())
        .and_then(|n| n.as_string())
        .filter(|n| !n.is_empty());
    Err(not_json(path, &name.map_or_else(|| "an instance of a class".to_string(), |n| format!("a {n}"))))
}

/// A JS number as JSON: an integer as one (so that it reads as an integer setting), any
/// other finite number as a float; NaN and the infinities are no JSON number.
fn number(n: f64, path: &str) -> Result<Value, BindingError> {
    if !n.is_finite() {
        return Err(invalid(path, format!("expected a finite number, not {}", js_number(n))));
    }
    if n.fract() == 0.0 && n.abs() <= MAX_SAFE {
        // Exact: an integer of at most 53 bits (`-0` becomes 0).
        return Ok(Value::Number(Number::from(n as i64)));
    }
    Ok(Number::from_f64(n).map_or(Value::Null, Value::Number))
}

/// How JS writes a number that is not finite.
fn js_number(n: f64) -> &'static str {
    if n.is_nan() {
        "NaN"
    } else if n > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    }
}
