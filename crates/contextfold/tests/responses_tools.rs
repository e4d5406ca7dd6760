//! The Responses API's built-in client tools (computer, shell, local shell, apply patch,
//! programs) and hosted MCP calls: their outputs are read as what they say (a screenshot
//! as the image, measured by its area; anything else as its text), paired with their
//! calls, masked and summarized in their own item types, and written back verbatim when
//! untouched. A screenshot, which no text can stand for, is never replaced.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use contextfold::format::{self, Format};
use contextfold::measure::{estimate_message_tokens, Amount, Meter};
use contextfold::message::{Message, Part, Role};
use contextfold::repair::{validate, Provider};
use contextfold::strategy::run::{compact, CompactOptions, StrategyConfig};
use serde_json::{json, Value};

fn base64(bytes: &[u8]) -> String {
    const DIGITS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    bytes
        .chunks(3)
        .flat_map(|c| {
            let n = (u32::from(c[0]) << 16)
                | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
                | u32::from(*c.get(2).unwrap_or(&0));
            (0..4).map(move |k| if k <= c.len() { DIGITS[(n >> (18 - 6 * k) & 63) as usize] as char } else { '=' })
        })
        .collect()
}

/// A `width` x `height` PNG `data:` URL of about `bytes` bytes (a header, then filler).
fn png(width: u32, height: u32, bytes: usize) -> String {
    let mut head = vec![137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13];
    head.extend(b"IHDR");
    head.extend(width.to_be_bytes());
    head.extend(height.to_be_bytes());
    head.extend([8, 2, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(head.len() % 3, 0);
    format!("data:image/png;base64,{}{}", base64(&head), "A".repeat(bytes * 4 / 3))
}

fn read(items: &Value) -> Vec<Message> {
    format::read(items, Format::OpenAiResponses).unwrap()
}

fn write(messages: &[Message]) -> Value {
    format::write(messages, Format::OpenAiResponses).unwrap()
}

fn log(tag: &str) -> String {
    (0..80).map(|i| format!("{tag} line {i}: FAIL src/parser.test.ts > case {i}\n")).collect()
}

#[test]
fn a_screenshot_counts_by_its_area_as_a_function_output_image_does() {
    let shot = png(1280, 800, 150_000);
    let computer = json!([
        { "role": "user", "content": "Book a flight." },
        { "type": "computer_call", "id": "cu_1", "call_id": "c1", "status": "completed", "pending_safety_checks": [],
            "action": { "type": "screenshot" } },
        { "type": "computer_call_output", "call_id": "c1", "output": { "type": "computer_screenshot", "image_url": shot } },
    ]);
    let function = json!([
        { "role": "user", "content": "Book a flight." },
        { "type": "function_call", "call_id": "c1", "name": "screenshot", "arguments": "{}" },
        { "type": "function_call_output", "call_id": "c1", "output": [{ "type": "input_image", "image_url": shot, "detail": "auto" }] },
    ]);
    let (by_computer, by_function) = (read(&computer), read(&function));
    let tokens = |m: &[Message]| estimate_message_tokens(&m[2]);
    // 1280x800 scaled to 1568 on the long edge: about 1,300 tokens, not the 50,000 of its base64.
    assert!(tokens(&by_computer) < 2000, "{}", tokens(&by_computer));
    assert!(
        tokens(&by_computer).abs_diff(tokens(&by_function)) < 20,
        "{} vs {}",
        tokens(&by_computer),
        tokens(&by_function)
    );
    // The item goes back as it came.
    assert_eq!(write(&by_computer), computer);
    assert!(validate(&by_computer, Provider::OpenAiResponses).is_empty());
}

/// A Codex-style turn of each built-in tool that answers with text.
fn text_tools() -> Value {
    let mut items = vec![json!({ "role": "user", "content": "Run the tests and fix them." })];
    for i in 0..4 {
        items.extend([
            json!({ "type": "shell_call", "id": format!("sh_{i}"), "call_id": format!("s{i}"), "status": "completed",
                "action": { "commands": ["npm test"] } }),
            json!({ "type": "shell_call_output", "call_id": format!("s{i}"), "max_output_length": 9000,
                "output": [{ "stdout": log("out"), "stderr": "warn", "outcome": { "type": "exit", "exit_code": 1 } }] }),
            // The API names the call by its `call_id` in `id`.
            json!({ "type": "local_shell_call", "id": format!("ls_{i}"), "call_id": format!("l{i}"), "status": "completed",
                "action": { "type": "exec", "command": ["npm", "test"], "env": {} } }),
            json!({ "type": "local_shell_call_output", "id": format!("l{i}"), "output": log("local") }),
            // Some send the call item's `id`.
            json!({ "type": "local_shell_call", "id": format!("lsb_{i}"), "call_id": format!("lb{i}"), "status": "completed",
                "action": { "type": "exec", "command": ["ls"], "env": {} } }),
            json!({ "type": "local_shell_call_output", "id": format!("lsb_{i}"), "output": log("listing"), "status": "completed" }),
            json!({ "type": "apply_patch_call", "id": format!("ap_{i}"), "call_id": format!("a{i}"), "status": "completed",
                "operation": { "type": "update_file", "path": "src/p.ts", "diff": "@@\n-a\n+b\n" } }),
            json!({ "type": "apply_patch_call_output", "call_id": format!("a{i}"), "status": "failed", "output": log("patch") }),
            json!({ "type": "program", "id": format!("prog_{i}"), "call_id": format!("p{i}"), "code": "return 1", "fingerprint": "fp" }),
            json!({ "type": "program_output", "id": format!("po_{i}"), "call_id": format!("p{i}"), "result": log("prog"), "status": "completed" }),
            json!({ "type": "mcp_call", "id": format!("mcp_{i}"), "server_label": "ci", "name": "run_tests", "arguments": "{}",
                "output": log("mcp"), "status": "completed" }),
            json!({ "type": "computer_call", "id": format!("cu_{i}"), "call_id": format!("c{i}"), "status": "completed",
                "pending_safety_checks": [], "action": { "type": "screenshot" } }),
            json!({ "type": "computer_call_output", "call_id": format!("c{i}"),
                "output": { "type": "computer_screenshot", "image_url": png(640, 400, 30_000) } }),
            json!({ "type": "message", "id": format!("msg_{i}"), "role": "assistant", "status": "completed",
                "content": [{ "type": "output_text", "text": "Still failing.", "annotations": [] }] }),
            json!({ "role": "user", "content": "Keep going." }),
        ]);
    }
    Value::Array(items)
}

#[test]
fn local_shell_and_mcp_calls_are_exchanges_with_their_outputs() {
    let items = text_tools();
    let messages = read(&items);
    assert_eq!(write(&messages), items);
    assert!(
        validate(&messages, Provider::OpenAiResponses).is_empty(),
        "{:?}",
        validate(&messages, Provider::OpenAiResponses)
    );
    // user, then per call an assistant message and its tool message, then the answer.
    let roles: Vec<Role> = messages[..16].iter().map(|m| m.role).collect();
    use Role::{Assistant as A, Tool as T, User as U};
    assert_eq!(roles, [U, A, T, A, T, A, T, A, T, A, T, A, T, A, T, A]);
    assert!(contextfold::ChainAst::parse(&messages).is_ok());
    // Each output is its call's, under the call's id.
    for (call, result) in [("l0", "local"), ("lb0", "listing"), ("mcp_0", "mcp")] {
        let at = messages.iter().position(|m| m.tool_calls().any(|c| c.id == call)).unwrap();
        let Part::ToolResult(r) = &messages[at + 1].parts[0] else { panic!("no result after {call}") };
        assert_eq!(r.call_id, call);
        assert!(matches!(&r.content[..], [Part::Text(t)] if t.text.starts_with(&format!("{result} line 0"))));
    }
}

#[test]
fn text_outputs_are_masked_in_their_own_items_and_screenshots_are_not() {
    let items = text_tools();
    let messages = read(&items);
    let (masked, report) = contextfold::strategy::mask::mask(&messages, &Default::default());
    let masked: Vec<Message> = masked.into_iter().map(std::borrow::Cow::into_owned).collect();
    let tools: std::collections::HashSet<&str> = report.iter().map(|m| m.tool.as_str()).collect();
    for tool in ["shell", "local_shell", "apply_patch", "program", "run_tests"] {
        assert!(tools.contains(tool), "{tool} not masked: {tools:?}");
    }
    assert!(!tools.contains("computer"));
    assert!(validate(&masked, Provider::OpenAiResponses).is_empty());
    let written = write(&masked);
    let list = written.as_array().unwrap();
    assert_eq!(list.len(), items.as_array().unwrap().len());
    let placeholder = |v: &Value| v.as_str().is_some_and(|t| t.starts_with("[masked tool output]"));
    let mut seen = std::collections::HashSet::new();
    for (item, original) in list.iter().zip(items.as_array().unwrap()) {
        let kind = item["type"].as_str().unwrap_or("message");
        assert_eq!(kind, original["type"].as_str().unwrap_or("message"));
        if item == original {
            continue;
        }
        seen.insert(kind.to_string());
        // Every other field as it came, the text replaced where the item holds it.
        match kind {
            "shell_call_output" => {
                assert!(placeholder(&item["output"][0]["stdout"]), "{item}");
                assert_eq!(item["output"][0]["outcome"], original["output"][0]["outcome"]);
                assert_eq!(item["max_output_length"], 9000);
            }
            "local_shell_call_output" => {
                assert!(placeholder(&item["output"]), "{item}");
                assert_eq!(item["id"], original["id"]);
            }
            "apply_patch_call_output" => {
                assert!(placeholder(&item["output"]) && item["status"] == "failed", "{item}");
            }
            "program_output" => assert!(placeholder(&item["result"]) && item["id"] == original["id"], "{item}"),
            "mcp_call" => {
                assert!(placeholder(&item["output"]), "{item}");
                assert_eq!((&item["name"], &item["arguments"]), (&original["name"], &original["arguments"]));
            }
            other => panic!("{other} changed: {item}"),
        }
    }
    assert_eq!(seen.len(), 5, "{seen:?}");
}

#[test]
fn a_result_only_its_item_answers_is_never_written_as_text() {
    let items = json!([
        { "role": "user", "content": "Do the thing." },
        { "type": "computer_call", "id": "cu_1", "call_id": "call_c", "status": "completed", "action": { "type": "screenshot" },
            "pending_safety_checks": [] },
        { "type": "computer_call_output", "call_id": "call_c",
            "output": { "type": "computer_screenshot", "image_url": png(1280, 800, 60_000) } },
        { "type": "program", "id": "prog_1", "call_id": "call_p", "code": "return await tools.search({})", "fingerprint": "fp" },
        { "type": "program_output", "id": "po_1", "call_id": "call_p", "result": log("res").repeat(4), "status": "completed" },
        { "type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{ "type": "output_text", "text": "Done.", "annotations": [] }] },
        { "role": "user", "content": "next" },
    ]);
    let messages = read(&items);
    // `window` summarizes the large program output alone, in its own item; never the screenshot.
    let options = CompactOptions {
        strategy: StrategyConfig::Window(contextfold::strategy::window::WindowConfig {
            threshold: Amount::Tokens(4000),
            message_threshold: Amount::Tokens(300),
            ..Default::default()
        }),
        repair: contextfold::repair::RepairOptions::for_provider(Provider::OpenAiResponses),
        ..Default::default()
    };
    let summarizer = contextfold::summarize::extractive::ExtractiveSummarizer::default();
    let controls = contextfold::summarize::Controls::default();
    let out =
        futures::executor::block_on(compact(&messages, &options, &summarizer, &controls, Meter::default())).unwrap();
    assert!(out.changed);
    let written = write(&out.messages);
    let list = written.as_array().unwrap();
    let of = |kind: &str| list.iter().find(|i| i["type"] == kind).unwrap_or_else(|| panic!("no {kind}: {written:#}"));
    assert_eq!(of("computer_call_output"), &items[2]);
    let program = of("program_output");
    assert_eq!((&program["id"], &program["call_id"]), (&json!("po_1"), &json!("call_p")));
    assert_ne!(program["result"], items[4]["result"]);
    assert!(list.iter().all(|i| i["type"] != "function_call_output"), "{written:#}");
    // A screenshot replaced by text has no item to go in: an error, not a function output.
    let mut broken = messages.clone();
    let Part::ToolResult(r) = &mut broken[2].parts[0] else { panic!() };
    r.content = vec![Part::text("a summary")];
    let err = format::write(&broken, Format::OpenAiResponses).unwrap_err();
    assert_eq!((err.code(), err.path()), ("unwritable", Some("[2].parts[0]")));
}

#[test]
fn a_built_in_call_answered_by_another_item_type_is_reported() {
    let cases = [
        // A computer call answered by a function output: the API rejects both items.
        json!([
            { "role": "user", "content": "go" },
            { "type": "computer_call", "id": "cu_1", "call_id": "c", "status": "completed", "action": { "type": "screenshot" },
                "pending_safety_checks": [] },
            { "type": "function_call_output", "call_id": "c", "output": "a summary" },
        ]),
        // A function call answered by a shell output.
        json!([
            { "role": "user", "content": "go" },
            { "type": "function_call", "call_id": "c", "name": "f", "arguments": "{}" },
            { "type": "shell_call_output", "call_id": "c", "output": [{ "stdout": "x", "stderr": "", "outcome": { "type": "exit", "exit_code": 0 } }] },
        ]),
    ];
    for items in cases {
        let found = validate(&read(&items), Provider::OpenAiResponses);
        assert_eq!(
            found.iter().map(|d| (d.code, d.path.as_str())).collect::<Vec<_>>(),
            [("wrong_output_item", "[2].parts[0]")]
        );
    }
}

/// The longest run of base64 digits in `text`.
fn longest_base64_run(text: &str) -> usize {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '/')).map(str::len).max().unwrap_or(0)
}

#[test]
fn generated_images_count_by_their_area_and_never_reach_a_summarizer_as_base64() {
    // A generated 1024x1024 PNG: ~1.6 MB of base64 is ~1,400 tokens (its area), not 480k.
    let image = png(1024, 1024, 1_200_000);
    let raw = image.strip_prefix("data:image/png;base64,").unwrap().to_string();
    let items = json!([
        { "role": "user", "content": "Draw a cat in a spacesuit." },
        { "type": "image_generation_call", "id": "ig_1", "status": "completed", "result": raw },
        // A hosted tool's item whose output is the image (as the Agents SDK stores one),
        // and an MCP tool answering with base64 data.
        { "type": "hosted_tool_call", "id": "ht_1", "name": "image_generation_call", "status": "completed", "output": raw },
        { "type": "mcp_call", "id": "mcp_1", "server_label": "files", "name": "read_png", "arguments": "{}", "output": raw },
        { "id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
          "content": [{ "type": "output_text", "text": "Here it is.", "annotations": [] }] },
    ]);
    let messages = read(&items);
    let tokens: usize = messages.iter().map(estimate_message_tokens).sum();
    // Three images (~1,400 tokens each), not ~1.5M tokens.
    assert!(tokens < 3 * 1600 + 200, "{tokens}");
    // The texts standing for the items (what other formats and summarizers get).
    let texts: Vec<&str> = messages
        .iter()
        .flat_map(|m| &m.parts)
        .flat_map(|p| match p {
            Part::ToolResult(r) => r.content.iter().collect::<Vec<_>>(),
            other => vec![other],
        })
        .filter_map(|p| match p {
            Part::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    assert!(texts.iter().all(|t| longest_base64_run(t) < 100), "{texts:?}");
    let prompt = contextfold::prompt::render(&messages[..1], &messages[1..]).unwrap();
    assert!(longest_base64_run(&prompt.full()) < 100, "{}", prompt.transcript);
    assert!(prompt.transcript.contains("[image generated]"), "{}", prompt.transcript);
    // Written back verbatim.
    assert_eq!(write(&messages), items);
}

#[test]
fn an_mcp_call_inside_a_turn_leaves_the_turn_whole_and_its_calls_answered_in_place() {
    // A response calling a function, the hosted MCP tool and the shell at once: the turn
    // was cut at the `mcp_call`, so the function's output (after the turn, as the API
    // sends it) was "not right after its call": parse refused the chain, validate flagged
    // it and compact moved the output between the calls. An `mcp_call` that waits for
    // nothing still ends its turn (`local_shell_and_mcp_calls_are_exchanges_...`).
    let items = json!([
        { "role": "user", "content": "go" },
        { "type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc" },
        { "type": "function_call", "call_id": "call_A", "name": "f", "arguments": "{}" },
        { "type": "mcp_call", "id": "mcp_1", "server_label": "s", "name": "t", "arguments": "{}", "output": "ok" },
        { "type": "shell_call", "call_id": "call_B", "action": { "commands": ["ls"] }, "status": "completed" },
        { "type": "function_call_output", "call_id": "call_A", "output": "a" },
        { "type": "shell_call_output", "call_id": "call_B", "output": [] },
        { "type": "message", "role": "assistant", "content": [{ "type": "output_text", "text": "done" }] },
    ]);
    let messages = read(&items);
    use Role::{Assistant as A, Tool as T, User as U};
    assert_eq!(messages.iter().map(|m| m.role).collect::<Vec<_>>(), [U, A, T, T, T, A]);
    assert_eq!(messages[1].tool_calls().count(), 3);
    assert_eq!(write(&messages), items);
    assert!(
        validate(&messages, Provider::OpenAiResponses).is_empty(),
        "{:?}",
        validate(&messages, Provider::OpenAiResponses)
    );
    assert!(contextfold::ChainAst::parse(&messages).is_ok());
    let repaired = contextfold::repair::repair(
        &messages,
        &contextfold::repair::RepairOptions::for_provider(Provider::OpenAiResponses),
    );
    assert_eq!(repaired.messages, messages);
}
