//! A JSON tree that borrows its strings from the text it was parsed from: what the format
//! readers read wire messages from.
//!
//! A `serde_json::Value` copies every string out of the text and hashes every object key
//! into an `IndexMap`; the readers then copied each string once more into the messages
//! they built, and let the tree go. A [`Node`] parsed from a text holds its strings where
//! they lie (an escaped one is unescaped into its own), and an object is its fields in
//! order: a wire object has a handful, which a scan finds sooner than a hash. Measured on
//! a 10k-message chain: half the parse, a third of the drop. A `Value` the caller already
//! holds is read through a [`Node`] borrowing its strings ([`Node::of`]).

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Serialize, Serializer};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::fmt;

/// A JSON value whose strings may borrow from the text or tree it was read from.
#[derive(Debug, Clone, PartialEq)]
pub enum Node<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Node<'a>>),
    Object(Object<'a>),
}

/// A JSON object: its fields in input order, each key once (a repeated key keeps its
/// first place and its last value, as `serde_json`'s map does).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object<'a>(Vec<(Cow<'a, str>, Node<'a>)>);

impl<'a> Node<'a> {
    /// The node of a tree held elsewhere: its strings borrowed, its shape copied.
    pub fn of(value: &'a Value) -> Node<'a> {
        match value {
            Value::Null => Node::Null,
            Value::Bool(b) => Node::Bool(*b),
            Value::Number(n) => Node::Number(n.clone()),
            Value::String(s) => Node::String(Cow::Borrowed(s)),
            Value::Array(items) => Node::Array(items.iter().map(Node::of).collect()),
            Value::Object(map) => {
                Node::Object(Object(map.iter().map(|(k, v)| (Cow::Borrowed(k.as_str()), Node::of(v))).collect()))
            }
        }
    }

    /// The node holding its own strings, to outlive the text it was read from.
    pub fn into_owned(self) -> Node<'static> {
        match self {
            Node::Null => Node::Null,
            Node::Bool(b) => Node::Bool(b),
            Node::Number(n) => Node::Number(n),
            Node::String(s) => Node::String(Cow::Owned(s.into_owned())),
            Node::Array(items) => Node::Array(items.into_iter().map(Node::into_owned).collect()),
            Node::Object(Object(fields)) => Node::Object(Object(
                fields.into_iter().map(|(k, v)| (Cow::Owned(k.into_owned()), v.into_owned())).collect(),
            )),
        }
    }

    /// The node as a `serde_json::Value` (its strings copied).
    pub fn to_value(&self) -> Value {
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Number(n) => Value::Number(n.clone()),
            Node::String(s) => Value::String(s.to_string()),
            Node::Array(items) => Value::Array(items.iter().map(Node::to_value).collect()),
            Node::Object(object) => Value::Object(object.to_map()),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Node<'a>]> {
        match self {
            Node::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Node::Object(object) => Some(object),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Node::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Node::Number(n) => n.as_u64(),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Node::Null)
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Node::String(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Node::Array(_))
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Node::Object(_))
    }

    /// A field of an object; `None` for any other value.
    pub fn get(&self, key: &str) -> Option<&Node<'a>> {
        self.as_object()?.get(key)
    }

    /// "a string", "an array", ... for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Node::Null => KINDS.null,
            Node::Bool(_) => KINDS.boolean,
            Node::Number(_) => KINDS.number,
            Node::String(_) => KINDS.string,
            Node::Array(_) => KINDS.array,
            Node::Object(_) => KINDS.object,
        }
    }
}

/// What error messages call each kind of JSON value.
struct Kinds {
    null: &'static str,
    boolean: &'static str,
    number: &'static str,
    string: &'static str,
    array: &'static str,
    object: &'static str,
}

const KINDS: Kinds = Kinds {
    null: "null",
    boolean: "a boolean",
    number: "a number",
    string: "a string",
    array: "an array",
    object: "an object",
};

/// A JSON value of either tree, named for error messages.
pub trait Kind {
    fn kind(&self) -> &'static str;
}

impl Kind for Node<'_> {
    fn kind(&self) -> &'static str {
        Node::kind(self)
    }
}

impl Kind for Value {
    fn kind(&self) -> &'static str {
        match self {
            Value::Null => KINDS.null,
            Value::Bool(_) => KINDS.boolean,
            Value::Number(_) => KINDS.number,
            Value::String(_) => KINDS.string,
            Value::Array(_) => KINDS.array,
            Value::Object(_) => KINDS.object,
        }
    }
}

impl<'a> Object<'a> {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// A field with the object's own key.
    pub fn get_key_value(&self, key: &str) -> Option<(&str, &Node<'a>)> {
        self.0.iter().find(|(k, _)| k == key).map(|(k, v)| (k.as_ref(), v))
    }

    pub fn get(&self, key: &str) -> Option<&Node<'a>> {
        self.get_key_value(key).map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get_key_value(key).is_some()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Node<'a>)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), v))
    }

    /// The object as a `serde_json` map (its strings copied).
    pub fn to_map(&self) -> Map<String, Value> {
        self.iter().map(|(k, v)| (k.to_string(), v.to_value())).collect()
    }

    /// The fields in order, each key once: a repeated key's last value in its first place.
    fn from_fields(mut fields: Vec<(Cow<'a, str>, Node<'a>)>) -> Object<'a> {
        if has_repeats(&fields) {
            let mut kept: Vec<(Cow<'a, str>, Node<'a>)> = Vec::with_capacity(fields.len());
            for (k, v) in fields.drain(..) {
                match kept.iter_mut().find(|(seen, _)| *seen == k) {
                    Some(slot) => slot.1 = v,
                    None => kept.push((k, v)),
                }
            }
            return Object(kept);
        }
        Object(fields)
    }
}

/// Whether a key comes twice (JSON text from elsewhere than `JSON.stringify` may have it).
fn has_repeats(fields: &[(Cow<'_, str>, Node<'_>)]) -> bool {
    // Wire objects have a handful of fields: comparing each pair is cheaper than a set.
    const COMPARED: usize = 16;
    if fields.len() <= COMPARED {
        return fields
            .iter()
            .enumerate()
            .any(|(i, (k, _))| fields.iter().skip(i.saturating_add(1)).any(|(o, _)| o == k));
    }
    let mut keys: Vec<&str> = fields.iter().map(|(k, _)| k.as_ref()).collect();
    keys.sort_unstable();
    keys.windows(2).any(|pair| matches!(pair, [a, b] if a == b))
}

/// Written as `serde_json` writes the `Value` of the same tree.
impl Serialize for Node<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Node::Null => serializer.serialize_unit(),
            Node::Bool(b) => serializer.serialize_bool(*b),
            Node::Number(n) => n.serialize(serializer),
            Node::String(s) => serializer.serialize_str(s),
            Node::Array(items) => serializer.collect_seq(items),
            Node::Object(object) => serializer.collect_map(object.iter()),
        }
    }
}

/// Parsed as `serde_json` parses a `Value` (the same numbers, the same limits), but
/// strings without escapes stay in the text.
impl<'de> Deserialize<'de> for Node<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NodeVisitor;
        impl<'de> Visitor<'de> for NodeVisitor {
            type Value = Node<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any valid JSON value")
            }
            fn visit_unit<E>(self) -> Result<Node<'de>, E> {
                Ok(Node::Null)
            }
            fn visit_none<E>(self) -> Result<Node<'de>, E> {
                Ok(Node::Null)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Node<'de>, E> {
                Ok(Node::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Node<'de>, E> {
                Ok(Node::Number(v.into()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Node<'de>, E> {
                Ok(Node::Number(v.into()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Node<'de>, E> {
                Ok(Number::from_f64(v).map_or(Node::Null, Node::Number))
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Node<'de>, E> {
                Ok(Node::String(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Node<'de>, E> {
                Ok(Node::String(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Node<'de>, E> {
                Ok(Node::String(Cow::Owned(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node<'de>, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Node::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node<'de>, A::Error> {
                let mut fields = Vec::new();
                // A key is read as a node too: a JSON text's keys are strings, borrowed
                // from the text unless they have escapes.
                while let Some((key, v)) = map.next_entry::<Node<'de>, Node<'de>>()? {
                    let Node::String(k) = key else {
                        return Err(serde::de::Error::custom("an object key must be a string"));
                    };
                    fields.push((k, v));
                }
                Ok(Node::Object(Object::from_fields(fields)))
            }
        }
        deserializer.deserialize_any(NodeVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(text: &str) -> Node<'_> {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn strings_without_escapes_stay_in_the_text() {
        let text = r#"{"a": "plain", "b\n": "esc\"aped", "c": [1, -2, 3.5, true, null, {}]}"#;
        let node = parse(text);
        let Some(Node::String(Cow::Borrowed(_))) = node.get("a") else { panic!("not borrowed: {node:?}") };
        let Some(Node::String(Cow::Owned(s))) = node.get("b\n") else { panic!("not unescaped: {node:?}") };
        assert_eq!(s, "esc\"aped");
        assert_eq!(node.to_value(), serde_json::from_str::<Value>(text).unwrap());
    }

    #[test]
    fn a_repeated_key_keeps_its_first_place_and_last_value_as_a_value_does() {
        for text in [
            r#"{"a":1,"b":2,"a":3}"#,
            r#"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"ka":10,"kb":11,"kc":12,"kd":13,"ke":14,"kf":15,"kg":16,"k3":"again"}"#,
        ] {
            let value: Value = serde_json::from_str(text).unwrap();
            let node = parse(text);
            assert_eq!(node.to_value(), value);
            let keys: Vec<&str> = node.as_object().unwrap().iter().map(|(k, _)| k).collect();
            let expected: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(keys, expected);
        }
    }

    #[test]
    fn bad_text_fails_as_a_value_would() {
        for text in ["{", "[1,]", r#"{"a" 1}"#, "nul", r#""\ud800""#, "1e999"] {
            assert_eq!(
                serde_json::from_str::<Node>(text).is_err(),
                serde_json::from_str::<Value>(text).is_err(),
                "{text}"
            );
        }
    }

    proptest::proptest! {
        /// Any JSON text reads as the same tree either way; a `Value` read through
        /// [`Node::of`] is that tree too.
        #[test]
        fn a_node_is_the_value_of_its_text(value in crate::json_eq::tests::value()) {
            let text = serde_json::to_string(&value).unwrap();
            let node: Node = serde_json::from_str(&text).unwrap();
            let parsed: Value = serde_json::from_str(&text).unwrap();
            proptest::prop_assert_eq!(node.to_value(), parsed.clone());
            proptest::prop_assert_eq!(serde_json::to_string(&node).unwrap(), serde_json::to_string(&parsed).unwrap());
            proptest::prop_assert_eq!(&Node::of(&parsed), &node);
            proptest::prop_assert_eq!(node.clone().into_owned(), node);
        }

        /// A number reads as the very double its shortest text stands for, and writes
        /// back as that double: a rewritten message keeps its numbers (serde_json's
        /// `float_roundtrip`; without it about one random double in seven moved an ulp).
        #[test]
        fn a_number_reads_and_writes_as_its_exact_double(bits in proptest::num::u64::ANY) {
            let x = f64::from_bits(bits);
            proptest::prop_assume!(x.is_finite());
            let text = serde_json::to_string(&x).unwrap();
            let node: Node = serde_json::from_str(&text).unwrap();
            let read = node.to_value().as_f64().unwrap();
            proptest::prop_assert_eq!(read.to_bits(), x.to_bits(), "{}", text);
            let again: f64 = serde_json::from_str(&serde_json::to_string(&node).unwrap()).unwrap();
            proptest::prop_assert_eq!(again.to_bits(), x.to_bits());
        }
    }

    #[test]
    fn accessors_mirror_those_of_a_value() {
        let value = json!({"s": "x", "n": 7, "b": true, "a": [1], "o": {"k": null}, "z": null});
        let node = Node::of(&value);
        for key in ["s", "n", "b", "a", "o", "z", "missing"] {
            let (v, n) = (value.get(key), node.get(key));
            assert_eq!(v.and_then(Value::as_str), n.and_then(Node::as_str));
            assert_eq!(v.and_then(Value::as_u64), n.and_then(Node::as_u64));
            assert_eq!(v.and_then(Value::as_bool), n.and_then(Node::as_bool));
            assert_eq!(v.map(Value::is_null), n.map(Node::is_null));
            assert_eq!(v.map(Value::is_array), n.map(Node::is_array));
            assert_eq!(v.map(Value::is_object), n.map(Node::is_object));
            assert_eq!(v.map(Value::is_string), n.map(Node::is_string));
        }
        assert_eq!(serde_json::to_string(&node).unwrap(), serde_json::to_string(&value).unwrap());
        assert_eq!(Node::of(&json!([])).kind(), "an array");
    }
}
