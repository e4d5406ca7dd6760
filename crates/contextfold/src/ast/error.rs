//! Typed errors of the chain AST: every variant names the rule broken and, where a
//! message is at fault, its index in the input.

use crate::message::Role;
use serde::Serialize;

/// Why a part is not allowed where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub enum PartRule {
    /// Tool calls belong to assistant messages only.
    ToolCallOutsideAssistant,
    /// Tool results belong to tool messages only.
    ToolResultOutsideTool,
    /// A tool message holds tool results and nothing else.
    NonResultInToolMessage,
    /// A tool message without any tool result.
    EmptyToolMessage,
    /// A tool result's content may hold text, images and files only.
    NestedPartInToolResult,
    /// An image or file needs a URL or inline data.
    MediaWithoutSource,
    /// A tool call or tool result needs a non-empty call id.
    EmptyToolCallId,
}

impl PartRule {
    pub fn describe(self) -> &'static str {
        match self {
            PartRule::ToolCallOutsideAssistant => "a tool call may only appear in an assistant message",
            PartRule::ToolResultOutsideTool => "a tool result may only appear in a tool message",
            PartRule::NonResultInToolMessage => "a tool message may only hold tool results",
            PartRule::EmptyToolMessage => "a tool message must hold at least one tool result",
            PartRule::NestedPartInToolResult => "a tool result's content may only hold text, image and file parts",
            PartRule::MediaWithoutSource => "an image or file part needs a url, data or a file id its provider stores",
            PartRule::EmptyToolCallId => "a tool call id must not be empty",
        }
    }
}

/// Errors of parsing, constructing and editing a chain.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AstError {
    #[error("message {index}: a chain cannot start with a {role} message", role = role.as_str())]
    InvalidStart { index: usize, role: Role },
    #[error("message {index}: a system message between tool calls and their results")]
    SystemAfterStart { index: usize },
    #[error("message {index}: two user messages in a row (the first one has no reply)")]
    ConsecutiveHuman { index: usize },
    #[error("message {index}: tool message without a preceding assistant tool call")]
    UnexpectedTool { index: usize },
    #[error("message {index}: tool calls [{}] have no result", ids.join(", "))]
    MissingToolResult { index: usize, ids: Vec<String> },
    #[error("message {index}: tool results [{}] answer no call of the preceding assistant message", ids.join(", "))]
    UnmatchedToolResult { index: usize, ids: Vec<String> },
    #[error("message {index}: a second result for tool call {id}")]
    DuplicateToolResult { index: usize, id: String },
    #[error("message {index}: tool call id {id} is used twice in one assistant message")]
    DuplicateToolCallId { index: usize, id: String },
    #[error("message {index}, part {part}: {}", rule.describe())]
    InvalidPart { index: usize, part: usize, rule: PartRule },
    #[error("message {index}: expected a {expected} message, found {found}", expected = expected.as_str(), found = found.as_str())]
    WrongRole { index: usize, expected: Role, found: Role },
    #[error("a body pair needs at least an assistant message")]
    EmptyBodyPair,
    #[error("section {index} does not exist")]
    NoSuchSection { index: usize },
    #[error("tool call {id} not found")]
    ToolCallNotFound { id: String },
    #[error("{0}")]
    Template(#[from] crate::ast::tool_id::TemplateError),
    #[error("could not generate a tool-call id for {id} that is unique in the chain with this template")]
    IdCollision { id: String },
}

impl AstError {
    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            AstError::InvalidStart { .. } => "invalid_start",
            AstError::SystemAfterStart { .. } => "system_after_start",
            AstError::ConsecutiveHuman { .. } => "consecutive_human",
            AstError::UnexpectedTool { .. } => "unexpected_tool",
            AstError::MissingToolResult { .. } => "missing_tool_result",
            AstError::UnmatchedToolResult { .. } => "unmatched_tool_result",
            AstError::DuplicateToolResult { .. } => "duplicate_tool_result",
            AstError::DuplicateToolCallId { .. } => "duplicate_tool_call_id",
            AstError::InvalidPart { .. } => "invalid_part",
            AstError::WrongRole { .. } => "wrong_role",
            AstError::EmptyBodyPair => "empty_body_pair",
            AstError::NoSuchSection { .. } => "no_such_section",
            AstError::ToolCallNotFound { .. } => "tool_call_not_found",
            AstError::Template(_) => "invalid_template",
            AstError::IdCollision { .. } => "id_collision",
        }
    }

    /// Index of the offending input message, where one is at fault.
    pub fn index(&self) -> Option<usize> {
        match self {
            AstError::InvalidStart { index, .. }
            | AstError::SystemAfterStart { index }
            | AstError::ConsecutiveHuman { index }
            | AstError::UnexpectedTool { index }
            | AstError::MissingToolResult { index, .. }
            | AstError::UnmatchedToolResult { index, .. }
            | AstError::DuplicateToolResult { index, .. }
            | AstError::DuplicateToolCallId { index, .. }
            | AstError::InvalidPart { index, .. }
            | AstError::WrongRole { index, .. } => Some(*index),
            _ => None,
        }
    }

    /// JSON-path-like location of the culprit: `[3]` or `[3].parts[1]`.
    pub fn path(&self) -> Option<String> {
        match self {
            AstError::InvalidPart { index, part, .. } => Some(format!("[{index}].parts[{part}]")),
            _ => self.index().map(|i| format!("[{i}]")),
        }
    }
}
