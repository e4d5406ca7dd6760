//! Provider rules found by the third-party validation suite (tests/sdk, issue 14): each one is
//! produced nowhere, reported by `validate` and fixed by `repair`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use contextfold::ast::{BodyPair, IdTemplate};
use contextfold::measure::Meter;
use contextfold::message::{Message, Part, ReasoningPart, Role};
use contextfold::repair::{repair, validate, Provider, RepairOptions, RepairStep};
use contextfold::strategy::run::{compact, CompactOptions, StrategyConfig};
use contextfold::strategy::sections::SectionsConfig;
use contextfold::summarize::mock::FixedSummarizer;
use contextfold::summarize::Controls;
use contextfold::testing::tool_call;
use futures::executor::block_on;
use std::collections::HashSet;

fn call_ids(messages: &[Message]) -> Vec<String> {
    messages.iter().flat_map(|m| m.tool_calls().map(|c| c.id.clone())).collect()
}

fn codes(messages: &[Message], provider: Provider) -> Vec<&'static str> {
    validate(messages, provider).into_iter().map(|d| d.code).collect()
}

#[test]
fn equal_summaries_of_two_spans_get_two_ids_and_one_span_always_the_same() {
    let template = IdTemplate::parse("toolu_{r:24:b}").unwrap();
    let a = vec![Message::new(Role::Assistant, vec![tool_call("call_a", "read", "x")])];
    let b = vec![Message::new(Role::Assistant, vec![tool_call("call_b", "read", "x")])];
    let id = |replaced: &[Message]| {
        BodyPair::summarization("same summary", replaced, &template, false, None)
            .ai()
            .tool_calls()
            .next()
            .unwrap()
            .id
            .clone()
    };
    assert_ne!(id(&a), id(&b));
    assert_eq!(id(&a), id(&a));
}

#[test]
fn compaction_with_one_summary_text_uses_each_call_id_once() {
    let long = "the build log repeats the same warning again and again ".repeat(40);
    let mut chain = vec![Message::text(Role::System, "be brief")];
    for i in 0..10 {
        chain.push(Message::text(Role::User, format!("task {i}")));
        chain.push(Message::new(Role::Assistant, vec![tool_call(&format!("call_{i}"), "read", "log")]));
        chain.push(Message::tool_result(format!("call_{i}"), "read", long.clone()));
        chain.push(Message::text(Role::Assistant, format!("done {i}: {long}")));
    }
    let options = CompactOptions {
        strategy: StrategyConfig::Sections(SectionsConfig::default()),
        // OpenAI's repair renames nothing: the ids are the summaries' own.
        repair: RepairOptions::for_provider(Provider::OpenAi),
        ..Default::default()
    };
    let summarizer = FixedSummarizer::new("Summary: done.");
    let out = block_on(compact(&chain, &options, &summarizer, &Controls::default(), Meter::default())).unwrap();
    assert!(summarizer.calls() >= 2, "several spans summarized: {}", summarizer.calls());
    let ids = call_ids(&out.messages);
    assert_eq!(ids.len(), ids.iter().collect::<HashSet<_>>().len(), "ids used twice: {ids:?}");
    assert_eq!(validate(&out.messages, Provider::Anthropic), vec![]);
}

/// [user, assistant(call x), tool(x), user, assistant(call x), tool(x)]: SWE-agent's shape.
fn reused_id_chain() -> Vec<Message> {
    vec![
        Message::text(Role::User, "find it"),
        Message::new(Role::Assistant, vec![tool_call("call_x", "find_file", "a")]),
        Message::tool_result("call_x", "find_file", "found a.py"),
        Message::new(Role::Assistant, vec![tool_call("call_x", "open", "a.py")]),
        Message::tool_result("call_x", "open", "print(1)"),
        Message::text(Role::Assistant, "done"),
    ]
}

#[test]
fn a_call_id_used_in_two_messages_is_flagged_and_renamed_for_anthropic_only() {
    let chain = reused_id_chain();
    let diagnostics = validate(&chain, Provider::Anthropic);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!((diagnostics[0].code, diagnostics[0].path.as_str()), ("duplicate_call_id", "[3].parts[0]"));
    assert!(codes(&chain, Provider::OpenAi).is_empty(), "OpenAI accepts it (the real transcript went through)");

    let repaired = repair(&chain, &RepairOptions::for_provider(Provider::Anthropic));
    assert!(validate(&repaired.messages, Provider::Anthropic).is_empty());
    assert_eq!(call_ids(&repaired.messages), vec!["call_x", "call_x_2"]);
    let result = repaired.messages[4].tool_results().next().unwrap();
    assert_eq!((result.call_id.as_str(), result.name.as_deref()), ("call_x_2", Some("open")));
    assert_eq!(repaired.messages[2].tool_results().next().unwrap().call_id, "call_x");
    assert!(repaired.steps.iter().any(|s| matches!(s, RepairStep::RenamedReusedCallId { index: 3, .. })));
    // Deterministic.
    assert_eq!(repair(&chain, &RepairOptions::for_provider(Provider::Anthropic)), repaired);
}

#[test]
fn thinking_without_a_signature_is_flagged_and_dropped_for_anthropic() {
    let thinking = |signature: Option<&str>| {
        Part::Reasoning(ReasoningPart {
            text: "hmm".into(),
            signature: signature.map(Into::into),
            ..ReasoningPart::default()
        })
    };
    let chain = vec![
        Message::text(Role::User, "q"),
        Message::new(Role::Assistant, vec![thinking(None), thinking(Some("sig")), Part::text("a")]),
    ];
    let diagnostics = validate(&chain, Provider::Anthropic);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!((diagnostics[0].code, diagnostics[0].path.as_str()), ("unsigned_thinking", "[1].parts[0]"));
    assert!(codes(&chain, Provider::OpenAi).is_empty());
    let repaired = repair(&chain, &RepairOptions::for_provider(Provider::Anthropic));
    assert_eq!(repaired.messages[1].parts, vec![thinking(Some("sig")), Part::text("a")]);
    assert!(validate(&repaired.messages, Provider::Anthropic).is_empty());
}

#[test]
fn openai_tool_messages_hold_text_only_and_their_images_follow_the_results() {
    use contextfold::convert::convert;
    use contextfold::format::Format;
    use serde_json::json;
    let png = "iVBORw0KGgo=";
    let wire = json!([
        {"role": "user", "content": "look"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_a", "name": "shot", "input": {}},
            {"type": "tool_use", "id": "toolu_b", "name": "read", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_a", "content": [
                {"type": "text", "text": "screen"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}]},
            {"type": "tool_result", "tool_use_id": "toolu_b", "content": "file"}]},
        {"role": "assistant", "content": "seen"}
    ]);
    let value = convert(&wire, Some(Format::Anthropic), Format::OpenAi).unwrap().value;
    let roles: Vec<&str> = value.as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "tool", "user", "assistant"], "{value}");
    for tool in [&value[2], &value[3]] {
        let content = &tool["content"];
        let texts_only = content.is_string() || content.as_array().unwrap().iter().all(|p| p["type"] == "text");
        assert!(texts_only, "{tool}");
    }
    assert_eq!(
        value[4]["content"],
        json!([{"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{png}")}}])
    );
    assert!(value[2]["content"].to_string().contains("next user message"), "{}", value[2]);

    // validateChain flags an image in an OpenAI tool message; repairChain moves it.
    let openai = json!([
        {"role": "user", "content": "look"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "shot", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": [
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{png}")}}]}
    ]);
    let messages = contextfold::format::read(&openai, Format::OpenAi).unwrap();
    let diagnostics = validate(&messages, Provider::OpenAi);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(
        (diagnostics[0].code, diagnostics[0].path.as_str()),
        ("media_in_tool_result", "[2].parts[0].content[0]")
    );
    let repaired = repair(&messages, &RepairOptions::for_provider(Provider::OpenAi));
    assert!(validate(&repaired.messages, Provider::OpenAi).is_empty());
    assert_eq!(repaired.messages.len(), 4);
    assert!(matches!(repaired.messages[3].parts[..], [Part::Image(_)]));
    assert!(repaired.steps.iter().any(|s| matches!(s, RepairStep::MovedToolMedia { index: 2, part: 0, count: 1 })));
}

#[test]
fn a_reused_call_id_gives_each_result_the_name_of_its_own_call() {
    use contextfold::convert::convert;
    use contextfold::format::{write, Format};
    let chain = reused_id_chain();
    // Written as is (no repair): each result named after the latest call with its id.
    let gemini = write(&chain, Format::Gemini).unwrap();
    assert_eq!(gemini[2]["parts"][0]["functionResponse"]["name"], "find_file", "{gemini}");
    assert_eq!(gemini[4]["parts"][0]["functionResponse"]["name"], "open");
    let mut unnamed = chain.clone();
    for m in &mut unnamed {
        for p in &mut m.parts {
            if let Part::ToolResult(r) = p {
                r.name = None;
            }
        }
    }
    let aisdk = write(&unnamed, Format::AiSdk).unwrap();
    assert_eq!(aisdk[2]["content"][0]["toolName"], "find_file", "{aisdk}");
    assert_eq!(aisdk[4]["content"][0]["toolName"], "open");
    let gemini = write(&unnamed, Format::Gemini).unwrap();
    assert_eq!(gemini[2]["parts"][0]["functionResponse"]["name"], "find_file", "{gemini}");
    // convert gives every target but OpenAI one id per call.
    let openai = write(&chain, Format::OpenAi).unwrap();
    for to in [Format::Gemini, Format::Anthropic, Format::AiSdk, Format::LangChain] {
        let converted = convert(&openai, Some(Format::OpenAi), to).unwrap();
        let ids = call_ids(&converted.messages);
        assert_eq!(ids.len(), ids.iter().collect::<HashSet<_>>().len(), "{to:?}: {ids:?}");
        assert!(validate(&converted.messages, contextfold::convert::provider_of(to)).is_empty(), "{to:?}");
    }
}

#[test]
fn ai_sdk_reads_both_majors_and_writes_back_what_the_input_used() {
    use contextfold::convert::convert;
    use contextfold::format::{read, write, Format};
    use serde_json::json;
    let png = "iVBORw0KGgo=";
    let output = |items: serde_json::Value| {
        json!([
            {"role": "user", "content": [
                {"type": "text", "text": "look"},
                {"type": "file", "mediaType": "image/png", "data": {"type": "data", "data": png}},
                {"type": "file", "mediaType": "application/pdf", "data": {"type": "url", "url": "https://x.test/a.pdf"}}]},
            {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "shot", "input": {}}]},
            {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "shot",
                "output": {"type": "content", "value": items}}]}
        ])
    };
    for items in [
        json!([{"type": "text", "text": "t"}, {"type": "image-data", "data": png, "mediaType": "image/png"}]),
        json!([{"type": "file", "data": {"type": "data", "data": png}, "mediaType": "image/png"}]),
        json!([{"type": "file-data", "data": png, "mediaType": "application/pdf", "filename": "a.pdf"}]),
        json!([{"type": "image-url", "url": "https://x.test/a.png"}]),
        json!([{"type": "media", "data": png, "mediaType": "image/png"}]),
    ] {
        let wire = output(items.clone());
        let messages = read(&wire, Format::AiSdk).unwrap_or_else(|e| panic!("{items}: {e}"));
        assert_eq!(write(&messages, Format::AiSdk).unwrap(), wire, "{items}");
    }
    // From another format: `image-data`, which ai 6 and 7 read (not the removed `media`).
    let anthropic = json!([
        {"role": "user", "content": "look"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "shot", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}]}]}
    ]);
    let value = convert(&anthropic, Some(Format::Anthropic), Format::AiSdk).unwrap().value;
    let item = &value[2]["content"][0]["output"]["value"][0];
    assert_eq!(item, &json!({"type": "image-data", "data": png, "mediaType": "image/png"}), "{value}");

    // An image by URL stays, as `image-url` (both majors read it).
    let mut by_url = anthropic.clone();
    by_url[2]["content"][0]["content"][0] =
        json!({"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}});
    let value = convert(&by_url, Some(Format::Anthropic), Format::AiSdk).unwrap().value;
    let item = &value[2]["content"][0]["output"]["value"][0];
    assert_eq!(item, &json!({"type": "image-url", "url": "https://x.test/a.png"}), "{value}");

    // An image `file` part goes to Anthropic as an `image` block (a `document` takes PDF or text).
    let value = convert(&output(json!([])), Some(Format::AiSdk), Format::Anthropic).unwrap().value;
    let block = &value[0]["content"][1];
    assert_eq!(block, &json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}));
}

#[test]
fn langchain_js_chains_get_their_summaries_in_the_js_form() {
    use contextfold::format::{read, write, Format};
    use serde_json::json;
    let wire = json!([
        {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "HumanMessage"],
         "kwargs": {"content": "hi", "additional_kwargs": {}, "response_metadata": {}}},
        {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "AIMessage"],
         "kwargs": {"content": "yo", "additional_kwargs": {}, "response_metadata": {}}}
    ]);
    let mut messages = read(&wire, Format::LangChain).unwrap();
    let template = IdTemplate::parse("call_{r:24:x}").unwrap();
    let summary = BodyPair::summarization("earlier", &[], &template, false, None);
    messages.splice(1..1, summary.messages());
    let written = write(&messages, Format::LangChain).unwrap();
    for m in written.as_array().unwrap() {
        assert_eq!((m["lc"].as_i64(), m["type"].as_str()), (Some(1), Some("constructor")), "{m}");
    }
    assert_eq!(written[1]["id"], json!(["langchain_core", "messages", "AIMessage"]));
    assert_eq!(written[2]["id"], json!(["langchain_core", "messages", "ToolMessage"]));
    assert_eq!(written[2]["kwargs"]["content"], "earlier");
}

/// With thinking on, Anthropic wants the assistant message whose results ride in the
/// user's turn to start with thinking: a summary pair right before the latest user message
/// would be that message, so its summary goes to the user's turn as text instead.
#[test]
fn with_thinking_on_a_summary_pair_never_ends_before_the_user_turn_for_anthropic() {
    let long = "function foo(x) { return x * 2; } // read and checked ".repeat(30);
    let signed = |n: usize| {
        Part::Reasoning(ReasoningPart {
            text: format!("thinking {n}"),
            signature: Some(format!("sig{n}")),
            ..Default::default()
        })
    };
    let mut chain = vec![Message::text(Role::User, "Review src/ and report bugs.")];
    for i in 0..4 {
        chain.push(Message::new(Role::Assistant, vec![signed(i), tool_call(&format!("toolu_{i}"), "read", "f")]));
        chain.push(Message::tool_result(format!("toolu_{i}"), "read", long.clone()));
    }
    chain.push(Message::new(Role::Assistant, vec![signed(9), Part::text("Found two bugs.")]));
    chain.push(Message::text(Role::User, "Turn 1: keep going."));
    let summarizer = FixedSummarizer::new("Two bugs found in src/.");
    for provider in [Provider::Anthropic, Provider::Generic, Provider::OpenAi] {
        let options = CompactOptions {
            strategy: StrategyConfig::Sections(SectionsConfig { last_sec_bytes: 200, ..SectionsConfig::default() }),
            repair: RepairOptions::for_provider(provider),
            ..Default::default()
        };
        let out = block_on(compact(&chain, &options, &summarizer, &Controls::default(), Meter::default())).unwrap();
        assert!(out.changed, "{provider:?}");
        let last = out.messages.last().unwrap();
        assert_eq!(last.role, Role::User);
        let pair_last = out
            .messages
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .is_some_and(|m| m.tool_calls().any(|c| c.name == contextfold::ast::SUMMARIZATION_TOOL_NAME));
        if provider != Provider::OpenAi {
            assert!(!pair_last, "{:#?}", out.messages);
            let text = |p: Option<&Part>| match p {
                Some(Part::Text(t)) => t.text.clone(),
                other => panic!("{other:?}"),
            };
            assert!(last.parts.iter().any(|p| text(Some(p)).contains("Two bugs found in src/.")), "{last:?}");
            assert_eq!(text(last.parts.last()), "Turn 1: keep going.");
        } else {
            assert!(pair_last, "OpenAI keeps the pair: {:#?}", out.messages);
        }
        assert_eq!(validate(&out.messages, provider), vec![]);
        // Idempotent: the summary moved into the user's turn is still known as one.
        let calls = summarizer.calls();
        let again =
            block_on(compact(&out.messages, &options, &summarizer, &Controls::default(), Meter::default())).unwrap();
        assert_eq!(summarizer.calls(), calls, "{provider:?}: summarized again");
        assert!(!again.changed, "{provider:?}: {:#?}", again.messages);
    }
}

/// Several finished sections with thinking on: each folded section ends in a summary pair,
/// so once the last one's summary went to the user's turn, the pair of the section before
/// was the final assistant message (its user message joins that turn on the wire), a tool
/// cycle without thinking Anthropic rejects. Every such pair goes to the user's turn.
#[test]
fn with_thinking_on_no_summary_pair_of_several_sections_ends_the_chain_for_anthropic() {
    let long = "out of the build, line after line of it ".repeat(30);
    let signed = |n: String| {
        Part::Reasoning(ReasoningPart {
            text: format!("thinking {n}"),
            signature: Some(format!("S{n}")),
            ..Default::default()
        })
    };
    let mut chain = Vec::new();
    for s in 0..3 {
        chain.push(Message::text(Role::User, format!("Task {s}: fix module {s}.")));
        for i in 0..3 {
            let id = format!("toolu_{s}{i}");
            chain.push(Message::new(Role::Assistant, vec![signed(format!("{s}{i}")), tool_call(&id, "bash", "{}")]));
            chain.push(Message::tool_result(id, "bash", long.clone()));
        }
        chain.push(Message::new(Role::Assistant, vec![signed(format!("D{s}")), Part::text(format!("Task {s} done."))]));
    }
    chain.push(Message::text(Role::User, "Task 3: now deploy."));
    let summarizer = FixedSummarizer::new("Module fixed.");
    let options = CompactOptions {
        strategy: StrategyConfig::Sections(SectionsConfig { last_sec_bytes: 200, ..SectionsConfig::default() }),
        repair: RepairOptions::for_provider(Provider::Anthropic),
        ..Default::default()
    };
    let out = block_on(compact(&chain, &options, &summarizer, &Controls::default(), Meter::default())).unwrap();
    assert!(out.changed);
    assert_eq!(summarizer.calls(), 3, "{:#?}", out.messages);
    let final_assistant = out.messages.iter().rposition(|m| m.role == Role::Assistant);
    let ends_in_cycle = out.messages.last().is_some_and(|m| m.role == Role::User)
        && final_assistant.is_some_and(|at| out.messages[at + 1..].iter().any(|m| m.role == Role::Tool));
    assert!(!ends_in_cycle, "a tool cycle without thinking ends the chain: {:#?}", out.messages);
    let text: String = out
        .messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    for s in 0..4 {
        assert!(text.contains(&format!("Task {s}")), "task {s} lost: {text}");
    }
    assert_eq!(text.matches("Module fixed.").count(), 3, "{text}");
    assert_eq!(validate(&out.messages, Provider::Anthropic), vec![]);
    let calls = summarizer.calls();
    let again =
        block_on(compact(&out.messages, &options, &summarizer, &Controls::default(), Meter::default())).unwrap();
    assert_eq!(summarizer.calls(), calls, "summarized again");
    assert!(!again.changed, "{:#?}", again.messages);
}

/// A request that turns thinking on (`thinking: {type: "enabled"}`) and ends in a tool cycle
/// whose assistant message does not start with thinking is flagged; a summary pair there is
/// repaired into the user's turn (a call of the model's own cannot be, and stays flagged).
#[test]
fn with_thinking_enabled_a_final_call_without_thinking_is_flagged_and_a_summary_pair_repaired() {
    use contextfold::format::Format;
    use contextfold::pipeline::{repair_json, validate_json};
    use serde_json::json;
    let pair = |id: &str, text: &str| {
        vec![
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": contextfold::ast::SUMMARIZATION_TOOL_NAME, "input": {}}]}),
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": text}, {"type": "text", "text": "next"}]}),
        ]
    };
    let mut messages = vec![json!({"role": "user", "content": "Task 0"})];
    messages.extend(pair("toolu_a", "summary a"));
    messages.push(json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "S"}, {"type": "text", "text": "ok"}]}));
    messages.push(json!({"role": "user", "content": "Task 1"}));
    messages.extend(pair("toolu_b", "summary b"));
    let on = json!({"model": "m", "max_tokens": 10, "thinking": {"type": "enabled", "budget_tokens": 1024}, "messages": messages});
    let codes = |v: &serde_json::Value| {
        validate_json(v, Some(Format::Anthropic), None)
            .unwrap()
            .0
            .into_iter()
            .map(|d| (d.code, d.path))
            .collect::<Vec<_>>()
    };
    assert_eq!(codes(&on), vec![("final_call_without_thinking", "messages[5]".to_string())]);
    for off in [json!({"type": "disabled"}), json!({"type": "adaptive"})] {
        let mut request = on.clone();
        request["thinking"] = off;
        assert_eq!(codes(&request), vec![], "{request}");
    }
    assert_eq!(codes(&on["messages"]), vec![], "a bare list says nothing of thinking");
    let repaired = repair_json(&on, Some(Format::Anthropic), None, RepairOptions::default()).unwrap();
    // Positions in the chain as read (a user turn of results and text reads as two messages).
    let moved = repaired.steps.iter().filter(|s| matches!(s, RepairStep::SummaryToUser { .. })).count();
    assert_eq!(moved, 1, "the pair before a real answer stays: {:?}", repaired.steps);
    assert_eq!(codes(&repaired.messages), vec![]);
    let last = repaired.messages["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["role"], "user");
    assert!(last.to_string().contains("summary b"), "{last}");
    // A model's own call without thinking cannot be mended: it stays flagged.
    let mut own = on.clone();
    own["messages"][5]["content"][0]["name"] = json!("bash");
    let repaired = repair_json(&own, Some(Format::Anthropic), None, RepairOptions::default()).unwrap();
    assert_eq!(codes(&repaired.messages).len(), 1);
}

/// An Anthropic document given as blocks (`source: {type: "content", content}`) is what the
/// model reads: its text counts in sizes and tokens, in a message and in a tool result, as
/// the same text given as a plain-text source does.
#[test]
fn a_document_given_as_blocks_counts_its_text() {
    use contextfold::format::{read, Format};
    use contextfold::measure::estimate_tokens;
    use serde_json::json;
    let text = "The quarterly report shows revenue growth in every region. ".repeat(500);
    let chain = |document: serde_json::Value| {
        let value = json!([
            {"role": "user", "content": [document.clone(), {"type": "text", "text": "Summarize."}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "fetch", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [document]}]},
        ]);
        read(&value, Format::Anthropic).unwrap()
    };
    let plain =
        chain(json!({"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": text}}));
    let as_text = estimate_tokens(&plain);
    for content in [json!([{"type": "text", "text": text}]), json!(text)] {
        let blocks =
            chain(json!({"type": "document", "title": "Report", "source": {"type": "content", "content": content}}));
        let tokens = estimate_tokens(&blocks);
        assert!(
            tokens * 10 >= as_text * 9 && tokens <= as_text * 11 / 10,
            "{tokens} tokens, {as_text} as a text source"
        );
        let bytes: usize = blocks.iter().map(Message::size).sum();
        assert!(bytes >= 2 * text.len(), "{bytes} bytes");
    }
}

/// The Messages API's block rules: each case is a 400 of the API, flagged with its code
/// and path by `validate` and mended by `repair`, every change listed.
#[test]
fn anthropic_block_rules_are_flagged_and_repaired() {
    use contextfold::format::Format;
    use contextfold::pipeline::{repair_json, validate_json};
    use serde_json::{json, Value};
    let cc = json!({"type": "ephemeral"});
    let codes = |v: &Value| {
        validate_json(v, Some(Format::Anthropic), None)
            .unwrap()
            .0
            .into_iter()
            .map(|d| (d.code, d.path))
            .collect::<Vec<_>>()
    };
    // Paths name the wire message (the part paths of the chain as read are `validate`'s).
    let cases: Vec<(Value, Vec<(&str, &str)>)> = vec![
        // Five breakpoints, one on a tool definition: the earliest message one goes.
        (
            json!({"model": "m", "max_tokens": 10, "system": [{"type": "text", "text": "s", "cache_control": cc}],
                "tools": [{"name": "t", "input_schema": {"type": "object"}, "cache_control": cc}],
                "messages": [{"role": "user", "content": [{"type": "text", "text": "a", "cache_control": cc},
                    {"type": "text", "text": "b", "cache_control": cc}, {"type": "text", "text": "c", "cache_control": cc}]}]}),
            vec![("too_many_cache_breakpoints", "messages[0]")],
        ),
        (
            json!([{"role": "user", "content": "q"}, {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "x", "signature": "S", "cache_control": cc}, {"type": "text", "text": "y"}]},
                {"role": "user", "content": "z"}]),
            vec![("cache_control_on_thinking", "[1]")],
        ),
        (
            json!([{"role": "user", "content": "run"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "touch", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": ""}, {"type": "text", "text": "done"}]}]}]),
            vec![("empty_text", "[2]")],
        ),
        (
            json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_X", "content": [{"type": "web_search_result", "url": "https://e.com", "title": "E", "encrypted_content": "ENC"}]},
                {"type": "text", "text": "ok"}]}, {"role": "user", "content": "more"}]),
            vec![("orphan_server_result", "[1]")],
        ),
        (
            json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "hm"}, {"type": "thinking", "thinking": "hmm", "signature": "S"}]},
                {"role": "user", "content": "hello?"}]),
            vec![("ends_with_thinking", "[1]")],
        ),
        (
            json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm", "signature": "S"}]},
                {"role": "user", "content": "hello?"}]),
            vec![("ends_with_thinking", "[1]")],
        ),
    ];
    for (input, expected) in cases {
        let found = codes(&input);
        let expected: Vec<(&str, String)> = expected.into_iter().map(|(c, p)| (c, p.to_string())).collect();
        assert_eq!(found, expected, "{input}");
        let repaired = repair_json(&input, Some(Format::Anthropic), None, RepairOptions::default()).unwrap();
        assert!(repaired.changed && !repaired.steps.is_empty(), "{input}");
        assert_eq!(codes(&repaired.messages), vec![], "{}", repaired.messages);
        let again = repair_json(&repaired.messages, Some(Format::Anthropic), None, RepairOptions::default()).unwrap();
        assert!(!again.changed, "{:?}", again.steps);
    }
    // Four are fine; the system prompt's and the tools' stay, the latest message ones too.
    let four = json!({"model": "m", "max_tokens": 10, "system": [{"type": "text", "text": "s", "cache_control": cc}],
        "tools": [{"name": "t", "input_schema": {"type": "object"}, "cache_control": cc}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b", "cache_control": cc},
            {"type": "text", "text": "c", "cache_control": cc}]}]});
    assert_eq!(codes(&four), vec![]);
    // An orphan server result keeps what it says, as text; one answering its use stays.
    let orphan = json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_X", "content": [{"type": "web_search_result", "url": "https://e.com", "title": "E", "encrypted_content": "ENC"}]}]},
        {"role": "user", "content": "more"}]);
    let repaired = repair_json(&orphan, Some(Format::Anthropic), None, RepairOptions::default()).unwrap();
    // A single text: the writer makes it the message's string content.
    let content = &repaired.messages[1]["content"];
    assert!(content.as_str().unwrap().contains("https://e.com"), "{content}");
    let paired = json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [
        {"type": "server_tool_use", "id": "srvtoolu_X", "name": "web_search", "input": {"query": "e"}}]},
        {"role": "assistant", "content": [{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_X", "content": []}, {"type": "text", "text": "ok"}]},
        {"role": "user", "content": "more"}]);
    assert!(!codes(&paired).iter().any(|(c, _)| *c == "orphan_server_result"));
    // The thinking a Claude Code turn saved block by block ends the turn's first message only.
    let split = json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "thinking", "thinking": "h", "signature": "S"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}, {"role": "user", "content": "and?"},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "streaming", "signature": "T"}]}]);
    assert_eq!(codes(&split), vec![("consecutive_same_role", "[2]".to_string())]);
}

/// A compaction that cannot give a chain names the option at fault, as input errors name
/// their place: the budget that cannot be met, the summarizer whose calls failed.
#[test]
fn budget_and_summarizer_errors_name_their_option() {
    use contextfold::measure::Amount;
    use contextfold::strategy::budget::BudgetConfig;
    use contextfold::strategy::CompactError;
    let chain = vec![
        Message::text(Role::User, "hi"),
        Message::text(Role::Assistant, "hello"),
        Message::text(Role::User, "word ".repeat(3000)),
    ];
    for (max, path) in [(Amount::Tokens(500), "options.maxTokens"), (Amount::Bytes(2000), "options.maxBytes")] {
        let options = CompactOptions { strategy: StrategyConfig::Budget(BudgetConfig::new(max)), ..Default::default() };
        let summarizer = FixedSummarizer::new("short");
        let err = block_on(compact(&chain, &options, &summarizer, &Controls::default(), Meter::default())).unwrap_err();
        assert_eq!((err.code(), err.path().as_deref()), ("budget_exceeded", Some(path)), "{err}");
    }
    assert_eq!(CompactError::Summarizer(vec![]).path().as_deref(), Some("options.summarizer"));
    assert_eq!(CompactError::Cancelled.path(), None);
}
