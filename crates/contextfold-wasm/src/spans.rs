//! Byte spans of a request body's top-level fields, for the Worker middleware: it
//! splices the compacted messages into the body as the client sent it, so that every
//! other byte (numbers beyond 2^53, key order, spacing) goes upstream unchanged. The
//! scanning is the core's ([`contextfold::json_span`]).

use crate::convert::to_js;
use crate::error::JsResult;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// The top-level object of a body: every field as `[key, start, end]` (value bytes
/// `start..end`), in order, a repeated key each time (`JSON.parse` keeps the last), and
/// the offset of its closing brace. A list, not an object: a `__proto__` key stays data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BodySpans {
    pub fields: Vec<(String, usize, usize)>,
    pub close: usize,
    /// With a `list` key: the element spans of that field's array (its last occurrence),
    /// flat `[start0, end0, start1, ...]`; `null` when it is no array.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elements: Option<Option<Vec<usize>>>,
}

pub fn body_spans(bytes: &[u8], list: Option<&str>) -> Option<BodySpans> {
    let (spans, found) = contextfold::json_span::object_spans_with(bytes, list)?;
    let fields = spans.fields.iter().map(|(key, span)| (key.clone(), span.start, span.end)).collect();
    let elements = list.map(|_| found.map(|elements| elements.iter().flat_map(|e| [e.start, e.end]).collect()));
    Some(BodySpans { fields, close: spans.close, elements })
}

/// `{ fields, close }` of a JSON object body, or `null` when it is not one; with `list`,
/// also the `elements` of that field's array (the middleware's prefix cache hashes the
/// messages as the client wrote them). Internal: the middleware's, not part of the API.
#[doc(hidden)]
#[wasm_bindgen(js_name = __requestBodySpans, skip_typescript)]
pub fn request_body_spans(bytes: &[u8], list: Option<String>) -> JsResult<JsValue> {
    match body_spans(bytes, list.as_deref()) {
        Some(spans) => to_js(&spans),
        None => Ok(JsValue::NULL),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_in_order_with_its_value_span() {
        let text = br#"{"messages":[1],"seed":9007199254740993,"messages":[2]}"#;
        let spans = body_spans(text, Some("messages")).unwrap();
        let keys: Vec<&str> = spans.fields.iter().map(|(k, _, _)| k.as_str()).collect();
        assert_eq!(keys, ["messages", "seed", "messages"]);
        let (_, start, end) = &spans.fields[1];
        assert_eq!(&text[*start..*end], b"9007199254740993");
        assert_eq!(&text[spans.fields[2].1..spans.fields[2].2], b"[2]");
        assert_eq!(spans.close, text.len() - 1);
        // The elements of the last `messages`, the one JSON.parse keeps.
        let start = spans.fields[2].1;
        assert_eq!(spans.elements, Some(Some(vec![start + 1, start + 2])));
        assert_eq!(body_spans(text, Some("seed")).unwrap().elements, Some(None));
        assert_eq!(body_spans(text, None).unwrap().elements, None);
        assert_eq!(body_spans(b"[1]", None), None);
    }
}
