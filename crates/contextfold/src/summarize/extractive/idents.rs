//! Identifiers in code and prose: what an edit defines or introduces, and what the
//! assistant named in backticks. Language-agnostic: definitions are found by their
//! keyword (`def`, `fn`, `function`, `class`, ...), other identifiers by their shape
//! (`snake_case`, `camelCase`, `Dotted.Name`, `:atom`, `.css-class`).

use crate::hashing::HashMap;

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
    let mut offset = 0usize;
    for line in code.split_inclusive('\n') {
        let line_start = offset;
        offset = offset.saturating_add(line.len());
        let mut tokens = line.split_whitespace().peekable();
        while let Some(t) = tokens.next() {
            let t = t.trim_start_matches(['@', '(']);
            // Elixir's `fn x ->` is an anonymous function, not a definition.
            if !DEFINERS.contains(&t) || elixir && t == "fn" {
                continue;
            }
            let Some(next) = tokens.peek() else { break };
            let name: String =
                next.chars().take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '!' | '?')).collect();
            if name.chars().count() < 3 || !name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') {
                continue;
            }
            if elixir && matches!(t, "def" | "defp" | "defmacro" | "callback") {
                // The parameters may run over several lines.
                let at = line.find(name.as_str()).map_or(0, |i| i.saturating_add(name.len()));
                let rest = code.get(line_start.saturating_add(at)..).unwrap_or_default();
                out.push(format!("{name}/{}", arity(rest)));
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

/// What `new` (code an edit wrote) defines, and what else it introduces, that `old` (what
/// it replaced) did not hold: (definitions in order, other identifiers by how often they
/// occur).
pub(super) fn introduced(new: &str, old: &str, path: &str) -> (Vec<String>, Vec<String>) {
    let elixir = path.ends_with(".ex") || path.ends_with(".exs");
    let defs: Vec<String> = definitions(new, elixir).into_iter().filter(|d| !old.contains(d.as_str())).collect();
    let mut counts: HashMap<&str, (usize, usize)> = HashMap::default();
    for (i, w) in words(new).enumerate() {
        if is_identifier(w) && !old.contains(w) {
            let e = counts.entry(w).or_insert((0, i));
            e.0 = e.0.saturating_add(1);
        }
    }
    let mut ranked: Vec<(&str, (usize, usize))> = counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.1 .1.cmp(&b.1 .1)));
    let others = ranked
        .into_iter()
        .filter(|(w, _)| !defs.iter().any(|d| d.split('/').next() == Some(*w) || d.contains(*w)))
        .map(|(w, _)| w.to_string())
        .collect();
    (defs, others)
}

/// Keywords that open an import line.
const IMPORTS: [&str; 8] = ["alias", "import", "use", "require", "from", "using", "#include", "include"];

/// The lines `new` adds to `old` when they are few (at most two): then they are the whole
/// change, worth quoting (`post("/hooks/end", HookController, :end)`), in backticks.
pub(super) fn added_lines(new: &str, old: &str) -> Vec<String> {
    let old_lines: Vec<&str> = old.lines().map(str::trim).collect();
    let added: Vec<&str> = new.lines().map(str::trim).filter(|l| !l.is_empty() && !old_lines.contains(l)).collect();
    if added.len() > 2 {
        return Vec::new();
    }
    // An import or a lone name (`alias X.Y`, `Foo.Bar,`) says no more than the name does.
    let import = |l: &str| IMPORTS.iter().any(|k| l.strip_prefix(k).is_some_and(|r| r.starts_with(' ')));
    added
        .into_iter()
        .filter(|l| {
            (8..=90).contains(&l.chars().count())
                && !l.contains('`')
                && !import(l)
                && l.trim_end_matches([',', ';']).split_whitespace().count() > 1
                && words(l).any(is_identifier)
        })
        .map(|l| format!("`{l}`"))
        .collect()
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
        let new = "defmodule Spotter.Registry do\n  @callback stop(\n    state :: term()\n  ) :: :ok\n  def start_session(id, opts \\\\ []) do\n    :ets.insert(@table, {id, :active})\n  end\n  defp sweep_stale(), do: :ok\nend\n.session-status-active { color: green }";
        let (defs, got) = introduced(new, "", "lib/registry.ex");
        assert_eq!(defs, ["Spotter.Registry", "stop/1", "start_session/2", "sweep_stale/0"], "{defs:?}");
        assert!(got.contains(&":active".to_string()) && got.contains(&".session-status-active".to_string()));
        assert!(!got.iter().any(|g| g == "end" || g == "do" || g == "start_session"), "{got:?}");
        // What the edit replaced is not new.
        let (defs, got) = introduced("x = start_session(a) + new_thing(b)", "start_session(a)", "a.py");
        assert!(defs.is_empty());
        assert_eq!(got, ["new_thing"]);
        assert_eq!(
            added_lines(
                "scope do\n  post(\"/x\", HookController, :x)\n  get \"/y\"\nend",
                "scope do\n  get \"/y\"\nend"
            ),
            ["`post(\"/x\", HookController, :x)`"]
        );
        assert!(added_lines("a_b\nc_d\ne_f\n", "").is_empty(), "more than two lines: not quoted");
        assert!(added_lines("alias App.Jobs.Sync\n  App.Services.Registry,", "").is_empty(), "imports, lone names");
        assert_eq!(backticked("Use `mix format` and `a`, then `mix format`."), ["mix format"]);
    }
}
