//! Reasoning signatures in the AI SDK. Its parts have no field for them: each provider
//! package keeps its own in a provider entry of the part's `providerOptions`
//! (`ModelMessage`) or `providerMetadata` (`UIMessage`), and reads it back from there:
//! `@ai-sdk/anthropic` `{signature}` / `{redactedData}`, `@ai-sdk/google`
//! `{thoughtSignature}`, `@ai-sdk/openai` (Responses) `{itemId,
//! reasoningEncryptedContent}`. The reader takes them as the part's signature (so that a
//! conversion to that provider keeps its thinking), marked with the entry they came
//! from; [`carry`] puts a provider's signature where its package reads it.

use crate::format::fields::Markers;
use crate::json_node::Node;
use crate::message::Extra;
use crate::repair::Provider;
use serde_json::{Map, Value};

/// Where one provider package keeps a reasoning part's signature.
struct Entry {
    provider: Provider,
    /// The provider entry's key.
    key: &'static str,
    signature: &'static str,
    redacted: Option<&'static str>,
    /// The item id that goes with the signature.
    id: Option<&'static str>,
}

const ENTRIES: [Entry; 3] = [
    Entry {
        provider: Provider::Anthropic,
        key: "anthropic",
        signature: "signature",
        redacted: Some("redactedData"),
        id: None,
    },
    Entry { provider: Provider::Gemini, key: "google", signature: "thoughtSignature", redacted: None, id: None },
    Entry {
        provider: Provider::OpenAiResponses,
        key: "openai",
        signature: "reasoningEncryptedContent",
        redacted: None,
        id: Some("itemId"),
    },
];

/// The marker naming the provider entry a signature was read from.
const MARKER: &str = "signatureOf";

/// A reasoning part's signature and redacted data, read from its provider field (`None`,
/// `None` when it holds none); the entry is marked.
pub(crate) fn read(field: Option<&Node<'_>>, markers: &mut Markers) -> (Option<String>, Option<String>) {
    let Some(Node::Object(field)) = field else {
        return (None, None);
    };
    for entry in &ENTRIES {
        let Some(Node::Object(found)) = field.get(entry.key) else { continue };
        let text = |key: Option<&str>| match key.and_then(|k| found.get(k)) {
            Some(Node::String(s)) => Some(s.to_string()),
            _ => None,
        };
        let (signature, redacted) = (text(Some(entry.signature)), text(entry.redacted));
        if signature.is_some() || redacted.is_some() {
            markers.set(MARKER, entry.key);
            return (signature, redacted);
        }
    }
    (None, None)
}

/// The provider whose signature a reasoning part read from the AI SDK holds (by its
/// marker, in the AI SDK's namespace `namespace`).
pub(crate) fn owner(extra: &Extra, namespace: &str) -> Option<Provider> {
    let key = extra.get(namespace)?.get(MARKER)?.as_str()?;
    ENTRIES.iter().find(|e| e.key == key).map(|e| e.provider)
}

/// Puts `provider`'s `signature` / `redacted` data (and the item `id` that goes with it)
/// in `extra[field]` (`providerOptions` or `providerMetadata`), where its AI SDK package
/// reads it. `false` (nothing done) for a provider without such an entry.
pub(crate) fn carry(
    extra: &mut Extra,
    field: &str,
    provider: Provider,
    signature: Option<String>,
    redacted: Option<String>,
    id: Option<Value>,
) -> bool {
    let Some(entry) = ENTRIES.iter().find(|e| e.provider == provider) else {
        return false;
    };
    let mut values = Map::new();
    if let (Some(key), Some(id)) = (entry.id, id) {
        values.insert(key.into(), id);
    }
    if let (Some(key), Some(redacted)) = (entry.redacted, redacted) {
        values.insert(key.into(), redacted.into());
    }
    if let Some(signature) = signature {
        values.insert(entry.signature.into(), signature.into());
    }
    if values.is_empty() {
        return false;
    }
    let holder = extra.entry(field.to_string()).or_insert_with(|| Value::Object(Map::new()));
    if !holder.is_object() {
        *holder = Value::Object(Map::new());
    }
    if let Some(holder) = holder.as_object_mut() {
        let slot = holder.entry(entry.key.to_string()).or_insert_with(|| Value::Object(Map::new()));
        match slot.as_object_mut() {
            Some(slot) => slot.extend(values),
            None => *slot = Value::Object(values),
        }
    }
    true
}

/// The item id `provider`'s package keeps in `extra[field]` (`providerOptions` or
/// `providerMetadata`): the Responses id of a reasoning item or a function call.
pub(crate) fn item_id<'e>(extra: &'e Extra, field: &str, provider: Provider) -> Option<&'e Value> {
    let entry = ENTRIES.iter().find(|e| e.provider == provider)?;
    extra.get(field)?.get(entry.key)?.get(entry.id?)
}

/// Whether `extra[field]` holds nothing but `provider`'s signature, redacted data and item
/// id (nothing else is lost once those are carried).
pub(crate) fn holds_only(extra: &Extra, field: &str, provider: Provider) -> bool {
    let Some(entry) = ENTRIES.iter().find(|e| e.provider == provider) else { return false };
    let Some(Value::Object(holder)) = extra.get(field) else { return false };
    let own = [Some(entry.signature), entry.redacted, entry.id];
    holder.len() == 1
        && matches!(holder.get(entry.key), Some(Value::Object(values)) if values.keys().all(|k| own.contains(&Some(k.as_str()))))
}
