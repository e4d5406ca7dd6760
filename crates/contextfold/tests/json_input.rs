//! Invalid JSON text says where: line, column, byte offset and the path of the value
//! being read (issue 14: `invalid_json` errors carried no position a caller could use).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use contextfold::format::{parse_json, FormatError};

fn failure(text: &str) -> (usize, usize, usize, String) {
    match parse_json(text) {
        Err(FormatError::InvalidJson { line, column, offset, path, .. }) => (line, column, offset, path),
        other => panic!("{text:?}: {other:?}"),
    }
}

#[test]
fn invalid_json_names_line_column_offset_and_path() {
    let text = "[{\"role\":\"user\",\"content\":\"hi\"},\n {\"role\":\"assistant\",\"content\": tru}]";
    let (line, column, offset, path) = failure(text);
    assert_eq!(line, 2);
    assert_eq!(&text[offset..offset + 1], &text[text.find("tru}").unwrap() + 3..][..1]);
    assert_eq!(path, "[1].content");
    assert!(column > 0);
    let error = parse_json(text).unwrap_err();
    assert_eq!(error.code(), "invalid_json");
    assert_eq!(error.path(), Some("[1].content"));
    let message = error.to_string();
    assert!(message.starts_with("invalid JSON at line 2, column "), "{message}");
    assert!(message.contains(&format!("(byte {offset}), in [1].content: ")), "{message}");
}

#[test]
fn errors_at_the_top_have_the_empty_path() {
    for text in ["", "not json", "[] x", "\u{feff}[]"] {
        let (_, _, offset, path) = failure(text);
        assert_eq!(path, "", "{text:?}");
        assert!(offset <= text.len());
    }
    assert_eq!(failure("[{").3, "[0]");
    assert_eq!(failure(r#"{"system":"s","messages":[{"role":"user","content":"a\ud800b"}]}"#).3, "messages[0].content");
}

mod spans {
    use contextfold::json_span::object_spans;
    use proptest::prelude::*;
    use serde_json::{Map, Value};

    fn text() -> impl Strategy<Value = String> {
        "[a-zA-Z0-9 éж中😀\n\"{}\\[\\]:,\\\\/]{0,16}"
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            // u64 beyond 2^53 as well (serde_json keeps integers exact; floats need not round-trip).
            any::<u64>().prop_map(Value::from),
            text().prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((text(), inner), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    proptest! {
        /// Compact or pretty, every field's span holds exactly its value's JSON, and the
        /// text outside the spans is the object's punctuation and keys.
        #[test]
        fn each_span_is_its_fields_value(fields in prop::collection::vec((text(), value()), 0..6), pretty in any::<bool>()) {
            let object = Value::Object(fields.into_iter().collect::<Map<_, _>>());
            let text = if pretty { serde_json::to_string_pretty(&object) } else { serde_json::to_string(&object) }.unwrap();
            let spans = object_spans(text.as_bytes()).unwrap();
            let Value::Object(map) = &object else { unreachable!() };
            prop_assert_eq!(spans.fields.len(), map.len());
            for ((key, span), (want_key, want)) in spans.fields.iter().zip(map) {
                prop_assert_eq!(key, want_key);
                let got: Value = serde_json::from_str(&text[span.clone()]).unwrap();
                prop_assert_eq!(&got, want);
            }
            prop_assert_eq!(&text[spans.close..=spans.close], "}");
        }

        /// Any text at all: an answer or None, never a panic.
        #[test]
        fn never_panics(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            let _ = object_spans(&bytes);
        }
    }
}
