//! The native format: the serde form of [`Message`], read with the path of any culprit.

use super::FormatError;
use crate::message::Message;
use serde_json::Value;

/// Reads native messages from a JSON array.
pub fn read(value: &Value) -> Result<Vec<Message>, FormatError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        FormatError::Shape { path: normalize_path(&path), message: e.into_inner().to_string() }
    })
}

/// Writes native messages as a JSON array.
pub fn write(messages: &[Message]) -> Value {
    serde_json::to_value(messages).unwrap_or(Value::Null)
}

/// serde_path_to_error prints the root as `.`; we print `$`-less paths like `[3].parts[0]`.
fn normalize_path(p: &str) -> String {
    if p == "." {
        String::new()
    } else {
        p.to_string()
    }
}
