//! Whose reasoning signatures a LangChain message holds. LangChain records the provider a
//! message came from as `response_metadata.model_provider` (`@langchain/anthropic` writes
//! `anthropic`, `@langchain/openai` `openai`, the Google packages `google-genai` /
//! `google`): a signature is valid for that provider only. A converted message gets the
//! field for the signatures it carries, and one not Anthropic's goes in a v1 standard
//! `reasoning` block (`{type: "reasoning", reasoning, signature}`, what LangChain's own
//! translators make of Gemini's), which `@langchain/anthropic` does not send as
//! Anthropic `thinking`; an OpenAI Responses reasoning item (one with its `id`) goes in
//! `additional_kwargs.reasoning`, where `@langchain/openai` sends it back from.

use super::NAMESPACE;
use crate::format::fields::add_marker;
use crate::message::{Extra, ReasoningPart};
use crate::repair::Provider;
use serde_json::{Map, Value};

const METADATA: &str = "response_metadata";
const PROVIDER: &str = "model_provider";

/// The provider of a message's signatures, from the `model_provider` in its `extra`;
/// `None` when it names none whose signatures are known.
pub(crate) fn signature_owner(extra: &Extra) -> Option<Provider> {
    match extra.get(METADATA)?.get(PROVIDER)?.as_str()? {
        "anthropic" => Some(Provider::Anthropic),
        "google-genai" | "google_genai" | "google" | "google-vertexai" | "google_vertexai" => Some(Provider::Gemini),
        // Chat Completions signs nothing: a signature is a Responses reasoning item's.
        "openai" => Some(Provider::OpenAiResponses),
        _ => None,
    }
}

/// Records `owner` for a signed reasoning part (`reasoning`) of a message (`message`)
/// being converted to LangChain: the message's `model_provider` (unless it has one), and
/// the v1 block for a signature that is not Anthropic's, or for a Responses reasoning
/// item (with its `id`), `additional_kwargs`, where `@langchain/openai` sends it back from
/// (see [`super::responses_item`]).
pub(crate) fn carry_signature_owner(message: &mut Extra, reasoning: &mut ReasoningPart, owner: Provider) {
    let name = match owner {
        Provider::Anthropic => "anthropic",
        Provider::Gemini => "google-genai",
        Provider::OpenAiResponses => "openai",
        Provider::OpenAi | Provider::Generic => return,
    };
    let item = owner == Provider::OpenAiResponses && reasoning.extra.contains_key("id");
    if item && !super::responses_item::is_item(&reasoning.extra) {
        super::responses_item::mark(&mut reasoning.extra, &reasoning.text);
    } else if owner != Provider::Anthropic && !item {
        add_marker(&mut reasoning.extra, NAMESPACE, "type", Value::from("reasoning"));
    }
    let metadata = message.entry(METADATA).or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(metadata) = metadata {
        metadata.entry(PROVIDER).or_insert_with(|| Value::from(name));
    }
}
