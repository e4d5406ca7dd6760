//! Provider-native blocks kept verbatim: a text part whose text is a short rendering (what
//! summarizers read, what other formats get) and which carries the block itself under its
//! format's namespace, [`crate::message::NATIVE_BLOCK`] marker, for that format's writer
//! to write back unchanged. Sizes and token estimates count the block.

use crate::format::fields::Markers;
use crate::message::{Extra, Part, TextPart, NATIVE_BLOCK};
use serde_json::Value;

/// The text part standing for `block` of the format whose marker namespace is `namespace`.
pub(crate) fn part(block: &Value, namespace: &str, rendering: String) -> Part {
    let mut markers = Markers::default();
    markers.set(NATIVE_BLOCK, block.clone());
    let mut extra = Extra::new();
    extra.insert(namespace.to_string(), markers.into_value());
    Part::Text(TextPart { text: rendering, extra })
}

/// The block of the format of `namespace` a text part stands for, when it is one.
pub(crate) fn of<'a>(part: &'a TextPart, namespace: &str) -> Option<&'a Value> {
    part.extra.get(namespace)?.get(NATIVE_BLOCK)
}

/// `text` on one line, at most `max` characters (then `…`).
pub(crate) fn short(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let cut: String = flat.chars().take(max).collect();
    format!("{cut}…")
}

/// A string field of a block, `""` when absent.
pub(crate) fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The strings found anywhere in a value: every string of an array, and of an object
/// those under one of `keys`, in order.
pub(crate) fn texts(v: &Value, keys: &[&str], out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|i| texts(i, keys, out)),
        Value::Object(map) => {
            for (k, item) in map {
                if keys.contains(&k.as_str()) {
                    texts(item, keys, out);
                }
            }
        }
        _ => {}
    }
}
