//! Field lookups in the small JSON objects wire messages are made of.
//!
//! serde_json's map (an `IndexMap` with `preserve_order`) hashes the key of every lookup
//! with SipHash; a message or part has a handful of fields, and comparing their keys in
//! order is several times cheaper (measured: key lookups were a quarter of reading a
//! 10k-message chain). Large objects still go through the hash.

use serde_json::{Map, Value};

/// Objects with at most this many fields are searched in order.
const SCANNED: usize = 12;

/// Lookups by scan for small maps, by hash for large ones.
pub(crate) trait Fields {
    fn field(&self, key: &str) -> Option<&Value>;
    fn field_entry(&self, key: &str) -> Option<(&String, &Value)>;
}

impl Fields for Map<String, Value> {
    fn field(&self, key: &str) -> Option<&Value> {
        self.field_entry(key).map(|(_, v)| v)
    }

    fn field_entry(&self, key: &str) -> Option<(&String, &Value)> {
        if self.len() <= SCANNED {
            self.iter().find(|(k, _)| k.as_str() == key)
        } else {
            self.get_key_value(key)
        }
    }
}

impl Fields for Value {
    /// A field of an object; `None` for any other value.
    fn field(&self, key: &str) -> Option<&Value> {
        self.as_object()?.field(key)
    }

    fn field_entry(&self, key: &str) -> Option<(&String, &Value)> {
        self.as_object()?.field_entry(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn small_and_large_objects_find_the_same_fields() {
        for n in [0usize, 1, 5, SCANNED, SCANNED + 1, 40] {
            let map: Map<String, Value> = (0..n).map(|i| (format!("k{i}"), json!(i))).collect();
            for i in 0..n {
                let key = format!("k{i}");
                assert_eq!(map.field(&key), map.get(&key), "{n} fields, {key}");
                assert_eq!(map.field_entry(&key), map.get_key_value(&key));
            }
            assert!(map.field("missing").is_none() && map.field("").is_none());
        }
        assert_eq!(json!({"a": 1}).field("a"), Some(&json!(1)));
        assert_eq!(json!([1]).field("a"), None);
    }
}
