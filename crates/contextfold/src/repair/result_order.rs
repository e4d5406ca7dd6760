//! Anthropic wants the `tool_result` blocks of a user turn first and any other block after
//! them ("Did not find 1 `tool_result` block(s) at the beginning of this message"). A turn
//! read with text before its results keeps where that text stood (its user message's
//! `mergeWithPrevious` marker, [`crate::format::tool_turns`]); this puts it after them.

use super::{Item, RepairStep};
use crate::format::anthropic::NAMESPACE;
use crate::format::tool_turns::{others_before_results, put_after_results};
use crate::message::{Message, Part, Role};

/// The tool results of `tool` when `user` was split off its turn with a block before one
/// of them: `None` when the turn is in order.
pub(crate) fn misplaced(tool: &Message, user: &Message) -> Option<usize> {
    if tool.role != Role::Tool || user.role != Role::User {
        return None;
    }
    let results = tool.parts.iter().filter(|p| matches!(p, Part::ToolResult(_))).count();
    others_before_results(results, user, NAMESPACE).then_some(results)
}

/// Every such user message's blocks put after the results of its turn.
pub(crate) fn results_first(mut items: Vec<Item>, steps: &mut Vec<RepairStep>) -> Vec<Item> {
    for at in 1..items.len() {
        let Some((tool, user)) = items.get_mut(at.saturating_sub(1)..=at).and_then(|pair| match pair {
            [tool, user] => Some((tool, user)),
            _ => None,
        }) else {
            continue;
        };
        if let Some(results) = misplaced(&tool.msg, &user.msg) {
            put_after_results(results, &mut user.msg, NAMESPACE);
            steps.push(RepairStep::MovedResultsFirst { index: user.origin });
        }
    }
    items
}
