//! The Responses output a ChatOpenAI message replays. `@langchain/openai` keeps a
//! Responses API answer's output items in the AI message's `response_metadata.output` and,
//! when that is set, sends them back verbatim for the message
//! (`convertMessagesToResponsesInput`), not what its `content`, `tool_calls` and
//! `additional_kwargs` say. An edit of the message (reasoning cleared, a text or call's
//! arguments masked) would not reach the request: the reader marks such a message with a
//! fingerprint of its parts, and the writer drops `output` from a message whose parts
//! changed since, so that ChatOpenAI builds the request from the fields written.

use super::NAMESPACE;
use crate::format::fields::add_marker;
use crate::format::wire::Restore;
use crate::message::{Extra, Message, Part};
use serde_json::{Map, Value};

const METADATA: &str = "response_metadata";
const OUTPUT: &str = "output";
/// The marker holding the fingerprint of the parts read.
const MARK: &str = "output";
/// Where ChatOpenAI keeps the Responses ids of a message's function calls (`call_id` ->
/// `fc_...`), and sends them from once `output` is gone.
const CALL_IDS: &str = "__openai_function_call_ids__";

fn fingerprint(parts: &[Part]) -> String {
    let value = serde_json::to_value(parts).unwrap_or_default();
    format!("{:016x}", crate::reuse::fingerprint(&value))
}

/// Whether a message's `extra` holds a non-empty `response_metadata.output` array.
fn has_output(extra: &Extra) -> bool {
    extra.get(METADATA).and_then(|m| m.get(OUTPUT)).and_then(Value::as_array).is_some_and(|o| !o.is_empty())
}

/// Marks an AI message read with a replayed output with the fingerprint of its parts.
pub(super) fn mark(message: &mut Message) {
    if has_output(&message.extra) {
        let print = fingerprint(&message.parts);
        add_marker(&mut message.extra, NAMESPACE, MARK, Value::from(print));
    }
}

/// The message's `response_metadata` without `output` when its parts are not those read
/// (see [`mark`]), to write over the one kept; `None` when it stays as it came.
pub(super) fn stale_metadata(message: &Message) -> Option<Value> {
    let print = Restore::new(&message.extra, NAMESPACE).marker_str(MARK)?;
    if !has_output(&message.extra) || fingerprint(&message.parts) == print {
        return None;
    }
    let mut metadata = message.extra.get(METADATA).and_then(Value::as_object).cloned().unwrap_or_else(Map::new);
    metadata.shift_remove(OUTPUT);
    Some(Value::Object(metadata))
}

/// After `clearReasoning` (`before` -> `after`, message by message): an AI message that
/// lost its Responses reasoning item loses the Responses ids of its function calls too,
/// as a Responses chain's items do (with `store: true` the API rejects a function call by
/// its id without its reasoning item). Returns the ids dropped, in chain order.
pub fn drop_call_ids_without_reasoning(before: &[Message], after: &mut [Message]) -> Vec<String> {
    let mut dropped = Vec::new();
    for (old, new) in before.iter().zip(after.iter_mut()) {
        let had = old.parts.iter().any(|p| matches!(p, Part::Reasoning(r) if super::responses_item::is_item(&r.extra)));
        let has = new.parts.iter().any(|p| matches!(p, Part::Reasoning(_)));
        if !had || has {
            continue;
        }
        let Some(Value::Object(kwargs)) = new.extra.get_mut(super::responses_item::KWARGS_KEY) else { continue };
        if let Some(Value::Object(ids)) = kwargs.shift_remove(CALL_IDS) {
            dropped.extend(ids.values().filter_map(Value::as_str).map(str::to_string));
        }
    }
    dropped
}
