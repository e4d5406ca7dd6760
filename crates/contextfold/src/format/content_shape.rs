//! The JSON type a wire `content` field had. Both provider formats accept more than one
//! (a string or an array of parts, sometimes `null` or nothing), and the neutral parts do
//! not say which: readers record it as a `content` marker whenever it differs from the
//! shape a writer would choose for those parts by itself.

use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ContentShape {
    String,
    Array,
    Null,
    /// The field was not there.
    Absent,
}

impl ContentShape {
    /// The marker value.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ContentShape::String => "string",
            ContentShape::Array => "array",
            ContentShape::Null => "null",
            ContentShape::Absent => "absent",
        }
    }
}

impl From<ContentShape> for Value {
    fn from(shape: ContentShape) -> Value {
        Value::from(shape.as_str())
    }
}
