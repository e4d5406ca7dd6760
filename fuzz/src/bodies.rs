//! The bodies of the fuzz targets, shared by `cargo fuzz` (fuzz/fuzz_targets/) and the
//! stable-toolchain smoke test (crates/contextfold/tests/fuzz_smoke.rs, which includes
//! this file with `#[path]`). Plain Rust over the core crate: `contextfold`, `serde_json`
//! and `futures` (executor) only.
//!
//! Each body returns normally or panics: a panic is either a crash of the core (the bug
//! the fuzzer looks for) or a broken invariant of DESIGN.md, asserted here.

// Panicking on a broken invariant is how a fuzz target reports it. `% n == 0` stays:
// the core's tests include this file under its MSRV (1.85), before `is_multiple_of`.
#![allow(clippy::panic, clippy::manual_is_multiple_of)]

use contextfold::format::{self, Format};
use contextfold::measure::{Amount, Meter};
use contextfold::message::{Extra, Message, Part, ReasoningPart, Role, ToolCallPart, ToolResultPart};
use contextfold::pipeline;
use contextfold::repair::{self, Provider, RepairOptions};
use contextfold::settings::CompactSettings;
use contextfold::strategy::auto::AutoConfig;
use contextfold::strategy::budget::BudgetConfig;
use contextfold::strategy::mask::MaskConfig;
use contextfold::strategy::run::{self, CompactOptions, StrategyConfig};
use contextfold::strategy::sections::SectionsConfig;
use contextfold::strategy::tiers::TiersConfig;
use contextfold::strategy::window::WindowConfig;
use contextfold::strategy::{CompactError, OnError};
use contextfold::summarize::{Controls, SummarizeError, Summarizer, SummaryRequest};
use contextfold::ChainAst;
use std::cell::Cell;

/// Every format the core knows, found by name so that formats added later are fuzzed
/// without editing this file (names as `Format::from_name` spells them, with variants).
pub fn formats() -> Vec<Format> {
    let names = [
        "native",
        "openai",
        "anthropic",
        "gemini",
        "aisdk",
        "ai-sdk",
        "aiSdk",
        "ai_sdk",
        "uimessage",
        "ui-message",
        "uiMessage",
        "langchain",
        "responses",
        "openai-responses",
    ];
    let mut out: Vec<Format> = Vec::new();
    for format in names.iter().filter_map(|n| Format::from_name(n)) {
        if !out.contains(&format) {
            out.push(format);
        }
    }
    out
}

/// The provider whose rules a chain read in `format` keeps: the core's one mapping, which
/// the JS binding uses too.
pub use contextfold::convert::provider_of;

// ---------------------------------------------------------------------------------------
// parse: JSON text -> every reader -> AST (strict and repair) -> validate / repair ->
// writers.

/// Target `parse`: `data` as JSON text.
pub fn parse(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(value) = format::parse_json(text) else {
        return;
    };
    parse_value(&value);
}

/// Everything the read side does with one JSON value.
pub fn parse_value(value: &serde_json::Value) {
    if let Ok((messages, format)) = format::read_auto(value) {
        check_messages(&messages, format);
    }
    for format in formats() {
        if let Ok(messages) = format::read(value, format) {
            check_messages(&messages, format);
        }
    }
}

/// Invariants of the read side on messages a reader accepted.
pub fn check_messages(messages: &[Message], format: Format) {
    let strict = ChainAst::parse(messages);
    let repaired = ChainAst::parse_repair(messages);
    if let Ok(ast) = &strict {
        // A chain strict mode accepts needs no repair, and the AST holds it whole.
        assert_eq!(ast.messages(), messages, "strict AST does not give its messages back");
        match &repaired {
            Ok(parsed) => assert!(parsed.repairs.is_empty(), "repair mode changed a strictly valid chain"),
            Err(e) => panic!("repair mode rejects a strictly valid chain: {e}"),
        }
    }
    if let Ok(parsed) = &repaired {
        // What repair mode produced parses strictly.
        let again = parsed.ast.messages();
        if let Err(e) = ChainAst::parse(&again) {
            panic!("repair-mode output does not parse strictly: {e}");
        }
    }
    for provider in Provider::ALL {
        let diagnostics = repair::validate(messages, provider);
        let fixed = repair::repair(messages, &RepairOptions::for_provider(provider));
        if diagnostics.is_empty() {
            assert!(fixed.is_unchanged(), "repair changed a chain valid for {provider:?}");
        }
        let left = repair::validate(&fixed.messages, provider);
        assert!(left.is_empty(), "repair output still invalid for {provider:?}: {left:?}");
        let twice = repair::repair(&fixed.messages, &RepairOptions::for_provider(provider));
        assert!(twice.is_unchanged(), "repair is not idempotent for {provider:?}");
    }
    // Writing back in the format read, then reading, gives the same messages.
    if let Ok(written) = format::write(messages, format) {
        match format::read(&written, format) {
            Ok(back) => assert_eq!(back, messages, "{format:?} write/read round trip changed the messages"),
            Err(e) => panic!("{format:?} cannot read what it wrote: {e}"),
        }
    }
    // The other writers may refuse (typed errors), never panic.
    for other in formats() {
        let _ = format::write(messages, other);
    }
}

// ---------------------------------------------------------------------------------------
// compact: messages built from the bytes (or JSON text), a strategy with fuzzed settings,
// a deterministic mock summarizer with fuzzed behaviour.

/// Reads the fuzz input left to right; zeros once it runs out.
pub struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data, at: 0 }
    }

    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at = self.at.saturating_add(1);
        b
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            usize::from(self.byte()) % n
        }
    }

    pub fn u16(&mut self) -> usize {
        usize::from(self.byte()) << 8 | usize::from(self.byte())
    }

    pub fn exhausted(&self) -> bool {
        self.at >= self.data.len()
    }
}

const WORDS: [&str; 12] = [
    "alpha",
    "build",
    "error:",
    "src/main.rs",
    "the",
    "</messages>",
    "test",
    "\u{e9}t\u{e9}",
    "\u{1f600}",
    "fn",
    "ok",
    "\n",
];

fn text(b: &mut Bytes<'_>) -> String {
    let kind = b.below(8);
    let words = match kind {
        0 => 0,
        1 => 1 + b.below(4),
        2..=5 => 1 + b.below(64),
        _ => 32 + b.u16() % 2048,
    };
    let seed = b.byte();
    let mut out = String::new();
    for i in 0..words {
        let w = WORDS.get((usize::from(seed) + i * 7) % WORDS.len()).copied().unwrap_or("x");
        out.push_str(w);
        out.push(' ');
    }
    if kind == 1 && b.byte() % 4 == 0 {
        out = " ".to_string();
    }
    out
}

fn call_id(b: &mut Bytes<'_>) -> String {
    // A small pool, so that duplicates, orphans and missing results all happen.
    format!("call_{}", b.below(12))
}

fn part(b: &mut Bytes<'_>, role: Role) -> Part {
    let choice = b.below(10);
    match (role, choice) {
        (Role::Assistant, 0..=2) => Part::ToolCall(ToolCallPart {
            id: call_id(b),
            name: ["read", "run", "search"].get(b.below(3)).copied().unwrap_or("read").to_string(),
            arguments: if b.byte() % 8 == 0 { "{not json".to_string() } else { format!("{{\"q\":{:?}}}", text(b)) },
            signature: None,
            extra: Extra::new(),
        }),
        (Role::Assistant, 3) => Part::Reasoning(ReasoningPart {
            text: text(b),
            signature: if b.byte() % 2 == 0 { Some(format!("sig{}", b.byte())) } else { None },
            redacted_data: None,
            extra: Extra::new(),
        }),
        (Role::Tool, 0..=7) | (_, 9) => Part::ToolResult(ToolResultPart {
            call_id: call_id(b),
            name: Some("read".to_string()),
            content: vec![Part::text(text(b))],
            is_error: b.byte() % 5 == 0,
            extra: Extra::new(),
        }),
        _ => Part::text(text(b)),
    }
}

/// A chain of up to ~60 messages described by the bytes; mostly well-formed tool
/// exchanges (so that strategies get to work), with the occasional broken structure.
pub fn build_messages(b: &mut Bytes<'_>) -> Vec<Message> {
    let count = b.below(60);
    let mut out = Vec::new();
    if b.byte() % 4 != 0 {
        out.push(Message::text(Role::System, "You are a test assistant."));
    }
    let mut next_id = 0usize;
    while out.len() < count && !b.exhausted() {
        match b.below(8) {
            // A well-formed tool exchange: a call message, then its results in order.
            0..=2 => {
                let calls = 1 + b.below(3);
                let mut parts = Vec::new();
                if b.byte() % 3 == 0 {
                    parts.push(Part::text(text(b)));
                }
                let ids: Vec<String> = (0..calls)
                    .map(|_| {
                        next_id = next_id.saturating_add(1);
                        format!("ok_{next_id}")
                    })
                    .collect();
                for id in &ids {
                    parts.push(Part::ToolCall(ToolCallPart {
                        id: id.clone(),
                        name: "read".to_string(),
                        arguments: "{\"path\":\"a.rs\"}".to_string(),
                        signature: None,
                        extra: Extra::new(),
                    }));
                }
                out.push(Message::new(Role::Assistant, parts));
                for id in &ids {
                    out.push(Message::tool_result(id.clone(), "read", text(b)));
                }
            }
            3 | 4 => out.push(Message::text(Role::User, text(b))),
            5 => out.push(Message::text(Role::Assistant, text(b))),
            // Anything: random role, random parts.
            _ => {
                let role = [Role::System, Role::User, Role::Assistant, Role::Tool]
                    .get(b.below(4))
                    .copied()
                    .unwrap_or(Role::User);
                let parts = (0..b.below(4)).map(|_| part(b, role)).collect();
                out.push(Message::new(role, parts));
            }
        }
    }
    out
}

fn strategy(b: &mut Bytes<'_>, on_error: OnError) -> StrategyConfig {
    let small = |b: &mut Bytes<'_>| 1 + b.u16() % 40_000;
    let amount = |b: &mut Bytes<'_>| {
        let v = 64 + b.u16();
        if b.byte() % 2 == 0 {
            Amount::Tokens(v)
        } else {
            Amount::Bytes(v)
        }
    };
    match b.below(6) {
        4 => {
            let mut c = AutoConfig::for_budget(amount(b));
            c.target_percent = 1 + b.below(100);
            c.summary_percent = 1 + b.below(100);
            c.mask.keep_last = b.below(5);
            c.mask.min_bytes = b.u16() % 1024;
            c.mask.mask_arguments = b.byte() % 2 == 0;
            c.min_summarize_bytes = b.u16() % 1024;
            c.on_error = on_error;
            StrategyConfig::Auto(c)
        }
        5 => {
            let max = (b.byte() % 2 == 0).then(|| amount(b));
            StrategyConfig::Mask(MaskConfig {
                max,
                keep_last: b.below(5),
                min_bytes: b.u16() % 1024,
                mask_arguments: b.byte() % 2 == 0,
                on_error,
                ..MaskConfig::default()
            })
        }
        0 => {
            let mut c =
                if b.byte() % 2 == 0 { SectionsConfig::default() } else { SectionsConfig::for_budget(amount(b)) };
            c.preserve_last = b.byte() % 4 != 0;
            c.last_sec_bytes = small(b);
            c.max_bp_bytes = small(b);
            c.use_qa = b.byte() % 2 == 0;
            c.max_qa_sections = b.below(6);
            c.max_qa_bytes = small(b);
            c.summ_human_in_qa = b.byte() % 2 == 0;
            c.keep_qa_sections = 1 + b.below(3);
            c.reserve_percent = b.below(101);
            c.min_summarize_bytes = b.u16() % 1024;
            c.on_error = on_error;
            StrategyConfig::Sections(c)
        }
        1 => {
            let mut c = if b.byte() % 2 == 0 { WindowConfig::default() } else { WindowConfig::for_budget(amount(b)) };
            c.window = b.below(40);
            if b.byte() % 2 == 0 {
                c.threshold = amount(b);
                c.message_threshold = amount(b);
            }
            c.max_depth = b.below(6);
            c.min_summarize_bytes = b.u16() % 1024;
            c.on_error = on_error;
            StrategyConfig::Window(c)
        }
        2 => {
            let mut c = if b.byte() % 2 == 0 { TiersConfig::default() } else { TiersConfig::for_budget(amount(b)) };
            c.recent = b.below(30);
            c.condensed = b.below(60);
            c.auto_threshold = b.below(100);
            c.auto = b.byte() % 4 != 0;
            c.min_summarize_bytes = b.u16() % 1024;
            c.on_error = on_error;
            StrategyConfig::Tiers(c)
        }
        _ => {
            let mut c = BudgetConfig::new(amount(b));
            c.keep_recent = b.below(10);
            c.summary_percent = b.below(101);
            c.on_error = on_error;
            StrategyConfig::Budget(c)
        }
    }
}

/// A deterministic mock: the answer depends only on the request id and the fuzz
/// bytes. Records the calls it got.
pub struct MockSummarizer {
    /// Per call: 0 short text, 1 fail, 2 empty, 3 huge, 4 echo of the transcript.
    pub plan: Vec<u8>,
    pub calls: Cell<usize>,
}

impl MockSummarizer {
    pub fn well_behaved() -> Self {
        MockSummarizer { plan: vec![0], calls: Cell::new(0) }
    }

    fn well_behaved_plan(&self) -> bool {
        self.plan.iter().all(|p| *p == 0)
    }
}

impl Summarizer for MockSummarizer {
    async fn summarize(&self, request: SummaryRequest) -> Result<String, SummarizeError> {
        self.calls.set(self.calls.get().saturating_add(1));
        let step = if self.plan.is_empty() { 0 } else { request.id % self.plan.len() };
        match self.plan.get(step).copied().unwrap_or(0) {
            1 => Err(SummarizeError::failed("mock failure")),
            2 => Ok(String::new()),
            3 => Ok("huge ".repeat(4096)),
            4 => Ok(request.transcript),
            _ => Ok(format!("Summary {} of {:?}.", request.id, request.kind)),
        }
    }
}

/// Bytes of settings before the JSON text on the JSON path of [`compact`].
pub const JSON_HEADER: usize = 48;

/// Target `compact`.
/// A first byte divisible by 8 selects the JSON path: the next [`JSON_HEADER`] bytes give
/// the settings, the rest is JSON text of a chain in any format.
pub fn compact(data: &[u8]) {
    let from_json = data.first().is_some_and(|b| b % 8 == 0);
    let (head, json) = if from_json { data.split_at(JSON_HEADER.min(data.len())) } else { (data, &[][..]) };
    let mut b = Bytes::new(head);
    b.byte();
    let on_error = match b.below(3) {
        0 => OnError::Rollback,
        1 => OnError::Partial,
        _ => OnError::Throw,
    };
    let plan: Vec<u8> = match b.below(3) {
        0 => vec![0],
        _ => (0..1 + b.below(6)).map(|_| if b.byte() % 2 == 0 { 0 } else { b.below(5) as u8 }).collect(),
    };
    let config = strategy(&mut b, on_error);
    let concurrency = 1 + b.below(5);
    let (messages, format) = if from_json {
        let Ok(text) = std::str::from_utf8(json) else {
            return;
        };
        let Ok(value) = format::parse_json(text) else {
            return;
        };
        check_compact_json(&value, config.clone(), MockSummarizer { plan: plan.clone(), calls: Cell::new(0) });
        match format::read_auto(&value) {
            Ok(read) => read,
            Err(_) => return,
        }
    } else {
        let all = formats();
        let format = all.get(b.below(all.len())).copied().unwrap_or(Format::Native);
        (build_messages(&mut b), format)
    };
    check_compact(&messages, format, config, MockSummarizer { plan, calls: Cell::new(0) }, concurrency);
}

/// Runs the JSON pipeline every binding runs (read, compact, write back in the format
/// and container read) and asserts what it promises: the input untouched, an unchanged
/// result is the input itself, a changed one reads back in its format as a chain its
/// provider accepts, and an error about the input names a place in it.
pub fn check_compact_json(value: &serde_json::Value, strategy: StrategyConfig, summarizer: MockSummarizer) {
    let settings = CompactSettings { strategy, ..CompactSettings::default() };
    let before = value.clone();
    let outcome = futures::executor::block_on(pipeline::compact_json(
        value,
        &settings,
        &summarizer,
        &Controls::default(),
        Meter::default(),
    ));
    assert_eq!(value, &before, "the input JSON changed");
    let output = match outcome {
        Ok(output) => output,
        Err(e) => {
            if let Some(path) = &e.input_path {
                assert!(path.starts_with('['), "an input path that is no place in the input: {path}");
            }
            return;
        }
    };
    assert_eq!(output.report.calls, summarizer.calls.get(), "report.calls is not the number of calls made");
    if !output.changed {
        assert_eq!(&output.messages, value, "unchanged, yet the JSON differs");
        return;
    }
    let Ok(messages) = format::read(&output.messages, output.format) else {
        panic!("the output does not read back as {:?}: {}", output.format, output.messages);
    };
    let provider = provider_of(output.format);
    let diagnostics = repair::validate(&messages, provider);
    assert!(diagnostics.is_empty(), "written output invalid for {provider:?}: {diagnostics:?}");
}

/// Runs one compaction and asserts DESIGN.md's invariants on its result.
pub fn check_compact(
    messages: &[Message],
    format: Format,
    config: StrategyConfig,
    summarizer: MockSummarizer,
    concurrency: usize,
) {
    let provider = provider_of(format);
    let options =
        CompactOptions { strategy: config, repair: RepairOptions::for_provider(provider), ..Default::default() };
    let controls = Controls { concurrency, ..Controls::default() };
    let input = messages.to_vec();
    let outcome =
        futures::executor::block_on(run::compact(messages, &options, &summarizer, &controls, Meter::default()));
    assert_eq!(messages, input.as_slice(), "the input changed");
    let result = match outcome {
        Ok(result) => result,
        // Typed errors are fine: bad input, a failed call with `Throw`, a budget that
        // cannot be met.
        Err(CompactError::Summarizer(errors)) => {
            assert!(!errors.is_empty(), "a summarizer error without errors");
            return;
        }
        Err(_) => return,
    };
    let report = &result.report;
    assert_eq!(report.calls, summarizer.calls.get(), "report.calls is not the number of calls made");
    if !result.changed {
        assert_eq!(result.messages, messages, "unchanged, yet the messages differ");
        return;
    }
    // 1. valid for the provider.
    let diagnostics = repair::validate(&result.messages, provider);
    assert!(diagnostics.is_empty(), "compacted chain invalid for {provider:?}: {diagnostics:?}");
    // 3. nothing lost silently: with rollback, an error means the original chain.
    let on_error = options.strategy.on_error();
    // 4. a summary never replaces smaller content: a valid input gets smaller.
    let input_valid = repair::validate(messages, provider).is_empty();
    if on_error == OnError::Rollback && !report.errors.is_empty() {
        // Rolled back: the original chain, changed only by the provider repairs an
        // invalid input needs (listed).
        assert!(report.rolled_back, "errors with rollback, yet not rolled back: {report:?}");
        assert!(!input_valid && !report.provider_repairs.is_empty(), "changed despite a rollback: {report:?}");
        assert_eq!(result.messages, repair::repair(messages, &RepairOptions::for_provider(provider)).messages);
        return;
    }
    if input_valid {
        assert!(
            report.after.bytes < report.before.bytes,
            "changed but not smaller: {} -> {} bytes; strategy {:?}; report {:?}",
            report.before.bytes,
            report.after.bytes,
            options.strategy,
            report
        );
    }
    // 5. idempotent: compacting the result again with a well-behaved summarizer makes no
    // call (only meaningful when the first run was well-behaved too).
    // On a valid input only: repairing an invalid one can expose new work to a second run.
    if summarizer.well_behaved_plan() && report.errors.is_empty() && input_valid {
        let again = MockSummarizer::well_behaved();
        let _ =
            futures::executor::block_on(run::compact(&result.messages, &options, &again, &controls, Meter::default()));
        let second = futures::executor::block_on(run::compact(
            &result.messages,
            &options,
            &MockSummarizer::well_behaved(),
            &controls,
            Meter::default(),
        ));
        assert_eq!(
            again.calls.get(),
            0,
            "second run made {} call(s); strategy {:?}; first report {:?}; second {:?}",
            again.calls.get(),
            options.strategy,
            report,
            second.as_ref().map(|r| &r.report)
        );
    }
}
