//! The reuse plan read from the input's JSON text (`compact_json_text`, the tree of the
//! message list let go during the compaction) gives what the plan read from the whole
//! tree gives (`compact_json`): the same shell, the same kept indices and new messages,
//! the same report and errors, for every format and container and every strategy.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use common::*;
use contextfold::format::{write, Format};
use contextfold::measure::Meter;
use contextfold::message::Message;
use contextfold::pipeline::{compact_json, compact_json_text, compact_text, InputText, JsonError, JsonOutput};
use contextfold::settings::CompactSettings;
use contextfold::summarize::extractive::ExtractiveSummarizer;
use contextfold::summarize::Controls;
use contextfold::text_pieces::{Held, TextPieces};
use futures::executor::block_on;
use serde_json::{json, Value};

/// A coding session of `n` exchanges, each reading a file.
fn session(n: usize) -> Vec<Message> {
    let mut chain = vec![sys("You code."), user("Fix the parser in src/parse.rs.")];
    for i in 0..n {
        let id = format!("c{i}");
        chain.push(ai_calls(&format!("Reading part {i}."), &[(&id, "read_file")]));
        chain.push(tool(&id, "read_file", &format!("fn part_{i}() {{}}\n{}", "// line é \"q\" \\ \n".repeat(60))));
        if i % 5 == 4 {
            chain.push(user(&format!("Now part {i}, and keep `x < y`.")));
        }
    }
    chain.push(ai("The parser is fixed."));
    chain
}

/// The chain in every container: bare lists, and request objects with other fields.
fn inputs() -> Vec<(Format, Value)> {
    let chain = session(40);
    let mut out = Vec::new();
    for format in [Format::OpenAi, Format::OpenAiResponses, Format::AiSdk, Format::LangChain, Format::Native] {
        out.push((format, write(&chain, format).unwrap()));
    }
    // Anthropic and Gemini write a request when there is a system prompt; one more
    // field each, and a bare list without the system prompt.
    for format in [Format::Anthropic, Format::Gemini] {
        let mut request = write(&chain, format).unwrap();
        request.as_object_mut().unwrap().insert("model".into(), json!("m-1"));
        out.push((format, request));
        out.push((format, write(&chain[1..], format).unwrap()));
    }
    out
}

fn run_both(
    value: &Value,
    settings: &CompactSettings,
) -> (Result<JsonOutput, JsonError>, Result<JsonOutput, JsonError>) {
    // As JSON.stringify writes it: the text the JS layer hands over.
    let text = serde_json::to_string(value).unwrap();
    let summarizer = ExtractiveSummarizer::default();
    let controls = Controls::default();
    let tree = block_on(compact_json(value, settings, &summarizer, &controls, Meter::default()));
    let parsed = contextfold::format::parse_json(&text).unwrap();
    let read = block_on(compact_json_text(&text, parsed, settings, &summarizer, &controls, Meter::default()));
    // Parsed element by element as it is read.
    let streamed = block_on(compact_text(InputText::held(&text), settings, &summarizer, &controls, Meter::default()));
    assert_eq!(streamed.is_some(), settings.reuse, "streamed: every input here has a list");
    if let Some(streamed) = streamed {
        assert_eq!(streamed, read, "streamed as read from the parsed text");
    }
    // Given by a host in pieces of every size each time it is read (the list, the
    // plan, an error's path): the same.
    let asked = std::cell::Cell::new(0usize);
    let again = || -> Option<Box<dyn TextPieces + '_>> {
        asked.set(asked.get() + 1);
        Some(Box::new(Held::in_pieces(text.as_bytes(), [1, 7, 4096][asked.get() % 3])))
    };
    let input = InputText::from_host(&again);
    let streamed = block_on(compact_text(input, settings, &summarizer, &controls, Meter::default()));
    if let Some(streamed) = streamed {
        // Its first byte, a request's fields, the bytes around its list, the list, then
        // the plan or an error.
        assert!(asked.get() <= 5, "asked {} times", asked.get());
        assert_eq!(streamed, read, "streamed with the text let go");
    }
    (tree, read)
}

fn streamed(text: &str) -> Option<Result<JsonOutput, JsonError>> {
    let settings = CompactSettings { reuse: true, ..Default::default() };
    let summarizer = ExtractiveSummarizer::default();
    block_on(compact_text(InputText::held(text), &settings, &summarizer, &Controls::default(), Meter::default()))
}

fn parsed(text: &str) -> Result<JsonOutput, JsonError> {
    let settings = CompactSettings { reuse: true, ..Default::default() };
    let value = contextfold::format::parse_json(text).unwrap();
    let summarizer = ExtractiveSummarizer::default();
    block_on(compact_json_text(text, value, &settings, &summarizer, &Controls::default(), Meter::default()))
}

#[test]
fn a_text_that_does_not_parse_is_left_to_the_caller() {
    // Element 2 is not JSON, after element 1 fits no format: the JSON error comes first.
    for text in [r#"[{"role":"user","content":"a"}, {"x": tru}]"#, r#"[{"role":"user","content":"a"}, 7, {"x": tru}]"#]
    {
        assert!(streamed(text).is_none(), "{text}");
    }
    // No list, a repeated list field, or a request's other fields that are not JSON.
    for text in [r#"{"model": "m"}"#, r#"{"messages": [], "messages": []}"#, r#"{"model": x, "messages": []}"#] {
        assert!(streamed(text).is_none(), "{text}");
    }
}

#[test]
fn a_detection_error_comes_before_a_read_error_as_from_the_tree() {
    // Element 2 is an OpenAI tool message that does not read (a number as its call id);
    // element 3 fits no format: detection, which went first, says so.
    let text = r#"[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"tool","content":"r","tool_call_id":5},{"role":"x"}]"#;
    let streamed = streamed(text).unwrap().unwrap_err();
    assert_eq!(streamed, parsed(text).unwrap_err());
    assert!(format!("{:?}", streamed.error).contains("[3]"), "{streamed:?}");
    // Without element 3, the read error of element 2.
    let text = r#"[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"tool","content":"r","tool_call_id":5}]"#;
    let streamed_error = self::streamed(text).unwrap().unwrap_err();
    assert_eq!(streamed_error, parsed(text).unwrap_err());
    assert!(format!("{:?}", streamed_error.error).contains("[2]"), "{streamed_error:?}");
}

#[test]
fn the_plan_from_the_text_is_the_plan_from_the_tree() {
    let mut kept = 0usize;
    for (format, value) in inputs() {
        for strategy in folding_strategies() {
            let settings =
                CompactSettings { format: Some(format), strategy: strategy.clone(), reuse: true, ..Default::default() };
            let (tree, read) = run_both(&value, &settings);
            let (tree, read) = (tree.unwrap(), read.unwrap());
            assert_eq!(read, tree, "{format:?} {}", strategy.name());
            kept += tree.reuse.iter().flatten().filter(|i| matches!(i, contextfold::reuse::ReuseItem::Keep(_))).count();
        }
    }
    assert!(kept > 0, "some messages were kept, so the text was compared");
}

#[test]
fn errors_point_at_the_same_place() {
    // One call id twice in an assistant message: the strategies' read rejects it, at [2].
    let mut chain = session(3);
    chain[2] = ai_calls("Reading twice.", &[("c0", "read_file"), ("c0", "read_file")]);
    for format in [Format::OpenAi, Format::Anthropic] {
        let value = write(&chain, format).unwrap();
        let settings = CompactSettings { format: Some(format), reuse: true, ..Default::default() };
        let (tree, read) = run_both(&value, &settings);
        let (tree, read) = (tree.unwrap_err(), read.unwrap_err());
        assert_eq!(read, tree);
        assert!(read.input_path.is_some(), "{read:?}");
    }
}

/// The message list of a chain value: the value itself, or a request's list.
fn list_mut(value: &mut Value) -> &mut Vec<Value> {
    match value {
        Value::Array(list) => list,
        Value::Object(map) => {
            map.values_mut().find_map(|v| v.as_array_mut().filter(|l| l.len() > 3)).expect("a request's list")
        }
        _ => panic!("not a chain"),
    }
}

#[test]
fn the_list_read_element_by_element_reads_as_the_tree_does() {
    // The text path takes the list out of the tree and reads it element by element:
    // detected formats, and a bad element's error and path, as from the whole tree.
    for (format, value) in inputs() {
        let settings = CompactSettings { reuse: true, ..Default::default() };
        let (tree, read) = run_both(&value, &settings);
        assert_eq!(read.unwrap(), tree.unwrap(), "{format:?} detected");
        let mut bad = value.clone();
        list_mut(&mut bad)[3] = json!(42);
        let settings = CompactSettings { format: Some(format), reuse: true, ..Default::default() };
        let (tree, read) = run_both(&bad, &settings);
        let (tree, read) = (tree.unwrap_err(), read.unwrap_err());
        assert_eq!(read, tree, "{format:?}");
        let message = format!("{:?}", read.error);
        assert!(message.contains("[3]"), "{format:?}: {message}");
        // Detected: the element fits no format, for a request's list as for a bare one.
        let (tree, read) = run_both(&bad, &CompactSettings { reuse: true, ..Default::default() });
        assert_eq!(read.unwrap_err(), tree.unwrap_err(), "{format:?} detected");
    }
}

#[test]
fn nothing_to_do_hands_the_input_back() {
    let value = write(&session(2), Format::OpenAi).unwrap();
    let settings = CompactSettings { reuse: true, ..Default::default() };
    let (tree, read) = run_both(&value, &settings);
    let read = read.unwrap();
    assert_eq!(read, tree.unwrap());
    assert!(!read.changed);
    assert_eq!(read.messages, Value::Null);
}

#[test]
fn a_text_the_host_cannot_give_again_goes_back_whole() {
    // The output is then written whole, without a plan: what the tree gives without one.
    let value = write(&session(12), Format::OpenAi).unwrap();
    let text = serde_json::to_string(&value).unwrap();
    let summarizer = ExtractiveSummarizer::default();
    let controls = Controls::default();
    let mut changed = 0;
    for strategy in folding_strategies() {
        let settings = CompactSettings { strategy: strategy.clone(), reuse: true, ..Default::default() };
        // The text for the read (its first byte, then the list); then no more.
        let asked = std::cell::Cell::new(0);
        let gone = || -> Option<Box<dyn TextPieces + '_>> {
            asked.set(asked.get() + 1);
            (asked.get() <= 2).then(|| Box::new(Held::whole(text.as_bytes())) as Box<dyn TextPieces>)
        };
        let input = InputText::from_host(&gone);
        let out = block_on(compact_text(input, &settings, &summarizer, &controls, Meter::default())).unwrap().unwrap();
        let plain = CompactSettings { reuse: false, ..settings };
        let whole = block_on(compact_json(&value, &plain, &summarizer, &controls, Meter::default())).unwrap();
        if out.changed {
            changed += 1;
            assert_eq!(out, whole, "{}", strategy.name());
        }
    }
    assert!(changed > 0, "some strategy changed the chain");
}

#[test]
fn a_text_that_does_not_confirm_the_fingerprints_gives_no_plan() {
    // Streamed back, the text is not the one read (a kept message changed): a match by
    // fingerprint the text does not confirm is never kept; the output goes whole.
    let value = write(&session(12), Format::OpenAi).unwrap();
    let text = serde_json::to_string(&value).unwrap();
    let last = text.rfind("fixed").unwrap();
    let other = format!("{}FIXED{}", &text[..last], &text[last + 5..]);
    let summarizer = ExtractiveSummarizer::default();
    let strategy = folding_strategies().remove(1);
    let settings = CompactSettings { strategy, reuse: true, ..Default::default() };
    let held =
        block_on(compact_text(InputText::held(&text), &settings, &summarizer, &Controls::default(), Meter::default()))
            .unwrap()
            .unwrap();
    assert!(held.changed && held.reuse.is_some());
    // The text for the read (its first byte, then the list), then the other one for the
    // plan.
    let asked = std::cell::Cell::new(0);
    let again = || -> Option<Box<dyn TextPieces + '_>> {
        asked.set(asked.get() + 1);
        let given = if asked.get() > 2 { &other } else { &text };
        Some(Box::new(Held::whole(given.as_bytes())))
    };
    let input = InputText::from_host(&again);
    let out =
        block_on(compact_text(input, &settings, &summarizer, &Controls::default(), Meter::default())).unwrap().unwrap();
    assert!(out.reuse.is_none());
    let plain = CompactSettings { reuse: false, ..settings };
    let whole = block_on(compact_json(&value, &plain, &summarizer, &Controls::default(), Meter::default())).unwrap();
    assert_eq!(out, whole);
}

#[test]
fn a_long_text_is_read_in_batches_as_the_tree_is() {
    // Batches end at 64 KiB of text: a chain of several, one message larger than a batch.
    let mut chain = session(120);
    chain.insert(5, user(&"a long paste, ".repeat(10_000)));
    let value = write(&chain, Format::OpenAi).unwrap();
    assert!(serde_json::to_string(&value).unwrap().len() > 4 * 64 * 1024);
    for strategy in folding_strategies() {
        let settings = CompactSettings { strategy: strategy.clone(), reuse: true, ..Default::default() };
        let (tree, read) = run_both(&value, &settings);
        assert_eq!(read.unwrap(), tree.unwrap(), "{}", strategy.name());
    }
}

/// Pieces of a held text that count the bytes they give.
struct Counted<'a> {
    pieces: Held<'a>,
    given: &'a std::cell::Cell<usize>,
}

impl TextPieces for Counted<'_> {
    fn advance(&mut self) -> bool {
        let more = self.pieces.advance();
        self.given.set(self.given.get() + self.pieces.piece().len());
        more
    }

    fn piece(&self) -> &[u8] {
        self.pieces.piece()
    }

    fn mark(&self) -> Option<u64> {
        self.pieces.mark()
    }

    fn seek(&mut self, mark: u64) -> bool {
        self.pieces.seek(mark)
    }
}

#[test]
fn the_plan_reads_only_the_pieces_kept_messages_lie_in() {
    // Summarized in the middle, kept at both ends: the plan's pass seeks over the middle.
    let value = write(&session(60), Format::OpenAi).unwrap();
    let text = serde_json::to_string(&value).unwrap();
    let strategy = contextfold::strategy::run::StrategyConfig::Budget(
        contextfold::strategy::budget::BudgetConfig::new(contextfold::measure::Amount::Tokens(text.len() / 16)),
    );
    let settings = CompactSettings { strategy, reuse: true, ..Default::default() };
    let counts: Vec<std::cell::Cell<usize>> = (0..3).map(|_| std::cell::Cell::new(0)).collect();
    let readers = std::cell::Cell::new(0usize);
    let again = || -> Option<Box<dyn TextPieces + '_>> {
        let given = counts.get(readers.replace(readers.get() + 1))?;
        Some(Box::new(Counted { pieces: Held::in_pieces(text.as_bytes(), 512), given }))
    };
    let summarizer = ExtractiveSummarizer::default();
    let out = block_on(compact_text(
        InputText::from_host(&again),
        &settings,
        &summarizer,
        &Controls::default(),
        Meter::default(),
    ))
    .unwrap()
    .unwrap();
    let plan = out.reuse.as_ref().expect("a plan");
    assert!(plan.iter().any(|i| matches!(i, contextfold::reuse::ReuseItem::Keep(_))));
    assert_eq!(readers.get(), 3, "its first byte, the list, the plan");
    assert_eq!(counts[1].get(), text.len(), "the list is read whole");
    assert!(counts[2].get() < text.len() / 2, "the plan read {} of {} bytes", counts[2].get(), text.len());
    // The same plan as from the tree.
    let tree = block_on(compact_json(&value, &settings, &summarizer, &Controls::default(), Meter::default())).unwrap();
    assert_eq!(out, tree);
}
