//! Gemini `thoughtSignature`s on parts other than thoughts. Gemini sends them on text
//! parts and function calls too, and wants each back on its very part. The Gemini reader
//! keeps a call's as the call's signature and another part's as a marker;
//! `@ai-sdk/google` keeps those of text and tool-call parts in the part's provider field,
//! `{google: {thoughtSignature}}` (as it does for reasoning, see
//! [`crate::format::aisdk::signatures`]). [`take`] lifts such a signature off a part
//! before the source's fields are cleaned; [`put`] puts it where the target keeps it:
//! the Gemini marker (Gemini, and native, which carries it for a later conversion), the
//! AI SDK's provider field for a text part; elsewhere it has no place and is dropped
//! (listed).

use crate::format::aisdk::signatures;
use crate::format::fields::add_marker;
use crate::format::Format;
use crate::message::marker_namespace::GEMINI;
use crate::message::Part;
use crate::repair::Provider;
use serde_json::Value;

const KEY: &str = "thoughtSignature";

/// The Gemini signature of a part that has no field for it (not a thought, not a call):
/// the Gemini marker, or for a text part of the AI SDK (`from_field` its provider field),
/// the google entry; taken out of where it was. A tool call's from the AI SDK's google
/// entry goes to the call's own signature (the call is then the `true` returned).
pub(super) fn take(part: &mut Part, from: Format, from_field: &str) -> (Option<String>, bool) {
    let aisdk = matches!(from, Format::AiSdk | Format::AiSdkUi);
    match part {
        Part::Reasoning(_) => (None, false),
        Part::ToolCall(call) if aisdk => match take_google(&mut call.extra, from_field) {
            Some(signature) if call.signature.is_none() => {
                call.signature = Some(signature);
                (None, true)
            }
            _ => (None, false),
        },
        Part::ToolCall(_) => (None, false),
        Part::Text(text) if aisdk => (take_google(&mut text.extra, from_field), false),
        other => {
            let extra = other.extra_mut();
            let Some(Value::Object(markers)) = extra.get_mut(GEMINI) else { return (None, false) };
            let signature = match markers.get(KEY) {
                Some(Value::String(signature)) => Some(signature.clone()),
                _ => None,
            };
            if signature.is_some() {
                markers.remove(KEY);
            }
            (signature, false)
        }
    }
}

/// Puts a signature [`take`] gave where `to` keeps it; `false` when it has no place.
pub(super) fn put(part: &mut Part, signature: String, to: Format, to_field: &str) -> bool {
    match (to, &mut *part) {
        (Format::Gemini | Format::Native, _) => {
            add_marker(part.extra_mut(), GEMINI, KEY, Value::String(signature));
            true
        }
        (Format::AiSdk | Format::AiSdkUi, Part::Text(text)) => {
            signatures::carry(&mut text.extra, to_field, Provider::Gemini, Some(signature), None, None)
        }
        _ => false,
    }
}

/// `extra[field].google.thoughtSignature`, taken out (the entry, then the field, go
/// when nothing is left in them).
fn take_google(extra: &mut crate::message::Extra, field: &str) -> Option<String> {
    let holder = extra.get_mut(field)?.as_object_mut()?;
    let entry = holder.get_mut("google")?.as_object_mut()?;
    let signature = match entry.get(KEY)? {
        Value::String(signature) => signature.clone(),
        _ => return None,
    };
    entry.remove(KEY);
    if entry.is_empty() {
        holder.remove("google");
    }
    if holder.is_empty() {
        extra.remove(field);
    }
    Some(signature)
}
