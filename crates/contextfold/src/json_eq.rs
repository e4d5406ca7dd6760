//! Whether a JSON value equals the JSON text of one, read in place.
//!
//! The reuse plan ([`crate::reuse`]) confirms that an output message is an input message
//! unchanged. Holding the whole input tree for that check was the largest memory of a
//! compaction (about 2.5 times the input's text); the text itself is smaller, and each
//! message's span of it is compared with the output message here, without building it.
//!
//! The answer is what `serde_json::from_slice::<Value>(text) == value` gives, except
//! that an object with a repeated key (which `JSON.stringify` never writes) reads as
//! unequal: a kept message then goes back as new, never the other way round.

use crate::json_map::Fields;
use serde_json::{Map, Number, Value};

/// Whether `text` (one JSON value, spaces around allowed) reads as `value`.
pub fn equals_text(value: &Value, text: &[u8]) -> bool {
    let mut read = Reader { text, at: 0 };
    read.space();
    read.value(value, 0).is_some() && {
        read.space();
        read.at == text.len()
    }
}

/// Nesting past this reads as unequal (serde_json stops at 128 when parsing).
const MAX_DEPTH: usize = 128;

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at = self.at.saturating_add(1);
        Some(b)
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        (self.bump()? == b).then_some(())
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at = self.at.saturating_add(1);
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at.saturating_add(word.len());
        (self.text.get(self.at..end)? == word).then(|| self.at = end)
    }

    /// `Some` when the value at the cursor equals `value` (the cursor then past it).
    fn value(&mut self, value: &Value, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match (self.peek()?, value) {
            (b'n', Value::Null) => self.literal(b"null"),
            (b't', Value::Bool(true)) => self.literal(b"true"),
            (b'f', Value::Bool(false)) => self.literal(b"false"),
            (b'"', Value::String(s)) => self.string(s.as_bytes()),
            (b'[', Value::Array(items)) => self.array(items, depth),
            (b'{', Value::Object(map)) => self.object(map, depth),
            (b'-' | b'0'..=b'9', Value::Number(n)) => self.number(n),
            _ => None,
        }
    }

    fn array(&mut self, items: &[Value], depth: usize) -> Option<()> {
        self.eat(b'[')?;
        self.space();
        if self.peek() == Some(b']') {
            self.at = self.at.saturating_add(1);
            return items.is_empty().then_some(());
        }
        let mut items = items.iter();
        loop {
            self.space();
            self.value(items.next()?, depth.saturating_add(1))?;
            self.space();
            match self.bump()? {
                b',' => {}
                b']' => return items.next().is_none().then_some(()),
                _ => return None,
            }
        }
    }

    fn object(&mut self, map: &Map<String, Value>, depth: usize) -> Option<()> {
        self.eat(b'{')?;
        self.space();
        if self.peek() == Some(b'}') {
            self.at = self.at.saturating_add(1);
            return map.is_empty().then_some(());
        }
        let mut seen = 0usize;
        let mut key = String::new();
        loop {
            self.space();
            key.clear();
            self.string_into(&mut key)?;
            self.space();
            self.eat(b':')?;
            self.space();
            self.value(map.field(&key)?, depth.saturating_add(1))?;
            seen = seen.saturating_add(1);
            self.space();
            match self.bump()? {
                b',' => {}
                // Every key read was in the map and none twice unless this overcounts.
                b'}' => return (seen == map.len()).then_some(()),
                _ => return None,
            }
        }
    }

    fn number(&mut self, n: &Number) -> Option<()> {
        let start = self.at;
        while matches!(self.peek(), Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')) {
            self.at = self.at.saturating_add(1);
        }
        // Read by serde_json itself: the same integer or float it gave the value.
        let token = std::str::from_utf8(self.text.get(start..self.at)?).ok()?;
        (serde_json::from_str::<Number>(token).ok()? == *n).then_some(())
    }

    /// A string equal to `expected`, byte for byte once unescaped.
    fn string(&mut self, expected: &[u8]) -> Option<()> {
        self.eat(b'"')?;
        let mut at = 0usize;
        loop {
            // Runs without escapes compare as they are.
            let rest = self.text.get(self.at..)?;
            let run = first_special(rest)?;
            let end = at.checked_add(run)?;
            if expected.get(at..end)? != rest.get(..run)? {
                return None;
            }
            at = end;
            self.at = self.at.saturating_add(run);
            match self.bump()? {
                b'"' => return (at == expected.len()).then_some(()),
                b'\\' => {
                    let mut utf8 = [0u8; 4];
                    let c = self.escape()?;
                    let bytes = c.encode_utf8(&mut utf8).as_bytes();
                    let end = at.checked_add(bytes.len())?;
                    if expected.get(at..end)? != bytes {
                        return None;
                    }
                    at = end;
                }
                // A raw control character: not JSON.
                _ => return None,
            }
        }
    }

    /// A string (a key), unescaped into `out`.
    fn string_into(&mut self, out: &mut String) -> Option<()> {
        self.eat(b'"')?;
        loop {
            let rest = self.text.get(self.at..)?;
            let run = first_special(rest)?;
            out.push_str(std::str::from_utf8(rest.get(..run)?).ok()?);
            self.at = self.at.saturating_add(run);
            match self.bump()? {
                b'"' => return Some(()),
                b'\\' => out.push(self.escape()?),
                _ => return None,
            }
        }
    }

    /// The character of an escape, the backslash read.
    fn escape(&mut self) -> Option<char> {
        Some(match self.bump()? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let high = self.hex4()?;
                if (0xD800..0xDC00).contains(&high) {
                    self.eat(b'\\')?;
                    self.eat(b'u')?;
                    let low = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&low) {
                        return None;
                    }
                    char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))?
                } else {
                    char::from_u32(high)?
                }
            }
            _ => return None,
        })
    }

    /// Four hex digits (`from_str_radix` would take a sign too: `\\u+abc` is not JSON).
    fn hex4(&mut self) -> Option<u32> {
        let end = self.at.saturating_add(4);
        let digits = self.text.get(self.at..end)?;
        let n =
            digits.iter().try_fold(0u32, |n, &d| Some(n.wrapping_mul(16).wrapping_add(char::from(d).to_digit(16)?)))?;
        self.at = end;
        Some(n)
    }
}

/// Where the first `"`, `\\` or control character of `bytes` is: a string's run of bytes
/// written as they are ends there. Strings are most of a message's text: searched eight
/// bytes at a time.
fn first_special(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = bytes.chunks_exact(8);
    let mut at = 0usize;
    for word in &mut words {
        let word = word.try_into().map_or(0, u64::from_le_bytes);
        let (quote, backslash) = (word ^ (ONES * u64::from(b'"')), word ^ (ONES * u64::from(b'\\')));
        // A byte below 0x20, a zero byte of either: each borrows into its high bit (bytes of
        // 0x80 and up, other scripts' UTF-8, are masked out by `!word`); a borrow only
        // flags bytes above the first one found.
        let flagged = ((word.wrapping_sub(ONES * 0x20) & !word)
            | (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash))
            & HIGH;
        if flagged != 0 {
            return Some(at.saturating_add((flagged.trailing_zeros() / 8) as usize));
        }
        at = at.saturating_add(8);
    }
    let tail = words.remainder().iter().position(|&b| b < 0x20 || b == b'"' || b == b'\\')?;
    Some(at.saturating_add(tail))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// Any JSON value, escapes, floats and nesting included.
    pub(crate) fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            any::<u64>().prop_map(|n| json!(n)),
            (-1e6f64..1e6).prop_map(|f| json!(f)),
            "(?s).{0,12}|[\"\\\\/\\u{0}-\\u{1f}é😀\\u{2028}]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 40, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::vec(("[a-c\"é]{0,3}", inner), 0..5)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Eight bytes at a time, the same answer as one at a time.
        #[test]
        fn first_special_is_a_byte_scan(bytes in proptest::collection::vec(prop_oneof![Just(b'"'), Just(b'\\'), 0u8..0x21, 0x20u8..=0xff], 0..40)) {
            let expected = bytes.iter().position(|&b| b < 0x20 || b == b'"' || b == b'\\');
            prop_assert_eq!(first_special(&bytes), expected);
        }

        /// A text, compact or pretty, equals what it parses to, and another value only
        /// when that value is what it parses to. (Parsed, not the value written: without
        /// serde_json's float_roundtrip a float may not read back bit for bit; the reuse
        /// plan compares with what the same parser read from the same text.)
        #[test]
        fn equal_exactly_when_the_parse_is(a in value(), b in value()) {
            for text in [serde_json::to_string(&a).unwrap_or_default(), serde_json::to_string_pretty(&a).unwrap_or_default()] {
                let parsed: Value = serde_json::from_str(&text).unwrap_or_default();
                prop_assert!(equals_text(&parsed, text.as_bytes()), "{}", text);
                prop_assert_eq!(equals_text(&b, text.as_bytes()), parsed == b, "{}", text);
                let b_text = serde_json::to_string(&b).unwrap_or_default();
                let b_parsed: Value = serde_json::from_str(&b_text).unwrap_or_default();
                prop_assert_eq!(equals_text(&b_parsed, text.as_bytes()), parsed == b_parsed, "{}", text);
            }
        }
    }

    #[test]
    fn a_signed_unicode_escape_is_not_json() {
        assert!(!equals_text(&json!("\u{abc}"), br#""\u+abc""#));
        assert!(equals_text(&json!("\u{abc}"), br#""\u0abc""#));
    }

    #[test]
    fn escapes_numbers_and_key_order() {
        let v = json!({ "a": "é\u{1F600}\n\"", "b": [1, -2, 1.5, 1e21], "c": {} });
        assert!(equals_text(&v, br#" { "c" : {}, "b": [1,-2,1.5,1e21], "a": "\u00e9\ud83d\ude00\n\"" } "#));
        // A repeated key reads as unequal, whatever the parse keeps.
        assert!(!equals_text(&json!({ "a": 1 }), br#"{"a":1,"a":1}"#));
        assert!(!equals_text(&json!({ "a": 1, "b": 2 }), br#"{"a":1}"#));
        assert!(!equals_text(&json!([1, 2]), b"[1,2,3]"));
        assert!(!equals_text(&json!(1), b"1.0"), "an integer is not a float, as in serde_json");
        assert!(!equals_text(&json!("a"), b"\"a\" x"));
        assert!(!equals_text(&json!("\u{1}"), b"\"\x01\""), "a raw control character is no JSON");
    }
}
