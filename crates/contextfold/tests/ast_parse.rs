//! Parsing scenarios of SEMANTICS.md section 1 and the seed's predefined test chains.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use common::*;
use contextfold::ast::{
    AstError, ChainAst, PairKind, PartRule, RepairAction, FALLBACK_RESPONSE_CONTENT, FALLBACK_TOOL_ARGS,
    SUMMARIZATION_TOOL_NAME,
};
use contextfold::message::{Extra, ImagePart, Message, Part, Role, ToolResultPart};

fn kinds(ast: &ChainAst) -> Vec<Vec<PairKind>> {
    ast.sections().iter().map(|s| s.body().iter().map(|p| p.kind()).collect()).collect()
}

/// Parses strictly, checks messages() is the identity and sizes are consistent.
fn strict_roundtrip(chain: &[Message]) -> ChainAst<'static> {
    let ast = ChainAst::parse(chain).unwrap();
    assert_eq!(ast.messages(), chain);
    assert_sizes_consistent(&ast);
    let repaired = ChainAst::parse_repair(chain).unwrap();
    assert!(repaired.repairs.is_empty(), "a valid chain needs no repair: {:?}", repaired.repairs);
    assert_eq!(repaired.ast, ast);
    ast.into_owned()
}

// ---- the seed's predefined chains -------------------------------------------------

#[test]
fn empty_chain_gives_empty_ast() {
    let ast = strict_roundtrip(&[]);
    assert!(ast.is_empty());
    assert_eq!(ast.size(), 0);
}

#[test]
fn system_only_chain() {
    let ast = strict_roundtrip(&[sys("be brief")]);
    assert_eq!(ast.sections().len(), 1);
    assert_eq!(ast.sections()[0].header().system().len(), 1);
    assert!(ast.sections()[0].header().human().is_none());
    assert_eq!(ast.size(), 8);
}

#[test]
fn human_only_chain() {
    let ast = strict_roundtrip(&[user("hello")]);
    assert_eq!(ast.sections().len(), 1);
    assert!(ast.sections()[0].header().human().is_some());
    assert!(ast.sections()[0].body().is_empty());
}

#[test]
fn system_human_chain() {
    let ast = strict_roundtrip(&[sys("sys"), user("hello")]);
    assert_eq!(ast.sections().len(), 1);
    assert_eq!(ast.sections()[0].header().size(), 8);
}

#[test]
fn basic_conversation_chain() {
    let ast = strict_roundtrip(&[sys("sys"), user("hi"), ai("hello there")]);
    assert_eq!(kinds(&ast), vec![vec![PairKind::Completion]]);
    assert_eq!(ast.sections()[0].body()[0].size(), 11);
    assert_eq!(ast.size(), 3 + 2 + 11);
}

#[test]
fn chain_with_single_tool_response() {
    let chain =
        [sys("s"), user("weather?"), ai_calls("", &[("c1", "get_weather")]), tool("c1", "get_weather", "sunny")];
    let ast = strict_roundtrip(&chain);
    assert_eq!(kinds(&ast), vec![vec![PairKind::RequestResponse]]);
    let pair = &ast.sections()[0].body()[0];
    // call: id + "function" + name + args; result: id + content (its name repeats the call's)
    assert_eq!(pair.size(), (2 + 8 + 11 + 2) + (2 + 5));
    assert!(pair.is_valid());
    assert_eq!(pair.tool_calls_info().completed, vec!["c1"]);
}

#[test]
fn chain_with_multiple_tools_and_responses() {
    let chain = [
        user("compare"),
        ai_calls("checking", &[("a", "f"), ("b", "g"), ("c", "f")]),
        tool("b", "g", "2"),
        tool("a", "f", "1"),
        tool("c", "f", "3"),
        ai("done"),
    ];
    let ast = strict_roundtrip(&chain);
    assert_eq!(kinds(&ast), vec![vec![PairKind::RequestResponse, PairKind::Completion]]);
    assert_eq!(ast.sections()[0].body()[0].tools().len(), 3);
}

#[test]
fn chain_with_multiple_sections() {
    let chain = [
        sys("s"),
        user("q1"),
        ai("a1"),
        user("q2"),
        ai_calls("", &[("x", "t")]),
        tool("x", "t", "r"),
        ai("a2"),
        user("q3"),
    ];
    let ast = strict_roundtrip(&chain);
    assert_eq!(
        kinds(&ast),
        vec![vec![PairKind::Completion], vec![PairKind::RequestResponse, PairKind::Completion], vec![]]
    );
    assert!(ast.sections()[1].header().system().is_empty());
}

#[test]
fn chain_with_summarization_only_and_with_other_pairs() {
    let summary =
        [user("q"), ai_calls("", &[("s1", SUMMARIZATION_TOOL_NAME)]), tool("s1", SUMMARIZATION_TOOL_NAME, "summary")];
    let ast = strict_roundtrip(&summary);
    assert_eq!(kinds(&ast), vec![vec![PairKind::Summarization]]);
    assert!(ast.sections()[0].body()[0].is_summarized());

    let mut more = summary.to_vec();
    more.extend([ai_calls("", &[("c2", "search")]), tool("c2", "search", "r"), ai("final")]);
    let ast = strict_roundtrip(&more);
    assert_eq!(kinds(&ast), vec![vec![PairKind::Summarization, PairKind::RequestResponse, PairKind::Completion]]);
}

#[test]
fn assistant_right_after_system_is_allowed() {
    let ast = strict_roundtrip(&[sys("s"), ai("greeting")]);
    assert_eq!(kinds(&ast), vec![vec![PairKind::Completion]]);
}

#[test]
fn leading_system_run_is_kept_in_the_first_header() {
    // Real transcripts (pydantic-ai / DeepSeek) open with two system messages.
    let ast = strict_roundtrip(&[sys("one"), sys("two"), user("q"), ai("a")]);
    assert_eq!(ast.sections()[0].header().system().len(), 2);
    assert_eq!(ast.sections()[0].header().size(), 3 + 3 + 1);
}

// ---- errors, strict and repair ------------------------------------------------------

#[test]
fn a_tool_message_cannot_open_the_chain_even_in_repair() {
    let chain = [tool("c", "t", "r"), user("q")];
    let want = AstError::InvalidStart { index: 0, role: Role::Tool };
    assert_eq!(ChainAst::parse(&chain).unwrap_err(), want);
    assert_eq!(ChainAst::parse_repair(&chain).unwrap_err(), want);
}

#[test]
fn an_assistant_greeting_opens_a_section_without_a_user_message() {
    // A chat UI's opening message: the chain keeps its order, in both modes.
    for chain in [vec![ai("hi, how can I help?"), user("q"), ai("a")], vec![sys("s"), ai("hi"), user("q"), ai("a")]] {
        let ast = strict_roundtrip(&chain);
        assert_eq!(ast.sections().len(), 2);
        assert!(ast.sections()[0].header().human().is_none());
        assert_eq!(ast.sections()[0].body().len(), 1);
        assert!(ast.sections()[1].header().human().is_some());
        let parsed = ChainAst::parse_repair(&chain).unwrap();
        assert!(parsed.repairs.is_empty());
        assert_eq!(parsed.ast.messages(), chain);
        assert_sizes_consistent(&parsed.ast);
    }
}

#[test]
fn a_system_message_mid_chain_opens_a_section() {
    // A developer's instruction mid-chat (OpenAI, Anthropic): the header of the section
    // it opens, with the user message after it if one follows.
    for (chain, sections) in [
        (vec![user("q"), sys("late")], 2),
        (vec![sys("s"), user("q"), ai("a"), sys("late"), sys("later"), user("q2"), ai("a2")], 2),
        (vec![sys("s"), ai("a"), sys("x")], 2),
    ] {
        let ast = strict_roundtrip(&chain);
        assert_eq!(ast.sections().len(), sections, "{chain:?}");
        assert!(ast.sections().last().is_some_and(|s| !s.header().system().is_empty()));
        assert!(ChainAst::parse_repair(&chain).unwrap().repairs.is_empty());
    }
}

#[test]
fn a_system_message_between_calls_and_results_is_an_error_even_in_repair() {
    let chain = [user("q"), ai_calls("", &[("a", "f")]), sys("late"), tool("a", "f", "r")];
    let err = ChainAst::parse(&chain).unwrap_err();
    assert_eq!(err, AstError::SystemAfterStart { index: 2 });
    assert_eq!(err.code(), "system_after_start");
    assert_eq!(err.path().as_deref(), Some("[2]"));
    assert_eq!(ChainAst::parse_repair(&chain).unwrap_err(), AstError::SystemAfterStart { index: 2 });
}

#[test]
fn consecutive_humans_strict_error_repair_merges() {
    let chain = [sys("s"), user("first"), user("second"), ai("a")];
    assert_eq!(ChainAst::parse(&chain).unwrap_err(), AstError::ConsecutiveHuman { index: 2 });
    let parsed = ChainAst::parse_repair(&chain).unwrap();
    assert_eq!(parsed.repairs, vec![RepairAction::MergedConsecutiveHuman { index: 2 }]);
    let human = parsed.ast.sections()[0].header().human().unwrap();
    assert_eq!(human.parts, vec![Part::text("first"), Part::text("second")]);
    assert_eq!(parsed.ast.messages().len(), 3);
    assert_sizes_consistent(&parsed.ast);
    assert_eq!(parsed.ast.size(), 1 + 5 + 6 + 1);
}

#[test]
fn human_after_replies_opens_a_new_section() {
    let ast = strict_roundtrip(&[user("q1"), ai("a1"), ai("a1 again"), user("q2")]);
    assert_eq!(ast.sections().len(), 2);
    assert_eq!(ast.sections()[0].body().len(), 2);
}

#[test]
fn human_after_replies_in_system_only_section() {
    // Upstream moves the user message into the header, before the reply; ours keeps the
    // order: the reply is a section of its own.
    let chain = [sys("s"), ai("unprompted"), user("q")];
    let ast = strict_roundtrip(&chain);
    assert_eq!(ast.sections().len(), 2);
    assert_eq!(ast.messages(), chain.to_vec());
    assert_sizes_consistent(&ast);
}

#[test]
fn tool_without_open_pair_or_after_completion() {
    for chain in [vec![user("q"), tool("c", "t", "r")], vec![user("q"), ai("plain"), tool("c", "t", "r")]] {
        let index = chain.len() - 1;
        assert_eq!(ChainAst::parse(&chain).unwrap_err(), AstError::UnexpectedTool { index });
        let parsed = ChainAst::parse_repair(&chain).unwrap();
        assert_eq!(parsed.repairs, vec![RepairAction::DroppedToolMessage { index }]);
        assert_eq!(parsed.ast.messages(), chain[..index].to_vec());
        assert_sizes_consistent(&parsed.ast);
    }
}

#[test]
fn missing_tool_result_strict_error_repair_adds_fallback() {
    let chain = [user("q"), ai_calls("", &[("a", "read"), ("b", "grep")]), tool("a", "read", "ok"), user("next")];
    let err = ChainAst::parse(&chain).unwrap_err();
    assert_eq!(err, AstError::MissingToolResult { index: 1, ids: vec!["b".into()] });
    assert_eq!(err.path().as_deref(), Some("[1]"));
    let parsed = ChainAst::parse_repair(&chain).unwrap();
    assert_eq!(
        parsed.repairs,
        vec![RepairAction::AddedMissingResult { index: 1, call_id: "b".into(), name: "grep".into() }]
    );
    let pair = &parsed.ast.sections()[0].body()[0];
    assert!(pair.is_valid());
    assert_eq!(pair.tools().len(), 2);
    assert_eq!(pair.tools()[1], tool("b", "grep", FALLBACK_RESPONSE_CONTENT));
    assert_sizes_consistent(&parsed.ast);
    // Missing results at the very end of the chain are found too.
    let tail = [user("q"), ai_calls("", &[("z", "t")])];
    assert_eq!(ChainAst::parse(&tail).unwrap_err(), AstError::MissingToolResult { index: 1, ids: vec!["z".into()] });
    assert_eq!(ChainAst::parse_repair(&tail).unwrap().ast.messages().len(), 3);
}

#[test]
fn unmatched_tool_result_strict_error_repair_adds_call() {
    let chain = [user("q"), ai_calls("", &[("a", "read")]), tool("a", "read", "ok"), tool("ghost", "grep", "found")];
    let err = ChainAst::parse(&chain).unwrap_err();
    assert_eq!(err, AstError::UnmatchedToolResult { index: 3, ids: vec!["ghost".into()] });
    assert_eq!(err.code(), "unmatched_tool_result");
    let parsed = ChainAst::parse_repair(&chain).unwrap();
    assert_eq!(
        parsed.repairs,
        vec![RepairAction::AddedMissingCall { index: 1, call_id: "ghost".into(), name: "grep".into() }]
    );
    let pair = &parsed.ast.sections()[0].body()[0];
    assert!(pair.is_valid());
    let added = pair.ai().tool_calls().last().unwrap();
    assert_eq!(
        (added.id.as_str(), added.name.as_str(), added.arguments.as_str()),
        ("ghost", "grep", FALLBACK_TOOL_ARGS)
    );
    assert_sizes_consistent(&parsed.ast);
    // The repaired chain parses strictly.
    ChainAst::parse(&parsed.ast.messages()).unwrap();
}

#[test]
fn duplicate_results_do_not_create_duplicate_calls() {
    // Upstream appended a second call for the second result; we drop the duplicate.
    let chain =
        [user("q"), ai_calls("", &[("a", "read")]), tool("a", "read", "one"), tool("a", "read", "two"), ai("done")];
    assert_eq!(ChainAst::parse(&chain).unwrap_err(), AstError::DuplicateToolResult { index: 3, id: "a".into() });
    let parsed = ChainAst::parse_repair(&chain).unwrap();
    assert_eq!(parsed.repairs, vec![RepairAction::DroppedDuplicateResult { index: 3, call_id: "a".into() }]);
    let pair = &parsed.ast.sections()[0].body()[0];
    assert_eq!(pair.ai().tool_calls().count(), 1);
    assert_eq!(pair.tools(), &[tool("a", "read", "one")]);
    assert_sizes_consistent(&parsed.ast);
    // An orphan answered twice gets exactly one added call.
    let orphan =
        [user("q"), ai_calls("", &[("a", "read")]), tool("a", "read", "1"), tool("g", "x", "2"), tool("g", "x", "3")];
    let parsed = ChainAst::parse_repair(&orphan).unwrap();
    assert_eq!(parsed.ast.sections()[0].body()[0].ai().tool_calls().count(), 2);
    ChainAst::parse(&parsed.ast.messages()).unwrap();
}

#[test]
fn duplicate_call_ids_in_one_message_are_rejected() {
    let chain = [user("q"), ai_calls("", &[("a", "f"), ("a", "g")])];
    for result in [ChainAst::parse(&chain), ChainAst::parse_repair(&chain).map(|p| p.ast)] {
        assert_eq!(result.unwrap_err(), AstError::DuplicateToolCallId { index: 1, id: "a".into() });
    }
}

#[test]
fn parts_must_fit_their_role() {
    let result_part = Part::ToolResult(ToolResultPart {
        call_id: "c".into(),
        name: None,
        content: vec![],
        is_error: false,
        extra: Extra::new(),
    });
    let cases: Vec<(Message, usize, PartRule)> = vec![
        (Message::new(Role::User, vec![Part::text("x"), call("c", "f", "{}")]), 1, PartRule::ToolCallOutsideAssistant),
        (Message::new(Role::Assistant, vec![result_part.clone()]), 0, PartRule::ToolResultOutsideTool),
        (Message::new(Role::User, vec![Part::Image(ImagePart::default())]), 0, PartRule::MediaWithoutSource),
        (Message::new(Role::Assistant, vec![call("", "f", "{}")]), 0, PartRule::EmptyToolCallId),
    ];
    for (bad, part, rule) in cases {
        let chain = [user("q"), bad];
        let want = AstError::InvalidPart { index: 1, part, rule };
        assert_eq!(ChainAst::parse(&chain).unwrap_err(), want);
        assert_eq!(ChainAst::parse_repair(&chain).unwrap_err(), want);
        assert_eq!(want.path(), Some(format!("[1].parts[{part}]")));
    }
    let tool_cases: Vec<(Message, usize, PartRule)> = vec![
        (Message::new(Role::Tool, vec![]), 0, PartRule::EmptyToolMessage),
        (Message::new(Role::Tool, vec![result_part.clone(), Part::text("x")]), 1, PartRule::NonResultInToolMessage),
        (
            Message::new(
                Role::Tool,
                vec![Part::ToolResult(ToolResultPart {
                    call_id: "c".into(),
                    name: None,
                    content: vec![call("d", "f", "{}")],
                    is_error: false,
                    extra: Extra::new(),
                })],
            ),
            0,
            PartRule::NestedPartInToolResult,
        ),
    ];
    for (bad, part, rule) in tool_cases {
        let chain = [user("q"), ai_calls("", &[("c", "f")]), bad];
        assert_eq!(ChainAst::parse(&chain).unwrap_err(), AstError::InvalidPart { index: 2, part, rule });
    }
}

#[test]
fn parsing_never_mutates_its_input() {
    let chain = vec![user("q"), user("again"), ai_calls("", &[("a", "f")]), tool("x", "g", "r")];
    let copy = chain.clone();
    let parsed = ChainAst::parse_repair(&chain).unwrap();
    assert_eq!(chain, copy);
    assert!(!parsed.repairs.is_empty());
}

#[test]
fn repairs_keep_sizes_right() {
    // Upstream left cached sizes stale after repairs; every repair kind at once here.
    let chain = vec![
        sys("s"),
        ai("early"),
        user("q"),
        ai_calls("", &[("a", "f"), ("b", "g")]),
        tool("a", "f", "1"),
        tool("a", "f", "dup"),
        tool("o", "h", "orphan"),
        user("q2"),
        user("q2 again"),
        ai("plain"),
        tool("late", "t", "x"),
    ];
    let parsed = ChainAst::parse_repair(&chain).unwrap();
    assert_eq!(parsed.repairs.len(), 5, "{:?}", parsed.repairs);
    assert_sizes_consistent(&parsed.ast);
    ChainAst::parse(&parsed.ast.messages()).unwrap();
}

#[test]
fn reasoning_counts_in_sizes() {
    let mut m = ai_calls("t", &[("c", "f")]);
    m.parts.insert(0, reasoning("thinking hard", Some("sig")));
    let chain = [user("q"), m, tool("c", "f", "r")];
    let ast = strict_roundtrip(&chain);
    let pair = &ast.sections()[0].body()[0];
    assert_eq!(pair.size(), (13 + 3) + 1 + (1 + 8 + 1 + 2) + (1 + 1));
}

#[test]
fn sizes_of_media_parts() {
    let img = Part::Image(ImagePart { url: Some("https://x/y.png".into()), ..ImagePart::default() });
    let data = Part::Image(ImagePart {
        data: Some("QUJD".into()),
        media_type: Some("image/png".into()),
        ..ImagePart::default()
    });
    let chain = [Message::new(Role::User, vec![img, data])];
    let ast = strict_roundtrip(&chain);
    assert_eq!(ast.size(), 15 + 4);
}

#[test]
fn errors_have_stable_codes_and_messages() {
    let err = ChainAst::parse(&[user("q"), ai_calls("", &[("a", "f")]), user("next")]).unwrap_err();
    assert_eq!(err.code(), "missing_tool_result");
    assert_eq!(err.to_string(), "message 1: tool calls [a] have no result");
    let err = ChainAst::parse(&[tool("c", "f", "r")]).unwrap_err();
    assert_eq!(err.to_string(), "message 0: a chain cannot start with a tool message");
}

/// The chain borrows the input's messages: only a message a repair changed (or added) is
/// a copy, and `into_owned` gives an equal chain holding no borrow.
#[test]
fn the_chain_borrows_what_no_repair_changed() {
    use std::borrow::Cow;
    let chain = [sys("s"), user("q"), ai_calls("", &[("a", "f"), ("b", "g")]), tool("a", "f", "r"), ai("done")];
    let parsed = ChainAst::parse_repair(&chain).unwrap();
    assert_eq!(parsed.repairs.len(), 1, "call b gets a fallback result");
    let section = &parsed.ast.sections()[0];
    assert!(matches!(section.header().system()[0], Cow::Borrowed(m) if std::ptr::eq(m, &chain[0])));
    assert!(matches!(section.header().human_cow(), Some(Cow::Borrowed(m)) if std::ptr::eq(*m, &chain[1])));
    let pair = &section.body()[0];
    assert!(pair.message_cows().take(2).all(|m| matches!(m, Cow::Borrowed(_))));
    assert!(matches!(pair.tools()[1], Cow::Owned(_)), "the added result is the chain's own");
    assert!(matches!(section.body()[1].message_cows().next(), Some(Cow::Borrowed(m)) if std::ptr::eq(*m, &chain[4])));
    // A merged user message is a copy; the input is untouched.
    let merged = [user("one"), user("two"), ai("a")];
    let parsed = ChainAst::parse_repair(&merged).unwrap();
    assert!(matches!(parsed.ast.sections()[0].header().human_cow(), Some(Cow::Owned(m)) if m.parts.len() == 2));
    assert_eq!(merged[0].parts.len(), 1);
    // Owned, the chain outlives its input and is the same chain.
    let owned: ChainAst<'static> = {
        let copy = chain.to_vec();
        ChainAst::parse_repair(&copy).unwrap().ast.into_owned()
    };
    assert_eq!(owned, ChainAst::parse_repair(&chain).unwrap().ast);
    let all = owned.sections().iter().flat_map(|s| s.body()).flat_map(|p| p.message_cows());
    assert!(all.into_iter().all(|m| matches!(m, Cow::Owned(_))));
}
