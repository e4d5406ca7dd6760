//! A session pushed message by message holds what reading the whole array gives, and its
//! trigger answers as `needs_compaction` on the whole chain does, in every format.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

mod common;

use contextfold::format::{self, Format};
use contextfold::measure::{Amount, Meter, Unit};
use contextfold::message::{Message, Role};
use contextfold::pipeline::needs_compaction_json;
use contextfold::session::{Pushed, Session};
use contextfold::strategy::auto::AutoConfig;
use contextfold::strategy::run::{self, StrategyConfig};
use serde_json::{json, Value};

/// The chains to replay: the demo session and the real transcripts, as message arrays.
fn chains() -> Vec<(String, Vec<Message>)> {
    let mut files = common::real_fixtures().unwrap_or_default();
    files.push(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/demo-session.openai.json").into());
    files
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains("reference_summary"))
        .map(|path| {
            let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let (messages, _) = format::read_auto(&value).unwrap();
            (path.file_name().unwrap().to_string_lossy().into_owned(), messages)
        })
        .collect()
}

/// `messages` written as an array in `format` (the system prompt left out of the formats
/// that keep it outside the array); `None` when `format` cannot hold them.
fn array_in(messages: &[Message], format: Format) -> Option<Vec<Value>> {
    let kept: Vec<Message> = if matches!(format, Format::Anthropic | Format::Gemini | Format::OpenAiResponses) {
        messages.iter().filter(|m| m.role != Role::System).cloned().collect()
    } else {
        messages.to_vec()
    };
    match format::write(&kept, format).ok()? {
        Value::Array(items) => Some(items),
        other => panic!("{format:?} wrote no array: {other}"),
    }
}

#[test]
fn a_session_holds_what_the_whole_array_reads_in_every_format() {
    let meter = Meter::default();
    for (name, messages) in chains() {
        for format in Format::ALL {
            let Some(items) = array_in(&messages, format) else { continue };
            // Detection where the whole array is detected at all.
            let detectable = format::detect(&Value::Array(items.clone())).is_ok();
            for given in [detectable.then_some(None), Some(Some(format))].into_iter().flatten() {
                let mut session = Session::new(given, StrategyConfig::default(), None);
                // Pushed one at a time, then two at a time: the same.
                let mut stale = 0;
                let size = if given.is_some() { 2 } else { 1 };
                for (i, batch) in items.chunks(size).enumerate() {
                    if session.push(batch.to_vec(), meter).unwrap() == Pushed::Stale {
                        // Detection narrowed: the caller gives the whole array again.
                        assert!(given.is_none(), "{name} {format:?}: stale with the format given");
                        stale += 1;
                        let end = (i * size + batch.len()).min(items.len());
                        session.reset(items[..end].to_vec(), meter).unwrap();
                    }
                }
                assert!(stale <= 2, "{name} {format:?}: stale {stale} times");
                let whole = Value::Array(items.clone());
                let (read, detected) = match given {
                    Some(f) => (format::read(&whole, f).unwrap(), f),
                    None => format::read_auto(&whole).unwrap(),
                };
                assert_eq!(session.format(), Some(detected), "{name} {format:?}");
                assert!(session.messages() == read.as_slice(), "{name} in {format:?} (given: {given:?})");
                assert_eq!(session.total(), meter.total(Unit::Tokens, &read), "{name} {format:?}");
            }
        }
    }
}

/// What the session's trigger answers for the whole `array`: `needs_compaction_json`'s
/// answer, but for the repair pass only once the chain ends in a user message or tool
/// results (see `Session::needs_compaction`).
fn trigger_on(array: &Value, strategy: &StrategyConfig, meter: Meter<'_>) -> bool {
    let whole = needs_compaction_json(array, None, strategy, None, meter).unwrap();
    let (messages, _) = format::read_auto(array).unwrap();
    let due = matches!(messages.last().unwrap().role, Role::User | Role::Tool);
    whole && (due || run::needs_compaction(&messages, strategy, meter))
}

#[test]
fn the_trigger_answers_as_needs_compaction_on_the_whole_chain_at_every_push() {
    let meter = Meter::default();
    let chains = chains();
    let (_, demo) = chains.iter().find(|(name, _)| name.starts_with("demo-session")).unwrap();
    let mut strategies = common::folding_strategies();
    for strategy in &mut strategies {
        if let StrategyConfig::Tiers(c) = strategy {
            c.auto = true;
            c.auto_threshold = 40;
        }
    }
    strategies.push(StrategyConfig::Budget(contextfold::strategy::budget::BudgetConfig::new(Amount::Bytes(60_000))));
    for strategy in strategies {
        for format in [Format::OpenAi, Format::Anthropic, Format::OpenAiResponses] {
            let items = array_in(demo, format).unwrap();
            let mut session = Session::new(None, strategy.clone(), None);
            let mut fired = 0;
            for (i, item) in items.iter().enumerate() {
                if session.push(vec![item.clone()], meter).unwrap() == Pushed::Stale {
                    session.reset(items[..=i].to_vec(), meter).unwrap();
                }
                let array = Value::Array(items[..=i].to_vec());
                let (whole, _) = format::read_auto(&array).unwrap();
                let expected = trigger_on(&array, &strategy, meter);
                assert_eq!(session.messages(), whole.as_slice(), "{} {format:?} after {i}", strategy.name());
                assert_eq!(session.needs_compaction(meter), expected, "{} {format:?} after {i}", strategy.name());
                fired += usize::from(expected);
            }
            assert!(fired > 0, "{} never fires on the demo session: the check proves nothing", strategy.name());
        }
    }
}

/// The built-in estimate, adding up the bytes it is given to count.
#[derive(Default)]
struct Counting(std::cell::Cell<usize>);

impl contextfold::measure::TokenCounter for Counting {
    fn count_texts(&self, texts: &[&str]) -> Vec<usize> {
        self.0.set(self.0.get() + texts.iter().map(|t| t.len()).sum::<usize>());
        contextfold::measure::EstimateCounter.count_texts(texts)
    }
}

#[test]
fn the_trigger_counts_no_chain_again_whatever_the_strategy() {
    // A session holds each message's cost: its trigger reads those, for every strategy
    // (window and mask over their budget counted the whole chain again at every push,
    // through the caller's token counter).
    let chains = chains();
    let (_, demo) = chains.iter().find(|(name, _)| name.starts_with("demo-session")).unwrap();
    let items = array_in(demo, Format::OpenAi).unwrap();
    let chain_bytes: usize = items.iter().map(|i| i.to_string().len()).sum();
    let mut strategies = common::folding_strategies();
    strategies.push(StrategyConfig::Window(contextfold::strategy::window::WindowConfig {
        threshold: Amount::Tokens(200_000),
        ..Default::default()
    }));
    strategies.push(StrategyConfig::Mask(contextfold::strategy::mask::MaskConfig {
        max: Some(Amount::Tokens(2000)),
        ..Default::default()
    }));
    for strategy in strategies {
        let counter = Counting::default();
        let meter = Meter::new(&counter);
        let mut session = Session::new(Some(Format::OpenAi), strategy.clone(), None);
        let mut by_trigger = 0;
        for item in &items {
            session.push(vec![item.clone()], meter).unwrap();
            let before = counter.0.get();
            let needed = session.needs_compaction(meter);
            by_trigger += counter.0.get() - before;
            let array = Value::Array(items[..session.messages().len()].to_vec());
            assert_eq!(needed, trigger_on(&array, &strategy, Meter::default()), "{}", strategy.name());
        }
        // At most the restoration layout's head each time, never the chain at every push.
        assert!(
            by_trigger <= chain_bytes,
            "{}: the trigger counted {by_trigger} bytes over {} pushes of a {chain_bytes}-byte chain",
            strategy.name(),
            items.len()
        );
    }
}

#[test]
fn a_narrower_format_makes_the_session_stale_and_a_reset_reads_it_again() {
    let meter = Meter::default();
    let mut session = Session::new(None, StrategyConfig::default(), None);
    let text = json!({"role": "user", "content": "hi"});
    assert_eq!(session.push(vec![text.clone()], meter).unwrap(), Pushed::Held);
    assert_eq!(session.format(), Some(Format::OpenAi));
    // A Responses item: the array is no OpenAI chat.
    let item = json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hello"}]});
    assert_eq!(session.push(vec![item.clone()], meter).unwrap(), Pushed::Stale);
    session.reset(vec![text.clone(), item.clone()], meter).unwrap();
    let (whole, detected) = format::read_auto(&json!([text, item])).unwrap();
    assert_eq!(session.format(), Some(detected));
    assert_eq!(detected, Format::OpenAiResponses);
    assert_eq!(session.messages(), whole.as_slice());
}

#[test]
fn a_message_no_format_reads_leaves_the_session_as_it_was() {
    let meter = Meter::default();
    let strategy = StrategyConfig::Auto(AutoConfig::for_budget(Amount::Tokens(10)));
    let mut session = Session::new(None, strategy, None);
    session.push(vec![json!({"role": "user", "content": "hi"})], meter).unwrap();
    let (messages, total) = (session.messages().to_vec(), session.total());
    let err = session.push(vec![json!({"role": "user", "content": 5})], meter).unwrap_err();
    assert_eq!(err.code(), "unknown_format");
    assert_eq!((session.messages(), session.total()), (messages.as_slice(), total));
    session.push(vec![json!({"role": "assistant", "content": "hello there, a longer answer"})], meter).unwrap();
    assert!(session.needs_compaction(meter));
}

#[test]
fn the_trigger_fires_under_the_budget_for_what_the_repair_pass_mends_once_a_request_is_due() {
    // `compact` mends a whitespace-only text block (Anthropic rejects it) whatever the
    // chain's size: the session's trigger says so as `needsCompaction` on the array does
    // (it said false, so a History never mended it), once the chain ends in a user
    // message or results; not while it ends in an answer (it may be streaming in).
    let meter = Meter::default();
    let strategy = StrategyConfig::Auto(AutoConfig::for_budget(Amount::Tokens(100_000)));
    let items = [
        json!({"role": "user", "content": "hello"}),
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "\n\n"},
            {"type": "tool_use", "id": "toolu_01", "name": "ls", "input": {"path": "."}},
        ]}),
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "a.txt"}]}),
        json!({"role": "assistant", "content": "one file"}),
        json!({"role": "user", "content": "thanks"}),
    ];
    for (provider, mends) in [(None, true), (Some(contextfold::repair::Provider::OpenAi), false)] {
        let mut session = Session::new(Some(Format::Anthropic), strategy.clone(), provider);
        let mut fired = Vec::new();
        for (i, item) in items.iter().enumerate() {
            session.push(vec![item.clone()], meter).unwrap();
            let array = Value::Array(items[..=i].to_vec());
            let whole = needs_compaction_json(&array, Some(Format::Anthropic), &strategy, provider, meter).unwrap();
            fired.push((session.needs_compaction(meter), whole));
        }
        // The call waits after push 1; the answer (push 3) may be streaming in.
        let expected = if mends {
            vec![(false, false), (false, false), (true, true), (false, true), (true, true)]
        } else {
            vec![(false, false); 5]
        };
        assert_eq!(fired, expected, "{provider:?}");
    }
}

#[test]
fn a_responses_compaction_item_first_is_left_out_of_the_trigger_as_compact_leaves_it() {
    // `compact` keeps a provider compaction item first, as it is, and gives its strategy
    // the rest: `tiers` at its threshold without the item needs nothing.
    let meter = Meter::default();
    let strategy = StrategyConfig::Tiers(contextfold::strategy::tiers::TiersConfig {
        recent: 4,
        condensed: 6,
        auto_threshold: 24,
        ..Default::default()
    });
    let mut items = vec![json!({"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAA-earlier"})];
    for i in 0..13 {
        items.push(json!({"role": "user", "content": format!("question {i}: {}", "details ".repeat(60))}));
        items.push(json!({"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": format!("answer {i}")}]}));
    }
    let mut session = Session::new(Some(Format::OpenAiResponses), strategy.clone(), None);
    let mut fired = Vec::new();
    for (i, item) in items.iter().enumerate() {
        session.push(vec![item.clone()], meter).unwrap();
        let array = Value::Array(items[..=i].to_vec());
        let whole = needs_compaction_json(&array, Some(Format::OpenAiResponses), &strategy, None, meter).unwrap();
        assert_eq!(session.needs_compaction(meter), whole, "after item {i}");
        fired.push(whole);
    }
    // 25 items (the compaction item and 24 messages) do not fire; 26 do.
    assert_eq!(fired.iter().position(|f| *f), Some(25));
}
