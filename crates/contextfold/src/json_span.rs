//! Byte spans of the top-level fields of a JSON object, as written.
//!
//! A proxy that compacts a request's `messages` must send every other byte as the
//! client wrote it: parsing and re-serializing the whole body changes what JSON numbers
//! cannot hold exactly (`"seed": 9007199254740993` in JS), key order, escapes and
//! spacing. With the span of each field's value the new messages are spliced into the
//! original text instead.

use std::ops::Range;

/// The top-level object of a JSON text: each field's key (unescaped) and the byte span
/// of its value, in order (a repeated key appears each time), and where its closing
/// brace is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectSpans {
    pub fields: Vec<(String, Range<usize>)>,
    /// Byte offset of the closing `}`.
    pub close: usize,
}

/// Where the next `"` or `\\` is, from `at`. Strings are most of a chain's bytes: they
/// are searched eight bytes at a time (measured in wasm: twice as fast as byte by byte).
fn quote_or_backslash(text: &[u8], mut at: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(word) = text.get(at..at.saturating_add(8)).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
        let word = u64::from_le_bytes(word);
        let (quote, backslash) = (word ^ (ONES * u64::from(b'"')), word ^ (ONES * u64::from(b'\\')));
        // The lowest byte flagged is the first zero byte of either (borrows only flag bytes
        // above a zero one).
        let found = (quote.wrapping_sub(ONES) & !quote | backslash.wrapping_sub(ONES) & !backslash) & HIGH;
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    text.get(at..)?.iter().position(|&b| b == b'"' || b == b'\\').map(|p| at + p)
}

impl ObjectSpans {
    /// The value span of `key`: its last occurrence, the one `JSON.parse` keeps.
    pub fn field(&self, key: &str) -> Option<Range<usize>> {
        self.fields.iter().rev().find(|(k, _)| k == key).map(|(_, span)| span.clone())
    }
}

/// The spans of the top-level object of `text`; `None` when `text` is not one JSON
/// object (the scanner checks structure, not every token: the caller parsed it already).
pub fn object_spans(text: &[u8]) -> Option<ObjectSpans> {
    object_spans_with(text, None).map(|(spans, _)| spans)
}

/// [`object_spans`], and in the same pass the element spans of the array value of field
/// `list` (its last occurrence; `None` when it is absent or no array). The Worker
/// middleware's prefix cache hashes a history's messages as the client wrote them.
pub fn object_spans_with(text: &[u8], list: Option<&str>) -> Option<(ObjectSpans, Option<Vec<Range<usize>>>)> {
    let mut scan = Scanner { text, at: 0 };
    let mut elements = None;
    scan.skip_space();
    scan.expect(b'{')?;
    let mut fields = Vec::new();
    scan.skip_space();
    if scan.peek() == Some(b'}') {
        let close = scan.at;
        scan.at += 1;
        return scan.finish(ObjectSpans { fields, close }).map(|spans| (spans, elements));
    }
    loop {
        scan.skip_space();
        let key_start = scan.at;
        scan.skip_string()?;
        let key: String = serde_json::from_slice(text.get(key_start..scan.at)?).ok()?;
        scan.skip_space();
        scan.expect(b':')?;
        scan.skip_space();
        let value_start = scan.at;
        if list == Some(key.as_str()) {
            elements = if scan.peek() == Some(b'[') { Some(scan.array_elements()?) } else { None };
            if elements.is_none() {
                scan.skip_value()?;
            }
        } else {
            scan.skip_value()?;
        }
        fields.push((key, value_start..scan.at));
        scan.skip_space();
        match scan.next()? {
            b',' => continue,
            b'}' => {
                let close = scan.at - 1;
                return scan.finish(ObjectSpans { fields, close }).map(|spans| (spans, elements));
            }
            _ => return None,
        }
    }
}

/// The element spans of `text` when it is one JSON array (spaces around allowed).
pub fn array_spans(text: &[u8]) -> Option<Vec<Range<usize>>> {
    let mut scan = Scanner { text, at: 0 };
    scan.skip_space();
    let elements = scan.array_elements()?;
    scan.skip_space();
    (scan.at == text.len()).then_some(elements)
}

/// One JSON value being skipped as its bytes come: a string, a nested array or object
/// (by depth, strings skipped whole), or a number or literal (up to a delimiter).
#[derive(Debug, Default, Clone, Copy)]
struct ValueSkip {
    /// Open brackets, and whether in a string (after a backslash).
    depth: usize,
    string: bool,
    escaped: bool,
    /// A number or a literal, read up to a delimiter.
    scalar: bool,
}

impl ValueSkip {
    /// A value whose first byte, `b`, was read.
    fn starting(b: u8) -> ValueSkip {
        ValueSkip {
            depth: usize::from(matches!(b, b'[' | b'{')),
            string: b == b'"',
            escaped: false,
            scalar: !matches!(b, b'"' | b'[' | b'{'),
        }
    }

    /// Skips `piece` from `i`: where in it the value ends (past its last byte; a scalar's
    /// delimiter is not part of it), or `None` when it goes on past the piece.
    fn skip(&mut self, piece: &[u8], mut i: usize) -> Option<usize> {
        while i < piece.len() {
            if self.string {
                // Strings are most of a chain: from quote or backslash to the next one.
                if std::mem::take(&mut self.escaped) {
                    i = i.saturating_add(1);
                    continue;
                }
                let q = quote_or_backslash(piece, i)?;
                i = q.saturating_add(1);
                if piece.get(q) == Some(&b'"') {
                    self.string = false;
                    if self.depth == 0 {
                        return Some(i);
                    }
                } else {
                    self.escaped = true;
                }
            } else if self.scalar {
                let rest = piece.get(i..).unwrap_or_default();
                let d = rest.iter().position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))?;
                self.scalar = false;
                return Some(i.saturating_add(d));
            } else {
                let b = *piece.get(i)?;
                i = i.saturating_add(1);
                match b {
                    b'"' => self.string = true,
                    b'[' | b'{' => self.depth = self.depth.saturating_add(1),
                    b']' | b'}' => {
                        self.depth = self.depth.saturating_sub(1);
                        if self.depth == 0 {
                            return Some(i);
                        }
                    }
                    _ => {}
                }
            }
        }
        None
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// [`array_spans`] of a text fed a piece at a time: the spans of the elements found so
/// far, in order, with absolute offsets, never holding the text. Same answers as
/// [`array_spans`] of the whole text (a property test feeds random texts in random
/// pieces to both).
#[derive(Debug, Default)]
pub(crate) struct ArrayScan {
    /// Offset of the next byte fed.
    at: usize,
    state: ScanState,
    /// Start of the element being read.
    start: usize,
    element: ValueSkip,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum ScanState {
    /// Spaces, then `[`.
    #[default]
    Open,
    /// After `[`: an element or `]`.
    First,
    /// After `,`: an element.
    Next,
    Element,
    /// After an element: `,` or `]`.
    After,
    /// After `]`: spaces only.
    Closed,
    Failed,
}

impl ArrayScan {
    /// A scan of a text whose first byte is at `offset`.
    pub(crate) fn at(offset: usize) -> Self {
        ArrayScan { at: offset, ..ArrayScan::default() }
    }

    /// Scans `piece`, the text's next bytes, pushing the span of each element it ends;
    /// `false` once the text cannot be one JSON array.
    pub(crate) fn feed(&mut self, piece: &[u8], spans: &mut Vec<Range<usize>>) -> bool {
        let base = self.at;
        self.at = self.at.saturating_add(piece.len());
        let mut i = 0usize;
        while i < piece.len() {
            if self.state == ScanState::Element {
                let Some(end) = self.element.skip(piece, i) else { break };
                i = end;
                spans.push(self.start..base.saturating_add(end));
                self.state = ScanState::After;
            } else {
                let Some(&b) = piece.get(i) else { break };
                if !self.between(b, base.saturating_add(i)) {
                    return false;
                }
                i = i.saturating_add(1);
            }
        }
        true
    }

    /// Byte `b`, at `at`, outside any element; `false` when no JSON array has it there.
    fn between(&mut self, b: u8, at: usize) -> bool {
        self.state = match (self.state, b) {
            (state, _) if is_space(b) && state != ScanState::Failed => state,
            (ScanState::Open, b'[') => ScanState::First,
            (ScanState::First, b']') | (ScanState::After, b']') => ScanState::Closed,
            (ScanState::First | ScanState::Next, b',' | b']' | b'}') => ScanState::Failed,
            (ScanState::First | ScanState::Next, _) => {
                self.start = at;
                self.element = ValueSkip::starting(b);
                ScanState::Element
            }
            (ScanState::After, b',') => ScanState::Next,
            _ => ScanState::Failed,
        };
        self.state != ScanState::Failed
    }

    /// Whether the text fed so far, as a whole, is one JSON array.
    pub(crate) fn finish(&self) -> bool {
        self.state == ScanState::Closed
    }
}

/// [`object_spans`] of a text fed a piece at a time, never holding it (keys aside), and
/// the first byte of each field's value. Same answers as [`object_spans`] of the whole
/// text (a property test feeds random texts in random pieces to both).
#[derive(Debug, Default)]
pub(crate) struct ObjectScan {
    /// Offset of the next byte fed.
    at: usize,
    state: ObjectState,
    /// The key being read, quotes included (a backslash: the next byte is escaped).
    key: Vec<u8>,
    key_escaped: bool,
    /// The last key read, unescaped.
    name: String,
    value_start: usize,
    value: ValueSkip,
    fields: Vec<(String, Range<usize>)>,
    /// The first byte of each field's value.
    firsts: Vec<u8>,
    close: usize,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum ObjectState {
    /// Spaces, then `{`.
    #[default]
    Open,
    /// After `{`: a key or `}`.
    First,
    Key,
    /// After a key: `:`.
    Colon,
    /// After `:`: a value.
    Value,
    InValue,
    /// After a value: `,` or `}`.
    After,
    /// After `,`: a key.
    Next,
    /// After `}`: spaces only.
    Closed,
    Failed,
}

impl ObjectScan {
    /// Scans `piece`, the text's next bytes; `false` once the text cannot be one JSON
    /// object.
    pub(crate) fn feed(&mut self, piece: &[u8]) -> bool {
        let base = self.at;
        self.at = self.at.saturating_add(piece.len());
        let mut i = 0usize;
        while i < piece.len() {
            match self.state {
                ObjectState::InValue => {
                    let Some(end) = self.value.skip(piece, i) else { break };
                    i = end;
                    let key = std::mem::take(&mut self.name);
                    self.fields.push((key, self.value_start..base.saturating_add(end)));
                    self.state = ObjectState::After;
                }
                ObjectState::Key => {
                    let Some(&b) = piece.get(i) else { break };
                    i = i.saturating_add(1);
                    self.key.push(b);
                    if std::mem::take(&mut self.key_escaped) {
                        continue;
                    }
                    match b {
                        b'\\' => self.key_escaped = true,
                        b'"' => {
                            // The key as `JSON.parse` reads it; a bad escape: no JSON object.
                            let Ok(name) = serde_json::from_slice::<String>(&std::mem::take(&mut self.key)) else {
                                self.state = ObjectState::Failed;
                                return false;
                            };
                            self.name = name;
                            self.state = ObjectState::Colon;
                        }
                        _ => {}
                    }
                }
                _ => {
                    let Some(&b) = piece.get(i) else { break };
                    if !self.between(b, base.saturating_add(i)) {
                        return false;
                    }
                    i = i.saturating_add(1);
                }
            }
        }
        true
    }

    /// Byte `b`, at `at`, outside keys and values; `false` when no JSON object has it there.
    fn between(&mut self, b: u8, at: usize) -> bool {
        self.state = match (self.state, b) {
            (state, _) if is_space(b) && state != ObjectState::Failed => state,
            (ObjectState::Open, b'{') => ObjectState::First,
            (ObjectState::First | ObjectState::After, b'}') => {
                self.close = at;
                ObjectState::Closed
            }
            (ObjectState::First | ObjectState::Next, b'"') => {
                self.key.push(b);
                ObjectState::Key
            }
            (ObjectState::Colon, b':') => ObjectState::Value,
            (ObjectState::Value, b',' | b']' | b'}') => ObjectState::Failed,
            (ObjectState::Value, _) => {
                self.value_start = at;
                self.value = ValueSkip::starting(b);
                self.firsts.push(b);
                ObjectState::InValue
            }
            (ObjectState::After, b',') => ObjectState::Next,
            _ => ObjectState::Failed,
        };
        self.state != ObjectState::Failed
    }

    /// The spans, and each field's first value byte, when the text fed so far, as a
    /// whole, is one JSON object.
    pub(crate) fn finish(self) -> Option<(ObjectSpans, Vec<u8>)> {
        (self.state == ObjectState::Closed)
            .then_some((ObjectSpans { fields: self.fields, close: self.close }, self.firsts))
    }
}

struct Scanner<'a> {
    text: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.next()? == byte).then_some(())
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// An array, from its `[` past its `]`: the span of each element.
    fn array_elements(&mut self) -> Option<Vec<Range<usize>>> {
        self.expect(b'[')?;
        let mut elements = Vec::new();
        self.skip_space();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Some(elements);
        }
        loop {
            self.skip_space();
            let start = self.at;
            self.skip_value()?;
            elements.push(start..self.at);
            self.skip_space();
            match self.next()? {
                b',' => continue,
                b']' => return Some(elements),
                _ => return None,
            }
        }
    }

    /// Only space may follow the object.
    fn finish(mut self, spans: ObjectSpans) -> Option<ObjectSpans> {
        self.skip_space();
        (self.at == self.text.len()).then_some(spans)
    }

    /// A string, quotes included; an escape skips the byte after the backslash.
    fn skip_string(&mut self) -> Option<()> {
        self.expect(b'"')?;
        loop {
            self.at = quote_or_backslash(self.text, self.at)?;
            if self.next()? == b'"' {
                return Some(());
            }
            // A backslash: the byte it escapes is no quote.
            self.next()?;
        }
    }

    /// Any value: strings, nested arrays and objects (by depth, strings skipped whole),
    /// or a number / literal up to the next delimiter.
    fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.skip_string(),
            b'[' | b'{' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => self.skip_string()?,
                        b'[' | b'{' => {
                            depth += 1;
                            self.at += 1;
                        }
                        b']' | b'}' => {
                            depth = depth.checked_sub(1)?;
                            self.at += 1;
                            if depth == 0 {
                                return Some(());
                            }
                        }
                        _ => self.at += 1,
                    }
                }
            }
            _ => {
                let start = self.at;
                while !matches!(self.peek(), None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')) {
                    self.at += 1;
                }
                (self.at > start).then_some(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn a_word_at_a_time_finds_what_a_byte_at_a_time_finds(
            text in proptest::collection::vec(prop_oneof![Just(b'"'), Just(b'\\'), any::<u8>()], 0..40),
            at in 0usize..44,
        ) {
            let naive = text.get(at..).and_then(|rest| rest.iter().position(|&b| b == b'"' || b == b'\\')).map(|p| at + p);
            prop_assert_eq!(quote_or_backslash(&text, at), naive);
        }
    }

    fn slice<'a>(text: &'a str, span: &Range<usize>) -> &'a str {
        &text[span.clone()]
    }

    #[test]
    fn spans_of_every_field_as_written() {
        let text = r#" { "model" : "m", "seed": 9007199254740993, "messages":[{"role":"user","content":"a \"]}\" b"}] ,
            "mess\u0061ges": [ ], "x": {"y": [1, {"z": null}]}, "t": true }  "#;
        let spans = object_spans(text.as_bytes()).unwrap();
        let keys: Vec<&str> = spans.fields.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["model", "seed", "messages", "messages", "x", "t"]);
        assert_eq!(slice(text, &spans.fields[1].1), "9007199254740993");
        assert_eq!(slice(text, &spans.fields[2].1), r#"[{"role":"user","content":"a \"]}\" b"}]"#);
        // The last occurrence wins, as in JSON.parse.
        assert_eq!(slice(text, &spans.field("messages").unwrap()), "[ ]");
        assert_eq!(slice(text, &spans.field("x").unwrap()), r#"{"y": [1, {"z": null}]}"#);
        assert_eq!(slice(text, &spans.field("t").unwrap()), "true");
        assert_eq!(&text[spans.close..=spans.close], "}");
        assert_eq!(spans.field("system"), None);
    }

    #[test]
    fn elements_of_an_array_field_as_written() {
        let text = r#"{"messages": [ {"a":"x]"} ,[1,2], "s" ,3], "e": [ ], "n": 1, "messages": [ 7 ]}"#;
        let elements = |list| object_spans_with(text.as_bytes(), Some(list)).unwrap().1;
        let texts = |list| elements(list).map(|e| e.iter().map(|r| slice(text, r)).collect::<Vec<_>>());
        // The last `messages`, the one JSON.parse keeps.
        assert_eq!(texts("messages"), Some(vec!["7"]));
        let first = r#"{"messages": [ {"a":"x]"} ,[1,2], "s" ,3]}"#;
        let found = object_spans_with(first.as_bytes(), Some("messages")).unwrap().1.unwrap();
        let found: Vec<&str> = found.iter().map(|r| slice(first, r)).collect();
        assert_eq!(found, [r#"{"a":"x]"}"#, "[1,2]", r#""s""#, "3"]);
        assert_eq!(elements("e"), Some(vec![]));
        assert_eq!(elements("n"), None);
        assert_eq!(elements("absent"), None);
        // The fields are those object_spans gives.
        assert_eq!(object_spans_with(text.as_bytes(), Some("e")).map(|(s, _)| s), object_spans(text.as_bytes()));
    }

    #[test]
    fn elements_of_a_top_level_array() {
        let text = r#" [ {"a":"x]"} ,[1,2], "s\"" ,3 ] "#;
        let found: Vec<&str> = array_spans(text.as_bytes()).unwrap().iter().map(|r| slice(text, r)).collect();
        assert_eq!(found, [r#"{"a":"x]"}"#, "[1,2]", r#""s\"""#, "3"]);
        assert_eq!(array_spans(b"[]"), Some(vec![]));
        for bad in ["", "{}", "[", "[1,]", "[1] x", "[1 2]"] {
            assert_eq!(array_spans(bad.as_bytes()), None, "{bad}");
        }
    }

    proptest! {
        /// Fed in pieces of any size, the scan finds what `array_spans` finds in the
        /// whole text, and fails where it fails.
        #[test]
        fn an_array_scanned_in_pieces_is_the_array_scanned_whole(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just("["), Just("]"), Just("{"), Just("}"), Just(","), Just(" "), Just("\n"), Just("\""),
                    Just("\\"), Just("\\\""), Just("1"), Just("true"), Just("\"a\""), Just("\"x]}\\\"\""),
                    Just(":"), Just("é"),
                ],
                0..30,
            ),
            wrap in any::<bool>(),
            size in 1usize..9,
        ) {
            let body = parts.concat();
            let text = if wrap { format!(" [{body}] ") } else { body };
            let whole = array_spans(text.as_bytes());
            let mut scan = ArrayScan::default();
            let mut spans = Vec::new();
            let fed = text.as_bytes().chunks(size).all(|piece| scan.feed(piece, &mut spans));
            let pieces = (fed && scan.finish()).then_some(spans);
            prop_assert_eq!(pieces, whole, "{:?}", text);
        }
    }

    proptest! {
        /// Fed in pieces of any size, the object scan finds what `object_spans` finds in
        /// the whole text, and fails where it fails; with each value's first byte.
        #[test]
        fn an_object_scanned_in_pieces_is_the_object_scanned_whole(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just("{"), Just("}"), Just("["), Just("]"), Just(","), Just(":"), Just(" "), Just("\n"),
                    Just("\""), Just("\\"), Just("\"k\""), Just("\"k\":"), Just("\"a\\\"b\":"), Just("\"\\u00e9\":"),
                    Just("\"\\x\":"), Just("1"), Just("true"), Just("\"v}]\\\"\""), Just("é"),
                ],
                0..30,
            ),
            wrap in any::<bool>(),
            size in 1usize..9,
        ) {
            let body = parts.concat();
            let text = if wrap { format!(" {{{body}}} ") } else { body };
            let whole = object_spans(text.as_bytes());
            let mut scan = ObjectScan::default();
            let fed = text.as_bytes().chunks(size).all(|piece| scan.feed(piece));
            let pieces = if fed { scan.finish() } else { None };
            if let (Some((spans, firsts)), Some(_)) = (&pieces, &whole) {
                let expected: Vec<u8> = spans.fields.iter().map(|(_, span)| text.as_bytes()[span.start]).collect();
                prop_assert_eq!(firsts, &expected);
            }
            prop_assert_eq!(pieces.map(|(spans, _)| spans), whole, "{:?}", text);
        }
    }

    #[test]
    fn an_object_in_pieces() {
        let text = r#" { "a" : {"x":"}"} ,"b\"":[1,2], "c":"s\"" ,"d":3 } "#;
        for size in 1..text.len() {
            let mut scan = ObjectScan::default();
            assert!(text.as_bytes().chunks(size).all(|p| scan.feed(p)), "{size}");
            assert_eq!(scan.finish().map(|(spans, _)| spans), object_spans(text.as_bytes()), "{size}");
        }
        for bad in ["", "[]", "{", "{\"a\":}", "{\"a\":1,}", "{\"a\" 1}", "{\"a\":[1}", "{} x", "\"s\"", "{\"\\q\":1}"]
        {
            let mut scan = ObjectScan::default();
            let ok = scan.feed(bad.as_bytes()) && scan.finish().is_some();
            assert!(!ok, "{bad}");
            assert_eq!(object_spans(bad.as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn an_array_in_pieces() {
        let text = r#" [ {"a":"x]"} ,[1,2], "s\"" ,3 ] "#;
        for size in 1..text.len() {
            let mut scan = ArrayScan::default();
            let mut spans = Vec::new();
            assert!(text.as_bytes().chunks(size).all(|p| scan.feed(p, &mut spans)) && scan.finish(), "{size}");
            assert_eq!(Some(spans), array_spans(text.as_bytes()));
        }
        for bad in ["", "{}", "[", "[1,]", "[1] x", "[1 2]", "[1", "[\"a", "[{]", "[,1]"] {
            let mut scan = ArrayScan::default();
            let ok = scan.feed(bad.as_bytes(), &mut Vec::new()) && scan.finish();
            assert!(!ok, "{bad}");
        }
    }

    #[test]
    fn an_empty_object_and_non_objects() {
        let spans = object_spans(b"{}").unwrap();
        assert_eq!((spans.fields.len(), spans.close), (0, 1));
        for bad in
            ["", "[]", "{", "{\"a\":}", "{\"a\":1,}", "{\"a\" 1}", "{\"a\":[1}", "{} x", "\"s\"", "{\"a\":\"open}"]
        {
            assert_eq!(object_spans(bad.as_bytes()), None, "{bad}");
        }
    }
}
