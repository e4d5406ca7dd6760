//! Whose reasoning signatures a part holds when its source format does not say by itself:
//! LangChain records it as the message's `model_provider` (see
//! [`crate::format::langchain::signature_owner`]); native marks a signed reasoning part it
//! converted with its owner (`signed: true` under the owner's marker namespace,
//! `_anthropic`, `_gemini` or `_responses`). Converting from either then drops the
//! signatures the target would reject, as converting from the provider's own format does.

use crate::format::{langchain, Format};
use crate::message::{marker_namespace, Extra, Part};
use crate::repair::Provider;
use serde_json::Value;

const SIGNED: &str = "signed";

/// The owner namespaces of native's mark.
const OWNERS: [(Provider, &str); 3] = [
    (Provider::Anthropic, marker_namespace::ANTHROPIC),
    (Provider::Gemini, marker_namespace::GEMINI),
    (Provider::OpenAiResponses, marker_namespace::RESPONSES),
];

/// The owner of the signatures of a message (its `extra`) read from LangChain.
pub(super) fn of_message(from: Format, message: &Extra) -> Option<Provider> {
    (from == Format::LangChain).then(|| langchain::signature_owner(message)).flatten()
}

/// The owner native's mark names on a reasoning part, the mark taken off.
pub(super) fn take_native(part: &mut Part) -> Option<Provider> {
    let Part::Reasoning(reasoning) = part else { return None };
    let (owner, namespace) = OWNERS
        .into_iter()
        .find(|(_, ns)| reasoning.extra.get(*ns).and_then(|m| m.get(SIGNED)).and_then(Value::as_bool) == Some(true))?;
    if let Some(Value::Object(markers)) = reasoning.extra.get_mut(namespace) {
        markers.shift_remove(SIGNED);
        if markers.is_empty() {
            reasoning.extra.shift_remove(namespace);
        }
    }
    Some(owner)
}

/// Records the owner of a reasoning part's signature (or redacted data) where `to` keeps
/// it: native's mark, or LangChain's `model_provider` (on `message`).
pub(super) fn carry(to: Format, message: &mut Extra, part: &mut Part, owner: Option<Provider>) {
    let (Part::Reasoning(reasoning), Some(owner)) = (part, owner) else { return };
    if reasoning.signature.is_none() && reasoning.redacted_data.is_none() {
        return;
    }
    match to {
        Format::Native => {
            if let Some((_, namespace)) = OWNERS.into_iter().find(|(p, _)| *p == owner) {
                crate::format::fields::add_marker(&mut reasoning.extra, namespace, SIGNED, Value::Bool(true));
            }
        }
        Format::LangChain => langchain::carry_signature_owner(message, reasoning, owner),
        _ => {}
    }
}
