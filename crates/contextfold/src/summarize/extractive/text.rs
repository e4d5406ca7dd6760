//! Text helpers of the offline summarizer: sentences, error lines, cuts at word ends.

/// Sentences (or lines, for list-like text), trimmed, without empty ones.
pub(super) fn sentences(text: &str) -> Vec<&str> {
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

/// What a shell command does, for grouping its runs: the program and its subcommand
/// (`mix test`, `git add`, `bd show`), without leading `cd dir &&` or `VAR=x`.
pub(super) fn command_key(command: &str) -> String {
    let command = command.trim().trim_start_matches('`');
    let command = match command.strip_prefix("cd ").and_then(|c| c.split_once("&&")) {
        Some((_, rest)) => rest,
        None => command,
    };
    let mut words = command.split_whitespace().skip_while(|w| w.contains('=') && !w.starts_with('-'));
    let program = words.next().unwrap_or_default();
    let sub = words.next().filter(|w| {
        w.chars().next().is_some_and(char::is_alphabetic) && !w.contains(['/', '"', '\'', '`']) && w.len() <= 24
    });
    match sub {
        Some(sub) => format!("{program} {sub}"),
        None => program.to_string(),
    }
}

/// The names of a list (`a, b, \`f(x, y)\``): split at `, ` outside backticks.
pub(super) fn split_names(list: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut quoted = false;
    for (i, c) in list.char_indices() {
        if c == '`' {
            quoted = !quoted;
        } else if !quoted && list.get(i..).is_some_and(|r| r.starts_with(", ")) {
            out.push(list.get(start..i).unwrap_or_default().trim());
            start = i.saturating_add(2);
        }
    }
    out.push(list.get(start..).unwrap_or_default().trim());
    out.retain(|n| !n.is_empty());
    out
}

/// The first line that says something.
pub(super) fn first_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|l| !l.is_empty())
}

/// `text` on one line, at most `max` characters, cut after a whole word (with `…`):
/// a path or an identifier is never cut in the middle unless it alone is longer.
pub(super) fn cut_words(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let limit = flat.char_indices().nth(max.saturating_sub(1)).map_or(flat.len(), |(i, _)| i);
    let head = flat.get(..limit).unwrap_or_default();
    let cut = match head.rfind(' ') {
        Some(space) if space > 0 => head.get(..space).unwrap_or(head),
        _ => head,
    };
    format!("{}…", cut.trim_end())
}

/// Markers of a line that reports a failure (lowercased), in any tool's output.
const STRONG_MARKERS: [&str; 9] =
    ["error:", "error[", "exception", "traceback", "panicked", "fatal:", "failed:", "assertionerror", "compileerror"];

/// Markers that say failure in a command's output, where prose is rare.
const WEAK_MARKERS: [&str; 4] = [" failed", "not found", "permission denied", "no such file"];

/// Whether a tool-result line reports a failure; `command`: the output of a command,
/// where weaker markers count too. Source listings (`23\tthrow new RangeError(...)`,
/// `  46→ ...`, `174:  def ...`) and passing checks are not errors.
pub(super) fn is_error_line(line: &str, command: bool) -> bool {
    let t = line.trim();
    let l = t.to_lowercase();
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    let listing = digits > 0 && t.chars().nth(digits).is_some_and(|c| matches!(c, '→' | '\t' | '|' | ' ' | ':' | '-'));
    let strong = STRONG_MARKERS.iter().any(|m| l.contains(m));
    let weak = command
        && (WEAK_MARKERS.iter().any(|m| l.contains(m))
            || l.starts_with("fail")
            || t.starts_with('✗')
            || t.starts_with('×'));
    !t.is_empty()
        && t.len() < 400
        && !listing
        && !t.contains('✓')
        && !l.contains(" 0 failures")
        && !l.contains(" 0 failed")
        && (strong || weak)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_commands_by_program_and_subcommand() {
        assert_eq!(command_key("mix test test/a_test.exs 2>&1"), "mix test");
        assert_eq!(command_key("MIX_ENV=test mix ecto.migrate"), "mix ecto.migrate");
        assert_eq!(command_key("cd /repo && git add lib/a.ex"), "git add");
        assert_eq!(command_key("ls /home/x 2>&1"), "ls");
        assert_eq!(command_key("chmod +x run.sh"), "chmod");
        assert_eq!(split_names("a/1, `f(x, y)`, b"), ["a/1", "`f(x, y)`", "b"]);
    }

    #[test]
    fn cuts_after_whole_words_and_finds_errors() {
        assert_eq!(cut_words("edit lib/a/very_long_name.ex now", 20), "edit…");
        assert_eq!(cut_words("a  b\nc", 10), "a b c");
        assert!(is_error_line("  ** (CompileError) lib/a.ex:3: undefined function foo/1", false));
        assert!(!is_error_line("23\tthrow new RangeError(x)", true));
        assert!(!is_error_line("386 tests, 0 failures", true));
        assert!(is_error_line("Assertion with == failed", true));
        assert!(!is_error_line("- Hook scripts must remain silent-fail and low-latency.", true));
        assert!(!is_error_line("If not found: create a stub", false));
        assert_eq!(sentences("One two three. Four five six!"), ["One two three.", "Four five six!"]);
    }
}
