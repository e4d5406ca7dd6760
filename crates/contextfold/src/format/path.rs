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

    // Readers make a path for every field they read, and use few: each is pushed
    // together, not formatted (the formatting machinery was most of their cost).
    pub(crate) fn key(&self, key: &str) -> JsonPath {
        let mut path = String::with_capacity(self.0.len().saturating_add(key.len()).saturating_add(1));
        path.push_str(&self.0);
        if !self.0.is_empty() {
            path.push('.');
        }
        path.push_str(key);
        JsonPath(path)
    }

    pub(crate) fn index(&self, index: usize) -> JsonPath {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut rest = index;
        loop {
            at = at.saturating_sub(1);
            if let Some(slot) = digits.get_mut(at) {
                *slot = b'0'.saturating_add((rest % 10) as u8);
            }
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        let digits = std::str::from_utf8(digits.get(at..).unwrap_or_default()).unwrap_or_default();
        let mut path = String::with_capacity(self.0.len().saturating_add(digits.len()).saturating_add(2));
        path.push_str(&self.0);
        path.push('[');
        path.push_str(digits);
        path.push(']');
        JsonPath(path)
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
        for n in [0, 7, 10, 99, 12_345, usize::MAX] {
            assert_eq!(root.index(n).to_string(), format!("[{n}]"));
        }
    }
}
