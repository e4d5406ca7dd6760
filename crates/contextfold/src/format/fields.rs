//! Reading one wire JSON object field by field without losing any of it.
//!
//! A reader takes the fields it maps (each `take`/`string`/... marks its key as used);
//! whatever is left becomes the `extra` of the message or part built from the object
//! ([`WireObject::into_extra`]), so unknown provider fields survive. A mapped field whose
//! value carries nothing (`null`, or `""`/`[]`/`false` where a getter says so) is left
//! unused on purpose: it then goes back to the wire verbatim, and a writer needs no
//! marker to restore it.

use super::path::JsonPath;
use super::FormatError;
use crate::json_node::{Node, Object};
use crate::message::{marker_namespace, Extra};
use serde_json::{Map, Value};

/// Marker key (inside a format's namespace) for unknown wire fields whose names clash
/// with the native JSON field names of the message or part (`text`, `name`, ...): kept
/// apart so that the flattened native form never holds a key twice.
pub(crate) const SHADOWED: &str = "shadowed";

/// Adds one marker to an `extra` under `namespace`.
pub(crate) fn add_marker(extra: &mut Extra, namespace: &str, key: &str, value: Value) {
    match extra.get_mut(namespace) {
        Some(Value::Object(markers)) => {
            markers.insert(key.to_string(), value);
        }
        _ => {
            let mut markers = Map::new();
            markers.insert(key.to_string(), value);
            extra.insert(namespace.to_string(), Value::Object(markers));
        }
    }
}

/// Native JSON field names of messages and of each part kind (see [`crate::message`]).
pub(crate) mod native_keys {
    pub(crate) const MESSAGE: &[&str] = &["role", "parts"];
    pub(crate) const TEXT: &[&str] = &["type", "text"];
    pub(crate) const REASONING: &[&str] = &["type", "text", "signature", "redactedData"];
    pub(crate) const IMAGE: &[&str] = &["type", "url", "data", "mediaType"];
    pub(crate) const FILE: &[&str] = &["type", "url", "data", "mediaType", "name"];
    pub(crate) const TOOL_CALL: &[&str] = &["type", "id", "name", "arguments", "signature"];
    pub(crate) const TOOL_RESULT: &[&str] = &["type", "callId", "name", "content", "isError"];
}

/// A wire JSON object being read.
pub(crate) struct WireObject<'a> {
    map: &'a Object<'a>,
    used: Vec<&'a str>,
    path: JsonPath,
}

/// Restoration notes for a future writer, stored under the format's namespace key
/// (`_openai`, `_anthropic`) in `extra`. Only what a writer could not infer goes here.
#[derive(Debug, Default)]
pub(crate) struct Markers(Map<String, Value>);

impl<'a> WireObject<'a> {
    /// `what` names the expected object in the error (`"a message"`, `"a content part"`).
    pub(crate) fn new(value: &'a Node<'a>, path: JsonPath, what: &str) -> Result<Self, FormatError> {
        match value {
            Node::Object(map) => Ok(WireObject { map, used: Vec::new(), path }),
            other => Err(path.shape_error(format!("expected {what} (a JSON object), found {}", json_kind(other)))),
        }
    }

    pub(crate) fn field_path(&self, key: &str) -> JsonPath {
        self.path.key(key)
    }

    /// Looks at a field without taking it.
    pub(crate) fn peek(&self, key: &str) -> Option<&'a Node<'a>> {
        self.map.get(key)
    }

    /// Takes a field of any type.
    pub(crate) fn take(&mut self, key: &str) -> Option<&'a Node<'a>> {
        let (k, v) = self.lookup(key)?;
        self.use_key(k);
        Some(v)
    }

    /// A field with the map's own key, to mark it taken without a second lookup.
    fn lookup(&self, key: &str) -> Option<(&'a str, &'a Node<'a>)> {
        self.map.get_key_value(key)
    }

    /// Marks a key found by [`Self::lookup`] as taken.
    fn use_key(&mut self, key: &'a str) {
        if !self.used.contains(&key) {
            self.used.push(key);
        }
    }

    /// Puts a taken field back: it will be kept verbatim in `extra`.
    pub(crate) fn untake(&mut self, key: &str) {
        self.used.retain(|k| *k != key);
    }

    /// An optional string field; `null` stays unused.
    pub(crate) fn string(&mut self, key: &str) -> Result<Option<&'a str>, FormatError> {
        match self.lookup(key) {
            None | Some((_, Node::Null)) => Ok(None),
            Some((k, Node::String(s))) => {
                self.use_key(k);
                Ok(Some(s.as_ref()))
            }
            Some((_, other)) => {
                Err(self.field_path(key).shape_error(format!("`{key}` must be a string, found {}", json_kind(other))))
            }
        }
    }

    pub(crate) fn required_string(&mut self, key: &str) -> Result<&'a str, FormatError> {
        match self.string(key)? {
            Some(s) => Ok(s),
            None => Err(self.field_path(key).shape_error(format!("missing string field `{key}`"))),
        }
    }

    /// A string that means something only when non-empty: `""` stays unused.
    pub(crate) fn nonempty_string(&mut self, key: &str) -> Result<Option<&'a str>, FormatError> {
        match self.string(key)? {
            Some("") => {
                self.untake(key);
                Ok(None)
            }
            other => Ok(other),
        }
    }

    /// A boolean flag: `true` is taken; `false` and `null` stay unused.
    pub(crate) fn flag(&mut self, key: &str) -> Result<bool, FormatError> {
        match self.lookup(key) {
            None | Some((_, Node::Null | Node::Bool(false))) => Ok(false),
            Some((k, Node::Bool(true))) => {
                self.use_key(k);
                Ok(true)
            }
            Some((_, other)) => {
                Err(self.field_path(key).shape_error(format!("`{key}` must be a boolean, found {}", json_kind(other))))
            }
        }
    }

    /// A non-empty array field; `null` and `[]` stay unused.
    pub(crate) fn nonempty_array(&mut self, key: &str) -> Result<Option<&'a [Node<'a>]>, FormatError> {
        match self.lookup(key) {
            None | Some((_, Node::Null)) => Ok(None),
            Some((_, Node::Array(items))) if items.is_empty() => Ok(None),
            Some((k, Node::Array(items))) => {
                self.use_key(k);
                Ok(Some(items.as_slice()))
            }
            Some((_, other)) => {
                Err(self.field_path(key).shape_error(format!("`{key}` must be an array, found {}", json_kind(other))))
            }
        }
    }

    /// A nested object field, read in turn; `what` names it in errors.
    pub(crate) fn required_object(&mut self, key: &str, what: &str) -> Result<WireObject<'a>, FormatError> {
        match self.take(key) {
            Some(value) => WireObject::new(value, self.field_path(key), what),
            None => Err(self.field_path(key).shape_error(format!("missing object field `{key}`"))),
        }
    }

    fn all_taken(&self) -> bool {
        // `used` holds distinct keys of the map: as many as the map has fields means all
        // of them (a map with a key twice never gets there, and is compared key by key).
        self.used.len() == self.map.len() || self.map.iter().all(|(k, _)| self.used.contains(&k))
    }

    /// The fields not taken, in input order.
    pub(crate) fn leftovers(&self) -> Map<String, Value> {
        if self.all_taken() {
            return Map::new();
        }
        self.map.iter().filter(|(k, _)| !self.used.contains(k)).map(|(k, v)| (k.to_string(), v.to_value())).collect()
    }

    /// The `extra` of what was built from this object: the fields not taken, plus
    /// `markers` under `namespace`. A leftover whose name is a native field name (or a
    /// marker namespace) goes under `namespace.shadowed` instead.
    pub(crate) fn into_extra(self, native: &[&str], namespace: &str, markers: Markers) -> Extra {
        // Most wire objects are read whole and need no marker: nothing to build.
        if markers.0.is_empty() && self.all_taken() {
            return Extra::new();
        }
        let mut extra = Extra::new();
        let mut shadowed = Map::new();
        for (k, v) in self.leftovers() {
            if native.contains(&k.as_str()) || k == namespace || marker_namespace::contains(&k) {
                shadowed.insert(k, v);
            } else {
                extra.insert(k, v);
            }
        }
        let mut markers = markers.0;
        if !shadowed.is_empty() {
            markers.insert(SHADOWED.to_string(), Value::Object(shadowed));
        }
        if !markers.is_empty() {
            extra.insert(namespace.to_string(), Value::Object(markers));
        }
        extra
    }
}

impl WireObject<'_> {
    /// The unsigned tool call part read from this object; its `extra` as [`Self::into_extra`].
    pub(crate) fn into_tool_call(
        self,
        id: String,
        name: String,
        arguments: String,
        namespace: &str,
        markers: Markers,
    ) -> crate::message::Part {
        let extra = self.into_extra(native_keys::TOOL_CALL, namespace, markers);
        crate::message::Part::ToolCall(crate::message::ToolCallPart { id, name, arguments, signature: None, extra })
    }

    /// The reasoning part read from this object (text and signature, no redacted data).
    pub(crate) fn into_reasoning(
        self,
        text: String,
        signature: Option<String>,
        namespace: &str,
        markers: Markers,
    ) -> crate::message::Part {
        let extra = self.into_extra(native_keys::REASONING, namespace, markers);
        crate::message::Part::Reasoning(crate::message::ReasoningPart { text, signature, redacted_data: None, extra })
    }
}

impl Markers {
    pub(crate) fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.0.insert(key.to_string(), value.into());
    }

    /// The markers as a JSON object.
    pub(crate) fn into_value(self) -> Value {
        Value::Object(self.0)
    }

    /// The `extra` of a part built from no wire object of its own: the markers alone,
    /// under `namespace`.
    pub(crate) fn into_extra(self, namespace: &str) -> Extra {
        let mut extra = Extra::new();
        if !self.0.is_empty() {
            extra.insert(namespace.to_string(), self.into_value());
        }
        extra
    }

    /// Keeps the untaken fields of a nested wire object (an OpenAI `image_url`, an
    /// Anthropic `source`) under its wire key.
    pub(crate) fn nested_leftovers(&mut self, key: &str, nested: &WireObject<'_>) {
        let rest = nested.leftovers();
        if !rest.is_empty() {
            self.0.insert(key.to_string(), Value::Object(rest));
        }
    }
}

/// "a string", "an array", ... for error messages.
pub(crate) fn json_kind(value: &impl crate::json_node::Kind) -> &'static str {
    value.kind()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{
        FilePart, ImagePart, Message, Part, ReasoningPart, Role, TextPart, ToolCallPart, ToolResultPart,
    };
    use serde_json::json;

    fn keys_of(value: &impl serde::Serialize) -> Vec<String> {
        match serde_json::to_value(value) {
            Ok(Value::Object(map)) => map.keys().cloned().collect(),
            other => panic!("not an object: {other:?}"),
        }
    }

    #[test]
    fn native_key_lists_match_the_serde_form() {
        let s = || Some("x".to_string());
        let cases: Vec<(Vec<String>, &[&str])> = vec![
            (keys_of(&Message::text(Role::User, "x")), native_keys::MESSAGE),
            (keys_of(&Part::Text(TextPart { text: "x".into(), extra: Extra::new() })), native_keys::TEXT),
            (
                keys_of(&Part::Reasoning(ReasoningPart {
                    text: "x".into(),
                    signature: s(),
                    redacted_data: s(),
                    extra: Extra::new(),
                })),
                native_keys::REASONING,
            ),
            (
                keys_of(&Part::Image(ImagePart { url: s(), data: s(), media_type: s(), extra: Extra::new() })),
                native_keys::IMAGE,
            ),
            (
                keys_of(&Part::File(FilePart { url: s(), data: s(), media_type: s(), name: s(), extra: Extra::new() })),
                native_keys::FILE,
            ),
            (
                keys_of(&Part::ToolCall(ToolCallPart {
                    id: "i".into(),
                    name: "n".into(),
                    arguments: "{}".into(),
                    signature: s(),
                    extra: Extra::new(),
                })),
                native_keys::TOOL_CALL,
            ),
            (
                keys_of(&Part::ToolResult(ToolResultPart {
                    call_id: "i".into(),
                    name: s(),
                    content: vec![],
                    is_error: true,
                    extra: Extra::new(),
                })),
                native_keys::TOOL_RESULT,
            ),
        ];
        for (keys, listed) in cases {
            let mut keys = keys;
            let mut listed: Vec<String> = listed.iter().map(|k| k.to_string()).collect();
            keys.sort();
            listed.sort();
            assert_eq!(keys, listed);
        }
    }

    #[test]
    fn leftovers_become_extra_and_clashing_names_are_shadowed() {
        let wire = json!({"role": "user", "text": "clash", "cache": 1, "name": null});
        let node = Node::of(&wire);
        let mut obj = WireObject::new(&node, JsonPath::root(), "a message").unwrap();
        assert_eq!(obj.required_string("role").unwrap(), "user");
        assert_eq!(obj.string("name").unwrap(), None);
        let mut markers = Markers::default();
        markers.set("content", "array");
        let extra = obj.into_extra(&["role", "parts", "text"], "_ns", markers);
        assert_eq!(
            Value::Object(extra.into_map()),
            json!({"cache": 1, "name": null, "_ns": {"content": "array", "shadowed": {"text": "clash"}}})
        );
    }

    #[test]
    fn getters_report_wrong_types_with_their_path() {
        let wire = json!({"a": 1, "b": "x", "c": [], "d": false, "e": ""});
        let path = JsonPath::root().index(4);
        let node = Node::of(&wire);
        let mut obj = WireObject::new(&node, path, "a message").unwrap();
        let err = obj.string("a").unwrap_err();
        assert_eq!((err.code(), err.path()), ("invalid_shape", Some("[4].a")));
        let err = obj.nonempty_array("b").unwrap_err();
        assert_eq!(err.path(), Some("[4].b"));
        let err = obj.flag("b").unwrap_err();
        assert_eq!(err.path(), Some("[4].b"));
        let err = obj.required_string("zz").unwrap_err();
        assert_eq!(err.path(), Some("[4].zz"));
        assert_eq!(obj.nonempty_array("c").unwrap(), None);
        assert!(!obj.flag("d").unwrap());
        assert_eq!(obj.nonempty_string("e").unwrap(), None);
        // Values that carry nothing stay for `extra`.
        assert_eq!(Value::Object(obj.leftovers()), json!({"a": 1, "b": "x", "c": [], "d": false, "e": ""}));
    }

    #[test]
    fn a_non_object_is_a_shape_error() {
        let err = WireObject::new(&Node::of(&json!("x")), JsonPath::root().index(0), "a message").err().unwrap();
        assert_eq!(err.path(), Some("[0]"));
        assert!(err.to_string().contains("expected a message"));
    }
}
