//! The output has the input's container (DESIGN invariant 9), for every strategy and
//! every format: an array stays an array, a request object stays a request object with
//! its other fields, and a list that has no place for a system prompt (Anthropic and
//! Gemini lists) or must not gain one (AI SDK lists: `generateText` rejects system
//! messages in `messages`) gets the summaries as user messages instead.
//!
//! The pipeline is the one the package runs (crates/contextfold-wasm `compact_value`):
//! read, `format::may_gain_system`, `run::compact`, `format::write_like`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;
use common::folding_strategies;
use contextfold::ast::ChainAst;
use contextfold::convert::provider_of;
use contextfold::format::{self, parse_json, read, Format};
use contextfold::measure::Meter;
use contextfold::message::{Message, Role};
use contextfold::repair::{validate, RepairOptions};
use contextfold::strategy::run::{compact, CompactOptions, NewSystem, StrategyConfig};
use contextfold::summarize::extractive::ExtractiveSummarizer;
use contextfold::summarize::Controls;
use futures::executor::block_on;
use serde_json::{json, Value};
use std::path::PathBuf;

/// The demo session (OpenAI, with a system prompt) as native messages.
fn demo() -> Vec<Message> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/demo-session.openai.json");
    read(&parse_json(&std::fs::read_to_string(path).unwrap()).unwrap(), Format::OpenAi).unwrap()
}

/// The demo session in every format and container users hold: `(name, format, input)`.
fn inputs() -> Vec<(&'static str, Format, Value)> {
    let with_system = demo();
    let without: Vec<Message> = with_system.iter().filter(|m| m.role != Role::System).cloned().collect();
    let written = |messages: &[Message], to: Format| {
        let (converted, _) = contextfold::convert::convert_messages(messages, Format::OpenAi, to);
        format::write(&converted, to).unwrap()
    };
    let request = |messages: &[Message], to: Format, extra: Value| {
        let mut value = written(messages, to);
        if value.is_array() {
            let key = if to == Format::Gemini { "contents" } else { "messages" };
            value = json!({ key: value });
        }
        value.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        value
    };
    vec![
        ("openai", Format::OpenAi, written(&with_system, Format::OpenAi)),
        ("openai without system", Format::OpenAi, written(&without, Format::OpenAi)),
        ("anthropic array", Format::Anthropic, written(&without, Format::Anthropic)),
        (
            "anthropic object",
            Format::Anthropic,
            request(&with_system, Format::Anthropic, json!({ "model": "claude", "max_tokens": 1024 })),
        ),
        ("anthropic object without system", Format::Anthropic, request(&without, Format::Anthropic, json!({}))),
        ("gemini array", Format::Gemini, written(&without, Format::Gemini)),
        (
            "gemini object",
            Format::Gemini,
            request(&with_system, Format::Gemini, json!({ "generationConfig": { "temperature": 0 } })),
        ),
        ("gemini object without system", Format::Gemini, request(&without, Format::Gemini, json!({}))),
        // A context cache: Gemini refuses a system instruction beside one.
        (
            "gemini object with a context cache",
            Format::Gemini,
            request(&without, Format::Gemini, json!({ "cachedContent": "cachedContents/abc" })),
        ),
        (
            "genai SDK parameters with a context cache",
            Format::Gemini,
            request(
                &without,
                Format::Gemini,
                json!({ "model": "m", "config": { "cachedContent": "cachedContents/abc" } }),
            ),
        ),
        ("aisdk", Format::AiSdk, written(&without, Format::AiSdk)),
        ("aisdk-ui", Format::AiSdkUi, written(&without, Format::AiSdkUi)),
        ("langchain", Format::LangChain, written(&with_system, Format::LangChain)),
        ("openai-responses", Format::OpenAiResponses, written(&with_system, Format::OpenAiResponses)),
        (
            "openai-responses request",
            Format::OpenAiResponses,
            json!({ "model": "gpt-5", "store": false, "input": written(&without, Format::OpenAiResponses) }),
        ),
    ]
}

/// The package's pipeline, from a JSON value to a JSON value.
fn compact_value(input: &Value, format: Format, strategy: StrategyConfig, new_system: Option<NewSystem>) -> Value {
    let (value, changed, _) = run_pipeline(input, format, strategy, new_system);
    assert!(changed, "nothing was compacted");
    value
}

/// The pipeline's output, whether it changed, and how many summaries it asked for.
fn run_pipeline(
    input: &Value,
    format: Format,
    strategy: StrategyConfig,
    new_system: Option<NewSystem>,
) -> (Value, bool, usize) {
    let messages = read(input, format).unwrap();
    let new_system = new_system.unwrap_or(if format::may_gain_system(input, format, &messages) {
        NewSystem::Keep
    } else {
        NewSystem::AsUser
    });
    let options = CompactOptions { strategy, repair: RepairOptions::for_provider(provider_of(format)), new_system };
    let summarizer = ExtractiveSummarizer::default();
    let out = block_on(compact(&messages, &options, &summarizer, &Controls::default(), Meter::default())).unwrap();
    let value = if out.changed { format::write_like(&out.messages, format, input).unwrap() } else { input.clone() };
    (value, out.changed, out.report.calls)
}

/// The object's keys other than the message list and the system prompt.
fn request_fields(value: &Value) -> Vec<(&String, &Value)> {
    let skip = ["system", "messages", "systemInstruction", "contents", "instructions", "input"];
    value.as_object().unwrap().iter().filter(|(k, _)| !skip.contains(&k.as_str())).collect()
}

#[test]
fn every_strategy_keeps_the_input_container_in_every_format() {
    for (name, format, input) in inputs() {
        let had_system = read(&input, format).unwrap().iter().any(|m| m.role == Role::System);
        for strategy in folding_strategies() {
            let what = format!("{name} / {}", strategy.name());
            let output = compact_value(&input, format, strategy, None);
            assert_eq!(output.is_array(), input.is_array(), "{what}: container changed: {output:#}");
            if input.is_object() {
                assert_eq!(request_fields(&output), request_fields(&input), "{what}: request fields");
            }
            let messages = read(&output, format).unwrap_or_else(|e| panic!("{what}: unreadable output: {e}"));
            assert!(validate(&messages, provider_of(format)).is_empty(), "{what}: invalid output");
            // Parses strictly: no two user messages in a row where summaries became users.
            ChainAst::parse(&messages).unwrap_or_else(|e| panic!("{what}: {e}"));
            // A list that had no system prompt gains none where it must not.
            if !format::holds_new_system(&input, format) && !had_system {
                assert!(messages.iter().all(|m| m.role != Role::System), "{what}: gained a system message");
            }
        }
    }
}

/// The regression: before, `tiers` and `budget` wrote their system summaries into an
/// Anthropic / Gemini array as a request object, and into an AI SDK list as system
/// messages; keeping them system messages still does exactly that.
#[test]
fn system_summaries_kept_as_system_would_change_the_container() {
    for (name, format, input) in inputs() {
        if format::holds_new_system(&input, format) {
            continue;
        }
        for strategy in folding_strategies().into_iter().filter(|s| matches!(s.name(), "tiers" | "budget")) {
            let what = format!("{name} / {}", strategy.name());
            let output = compact_value(&input, format, strategy, Some(NewSystem::Keep));
            let messages = read(&output, format).unwrap();
            let broken = !output.is_array() || messages.iter().any(|m| m.role == Role::System);
            assert!(broken, "{what}: the old behaviour is no longer shown by this test");
        }
    }
}

/// The genai SDK's `GenerateContentParameters` without `config` (`{model, contents}`):
/// the system summaries of `tiers` and `budget` go in a new `config.systemInstruction`,
/// the only place the SDK sends (it drops a top-level `systemInstruction`).
#[test]
fn genai_sdk_parameters_gain_their_system_summary_in_config() {
    let without: Vec<Message> = demo().into_iter().filter(|m| m.role != Role::System).collect();
    let (converted, _) = contextfold::convert::convert_messages(&without, Format::OpenAi, Format::Gemini);
    let input = json!({ "model": "gemini-2.5-pro", "contents": format::write(&converted, Format::Gemini).unwrap() });
    for strategy in folding_strategies().into_iter().filter(|s| matches!(s.name(), "tiers" | "budget")) {
        let what = strategy.name();
        let output = compact_value(&input, Format::Gemini, strategy, None);
        assert!(output.get("systemInstruction").is_none(), "{what}: top-level systemInstruction");
        assert!(output["config"]["systemInstruction"].is_object(), "{what}: {output:#}");
        let messages = read(&output, Format::Gemini).unwrap();
        assert_eq!(messages.first().map(|m| m.role), Some(Role::System), "{what}: read back");
    }
}

/// Summaries written as user messages are still recognized as summaries: compacting the
/// output again with nothing new asks for no summary and changes nothing (invariant 5).
#[test]
fn summaries_written_as_user_messages_keep_compaction_idempotent() {
    for (name, format, input) in inputs() {
        for strategy in folding_strategies() {
            let what = format!("{name} / {}", strategy.name());
            let (once, _, _) = run_pipeline(&input, format, strategy.clone(), None);
            let (twice, changed, calls) = run_pipeline(&once, format, strategy, None);
            assert_eq!((calls, changed), (0, false), "{what}: the second run asked for summaries or changed");
            assert_eq!(twice, once, "{what}");
        }
    }
}

/// A request's tool definitions take their share of a hard budget: the conversation is
/// compacted to what they leave (they were not counted, so a request fitted to a model's
/// window by `maxTokens` went over it by their size), `needsCompaction` says so when the
/// conversation alone fits, and definitions alone over the budget are `budget_exceeded`
/// naming them.
#[test]
fn a_request_s_tool_definitions_take_their_share_of_the_budget() {
    use contextfold::measure::{Amount, Unit};
    use contextfold::pipeline::{compact_json, needs_compaction_json};
    use contextfold::settings::CompactSettings;
    use contextfold::strategy::budget::BudgetConfig;
    let messages = format::write(&demo(), Format::OpenAi).unwrap();
    let tool = |i: usize| {
        json!({ "type": "function", "function": { "name": format!("tool_{i}"),
            "description": "Reads a file of the project and returns its text. ".repeat(20),
            "parameters": { "type": "object", "properties": { "path": { "type": "string" } } } } })
    };
    let tools: Vec<Value> = (0..40).map(tool).collect();
    let request = json!({ "model": "gpt-4o", "messages": messages, "tools": tools });
    let meter = Meter::default();
    let tools_cost = meter.text(Unit::Tokens, &serde_json::to_string(&request["tools"]).unwrap());
    let chain_cost = meter.total(Unit::Tokens, &demo());
    for strategy in [
        StrategyConfig::Budget(BudgetConfig::new(Amount::Tokens(12_000))),
        StrategyConfig::Auto(contextfold::strategy::auto::AutoConfig::for_budget(Amount::Tokens(12_000))),
    ] {
        let settings = CompactSettings { strategy: strategy.clone(), ..CompactSettings::default() };
        let out =
            block_on(compact_json(&request, &settings, &ExtractiveSummarizer::default(), &Controls::default(), meter))
                .unwrap_or_else(|e| panic!("{e:?}"));
        let compacted = read(&out.messages, Format::OpenAi).unwrap();
        let cost = meter.total(Unit::Tokens, &compacted);
        assert!(cost + tools_cost <= 12_000, "{cost} + {tools_cost} tokens of tools > 12,000");
        assert_eq!(out.messages["tools"], request["tools"]);
        // The conversation alone fits a budget the request does not.
        let budget = chain_cost + tools_cost / 2;
        let mut tight = strategy.clone();
        if let StrategyConfig::Budget(c) = &mut tight {
            c.max = Amount::Tokens(budget);
        }
        if let StrategyConfig::Auto(c) = &mut tight {
            c.max = Amount::Tokens(budget);
        }
        assert!(needs_compaction_json(&request, None, &tight, None, meter).unwrap());
        assert!(!needs_compaction_json(&messages, None, &tight, None, meter).unwrap());
    }
    // The definitions alone over the budget.
    let settings = CompactSettings {
        strategy: StrategyConfig::Budget(BudgetConfig::new(Amount::Tokens(tools_cost))),
        ..CompactSettings::default()
    };
    let error =
        block_on(compact_json(&request, &settings, &ExtractiveSummarizer::default(), &Controls::default(), meter))
            .unwrap_err();
    assert_eq!(error.error.code(), "budget_exceeded");
    assert!(error.error.to_string().contains("tool definitions"), "{}", error.error);
}

/// `report.after` describes the chain `compact` returns, as `measureChain` measures it:
/// where the writer joins messages (a summary written as a user message joins the user
/// turn beside it in an Anthropic or Gemini list; tool results join their turn) the result
/// holds fewer messages than the strategy's neutral chain did.
#[test]
fn report_after_measures_the_chain_returned_in_every_format() {
    use contextfold::pipeline::{compact_json, measure_json};
    use contextfold::settings::CompactSettings;
    let mut joined = 0;
    for (name, format, input) in inputs() {
        for strategy in folding_strategies() {
            let settings = CompactSettings { strategy: strategy.clone(), ..CompactSettings::default() };
            let out = block_on(compact_json(
                &input,
                &settings,
                &ExtractiveSummarizer::default(),
                &Controls::default(),
                Meter::default(),
            ))
            .unwrap_or_else(|e| panic!("{name} {}: {e:?}", strategy.name()));
            let measured = measure_json(&out.messages, Some(format)).unwrap().total;
            assert_eq!(out.report.after, measured, "{name} {}", strategy.name());
            let neutral = read(&input, format).unwrap();
            joined += usize::from(out.changed && measured.messages < out.report.before.messages.min(neutral.len()));
        }
    }
    assert!(joined > 0, "no case where the written chain is shorter: the test proves nothing");
}

/// `needsCompaction` answers whether `compact` would change anything: under its budget,
/// a chain whose provider repair pass mends something (a whitespace-only text block
/// Anthropic rejects) is changed by `compact`, so it needs compaction; a clean one does not.
#[test]
fn needs_compaction_agrees_with_compact_on_a_chain_only_the_repair_pass_changes() {
    use contextfold::measure::Amount;
    use contextfold::pipeline::{compact_json, needs_compaction_json};
    use contextfold::settings::CompactSettings;
    use contextfold::strategy::budget::BudgetConfig;
    let clean = json!([
        { "role": "user", "content": "hello" },
        { "role": "assistant", "content": [
            { "type": "tool_use", "id": "toolu_01", "name": "ls", "input": { "path": "." } },
        ] },
        { "role": "user", "content": [{ "type": "tool_result", "tool_use_id": "toolu_01", "content": "a.txt" }] },
        { "role": "assistant", "content": "one file" },
        { "role": "user", "content": "bye" },
    ]);
    let mut blank = clean.clone();
    blank[1]["content"].as_array_mut().unwrap().insert(0, json!({ "type": "text", "text": "\n\n" }));
    let strategy = StrategyConfig::Budget(BudgetConfig::new(Amount::Tokens(100_000)));
    let anthropic = Some(Format::Anthropic);
    let settings = CompactSettings { format: anthropic, strategy: strategy.clone(), ..CompactSettings::default() };
    for (chain, expected) in [(&clean, false), (&blank, true)] {
        let meter = Meter::default();
        let needed = needs_compaction_json(chain, anthropic, &strategy, None, meter).unwrap();
        let out =
            block_on(compact_json(chain, &settings, &ExtractiveSummarizer::default(), &Controls::default(), meter))
                .unwrap();
        assert_eq!((needed, out.changed), (expected, expected), "{chain}");
    }
}

/// What a Responses chain opens with and `compact` keeps as it is (a provider compaction
/// item) is left out of what the strategy is asked about by the trigger too: `tiers` at
/// exactly its threshold without that item changes nothing, so it needs nothing (the
/// trigger counted the item and said true, and a History compacted every turn for nothing).
#[test]
fn needs_compaction_asks_the_strategy_about_what_compact_gives_it_after_kept_items() {
    use contextfold::pipeline::{compact_json, needs_compaction_json};
    use contextfold::settings::CompactSettings;
    use contextfold::strategy::tiers::TiersConfig;
    let mut items = vec![json!({"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAA-earlier"})];
    for i in 0..12 {
        items.push(json!({"role": "user", "content": format!("question {i}: {}", "details ".repeat(60))}));
        items.push(json!({"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": format!("answer {i}: {}", "words ".repeat(80))}]}));
    }
    let chain = Value::Array(items);
    let responses = Some(Format::OpenAiResponses);
    let mut checked = 0;
    for threshold in [20, 23, 24, 25, 30] {
        let strategy = StrategyConfig::Tiers(TiersConfig {
            recent: 4,
            condensed: 6,
            auto_threshold: threshold,
            ..TiersConfig::default()
        });
        let settings = CompactSettings { format: responses, strategy: strategy.clone(), ..CompactSettings::default() };
        let meter = Meter::default();
        let needed = needs_compaction_json(&chain, responses, &strategy, None, meter).unwrap();
        let out =
            block_on(compact_json(&chain, &settings, &ExtractiveSummarizer::default(), &Controls::default(), meter))
                .unwrap();
        assert_eq!(needed, out.changed, "autoThreshold {threshold}");
        checked += usize::from(needed);
    }
    assert!(checked > 0, "the trigger never fired: the test proves nothing");
}
