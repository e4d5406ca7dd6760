//! Vercel AI SDK `UIMessage`s (`{id, role, parts}` with `text`, `reasoning`, `file`,
//! `step-start`, `tool-<name>` / `dynamic-tool` parts): detected, not read yet.
//!
//! The name `aisdk-ui` is reserved and detection recognizes the shape, so that such
//! input gets a precise error instead of being read as another format; [`read`] and
//! [`write()`] report that the format is not supported yet.

use crate::format::path::JsonPath;
use crate::format::FormatError;
use crate::message::Message;
use serde_json::Value;

const NOT_YET: &str =
    "AI SDK UIMessages are not supported yet: convert them with the AI SDK's `convertToModelMessages` and use format \"aisdk\"";

/// Not supported yet: always a [`FormatError::UnknownFormat`].
pub fn read(_value: &Value) -> Result<Vec<Message>, FormatError> {
    Err(JsonPath::root().unknown_format(NOT_YET))
}

/// Not supported yet: always a [`FormatError::Unwritable`].
pub fn write(_messages: &[Message]) -> Result<Value, FormatError> {
    Err(JsonPath::root().unwritable(NOT_YET))
}
