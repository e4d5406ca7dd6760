//! The native format as a hub. A chain converted to native keeps its source's restoration
//! markers and plain fields (`cache_control`, a Responses item's `id`, a UIMessage's
//! `providerMetadata`, ...), and each `extra` holding some records, in the source's marker
//! namespace, the format they came from and which plain fields are the source's:
//! `"_anthropic": { "hub": { "from": "anthropic", "fields": ["cache_control"] } }`.
//! Converted on from native, they go back as they came to that format (provider ->
//! native -> provider loses nothing), and to any other they go as on a direct conversion:
//! the markers dropped, the fields dropped and listed (strict APIs, Anthropic and Gemini,
//! reject unknown fields). Plain fields no record names are the caller's own: they stay.

use crate::format::fields::add_marker;
use crate::format::Format;
use crate::message::{marker_namespace, Extra};
use serde_json::{Map, Value};

/// The key of the record in the source's marker namespace.
const HUB: &str = "hub";

/// Into native from `from` (not native): `from`'s markers and plain fields stay, and are
/// recorded; other formats' markers go.
pub(super) fn into_native(extra: &mut Extra, from: Format) {
    let own = from.namespace();
    let mut fields = Vec::new();
    let mut has_markers = false;
    extra.retain(|key, _| {
        if marker_namespace::contains(key) {
            let kept = Some(key.as_str()) == own;
            has_markers |= kept;
            return kept;
        }
        fields.push(Value::String(key.clone()));
        true
    });
    let Some(own) = own else { return };
    if fields.is_empty() && !has_markers {
        return;
    }
    let mut record = Map::new();
    record.insert("from".into(), Value::from(from.as_str()));
    if !fields.is_empty() {
        record.insert("fields".into(), Value::Array(fields));
    }
    add_marker(extra, own, HUB, Value::Object(record));
}

/// Out of native to `to`: what a record says came from `to` stays (the record goes),
/// what came from another format goes; markers without a record stay only in `to`'s own
/// namespace. Returns the names of the dropped plain fields.
pub(super) fn out_of_native(extra: &mut Extra, to: Format) -> Vec<String> {
    let own = to.namespace();
    let mut foreign_fields = Vec::new();
    let mut drop_namespaces = Vec::new();
    for namespace in marker_namespace::ALL {
        let Some(Value::Object(markers)) = extra.get_mut(namespace) else {
            if extra.contains_key(namespace) && Some(namespace) != own {
                drop_namespaces.push(namespace);
            }
            continue;
        };
        match markers.shift_remove(HUB) {
            Some(record) => {
                let from = record.get("from").and_then(Value::as_str).and_then(Format::from_name);
                if from == Some(to) {
                    if markers.is_empty() {
                        drop_namespaces.push(namespace);
                    }
                    continue;
                }
                drop_namespaces.push(namespace);
                let names = record.get("fields").and_then(Value::as_array).into_iter().flatten();
                foreign_fields.extend(names.filter_map(Value::as_str).map(str::to_string));
            }
            None if Some(namespace) != own => drop_namespaces.push(namespace),
            None => {}
        }
    }
    for namespace in drop_namespaces {
        extra.shift_remove(namespace);
    }
    foreign_fields.retain(|field| !marker_namespace::contains(field) && extra.shift_remove(field).is_some());
    foreign_fields
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn extra(value: Value) -> Extra {
        match value {
            Value::Object(map) => map.into(),
            _ => Extra::new(),
        }
    }

    #[test]
    fn fields_go_back_to_their_format_only() {
        let read = extra(json!({"cache_control": {"type": "ephemeral"}, "_anthropic": {"source": 1}, "_gemini": {}}));
        let mut native = read.clone();
        into_native(&mut native, Format::Anthropic);
        assert_eq!(
            native.clone().into_map(),
            extra(json!({"cache_control": {"type": "ephemeral"}, "_anthropic": {"source": 1,
                "hub": {"from": "anthropic", "fields": ["cache_control"]}}}))
            .into_map()
        );
        let mut back = native.clone();
        assert!(out_of_native(&mut back, Format::Anthropic).is_empty());
        assert_eq!(
            back.into_map(),
            extra(json!({"cache_control": {"type": "ephemeral"}, "_anthropic": {"source": 1}})).into_map()
        );
        let mut gemini = native.clone();
        gemini.insert("mine".into(), json!(1));
        assert_eq!(out_of_native(&mut gemini, Format::Gemini), vec!["cache_control".to_string()]);
        assert_eq!(gemini.into_map(), extra(json!({"mine": 1})).into_map());
    }

    #[test]
    fn the_ai_sdk_shapes_share_a_namespace_not_their_fields() {
        let mut native = extra(json!({"id": "m1", "providerMetadata": {}}));
        into_native(&mut native, Format::AiSdkUi);
        let mut model = native.clone();
        let mut dropped = out_of_native(&mut model, Format::AiSdk);
        dropped.sort();
        assert_eq!(dropped, ["id", "providerMetadata"]);
        assert!(model.is_empty());
    }
}
