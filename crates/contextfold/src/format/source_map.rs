//! Where each message read from a provider's JSON came from, so that a diagnostic about
//! a message as read (`[5]` of the native chain) points into the caller's own JSON
//! (`messages[3]` of an Anthropic request, whose user message of tool results became
//! two native messages).
//!
//! Readers map one wire message to one or more native messages independently of the
//! messages around it, so reading each wire message alone gives how many native
//! messages it became. The map is only used when those counts add up to the chain as
//! read; otherwise paths stay as they were (never a wrong path).

use super::path::JsonPath;
use super::{read, Format};
use serde_json::{Map, Value};

/// The JSON path of the wire message each of the `total` messages read from `value`
/// came from; `None` when that cannot be told.
pub fn message_paths(value: &Value, format: Format, total: usize) -> Option<Vec<String>> {
    let root = JsonPath::root();
    let mut paths: Vec<String> = Vec::with_capacity(total);
    let (items, list_path) = match (value, format.request_fields()) {
        (Value::Array(items), _) => (items, root),
        (Value::Object(request), Some(fields)) => {
            let list_field = fields.messages;
            if let Some((system_field, system)) = fields.system.and_then(|k| Some((k, request.get(k)?))) {
                let alone: Map<String, Value> =
                    [(system_field.to_string(), system.clone()), (list_field.to_string(), Value::Array(Vec::new()))]
                        .into_iter()
                        .collect();
                let count = read(&Value::Object(alone), format).ok()?.len();
                paths.extend(std::iter::repeat_n(root.key(system_field).to_string(), count));
            } else if let Some((object, field)) = fields.system_in.zip(fields.system) {
                // The genai SDK's `config.systemInstruction`: one system message.
                if request.get(object).and_then(|c| c.get(field)).is_some_and(|v| !v.is_null()) {
                    paths.push(root.key(object).key(field).to_string());
                }
            }
            (request.get(list_field)?.as_array()?, root.key(list_field))
        }
        _ => return None,
    };
    for (i, item) in items.iter().enumerate() {
        let count = read(&Value::Array(vec![item.clone()]), format).ok()?.len();
        paths.extend(std::iter::repeat_n(list_path.index(i).to_string(), count));
    }
    (paths.len() == total).then_some(paths)
}
