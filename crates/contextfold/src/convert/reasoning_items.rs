//! An OpenAI Responses reasoning item between the Responses API and LangChain, whose
//! `@langchain/openai` keeps it whole in `additional_kwargs.reasoning` and sends it back
//! from there (see [`crate::format::langchain`]): its fields (`id`, ...) and summary
//! entries go over as they are, so that the API gets its item back byte for byte.

use crate::format::fields::add_marker;
use crate::format::{langchain, Format};
use crate::message::{marker_namespace, Part};
use serde_json::Value;

/// The item's fields and summary entries (the source's `summary` marker), taken before
/// the source's fields go.
pub(super) struct Item {
    fields: Vec<(String, Value)>,
    summary: Option<Value>,
}

/// The item a reasoning part is, between the Responses API and LangChain (one LangChain
/// keeps in `additional_kwargs`).
pub(super) fn take(part: &Part, (from, to): (Format, Format)) -> Option<Item> {
    let Part::Reasoning(reasoning) = part else { return None };
    let source = match (from, to) {
        (Format::OpenAiResponses, Format::LangChain) => marker_namespace::RESPONSES,
        (Format::LangChain, Format::OpenAiResponses) if langchain::is_responses_item(&reasoning.extra) => {
            marker_namespace::LANGCHAIN
        }
        _ => return None,
    };
    let fields = reasoning
        .extra
        .iter()
        .filter(|(k, _)| !marker_namespace::contains(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let summary = reasoning.extra.get(source).and_then(|m| m.get("summary")).cloned();
    Some(Item { fields, summary })
}

impl Item {
    /// Puts the item back on the part, written in `to`; its fields are no longer among
    /// the `dropped` ones.
    pub(super) fn put(self, part: &mut Part, to: Format, dropped: &mut Vec<String>) {
        let Part::Reasoning(reasoning) = part else { return };
        dropped.retain(|f| !self.fields.iter().any(|(k, _)| k == f));
        reasoning.extra.extend(self.fields);
        if let (Some(summary), Some(namespace)) = (self.summary, to.namespace()) {
            add_marker(&mut reasoning.extra, namespace, "summary", summary);
        }
        if to == Format::LangChain {
            langchain::mark_responses_item(&mut reasoning.extra, &reasoning.text);
        }
    }
}
