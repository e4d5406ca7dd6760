//! Identifiers in code and prose: what an edit defines or introduces, and what the
//! assistant named in backticks. Language-agnostic: definitions are found by their
//! keyword (`def`, `fn`, `function`, `class`, ...), other identifiers by their shape
//! (`snake_case`, `camelCase`, `Dotted.Name`, `:atom`, `.css-class`).

use std::collections::HashMap;

const DEFINERS: [&str; 25] = [
    "def",
    "defp",
    "defmodule",
    "defmacro",
    "defstruct",
    "defimpl",
    "defprotocol",
    "fn",
    "function",
    "func",
    "class",
    "struct",
    "enum",
    "trait",
    "interface",
    "type",
    "const",
    "let",
    "var",
    "module",
    "macro",
    "mod",
    "schema",
    "identity",
    "callback",
];

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | ':' | '!' | '?' | '@' | '-' | '/' | '#')
}

/// Words of `text` made of identifier characters, trailing punctuation removed.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_ident_char(c))
        .map(|w| w.trim_end_matches(['.', ':', '-', '/']).trim_start_matches(['-', '/']))
        .filter(|w| !w.is_empty())
}

/// Whether a word has the shape of an identifier worth naming.
pub(super) fn is_identifier(w: &str) -> bool {
    let len = w.chars().count();
    if !(4..=60).contains(&len) || !w.chars().any(char::is_alphabetic) || w.contains("//") {
        return false;
    }
    // A path is a file fact, not an identifier; `name/2` (an arity) is one.
    if w.contains('/') && !w.rsplit_once('/').is_some_and(|(_, a)| a.chars().all(|c| c.is_ascii_digit())) {
        return false;
    }
    let first = w.chars().next().unwrap_or(' ');
    let body = w.trim_start_matches([':', '.', '@']);
    let inner_upper = body.chars().skip(1).any(char::is_uppercase) && body.chars().any(char::is_lowercase);
    let snake = body.contains('_') && body.chars().any(char::is_alphabetic);
    let dotted = body.contains('.') && body.split('.').all(|p| !p.is_empty());
    let atom = first == ':' && body.chars().next().is_some_and(char::is_alphabetic);
    let css = first == '.' && body.contains('-') && body.chars().next().is_some_and(char::is_alphabetic);
    snake || inner_upper || atom || css || dotted && first.is_uppercase()
}

/// Names defined in `code`, in order (`def name(a, b)` also as `name/2` in Elixir files).
fn definitions(code: &str, elixir: bool) -> Vec<String> {
    let mut out = Vec::new();
    for line in code.lines() {
        let mut tokens = line.split_whitespace().peekable();
        while let Some(t) = tokens.next() {
            let t = t.trim_start_matches(['@', '(']);
            if !DEFINERS.contains(&t) {
                continue;
            }
            let Some(next) = tokens.peek() else { break };
            let name: String =
                next.chars().take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '!' | '?')).collect();
            if name.chars().count() < 3 || !name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') {
                continue;
            }
            if elixir && matches!(t, "def" | "defp" | "defmacro") {
                let rest = line.get(line.find(name.as_str()).map_or(0, |i| i.saturating_add(name.len()))..);
                out.push(format!("{name}/{}", arity(rest.unwrap_or_default())));
            } else {
                out.push(name);
            }
            break;
        }
    }
    out
}

/// Parameters of the call or definition `rest` opens with (`(a, b \\ [])` is 2).
fn arity(rest: &str) -> usize {
    let Some(open) = rest.strip_prefix('(') else { return 0 };
    let mut depth = 0usize;
    let mut commas = 0usize;
    let mut any = false;
    for c in open.chars() {
        match c {
            '(' | '[' | '{' => depth = depth.saturating_add(1),
            ')' | ']' | '}' if depth == 0 => break,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => commas = commas.saturating_add(1),
            c if !c.is_whitespace() => any = true,
            _ => {}
        }
    }
    if any {
        commas.saturating_add(1)
    } else {
        0
    }
}

/// What `new` (code an edit wrote) defines or introduces that `old` (what it replaced)
/// did not hold: definitions first, then identifiers by how often they occur.
pub(super) fn introduced(new: &str, old: &str, path: &str) -> Vec<String> {
    let elixir = path.ends_with(".ex") || path.ends_with(".exs");
    let mut out: Vec<String> = definitions(new, elixir).into_iter().filter(|d| !old.contains(d.as_str())).collect();
    let mut counts: HashMap<&str, (usize, usize)> = HashMap::new();
    for (i, w) in words(new).enumerate() {
        if is_identifier(w) && !old.contains(w) {
            let e = counts.entry(w).or_insert((0, i));
            e.0 = e.0.saturating_add(1);
        }
    }
    let mut ranked: Vec<(&str, (usize, usize))> = counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.1 .1.cmp(&b.1 .1)));
    for (w, _) in ranked {
        if !out.iter().any(|d| d.split('/').next() == Some(w) || d.contains(w)) {
            out.push(w.to_string());
        }
    }
    out
}

/// Spans the text put in backticks, in order, each once.
pub(super) fn backticked(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut parts = text.split('`');
    parts.next();
    while let (Some(inside), Some(_)) = (parts.next(), parts.next()) {
        let inside = inside.trim();
        if (3..=80).contains(&inside.chars().count()) && !inside.contains('\n') && !out.iter().any(|o| o == inside) {
            out.push(inside.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_definitions_and_new_identifiers() {
        let new = "defmodule Spotter.Registry do\n  def start_session(id, opts \\\\ []) do\n    :ets.insert(@table, {id, :active})\n  end\n  defp sweep_stale(), do: :ok\nend\n.session-status-active { color: green }";
        let got = introduced(new, "", "lib/registry.ex");
        assert_eq!(&got[..3], ["Spotter.Registry", "start_session/2", "sweep_stale/0"], "{got:?}");
        assert!(got.contains(&":active".to_string()) && got.contains(&".session-status-active".to_string()));
        assert!(!got.iter().any(|g| g == "end" || g == "do"), "{got:?}");
        // What the edit replaced is not new.
        let got = introduced("x = start_session(a) + new_thing(b)", "start_session(a)", "a.py");
        assert_eq!(got, ["new_thing"]);
        assert_eq!(backticked("Use `mix format` and `a`, then `mix format`."), ["mix format"]);
    }
}
