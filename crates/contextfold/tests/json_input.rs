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
