#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! The demo conversation the project ships (`examples/demo-session.openai.json`, made by
//! `examples/make-demo-session.mjs`) reads as OpenAI and parses strictly.

use contextfold::format::{self, Format};
use contextfold::{ChainAst, Message, Part, Role};

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/demo-session.openai.json");

#[test]
fn demo_session_reads_as_openai_and_parses_strictly() {
    let text = std::fs::read_to_string(DEMO).expect("examples/demo-session.openai.json");
    let value = format::parse_json(&text).unwrap();
    let (messages, detected) = format::read_auto(&value).unwrap();
    assert_eq!(detected, Format::OpenAi);
    assert_eq!(messages.len(), value.as_array().unwrap().len());

    let ast = ChainAst::parse(&messages).unwrap_or_else(|e| panic!("strict parse: {e}"));
    let users = messages.iter().filter(|m| m.role == Role::User).count();
    assert_eq!(ast.sections().len(), users);
    assert!(users >= 5, "{users} user turns");
    assert_eq!(messages.last().map(|m| m.role), Some(Role::Assistant));

    // Parallel tool calls and reasoning are what the demo is for.
    assert!(messages.iter().any(|m| m.tool_calls().count() >= 3));
    let reasoning = messages.iter().filter(|m| matches!(m.parts.first(), Some(Part::Reasoning(_)))).count();
    assert!((1..=2).contains(&reasoning), "{reasoning} reasoning parts");
    let largest = messages.iter().map(Message::size).max().unwrap_or(0);
    assert!(largest >= 3_000, "largest message is {largest} bytes");
}
