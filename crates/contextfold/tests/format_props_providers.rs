#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! Property tests of the Gemini, AI SDK (`ModelMessage` and `UIMessage`) and LangChain writers: a random valid native
//! chain, in the shape the wire can carry, written and read back gives the same messages
//! modulo restoration markers, and the written JSON is a fixed point. Then the same
//! chains converted to every format validate clean for the target provider.
//!
//! Wire limits the generator respects: Gemini results hold one text (`{output}`), and
//! every result has its call's name; AI SDK reasoning (both forms) has no signature; LangChain has
//! one result per tool message; all arguments are compact JSON objects.

use contextfold::convert::{convert_messages, provider_of};
use contextfold::format::{self, native, Format};
use contextfold::message::{Extra, Message, Part, ReasoningPart, Role, ToolCallPart, ToolResultPart};
use contextfold::repair::validate;
use proptest::prelude::*;
use serde_json::{Map, Value};

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 éж中😀\n\"{}<>/]{1,24}"
}

fn args() -> impl Strategy<Value = String> {
    prop::collection::vec(
        ("[a-z_]{1,8}", prop_oneof![text().prop_map(Value::from), any::<i32>().prop_map(Value::from)]),
        0..3,
    )
    .prop_map(|kv| serde_json::to_string(&Value::Object(kv.into_iter().collect::<Map<_, _>>())).unwrap())
}

#[derive(Debug, Clone)]
struct Call {
    name: String,
    args: String,
    result: String,
    is_error: bool,
    signature: Option<String>,
}

#[derive(Debug, Clone)]
struct Step {
    reasoning: Option<(String, Option<String>)>,
    text: Option<String>,
    calls: Vec<Call>,
}

#[derive(Debug, Clone)]
struct Spec {
    system: Option<String>,
    turns: Vec<(String, Vec<Step>)>,
}

fn spec() -> impl Strategy<Value = Spec> {
    let call = ("[a-z_]{1,10}", args(), text(), any::<bool>(), prop::option::of("[A-Za-z0-9]{4,12}"))
        .prop_map(|(name, args, result, is_error, signature)| Call { name, args, result, is_error, signature });
    let step = (
        prop::option::of((text(), prop::option::of("[A-Za-z0-9+/=]{4,16}"))),
        prop::option::of(text()),
        prop::collection::vec(call, 0..3),
    )
        .prop_map(|(reasoning, text, calls)| {
            let text = if reasoning.is_none() && text.is_none() && calls.is_empty() { Some("ok".into()) } else { text };
            Step { reasoning, text, calls }
        });
    (prop::option::of(text()), prop::collection::vec((text(), prop::collection::vec(step, 1..3)), 1..4))
        .prop_map(|(system, turns)| Spec { system, turns })
}

fn build(spec: &Spec, format: Format) -> Vec<Message> {
    let mut out = Vec::new();
    if let Some(system) = &spec.system {
        out.push(Message::text(Role::System, system.as_str()));
    }
    let mut next = 0usize;
    for (user, steps) in &spec.turns {
        out.push(Message::text(Role::User, user.as_str()));
        for step in steps {
            let mut parts = Vec::new();
            if let Some((text, signature)) = &step.reasoning {
                let signature =
                    if matches!(format, Format::AiSdk | Format::AiSdkUi) { None } else { signature.clone() };
                parts.push(Part::Reasoning(ReasoningPart {
                    text: text.clone(),
                    signature,
                    ..ReasoningPart::default()
                }));
            }
            if let Some(text) = &step.text {
                parts.push(Part::text(text.as_str()));
            }
            let mut results = Vec::new();
            for call in &step.calls {
                let id = format!("call_{next}");
                next += 1;
                parts.push(Part::ToolCall(ToolCallPart {
                    id: id.clone(),
                    name: call.name.clone(),
                    arguments: call.args.clone(),
                    signature: if format == Format::Gemini { call.signature.clone() } else { None },
                    extra: Extra::new(),
                }));
                // The Responses output item has neither a tool name nor an error flag.
                let responses = format == Format::OpenAiResponses;
                results.push(Part::ToolResult(ToolResultPart {
                    call_id: id,
                    name: if responses { None } else { Some(call.name.clone()) },
                    content: vec![Part::text(call.result.as_str())],
                    is_error: call.is_error && !responses,
                    extra: Extra::new(),
                }));
            }
            out.push(Message::new(Role::Assistant, parts));
            if matches!(format, Format::LangChain | Format::OpenAiResponses) {
                out.extend(results.into_iter().map(|r| Message::new(Role::Tool, vec![r])));
            } else if !results.is_empty() {
                out.push(Message::new(Role::Tool, results));
            }
        }
    }
    out
}

fn strip(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(k, _)| !matches!(k.as_str(), "_gemini" | "_aisdk" | "_langchain" | "_responses"))
                .map(|(k, v)| (k, strip(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(strip).collect()),
        other => other,
    }
}

/// Consecutive assistant messages as one.
fn merge_assistants(messages: Vec<Message>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::new();
    for m in messages {
        match out.last_mut() {
            Some(last) if last.role == Role::Assistant && m.role == Role::Assistant => last.parts.extend(m.parts),
            _ => out.push(m),
        }
    }
    out
}

fn check_round_trip(spec: &Spec, format: Format) -> Result<(), TestCaseError> {
    let messages = build(spec, format);
    let wire = format::write(&messages, format).unwrap();
    let back = format::read(&wire, format).unwrap();
    let mut bare = back.clone();
    if format == Format::AiSdkUi {
        // The writer gives every UIMessage an id, which reads back as a message field.
        for message in &mut bare {
            message.extra.remove("id");
        }
    }
    let mut messages = messages;
    if format == Format::OpenAiResponses {
        // Items carry no message boundaries: an assistant turn is read as one message.
        messages = merge_assistants(messages);
    }
    prop_assert_eq!(strip(native::write(&bare)), strip(native::write(&messages)));
    prop_assert_eq!(format::write(&back, format).unwrap(), wire.clone());
    // A plain text AI SDK or Responses chat fits OpenAI too, which detection prefers.
    let detected = format::detect(&wire).unwrap();
    let plain = matches!(format, Format::AiSdk | Format::OpenAiResponses) && detected == Format::OpenAi;
    prop_assert!(detected == format || plain, "{:?}", detected);
    if format == Format::AiSdkUi {
        // A step continues the turn's UIMessage when the step before it had results.
        let expected: usize =
            spec.turns.iter().map(|(_, steps)| 1 + steps.windows(2).filter(|w| w[0].calls.is_empty()).count()).sum();
        let assistants = wire.as_array().unwrap().iter().filter(|m| m["role"] == "assistant").count();
        prop_assert_eq!(assistants, expected);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn gemini_write_then_read_gives_the_chain_back(spec in spec()) {
        check_round_trip(&spec, Format::Gemini)?;
    }

    #[test]
    fn aisdk_write_then_read_gives_the_chain_back(spec in spec()) {
        check_round_trip(&spec, Format::AiSdk)?;
    }

    #[test]
    fn aisdk_ui_write_then_read_gives_the_chain_back(spec in spec()) {
        check_round_trip(&spec, Format::AiSdkUi)?;
    }

    #[test]
    fn langchain_write_then_read_gives_the_chain_back(spec in spec()) {
        check_round_trip(&spec, Format::LangChain)?;
    }

    #[test]
    fn responses_write_then_read_gives_the_chain_back(spec in spec()) {
        check_round_trip(&spec, Format::OpenAiResponses)?;
    }

    /// Any of these chains, read as any source, converts to every target into a chain
    /// the target accepts and that its writer can write.
    #[test]
    fn conversions_validate_for_the_target(spec in spec()) {
        let from_formats = Format::ALL;
        let targets = from_formats;
        for from in from_formats {
            let messages = build(&spec, from);
            for to in targets {
                let (converted, _) = convert_messages(&messages, from, to);
                let diagnostics = validate(&converted, provider_of(to));
                prop_assert!(diagnostics.is_empty(), "{:?} -> {:?}: {:?}", from, to, diagnostics);
                let wire = format::write(&converted, to);
                prop_assert!(wire.is_ok(), "{:?} -> {:?}: {:?}", from, to, wire.err());
                let back = format::read(&wire.unwrap(), to);
                prop_assert!(back.is_ok(), "{:?} -> {:?}: read back {:?}", from, to, back.err());
            }
        }
    }
}
