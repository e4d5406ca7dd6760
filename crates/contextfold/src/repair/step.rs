//! The changes repair makes, each naming the input message (and part) it concerns.

use crate::ast::PartRule;
use crate::message::Role;
use serde::Serialize;

/// One change made by [`super::repair`]. `index` is always a position in the INPUT chain;
/// `part` a position in that input message's parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "step", rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[cfg_attr(feature = "tsify", tsify(missing_as_null))]
pub enum RepairStep {
    /// A thinking (reasoning) part older than the current tool cycle was dropped because
    /// history before a kept thinking block was rewritten.
    #[serde(rename_all = "camelCase")]
    DroppedThinking { index: usize, part: usize },
    /// A part no provider accepts where it stands was dropped (`content`: the position
    /// inside a tool result's content, when the culprit is nested there).
    #[serde(rename_all = "camelCase")]
    DroppedInvalidPart { index: usize, part: usize, content: Option<usize>, rule: PartRule },
    /// A second tool call with the same id in one assistant message was dropped.
    #[serde(rename_all = "camelCase")]
    DroppedDuplicateCall { index: usize, part: usize, call_id: String },
    /// A tool call reusing the id of a call in an earlier message got `new_id`, and so did
    /// the results answering it (for providers that want every id once).
    #[serde(rename_all = "camelCase")]
    RenamedReusedCallId { index: usize, part: usize, call_id: String, new_id: String },
    /// `count` media of the tool result `part` moved to a user message after the results
    /// (OpenAI tool messages hold text only); the result keeps a note.
    #[serde(rename_all = "camelCase")]
    MovedToolMedia { index: usize, part: usize, count: usize },
    /// A thinking part without a signature was dropped (Anthropic rejects it).
    #[serde(rename_all = "camelCase")]
    DroppedUnsignedThinking { index: usize, part: usize },
    /// An empty or whitespace-only text part was dropped.
    #[serde(rename_all = "camelCase")]
    RemovedEmptyText { index: usize, part: usize },
    /// A message with no part left was removed.
    #[serde(rename_all = "camelCase")]
    RemovedEmptyMessage { index: usize },
    /// A system message after the start of the chain became a user message, in place.
    #[serde(rename_all = "camelCase")]
    SystemToUser { index: usize },
    /// A system message of the leading run was merged into the first one (`into`).
    #[serde(rename_all = "camelCase")]
    MergedSystem { index: usize, into: usize },
    /// A tool result before any assistant message was dropped.
    #[serde(rename_all = "camelCase")]
    DroppedLeadingResult { index: usize, call_id: String },
    /// A tool result answering no earlier call was dropped.
    #[serde(rename_all = "camelCase")]
    DroppedOrphanResult { index: usize, call_id: String },
    /// A tool result answering no earlier call got a call (arguments `{}`) added to the
    /// assistant message `assistant` right before it.
    #[serde(rename_all = "camelCase")]
    AnsweredOrphanResult { index: usize, assistant: usize, call_id: String, name: String },
    /// A second result for the same call was dropped (the first one is kept).
    #[serde(rename_all = "camelCase")]
    DroppedDuplicateResult { index: usize, call_id: String },
    /// A result that came after other messages was moved up, right after the results of
    /// its call's assistant message `assistant`.
    #[serde(rename_all = "camelCase")]
    MovedResult { index: usize, call_id: String, assistant: usize },
    /// A call of assistant message `index` that had no result and that no placeholder can
    /// answer was dropped (a Responses `computer_call`, whose output is a screenshot).
    #[serde(rename_all = "camelCase")]
    DroppedUnansweredCall { index: usize, part: usize, call_id: String, name: String },
    /// A Responses reasoning item was dropped, left without the item it led to (the API
    /// rejects it so): its call went (`droppedUnansweredCall`), or its turn ended with it
    /// (a user or tool message, or the chain's end, came next).
    #[serde(rename_all = "camelCase")]
    DroppedOrphanReasoning { index: usize, part: usize },
    /// A later copy of a Responses item `id` was dropped from the item (`part`; `null`: the
    /// message's own), which the API takes without one (it rejects an id given twice).
    #[serde(rename_all = "camelCase")]
    DroppedDuplicateItemId { index: usize, part: Option<usize>, id: String },
    /// A later copy of a Responses item that the API takes only with its `id` (reasoning,
    /// a server-side item, an `mcp_call`: one step for its call part, one for its output
    /// read as the result after it), whose id an earlier item has, was dropped.
    #[serde(rename_all = "camelCase")]
    DroppedDuplicateItem { index: usize, part: usize, id: String },
    /// A call of assistant message `index` that had no result got a placeholder result.
    #[serde(rename_all = "camelCase")]
    AnsweredPendingCall { index: usize, call_id: String, name: String },
    /// Message `index` was merged into the message `into` before it (same role, parts
    /// appended in order).
    #[serde(rename_all = "camelCase")]
    MergedSameRole { index: usize, into: usize, role: Role },
    /// A placeholder user message was put before assistant message `index`, which would
    /// otherwise open the conversation.
    #[serde(rename_all = "camelCase")]
    AddedLeadingUser { index: usize },
    /// The blocks of user message `index`, which stood before tool results of the same
    /// turn, were put after them (Anthropic wants the results first).
    #[serde(rename_all = "camelCase")]
    MovedResultsFirst { index: usize },
    /// Message `index` (tool results, or the user's words after them), a content of its
    /// own on the wire, joins the content of the tool results that begin at `into`
    /// (Gemini wants every response to a call turn in one content).
    #[serde(rename_all = "camelCase")]
    JoinedResultTurn { index: usize, into: usize, role: Role },
    /// With thinking on, the summary pair of assistant message `index` (a summarization
    /// call and its result, which would be the final assistant message, without thinking)
    /// became text at the start of user message `into`.
    #[serde(rename_all = "camelCase")]
    SummaryToUser { index: usize, into: usize },
    /// The `cache_control` of part `part` (`content`: of that tool result's content at
    /// this position) was dropped: thinking takes none, or the request held more cache
    /// breakpoints than Anthropic takes (4).
    #[serde(rename_all = "camelCase")]
    DroppedCacheControl { index: usize, part: usize, content: Option<usize> },
    /// An empty text at position `content` of tool result `part` was dropped.
    #[serde(rename_all = "camelCase")]
    RemovedEmptyResultText { index: usize, part: usize, content: usize },
    /// The thinking block assistant message `index` ended with was dropped (Anthropic
    /// rejects an assistant message ending with thinking).
    #[serde(rename_all = "camelCase")]
    DroppedTrailingThinking { index: usize, part: usize },
    /// A server tool's result whose `server_tool_use` is not in the chain became the
    /// text it renders to (Anthropic rejects the block).
    #[serde(rename_all = "camelCase")]
    UnwrappedOrphanServerResult { index: usize, part: usize, call_id: String },
    /// A content part the Responses API does not take where it stands (a Chat Completions
    /// `text` or `image_url`, output text in a user message; `content`: its position in
    /// that tool result's content) became the part type the API takes there.
    #[serde(rename_all = "camelCase")]
    ConvertedContentPart { index: usize, part: usize, content: Option<usize> },
    /// A content part the Responses API does not take where it stands, with no words or
    /// image to keep of it (a type the API does not know), was dropped.
    #[serde(rename_all = "camelCase")]
    DroppedContentPart { index: usize, part: usize, content: Option<usize> },
}

impl RepairStep {
    /// The step's positions: the input message it concerns, and the other message it
    /// names (`into`, `assistant`) when it names one.
    fn positions_mut(&mut self) -> (&mut usize, Option<&mut usize>) {
        match self {
            RepairStep::MergedSystem { index, into }
            | RepairStep::MergedSameRole { index, into, .. }
            | RepairStep::JoinedResultTurn { index, into, .. } => (index, Some(into)),
            RepairStep::AnsweredOrphanResult { index, assistant, .. }
            | RepairStep::MovedResult { index, assistant, .. } => (index, Some(assistant)),
            RepairStep::SummaryToUser { index, into } => (index, Some(into)),
            RepairStep::DroppedThinking { index, .. }
            | RepairStep::DroppedInvalidPart { index, .. }
            | RepairStep::DroppedDuplicateCall { index, .. }
            | RepairStep::RenamedReusedCallId { index, .. }
            | RepairStep::DroppedUnsignedThinking { index, .. }
            | RepairStep::MovedToolMedia { index, .. }
            | RepairStep::RemovedEmptyText { index, .. }
            | RepairStep::RemovedEmptyMessage { index }
            | RepairStep::SystemToUser { index }
            | RepairStep::DroppedLeadingResult { index, .. }
            | RepairStep::DroppedOrphanResult { index, .. }
            | RepairStep::DroppedDuplicateResult { index, .. }
            | RepairStep::AnsweredPendingCall { index, .. }
            | RepairStep::DroppedUnansweredCall { index, .. }
            | RepairStep::DroppedOrphanReasoning { index, .. }
            | RepairStep::DroppedDuplicateItemId { index, .. }
            | RepairStep::DroppedDuplicateItem { index, .. }
            | RepairStep::AddedLeadingUser { index }
            | RepairStep::MovedResultsFirst { index }
            | RepairStep::DroppedCacheControl { index, .. }
            | RepairStep::RemovedEmptyResultText { index, .. }
            | RepairStep::DroppedTrailingThinking { index, .. }
            | RepairStep::UnwrappedOrphanServerResult { index, .. }
            | RepairStep::ConvertedContentPart { index, .. }
            | RepairStep::DroppedContentPart { index, .. } => (index, None),
        }
    }

    /// The step with every message position moved `by` on: a repair of the chain after
    /// `by` messages left as they were.
    pub fn shift_index(&mut self, by: usize) {
        let (index, other) = self.positions_mut();
        *index = index.saturating_add(by);
        if let Some(other) = other {
            *other = other.saturating_add(by);
        }
    }

    /// The input message this step concerns.
    pub fn index(&self) -> usize {
        *self.clone().positions_mut().0
    }
}
