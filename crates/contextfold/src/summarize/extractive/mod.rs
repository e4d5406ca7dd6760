//! The built-in offline summarizer: deterministic, no model. It reads the messages of a
//! request (or the transcript [`crate::prompt`] renders of them) and fills the summary
//! schema ([`crate::schema`]) from the chain's structure, within the request's target:
//!
//! - the user's requests verbatim, in order (harness notices left out);
//! - the goal (the first request's opening) and the constraints the user stated;
//! - the task list a tool was given, the tasks of a tracker the commands drove (latest
//!   statuses), and the latest state;
//! - files grouped by path, relative to a root named once, with what was done to each
//!   and the identifiers the edits defined or introduced;
//! - commands paired with their latest outcome;
//! - errors taken only from tool results, each with the assistant's next words as fix;
//! - decisions and findings the assistant stated;
//! - the next step, tied to the latest request.
//!
//! An earlier summary (`<previous_summary>`) is merged section by section: its bullets are
//! carried forward verbatim unless a new fact about the same file or command replaces
//! them; when the target cannot hold them all, the requests made after the first yield
//! first, oldest first, before the errors, decisions and files carried. Bullets are whole (never cut mid-path); the best ones are kept until the target
//! is full; what room is left then goes to more of the names each file and list carries.
//! Content with none of those facts (a search's hits, a listing) is summarized by its
//! own first and last lines. The same request always gives the same summary.

mod excerpt;
mod facts;
mod idents;
mod names;
mod tasks;
mod text;
mod transcript;

use super::{SummarizeError, Summarizer, SummaryRequest};
use crate::prompt::Draft;
use crate::schema::{self, Section};
use facts::Facts;
use text::{cut_words, sentences, Words};

/// Settings of the extractive summarizer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtractiveSummarizer {
    /// Upper bound on a summary's size in bytes, whatever the request asks.
    pub max_bytes: usize,
    /// Longest single bullet kept, in characters (longer ones end with `…` after a word).
    pub max_line_chars: usize,
}

impl Default for ExtractiveSummarizer {
    fn default() -> Self {
        ExtractiveSummarizer { max_bytes: 32_768, max_line_chars: 600 }
    }
}

impl Summarizer for ExtractiveSummarizer {
    async fn summarize(&self, request: SummaryRequest) -> Result<String, SummarizeError> {
        Ok(self.summarize_transcript(&request.transcript, request.target_bytes))
    }

    /// The messages are read where they lie: no transcript (often most of the chain) is
    /// rendered only to be read back.
    fn reads_messages(&self) -> bool {
        true
    }

    async fn summarize_draft(&self, request: SummaryRequest, draft: Draft<'_>) -> Result<String, SummarizeError> {
        Ok(self.summarize_messages(&draft, request.target_bytes))
    }
}

/// One candidate line of the summary.
#[derive(Debug, Clone)]
struct Bullet {
    section: Section,
    text: String,
    score: u32,
    order: usize,
    /// Names that may follow the text (`, name`) when there is room left.
    more: Vec<String>,
}

/// Names a file's bullet (or a list of names) always carries; more when there is room.
const BASE_NAMES: usize = 4;
/// How many namings of a name count for its rank among the names the assistant used.
const MENTION_RANKS: u32 = 16;
/// Names a test file's bullet carries, and no more.
const TEST_NAMES: usize = 2;
/// A further name scores this much under its bullet...
const NAME_DISCOUNT: u32 = 6;
/// ...and this much less for each name before it in its list...
const NAME_DECAY: u32 = 2;
/// ...and never above a file's own bullet: a path first, then names.
const NAME_CEILING: u32 = 65;

impl ExtractiveSummarizer {
    /// Summarizes a rendered transcript within `target_bytes` (capped by `max_bytes`).
    pub fn summarize_transcript(&self, transcript: &str, target_bytes: usize) -> String {
        self.summarize_items(&transcript::parse(transcript), target_bytes)
    }

    /// Summarizes the messages of `draft` as [`Self::summarize_transcript`] summarizes
    /// their transcript, without rendering one.
    pub fn summarize_messages(&self, draft: &Draft<'_>, target_bytes: usize) -> String {
        self.summarize_items(&transcript::of_draft(draft), target_bytes)
    }

    fn summarize_items(&self, items: &[transcript::Item<'_>], target_bytes: usize) -> String {
        // The hint is honoured, however small: a summary over it may be no smaller than
        // what it replaces, and would be discarded and asked for again on every run.
        let budget = target_bytes.min(self.max_bytes.max(128)).max(1);
        let facts = Facts::gather(items);
        let mut best = fill(self.candidates(&facts), budget);
        if best.is_empty() {
            // Nothing fits whole: the most important bullet, cut to the budget.
            let top =
                self.candidates(&facts).into_iter().max_by(|a, b| a.score.cmp(&b.score).then(b.order.cmp(&a.order)));
            best = match top {
                Some(top) => top.text,
                // No fact at all: the content's own first and last lines.
                None => excerpt::lines(items, budget, self.max_line_chars),
            };
            if best.is_empty() {
                best = "(nothing to keep)".to_string();
            }
        }
        let mut end = budget.min(best.len());
        while !best.is_char_boundary(end) {
            end = end.saturating_sub(1);
        }
        best.truncate(end);
        best
    }

    /// The earlier summary's bullets that still hold, then every bullet the facts give.
    fn candidates(&self, f: &Facts) -> Vec<Bullet> {
        let mut new = Candidates { max_line_chars: self.max_line_chars, bullets: Vec::new() };
        new.requests(f);
        new.state(f);
        new.files(f);
        new.commands(f);
        new.errors(f);
        new.decisions(f);
        new.next(f);
        merge_previous(&f.previous, new.bullets)
    }
}

/// Commands that only look around or move files: rarely what a continuing agent needs.
const ROUTINE_COMMANDS: [&str; 19] = [
    "ls",
    "cd",
    "cat",
    "echo",
    "pwd",
    "date",
    "chmod",
    "mkdir",
    "rm",
    "cp",
    "mv",
    "head",
    "tail",
    "wc",
    "which",
    "sleep",
    "git status",
    "git log",
    "git diff",
];

/// Words that mark a sentence of the user as a rule to keep (lowercased).
const RULE_WORDS: Words =
    Words::new(&["must", "never", "don't", "do not", "always", "only", "without", "prefer", "avoid"]);
/// Words that mark a sentence of the assistant as what it does next (lowercased).
const INTENT_WORDS: Words = Words::new(&["next", "then", "let me", "i'll", "i will", "need to", "still", "now"]);

/// The new bullets, numbered in the order they are found: that order breaks ties in
/// score, so the sections are gathered in a fixed order.
struct Candidates {
    max_line_chars: usize,
    bullets: Vec<Bullet>,
}

impl Candidates {
    /// A bullet, unless it is blank.
    fn push(&mut self, section: Section, text: String, score: u32, more: Vec<String>) {
        if !text.trim().is_empty() {
            let order = self.bullets.len();
            self.bullets.push(Bullet { section, text, score, order, more });
        }
    }

    /// A bullet cut to the longest line kept, with no names to follow.
    fn push_line(&mut self, section: Section, text: &str, score: u32) {
        self.push(section, self.line(text), score, Vec::new());
    }

    fn line(&self, text: &str) -> String {
        cut_words(text, self.max_line_chars)
    }

    /// Requests, verbatim: the first and the latest above all; then the goal (the first
    /// request's opening) and the rules the user stated.
    fn requests(&mut self, f: &Facts) {
        let last = f.requests.len().saturating_sub(1);
        for (i, r) in f.requests.iter().enumerate() {
            let score = if i == 0 {
                100
            } else if i == last {
                99
            } else {
                85u32.saturating_sub(i as u32).max(60)
            };
            self.push_line(Section::Requests, r, score);
        }
        if let Some(first) = f.requests.first().and_then(|r| sentences(r).into_iter().next()) {
            self.push_line(Section::Goal, first, 94);
        }
        for r in &f.requests {
            for s in sentences(r) {
                if RULE_WORDS.in_text(s) {
                    self.push_line(Section::Goal, s, 75);
                }
            }
        }
    }

    /// State: the task list, then the latest words of the assistant.
    fn state(&mut self, f: &Facts) {
        for (status, task) in &f.todos {
            let score = if status == "in progress" { 88 } else { 84 };
            self.push_line(Section::State, &format!("[{status}] {task}"), score);
        }
        for task in &f.tasks {
            // Only tasks with a status are listed (tasks.rs).
            let Some(status) = task.status.as_deref() else { continue };
            let text = match &task.title {
                Some(title) => format!("[{status}] {} · {title}", task.id),
                None => format!("[{status}] {}", task.id),
            };
            self.push_line(Section::State, &text, if status == "in progress" { 88 } else { 84 });
        }
        if let Some(text) = &f.last_text {
            let said: Vec<&str> = sentences(text).into_iter().take(3).collect();
            self.push_line(Section::State, &format!("Latest: {}", said.join(" ")), 92);
        }
    }

    /// Files, relative to one root, changed and recent ones scored higher; then the names
    /// the assistant mentioned that no file path ends with, the most often named first.
    fn files(&mut self, f: &Facts) {
        let root = common_root(f.files.iter().map(|x| x.path.as_str()));
        if let Some(root) = &root {
            // Above every file's bullet: their paths are relative to it.
            self.push(Section::Files, format!("Root: {root}"), 90, Vec::new());
        }
        let newest = f.files.iter().map(|x| x.last).max().unwrap_or(1).max(1);
        for (file, names) in f.files.iter().zip(names::ranked(f)) {
            let path = root
                .as_deref()
                .and_then(|r| file.path.strip_prefix(r))
                .map_or(file.path.as_str(), |p| p.trim_start_matches('/'));
            // What changed a file says what it is; that it was also read or searched does not.
            let changed = file.verbs.iter().any(|(v, _)| v == "edited" || v == "written");
            let verbs: Vec<String> = file
                .verbs
                .iter()
                .filter(|(v, _)| !changed || !matches!(v.as_str(), "read" | "searched"))
                .map(|(v, n)| if *n > 1 { format!("{v} {n}x") } else { v.clone() })
                .collect();
            let mut text = format!("{path}: {}", verbs.join(", "));
            // A test's names matter less than those of the code it tests.
            let limit = if is_test_path(path) { TEST_NAMES } else { names.len() };
            let names = names.get(..limit.min(names.len())).unwrap_or_default();
            let ids: Vec<&str> = names.iter().take(BASE_NAMES).map(String::as_str).collect();
            if !ids.is_empty() {
                text.push_str("; ");
                text.push_str(&ids.join(", "));
            }
            let more: Vec<String> = names.iter().skip(BASE_NAMES).cloned().collect();
            let recency = (file.last.saturating_mul(8) / newest) as u32;
            self.push(Section::Files, self.line(&text), if changed { 76 } else { 66 } + recency, more);
        }
        // A plain word (`rescue`, `case`) is a keyword of the language more often than a name.
        let plain = |m: &str| m.chars().all(|c| c.is_ascii_lowercase());
        let listed: Vec<&(String, u32)> = f
            .mentions
            .iter()
            .filter(|(m, _)| !plain(m) && !f.files.iter().any(|x| x.path.ends_with(m.as_str())))
            .collect();
        // By count, highest first, in passes (no sort: each instance of one costs the wasm
        // kilobytes); within a count, in the order first named.
        // Past `MENTION_RANKS` namings, more do not rank a name higher.
        let rank = |n: u32| n.min(MENTION_RANKS);
        let mentions: Vec<String> = (1..=MENTION_RANKS)
            .rev()
            .flat_map(|c| listed.iter().filter(move |(_, n)| rank(*n) == c).map(|(m, _)| m.clone()))
            .collect();
        if let Some((head, more)) = mentions.split_first() {
            self.push(Section::Files, format!("Also named: {head}"), 60, more.to_vec());
        }
    }

    /// Commands, one bullet for the runs of each (`mix test`), with the latest run and its
    /// outcome; failed and recent ones scored higher.
    fn commands(&mut self, f: &Facts) {
        let newest = f.commands.iter().map(|c| c.last).max().unwrap_or(1).max(1);
        for c in &f.commands {
            let mut text = format!("`{}`", cut_words(&c.command, 60));
            if let Some(o) = &c.outcome {
                text.push_str(if c.failed { " → failed: " } else { " → " });
                text.push_str(&cut_words(o, 60));
            }
            if c.runs > 1 {
                text.push_str(&format!(" ({} runs)", c.runs));
            }
            let recency = (c.last.saturating_mul(6) / newest) as u32;
            // Run again and again (the build, the tests): how the work is checked.
            let repeated = c.runs.saturating_sub(1).min(3) as u32;
            // A tracker's commands are in the task list already.
            let tracker = f.tasks.iter().any(|t| c.command.split_whitespace().any(|w| w == t.id));
            let routine = tracker || ROUTINE_COMMANDS.contains(&c.key.as_str());
            let score = 58 + if c.failed { 8 } else { 0 } + recency + repeated;
            self.push_line(Section::Commands, &text, if routine { score.saturating_sub(8) } else { score });
        }
    }

    /// Errors with their fix, the first three above the rest.
    fn errors(&mut self, f: &Facts) {
        for (i, e) in f.errors.iter().enumerate() {
            let text = match &e.fix {
                Some(fix) => format!("{} → {fix}", e.text),
                None => e.text.clone(),
            };
            self.push_line(Section::Errors, &text, if i < 3 { 78 } else { 62 });
        }
    }

    fn decisions(&mut self, f: &Facts) {
        for (d, score) in &f.decisions {
            self.push_line(Section::Decisions, d, *score);
        }
    }

    /// The next step: what the assistant was about to do, and the latest request.
    fn next(&mut self, f: &Facts) {
        if let Some(text) = &f.last_text {
            let said = sentences(text);
            // The state already quotes the first three sentences.
            if let Some(s) = said.iter().skip(3).rev().find(|s| INTENT_WORDS.in_text(s)) {
                self.push_line(Section::Next, s, 89);
            }
        }
        if let Some(latest) = f.requests.last() {
            let text = format!("Continue with the latest request: {}", cut_words(latest, 200));
            self.push(Section::Next, text, 91, Vec::new());
        }
    }
}

/// The earlier summary's bullets first in each section, unless a new bullet about the same
/// thing (a file, a command, the latest state) replaces them; then the new ones.
fn merge_previous(previous: &[(Section, Vec<String>)], new: Vec<Bullet>) -> Vec<Bullet> {
    let mut out = Vec::new();
    for (section, bullets) in previous {
        let newest = bullets.len().saturating_sub(1).max(1);
        for (i, text) in bullets.iter().enumerate() {
            let replaced = new.iter().any(|b| b.section == *section && key(*section, &b.text) == key(*section, text));
            if !replaced {
                // Carried forward: the first request and the rules outrank new routine
                // lines; the errors, decisions and files found earlier outrank the
                // requests made since the first, old or new (at most 84), which pile up
                // fold after fold and would otherwise fill the target with requests alone
                // (the newest of the old ones first).
                let score: u32 = match section {
                    Section::Requests if i == 0 => 96,
                    Section::Requests => 64u32.saturating_add((i.saturating_mul(8) / newest) as u32),
                    Section::Goal => 96,
                    Section::Errors | Section::Decisions => 86,
                    Section::Files => 82,
                    Section::State | Section::Next => 40,
                    _ => 62,
                };
                let score =
                    if *section == Section::Requests { score } else { score.saturating_sub(i.min(20) as u32 / 4) };
                out.push(Bullet { section: *section, text: text.clone(), score, order: 0, more: Vec::new() });
            }
        }
    }
    let offset = out.len();
    out.extend(new.into_iter().map(|b| Bullet { order: b.order.saturating_add(offset), ..b }));
    for (i, b) in out.iter_mut().enumerate().take(offset) {
        b.order = i;
    }
    out
}

/// What a bullet is about: its file, or what its command does (`mix test`), for those
/// sections; its kind for the latest state; else its text.
fn key(section: Section, text: &str) -> String {
    let head = match section {
        Section::Files => text.split(": ").next().unwrap_or(text),
        Section::Commands => return text::command_key(text.split(" → ").next().unwrap_or(text)).to_lowercase(),
        Section::State if text.starts_with("Latest: ") => "Latest: ",
        Section::Next if text.starts_with("Continue with the latest request: ") => "Continue",
        _ => text,
    };
    head.trim().to_lowercase()
}

/// Whether a path is a test's (`test/`, `tests/`, `__tests__/`, `*_test.*`, `*.test.*`,
/// `*.spec.*`, `test_*`).
fn is_test_path(path: &str) -> bool {
    let p = path.to_lowercase();
    let name = p.rsplit('/').next().unwrap_or(&p);
    p.split('/').any(|d| matches!(d, "test" | "tests" | "__tests__" | "spec"))
        || name.starts_with("test_")
        || [".test.", ".spec.", "_test.", "_spec."].iter().any(|m| name.contains(m))
}

/// The deepest directory holding every absolute path (at least two levels deep), or
/// `None` when there is no such path or no common directory.
fn common_root<'a>(paths: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut root: Option<Vec<&str>> = None;
    for p in paths.filter(|p| p.starts_with('/')) {
        let dirs: Vec<&str> = p.split('/').collect();
        let dirs = dirs.get(..dirs.len().saturating_sub(1)).unwrap_or_default();
        root = Some(match root {
            None => dirs.to_vec(),
            Some(r) => r.iter().zip(dirs).take_while(|(a, b)| a == b).map(|(a, _)| *a).collect(),
        });
    }
    let root = root?;
    (root.len() > 2).then(|| root.join("/"))
}

/// The best bullets that fit `budget`, rendered in schema order, each section's bullets
/// in their original order.
fn fill(bullets: Vec<Bullet>, budget: usize) -> String {
    // Candidates: every bullet, and every further name a bullet may carry, scored a little
    // under its bullet and less the further down its list (a file's first names outrank a
    // routine command; its fortieth do not). A name is taken only with its bullet.
    enum Atom {
        Bullet(usize),
        Name(usize, String),
    }
    let mut atoms: Vec<(u32, usize, Atom)> = Vec::new();
    for (i, b) in bullets.iter().enumerate() {
        atoms.push((b.score, b.order, Atom::Bullet(i)));
        for (k, name) in b.more.iter().enumerate() {
            let score = b
                .score
                .saturating_sub(NAME_DISCOUNT)
                .saturating_sub((k as u32).saturating_mul(NAME_DECAY))
                .min(NAME_CEILING);
            atoms.push((score, b.order, Atom::Name(i, name.clone())));
        }
    }
    atoms.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut bullets: Vec<Option<Bullet>> = bullets.into_iter().map(Some).collect();
    let mut kept: Vec<Bullet> = Vec::new();
    // Index in `kept` of each bullet taken, by its index in `bullets`.
    let mut placed: crate::hashing::HashMap<usize, usize> = crate::hashing::HashMap::default();
    let mut seen = crate::hashing::HashSet::default();
    let mut names_shown: crate::hashing::HashSet<String> = crate::hashing::HashSet::default();
    let mut used = 0usize;
    for (_, _, atom) in atoms {
        match atom {
            Atom::Bullet(i) => {
                let Some(b) = bullets.get_mut(i).and_then(Option::take) else { continue };
                let heading = if kept.iter().any(|k| k.section == b.section) {
                    0
                } else {
                    b.section.heading().len().saturating_add(5)
                };
                let cost = b.text.len().saturating_add(3).saturating_add(heading);
                if used.saturating_add(cost) > budget || !seen.insert(b.text.to_lowercase()) {
                    continue;
                }
                used = used.saturating_add(cost);
                placed.insert(i, kept.len());
                if let Some((_, names)) = b.text.split_once("; ") {
                    names_shown.extend(text::split_names(names).into_iter().map(str::to_string));
                }
                kept.push(b);
            }
            Atom::Name(i, name) => {
                let Some(b) = placed.get(&i).and_then(|&k| kept.get_mut(k)) else { continue };
                let cost = name.len().saturating_add(2);
                // A name already shown (under another bullet, or in a line this one quotes)
                // adds nothing.
                if used.saturating_add(cost) <= budget && !b.text.contains(&name) && names_shown.insert(name.clone()) {
                    used = used.saturating_add(cost);
                    b.text.push_str(", ");
                    b.text.push_str(&name);
                }
            }
        }
    }
    kept.sort_by_key(|b| b.order);
    let mut sections: Vec<(Section, Vec<String>)> = Vec::new();
    for b in kept {
        match sections.iter_mut().find(|(s, _)| *s == b.section) {
            Some((_, list)) => list.push(b.text),
            None => sections.push((b.section, vec![b.text])),
        }
    }
    schema::render(&sections)
}
