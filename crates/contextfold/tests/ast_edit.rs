//! Constructors, edits, tool-call id templates, reasoning helpers and sanitizing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use common::*;
use contextfold::ast::tool_id::Expected;
use contextfold::ast::{
    contains_tool_call_reasoning, extract_reasoning_message, sanitize_arguments_text, AstError, BodyPair, ChainAst,
    Charset, Header, IdMismatch, IdTemplate, PairKind, SanitizeOutcome, Section, TemplateError,
    FAKE_REASONING_SIGNATURE, SUMMARIZATION_TOOL_ARGS, SUMMARIZATION_TOOL_NAME, SUMMARIZED_CONTENT_PREFIX,
};
use contextfold::message::{Message, Part, Role};
use contextfold::testing::{generate_chain, generate_complex_chain, ChainConfig};

fn openai() -> IdTemplate {
    IdTemplate::parse("call_{r:24:x}").unwrap()
}

// ---- constructors ----------------------------------------------------------------------

#[test]
fn body_pair_detects_its_kind() {
    assert_eq!(BodyPair::new(ai("x"), vec![]).unwrap().kind(), PairKind::Completion);
    let rr = BodyPair::new(ai_calls("", &[("a", "f")]), vec![tool("a", "f", "r")]).unwrap();
    assert_eq!(rr.kind(), PairKind::RequestResponse);
    let sum =
        BodyPair::new(ai_calls("", &[("s", SUMMARIZATION_TOOL_NAME)]), vec![tool("s", SUMMARIZATION_TOOL_NAME, "r")]);
    assert_eq!(sum.unwrap().kind(), PairKind::Summarization);
}

#[test]
fn body_pair_constructors_check_roles() {
    assert_eq!(
        BodyPair::new(user("x"), vec![]).unwrap_err(),
        AstError::WrongRole { index: 0, expected: Role::Assistant, found: Role::User }
    );
    assert_eq!(
        BodyPair::from_messages(&[ai_calls("", &[("a", "f")]), user("no")]).unwrap_err(),
        AstError::WrongRole { index: 1, expected: Role::Tool, found: Role::User }
    );
    assert_eq!(BodyPair::from_messages(&[]).unwrap_err(), AstError::EmptyBodyPair);
    let messages = [ai_calls("", &[("a", "f")]), tool("a", "f", "r")];
    let pair = BodyPair::from_messages(&messages).unwrap();
    assert!(pair.is_valid());
    assert_eq!(Header::new(vec![user("x")], None).unwrap_err().code(), "wrong_role");
    assert_eq!(Header::new(vec![sys("s")], Some(ai("x"))).unwrap_err().code(), "wrong_role");
}

#[test]
fn validity_rules_and_tool_calls_info() {
    let pending = BodyPair::new(ai_calls("", &[("a", "f"), ("b", "f")]), vec![tool("a", "f", "r")]).unwrap();
    assert!(!pending.is_valid());
    let info = pending.tool_calls_info();
    assert_eq!((info.completed, info.pending), (vec!["a".to_string()], vec!["b".to_string()]));
    let unmatched = BodyPair::new(ai_calls("", &[("a", "f")]), vec![tool("a", "f", "r"), tool("z", "f", "r")]).unwrap();
    assert_eq!(unmatched.tool_calls_info().unmatched, vec!["z"]);
    assert!(!unmatched.is_valid());
    let dup = BodyPair::new(ai_calls("", &[("a", "f")]), vec![tool("a", "f", "r"), tool("a", "f", "r")]).unwrap();
    assert_eq!(dup.tool_calls_info().duplicated, vec!["a"]);
    assert!(!dup.is_valid());
    // A request without results is not valid; a completion with tool messages is not either.
    assert!(!BodyPair::new(ai_calls("", &[("a", "f")]), vec![]).unwrap().is_valid());
    assert!(!BodyPair::new(ai("x"), vec![tool("a", "f", "r")]).unwrap().is_valid());
}

#[test]
fn completion_pair() {
    let pair = BodyPair::completion("hello");
    assert_eq!(pair.kind(), PairKind::Completion);
    assert_eq!(pair.messages(), vec![ai("hello")]);
    assert_eq!(pair.size(), 5);
    assert!(!pair.is_summarized());
    // The prefix alone can be imitated by any text: only a sealed one is ours (issue 14).
    assert!(!BodyPair::completion(format!("{SUMMARIZED_CONTENT_PREFIX}x")).is_summarized());
    let sealed = contextfold::ast::seal(format!("{SUMMARIZED_CONTENT_PREFIX}x"), contextfold::ast::SUMMARY_TEXT_MARK);
    assert!(BodyPair::completion(sealed.clone()).is_summarized());
    // A seal copied over other text, or of another kind, does not check out.
    let moved = sealed.replacen("x", "y", 1);
    assert!(!BodyPair::completion(moved).is_summarized());
    let other = contextfold::ast::seal(format!("{SUMMARIZED_CONTENT_PREFIX}x"), "snapshot");
    assert!(!BodyPair::completion(other).is_summarized());
}

#[test]
fn summarization_pair() {
    let t = openai();
    let pair = BodyPair::summarization("the summary", &[], &t, false, None);
    assert_eq!(pair.kind(), PairKind::Summarization);
    assert!(pair.is_valid() && pair.is_summarized());
    let call = pair.ai().tool_calls().next().unwrap().clone();
    assert_eq!(call.name, SUMMARIZATION_TOOL_NAME);
    assert_eq!(call.arguments, SUMMARIZATION_TOOL_ARGS);
    assert_eq!(call.signature, None);
    assert!(t.validate(&call.id, &call.name).is_ok(), "id {} fits the template", call.id);
    let result = pair.tools()[0].tool_results().next().unwrap();
    assert_eq!(result.call_id, call.id);
    assert_eq!(result.content, vec![Part::text("the summary")]);
    assert_eq!(pair.size(), contextfold::message::messages_size(&pair.messages()));
    // Deterministic: the same summary gets the same id; another summary another id.
    assert_eq!(BodyPair::summarization("the summary", &[], &t, false, None), pair);
    assert_ne!(BodyPair::summarization("other", &[], &t, false, None).ai().tool_calls().next().unwrap().id, call.id);
}

#[test]
fn summarization_pair_with_fake_signature_and_reasoning() {
    let reasoning_msg = Message::new(Role::Assistant, vec![reasoning("I thought", Some("sig"))]);
    let pair = BodyPair::summarization("s", &[], &openai(), true, Some(&reasoning_msg));
    let parts = &pair.ai().parts;
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0], reasoning("I thought", Some("sig")));
    let Part::ToolCall(call) = &parts[1] else { panic!("call after reasoning") };
    assert_eq!(call.signature.as_deref(), Some(FAKE_REASONING_SIGNATURE));
    assert!(contains_tool_call_reasoning(&pair.messages()));
}

#[test]
fn section_edits_keep_sizes() {
    let header = Header::new(vec![sys("s")], Some(user("q"))).unwrap();
    let mut section = Section::new(header, vec![BodyPair::completion("a")]);
    assert_eq!(section.size(), 3);
    section.push_pair(BodyPair::completion("bb"));
    assert_eq!(section.size(), 5);
    section.set_header(Header::new(vec![], Some(user("longer question"))).unwrap());
    assert_eq!(section.size(), 15 + 3);
    section.replace_pair(0, BodyPair::completion("cccc")).unwrap();
    assert_eq!(section.size(), 15 + 6);
    assert!(section.replace_pair(9, BodyPair::completion("x")).is_none());
    section.set_body(vec![]);
    assert_eq!(section.size(), 15);
    let ast = ChainAst::new(vec![section]);
    assert_sizes_consistent(&ast);
}

// ---- edits -----------------------------------------------------------------------------

#[test]
fn append_human_message_follows_four_rules() {
    // 1. empty chain: a new section.
    let mut ast = ChainAst::default();
    ast.append_human_message("hello");
    assert_eq!(ast.messages(), vec![user("hello")]);
    // 4. last header has a user message and no replies: a new text part.
    ast.append_human_message("more");
    assert_eq!(ast.sections().len(), 1);
    assert_eq!(ast.sections()[0].header().human().unwrap().parts, vec![Part::text("hello"), Part::text("more")]);
    assert_sizes_consistent(&ast);
    // 2. last section has replies: a new section.
    let mut ast = ChainAst::parse(&[user("q"), ai("a")]).unwrap().into_owned();
    ast.append_human_message("next");
    assert_eq!(ast.sections().len(), 2);
    assert_sizes_consistent(&ast);
    // 3. system-only header: the user message joins it.
    let mut ast = ChainAst::parse(&[sys("s")]).unwrap().into_owned();
    ast.append_human_message("q");
    assert_eq!(ast.sections().len(), 1);
    assert_eq!(ast.messages(), vec![sys("s"), user("q")]);
    assert_eq!(ast.size(), 2);
}

#[test]
fn add_tool_response_replaces_or_adds() {
    let chain = [user("q"), ai_calls("", &[("a", "f"), ("b", "g")]), tool("a", "f", "old")];
    let mut ast = ChainAst::parse_repair(&chain).unwrap().ast;
    ast.add_tool_response("a", "f", "new content").unwrap();
    assert_eq!(ast.find_tool_responses("a").len(), 1);
    assert_eq!(ast.find_tool_responses("a")[0].content, vec![Part::text("new content")]);
    assert_sizes_consistent(&ast);

    // A call with no result yet gets one (here in a pair built without tool messages).
    let pair = BodyPair::new(ai_calls("", &[("x", "h")]), vec![]).unwrap();
    let mut ast = ChainAst::new(vec![Section::new(Header::new(vec![], Some(user("q"))).unwrap(), vec![pair])]);
    ast.add_tool_response("x", "h", "done").unwrap();
    assert!(ast.sections()[0].body()[0].is_valid());
    assert_sizes_consistent(&ast);
    ChainAst::parse(&ast.messages()).unwrap();

    assert_eq!(ast.add_tool_response("nope", "h", "r").unwrap_err(), AstError::ToolCallNotFound { id: "nope".into() });
}

#[test]
fn find_tool_responses_across_sections() {
    let chain = [
        user("q"),
        ai_calls("", &[("a", "f")]),
        tool("a", "f", "1"),
        user("q2"),
        ai_calls("", &[("b", "f")]),
        tool("b", "f", "2"),
    ];
    let ast = ChainAst::parse(&chain).unwrap();
    assert_eq!(ast.find_tool_responses("b")[0].content, vec![Part::text("2")]);
    assert!(ast.find_tool_responses("zzz").is_empty());
}

// ---- tool-call id templates --------------------------------------------------------------

#[test]
fn templates_generate_ids_that_validate() {
    for (template, function) in [
        ("call_{r:24:x}", "f"),
        ("toolu_{r:24:b}", "f"),
        ("{f}_{r:8:d}", "read_file"),
        ("id-{r:4:l}{r:4:u}{r:4:a}{r:6:h}{r:6:H}", "f"),
        ("{r:3:digit}{r:3:lower}{r:3:upper}{r:3:alpha}{r:3:alnum}{r:3:hex}{r:3:HEX}{r:3:base62}", "f"),
    ] {
        let t = IdTemplate::parse(template).unwrap();
        for seed in 0..50u64 {
            let id = t.generate(function, seed);
            assert!(t.validate(&id, function).is_ok(), "{template}: {id}");
        }
    }
    let id = IdTemplate::parse("{f}_{r:8:d}").unwrap().generate("read_file", 1);
    assert!(id.starts_with("read_file_") && id.len() == 18);
}

#[test]
fn charsets_are_exact() {
    let cases =
        [(Charset::Digit, "0123456789"), (Charset::Hex, "0123456789abcdef"), (Charset::HexUpper, "0123456789ABCDEF")];
    for (cs, chars) in cases {
        assert_eq!(cs.chars(), chars);
    }
    assert_eq!(Charset::Alnum.chars(), Charset::Base62.chars());
    assert_eq!(Charset::Alpha.chars().len(), 52);
    assert!(!Charset::Lower.contains('A') && Charset::Upper.contains('A'));
}

#[test]
fn validation_reports_length_first_then_first_wrong_position() {
    let t = openai();
    assert_eq!(t.validate("call_abc", "f"), Err(IdMismatch::Length { expected: 29, actual: 8 }));
    assert_eq!(
        t.validate("toolu_01234567890123456789012", "f"),
        Err(IdMismatch::Char { position: 0, found: 't', expected: Expected::Literal('c') })
    );
    assert_eq!(
        t.validate("call_0123456789012345678901-3", "f"),
        Err(IdMismatch::Char { position: 27, found: '-', expected: Expected::Charset(Charset::Alnum) })
    );
    assert!(t.validate("call_0123456789012345678901a3", "f").is_ok());
    // The real Anthropic ids of the fixtures fit the Anthropic template.
    let anthropic = IdTemplate::parse("toolu_{r:24:b}").unwrap();
    assert!(anthropic.validate("toolu_01UBumkyGa4vv7EbMVke2AiH", "f").is_ok());
}

#[test]
fn bad_templates_are_typed_errors() {
    let cases = [
        ("", "Empty"),
        ("call_{r:24:x", "Unclosed"),
        ("call_{q}", "UnknownPlaceholder"),
        ("call_{r:0:x}", "BadLength"),
        ("call_{r:999999:x}", "BadLength"),
        ("call_{r:2:zz}", "UnknownCharset"),
        ("call_{r:2}", "UnknownPlaceholder"),
    ];
    for (template, variant) in cases {
        let err = IdTemplate::parse(template).unwrap_err();
        assert!(format!("{err:?}").starts_with(variant), "{template}: {err:?}");
    }
    assert!(matches!(IdTemplate::parse("plain").unwrap().validate("plain", "f"), Ok(())));
    assert!(matches!(IdTemplate::parse("x{").unwrap_err(), TemplateError::Unclosed { at: 1, .. }));
}

#[test]
fn normalize_rewrites_only_failing_ids_and_renames_results() {
    let good = "call_0123456789abcdefghijABCD";
    let chain = [
        user("q"),
        ai_calls("", &[("toolu_01UBumkyGa4vv7EbMVke2AiH", "read"), (good, "grep")]),
        tool(good, "grep", "r2"),
        tool("toolu_01UBumkyGa4vv7EbMVke2AiH", "read", "r1"),
        user("q2"),
        ai_calls("", &[("s", SUMMARIZATION_TOOL_NAME)]),
        tool("s", SUMMARIZATION_TOOL_NAME, "summary"),
    ];
    let mut ast = ChainAst::parse(&chain).unwrap();
    let t = openai();
    let renamed = ast.normalize_tool_call_ids(&t).unwrap();
    assert_eq!(renamed.len(), 2, "the anthropic id and the summarization id: {renamed:?}");
    assert!(renamed.iter().all(|r| t.validate(&r.new, "f").is_ok()));
    for pair in ast.sections().iter().flat_map(|s| s.body()) {
        assert!(pair.is_valid());
        for c in pair.ai().tool_calls() {
            assert!(t.validate(&c.id, &c.name).is_ok());
        }
    }
    assert!(ast.messages().iter().flat_map(|m| m.tool_calls()).any(|c| c.id == good));
    assert_sizes_consistent(&ast);
    ChainAst::parse(&ast.messages()).unwrap();
    // Normalizing again changes nothing; the same input normalizes the same way.
    assert!(ast.normalize_tool_call_ids(&t).unwrap().is_empty());
    let mut again = ChainAst::parse(&chain).unwrap();
    again.normalize_tool_call_ids(&t).unwrap();
    assert_eq!(again, ast);
}

#[test]
fn normalize_fails_cleanly_when_ids_cannot_be_unique() {
    let chain = [user("q"), ai_calls("", &[("a", "f"), ("b", "f")]), tool("a", "f", "1"), tool("b", "f", "2")];
    let mut ast = ChainAst::parse(&chain).unwrap();
    let t = IdTemplate::parse("fixed_{f}").unwrap();
    assert_eq!(ast.normalize_tool_call_ids(&t).unwrap_err().code(), "id_collision");
}

// ---- reasoning -------------------------------------------------------------------------------

#[test]
fn clear_reasoning_drops_thinking_and_signatures() {
    let mut thinking = ai_calls("text", &[("a", "f")]);
    thinking.parts.insert(0, reasoning("hmm", Some("sig")));
    if let Part::ToolCall(c) = &mut thinking.parts[2] {
        c.signature = Some("gemini-sig".into());
    }
    let chain = [user("q"), thinking, tool("a", "f", "r")];
    let mut ast = ChainAst::parse(&chain).unwrap();
    let before = ast.size();
    assert_eq!(ast.clear_reasoning(), 2);
    assert_eq!(ast.size(), before - 6 - 10);
    let m = &ast.messages()[1];
    assert!(m.parts.iter().all(|p| !matches!(p, Part::Reasoning(_))));
    assert!(m.tool_calls().all(|c| c.signature.is_none()));
    assert_eq!(m.joined_text(), "text");
    assert_sizes_consistent(&ast);
    assert_eq!(ast.clear_reasoning(), 0);
}

#[test]
fn reasoning_detection_and_extraction() {
    let plain = [user("q"), ai_calls("", &[("a", "f")])];
    assert!(!contains_tool_call_reasoning(&plain));
    assert_eq!(extract_reasoning_message(&plain), None);
    let mut signed = ai_calls("", &[("a", "f")]);
    if let Part::ToolCall(c) = &mut signed.parts[1] {
        c.signature = Some("s".into());
    }
    assert!(contains_tool_call_reasoning(&[signed]));
    // Text reasoning alone is not tool-call reasoning.
    let thinking =
        Message::new(Role::Assistant, vec![Part::text("x"), reasoning("r1", Some("s1")), reasoning("r2", None)]);
    assert!(!contains_tool_call_reasoning(std::slice::from_ref(&thinking)));
    let extracted = extract_reasoning_message(&[user("q"), ai("none"), thinking]).unwrap();
    assert_eq!(extracted.role, Role::Assistant);
    assert_eq!(extracted.parts, vec![reasoning("r1", Some("s1")), reasoning("r2", None)]);
}

// ---- argument sanitizing -------------------------------------------------------------------

#[test]
fn sanitize_arguments_text_cases() {
    assert_eq!(sanitize_arguments_text(r#"{"a": 1}"#), SanitizeOutcome::Valid);
    assert_eq!(
        sanitize_arguments_text("{\"cmd\": \"line1\nline2\ttab\u{1}\"}"),
        SanitizeOutcome::Escaped(r#"{"cmd": "line1\nline2\ttab\u0001"}"#.into())
    );
    // Control characters outside strings are whitespace or invalid: not touched by escaping.
    assert_eq!(sanitize_arguments_text("{\n\"a\": 1\n}"), SanitizeOutcome::Valid);
    assert_eq!(sanitize_arguments_text("{\"a\": "), SanitizeOutcome::Replaced);
    assert_eq!(sanitize_arguments_text(""), SanitizeOutcome::Replaced);
    // An escaped quote does not end the string.
    assert_eq!(
        sanitize_arguments_text("{\"a\": \"say \\\"hi\\\"\n\"}"),
        SanitizeOutcome::Escaped(r#"{"a": "say \"hi\"\n"}"#.into())
    );
}

#[test]
fn sanitize_arguments_updates_calls_and_sizes() {
    let chain = [
        user("q"),
        Message::new(
            Role::Assistant,
            vec![call("a", "f", "{\"x\": \"1\n2\"}"), call("b", "g", "{broken"), call("c", "h", "{}")],
        ),
        tool("a", "f", "r"),
        tool("b", "g", "r"),
        tool("c", "h", "r"),
    ];
    let mut ast = ChainAst::parse(&chain).unwrap();
    let changed = ast.sanitize_arguments();
    assert_eq!(changed.len(), 2);
    assert!(!changed[0].replaced && changed[1].replaced);
    let args: Vec<String> = ast.messages()[1].tool_calls().map(|c| c.arguments.clone()).collect();
    assert_eq!(args, vec![r#"{"x": "1\n2"}"#.to_string(), "{}".into(), "{}".into()]);
    assert_sizes_consistent(&ast);
    assert!(ast.sanitize_arguments().is_empty());
}

// ---- generators ------------------------------------------------------------------------------

#[test]
fn generated_chains_have_the_asked_shape() {
    let config = ChainConfig {
        include_system: true,
        sections: 3,
        pairs_per_section: vec![1, 2, 1],
        tools_for_pairs: vec![false, true, false, true],
        tool_calls_per_pair: vec![0, 2, 0, 3],
        include_all_tool_responses: true,
    };
    let chain = generate_chain(&config);
    let ast = ChainAst::parse(&chain).unwrap();
    assert_eq!(ast.sections().len(), 3);
    assert_eq!(ast.pair_count(), 4);
    assert_eq!(ast.sections()[1].body()[0].ai().tool_calls().count(), 2);
    assert_eq!(ast.sections()[2].body()[0].tools().len(), 3);
    assert_sizes_consistent(&ast);

    let default = generate_chain(&ChainConfig::default());
    assert_eq!(default.iter().map(|m| m.role).collect::<Vec<_>>(), vec![Role::System, Role::User, Role::Assistant]);
}

#[test]
fn complex_chain_misses_exactly_the_asked_results() {
    let complete = generate_complex_chain(5, 3, 0);
    let broken = generate_complex_chain(5, 3, 7);
    assert_eq!(complete.len() - broken.len(), 7);
    assert!(ChainAst::parse(&complete).is_ok());
    assert_eq!(ChainAst::parse(&broken).unwrap_err().code(), "missing_tool_result");
    let repaired = ChainAst::parse_repair(&broken).unwrap();
    assert_eq!(repaired.repairs.len(), 7);
    assert_eq!(repaired.ast.messages().len(), complete.len());
    // More missing than there are results: all results go, nothing panics.
    assert_eq!(generate_complex_chain(2, 1, 1000).iter().filter(|m| m.role == Role::Tool).count(), 0);
}
