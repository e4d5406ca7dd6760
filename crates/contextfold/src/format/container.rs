//! The container a chain comes in, and writing back into the same one.
//!
//! OpenAI Chat, Anthropic and Gemini chains come as a bare list (`messages`, `contents`)
//! or as a request object (`{model, messages, ...}`, `{system, messages, ...}`,
//! `{systemInstruction, contents, ...}`), Responses ones as `input` or `{instructions,
//! input}`; the other formats as a list. Whatever a pipeline does, its output has the input's
//! container (an array stays an array, a request stays a request, typed as the input in
//! TypeScript), so the caller can pass it where the input came from:
//! - [`holds_new_system`] says whether the container can take a system prompt the input
//!   did not have; where it cannot (an Anthropic or Gemini list has no place for one, an
//!   AI SDK list must not gain one: `generateText` rejects system messages in `messages`),
//!   the compaction pipeline writes its summaries as user messages instead
//!   ([`crate::strategy::run::NewSystem`]);
//! - [`write_like`] writes messages in the input's container, a request keeping every
//!   field that is not a message (`model`, `max_tokens`, `tools`, `generationConfig`, ...)
//!   as it came.

use super::{write, Format, FormatError, RequestFields};
use crate::message::{Message, Role};
use serde_json::{Map, Value};

/// Whether a chain in `format`, held in `input`'s container, can hold a system prompt
/// it did not have: an OpenAI, LangChain or native list can (a system message is a
/// message there), a request object can (its system field); an Anthropic or Gemini list
/// cannot, and an AI SDK list must not (`generateText({ messages })` throws on a system
/// message unless the caller opted in, which a list already holding one shows).
pub fn holds_new_system(input: &Value, format: Format) -> bool {
    match format {
        Format::Native | Format::OpenAi | Format::OpenAiResponses | Format::LangChain => true,
        Format::Anthropic => input.is_object(),
        Format::Gemini => input.as_object().is_some_and(|r| !uses_context_cache(r)),
        Format::AiSdk | Format::AiSdkUi => false,
    }
}

/// Fields of a request object the model reads beside the conversation (tool definitions,
/// a response schema, the tool choice), as the JSON text each holds: what a hard budget
/// leaves the conversation is the budget less their cost. Nothing for a bare list.
pub fn request_overhead(input: &Value, format: Format) -> Vec<String> {
    let Value::Object(request) = input else { return Vec::new() };
    let (fields, nested): (&[&str], Option<&Map<String, Value>>) = match format {
        Format::OpenAi => (&["tools", "functions", "response_format", "tool_choice"], None),
        Format::OpenAiResponses => (&["tools", "text", "tool_choice"], None),
        Format::Anthropic => (&["tools", "tool_choice"], None),
        // The genai SDK's parameters keep them in `config`.
        Format::Gemini => (&["tools", "toolConfig"], request.get("config").and_then(Value::as_object)),
        Format::Native | Format::AiSdk | Format::AiSdkUi | Format::LangChain => return Vec::new(),
    };
    [Some(request), nested]
        .into_iter()
        .flatten()
        .flat_map(|object| fields.iter().filter_map(|k| object.get(*k)))
        .map(|v| serde_json::to_string(v).unwrap_or_default())
        .collect()
}

/// Whether a Gemini request uses a context cache (`cachedContent` in a REST body, or in
/// the genai SDK's `config`): Gemini refuses a system instruction beside one (400
/// "CachedContent can not be used with GenerateContent request setting
/// system_instruction"), so a summary goes in a user message instead.
fn uses_context_cache(request: &Map<String, Value>) -> bool {
    let config = RequestFields::GEMINI.system_in.and_then(|k| request.get(k)).and_then(Value::as_object);
    [Some(request), config].into_iter().flatten().any(|o| o.contains_key("cachedContent"))
}

/// Fields a Gemini REST body has at its top level and the genai SDK's
/// `GenerateContentParameters` keeps in `config`.
const REST_ONLY: [&str; 6] =
    ["systemInstruction", "generationConfig", "safetySettings", "tools", "toolConfig", "cachedContent"];

/// Whether a request keeps its system prompt in the object field `config`: one it has
/// (the genai SDK's `GenerateContentParameters`), or would have, being one of those
/// parameters (`{model, contents}`: a REST body names its model in the URL, and holds
/// none of its own top-level fields). The SDK drops any field but `model`, `contents`
/// and `config`: a system prompt anywhere else would never reach the model.
fn system_in_config(request: &Map<String, Value>, config: &str) -> bool {
    match request.get(config) {
        Some(object) => object.is_object(),
        None => request.contains_key("model") && !REST_ONLY.iter().any(|k| request.contains_key(*k)),
    }
}

/// Whether `messages` may gain system messages, read from `input` in `format`: the
/// container holds a new system prompt, or the chain already had one there.
pub fn may_gain_system(input: &Value, format: Format, messages: &[Message]) -> bool {
    holds_new_system(input, format) || messages.iter().any(|m| m.role == Role::System)
}

/// Writes `messages` in `format`, in `input`'s container: a request object stays one
/// (its other fields kept as they came, its system field present only when the messages
/// have a system prompt), a list stays a list unless the messages hold a system prompt
/// the list cannot (then the writer's request form, as [`write`] gives it).
pub fn write_like(messages: &[Message], format: Format, input: &Value) -> Result<Value, FormatError> {
    let written = write(messages, format)?;
    let (Some(fields), Value::Object(request)) = (format.request_fields(), input) else {
        return Ok(written);
    };
    let list_key = fields.messages;
    let mut out: Map<String, Value> = request.clone();
    // The genai SDK's request keeps its system prompt in `config`: it stays there, and
    // one it gains goes there (`config` made if need be).
    let has_top = fields.system.is_some_and(|k| request.contains_key(k));
    let nested = fields.system_in.is_some_and(|k| system_in_config(request, k));
    if let Some((Some(object), system_key)) = fields.system_place(has_top, nested) {
        let (system, list) = match written {
            Value::Object(mut fresh) => (fresh.remove(system_key), fresh.remove(list_key)),
            list @ Value::Array(_) => (None, Some(list)),
            other => return Ok(other),
        };
        match (out.get_mut(object), system) {
            (Some(Value::Object(config)), Some(system)) => {
                config.insert(system_key.to_string(), system);
            }
            (Some(Value::Object(config)), None) => {
                config.shift_remove(system_key);
            }
            (None, Some(system)) => {
                out.insert(object.to_string(), Value::Object(Map::from_iter([(system_key.to_string(), system)])));
            }
            _ => {}
        }
        out.insert(list_key.to_string(), list.unwrap_or(Value::Array(Vec::new())));
        return Ok(Value::Object(out));
    }
    match (written, fields.system) {
        // A format without a system field (OpenAI Chat) keeps its system messages in the list.
        (Value::Array(list), None) => {
            out.insert(list_key.to_string(), Value::Array(list));
        }
        (Value::Array(list), Some(system_key)) => {
            out.shift_remove(system_key);
            out.insert(list_key.to_string(), Value::Array(list));
        }
        (Value::Object(mut fresh), system_key) => {
            if let Some(system_key) = system_key {
                match fresh.remove(system_key) {
                    Some(system) => out.insert(system_key.to_string(), system),
                    None => out.shift_remove(system_key),
                };
            }
            out.insert(list_key.to_string(), fresh.remove(list_key).unwrap_or(Value::Array(Vec::new())));
        }
        (other, _) => return Ok(other),
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::read;
    use serde_json::json;

    #[test]
    fn a_request_stays_a_request_with_its_other_fields() {
        let input = json!({ "model": "claude", "max_tokens": 512, "messages": [
            { "role": "user", "content": "hi" }, { "role": "assistant", "content": "yo" } ] });
        let messages = read(&input, Format::Anthropic).unwrap();
        assert_eq!(write_like(&messages, Format::Anthropic, &input).unwrap(), input);
        // Gaining a system prompt puts it in the request's field, the rest kept.
        let mut with_system = vec![Message::text(Role::System, "summary")];
        with_system.extend(messages);
        let out = write_like(&with_system, Format::Anthropic, &input).unwrap();
        assert_eq!(out["model"], json!("claude"));
        assert_eq!(out["max_tokens"], json!(512));
        assert_eq!(out["system"], json!("summary"));
        assert_eq!(out["messages"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn a_gemini_request_without_system_instruction_stays_a_request() {
        let input = json!({ "generationConfig": { "temperature": 0 }, "systemInstruction": "be brief",
            "contents": [ { "role": "user", "parts": [ { "text": "hi" } ] } ] });
        let messages = read(&input, Format::Gemini).unwrap();
        let without: Vec<Message> = messages.iter().filter(|m| m.role != Role::System).cloned().collect();
        let out = write_like(&without, Format::Gemini, &input).unwrap();
        assert_eq!(
            out,
            json!({ "generationConfig": { "temperature": 0 },
            "contents": [ { "role": "user", "parts": [ { "text": "hi" } ] } ] })
        );
    }

    #[test]
    fn the_genai_sdk_request_keeps_its_system_instruction_in_config() {
        // `GenerateContentParameters`: `{model, contents, config: {systemInstruction}}`.
        let input = json!({ "model": "gemini-2.5-flash", "config": { "temperature": 0, "systemInstruction": "be brief" },
            "contents": [ { "role": "user", "parts": [ { "text": "hi" } ] } ] });
        let messages = read(&input, Format::Gemini).unwrap();
        assert_eq!(messages.first().map(|m| m.role), Some(Role::System));
        assert_eq!(write_like(&messages, Format::Gemini, &input).unwrap(), input);
        // Without it (dropped), and gaining one where the request had none: in `config`.
        let without: Vec<Message> = messages.iter().filter(|m| m.role != Role::System).cloned().collect();
        let out = write_like(&without, Format::Gemini, &input).unwrap();
        assert_eq!(out["config"], json!({ "temperature": 0 }));
        let bare = json!({ "model": "m", "config": {}, "contents": [] });
        let out = write_like(&[Message::text(Role::System, "summary")], Format::Gemini, &bare).unwrap();
        assert_eq!(out["config"]["systemInstruction"]["parts"][0]["text"], json!("summary"));
        assert!(out.get("systemInstruction").is_none());
    }

    #[test]
    fn the_genai_sdk_parameters_without_config_gain_a_system_prompt_in_a_new_config() {
        // `GenerateContentParameters` has no top-level `systemInstruction`: the SDK drops it.
        let summary = [Message::text(Role::System, "summary"), Message::text(Role::User, "hi")];
        let sdk = json!({ "model": "gemini-2.5-flash", "contents": [] });
        let out = write_like(&summary, Format::Gemini, &sdk).unwrap();
        assert_eq!(out["config"]["systemInstruction"]["parts"][0]["text"], json!("summary"));
        assert!(out.get("systemInstruction").is_none());
        // No system prompt to write: no `config` either.
        let out = write_like(&summary[1..], Format::Gemini, &sdk).unwrap();
        assert_eq!(
            out,
            json!({ "model": "gemini-2.5-flash", "contents": [ { "role": "user", "parts": [ { "text": "hi" } ] } ] })
        );
        // A REST body (no `model`, or its own top-level fields) keeps it at the top level.
        for rest in [json!({ "contents": [] }), json!({ "model": "m", "generationConfig": {}, "contents": [] })] {
            let out = write_like(&summary, Format::Gemini, &rest).unwrap();
            assert_eq!(out["systemInstruction"]["parts"][0]["text"], json!("summary"), "{rest}");
            assert!(out.get("config").is_none(), "{rest}");
        }
    }

    #[test]
    fn a_gemini_request_with_a_context_cache_holds_no_new_system_prompt() {
        // Gemini refuses `systemInstruction` beside `cachedContent`: summaries go in user messages.
        let rest = json!({ "cachedContent": "cachedContents/abc", "contents": [] });
        let sdk = json!({ "model": "m", "config": { "cachedContent": "cachedContents/abc" }, "contents": [] });
        assert!(!holds_new_system(&rest, Format::Gemini));
        assert!(!holds_new_system(&sdk, Format::Gemini));
        assert!(holds_new_system(&json!({ "contents": [] }), Format::Gemini));
        assert!(holds_new_system(&json!({ "model": "m", "config": {}, "contents": [] }), Format::Gemini));
    }

    #[test]
    fn lists_stay_lists_and_say_whether_they_hold_a_new_system_prompt() {
        let list = json!([{ "role": "user", "content": "hi" }]);
        let messages = read(&list, Format::Anthropic).unwrap();
        assert_eq!(write_like(&messages, Format::Anthropic, &list).unwrap(), list);
        assert!(!holds_new_system(&list, Format::Anthropic));
        assert!(!holds_new_system(&list, Format::AiSdk));
        assert!(holds_new_system(&list, Format::OpenAi));
        assert!(holds_new_system(&json!({ "messages": [] }), Format::Anthropic));
        assert!(!may_gain_system(&list, Format::Anthropic, &messages));
        assert!(may_gain_system(&list, Format::AiSdk, &[Message::text(Role::System, "s")]));
    }
}
