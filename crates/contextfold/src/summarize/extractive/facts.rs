//! What a transcript tells, gathered by structure: requests, files with what was done to
//! each, commands paired with their outcome, errors (only from tool results) with the fix
//! that followed, decisions, the task list, and the latest state.

use super::idents;
use super::tasks::{Task, Tasks};
use super::text::{command_key, cut_words, error_lines, first_line, sentences, split_names, Words};
use super::transcript::Item;
use crate::hashing::{HashMap, HashSet};
use crate::json_node::{Node, Object};
use crate::schema::Section;

#[derive(Debug, Default)]
pub(super) struct FileFacts {
    pub path: String,
    /// What was done, with how often: `read`, `edited`, `created`, ...
    pub verbs: Vec<(String, usize)>,
    /// Names the edits defined (and names an earlier summary kept), in order.
    pub defs: Vec<String>,
    /// Lines a small edit added (`post("/x", C, :x)`), each the whole of what it changed.
    pub added: Vec<String>,
    /// Other names the edits introduced, most frequent first.
    pub idents: Vec<String>,
    /// Step of the latest touch (later files matter more).
    pub last: usize,
}

#[derive(Debug)]
pub(super) struct CommandFacts {
    /// What the runs have in common (`mix test`): runs with the same key are one fact.
    pub key: String,
    /// The latest run.
    pub command: String,
    pub runs: usize,
    pub outcome: Option<String>,
    pub failed: bool,
    pub last: usize,
}

#[derive(Debug)]
pub(super) struct ErrorFacts {
    pub text: String,
    pub fix: Option<String>,
}

#[derive(Debug, Default)]
pub(super) struct Facts {
    pub requests: Vec<String>,
    pub previous: Vec<(Section, Vec<String>)>,
    pub files: Vec<FileFacts>,
    pub commands: Vec<CommandFacts>,
    pub errors: Vec<ErrorFacts>,
    /// Sentences of the assistant that state a decision or a finding, with a score.
    pub decisions: Vec<(String, u32)>,
    /// The latest task list a tool was given: (status, task).
    pub todos: Vec<(String, String)>,
    /// Tasks of a tracker the commands drove (ids, titles, latest status).
    pub tasks: Vec<Task>,
    /// The last assistant text.
    pub last_text: Option<String>,
    /// Identifiers the assistant put in backticks, each once, with how often.
    pub mentions: Vec<(String, u32)>,
    /// Where each of `mentions` is, and which error texts `errors` holds: a long session
    /// has thousands of each, and a scan per new one was quadratic.
    pub(super) mention_at: HashMap<String, usize>,
    pub(super) error_texts: HashSet<String>,
}

/// What a tool call is, judged by its arguments (any tool, any harness).
enum Call {
    File { path: String, verb: String, new: String, old: String },
    Command(String),
    Todos(Vec<(String, String)>),
    Other,
}

const PATH_KEYS: [&str; 8] =
    ["file_path", "path", "filename", "file", "notebook_path", "target_file", "filepath", "absolute_path"];
const NEW_KEYS: [&str; 9] =
    ["new_string", "content", "new_str", "new_text", "file_text", "contents", "code", "insert_text", "new_source"];
const OLD_KEYS: [&str; 3] = ["old_string", "old_str", "old_text"];
const COMMAND_KEYS: [&str; 3] = ["command", "cmd", "script"];

fn string_at<'a>(map: &'a Object<'_>, keys: &[&str]) -> Option<&'a str> {
    keys.iter().find_map(|k| map.get(k).and_then(Node::as_str)).filter(|s| !s.trim().is_empty())
}

fn classify(name: &str, args: &str) -> Call {
    // A borrowing tree: the arguments' strings (often a whole file's content) are not
    // copied to be read.
    let Ok(Node::Object(map)) = serde_json::from_str::<Node<'_>>(args) else { return Call::Other };
    if let Some(Node::Array(todos)) = map.get("todos") {
        let list = todos
            .iter()
            .filter_map(|t| {
                let content = t.get("content").or_else(|| t.get("title")).and_then(Node::as_str)?;
                let status = t.get("status").and_then(Node::as_str).unwrap_or("pending");
                Some((status.replace('_', " "), content.to_string()))
            })
            .collect();
        return Call::Todos(list);
    }
    if let Some(command) = string_at(&map, &COMMAND_KEYS).map(str::to_string).or_else(|| {
        let parts = COMMAND_KEYS.iter().find_map(|k| map.get(k).and_then(Node::as_array))?;
        Some(parts.iter().filter_map(Node::as_str).collect::<Vec<_>>().join(" "))
    }) {
        return Call::Command(command.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    let Some(path) = string_at(&map, &PATH_KEYS) else { return Call::Other };
    let mut new = string_at(&map, &NEW_KEYS).unwrap_or_default().to_string();
    let mut old = string_at(&map, &OLD_KEYS).unwrap_or_default().to_string();
    if let Some(Node::Array(edits)) = map.get("edits") {
        for e in edits.iter().filter_map(Node::as_object) {
            new.push_str(string_at(e, &NEW_KEYS).unwrap_or_default());
            new.push('\n');
            old.push_str(string_at(e, &OLD_KEYS).unwrap_or_default());
            old.push('\n');
        }
    }
    Call::File { path: path.to_string(), verb: verb_of(name, !new.is_empty(), !old.is_empty()), new, old }
}

fn verb_of(tool: &str, writes: bool, replaces: bool) -> String {
    let t = tool.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| t.contains(w));
    if replaces || has(&["edit", "replace", "patch", "insert", "update"]) {
        "edited".into()
    } else if writes || has(&["write", "create"]) {
        "written".into()
    } else if has(&["read", "view", "cat", "open"]) {
        "read".into()
    } else if has(&["grep", "search", "glob", "find", "list", "ls"]) {
        "searched".into()
    } else {
        tool.to_string()
    }
}

/// A user text the harness or the system added (`<system-reminder>...`, a task
/// notification, an interruption notice), not a request.
fn is_notice(text: &str) -> bool {
    let t = text.trim_start();
    let tag = t.strip_prefix('<').is_some_and(|r| {
        let name: String = r.chars().take_while(|c| c.is_alphanumeric() || matches!(c, '-' | '_')).collect();
        !name.is_empty() && r.get(name.len()..).is_some_and(|a| a.starts_with('>'))
    });
    tag || t.starts_with("[Request interrupted") || t.starts_with("Caveat:")
}

/// Whether an assistant text is a summary in the schema (it opens with one of its headings).
fn is_summary(text: &str) -> bool {
    let first = text.trim_start().lines().next().unwrap_or_default();
    first.strip_prefix("## ").and_then(Section::of_heading).is_some()
}

/// A slash command the user typed (`<command-name>/x</command-name><command-args>...`):
/// the request is its name and arguments.
fn command_request(text: &str) -> Option<String> {
    let inside = |tag: &str| {
        let open = format!("<{tag}>");
        let start = find_tag(text, &open)?.saturating_add(open.len());
        let end = find_tag(text.get(start..)?, &format!("</{tag}>"))?.saturating_add(start);
        text.get(start..end).map(str::trim)
    };
    let args = inside("command-args").filter(|a| !a.is_empty())?;
    Some(match inside("command-name") {
        Some(name) => format!("{name} {args}"),
        None => args.to_string(),
    })
}

/// `text.find(tag)` for a `tag` that opens with `<`: only where a `<` is (a byte search),
/// not through a substring searcher, built anew for each of thousands of texts.
fn find_tag(text: &str, tag: &str) -> Option<usize> {
    let mut from = 0usize;
    loop {
        let at = from.saturating_add(text.get(from..)?.find('<')?);
        if text.get(at..).is_some_and(|rest| rest.starts_with(tag)) {
            return Some(at);
        }
        from = at.saturating_add(1);
    }
}

/// Words that mark a sentence as a fix (lowercased).
const FIX_WORDS: Words = Words::new(&[
    "fix",
    "because",
    "caused",
    "the issue",
    "the problem",
    "instead",
    "missing",
    "need to",
    "should",
    "solved",
]);

/// Words that mark a sentence as a decision or a finding (lowercased).
const DECISION_WORDS: Words = Words::new(&[
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
    "created",
    "complete",
    "pass",
]);

/// Words that open a sentence telling what was done ("Added `x` to `y`"), lowercased.
const DONE_WORDS: [&str; 12] = [
    "added",
    "created",
    "fixed",
    "removed",
    "wired",
    "updated",
    "implemented",
    "changed",
    "moved",
    "renamed",
    "replaced",
    "extracted",
];

/// Whether a sentence tells what was done ("Added `x` to `y`", or after a dash: "... —
/// fixed `y`"), in the words of the one who did it.
fn tells_what_was_done(sentence: &str) -> bool {
    if !sentence.is_ascii() {
        let l = sentence.to_lowercase();
        let opening = l.split(" — ").last().unwrap_or(&l).trim_start_matches(['`', '*', ' ']);
        return DONE_WORDS.iter().any(|w| opening.starts_with(w));
    }
    // ASCII has no dash: no lowercased copy and no substring searcher, built anew for
    // each of thousands of sentences.
    let opening = sentence.trim_start_matches(['`', '*', ' ']);
    DONE_WORDS.iter().any(|w| opening.get(..w.len()).is_some_and(|p| p.eq_ignore_ascii_case(w)))
}

/// The call a result answers: the transcript names the tool, not the call, so the
/// oldest pending call of that tool, else the oldest of all.
fn take_call(pending: &mut Vec<(&str, Call)>, name: &str) -> Option<Call> {
    let at = pending.iter().position(|(n, _)| *n == name).unwrap_or(0);
    (at < pending.len()).then(|| pending.remove(at)).map(|(_, c)| c)
}

impl Facts {
    pub fn gather(items: &[Item<'_>]) -> Facts {
        let mut f = Facts::default();
        // Calls waiting for their result, oldest first.
        let mut pending: Vec<(&str, Call)> = Vec::new();
        // Errors whose fix the assistant's next words may give.
        let mut awaiting_fix: Vec<usize> = Vec::new();
        let mut tasks = Tasks::default();
        let last_text = items.iter().rposition(|i| matches!(i, Item::AssistantText(t) if !t.trim().is_empty()));
        for (step, item) in items.iter().enumerate() {
            match item {
                Item::Previous(text) => f.merge_summary(text),
                // Summaries being merged (window's consolidation, a QA fold) arrive as
                // assistant text: merged section by section, not read as prose.
                Item::AssistantText(text) if is_summary(text) => f.merge_summary(text),
                Item::Task(text) if !is_notice(text) || command_request(text).is_some() => f.request(text),
                Item::Task(_) => {}
                Item::AssistantText(text) => f.assistant_text(text, Some(step) == last_text, &mut awaiting_fix),
                Item::Call { name, args } => {
                    let call = classify(name, args);
                    if let Call::File { path, verb, new, old } = &call {
                        f.touch(path, verb, new, old, step);
                    }
                    if let Call::Todos(list) = &call {
                        f.todos.clone_from(list);
                    }
                    if let Call::Command(command) = &call {
                        tasks.command(command, step);
                        f.command_files(command, step);
                    }
                    pending.push((name, call));
                }
                Item::Result { name, text, error } => {
                    let call = take_call(&mut pending, name);
                    if matches!(call, Some(Call::Command(_))) {
                        tasks.output(text);
                    }
                    f.result(call, name, text, *error, step, &mut awaiting_fix);
                }
            }
        }
        // A command still waiting for its result was run all the same.
        for (_, call) in pending {
            if let Call::Command(command) = call {
                f.ran(command, None, false, items.len());
            }
        }
        f.tasks = tasks.into_list();
        f
    }

    /// A request of the user (a slash command by its name and arguments); a repeated one
    /// moves to the end.
    fn request(&mut self, text: &str) {
        let text = command_request(text).unwrap_or_else(|| text.trim().to_string());
        if text.is_empty() {
            return;
        }
        self.requests.retain(|r| *r != text);
        self.requests.push(text);
    }

    /// What the assistant said: the names it put in backticks, the fix for the errors
    /// before it, and its decisions; the last text is kept whole as the latest state.
    fn assistant_text(&mut self, text: &str, is_last: bool, awaiting_fix: &mut Vec<usize>) {
        for id in idents::backticked(text) {
            self.mention(&id, 1);
        }
        let mut said = sentences(text).into_iter();
        let Some(first) = said.next() else { return };
        // The assistant's next words are the fix when they say so.
        let fix =
            if awaiting_fix.is_empty() { None } else { sentences(text).into_iter().find(|s| FIX_WORDS.in_text(s)) };
        for e in awaiting_fix.drain(..) {
            if let (Some(err), Some(fix)) = (self.errors.get_mut(e), fix) {
                err.fix = Some(cut_words(fix, 160));
            }
        }
        if is_last {
            self.last_text = Some(text.trim().to_string());
            return;
        }
        for s in std::iter::once(first).chain(said) {
            let ticks = s.matches('`').count() / 2;
            if ticks > 0 || DECISION_WORDS.in_text(s) {
                let done = tells_what_was_done(s);
                let ticked = (ticks as u32).saturating_mul(4).min(20);
                let score = 50u32.saturating_add(ticked).saturating_add(if done { 8 } else { 0 });
                self.decisions.push((cut_words(s, 300), score));
            }
        }
    }

    /// A tool result: its error lines (at most three) are errors awaiting a fix, and a
    /// command's result gives the command its outcome.
    fn result(
        &mut self,
        call: Option<Call>,
        name: &str,
        text: &str,
        error: bool,
        step: usize,
        awaiting_fix: &mut Vec<usize>,
    ) {
        let is_command = matches!(call, Some(Call::Command(_)));
        let lines = error_lines(text, is_command, 3);
        let failed = error || !lines.is_empty();
        for line in &lines {
            self.error(format!("{name}: {}", cut_words(line.trim(), 160)), awaiting_fix);
        }
        if error && lines.is_empty() {
            let first = first_line(text).unwrap_or("failed");
            self.error(format!("{name} failed: {}", cut_words(first, 160)), awaiting_fix);
        }
        if let Some(Call::Command(command)) = call {
            // A masked output says what it was, not how the command went: the outcome
            // known before, if any (its seal was read as one).
            if crate::strategy::mask::masked_body(text).is_some() {
                let known =
                    self.commands.iter().find(|c| c.key == command_key(&command)).and_then(|c| c.outcome.clone());
                self.ran(command, known, failed, step);
                return;
            }
            let outcome = if failed {
                lines.first().copied().or_else(|| first_line(text))
            } else {
                text.lines().rev().find(|l| !l.trim().is_empty())
            };
            self.ran(command, outcome.map(|o| cut_words(o.trim(), 160)), failed, step);
        }
    }

    /// Adds the bullets of an earlier summary to what is carried forward, by section; its
    /// files join the file facts (one entry per path, whatever root it was written under).
    fn merge_summary(&mut self, text: &str) {
        for (section, bullets) in crate::schema::parse(text) {
            if section == Section::Files {
                self.merge_files(&bullets);
                continue;
            }
            match self.previous.iter_mut().find(|(s, _)| *s == section) {
                Some((_, list)) => {
                    for b in bullets {
                        // The later summary's latest state and next step win.
                        let latest =
                            ["Latest: ", "Continue with the latest request: "].into_iter().find(|p| b.starts_with(p));
                        if let Some(prefix) = latest {
                            list.retain(|x| !x.starts_with(prefix));
                        }
                        if !list.contains(&b) {
                            list.push(b);
                        }
                    }
                }
                None => self.previous.push((section, bullets)),
            }
        }
    }

    /// The `Files` bullets of an earlier summary (`Root: <dir>`, `path: verbs; names`,
    /// `Also named: names`) as file facts.
    fn merge_files(&mut self, bullets: &[String]) {
        let mut root: Option<&str> = None;
        for b in bullets {
            if let Some(r) = b.strip_prefix("Root: ") {
                root = Some(r.trim());
                continue;
            }
            if let Some(names) = b.strip_prefix("Also named: ") {
                for n in split_names(names) {
                    // Kept by an earlier summary: as if named twice.
                    self.mention(n, 2);
                }
                continue;
            }
            let Some((path, rest)) = b.split_once(": ") else { continue };
            let path = match root {
                Some(r) if !path.starts_with('/') => format!("{}/{path}", r.trim_end_matches('/')),
                _ => path.to_string(),
            };
            let (verbs, names) = rest.split_once("; ").unwrap_or((rest, ""));
            for v in verbs.split(", ").map(str::trim).filter(|v| !v.is_empty()) {
                let (verb, times) = match v.rsplit_once(' ') {
                    Some((verb, n)) => match n.strip_suffix('x').and_then(|n| n.parse::<usize>().ok()) {
                        Some(n) => (verb, n),
                        None => (v, 1),
                    },
                    None => (v, 1),
                };
                for _ in 0..times.min(1000) {
                    self.touch(&path, verb, "", "", 0);
                }
            }
            if let Some(file) = self.files.iter_mut().find(|f| f.path == path) {
                for n in split_names(names) {
                    if !file.defs.iter().any(|i| i == n) {
                        file.defs.push(n.to_string());
                    }
                }
            }
        }
    }

    /// Files a command committed or moved that no tool touched (written by a tool call
    /// the transcript lacks, or by a shell command): `git add a b`, `mv a b`.
    fn command_files(&mut self, command: &str, step: usize) {
        for part in command.split("&&") {
            let key = command_key(part);
            let verb = match key.as_str() {
                "git add" => "committed",
                "mv" | "git mv" => "moved here",
                _ => continue,
            };
            let args: Vec<&str> = part
                .split_whitespace()
                .skip_while(|w| !key.ends_with(*w))
                .skip(1)
                .take_while(|w| !matches!(*w, "|" | ";" | "2>&1" | "||"))
                .filter(|w| {
                    // A file: not a flag, a glob or `.` itself, and with an extension or a folder.
                    !w.starts_with('-')
                        && w.contains('.')
                        && !w.trim_matches(['.', '/']).is_empty()
                        && !w.contains(['*', '$', '"', '\''])
                })
                .collect();
            let paths = if verb == "committed" {
                &args[..]
            } else {
                args.get(args.len().saturating_sub(1)..).unwrap_or_default()
            };
            for path in paths {
                let known = self.files.iter().any(|x| x.path == *path || x.path.ends_with(&format!("/{path}")));
                if !known {
                    self.touch(path, verb, "", "", step);
                }
            }
        }
    }

    fn mention(&mut self, name: &str, times: u32) {
        match self.mention_at.get(name).and_then(|&i| self.mentions.get_mut(i)) {
            Some((_, n)) => *n = n.saturating_add(times),
            None => {
                self.mention_at.insert(name.to_string(), self.mentions.len());
                self.mentions.push((name.to_string(), times));
            }
        }
    }

    fn touch(&mut self, path: &str, verb: &str, new: &str, old: &str, step: usize) {
        let i = match self.files.iter().position(|x| x.path == path) {
            Some(i) => i,
            None => {
                self.files.push(FileFacts { path: path.to_string(), ..FileFacts::default() });
                self.files.len().saturating_sub(1)
            }
        };
        let Some(file) = self.files.get_mut(i) else { return };
        file.last = step;
        match file.verbs.iter_mut().find(|(v, _)| v == verb) {
            Some((_, n)) => *n = n.saturating_add(1),
            None => file.verbs.push((verb.to_string(), 1)),
        }
        if !old.is_empty() {
            for line in idents::added_lines(new, old) {
                if !file.added.contains(&line) {
                    file.added.push(line);
                }
            }
        }
        let (defs, others) = idents::introduced(new, old, path);
        for id in defs {
            if !file.defs.contains(&id) {
                file.defs.push(id);
            }
        }
        for id in others {
            if !file.idents.contains(&id) {
                file.idents.push(id);
            }
        }
    }

    fn ran(&mut self, command: String, outcome: Option<String>, failed: bool, step: usize) {
        let key = command_key(&command);
        match self.commands.iter_mut().find(|c| c.key == key) {
            Some(c) => {
                c.command = command;
                c.runs = c.runs.saturating_add(1);
                c.outcome = outcome;
                c.failed = failed;
                c.last = step;
            }
            None => self.commands.push(CommandFacts { key, command, runs: 1, outcome, failed, last: step }),
        }
    }

    fn error(&mut self, text: String, awaiting_fix: &mut Vec<usize>) {
        if !self.error_texts.insert(text.clone()) {
            return;
        }
        awaiting_fix.push(self.errors.len());
        self.errors.push(ErrorFacts { text, fix: None });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn tags_are_found_as_by_substring_search(text in "[<>/a-cé ]{0,40}", tag in "<[/a-c]{0,3}>?") {
            prop_assert_eq!(find_tag(&text, &tag), text.find(&tag));
        }
    }

    proptest! {
        #[test]
        fn what_was_done_is_told_as_by_the_lowercased_sentence(
            sentence in "[`* ]{0,2}(Added|FIXED|fix|Moved|renamed|é|—| — |x|Removed `a`)[a-z `]{0,8}( — [`*]?(added|Fixed|cut))?",
        ) {
            let l = sentence.to_lowercase();
            let opening = l.split(" — ").last().unwrap_or(&l).trim_start_matches(['`', '*', ' ']);
            prop_assert_eq!(tells_what_was_done(&sentence), DONE_WORDS.iter().any(|w| opening.starts_with(w)));
        }
    }

    #[test]
    fn a_slash_command_is_its_name_and_arguments() {
        let typed = "<command-name>/review</command-name>\n<command-args>the parser</command-args>";
        assert_eq!(command_request(typed).as_deref(), Some("/review the parser"));
        assert_eq!(command_request("<command-args> </command-args>"), None);
        assert_eq!(command_request("plain words"), None);
    }
}
