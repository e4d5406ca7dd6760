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

/// Shortest run of base64 digits read as binary data rather than as words.
const BINARY_DIGITS: usize = 200;

/// What a summarizer reads of a string holding inline binary data (a `data:` URL, a run of
/// base64 digits such as a generated image): its kind and size, never its digits, which
/// it cannot read and which would fill its prompt.
pub(crate) fn binary_text(s: &str) -> Option<String> {
    if let Some((media_type, bytes)) = crate::format::data_url::describe(s) {
        return Some(format!("[{media_type}, {bytes} bytes]"));
    }
    let digits = s.trim_end_matches('=');
    let base64 = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_');
    if digits.len() < BINARY_DIGITS || !digits.bytes().all(base64) {
        return None;
    }
    let head = crate::format::base64::decode_head(digits, 16).unwrap_or_default();
    let kind = if crate::format::media_type::image_type(&head).is_some() { "image" } else { "binary data" };
    Some(format!("[{kind}, {} bytes]", digits.len().saturating_mul(3) / 4))
}

/// A string field of a block, `""` when absent.
pub(crate) fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The strings found anywhere in a value: every string of an array, and of an object
/// those under one of `keys`, in order.
pub(crate) fn texts(v: &Value, keys: &[&str], out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(binary_text(s).unwrap_or_else(|| s.clone())),
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
