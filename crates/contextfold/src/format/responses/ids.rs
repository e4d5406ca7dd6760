//! Where a Responses item read into a [`Message`] keeps its output-item `id`, for the rules
//! that need it: the API rejects an input holding one id twice ("Duplicate item found with
//! id"), and, with `store: true`, an item whose reasoning item is not in the input
//! ("... was provided without its required 'reasoning' item").
//!
//! - a reasoning part: its own `id` field (in `extra`);
//! - a function or custom tool call: the `id` shadowed by the call's native `id` (which
//!   holds its `call_id`);
//! - an assistant message item: the `item` marker of its first part;
//! - a server-side item (native block): the item carried;
//! - an `mcp_call` (read as a call and its result): the call's id, which is the item's;
//! - a message read from an item with an `id` (a tool output, an input message): its own
//!   `extra`.
//!
//! Built-in client calls and their outputs pair with their call by `call_id`: their items
//! are carried verbatim and are not counted here.

use super::{native, NAMESPACE};
use crate::format::fields::SHADOWED;
use crate::message::{Message, Part};
use serde_json::Value;

/// What an item without its `id` becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    /// The API takes the item without an `id` (a call, a message, an output).
    Optional,
    /// The API wants the `id` (a reasoning item, a server-side item): the item goes
    /// with it.
    Required,
}

/// The output-item `id` `part` carries, if any, and what the item is without it.
pub fn part_id(part: &Part) -> Option<(&str, IdKind)> {
    match part {
        Part::Reasoning(r) => r.extra.get("id").and_then(Value::as_str).map(|id| (id, IdKind::Required)),
        // Its item is written back verbatim, `id` and all: a later copy goes whole.
        Part::ToolCall(c) if native::is_mcp_call(c) => Some((c.id.as_str(), IdKind::Required)),
        Part::ToolCall(c) if native::block_of(&c.extra).is_none() => {
            marker_id(&c.extra, SHADOWED).map(|id| (id, IdKind::Optional))
        }
        Part::Text(t) => match native::item_of(t) {
            Some(item) => item
                .get("id")
                .and_then(Value::as_str)
                .filter(|_| item.get("type").and_then(Value::as_str) != Some("item_reference"))
                .map(|id| (id, IdKind::Required)),
            _ => marker_id(&t.extra, "item").map(|id| (id, IdKind::Optional)),
        },
        _ => None,
    }
}

/// The item `id` of the `mcp_call` whose output `part` is (the result half of the item the
/// call part carries too): it goes with its call.
pub fn mcp_output_id(part: &Part) -> Option<&str> {
    match part {
        Part::ToolResult(r) => {
            native::result_item(r).filter(|(_, t)| *t == native::MCP_CALL).map(|_| r.call_id.as_str())
        }
        _ => None,
    }
}

/// The `id` a message read from one item (a tool output, an input message) carries.
pub fn message_id(message: &Message) -> Option<&str> {
    message.extra.get("id").and_then(Value::as_str)
}

/// Drops the `id` of an item the API takes without one ([`IdKind::Optional`]). Returns
/// the id dropped.
pub fn drop_part_id(part: &mut Part) -> Option<String> {
    let (key, extra) = match part {
        Part::ToolCall(c) if native::block_of(&c.extra).is_none() => (SHADOWED, &mut c.extra),
        Part::Text(t) if native::item_of(t).is_none() => ("item", &mut t.extra),
        _ => return None,
    };
    let markers = extra.get_mut(NAMESPACE)?.as_object_mut()?;
    let fields = markers.get_mut(key)?.as_object_mut()?;
    let id = fields.remove("id")?;
    if fields.is_empty() {
        markers.remove(key);
    }
    if markers.is_empty() {
        extra.remove(NAMESPACE);
    }
    id.as_str().map(str::to_string)
}

/// Drops the `id` of a message read from one item. Returns the id dropped.
pub fn drop_message_id(message: &mut Message) -> Option<String> {
    message.extra.remove("id").and_then(|id| id.as_str().map(str::to_string))
}

/// After clearing reasoning ([`crate::ChainAst::clear_reasoning`]): drops the `id` of each
/// item of a turn that lost its reasoning (`original`: the messages before, one for one),
/// where the API takes the item without one. With `store: true` the API looks an item up
/// by its id and rejects it without its reasoning ("Item 'fc_…' of type 'function_call'
/// was provided without its required 'reasoning' item"); without an id, the item is new
/// input (an assistant message an easy message). Returns the ids dropped, in chain order.
pub fn drop_ids_without_reasoning(original: &[Message], cleared: &mut [Message]) -> Vec<String> {
    let mut dropped = Vec::new();
    for (before, after) in original.iter().zip(cleared.iter_mut()) {
        let had_reasoning = before.parts.iter().any(|p| matches!(p, Part::Reasoning(_)));
        if had_reasoning && !after.parts.iter().any(|p| matches!(p, Part::Reasoning(_))) {
            dropped.extend(after.parts.iter_mut().filter_map(drop_part_id));
        }
    }
    dropped
}

fn marker_id<'a>(extra: &'a crate::message::Extra, key: &str) -> Option<&'a str> {
    extra.get(NAMESPACE)?.get(key)?.get("id")?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(items: Value) -> Vec<Message> {
        crate::format::responses::read(&items).unwrap()
    }

    #[test]
    fn finds_the_id_of_each_item_kind() {
        let messages = read(json!([
            {"role": "user", "content": "hi"},
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "id": "fco_1", "call_id": "c1", "output": "ok"},
            {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search"}},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": "done", "annotations": []}]}
        ]));
        let ids: Vec<(&str, IdKind)> = messages.iter().flat_map(|m| &m.parts).filter_map(part_id).collect();
        assert_eq!(
            ids,
            [
                ("rs_1", IdKind::Required),
                ("fc_1", IdKind::Optional),
                ("ws_1", IdKind::Required),
                ("msg_1", IdKind::Optional)
            ]
        );
        assert_eq!(messages.iter().filter_map(message_id).collect::<Vec<_>>(), ["fco_1"]);
    }

    #[test]
    fn a_dropped_id_is_not_written() {
        let mut messages = read(json!([
            {"role": "user", "content": "hi"},
            {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "ok"},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": "done", "annotations": []}]}
        ]));
        let dropped: Vec<String> =
            messages.iter_mut().flat_map(|m| m.parts.iter_mut()).filter_map(drop_part_id).collect();
        assert_eq!(dropped, ["fc_1", "msg_1"]);
        let written = crate::format::responses::write(&messages).unwrap();
        assert_eq!(
            written,
            json!([
                {"role": "user", "content": "hi"},
                {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c1", "output": "ok"},
                {"type": "message", "role": "assistant", "content": "done", "status": "completed"}
            ])
        );
    }

    #[test]
    fn items_of_a_turn_that_lost_its_reasoning_lose_their_ids() {
        let original = read(json!([
            {"role": "user", "content": "6*7?"},
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "e1"},
            {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "calc", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "42"},
            {"type": "function_call", "id": "fc_2", "call_id": "c2", "name": "calc", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c2", "output": "42"},
            {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "e2"},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": "42", "annotations": []}]}
        ]));
        let mut cleared = original.clone();
        for m in &mut cleared {
            m.parts.retain(|p| !matches!(p, Part::Reasoning(_)));
        }
        // fc_2 came in a turn without reasoning: it keeps its id.
        assert_eq!(drop_ids_without_reasoning(&original, &mut cleared), ["fc_1", "msg_1"]);
        let ids: Vec<&str> = cleared.iter().flat_map(|m| &m.parts).filter_map(part_id).map(|(id, _)| id).collect();
        assert_eq!(ids, ["fc_2"]);
    }
}
