#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! A reasoning signature is valid only for the provider that issued it. Through a
//! provider-neutral hop (LangChain, native) it keeps its owner, so a later conversion
//! drops it where the target would reject it, as the direct conversion does.

use contextfold::convert::{convert, Change};
use contextfold::format::{self, Format};
use serde_json::{json, Value};

fn gemini() -> Value {
    json!({"contents": [
        {"role": "user", "parts": [{"text": "weather in Paris?"}]},
        {"role": "model", "parts": [
            {"text": "I should call the tool.", "thought": true, "thoughtSignature": "GEMINI_SIGNATURE"},
            {"functionCall": {"id": "c1", "name": "get_weather", "args": {"city": "Paris"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "get_weather", "response": {"output": "sunny"}}}]},
        {"role": "model", "parts": [{"text": "Sunny."}]}]})
}

fn responses() -> Value {
    json!([
        {"role": "user", "content": "weather in Paris?"},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "call the tool"}],
         "encrypted_content": "OPENAI_ENCRYPTED"},
        {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
        {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
        {"role": "assistant", "content": "Sunny."}])
}

fn anthropic() -> Value {
    json!({"messages": [
        {"role": "user", "content": "weather in Paris?"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "call the tool", "signature": "ANTHROPIC_SIGNATURE"},
            {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "sunny"}]},
        {"role": "assistant", "content": "Sunny."}]})
}

/// `value` from `from` to `via`, then to `to`: the result's JSON and its changes.
fn hop(value: &Value, from: Format, via: Format, to: Format) -> (String, Vec<Change>) {
    let mid = convert(value, Some(from), via).unwrap_or_else(|e| panic!("{from:?} -> {via:?}: {e}")).value;
    let out = convert(&mid, Some(via), to).unwrap_or_else(|e| panic!("{via:?} -> {to:?}: {e}"));
    (out.value.to_string(), out.changes)
}

fn dropped_signature(changes: &[Change]) -> bool {
    changes.iter().any(|c| matches!(c, Change::DroppedSignature { .. }))
}

#[test]
fn a_foreign_signature_is_dropped_after_a_neutral_hop() {
    for via in [Format::LangChain, Format::Native] {
        for (source, from, signature, to) in [
            (gemini(), Format::Gemini, "GEMINI_SIGNATURE", Format::Anthropic),
            (responses(), Format::OpenAiResponses, "OPENAI_ENCRYPTED", Format::Anthropic),
            (responses(), Format::OpenAiResponses, "OPENAI_ENCRYPTED", Format::Gemini),
            (anthropic(), Format::Anthropic, "ANTHROPIC_SIGNATURE", Format::Gemini),
        ] {
            let (out, changes) = hop(&source, from, via, to);
            assert!(!out.contains(signature), "{from:?} -> {via:?} -> {to:?} keeps {signature}: {out}");
            assert!(dropped_signature(&changes), "{from:?} -> {via:?} -> {to:?}: listed");
        }
    }
}

#[test]
fn a_signature_goes_back_to_its_own_provider_after_a_neutral_hop() {
    for via in [Format::LangChain, Format::Native] {
        for (source, from, signature) in [
            (gemini(), Format::Gemini, "GEMINI_SIGNATURE"),
            (anthropic(), Format::Anthropic, "ANTHROPIC_SIGNATURE"),
            (responses(), Format::OpenAiResponses, "OPENAI_ENCRYPTED"),
        ] {
            let (out, changes) = hop(&source, from, via, from);
            assert!(out.contains(signature), "{from:?} -> {via:?} -> {from:?} lost {signature}: {out}");
            assert!(!dropped_signature(&changes), "{from:?} -> {via:?} -> {from:?}");
        }
    }
}

#[test]
fn langchain_holds_a_non_anthropic_signature_outside_anthropic_thinking() {
    // `@langchain/anthropic` sends a `thinking` block as Anthropic's; a Gemini signature
    // goes in a v1 `reasoning` block, and the message names its provider.
    let written = convert(&gemini(), Some(Format::Gemini), Format::LangChain).unwrap().value;
    let ai = &written[1]["data"];
    assert_eq!(
        ai["content"][0],
        json!({"type": "reasoning", "reasoning": "I should call the tool.", "signature": "GEMINI_SIGNATURE"})
    );
    assert_eq!(ai["response_metadata"]["model_provider"], "google-genai");
    let written = convert(&anthropic(), Some(Format::Anthropic), Format::LangChain).unwrap().value;
    assert_eq!(written[1]["data"]["content"][0]["type"], "thinking");
    assert_eq!(written[1]["data"]["response_metadata"]["model_provider"], "anthropic");
}

#[test]
fn a_langchain_message_signature_belongs_to_its_model_provider() {
    // What @langchain/anthropic returns, and what @langchain/google-genai does.
    let chain = |provider: &str| {
        json!([
            {"type": "human", "data": {"content": "hi"}},
            {"type": "ai", "data": {"content": [
                {"type": "thinking", "thinking": "greet", "signature": "SIG"},
                {"type": "text", "text": "Hello."}],
             "response_metadata": {"model_provider": provider}}}])
    };
    for (provider, kept_by, dropped_by) in
        [("anthropic", Format::Anthropic, Format::Gemini), ("google-genai", Format::Gemini, Format::Anthropic)]
    {
        let wire = chain(provider);
        assert_eq!(format::write(&format::read(&wire, Format::LangChain).unwrap(), Format::LangChain).unwrap(), wire);
        let kept = convert(&wire, Some(Format::LangChain), kept_by).unwrap();
        assert!(kept.value.to_string().contains("SIG"), "{provider} -> {kept_by:?}");
        let dropped = convert(&wire, Some(Format::LangChain), dropped_by).unwrap();
        assert!(!dropped.value.to_string().contains("SIG"), "{provider} -> {dropped_by:?}");
        assert!(dropped_signature(&dropped.changes), "{provider} -> {dropped_by:?}");
    }
}
