#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! The provider-validity pass: one table case per rule and provider (input -> expected
//! messages and steps), diagnostics with codes and paths, no-op on valid chains,
//! idempotence, the thinking rule through `repair_compacted`, real transcripts, and a
//! property test over random message lists.

mod common;

use common::*;
use contextfold::ast::{ChainAst, PartRule};
use contextfold::format;
use contextfold::message::{FilePart, ImagePart, Message, Part, ReasoningPart, Role};
use contextfold::repair::{
    repair, repair_compacted, repair_owned, validate, OrphanResults, Provider, RepairOptions, RepairStep,
    DEFAULT_LEADING_USER_PLACEHOLDER, DEFAULT_PENDING_PLACEHOLDER,
};
use proptest::prelude::*;
use RepairStep::*;

const ALL: [Provider; 5] = Provider::ALL;

fn opts(provider: Provider) -> RepairOptions {
    RepairOptions::for_provider(provider)
}

fn msg(role: Role, parts: Vec<Part>) -> Message {
    Message::new(role, parts)
}

fn tool_named(id: &str, name: &str, content: &str) -> Message {
    Message::tool_result(id, name, content)
}

fn image_without_source() -> Part {
    Part::Image(ImagePart::default())
}

fn redacted(data: &str) -> Part {
    Part::Reasoning(ReasoningPart { redacted_data: Some(data.into()), ..ReasoningPart::default() })
}

/// Repairs, checks the expectation, and checks the universal properties on the way:
/// input untouched, output validates clean, repairing again changes nothing.
fn check(name: &str, input: &[Message], options: &RepairOptions, messages: &[Message], steps: &[RepairStep]) {
    let before = input.to_vec();
    let out = repair(input, options);
    assert_eq!(input, &before[..], "{name}: input mutated");
    assert_eq!(out.messages, messages, "{name}: messages");
    assert_eq!(out.steps, steps, "{name}: steps");
    assert_clean(name, &out.messages, options);
}

fn assert_clean(name: &str, messages: &[Message], options: &RepairOptions) {
    if options.merges_same_role() == options.provider.requires_alternation() {
        assert_eq!(validate(messages, options.provider), vec![], "{name}: output does not validate");
    }
    let again = repair(messages, options);
    assert_eq!(again.messages, messages, "{name}: not idempotent");
    assert_eq!(again.steps, vec![], "{name}: second repair made steps");
}

// ---------------------------------------------------------------- tool pairing

#[test]
fn orphan_result_is_removed_by_default() {
    let input = [user("q"), ai("done"), tool("x", "read", "r")];
    for p in ALL {
        check("orphan", &input, &opts(p), &input[..2], &[DroppedOrphanResult { index: 2, call_id: "x".into() }]);
    }
}

#[test]
fn orphan_result_answered_gets_a_call_on_the_assistant_before_it() {
    let input = [user("q"), ai_calls("", &[("a", "read")]), tool("a", "read", "1"), tool("x", "grep", "2")];
    let options = RepairOptions { orphan_results: OrphanResults::Answer, ..opts(Provider::Generic) };
    let mut answered = input[1].clone();
    answered.parts.push(call("x", "grep", "{}"));
    // The empty text part goes too (it is empty text in the first place).
    answered.parts.remove(0);
    check(
        "orphan answered",
        &input,
        &options,
        &[input[0].clone(), answered, input[2].clone(), input[3].clone()],
        &[
            RemovedEmptyText { index: 1, part: 0 },
            AnsweredOrphanResult { index: 3, assistant: 1, call_id: "x".into(), name: "grep".into() },
        ],
    );
    // An orphan right after a user message has no assistant to answer it: dropped anyway.
    let input = [user("q"), tool("x", "grep", "2"), ai("a")];
    check(
        "orphan after user",
        &input,
        &options,
        &[user("q"), ai("a")],
        &[DroppedOrphanResult { index: 1, call_id: "x".into() }],
    );
}

#[test]
fn pending_call_gets_a_placeholder_result_after_its_other_results() {
    let input = [user("q"), ai_calls("look", &[("a", "read"), ("b", "grep")]), tool("a", "read", "1"), user("next")];
    let expected = [
        input[0].clone(),
        input[1].clone(),
        input[2].clone(),
        tool_named("b", "grep", DEFAULT_PENDING_PLACEHOLDER),
        input[3].clone(),
    ];
    for p in ALL {
        check(
            "pending",
            &input,
            &opts(p),
            &expected,
            &[AnsweredPendingCall { index: 1, call_id: "b".into(), name: "grep".into() }],
        );
    }
    let custom = RepairOptions { pending_placeholder: "interrupted".into(), ..opts(Provider::OpenAi) };
    let with_next = [input[0].clone(), input[1].clone(), input[3].clone()];
    let out = repair(&with_next, &custom);
    assert_eq!(out.messages[2], tool_named("a", "read", "interrupted"));
    assert_eq!(out.messages[3], tool_named("b", "grep", "interrupted"));
    assert_eq!(DEFAULT_PENDING_PLACEHOLDER, "the call was not handled, please try again");
}

#[test]
fn late_result_is_moved_up_before_the_next_message() {
    let input = [user("q"), ai_calls("look", &[("a", "read")]), user("hurry"), tool("a", "read", "1"), ai("ok")];
    check(
        "moved",
        &input,
        &opts(Provider::Generic),
        &[input[0].clone(), input[1].clone(), input[3].clone(), input[2].clone(), input[4].clone()],
        &[MovedResult { index: 3, call_id: "a".into(), assistant: 1 }],
    );
}

#[test]
fn a_tool_message_split_between_two_calls_keeps_each_result_with_its_call() {
    let input = [
        user("q"),
        ai_calls("one", &[("a", "read"), ("b", "read")]),
        tool("a", "read", "1"),
        user("go on"),
        ai_calls("two", &[("c", "read")]),
        tool_multi(&[("c", "3"), ("b", "2")]),
    ];
    let expected = [
        input[0].clone(),
        input[1].clone(),
        input[2].clone(),
        tool_multi(&[("b", "2")]),
        input[3].clone(),
        input[4].clone(),
        tool_multi(&[("c", "3")]),
    ];
    check(
        "split",
        &input,
        &opts(Provider::OpenAi),
        &expected,
        &[MovedResult { index: 5, call_id: "b".into(), assistant: 1 }],
    );
}

#[test]
fn duplicate_result_keeps_the_first() {
    let input = [user("q"), ai_calls("x", &[("a", "read")]), tool("a", "read", "first"), tool("a", "read", "second")];
    for p in ALL {
        check(
            "duplicate result",
            &input,
            &opts(p),
            &input[..3],
            &[DroppedDuplicateResult { index: 3, call_id: "a".into() }],
        );
    }
}

#[test]
fn duplicate_call_ids_among_many_calls_are_dropped_too() {
    // Past a few dozen calls the ids kept are looked up in a set instead of compared one
    // by one: repeats before and after that point are dropped alike.
    let ids: Vec<String> = (0..40).map(|i| format!("c{i}")).collect();
    let mut calls: Vec<(&str, &str)> = ids.iter().map(|id| (id.as_str(), "read")).collect();
    calls.insert(10, ("c3", "read"));
    calls.push(("c35", "read"));
    calls.push(("c3", "read"));
    let mut input = vec![user("q"), ai_calls("x", &calls)];
    input.extend(ids.iter().map(|id| tool(id, "read", "ok")));
    let kept: Vec<(&str, &str)> = ids.iter().map(|id| (id.as_str(), "read")).collect();
    let mut expected = vec![user("q"), ai_calls("x", &kept)];
    expected.extend(input[2..].iter().cloned());
    check(
        "many calls",
        &input,
        &opts(Provider::Anthropic),
        &expected,
        &[
            DroppedDuplicateCall { index: 1, part: 11, call_id: "c3".into() },
            DroppedDuplicateCall { index: 1, part: 42, call_id: "c35".into() },
            DroppedDuplicateCall { index: 1, part: 43, call_id: "c3".into() },
        ],
    );
}

#[test]
fn duplicate_call_id_in_one_message_drops_the_later_call() {
    let input = [
        user("q"),
        ai_calls("x", &[("a", "read"), ("a", "grep")]),
        tool("a", "read", "first"),
        tool("a", "grep", "second"),
    ];
    check(
        "duplicate call",
        &input,
        &opts(Provider::Anthropic),
        &[input[0].clone(), ai_calls("x", &[("a", "read")]), input[2].clone()],
        &[
            DroppedDuplicateCall { index: 1, part: 2, call_id: "a".into() },
            DroppedDuplicateResult { index: 3, call_id: "a".into() },
        ],
    );
}

#[test]
fn ids_reused_across_turns_pair_positionally() {
    let input = [
        user("q"),
        ai_calls("x", &[("call_0", "read")]),
        tool("call_0", "read", "1"),
        ai_calls("y", &[("call_0", "read")]),
        tool("call_0", "read", "2"),
        ai("done"),
    ];
    for p in ALL {
        if p.unique_call_ids() {
            continue;
        }
        check("reused ids", &input, &opts(p), &input, &[]);
    }
    // Anthropic wants each id once (issue 14): the later call and its result are renamed.
    let expected = [
        user("q"),
        ai_calls("x", &[("call_0", "read")]),
        tool("call_0", "read", "1"),
        ai_calls("y", &[("call_0_2", "read")]),
        tool("call_0_2", "read", "2"),
        ai("done"),
    ];
    let steps = [RenamedReusedCallId { index: 3, part: 1, call_id: "call_0".into(), new_id: "call_0_2".into() }];
    check("reused ids, anthropic", &input, &opts(Provider::Anthropic), &expected, &steps);
}

#[test]
fn leading_tool_results_are_dropped() {
    let input = [sys("s"), tool("x", "read", "1"), tool("y", "read", "2"), user("q"), ai("a")];
    let expected = [sys("s"), user("q"), ai("a")];
    let steps = [
        DroppedLeadingResult { index: 1, call_id: "x".into() },
        DroppedLeadingResult { index: 2, call_id: "y".into() },
    ];
    for p in ALL {
        check("leading", &input, &opts(p), &expected, &steps);
        let answer = RepairOptions { orphan_results: OrphanResults::Answer, ..opts(p) };
        check("leading, answer", &input, &answer, &expected, &steps);
    }
    // A leading result whose call comes later is still dropped; the call then gets a
    // placeholder (it is not the last message: the turn is over).
    let input = [tool("a", "read", "1"), user("q"), ai_calls("x", &[("a", "read")]), user("next")];
    check(
        "leading before its call",
        &input,
        &opts(Provider::Generic),
        &[user("q"), input[2].clone(), tool_named("a", "read", DEFAULT_PENDING_PLACEHOLDER), input[3].clone()],
        &[
            DroppedLeadingResult { index: 0, call_id: "a".into() },
            AnsweredPendingCall { index: 2, call_id: "a".into(), name: "read".into() },
        ],
    );
}

/// The calls of a last assistant message are a turn in progress: kept open, and not
/// reported, by every provider's rules.
#[test]
fn a_turn_in_progress_keeps_its_calls_open() {
    let input = [user("q"), ai_calls("checking", &[("a", "read"), ("b", "approve")])];
    for p in ALL {
        check("in progress", &input, &opts(p), &input, &[]);
        assert_eq!(validate(&input, p), vec![], "{p:?}");
    }
    // Parallel calls answered one at a time: the turn is in flight until the last result.
    let partly = [input[0].clone(), input[1].clone(), tool("a", "read", "file a")];
    for p in ALL {
        check("answered in part", &partly, &opts(p), &partly, &[]);
        assert_eq!(validate(&partly, p), vec![], "{p:?}");
    }
    // Once anything follows, the same calls are pending and answered.
    let later = [input[0].clone(), input[1].clone(), user("well?")];
    assert_eq!(validate(&later, Provider::Generic).len(), 2);
    let later = [partly[0].clone(), partly[1].clone(), partly[2].clone(), user("well?")];
    assert_eq!(validate(&later, Provider::Generic).len(), 1);
}

// ---------------------------------------------------------------- roles

#[test]
fn consecutive_same_role_is_merged_only_where_alternation_is_required() {
    let input = [user("a"), user("b"), ai("c"), ai("d")];
    let merged = [
        msg(Role::User, vec![Part::text("a"), Part::text("b")]),
        msg(Role::Assistant, vec![Part::text("c"), Part::text("d")]),
    ];
    let steps = [
        MergedSameRole { index: 1, into: 0, role: Role::User },
        MergedSameRole { index: 3, into: 2, role: Role::Assistant },
    ];
    check("merge anthropic", &input, &opts(Provider::Anthropic), &merged, &steps);
    check("merge gemini", &input, &opts(Provider::Gemini), &merged, &steps);
    check("no merge openai", &input, &opts(Provider::OpenAi), &input, &[]);
    check("no merge generic", &input, &opts(Provider::Generic), &input, &[]);
    let forced = RepairOptions { merge_same_role: Some(true), ..opts(Provider::OpenAi) };
    check("forced merge openai", &input, &forced, &merged, &steps);
    let off = RepairOptions { merge_same_role: Some(false), ..opts(Provider::Anthropic) };
    assert_eq!(repair(&input, &off).steps, vec![]);
}

#[test]
fn merging_keeps_parts_in_order_byte_for_byte_and_fields() {
    let mut second = user(" spaced  text\n");
    second.extra.insert("cache_control".into(), serde_json::json!({"type": "ephemeral"}));
    let input = [user("first"), second.clone(), ai("ok")];
    let out = repair(&input, &opts(Provider::Anthropic));
    assert_eq!(out.messages[0].parts, vec![Part::text("first"), Part::text(" spaced  text\n")]);
    assert_eq!(out.messages[0].extra, second.extra);
}

#[test]
fn tool_results_followed_by_a_user_message_are_not_merged() {
    // Real Anthropic transcripts hold user text after tool results in one wire turn.
    let input = [user("q"), ai_calls("x", &[("a", "read")]), tool("a", "read", "1"), user("also"), ai("ok")];
    for p in ALL {
        check("tool then user", &input, &opts(p), &input, &[]);
    }
}

#[test]
fn system_after_the_start_becomes_a_user_message_in_place() {
    let input = [sys("s"), user("q"), ai("a"), sys("note"), user("next"), ai("b")];
    check(
        "late system generic",
        &input,
        &opts(Provider::Generic),
        &[sys("s"), user("q"), ai("a"), user("note"), user("next"), ai("b")],
        &[SystemToUser { index: 3 }],
    );
    check(
        "late system gemini",
        &input,
        &opts(Provider::Gemini),
        &[sys("s"), user("q"), ai("a"), msg(Role::User, vec![Part::text("note"), Part::text("next")]), ai("b")],
        &[SystemToUser { index: 3 }, MergedSameRole { index: 4, into: 3, role: Role::User }],
    );
    // OpenAI Chat, the Responses API and Anthropic take a system message there.
    for provider in [Provider::OpenAi, Provider::OpenAiResponses, Provider::Anthropic] {
        check("late system kept", &input, &opts(provider), &input, &[]);
    }
    // A system message between a call and its result: the result moves up before it.
    let input = [user("q"), ai_calls("x", &[("a", "read")]), sys("note"), tool("a", "read", "1")];
    check(
        "system inside a tool cycle",
        &input,
        &opts(Provider::OpenAi),
        &[input[0].clone(), input[1].clone(), input[3].clone(), input[2].clone()],
        &[MovedResult { index: 3, call_id: "a".into(), assistant: 1 }],
    );
}

#[test]
fn leading_system_run_is_merged_for_single_system_providers_only() {
    let input = [sys("one"), sys("two"), user("q"), ai("a")];
    let merged = [msg(Role::System, vec![Part::text("one"), Part::text("two")]), user("q"), ai("a")];
    for p in [Provider::Anthropic, Provider::Gemini] {
        check("systems merged", &input, &opts(p), &merged, &[MergedSystem { index: 1, into: 0 }]);
    }
    for p in [Provider::OpenAi, Provider::Generic] {
        check("systems kept", &input, &opts(p), &input, &[]);
    }
}

#[test]
fn assistant_first_gets_a_placeholder_user_for_anthropic_and_gemini() {
    let input = [sys("s"), ai("hello"), user("hi"), ai("yes")];
    for p in [Provider::Anthropic, Provider::Gemini] {
        check(
            "assistant first",
            &input,
            &opts(p),
            &[sys("s"), user(DEFAULT_LEADING_USER_PLACEHOLDER), ai("hello"), user("hi"), ai("yes")],
            &[AddedLeadingUser { index: 1 }],
        );
    }
    for p in [Provider::OpenAi, Provider::Generic] {
        check("assistant first kept", &input, &opts(p), &input, &[]);
    }
    let custom = RepairOptions { leading_user_placeholder: "  ".into(), ..opts(Provider::Anthropic) };
    assert_eq!(repair(&input, &custom).messages[1], user(DEFAULT_LEADING_USER_PLACEHOLDER));
    let custom = RepairOptions { leading_user_placeholder: "Go on.".into(), ..opts(Provider::Gemini) };
    assert_eq!(repair(&input, &custom).messages[1], user("Go on."));
}

// ---------------------------------------------------------------- empty content, parts

#[test]
fn empty_and_whitespace_text_is_removed() {
    let input = [user("q"), ai_parts(vec![Part::text(""), Part::text("ok")]), user("  \n"), ai("b")];
    check(
        "empty text generic",
        &input,
        &opts(Provider::Generic),
        &[user("q"), ai("ok"), ai("b")],
        &[
            RemovedEmptyText { index: 1, part: 0 },
            RemovedEmptyText { index: 2, part: 0 },
            RemovedEmptyMessage { index: 2 },
        ],
    );
    check(
        "empty text anthropic",
        &input,
        &opts(Provider::Anthropic),
        &[user("q"), msg(Role::Assistant, vec![Part::text("ok"), Part::text("b")])],
        &[
            RemovedEmptyText { index: 1, part: 0 },
            RemovedEmptyText { index: 2, part: 0 },
            RemovedEmptyMessage { index: 2 },
            MergedSameRole { index: 3, into: 1, role: Role::Assistant },
        ],
    );
}

#[test]
fn assistant_with_tool_calls_stays_when_its_text_goes() {
    let input = [user("q"), ai_calls("", &[("a", "read")]), tool("a", "read", "1")];
    check(
        "calls stay",
        &input,
        &opts(Provider::Anthropic),
        &[user("q"), ai_parts(vec![call("a", "read", "{}")]), input[2].clone()],
        &[RemovedEmptyText { index: 1, part: 0 }],
    );
}

#[test]
fn whitespace_text_beside_other_assistant_content_is_kept() {
    // As Claude streams it (real transcripts hold it).
    let input = [
        user("q"),
        ai_parts(vec![Part::text("\n\n"), reasoning("hmm", Some("sig")), call("a", "read", "{}")]),
        tool("a", "read", "1"),
    ];
    for p in ALL.into_iter().filter(|p| *p != Provider::Anthropic) {
        check("blank beside content", &input, &opts(p), &input, &[]);
    }
    // Anthropic rejects it beside thinking and tool use alone ("text content blocks must
    // contain non-whitespace text"), and takes it beside a text with something in it.
    let repaired =
        [user("q"), ai_parts(vec![reasoning("hmm", Some("sig")), call("a", "read", "{}")]), tool("a", "read", "1")];
    check(
        "blank beside tool use",
        &input,
        &opts(Provider::Anthropic),
        &repaired,
        &[RemovedEmptyText { index: 1, part: 0 }],
    );
    let beside_text = [user("q"), ai_parts(vec![Part::text(" "), Part::text("real")]), user("again")];
    check("blank beside text", &beside_text, &opts(Provider::Anthropic), &beside_text, &[]);
    // Alone it is empty content.
    let input = [user("q"), ai("\n\n"), user("again")];
    check(
        "blank alone",
        &input,
        &opts(Provider::OpenAi),
        &[user("q"), user("again")],
        &[RemovedEmptyText { index: 1, part: 0 }, RemovedEmptyMessage { index: 1 }],
    );
}

#[test]
fn parts_in_the_wrong_place_are_dropped() {
    let input = [
        msg(Role::User, vec![Part::text("q"), call("a", "read", "{}")]),
        msg(Role::Assistant, vec![Part::text("x"), image_without_source()]),
        msg(Role::Tool, vec![Part::text("stray")]),
    ];
    check(
        "invalid parts",
        &input,
        &opts(Provider::Generic),
        &[user("q"), ai("x")],
        &[
            DroppedInvalidPart { index: 0, part: 1, content: None, rule: PartRule::ToolCallOutsideAssistant },
            DroppedInvalidPart { index: 1, part: 1, content: None, rule: PartRule::MediaWithoutSource },
            DroppedInvalidPart { index: 2, part: 0, content: None, rule: PartRule::NonResultInToolMessage },
            RemovedEmptyMessage { index: 2 },
        ],
    );
    let mut bad_result = tool("a", "read", "ok");
    if let Part::ToolResult(r) = &mut bad_result.parts[0] {
        r.content.push(Part::File(FilePart::default()));
    }
    let input = [user("q"), ai_calls("x", &[("a", "read")]), bad_result];
    check(
        "invalid content",
        &input,
        &opts(Provider::Generic),
        &[input[0].clone(), input[1].clone(), tool("a", "read", "ok")],
        &[DroppedInvalidPart { index: 2, part: 0, content: Some(1), rule: PartRule::MediaWithoutSource }],
    );
}

#[test]
fn degenerate_inputs_are_total() {
    for p in ALL {
        let out = repair(&[], &opts(p));
        assert!(out.messages.is_empty() && out.steps.is_empty());
        let all_tool = [tool("a", "r", "1"), tool("b", "r", "2")];
        let out = repair(&all_tool, &opts(p));
        assert!(out.messages.is_empty(), "{p:?}");
        assert_eq!(out.steps.len(), 2);
        let empty = [msg(Role::User, vec![]), msg(Role::Tool, vec![])];
        let out = repair(&empty, &opts(p));
        assert!(out.messages.is_empty());
        assert_eq!(out.steps, vec![RemovedEmptyMessage { index: 0 }, RemovedEmptyMessage { index: 1 }]);
    }
    let all_system = [sys("a"), sys("b")];
    check(
        "all system",
        &all_system,
        &opts(Provider::Gemini),
        &[msg(Role::System, vec![Part::text("a"), Part::text("b")])],
        &[MergedSystem { index: 1, into: 0 }],
    );
    check("all system openai", &all_system, &opts(Provider::OpenAi), &all_system, &[]);
}

// ---------------------------------------------------------------- validate

fn codes(messages: &[Message], p: Provider) -> Vec<(&'static str, String)> {
    validate(messages, p).into_iter().map(|d| (d.code, d.path)).collect()
}

fn owned(expected: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    expected.iter().map(|(c, p)| (*c, p.to_string())).collect()
}

/// (name, chain, provider, expected (code, path) list)
type ValidateCase = (&'static str, Vec<Message>, Provider, Vec<(&'static str, &'static str)>);

#[test]
fn validate_reports_each_rule_with_code_and_path() {
    use Provider::*;
    let cases: Vec<ValidateCase> = vec![
        ("orphan", vec![user("q"), ai("a"), tool("x", "r", "1")], Generic, vec![("orphan_result", "[2].parts[0]")]),
        (
            "unanswered",
            vec![user("q"), ai_calls("t", &[("a", "r"), ("b", "r")]), tool("a", "r", "1"), user("u")],
            OpenAi,
            vec![("unanswered_call", "[1].parts[2]")],
        ),
        (
            // The last turn, answered so far: `b`'s result comes next.
            "in flight",
            vec![user("q"), ai_calls("t", &[("a", "r"), ("b", "r")]), tool("a", "r", "1")],
            OpenAi,
            vec![],
        ),
        (
            "not after call",
            vec![user("q"), ai_calls("t", &[("a", "r")]), user("u"), tool("a", "r", "1")],
            OpenAi,
            vec![("result_not_after_call", "[3].parts[0]")],
        ),
        (
            "duplicate result",
            vec![user("q"), ai_calls("t", &[("a", "r")]), tool_multi(&[("a", "1"), ("a", "2")])],
            Anthropic,
            vec![("duplicate_result", "[2].parts[1]")],
        ),
        (
            "duplicate call id",
            vec![user("q"), ai_calls("t", &[("a", "r"), ("a", "r")]), tool("a", "r", "1")],
            Generic,
            vec![("duplicate_call_id", "[1].parts[2]")],
        ),
        ("consecutive", vec![user("a"), user("b"), ai("c")], Anthropic, vec![("consecutive_same_role", "[1]")]),
        ("consecutive ok for openai", vec![user("a"), user("b"), ai("c")], OpenAi, vec![]),
        (
            "empty text",
            vec![user("q"), ai_parts(vec![Part::text(" "), Part::text("")])],
            Gemini,
            vec![("empty_text", "[1].parts[0]"), ("empty_text", "[1].parts[1]")],
        ),
        ("empty message", vec![user("q"), msg(Role::Assistant, vec![])], Generic, vec![("empty_message", "[1]")]),
        ("system not first", vec![user("q"), sys("s"), ai("a")], Gemini, vec![("system_not_first", "[1]")]),
        ("system not first ok for openai", vec![user("q"), sys("s"), ai("a")], OpenAi, vec![]),
        ("multiple system", vec![sys("a"), sys("b"), user("q")], Gemini, vec![("multiple_system", "[1]")]),
        ("multiple system ok for openai", vec![sys("a"), sys("b"), user("q")], OpenAi, vec![]),
        (
            "starts with result",
            vec![sys("s"), tool("x", "r", "1"), user("q")],
            OpenAi,
            vec![("starts_with_tool_result", "[1]"), ("orphan_result", "[1].parts[0]")],
        ),
        ("first not user", vec![sys("s"), ai("a")], Anthropic, vec![("first_not_user", "[1]")]),
        ("first not user ok for openai", vec![sys("s"), ai("a")], OpenAi, vec![]),
        (
            "invalid part",
            vec![msg(Role::User, vec![Part::text("q"), image_without_source()]), ai("a")],
            Generic,
            vec![("invalid_part", "[0].parts[1]")],
        ),
    ];
    for (name, messages, provider, expected) in cases {
        assert_eq!(codes(&messages, provider), owned(&expected), "{name}");
        let out = repair(&messages, &opts(provider));
        assert_eq!(validate(&out.messages, provider), vec![], "{name}: repaired output");
        assert_eq!(out.steps.is_empty(), expected.is_empty(), "{name}: steps iff diagnostics");
    }
}

#[test]
fn diagnostics_and_steps_serialize_with_stable_names() {
    let d = &validate(&[user("q"), ai("a"), tool("x", "r", "1")], Provider::Generic)[0];
    assert_eq!(
        serde_json::to_value(d).unwrap(),
        serde_json::json!({"code": "orphan_result", "index": 2, "path": "[2].parts[0]",
            "message": "result for x answers no earlier call"})
    );
    let step = MovedResult { index: 3, call_id: "a".into(), assistant: 1 };
    assert_eq!(
        serde_json::to_value(&step).unwrap(),
        serde_json::json!({"step": "movedResult", "index": 3, "callId": "a", "assistant": 1})
    );
    // The names JS callers give and get (`providerOf`, `provider`).
    for provider in Provider::ALL {
        let name = serde_json::to_value(provider).unwrap();
        assert_eq!(name, serde_json::json!(provider.as_str()));
        assert_eq!(Provider::from_name(provider.as_str()), Some(provider));
    }
    assert_eq!(serde_json::to_value(Provider::OpenAi).unwrap(), serde_json::json!("openai"));
    assert_eq!(Provider::from_name("OpenAI"), Some(Provider::OpenAi));
}

// ---------------------------------------------------------------- valid chains

fn valid_chains() -> Vec<Vec<Message>> {
    vec![
        vec![],
        vec![sys("s")],
        vec![sys("s"), user("q"), ai("a")],
        vec![
            sys("s"),
            user("q"),
            ai_parts(vec![reasoning("think", Some("sig")), call("a", "read", "{}"), call("b", "grep", "{}")]),
            tool("a", "read", "1"),
            tool("b", "grep", "2"),
            ai("done"),
            user("more"),
            ai_parts(vec![redacted("opaque"), Part::text("ok")]),
        ],
    ]
}

#[test]
fn valid_chains_come_back_unchanged() {
    for chain in valid_chains() {
        for p in ALL {
            let out = repair(&chain, &opts(p));
            assert_eq!(out.messages, chain, "{p:?}");
            assert!(out.is_unchanged(), "{p:?}: {:?}", out.steps);
            assert_eq!(validate(&chain, p), vec![]);
        }
    }
}

// ---------------------------------------------------------------- thinking rule

/// A chain with thinking in three turns; the last user turn is the current tool cycle.
fn thinking_chain() -> Vec<Message> {
    vec![
        sys("s"),
        user("task one"),
        ai_parts(vec![reasoning("plan one", Some("sig-1")), call("a", "read", "{}")]),
        tool("a", "read", "1"),
        // Thinking and a word (Anthropic rejects an assistant message ending with thinking).
        ai_parts(vec![reasoning("only thinking", Some("sig-2")), Part::text("noted")]),
        user("task two"),
        ai_parts(vec![redacted("redacted-3"), call("b", "read", "{}")]),
        tool("b", "read", "2"),
        ai("two done"),
        user("task three"),
        ai_parts(vec![reasoning("plan four", Some("sig-4 +/=")), call("c", "read", "{}")]),
        tool("c", "read", "3"),
        ai_parts(vec![reasoning("plan five", Some("sig-5")), Part::text("answer")]),
    ]
}

#[test]
fn rewritten_history_drops_older_thinking_and_keeps_the_current_cycle() {
    let original = thinking_chain();
    // A strategy rewrote the first turn (index 1 on): thinking at 4 and 6 now has another
    // history.
    let mut compacted = original.clone();
    compacted[1] = user("summary of task one");
    let out = repair_compacted(&original, compacted.clone(), &opts(Provider::Anthropic));
    assert_eq!(
        out.steps,
        vec![
            DroppedThinking { index: 2, part: 0 },
            DroppedThinking { index: 4, part: 0 },
            DroppedThinking { index: 6, part: 0 },
        ]
    );
    let mut expected = compacted.clone();
    expected[2] = ai_parts(vec![call("a", "read", "{}")]);
    expected[6] = ai_parts(vec![call("b", "read", "{}")]);
    expected[4] = ai_parts(vec![Part::text("noted")]);
    assert_eq!(out.messages, expected);
    // The current tool cycle keeps its reasoning, signatures byte-for-byte.
    let last = &out.messages[out.messages.len() - 3..];
    assert_eq!(last, &original[original.len() - 3..]);
    match &last[0].parts[0] {
        Part::Reasoning(r) => assert_eq!(r.signature.as_deref(), Some("sig-4 +/=")),
        other => panic!("{other:?}"),
    }
    assert_eq!(validate(&out.messages, Provider::Anthropic), vec![]);
    // Generic applies the same rule; the input is untouched.
    assert_eq!(repair_compacted(&original, compacted.clone(), &opts(Provider::Generic)).messages, expected);
    assert_eq!(compacted[2], original[2]);
}

#[test]
fn unchanged_history_keeps_all_thinking() {
    let original = thinking_chain();
    for p in ALL {
        // Same chain; an appended turn; a cut end; a change after the last older thinking.
        let appended = [original.clone(), vec![user("four")]].concat();
        let mut late_change = original.clone();
        late_change[8] = ai("two done, rewritten");
        for compacted in [original.clone(), appended, original[..9].to_vec(), late_change] {
            let out = repair_compacted(&original, compacted.clone(), &opts(p));
            assert_eq!(out.messages, compacted, "{p:?}");
            assert!(out.steps.is_empty(), "{p:?}: {:?}", out.steps);
        }
    }
}

#[test]
fn thinking_rule_is_anthropic_and_generic_only_and_standalone_needs_the_option() {
    let original = thinking_chain();
    let mut compacted = original.clone();
    compacted[1] = user("summary");
    for p in [Provider::OpenAi, Provider::Gemini] {
        let out = repair_compacted(&original, compacted.clone(), &opts(p));
        assert_eq!(out.messages, compacted, "{p:?}");
    }
    assert!(repair(&compacted, &opts(Provider::Anthropic)).steps.is_empty());
    let told = RepairOptions { history_changed_from: Some(7), ..opts(Provider::Anthropic) };
    // Only thinking at or after 7 counts as rewritten: none before the cycle there...
    assert!(repair(&compacted, &told).steps.is_empty());
    // ...but from 6 on the redacted block at 6 is stale, and all older thinking goes.
    let told = RepairOptions { history_changed_from: Some(6), ..opts(Provider::Anthropic) };
    let steps = repair(&compacted, &told).steps;
    assert!(steps.contains(&DroppedThinking { index: 6, part: 0 }));
    assert!(steps.contains(&DroppedThinking { index: 2, part: 0 }));
}

// ---------------------------------------------------------------- real transcripts

fn provider_of(file: &std::path::Path) -> Option<Provider> {
    let name = file.file_name()?.to_str()?;
    if name.ends_with(".openai.json") {
        Some(Provider::OpenAi)
    } else if name.ends_with(".anthropic.json") {
        Some(Provider::Anthropic)
    } else {
        None
    }
}

#[test]
fn real_transcripts_validate_clean_and_repair_is_a_no_op() {
    let Some(files) = real_fixtures() else {
        return;
    };
    let mut checked = 0;
    for file in files {
        let Some(provider) = provider_of(&file) else { continue };
        let text = std::fs::read_to_string(&file).unwrap();
        let (messages, _) = format::read_auto(&format::parse_json(&text).unwrap()).unwrap();
        let name = file.display();
        // Claude Code keeps the `"\n\n"` blocks Claude streams beside tool use; Anthropic
        // rejects them sent back, so those, and only those, are flagged and removed.
        let blank = |index: usize, part: usize| {
            let text = messages.get(index).and_then(|m| m.parts.get(part));
            matches!(text, Some(Part::Text(t)) if t.text.trim().is_empty())
        };
        for d in validate(&messages, provider) {
            assert!(provider == Provider::Anthropic && d.code == "empty_text", "{name}: {d:?}");
        }
        let out = repair(&messages, &opts(provider));
        for step in &out.steps {
            match step {
                RemovedEmptyText { index, part } if provider == Provider::Anthropic => {
                    assert!(blank(*index, *part), "{name}: {step:?}")
                }
                other => panic!("{name}: {other:?}"),
            }
        }
        if out.steps.is_empty() {
            assert_eq!(out.messages, messages, "{name}");
        }
        checked += 1;
    }
    assert!(checked > 0);
}

// ---------------------------------------------------------------- properties

fn text_strategy() -> impl Strategy<Value = String> {
    prop_oneof![Just(String::new()), Just(" \n".to_string()), "[a-z]{1,6}"]
}

fn id_strategy() -> impl Strategy<Value = String> {
    prop_oneof![Just("a"), Just("b"), Just("c"), Just("d")].prop_map(str::to_string)
}

fn text_part() -> impl Strategy<Value = Part> {
    text_strategy().prop_map(Part::text)
}

fn call_part() -> impl Strategy<Value = Part> {
    (id_strategy(), "[a-z]{1,3}").prop_map(|(id, name)| call(&id, &name, "{}"))
}

fn message_strategy() -> impl Strategy<Value = Message> {
    let think =
        (any::<bool>(), "[a-z]{0,4}").prop_map(|(red, s)| if red { redacted(&s) } else { reasoning("t", Some(&s)) });
    let assistant_part = prop_oneof![3 => text_part(), 1 => think, 3 => call_part()];
    let result = (id_strategy(), text_strategy()).prop_map(|(id, content)| tool(&id, "n", &content).parts.remove(0));
    prop_oneof![
        2 => text_strategy().prop_map(|t| sys(&t)),
        4 => proptest::collection::vec(prop_oneof![6 => text_part(), 1 => call_part()], 0..3)
            .prop_map(|parts| msg(Role::User, parts)),
        5 => proptest::collection::vec(assistant_part, 0..4).prop_map(ai_parts),
        4 => proptest::collection::vec(prop_oneof![8 => result, 1 => text_part()], 0..3)
            .prop_map(|parts| msg(Role::Tool, parts)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn repair_is_total_valid_idempotent_and_pure(
        messages in proptest::collection::vec(message_strategy(), 0..12),
        answer in any::<bool>(),
    ) {
        let before = messages.clone();
        for p in ALL {
            let options = RepairOptions {
                orphan_results: if answer { OrphanResults::Answer } else { OrphanResults::Remove },
                ..opts(p)
            };
            let out = repair(&messages, &options);
            prop_assert_eq!(&messages, &before);
            // Taking the chain over repairs it the same (messages moved, not copied).
            prop_assert_eq!(&repair_owned(messages.clone(), &options), &out);
            prop_assert_eq!(validate(&out.messages, p), vec![], "{:?}", p);
            let again = repair(&out.messages, &options);
            prop_assert_eq!(&again.messages, &out.messages);
            prop_assert_eq!(again.steps, vec![]);
            let starts_user = out.messages.iter().find(|m| m.role != Role::System).is_none_or(|m| m.role == Role::User);
            let no_user_pairs = !out.messages.windows(2).any(|w| w[0].role == Role::User && w[1].role == Role::User);
            // A turn in progress (the last assistant message and its results so far)
            // stays open, which the strict parser (SEMANTICS §1) does not accept: the
            // rest parses.
            let settled = match out.messages.iter().rposition(|m| m.role != Role::Tool) {
                Some(a) if out.messages[a].role == Role::Assistant && out.messages[a].has_tool_calls() => {
                    &out.messages[..a]
                }
                _ => &out.messages[..],
            };
            if starts_user && no_user_pairs {
                prop_assert!(ChainAst::parse(settled).is_ok(), "{:?}: {:?}", p, ChainAst::parse(settled));
            }
            if p.requires_alternation() {
                prop_assert!(starts_user && no_user_pairs);
            }
            // The thinking rule keeps the result valid too.
            let changed = RepairOptions { history_changed_from: Some(0), ..options.clone() };
            let out = repair(&messages, &changed);
            prop_assert_eq!(validate(&out.messages, p), vec![]);
        }
    }
}

#[test]
fn unsigned_thinking_is_flagged_in_any_message_where_the_repair_drops_it() {
    // Found by the parse fuzzer: a system or user message holding an unsigned reasoning
    // part passed validation for Anthropic, and the repair then dropped it.
    for role in [Role::System, Role::User] {
        let input = [
            Message::new(role, vec![reasoning("", None), Part::text("q")]),
            user("go"),
            Message::text(Role::Assistant, "a"),
        ];
        let flagged = validate(&input, Provider::Anthropic);
        assert!(
            flagged.iter().any(|d| d.code == "unsigned_thinking" && d.path == "[0].parts[0]"),
            "{role:?}: {flagged:?}"
        );
        for provider in ALL {
            let fixed = repair(&input, &opts(provider));
            if validate(&input, provider).is_empty() {
                assert!(fixed.is_unchanged(), "{provider:?}: valid, yet repaired: {:?}", fixed.steps);
            }
            assert_eq!(validate(&fixed.messages, provider), vec![], "{provider:?}");
        }
    }
}

#[test]
fn anthropic_turns_hold_their_tool_results_first() {
    // A user turn with its text before the result, as some clients write it: Anthropic
    // rejects it ("Did not find 1 `tool_result` block(s) at the beginning").
    let wire = serde_json::json!([
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "w", "input": {}}]},
        {"role": "user", "content": [
            {"type": "text", "text": "Here:"},
            {"type": "tool_result", "tool_use_id": "t1", "content": "15C"},
            {"type": "text", "text": "thanks"}
        ]}
    ]);
    let messages = format::read(&wire, format::Format::Anthropic).unwrap();
    let codes: Vec<&str> = validate(&messages, Provider::Anthropic).iter().map(|d| d.code).collect();
    assert_eq!(codes, ["results_not_first"]);
    // Only Anthropic has the rule.
    assert_eq!(validate(&messages, Provider::Generic), vec![]);
    let out = repair(&messages, &opts(Provider::Anthropic));
    assert_eq!(out.steps, vec![MovedResultsFirst { index: 3 }]);
    assert_clean("results first", &out.messages, &opts(Provider::Anthropic));
    let written = format::write(&out.messages, format::Format::Anthropic).unwrap();
    let blocks: Vec<&str> =
        written[2]["content"].as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(blocks, ["tool_result", "text", "text"]);
    assert_eq!(written[2]["content"][1]["text"], "Here:");
}

#[test]
fn open_responses_client_calls_are_answered_by_their_own_output_items() {
    let input = |call: serde_json::Value| {
        serde_json::json!([
            {"role": "user", "content": "do it"},
            call,
            {"role": "user", "content": "never mind"},
        ])
    };
    let answer = |call: serde_json::Value| {
        let messages = format::read(&input(call), format::Format::OpenAiResponses).unwrap();
        let out = repair(&messages, &opts(Provider::OpenAiResponses));
        assert_clean("client call", &out.messages, &opts(Provider::OpenAiResponses));
        (out.steps, format::write(&out.messages, format::Format::OpenAiResponses).unwrap())
    };
    let shell = serde_json::json!({"type": "shell_call", "id": "sh_1", "call_id": "c_sh", "status": "completed", "action": {"commands": ["ls"]}});
    let (_, written) = answer(shell);
    assert_eq!(written[2]["type"], "shell_call_output");
    assert_eq!(written[2]["call_id"], "c_sh");
    assert_eq!(written[2]["output"][0]["outcome"]["type"], "exit");
    let patch = serde_json::json!({"type": "apply_patch_call", "id": "ap_1", "call_id": "c_ap", "status": "completed", "operation": {"type": "create_file", "path": "a", "diff": "+a"}});
    let (_, written) = answer(patch);
    assert_eq!(
        (written[2]["type"].as_str(), written[2]["status"].as_str()),
        (Some("apply_patch_call_output"), Some("failed"))
    );
    // A screenshot cannot be made up: the open computer call goes.
    let computer = serde_json::json!({"type": "computer_call", "id": "cu_1", "call_id": "c_cu", "status": "completed", "action": {"type": "screenshot"}, "pending_safety_checks": []});
    let (steps, written) = answer(computer);
    assert_eq!(
        steps,
        vec![DroppedUnansweredCall { index: 1, part: 0, call_id: "c_cu".into(), name: "computer".into() }]
    );
    assert_eq!(written.as_array().unwrap().len(), 2, "{written}");
}

#[test]
fn a_result_stored_before_its_call_is_moved_after_it() {
    // Items written out of order (a session saved concurrently): the real output answers
    // the call, rather than being dropped while the call gets a placeholder.
    let input =
        [user("weather?"), tool("c1", "weather", "15C"), ai_parts(vec![call("c1", "weather", "{}")]), user("thanks")];
    for p in ALL {
        check(
            "early result",
            &input,
            &opts(p),
            &[
                user("weather?"),
                ai_parts(vec![call("c1", "weather", "{}")]),
                tool("c1", "weather", "15C"),
                user("thanks"),
            ],
            &[MovedResult { index: 1, call_id: "c1".into(), assistant: 2 }],
        );
    }
    // A call answered after it keeps its own result: the early one is the orphan.
    let answered = [
        user("weather?"),
        tool("c1", "weather", "stale"),
        ai_parts(vec![call("c1", "weather", "{}")]),
        tool("c1", "weather", "15C"),
    ];
    let out = repair(&answered, &opts(Provider::OpenAi));
    assert_eq!(out.messages, vec![user("weather?"), answered[2].clone(), answered[3].clone()]);
}

/// An Anthropic chain that stores the results and the user's next words as two user
/// messages keeps them so (the Messages API joins consecutive user turns, results first);
/// written from another format, they are one message.
#[test]
fn a_user_message_after_anthropic_results_stays_its_own_and_joins_when_converted() {
    let wire = serde_json::json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
        {"role": "user", "content": "next question"}
    ]);
    let messages = format::read(&wire, format::Format::Anthropic).unwrap();
    assert_eq!(validate(&messages, Provider::Anthropic), vec![]);
    let out = repair(&messages, &opts(Provider::Anthropic));
    assert_eq!(out.steps, vec![]);
    assert_eq!(format::write(&out.messages, format::Format::Anthropic).unwrap(), wire);
    let openai = format::write(&messages, format::Format::OpenAi).unwrap();
    let back = format::read(&openai, format::Format::OpenAi).unwrap();
    let joined = format::write(&back, format::Format::Anthropic).unwrap();
    assert_eq!(joined.as_array().unwrap().len(), 3, "{joined}");
    assert_eq!(joined[2]["content"][1], serde_json::json!({"type": "text", "text": "next question"}));
}
