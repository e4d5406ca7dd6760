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
use crate::repair::Diagnostic;
use serde_json::{Map, Value};

/// The request-object fields of a format: (system field, message list field).
fn request_fields(format: Format) -> Option<(&'static str, &'static str)> {
    match format {
        Format::Anthropic => Some(("system", "messages")),
        Format::Gemini => Some(("systemInstruction", "contents")),
        _ => None,
    }
}

/// The JSON path of the wire message each of the `total` messages read from `value`
/// came from; `None` when that cannot be told.
pub fn message_paths(value: &Value, format: Format, total: usize) -> Option<Vec<String>> {
    let root = JsonPath::root();
    let mut paths: Vec<String> = Vec::with_capacity(total);
    let (items, list_path) = match (value, request_fields(format)) {
        (Value::Array(items), _) => (items, root),
        (Value::Object(request), Some((system_field, list_field))) => {
            if let Some(system) = request.get(system_field) {
                let alone: Map<String, Value> =
                    [(system_field.to_string(), system.clone()), (list_field.to_string(), Value::Array(Vec::new()))]
                        .into_iter()
                        .collect();
                let count = read(&Value::Object(alone), format).ok()?.len();
                paths.extend(std::iter::repeat_n(root.key(system_field).to_string(), count));
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

/// Points each diagnostic's `path` at the wire message its message came from (`index`
/// stays the position in the chain as read). Native input needs no map: its paths are
/// already exact, down to the part.
pub fn locate(mut diagnostics: Vec<Diagnostic>, value: &Value, format: Format, total: usize) -> Vec<Diagnostic> {
    if diagnostics.is_empty() || format == Format::Native {
        return diagnostics;
    }
    if let Some(paths) = message_paths(value, format, total) {
        for d in &mut diagnostics {
            if let Some(path) = paths.get(d.index) {
                d.path.clone_from(path);
            }
        }
    }
    diagnostics
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::{validate, Provider};
    use serde_json::json;

    #[test]
    fn anthropic_request_paths_point_into_the_request() {
        // The second user message holds a result and text: two native messages.
        let wire = json!({"system": "S", "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "a"},
                {"type": "text", "text": "and?"}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "nope", "content": "x"}]}
        ]});
        let messages = read(&wire, Format::Anthropic).unwrap_or_default();
        assert_eq!(messages.len(), 6);
        let paths = message_paths(&wire, Format::Anthropic, messages.len()).unwrap_or_default();
        assert_eq!(paths, ["system", "messages[0]", "messages[1]", "messages[2]", "messages[2]", "messages[3]"]);
        let found = locate(validate(&messages, Provider::Anthropic), &wire, Format::Anthropic, messages.len());
        let orphan = found.iter().find(|d| d.code == "orphan_result").map(|d| (d.index, d.path.as_str()));
        assert_eq!(orphan, Some((5, "messages[3]")));
    }

    #[test]
    fn a_count_that_does_not_add_up_leaves_paths_alone() {
        let wire = json!([{"role": "user", "content": "q"}]);
        assert_eq!(message_paths(&wire, Format::OpenAi, 2), None);
        assert_eq!(message_paths(&json!("x"), Format::OpenAi, 0), None);
        let d = Diagnostic { code: "x", index: 0, path: "[0].parts[1]".into(), message: String::new() };
        assert_eq!(locate(vec![d.clone()], &wire, Format::Native, 1), vec![d]);
    }
}
