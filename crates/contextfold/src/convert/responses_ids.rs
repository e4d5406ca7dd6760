//! A Responses item's `id` (`rs_...` of a reasoning item, `fc_...` of a function call),
//! which the API (and the AI SDK's OpenAI package, as `itemId`) refers to the item by.

use crate::format::fields::{add_marker, SHADOWED};
use crate::format::Format;
use crate::message::Part;
use serde_json::{Map, Value};

/// The item id of a part read from the Responses API: a reasoning item's plain field, a
/// call's shadowed one (the call's own `id` is its `call_id`).
pub(super) fn read(part: &mut Part) -> Option<Value> {
    match part {
        Part::Reasoning(reasoning) => reasoning.extra.get("id").cloned(),
        Part::ToolCall(call) => {
            let namespace = Format::OpenAiResponses.namespace()?;
            call.extra.get(namespace)?.get(SHADOWED)?.get("id").cloned()
        }
        _ => None,
    }
}

/// Puts `id` where the Responses writer writes it as the item's `id`.
pub(super) fn write(part: &mut Part, id: Value) {
    match part {
        Part::Reasoning(reasoning) => {
            reasoning.extra.insert("id".into(), id);
        }
        Part::ToolCall(call) => {
            let Some(namespace) = Format::OpenAiResponses.namespace() else { return };
            let mut shadowed = call
                .extra
                .get(namespace)
                .and_then(|m| m.get(SHADOWED))
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_else(Map::new);
            shadowed.insert("id".into(), id);
            add_marker(&mut call.extra, namespace, SHADOWED, Value::Object(shadowed));
        }
        _ => {}
    }
}
