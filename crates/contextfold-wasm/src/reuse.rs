//! Hands kept messages back as the caller's own JS objects.
//!
//! Converting a large chain from Rust to JS costs more than the compaction itself, and
//! most of a compacted chain is messages kept as they were. So for input given as JS
//! objects, the package's JS layer asks for a reuse plan instead of the messages: one
//! item per output message, either the index of the identical input message (the JS
//! layer puts the caller's own object there) or the new message itself. Only new
//! messages cross the boundary, and kept ones stay the very same objects (`===`).

use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

/// One output message: an input index, or a new message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ReuseItem {
    Keep(usize),
    New(Value),
}

/// The message array of a chain value: the value itself, or the `messages` of an
/// Anthropic `{ system, messages }` request.
fn message_array(value: &Value) -> Option<&Vec<Value>> {
    match value {
        Value::Array(list) => Some(list),
        Value::Object(map) => map.get("messages").and_then(Value::as_array),
        _ => None,
    }
}

/// Splits `output` into a shell (the output with its message array emptied, `null` for
/// a bare array) and the plan for that array. `None` when the two do not have the same
/// shape (then `output` is returned whole).
pub fn plan(input: &Value, mut output: Value) -> (Value, Option<Vec<ReuseItem>>) {
    let (Some(before), true) = (message_array(input), input.is_array() == output.is_array()) else {
        return (output, None);
    };
    let after = match &mut output {
        Value::Array(list) => std::mem::take(list),
        Value::Object(map) => match map.get_mut("messages") {
            Some(Value::Array(list)) => std::mem::take(list),
            _ => return (output, None),
        },
        _ => return (output, None),
    };
    let mut by_hash: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, m) in before.iter().enumerate() {
        by_hash.entry(fingerprint(m)).or_default().push(i);
    }
    // Kept messages keep their order: match each output message to the first equal
    // input message after the previous match.
    let mut next = 0usize;
    let items = after
        .into_iter()
        .map(|m| {
            let found = by_hash.get(&fingerprint(&m)).and_then(|candidates| {
                candidates.iter().copied().find(|&i| i >= next && before.get(i).is_some_and(|b| *b == m))
            });
            match found {
                Some(i) => {
                    next = i.saturating_add(1);
                    ReuseItem::Keep(i)
                }
                None => ReuseItem::New(m),
            }
        })
        .collect();
    let shell = if output.is_array() { Value::Null } else { output };
    (shell, Some(items))
}

fn fingerprint(value: &Value) -> u64 {
    let mut h = DefaultHasher::new();
    hash_value(value, &mut h);
    h.finish()
}

fn hash_value(value: &Value, h: &mut DefaultHasher) {
    match value {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => b.hash(h),
        Value::Number(n) => n.to_string().hash(h),
        Value::String(s) => s.hash(h),
        Value::Array(list) => {
            list.len().hash(h);
            for v in list {
                hash_value(v, h);
            }
        }
        Value::Object(map) => {
            map.len().hash(h);
            for (k, v) in map {
                k.hash(h);
                hash_value(v, h);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kept_messages_become_indices_in_order_and_new_ones_stay() {
        let input = json!([{ "role": "user", "content": "a" }, { "role": "assistant", "content": "b" }, { "role": "user", "content": "a" }]);
        let output = json!([{ "role": "user", "content": "a" }, { "role": "assistant", "content": "summary" }, { "role": "user", "content": "a" }]);
        let (shell, items) = plan(&input, output);
        assert_eq!(shell, Value::Null);
        // The second "a" maps to input 2, not input 0 again: order is kept.
        assert_eq!(
            items.unwrap(),
            vec![
                ReuseItem::Keep(0),
                ReuseItem::New(json!({ "role": "assistant", "content": "summary" })),
                ReuseItem::Keep(2)
            ]
        );
    }

    #[test]
    fn an_anthropic_request_keeps_its_shell() {
        let input = json!({ "system": "s", "messages": [{ "role": "user", "content": "q" }] });
        let output = json!({ "system": "s2", "messages": [{ "role": "user", "content": "q" }] });
        let (shell, items) = plan(&input, output);
        assert_eq!(shell, json!({ "system": "s2", "messages": [] }));
        assert_eq!(items.unwrap(), vec![ReuseItem::Keep(0)]);
        let (whole, none) = plan(&json!([]), json!({ "messages": [] }));
        assert!(none.is_none());
        assert_eq!(whole, json!({ "messages": [] }));
    }
}
