//! Reading (and later writing) the message shapes users hold. Every reader turns
//! provider JSON into [`Message`]s; errors carry the JSON path of the culprit.

pub mod native;

use crate::message::Message;
use serde::Serialize;

/// The message shapes contextfold understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Format {
    /// The contextfold native form (see [`crate::message`]).
    Native,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Native => "native",
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        match name {
            "native" | "contextfold" => Some(Format::Native),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// The text is not JSON at all.
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    InvalidJson {
        line: usize,
        column: usize,
        message: String,
    },
    /// JSON of the wrong shape: a missing field, a wrong type, an unknown role.
    #[error("{path}: {message}")]
    Shape { path: String, message: String },
    /// The shape fits no known format, or more than one when it must be told apart.
    #[error("{path}: {message}")]
    UnknownFormat { path: String, message: String },
}

impl FormatError {
    pub fn code(&self) -> &'static str {
        match self {
            FormatError::InvalidJson { .. } => "invalid_json",
            FormatError::Shape { .. } => "invalid_shape",
            FormatError::UnknownFormat { .. } => "unknown_format",
        }
    }

    pub fn path(&self) -> Option<&str> {
        match self {
            FormatError::InvalidJson { .. } => None,
            FormatError::Shape { path, .. } | FormatError::UnknownFormat { path, .. } => Some(path),
        }
    }
}

/// Parses JSON text into a value, with line and column on failure.
pub fn parse_json(text: &str) -> Result<serde_json::Value, FormatError> {
    serde_json::from_str(text).map_err(|e| FormatError::InvalidJson {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}

/// Reads messages of a known format from a JSON value.
pub fn read(value: &serde_json::Value, format: Format) -> Result<Vec<Message>, FormatError> {
    match format {
        Format::Native => native::read(value),
    }
}
