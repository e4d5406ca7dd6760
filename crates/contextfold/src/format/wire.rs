//! Writing native messages back to wire JSON objects, the reverse of
//! [`super::fields`]: a writer maps the native fields, reads its own restoration markers,
//! and writes every other `extra` field verbatim (shadowed ones included). The marker
//! namespaces of other formats are dropped: their notes describe a wire shape the
//! writer is not producing.

use super::fields::SHADOWED;
use crate::json_node::Node;
use crate::message::marker_namespace;
use crate::message::Extra;
use serde_json::{Map, Value};

/// What a writer finds in one `extra`: its own markers and the fields to write verbatim.
pub(crate) struct Restore<'a> {
    markers: Option<&'a Map<String, Value>>,
    fields: Map<String, Value>,
}

impl<'a> Restore<'a> {
    pub(crate) fn new(extra: &'a Extra, namespace: &str) -> Restore<'a> {
        let markers = match extra.get(namespace) {
            Some(Value::Object(markers)) => Some(markers),
            _ => None,
        };
        let mut fields: Map<String, Value> =
            extra.iter().filter(|(k, _)| !marker_namespace::contains(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
        if let Some(Value::Object(shadowed)) = markers.and_then(|m| m.get(SHADOWED)) {
            for (k, v) in shadowed {
                fields.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        Restore { markers, fields }
    }

    pub(crate) fn marker(&self, key: &str) -> Option<&'a Value> {
        self.markers.and_then(|m| m.get(key))
    }

    pub(crate) fn marker_str(&self, key: &str) -> Option<&'a str> {
        self.marker(key).and_then(Value::as_str)
    }

    pub(crate) fn marker_object(&self, key: &str) -> Option<&'a Map<String, Value>> {
        self.marker(key).and_then(Value::as_object)
    }

    pub(crate) fn marker_flag(&self, key: &str) -> bool {
        self.marker(key).and_then(Value::as_bool) == Some(true)
    }

    /// Whether a field will be written verbatim.
    pub(crate) fn has_field(&self, key: &str) -> bool {
        self.fields.contains_key(key)
    }

    /// The fields to write verbatim.
    pub(crate) fn into_fields(self) -> Map<String, Value> {
        self.fields
    }

    /// Adds fields found elsewhere (on a part that has no wire object of its own); the
    /// fields already there win.
    pub(crate) fn absorb(&mut self, other: Map<String, Value>) {
        for (k, v) in other {
            self.fields.entry(k).or_insert(v);
        }
    }

    /// The wire object: the `mapped` fields, then the verbatim ones. A mapped field wins
    /// a clash (an extra field can only clash with one on hand-made messages).
    pub(crate) fn finish(self, mapped: Map<String, Value>) -> Value {
        Value::Object(merge_missing(mapped, self.fields))
    }
}

/// `target` with the fields of `more` it does not have yet.
pub(crate) fn merge_missing(
    mut target: Map<String, Value>,
    more: impl IntoIterator<Item = (String, Value)>,
) -> Map<String, Value> {
    for (k, v) in more {
        target.entry(k).or_insert(v);
    }
    target
}

/// Adds the fields of a nested marker object (an OpenAI `image_url`, an Anthropic
/// `source`, ...) that `target` does not have yet.
pub(crate) fn extend_nested(target: &mut Map<String, Value>, nested: Option<&Map<String, Value>>) {
    for (k, v) in nested.into_iter().flatten() {
        target.entry(k.clone()).or_insert_with(|| v.clone());
    }
}

/// An object of `(key, value)` pairs, in order.
pub(crate) fn object<const N: usize>(pairs: [(&str, Value); N]) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

type ReadSystem =
    fn(Option<&Node<'_>>, &super::path::JsonPath) -> Result<Option<crate::message::Message>, super::FormatError>;
type ReadList = fn(
    super::items::Items<'_>,
    &super::path::JsonPath,
    Vec<crate::message::Message>,
) -> Result<Vec<crate::message::Message>, super::FormatError>;

/// How a provider's chain comes: a bare message list, or a request object holding a
/// separate system prompt field and the list (Anthropic `{system, messages}`, Gemini
/// `{systemInstruction, contents}`). Other fields of a request are not read.
pub(crate) struct RequestShape {
    /// "Anthropic messages", "Gemini contents": for errors.
    pub list_name: &'static str,
    pub fields: super::RequestFields,
    pub read_system: ReadSystem,
    pub read_list: ReadList,
}

impl RequestShape {
    /// Reads a bare list or a request object: its system prompt first, then the list.
    pub(crate) fn read(&self, value: &Value) -> Result<Vec<crate::message::Message>, super::FormatError> {
        self.read_taken(&Node::of(value), None)
    }

    /// [`RequestShape::read`], the list's elements `taken` out of `value` when given
    /// (`value` then holds the list emptied).
    pub(crate) fn read_taken(
        &self,
        value: &Node<'_>,
        taken: Option<super::items::Items<'_>>,
    ) -> Result<Vec<crate::message::Message>, super::FormatError> {
        use super::fields::{json_kind, WireObject};
        use super::items::Items;
        let root = super::path::JsonPath::root();
        let read_list = |list: &[Node<'_>], path: &super::path::JsonPath, out| match taken {
            Some(items) => (self.read_list)(items, path, out),
            None => (self.read_list)(Items::Nodes(list), path, out),
        };
        match value {
            Node::Array(list) => read_list(list, &root, Vec::new()),
            Node::Object(_) => {
                let mut request = WireObject::new(value, root, "a request")?;
                let mut out = Vec::new();
                let nested = self.fields.system_in.and_then(|k| request.peek(k)).filter(|v| v.is_object());
                let has_top = self.fields.system.is_some_and(|k| request.peek(k).is_some());
                match self.fields.system_place(has_top, nested.is_some()) {
                    Some((None, field)) => {
                        let system_path = request.field_path(field);
                        if let Some(system) = (self.read_system)(request.take(field), &system_path)? {
                            out.push(system);
                        }
                    }
                    Some((Some(object), field)) => {
                        let system_path = request.field_path(object).key(field);
                        let value = nested.and_then(|n| n.get(field));
                        if let Some(system) = (self.read_system)(value, &system_path)? {
                            out.push(system);
                        }
                    }
                    None => {}
                }
                let path = request.field_path(self.fields.messages);
                let gemini = self.fields.messages == super::RequestFields::GEMINI.messages;
                match request.take(self.fields.messages) {
                    Some(Node::Array(list)) if !gemini || list.first().is_none_or(super::gemini::is_content_like) => {
                        read_list(list, &path, out)
                    }
                    // One content, one part, a string or a list of parts (the genai SDK's
                    // `ContentListUnion`).
                    Some(single) if gemini => {
                        let Some(list) = super::gemini::contents_of(single) else {
                            return Err(path.shape_error(match single {
                                Node::Array(_) => "`contents` that opens with a part must hold parts and strings only (the genai SDK sends them as one user content): no content, and no function call or response, which go in a content with its role".to_string(),
                                _ => format!(
                                    "`contents` must be an array, a content, a part (no function call or response outside a content) or a string, found {}",
                                    json_kind(single)
                                ),
                            }));
                        };
                        let nodes = Node::of(&list);
                        read_list(nodes.as_array().unwrap_or_default(), &path, out)
                    }
                    Some(other) => Err(path.shape_error(format!(
                        "`{}` must be an array, found {}",
                        self.fields.messages,
                        json_kind(other)
                    ))),
                    None => Err(path.shape_error(format!("missing array field `{}`", self.fields.messages))),
                }
            }
            other => Err(root.shape_error(format!(
                "expected an array of {} or a request object {{{}{}}}, found {}",
                self.list_name,
                self.fields.system.map(|k| format!("{k}, ")).unwrap_or_default(),
                self.fields.messages,
                json_kind(other)
            ))),
        }
    }
}
