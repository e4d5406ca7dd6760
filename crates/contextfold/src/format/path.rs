//! JSON paths into the input, printed the way errors show them: `[12].content[0].type`
//! for an array input, `messages[3].content` for a request object; the root is empty.

use super::FormatError;
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct JsonPath(String);

impl JsonPath {
    pub(crate) fn root() -> JsonPath {
        JsonPath(String::new())
    }

    pub(crate) fn key(&self, key: &str) -> JsonPath {
        if self.0.is_empty() {
            JsonPath(key.to_string())
        } else {
            JsonPath(format!("{}.{key}", self.0))
        }
    }

    pub(crate) fn index(&self, index: usize) -> JsonPath {
        JsonPath(format!("{}[{index}]", self.0))
    }

    /// The input has the wrong shape here.
    pub(crate) fn shape_error(&self, message: impl Into<String>) -> FormatError {
        FormatError::Shape { path: self.0.clone(), message: message.into() }
    }

    /// The messages here cannot be written in the target format.
    pub(crate) fn unwritable(&self, message: impl Into<String>) -> FormatError {
        FormatError::Unwritable { path: self.0.clone(), message: message.into() }
    }

    /// The input here fits no format that could be told apart.
    pub(crate) fn unknown_format(&self, message: impl Into<String>) -> FormatError {
        FormatError::UnknownFormat { path: self.0.clone(), message: message.into() }
    }
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_the_error_paths() {
        let root = JsonPath::root();
        assert_eq!(root.to_string(), "");
        assert_eq!(root.index(12).key("content").index(0).key("type").to_string(), "[12].content[0].type");
        assert_eq!(root.key("messages").index(3).to_string(), "messages[3]");
        assert_eq!(root.key("system").to_string(), "system");
    }
}
