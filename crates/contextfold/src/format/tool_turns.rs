//! Anthropic and Gemini carry tool results inside a user turn, next to other blocks; the
//! message model keeps them in a tool message. Readers split such a turn and record where
//! the other blocks stood (marker `mergeWithPrevious`); writers put them back there.

use super::fields::add_marker;
use crate::message::{Extra, Message, Part, Role};
use serde_json::Value;

/// A user turn holding tool results -> a tool message with the results (and `tool_extra`),
/// followed by a user message with the other parts (if any), marked in `namespace` with
/// their positions in the turn.
pub(super) fn split_tool_results(parts: Vec<Part>, tool_extra: Extra, namespace: &str) -> Vec<Message> {
    let mut results = Vec::new();
    let mut others = Vec::new();
    let mut positions = Vec::new();
    for (position, part) in parts.into_iter().enumerate() {
        match part {
            Part::ToolResult(_) => results.push(part),
            other => {
                positions.push(position);
                others.push(other);
            }
        }
    }
    let tool = Message { role: Role::Tool, parts: results, extra: tool_extra };
    if others.is_empty() {
        return vec![tool];
    }
    let mut rest = Message::new(Role::User, others);
    let mut extra = Extra::new();
    add_marker(&mut extra, namespace, "mergeWithPrevious", Value::from(positions));
    rest.extra = extra;
    vec![tool, rest]
}

/// The blocks of a split user turn put back at their recorded `positions` among the tool
/// results; positions that do not fit put them after the results.
pub(super) fn interleave(results: Vec<Value>, others: Vec<Value>, positions: &Value) -> Vec<Value> {
    let total = results.len().saturating_add(others.len());
    let positions: Option<Vec<usize>> = positions
        .as_array()
        .and_then(|items| items.iter().map(|p| p.as_u64().and_then(|n| usize::try_from(n).ok())).collect());
    let fits = positions.as_ref().is_some_and(|p| {
        p.len() == others.len()
            && p.windows(2).all(|w| matches!(w, [a, b] if a < b))
            && p.last().is_none_or(|last| *last < total)
    });
    let (Some(positions), true) = (positions, fits) else {
        let mut blocks = results;
        blocks.extend(others);
        return blocks;
    };
    let mut results = results.into_iter();
    let mut others = others.into_iter();
    (0..total).filter_map(|k| if positions.contains(&k) { others.next() } else { results.next() }).collect()
}

/// Where `user`'s blocks stood in the wire turn it was split off (marker
/// `mergeWithPrevious` in `namespace`), when it was.
fn split_positions<'a>(user: &'a Message, namespace: &str) -> Option<&'a Vec<Value>> {
    user.extra.get(namespace)?.get("mergeWithPrevious")?.as_array()
}

/// Whether `user`, split off the turn of the `results` tool results before it, had a block
/// before one of them there.
pub(crate) fn others_before_results(results: usize, user: &Message, namespace: &str) -> bool {
    split_positions(user, namespace)
        .is_some_and(|p| p.iter().any(|at| at.as_u64().is_none_or(|at| at < results as u64)))
}

/// `user`'s blocks put after the `results` tool results of their turn, in their order.
pub(crate) fn put_after_results(results: usize, user: &mut Message, namespace: &str) {
    let Some(count) = split_positions(user, namespace).map(Vec::len) else { return };
    let positions: Vec<Value> = (results..results.saturating_add(count)).map(Value::from).collect();
    add_marker(&mut user.extra, namespace, "mergeWithPrevious", Value::from(positions));
}
