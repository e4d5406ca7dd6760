//! [`Extra`]: the unknown fields of a message or part, kept verbatim for lossless round
//! trips.
//!
//! Most messages and parts have none, so the map is boxed and absent until a field is
//! added: an empty map held inline took 44 bytes in wasm (72 natively) on every message
//! and every part, about a quarter of a chain's messages in memory. It reads as a
//! `serde_json` map (`Deref`), and serializes as one.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use std::ops::{Deref, DerefMut};
use std::sync::OnceLock;

/// Unknown fields kept verbatim (see the module documentation).
#[derive(Clone, Default)]
pub struct Extra(Option<Box<Map<String, Value>>>);

impl Extra {
    /// No field.
    pub fn new() -> Extra {
        Extra(None)
    }

    /// The fields as a map of their own (empty when there are none).
    pub fn into_map(self) -> Map<String, Value> {
        self.0.map(|m| *m).unwrap_or_default()
    }
}

fn empty() -> &'static Map<String, Value> {
    static EMPTY: OnceLock<Map<String, Value>> = OnceLock::new();
    EMPTY.get_or_init(Map::new)
}

impl Deref for Extra {
    type Target = Map<String, Value>;

    fn deref(&self) -> &Map<String, Value> {
        self.0.as_deref().unwrap_or_else(|| empty())
    }
}

impl DerefMut for Extra {
    fn deref_mut(&mut self) -> &mut Map<String, Value> {
        self.0.get_or_insert_with(Box::default)
    }
}

impl From<Map<String, Value>> for Extra {
    fn from(map: Map<String, Value>) -> Extra {
        Extra((!map.is_empty()).then(|| Box::new(map)))
    }
}

impl FromIterator<(String, Value)> for Extra {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Extra {
        Extra::from(iter.into_iter().collect::<Map<String, Value>>())
    }
}

impl IntoIterator for Extra {
    type Item = (String, Value);
    type IntoIter = serde_json::map::IntoIter;

    fn into_iter(self) -> Self::IntoIter {
        self.into_map().into_iter()
    }
}

impl<'a> IntoIterator for &'a Extra {
    type Item = (&'a String, &'a Value);
    type IntoIter = serde_json::map::Iter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.deref().iter()
    }
}

impl PartialEq for Extra {
    /// By content: no map and an empty one are the same fields.
    fn eq(&self, other: &Extra) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Extra {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl Serialize for Extra {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Extra {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Extra, D::Error> {
        Map::deserialize(deserializer).map(Extra::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_field_takes_no_map_and_equals_an_empty_one() {
        let none = Extra::new();
        let mut emptied = Extra::new();
        emptied.insert("a".into(), Value::Null);
        emptied.shift_remove("a");
        assert_eq!(none, emptied);
        assert!(none.is_empty() && none.get("a").is_none());
        assert!(std::mem::size_of::<Extra>() <= std::mem::size_of::<usize>());
    }

    #[test]
    fn it_reads_and_writes_as_a_map() {
        let extra: Extra = serde_json::from_str(r#"{"b":1,"a":2}"#).unwrap_or_default();
        assert_eq!(serde_json::to_string(&extra).ok().as_deref(), Some(r#"{"b":1,"a":2}"#));
        assert_eq!(serde_json::to_string(&Extra::new()).ok().as_deref(), Some("{}"));
    }
}
