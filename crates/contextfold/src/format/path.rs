//! JSON paths into the input, printed the way errors show them: `[12].content[0].type`
//! for an array input, `messages[3].content` for a request object; the root is empty.

use super::FormatError;
use std::fmt;

/// A path. Readers make one for every message and many fields, and use few (for an
/// error): a short one is held in place, not allocated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonPath(Text);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Text {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(String),
}

/// Paths up to this many bytes are held in place (`messages[12345].content[3].type`).
const INLINE: usize = 38;

impl Default for JsonPath {
    fn default() -> Self {
        JsonPath::root()
    }
}

impl JsonPath {
    pub(crate) fn root() -> JsonPath {
        JsonPath(Text::Inline { len: 0, bytes: [0; INLINE] })
    }

    pub(crate) fn as_str(&self) -> &str {
        std::str::from_utf8(self.head()).unwrap_or_default()
    }

    /// The path's bytes (whole characters: it is only ever built from `&str` pieces).
    fn head(&self) -> &[u8] {
        match &self.0 {
            Text::Inline { len, bytes } => bytes.get(..usize::from(*len)).unwrap_or_default(),
            Text::Heap(text) => text.as_bytes(),
        }
    }

    /// This path followed by `pieces`: a short one copied in place (the head as a whole
    /// array, the pieces a byte at a time: cheaper than a copy call per piece).
    fn joined(&self, pieces: &[&str]) -> JsonPath {
        let head = self.head();
        let len = pieces.iter().fold(head.len(), |n, p| n.saturating_add(p.len()));
        if len <= INLINE {
            let mut bytes = match &self.0 {
                Text::Inline { bytes, .. } => *bytes,
                Text::Heap(_) => {
                    let mut bytes = [0u8; INLINE];
                    bytes.iter_mut().zip(head).for_each(|(slot, b)| *slot = *b);
                    bytes
                }
            };
            let mut at = head.len();
            for &b in pieces.iter().flat_map(|p| p.as_bytes()) {
                if let Some(slot) = bytes.get_mut(at) {
                    *slot = b;
                }
                at = at.saturating_add(1);
            }
            return JsonPath(Text::Inline { len: u8::try_from(len).unwrap_or(0), bytes });
        }
        let mut text = String::with_capacity(len);
        text.push_str(self.as_str());
        pieces.iter().for_each(|p| text.push_str(p));
        JsonPath(Text::Heap(text))
    }

    pub(crate) fn key(&self, key: &str) -> JsonPath {
        if self.head().is_empty() {
            self.joined(&[key])
        } else {
            self.joined(&[".", key])
        }
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
        self.joined(&["[", digits, "]"])
    }

    /// The input has the wrong shape here.
    pub(crate) fn shape_error(&self, message: impl Into<String>) -> FormatError {
        FormatError::Shape { path: self.as_str().to_string(), message: message.into() }
    }

    /// The messages here cannot be written in the target format.
    pub(crate) fn unwritable(&self, message: impl Into<String>) -> FormatError {
        FormatError::Unwritable { path: self.as_str().to_string(), message: message.into() }
    }

    /// The input here fits no format that could be told apart.
    pub(crate) fn unknown_format(&self, message: impl Into<String>) -> FormatError {
        FormatError::UnknownFormat { path: self.as_str().to_string(), message: message.into() }
    }
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

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
        // Past what is held in place, and a key of other scripts cut nowhere.
        let long = root.key("messages").index(123_456).key("content").index(78).key("a_rather_long_key");
        assert_eq!(long.to_string(), "messages[123456].content[78].a_rather_long_key");
        assert_eq!(long.key("x").to_string(), "messages[123456].content[78].a_rather_long_key.x");
        let wide = root.key("é😀").index(1).key("клю");
        assert_eq!(wide.to_string(), "é😀[1].клю");
        assert_eq!(JsonPath::default(), root);
    }

    proptest::proptest! {
        /// Any path, held in place or not, prints as the plain string it stands for.
        #[test]
        fn prints_as_a_plain_string_would(steps in proptest::collection::vec(
            proptest::prop_oneof![
                "[a-z_é😀]{0,12}".prop_map(Ok),
                proptest::prelude::any::<usize>().prop_map(Err),
            ],
            0..8,
        )) {
            let mut path = JsonPath::root();
            let mut plain = String::new();
            for step in steps {
                match step {
                    Ok(key) => {
                        path = path.key(&key);
                        if !plain.is_empty() {
                            plain.push('.');
                        }
                        plain.push_str(&key);
                    }
                    Err(index) => {
                        path = path.index(index);
                        plain.push_str(&format!("[{index}]"));
                    }
                }
                proptest::prop_assert_eq!(path.as_str(), plain.as_str());
            }
        }
    }
}
