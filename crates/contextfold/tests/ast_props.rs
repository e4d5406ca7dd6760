//! Property tests of the chain AST: identity on valid chains, repair output that parses
//! strictly, sizes that match a from-scratch recomputation after any sequence of edits.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use common::*;
use contextfold::ast::{BodyPair, ChainAst, Header, IdTemplate, Section};
use contextfold::message::{Message, Part, Role};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum PairSpec {
    Completion(String),
    Calls { n: usize, thinking: bool, signed: bool, split: bool, reversed: bool, content: String, args: String },
}

#[derive(Debug, Clone)]
struct ChainSpec {
    systems: Vec<String>,
    first_without_human: bool,
    sections: Vec<(String, Vec<PairSpec>)>,
}

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 éж中😀\n\"{}<>/]{0,24}"
}

fn pair_spec() -> impl Strategy<Value = PairSpec> {
    prop_oneof![
        text().prop_map(PairSpec::Completion),
        (1usize..4, any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), text(), "[ -~\n]{0,16}").prop_map(
            |(n, thinking, signed, split, reversed, content, args)| {
                PairSpec::Calls { n, thinking, signed, split, reversed, content, args }
            }
        ),
    ]
}

fn chain_spec() -> impl Strategy<Value = ChainSpec> {
    (
        prop::collection::vec(text(), 0..3),
        any::<bool>(),
        prop::collection::vec((text(), prop::collection::vec(pair_spec(), 0..4)), 1..6),
    )
        .prop_map(|(systems, first_without_human, sections)| ChainSpec { systems, first_without_human, sections })
}

/// Builds a valid chain from a spec: ids unique, every call answered, no two user
/// messages without a reply between them.
fn build(spec: &ChainSpec) -> Vec<Message> {
    let mut out: Vec<Message> = spec.systems.iter().map(|s| sys(s)).collect();
    let last = spec.sections.len() - 1;
    for (si, (human, pairs)) in spec.sections.iter().enumerate() {
        // A chain may open with system + replies and no user message, but a later user
        // message would then break the section rules: such a chain has one section.
        let skip_human = si == 0 && spec.first_without_human && !spec.systems.is_empty();
        if si > 0 && spec.first_without_human && !spec.systems.is_empty() {
            break;
        }
        if !skip_human {
            out.push(user(human));
        }
        let mut pairs = pairs.clone();
        if pairs.is_empty() && (si != last || skip_human) {
            pairs.push(PairSpec::Completion(format!("reply {si}")));
        }
        for (pi, p) in pairs.iter().enumerate() {
            match p {
                PairSpec::Completion(t) => out.push(ai(t)),
                PairSpec::Calls { n, thinking, signed, split, reversed, content, args } => {
                    let ids: Vec<String> = (0..*n).map(|k| format!("c{si}_{pi}_{k}")).collect();
                    let mut parts = Vec::new();
                    if *thinking {
                        parts.push(reasoning(content, Some("sig")));
                    }
                    for id in &ids {
                        let mut c = call(id, "tool", args);
                        if let (true, Part::ToolCall(tc)) = (*signed, &mut c) {
                            tc.signature = Some("ts".into());
                        }
                        parts.push(c);
                    }
                    out.push(Message::new(Role::Assistant, parts));
                    let mut order = ids.clone();
                    if *reversed {
                        order.reverse();
                    }
                    if *split {
                        out.extend(order.iter().map(|id| tool(id, "tool", content)));
                    } else {
                        let parts = order.iter().flat_map(|id| tool(id, "tool", content).parts).collect();
                        out.push(Message::new(Role::Tool, parts));
                    }
                }
            }
        }
    }
    out
}

/// Arbitrary (mostly invalid) message sequences over a small id pool.
fn arbitrary_chain() -> impl Strategy<Value = Vec<Message>> {
    let id = prop::sample::select(vec!["a", "b", "c", "d"]);
    // System messages are rare: one after the start is an error repair cannot fix.
    let message = prop_oneof![
        1 => text().prop_map(|t| sys(&t)),
        3 => text().prop_map(|t| user(&t)),
        3 => text().prop_map(|t| ai(&t)),
        4 => prop::sample::subsequence(vec!["a", "b", "c", "d"], 1..4).prop_map(|ids| {
            Message::new(Role::Assistant, ids.iter().map(|i| call(i, "f", "{}")).collect())
        }),
        5 => prop::collection::vec(id, 1..3).prop_map(|ids| {
            Message::new(Role::Tool, ids.iter().flat_map(|i| tool(i, "f", "r").parts).collect())
        }),
    ];
    // Mostly opened by a user message, so that most cases get past the start rules.
    (any::<bool>(), prop::collection::vec(message, 0..16)).prop_map(|(open, mut rest)| {
        if open {
            rest.insert(0, user("start"));
        }
        rest
    })
}

#[derive(Debug, Clone)]
enum Edit {
    AppendHuman(String),
    Respond(usize, String),
    Summarize(usize, usize, String),
    PushCompletion(usize, String),
    SetHuman(usize, String),
    ClearReasoning,
    Normalize(bool),
    Sanitize,
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        text().prop_map(Edit::AppendHuman),
        (any::<usize>(), text()).prop_map(|(i, t)| Edit::Respond(i, t)),
        (any::<usize>(), any::<usize>(), text()).prop_map(|(s, p, t)| Edit::Summarize(s, p, t)),
        (any::<usize>(), text()).prop_map(|(s, t)| Edit::PushCompletion(s, t)),
        (any::<usize>(), text()).prop_map(|(s, t)| Edit::SetHuman(s, t)),
        Just(Edit::ClearReasoning),
        any::<bool>().prop_map(Edit::Normalize),
        Just(Edit::Sanitize),
    ]
}

fn apply(ast: &mut ChainAst, e: &Edit) {
    let n = ast.sections().len().max(1);
    match e {
        Edit::AppendHuman(t) => ast.append_human_message(t),
        Edit::Respond(i, t) => {
            let ids: Vec<String> =
                ast.messages().iter().flat_map(|m| m.tool_calls().map(|c| c.id.clone()).collect::<Vec<_>>()).collect();
            if ids.is_empty() {
                assert!(ast.add_tool_response("missing", "f", t).is_err());
            } else {
                ast.add_tool_response(&ids[i % ids.len()], "tool", t).unwrap();
            }
        }
        Edit::Summarize(s, p, t) => {
            let template = IdTemplate::parse("call_{r:24:x}").unwrap();
            if let Some(section) = ast.sections_mut().get_mut(s % n) {
                let len = section.body().len().max(1);
                section.replace_pair(p % len, BodyPair::summarization(t, &[], &template, true, None));
            }
        }
        Edit::PushCompletion(s, t) => {
            if let Some(section) = ast.sections_mut().get_mut(s % n) {
                section.push_pair(BodyPair::completion(t.clone()));
            }
        }
        Edit::SetHuman(s, t) => {
            if let Some(section) = ast.sections_mut().get_mut(s % n) {
                let header =
                    Header::new(section.header().system().iter().map(|m| m.as_ref().clone()).collect(), Some(user(t)))
                        .unwrap();
                section.set_header(header);
            }
        }
        Edit::ClearReasoning => {
            ast.clear_reasoning();
        }
        Edit::Normalize(anthropic) => {
            let t = if *anthropic { "toolu_{r:24:b}" } else { "call_{r:24:x}" };
            ast.normalize_tool_call_ids(&IdTemplate::parse(t).unwrap()).unwrap();
        }
        Edit::Sanitize => {
            ast.sanitize_arguments();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn valid_chains_round_trip(spec in chain_spec()) {
        let chain = build(&spec);
        let strict = ChainAst::parse(&chain).unwrap();
        prop_assert_eq!(&strict.messages(), &chain);
        let repaired = ChainAst::parse_repair(&chain).unwrap();
        prop_assert!(repaired.repairs.is_empty());
        prop_assert_eq!(repaired.ast.messages(), chain.clone());
        prop_assert_eq!(&strict.clone().into_messages(), &chain);
        assert_sizes_consistent(&strict);
        for pair in strict.sections().iter().flat_map(Section::body) {
            prop_assert!(pair.is_valid());
        }
    }

    #[test]
    fn repair_output_parses_strictly(chain in arbitrary_chain()) {
        let input = chain.clone();
        match ChainAst::parse_repair(&chain) {
            Ok(parsed) => {
                let out = parsed.ast.messages();
                prop_assert_eq!(parsed.repairs.is_empty(), out == chain, "repairs listed iff output differs");
                let strict = ChainAst::parse(&out);
                prop_assert!(strict.is_ok(), "strict parse of repaired output: {:?}", strict.err());
                assert_sizes_consistent(&parsed.ast);
            }
            Err(e) => {
                // Only what repair cannot fix is an error in repair mode.
                prop_assert!(
                    ["invalid_start", "system_after_start", "duplicate_tool_call_id", "invalid_part"].contains(&e.code()),
                    "unexpected repair error {e:?}"
                );
                prop_assert!(e.index().is_some_and(|i| i < chain.len()));
            }
        }
        prop_assert_eq!(chain, input, "input never mutated");
    }

    #[test]
    fn sizes_stay_right_after_any_edits(spec in chain_spec(), edits in prop::collection::vec(edit(), 1..12)) {
        let chain = build(&spec);
        let mut ast = ChainAst::parse(&chain).unwrap();
        for e in &edits {
            apply(&mut ast, e);
            assert_sizes_consistent(&ast);
        }
    }
}

/// The arbitrary-chain property is only worth something if most cases reach repair.
#[test]
fn arbitrary_chains_mostly_exercise_repairs() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut repaired, mut total) = (0, 0);
    for _ in 0..500 {
        let chain = arbitrary_chain().new_tree(&mut runner).unwrap().current();
        total += 1;
        if ChainAst::parse_repair(&chain).is_ok_and(|p| !p.repairs.is_empty()) {
            repaired += 1;
        }
    }
    assert!(repaired * 3 > total, "only {repaired} of {total} cases were repaired");
}
