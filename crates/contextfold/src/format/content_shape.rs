//! The JSON type a wire `content` field had. Both provider formats accept more than one
//! (a string or an array of parts, sometimes `null` or nothing), and the neutral parts do
//! not say which: readers record it as a `content` marker whenever it differs from the
//! shape a writer would choose for those parts by itself.

use crate::message::Part;
use serde_json::Value;
use std::borrow::Borrow;

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

impl ContentShape {
    /// The shape a marker value names.
    pub(crate) fn from_marker(value: &Value) -> Option<ContentShape> {
        match value.as_str()? {
            "string" => Some(ContentShape::String),
            "array" => Some(ContentShape::Array),
            "null" => Some(ContentShape::Null),
            "absent" => Some(ContentShape::Absent),
            _ => None,
        }
    }

    /// Whether this shape can hold these parts without losing any: a string holds no
    /// part or a single plain text part, `null` and absence hold none.
    pub(crate) fn holds<P: Borrow<Part>>(self, parts: &[P]) -> bool {
        match self {
            ContentShape::Array => true,
            ContentShape::String => match parts {
                [] => true,
                [one] => is_plain_text(one.borrow()),
                _ => false,
            },
            ContentShape::Null | ContentShape::Absent => parts.is_empty(),
        }
    }

    /// The shape recorded by a `content` marker if it can hold the parts (an edited
    /// message may no longer fit it), else `natural`.
    pub(crate) fn restore<P: Borrow<Part>>(marker: Option<&Value>, natural: ContentShape, parts: &[P]) -> ContentShape {
        match marker.and_then(ContentShape::from_marker) {
            Some(shape) if shape.holds(parts) => shape,
            _ => natural,
        }
    }
}

/// A text part without extra fields: what a string content stands for.
pub(crate) fn is_plain_text(part: &Part) -> bool {
    matches!(part, Part::Text(t) if t.extra.is_empty())
}

impl From<ContentShape> for Value {
    fn from(shape: ContentShape) -> Value {
        Value::from(shape.as_str())
    }
}
