//! The built-in extractive summarizer: deterministic, offline, no model. It reads the
//! transcript of a [`SummaryRequest`] (the envelope [`crate::prompt`] renders) and keeps
//! what a later turn most likely needs, within the request's target size:
//!
//! 1. the user's goals and constraints (task text, first sentences first);
//! 2. errors and failures seen in tool results (lines that say error, failed, panic, ...);
//! 3. decisions and conclusions the assistant stated;
//! 4. the actions taken (tool calls with their most telling argument);
//! 5. files, identifiers and numbers mentioned;
//! 6. the last state: the final assistant text.
//!
//! Lines are scored, the best kept within the budget, and printed grouped by kind in
//! their original order. The same request always gives the same summary.

use super::{SummarizeError, Summarizer, SummaryRequest};

/// Settings of the extractive summarizer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtractiveSummarizer {
    /// Upper bound on a summary's size in bytes, whatever the request asks.
    pub max_bytes: usize,
    /// Longest single line kept, in characters (longer ones are cut with `…`).
    pub max_line_chars: usize,
}

impl Default for ExtractiveSummarizer {
    fn default() -> Self {
        ExtractiveSummarizer { max_bytes: 4096, max_line_chars: 240 }
    }
}

impl Summarizer for ExtractiveSummarizer {
    async fn summarize(&self, request: SummaryRequest) -> Result<String, SummarizeError> {
        Ok(self.summarize_transcript(&request.transcript, request.target_bytes))
    }
}

/// What a kept line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Kind {
    Goal,
    Error,
    Decision,
    Action,
    Fact,
    LastState,
}

impl Kind {
    /// Most of the budget one kind may take, in percent, so that a session full of
    /// errors still shows its goals, actions and files.
    fn share(self) -> usize {
        match self {
            Kind::Goal => 30,
            Kind::Error => 25,
            Kind::Decision => 30,
            Kind::Action => 20,
            Kind::Fact => 10,
            Kind::LastState => 15,
        }
    }

    fn heading(self) -> &'static str {
        match self {
            Kind::Goal => "Goals and constraints",
            Kind::Error => "Errors seen",
            Kind::Decision => "Decisions and findings",
            Kind::Action => "Actions taken",
            Kind::Fact => "Files and identifiers",
            Kind::LastState => "Last state",
        }
    }
}

#[derive(Debug, Clone)]
struct Line {
    kind: Kind,
    text: String,
    score: u32,
    order: usize,
}

impl ExtractiveSummarizer {
    /// Summarizes a rendered transcript within `target_bytes` (capped by `max_bytes`).
    pub fn summarize_transcript(&self, transcript: &str, target_bytes: usize) -> String {
        // The hint is honoured, however small: a summary over it may be no smaller than
        // what it replaces, and would be discarded and asked for again on every run.
        let budget = target_bytes.min(self.max_bytes.max(128)).max(1);
        let lines = self.candidates(&parse_transcript(transcript));
        // Best first; ties by order, so the choice is deterministic.
        let mut ranked: Vec<&Line> = lines.iter().collect();
        ranked.sort_by(|a, b| b.score.cmp(&a.score).then(a.order.cmp(&b.order)));
        let mut kept: Vec<&Line> = Vec::new();
        let mut kinds: Vec<Kind> = Vec::new();
        let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
        let mut used = 0usize;
        let mut per_kind: std::collections::HashMap<Kind, usize> = std::collections::HashMap::new();
        for line in ranked {
            let heading = if kinds.contains(&line.kind) { 0 } else { heading_cost(line.kind) };
            let cost = line.text.len().saturating_add(3).saturating_add(heading);
            let kind_used = per_kind.entry(line.kind).or_insert(0);
            // Every kind gets its best line; past that, its share of the budget.
            let over_share =
                *kind_used > 0 && kind_used.saturating_add(cost) > budget.saturating_mul(line.kind.share()) / 100;
            if used.saturating_add(cost) > budget || over_share || !seen.insert(line.text.to_lowercase()) {
                continue;
            }
            *kind_used = kind_used.saturating_add(cost);
            used = used.saturating_add(cost);
            if heading > 0 {
                kinds.push(line.kind);
            }
            kept.push(line);
        }
        kept.sort_by(|a, b| a.kind.cmp(&b.kind).then(a.order.cmp(&b.order)));
        let mut out = String::new();
        let mut current: Option<Kind> = None;
        for line in kept {
            if current != Some(line.kind) {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(line.kind.heading());
                out.push_str(":\n");
                current = Some(line.kind);
            }
            out.push_str("- ");
            out.push_str(&line.text);
            out.push('\n');
        }
        if out.is_empty() {
            // Nothing fits whole: the best line, cut to the budget.
            let best = lines.iter().max_by(|a, b| a.score.cmp(&b.score).then(b.order.cmp(&a.order)));
            out.push_str(best.map_or("(nothing to keep)", |l| l.text.as_str()));
        }
        let mut end = budget.min(out.len());
        while !out.is_char_boundary(end) {
            end = end.saturating_sub(1);
        }
        out.truncate(end);
        out
    }

    fn candidates(&self, items: &[Item]) -> Vec<Line> {
        let mut lines = Vec::new();
        let mut order = 0usize;
        let mut push = |lines: &mut Vec<Line>, kind: Kind, text: &str, score: u32| {
            let text = truncate_chars(text.trim(), self.max_line_chars);
            if !text.is_empty() {
                lines.push(Line { kind, text, score, order });
                order = order.saturating_add(1);
            }
        };
        let mut seen_actions: Vec<String> = Vec::new();
        let last_text = items.iter().rposition(|i| matches!(i, Item::AssistantText(_)));
        for (index, item) in items.iter().enumerate() {
            match item {
                Item::Previous { kind, text } => {
                    // What an earlier summary kept survives an update; its last state
                    // is history now. Goals and errors outrank new routine lines.
                    let (kind, score) = match kind {
                        Kind::LastState => (Kind::Decision, 60),
                        Kind::Goal => (Kind::Goal, 95),
                        Kind::Error => (Kind::Error, 70),
                        k => (*k, 58),
                    };
                    push(&mut lines, kind, text, score);
                }
                Item::Task(text) => {
                    // Pleasantries ("Thanks!") are no goals.
                    let goals = sentences(text).into_iter().filter(|s| s.split_whitespace().count() >= 3);
                    for (n, sentence) in goals.enumerate() {
                        let score = if n == 0 { 100 } else { 60u32.saturating_sub(n as u32 * 5).max(20) };
                        push(&mut lines, Kind::Goal, sentence, score.saturating_add(bonus(sentence)));
                    }
                }
                Item::AssistantText(text) => {
                    let is_last = Some(index) == last_text;
                    for (n, sentence) in sentences(text).into_iter().enumerate() {
                        if is_last && n < 3 {
                            push(&mut lines, Kind::LastState, sentence, 90u32.saturating_sub(n as u32 * 10));
                        } else if is_decision(sentence) {
                            push(&mut lines, Kind::Decision, sentence, 50u32.saturating_add(bonus(sentence)));
                        }
                    }
                }
                Item::Call { name, args } => {
                    let detail = telling_argument(args);
                    let text = if detail.is_empty() {
                        name.clone()
                    } else {
                        truncate_chars(&format!("{name}: {detail}"), 100)
                    };
                    // The first call on each file or command matters most; repeats little.
                    let repeat = seen_actions.contains(&text);
                    let score = if repeat { 20 } else { 55u32.saturating_add(bonus(&detail).min(8)) };
                    seen_actions.push(text.clone());
                    push(&mut lines, Kind::Action, &text, score);
                }
                Item::Result { name, text, error } => {
                    // At most three error lines a result: error messages before a
                    // failing test's name, then the earliest, printed in their order.
                    let mut found: Vec<(u32, usize, &str)> = text
                        .lines()
                        .enumerate()
                        .filter(|(_, l)| is_error_line(l))
                        .map(|(i, l)| (error_score(l), i, l.trim()))
                        .collect();
                    found.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
                    found.truncate(3);
                    found.sort_by_key(|f| f.1);
                    let errors = found.len();
                    for (score, _, line) in found {
                        push(&mut lines, Kind::Error, &format!("{name}: {line}"), score);
                    }
                    if *error && errors == 0 {
                        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or_default();
                        push(&mut lines, Kind::Error, &format!("{name} failed: {}", first.trim()), 75);
                    }
                    for fact in facts(text).into_iter().take(5) {
                        push(&mut lines, Kind::Fact, fact, 25);
                    }
                }
            }
        }
        lines
    }
}

fn heading_cost(kind: Kind) -> usize {
    kind.heading().len().saturating_add(3)
}

/// Extra score for concrete details: paths, numbers, identifiers.
fn bonus(text: &str) -> u32 {
    let words = text.split_whitespace();
    let mut b = 0u32;
    for w in words {
        if looks_like_path(w) {
            b = b.saturating_add(8);
        } else if w.chars().any(|c| c.is_ascii_digit()) {
            b = b.saturating_add(3);
        }
    }
    b.min(30)
}

/// One thing the transcript holds.
#[derive(Debug, Clone, PartialEq)]
enum Item {
    Task(String),
    AssistantText(String),
    Call {
        name: String,
        args: String,
    },
    Result {
        name: String,
        text: String,
        error: bool,
    },
    /// A line of an earlier summary being updated, under the heading it was filed in.
    Previous {
        kind: Kind,
        text: String,
    },
}

const KINDS: [Kind; 6] = [Kind::Goal, Kind::Error, Kind::Decision, Kind::Action, Kind::Fact, Kind::LastState];

/// Lines of an earlier summary (ours or any other), filed under the kind their heading
/// names; lines under no known heading count as findings.
fn previous_items(body: &str, items: &mut Vec<Item>) {
    let mut kind = Kind::Decision;
    for line in body.lines() {
        let line = line.trim();
        if let Some(k) = KINDS.iter().find(|k| line.strip_suffix(':') == Some(k.heading())) {
            kind = *k;
            continue;
        }
        let text = line.trim_start_matches(['-', '*', ' ']);
        if !text.is_empty() {
            items.push(Item::Previous { kind, text: text.to_string() });
        }
    }
}

/// Reads the envelope [`crate::prompt::render`] writes back into items.
fn parse_transcript(t: &str) -> Vec<Item> {
    let mut items = Vec::new();
    let mut rest = t;
    let mut role = "";
    let mut in_task = false;
    let mut result: Option<(String, bool, String)> = None;
    while let Some(open) = rest.find('<') {
        let Some(close) = rest.get(open..).and_then(|r| r.find('>')).map(|c| open.saturating_add(c)) else {
            break;
        };
        let tag = rest.get(open.saturating_add(1)..close).unwrap_or_default();
        let after = rest.get(close.saturating_add(1)..).unwrap_or_default();
        let name = tag.split_whitespace().next().unwrap_or_default();
        match name {
            "task" => in_task = true,
            "/task" => in_task = false,
            "message" => role = attr(tag, "role").map_or("", |r| if r == "assistant" { "assistant" } else { "other" }),
            "content" => {
                let end = after.find("</content>").unwrap_or(after.len());
                let text = unescape(after.get(..end).unwrap_or_default());
                if let Some((_, _, body)) = result.as_mut() {
                    body.push_str(&text);
                    body.push('\n');
                } else if in_task {
                    items.push(Item::Task(text));
                } else if role == "assistant" {
                    items.push(Item::AssistantText(text));
                }
                rest = after.get(end..).unwrap_or_default();
                continue;
            }
            "tool_call" => {
                let end = after.find("</tool_call>").unwrap_or(after.len());
                items.push(Item::Call {
                    name: unescape(&attr(tag, "name").unwrap_or_default()),
                    args: unescape(after.get(..end).unwrap_or_default()),
                });
                rest = after.get(end..).unwrap_or_default();
                continue;
            }
            "previous_summary" => {
                let end = after.find("</previous_summary>").unwrap_or(after.len());
                previous_items(&unescape(after.get(..end).unwrap_or_default()), &mut items);
                rest = after.get(end..).unwrap_or_default();
                continue;
            }
            "tool_call_response" => {
                let name = unescape(&attr(tag, "name").unwrap_or_default());
                result = Some((name, attr(tag, "error").is_some(), String::new()));
            }
            "/tool_call_response" => {
                if let Some((name, error, text)) = result.take() {
                    items.push(Item::Result { name, text, error });
                }
            }
            _ => {}
        }
        rest = after;
    }
    items
}

fn attr(tag: &str, name: &str) -> Option<String> {
    let key = format!("{name}=\"");
    let start = tag.find(&key)?.saturating_add(key.len());
    let value = tag.get(start..)?;
    Some(value.get(..value.find('"')?)?.to_string())
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&")
}

/// Sentences (or lines, for list-like text), trimmed, without empty ones.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim().trim_start_matches(['-', '*', '#', ' ']);
        let mut start = 0usize;
        for (i, c) in line.char_indices() {
            let next = line.get(i.saturating_add(c.len_utf8())..).unwrap_or_default();
            if matches!(c, '.' | '!' | '?') && (next.is_empty() || next.starts_with(' ')) {
                out.push(line.get(start..i.saturating_add(1)).unwrap_or_default().trim());
                start = i.saturating_add(1);
            }
        }
        out.push(line.get(start..).unwrap_or_default().trim());
    }
    out.retain(|s| s.chars().filter(|c| c.is_alphanumeric()).count() >= 3);
    out
}

const DECISION_WORDS: [&str; 16] = [
    "decid",
    "fixed",
    "fix ",
    "because",
    "root cause",
    "the cause",
    "instead",
    "will ",
    "should",
    "must",
    "found",
    "changed",
    "added",
    "removed",
    "next",
    "todo",
];

fn is_decision(s: &str) -> bool {
    let l = s.to_lowercase();
    DECISION_WORDS.iter().any(|w| l.contains(w))
}

/// Markers of a line that reports a failure (lowercased).
const ERROR_MARKERS: [&str; 12] = [
    "error:",
    "error[",
    "exception",
    "traceback",
    "panicked",
    "fatal:",
    "failed:",
    " failed",
    "fail ",
    "assertionerror",
    "not found",
    "permission denied",
];

/// An error message says more than a failing test's name.
fn error_score(line: &str) -> u32 {
    let l = line.to_lowercase();
    if l.contains("error") || l.contains("exception") || l.contains("panicked") {
        85
    } else {
        80
    }
}

fn is_error_line(line: &str) -> bool {
    let t = line.trim();
    let l = t.to_lowercase();
    // Source listings (`23\tthrow new RangeError(...)`, `  46→ ...`) and passing
    // checks are not errors.
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    let listing = digits > 0 && t.chars().nth(digits).is_some_and(|c| matches!(c, '→' | '\t' | '|' | ' '));
    !t.is_empty()
        && t.len() < 400
        && !listing
        && !t.contains('✓')
        && (ERROR_MARKERS.iter().any(|m| l.contains(m))
            || l.starts_with("fail")
            || t.starts_with('✗')
            || t.starts_with('×'))
}

/// The argument that says most about a call: a path, a command, a query, else the
/// arguments themselves, shortened.
fn telling_argument(args: &str) -> String {
    if let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(args) {
        for key in ["path", "file_path", "file", "filename", "command", "cmd", "query", "pattern", "url", "id"] {
            if let Some(v) = map.get(key) {
                return truncate_chars(&v.as_str().map_or_else(|| v.to_string(), str::to_string), 160);
            }
        }
        if let Some((k, v)) = map.iter().next() {
            return truncate_chars(&format!("{k}={}", v.as_str().map_or_else(|| v.to_string(), str::to_string)), 160);
        }
        return String::new();
    }
    truncate_chars(args.trim(), 160)
}

fn looks_like_path(w: &str) -> bool {
    let w = w.trim_matches(|c: char| matches!(c, '`' | '"' | '\'' | ',' | ':' | '(' | ')' | ';'));
    let has_ext = w.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
    });
    (w.contains('/') && w.len() > 2 && !w.starts_with("http")) || (has_ext && !w.ends_with('.'))
}

/// File paths mentioned in a text, each once, in order.
fn facts(text: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for w in text.split_whitespace() {
        let w = w.trim_matches(|c: char| matches!(c, '`' | '"' | '\'' | ',' | ':' | '(' | ')' | ';'));
        if w.len() > 3 && w.len() < 120 && looks_like_path(w) && w.contains('/') && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

fn truncate_chars(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}
