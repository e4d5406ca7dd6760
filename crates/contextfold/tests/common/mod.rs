//! Builders and checks shared by the AST tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use contextfold::ast::ChainAst;
use contextfold::message::{messages_size, Extra, Message, Part, ReasoningPart, Role, ToolCallPart};

pub fn sys(text: &str) -> Message {
    Message::text(Role::System, text)
}

pub fn user(text: &str) -> Message {
    Message::text(Role::User, text)
}

pub fn ai(text: &str) -> Message {
    Message::text(Role::Assistant, text)
}

pub fn call(id: &str, name: &str, args: &str) -> Part {
    Part::ToolCall(ToolCallPart {
        id: id.into(),
        name: name.into(),
        arguments: args.into(),
        signature: None,
        extra: Extra::new(),
    })
}

/// An assistant message with a text part and calls `(id, name)` with `{}` arguments.
pub fn ai_calls(text: &str, calls: &[(&str, &str)]) -> Message {
    let mut parts = vec![Part::text(text)];
    parts.extend(calls.iter().map(|(id, name)| call(id, name, "{}")));
    Message::new(Role::Assistant, parts)
}

pub fn tool(id: &str, name: &str, content: &str) -> Message {
    Message::tool_result(id, name, content)
}

pub fn reasoning(text: &str, signature: Option<&str>) -> Part {
    Part::Reasoning(ReasoningPart {
        text: text.into(),
        signature: signature.map(str::to_string),
        redacted_data: None,
        extra: Extra::new(),
    })
}

/// Every cached size equals a from-scratch recomputation from the messages.
pub fn assert_sizes_consistent(ast: &ChainAst) {
    let mut total = 0;
    for (i, s) in ast.sections().iter().enumerate() {
        let header = messages_size(&s.header().messages());
        assert_eq!(s.header().size(), header, "header size of section {i}");
        let mut section = header;
        for (j, p) in s.body().iter().enumerate() {
            let pair = messages_size(&p.messages());
            assert_eq!(p.size(), pair, "size of pair {j} in section {i}");
            section += pair;
        }
        assert_eq!(s.size(), section, "size of section {i}");
        assert_eq!(messages_size(&s.messages()), section, "section {i} messages");
        total += section;
    }
    assert_eq!(ast.size(), total, "chain size");
    assert_eq!(ast.size(), messages_size(&ast.messages()), "chain size vs messages");
}

/// The real transcripts in `../shared/fixtures/real/` beside the project, sorted; `None`
/// (after printing a notice) when that folder is absent, as in a clone without `shared/`; under
/// `CI=true` that panics instead. `CONTEXTFOLD_REAL_FIXTURES` names another folder (to test this).
pub fn real_fixtures() -> Option<Vec<std::path::PathBuf>> {
    let default = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fixtures/real");
    let dir = std::env::var_os("CONTEXTFOLD_REAL_FIXTURES").map_or_else(|| default.into(), std::path::PathBuf::from);
    let files = fixtures_in(&dir, std::env::var("CI").is_ok_and(|ci| ci == "true"));
    if let Err(notice) = &files {
        println!("{notice}");
    }
    files.ok()
}

/// The `.json` files of `dir`, sorted; `Err(notice)` when `dir` is missing outside CI. Under CI
/// (`ci`) a missing dir panics: CI must never pass by skipping the real transcripts.
pub fn fixtures_in(dir: &std::path::Path, ci: bool) -> Result<Vec<std::path::PathBuf>, String> {
    if !dir.is_dir() {
        let what = format!("the real transcripts ({}) are missing", dir.display());
        let how = "they live beside the project in /work/shared/fixtures/real (../shared/fixtures/real)";
        assert!(!ci, "CI=true and {what}: {how}. CI must not pass by skipping.");
        return Err(format!("notice: {what}, real-transcript tests skipped ({how})"));
    }
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    Ok(files)
}

/// A future pending `n` times (waking itself each time), then ready: makes later calls
/// finish first, or calls stay in flight together.
pub struct Delay(pub usize);

impl std::future::Future for Delay {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        if self.0 == 0 {
            return std::task::Poll::Ready(());
        }
        self.0 -= 1;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

/// An assistant message with exactly these parts.
pub fn ai_parts(parts: Vec<Part>) -> Message {
    Message::new(Role::Assistant, parts)
}

/// One tool message holding several results `(call id, content)` (name `tool`).
pub fn tool_multi(results: &[(&str, &str)]) -> Message {
    let parts = results.iter().flat_map(|(id, content)| Message::tool_result(*id, "tool", *content).parts).collect();
    Message::new(Role::Tool, parts)
}

/// Settings that make each strategy fold chains of a few dozen messages and more (the
/// demo session among them), adding summaries.
pub fn folding_strategies() -> Vec<contextfold::strategy::run::StrategyConfig> {
    use contextfold::measure::Amount;
    use contextfold::strategy::run::StrategyConfig;
    vec![
        StrategyConfig::Auto(contextfold::strategy::auto::AutoConfig::for_budget(Amount::Tokens(6000))),
        StrategyConfig::Mask(contextfold::strategy::mask::MaskConfig { keep_last: 2, ..Default::default() }),
        StrategyConfig::Sections(contextfold::strategy::sections::SectionsConfig {
            last_sec_bytes: 8192,
            max_bp_bytes: 2048,
            ..Default::default()
        }),
        StrategyConfig::Window(contextfold::strategy::window::WindowConfig {
            window: 12,
            threshold: Amount::Tokens(6000),
            message_threshold: Amount::Tokens(1500),
            ..Default::default()
        }),
        // Re-tiering whenever called, whatever the count (the trigger off).
        StrategyConfig::Tiers(contextfold::strategy::tiers::TiersConfig {
            recent: 8,
            condensed: 12,
            auto: false,
            ..Default::default()
        }),
        StrategyConfig::Budget(contextfold::strategy::budget::BudgetConfig::new(Amount::Tokens(12_000))),
    ]
}

/// `auto` compaction to `tokens` under `provider`'s rules, with the offline summarizer.
pub fn compact_auto(
    messages: &[Message],
    tokens: usize,
    provider: contextfold::repair::Provider,
) -> contextfold::strategy::CompactResult {
    use contextfold::measure::{Amount, Meter};
    use contextfold::strategy::run::{compact, CompactOptions, StrategyConfig};
    let options = CompactOptions {
        strategy: StrategyConfig::Auto(contextfold::strategy::auto::AutoConfig::for_budget(Amount::Tokens(tokens))),
        repair: contextfold::repair::RepairOptions::for_provider(provider),
        ..Default::default()
    };
    let summarizer = contextfold::summarize::extractive::ExtractiveSummarizer::default();
    let controls = contextfold::summarize::Controls::default();
    futures::executor::block_on(compact(messages, &options, &summarizer, &controls, Meter::default())).unwrap()
}

/// A deterministic stream of numbers (xorshift), so every run sees the same chains.
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}
