//! One content per call turn (Gemini): the function responses to a model turn's calls
//! must all be in the one `user` content after it ("the number of function response
//! parts is equal to the number of function call parts of the function call turn"), and
//! the user's words after them join that content (turns alternate).
//!
//! A chain read from Gemini keeps its wire shape: a content of its own read after tool
//! results carries the `newMessage` marker, and the writer starts a new content for it.
//! Agent loops often store one content per response, so for Gemini that marker is the
//! rule broken; dropping it lets the writer put the message into the results' content.

use super::{Item, RepairStep};
use crate::message::{marker_namespace::GEMINI, Message, Role};
use serde_json::Value;

/// Whether `message`, right after the tool message `previous`, would be written as a
/// content of its own although it belongs to the results' content.
pub(crate) fn split(previous: &Message, message: &Message) -> bool {
    previous.role == Role::Tool && is_split_off(message)
}

/// A tool or user message marked to start a content of its own.
fn is_split_off(message: &Message) -> bool {
    matches!(message.role, Role::Tool | Role::User)
        && message.extra.get(GEMINI).and_then(|m| m.get("newMessage")).and_then(Value::as_bool) == Some(true)
}

/// Drops the marker from every split message, listing each with the first tool message
/// of the content it joins.
pub(crate) fn join(mut items: Vec<Item>, steps: &mut Vec<RepairStep>) -> Vec<Item> {
    let mut run_start: Option<usize> = None;
    let mut previous_role = None;
    for item in &mut items {
        if previous_role == Some(Role::Tool) && is_split_off(&item.msg) {
            if let Some(markers) = item.msg.extra.get_mut(GEMINI).and_then(Value::as_object_mut) {
                markers.remove("newMessage");
                if markers.is_empty() {
                    item.msg.extra.remove(GEMINI);
                }
            }
            if let Some(into) = run_start {
                steps.push(RepairStep::JoinedResultTurn { index: item.origin, into, role: item.msg.role });
            }
        }
        match item.msg.role {
            Role::Tool => run_start = run_start.or(Some(item.origin)),
            _ => run_start = None,
        }
        previous_role = Some(item.msg.role);
    }
    items
}
