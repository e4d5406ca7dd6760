//! Text helpers of the offline summarizer: sentences, error lines, cuts at word ends.

/// Sentences (or lines, for list-like text), trimmed, without empty ones (fewer than
/// three letters or digits).
pub(super) fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim().trim_start_matches(['-', '*', '#', ' ']);
        let bytes = line.as_bytes();
        let mut start = 0usize;
        // The ends are ASCII: read as bytes, they are never inside a character.
        for (i, &b) in bytes.iter().enumerate() {
            let next = i.saturating_add(1);
            if matches!(b, b'.' | b'!' | b'?') && bytes.get(next).is_none_or(|&n| n == b' ') {
                out.push(line.get(start..next).unwrap_or_default().trim());
                start = next;
            }
        }
        out.push(line.get(start..).unwrap_or_default().trim());
    }
    out.retain(|s| s.chars().filter(|c| c.is_alphanumeric()).take(3).count() >= 3);
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
    // A longer text whose first `max + 1` bytes are one ASCII line (single spaces, a word
    // at both ends) is cut within them: flattening changes nothing there and leaves more
    // than `max` characters. The rest of it (a whole tool output, say) is never read.
    if let Some(prefix) = text.as_bytes().get(..=max) {
        if is_flat_ascii(prefix) {
            return ellipsis(text.get(..max.saturating_sub(1)).unwrap_or_default());
        }
    }
    // Most texts are one ASCII line already (sentences, bullets cut before): used as
    // they are, their length in bytes is their length in characters.
    let flat: std::borrow::Cow<'_, str> = if is_flat_ascii(text.as_bytes()) {
        if text.len() <= max {
            return text.to_string();
        }
        text.into()
    } else {
        // The text on one line, built only as far as the cut needs: past `max`
        // characters the rest would be dropped anyway.
        let mut flat = String::with_capacity(text.len().min(max.saturating_mul(4).saturating_add(4)));
        let mut chars = 0usize;
        for word in words(text) {
            if !flat.is_empty() {
                flat.push(' ');
                chars = chars.saturating_add(1);
            }
            flat.push_str(word);
            chars = chars.saturating_add(word.chars().count());
            if chars > max {
                break;
            }
        }
        if chars <= max {
            return flat;
        }
        flat.into()
    };
    let limit = flat.char_indices().nth(max.saturating_sub(1)).map_or(flat.len(), |(i, _)| i);
    ellipsis(flat.get(..limit).unwrap_or_default())
}

/// `head` (a flat text's first characters) cut after its last whole word, with `…`.
fn ellipsis(head: &str) -> String {
    let cut = match head.rfind(' ') {
        Some(space) if space > 0 => head.get(..space).unwrap_or(head),
        _ => head,
    };
    format!("{}…", cut.trim_end())
}

/// Whether `bytes` are ASCII that [`cut_words`]' flattening leaves as they are: no space
/// at either end or twice in a row, no other whitespace.
fn is_flat_ascii(bytes: &[u8]) -> bool {
    if bytes.first() == Some(&b' ') || bytes.last() == Some(&b' ') {
        return false;
    }
    let mut space = false;
    for &b in bytes {
        match b {
            b' ' if space => return false,
            b' ' => space = true,
            0x09..=0x0d | 0x80.. => return false,
            _ => space = false,
        }
    }
    true
}

/// `text.split_whitespace()`, reading bytes: ASCII is tested byte by byte and only
/// other characters are decoded (in wasm, decoding every character was most of the
/// offline summarizer's line cutting).
pub(super) fn words(text: &str) -> impl Iterator<Item = &str> {
    // The length of the whitespace character at `i`, if one starts there.
    let space = move |i: usize| -> Option<usize> {
        let b = *text.as_bytes().get(i)?;
        if b < 0x80 {
            return (b == b' ' || (0x09..=0x0d).contains(&b)).then_some(1);
        }
        let c = text.get(i..)?.chars().next()?;
        c.is_whitespace().then(|| c.len_utf8())
    };
    let mut at = 0usize;
    std::iter::from_fn(move || {
        while let Some(n) = space(at) {
            at = at.saturating_add(n);
        }
        let start = at;
        while at < text.len() && space(at).is_none() {
            at = at.saturating_add(1);
        }
        (at > start).then(|| text.get(start..at)).flatten()
    })
}

/// Words to look for, ignoring ASCII case: for each byte, which words start with it and
/// which have it second (bit `k` for word `k`, both cases), built at compile time.
pub(super) struct Words {
    words: &'static [&'static str],
    first: [u32; 256],
    second: [u32; 256],
}

impl Words {
    // Built at compile time: an index out of range, or more than 32 words, would not
    // compile; it cannot panic.
    #[allow(clippy::indexing_slicing)]
    pub(super) const fn new(words: &'static [&'static str]) -> Words {
        assert!(words.len() <= 32, "one bit per word");
        let (mut first, mut second) = ([0u32; 256], [0u32; 256]);
        let mut k = 0usize;
        while k < words.len() {
            let bytes = words[k].as_bytes();
            assert!(bytes.len() >= 2, "words of two bytes or more");
            let bit = 1u32 << k;
            first[bytes[0].to_ascii_lowercase() as usize] |= bit;
            first[bytes[0].to_ascii_uppercase() as usize] |= bit;
            second[bytes[1].to_ascii_lowercase() as usize] |= bit;
            second[bytes[1].to_ascii_uppercase() as usize] |= bit;
            k += 1;
        }
        Words { words, first, second }
    }

    /// Whether `text` holds any of the words (lowercase ASCII), ignoring ASCII case: one
    /// pass over the byte pairs, trying only the words that start with each pair. A
    /// `contains` per word built a substring searcher each time; in wasm (no SIMD) that
    /// cost more than the search itself on the short lines and sentences read here.
    pub(super) fn in_text(&self, text: &str) -> bool {
        self.scan(text, true) != 0
    }

    /// Which of the words `text` holds: bit `k` for word `k`, in one pass.
    pub(super) fn found(&self, text: &str) -> u32 {
        self.scan(text, false)
    }

    fn scan(&self, text: &str, first_only: bool) -> u32 {
        let bytes = text.as_bytes();
        let mut found = 0u32;
        let table = |t: &[u32; 256], b: u8| t.get(usize::from(b)).copied().unwrap_or(0);
        // The words the previous byte starts: one table read per byte, and the pair's
        // candidates are those the current byte continues.
        let mut started = 0u32;
        for (i, &b) in bytes.iter().enumerate() {
            let mut candidates = started & table(&self.second, b) & !found;
            started = table(&self.first, b);
            while candidates != 0 {
                let k = candidates.trailing_zeros();
                candidates &= candidates.wrapping_sub(1);
                let word = self.words.get(k as usize).map_or(&[][..], |w| w.as_bytes());
                let at = i.saturating_sub(1);
                if bytes.get(at..at.saturating_add(word.len())).is_some_and(|s| s.eq_ignore_ascii_case(word)) {
                    found |= 1 << k;
                    if first_only {
                        return found;
                    }
                }
            }
        }
        found
    }
}

/// The markers of a tool-result line, found in one pass (lowercased): the first nine
/// report a failure in any tool's output ([`STRONG`]); the next four say failure in a
/// command's output, where prose is rare ([`WEAK`]); the last two mark a passing check,
/// whatever else the line says ([`PASSING`]).
const MARKERS: Words = Words::new(&[
    "error:",
    "error[",
    "exception",
    "traceback",
    "panicked",
    "fatal:",
    "failed:",
    "assertionerror",
    "compileerror",
    " failed",
    "not found",
    "permission denied",
    "no such file",
    " 0 failures",
    " 0 failed",
]);
const STRONG: u32 = (1 << 9) - 1;
const WEAK: u32 = ((1 << 4) - 1) << 9;
const PASSING: u32 = ((1 << 2) - 1) << 13;

/// Whether a tool-result line reports a failure; `command`: the output of a command,
/// where weaker markers count too. Source listings (`23\tthrow new RangeError(...)`,
/// `  46→ ...`, `174:  def ...`) and passing checks are not errors.
pub(super) fn is_error_line(line: &str, command: bool) -> bool {
    let t = line.trim();
    if t.is_empty() || t.len() >= 400 {
        return false;
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    let listing = digits > 0 && t.chars().nth(digits).is_some_and(|c| matches!(c, '→' | '\t' | '|' | ' ' | ':' | '-'));
    if listing {
        return false;
    }
    let found = MARKERS.found(t);
    let strong = found & STRONG != 0;
    let weak = command
        && (found & WEAK != 0
            || t.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("fail"))
            || t.starts_with('✗')
            || t.starts_with('×'));
    // A check mark last: searching for it builds a substring searcher (it is not ASCII),
    // and most lines are no error anyway.
    (strong || weak) && found & PASSING == 0 && !t.contains('✓')
}

/// Openings a command's failing line may have besides [`MARKERS`]' words (see
/// [`is_error_line`]), looked for anywhere by [`error_lines`]' first pass.
const FAIL_OPENINGS: Words = Words::new(&["fail", "✗", "×"]);

/// The first `max` lines of a tool result that report a failure ([`is_error_line`]).
/// One pass over the whole result first: every error line holds one of the markers (or,
/// in a command's output, one of the openings), and most results hold none, so their
/// lines are never split and trimmed one by one.
pub(super) fn error_lines(text: &str, command: bool, max: usize) -> Vec<&str> {
    let found = MARKERS.found(text);
    let may = found & STRONG != 0 || command && (found & WEAK != 0 || FAIL_OPENINGS.in_text(text));
    if !may {
        return Vec::new();
    }
    text.lines().filter(|l| is_error_line(l, command)).take(max).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// [`cut_words`] as it was first written: the whole text flattened, then cut.
    fn cut_words_plain(text: &str, max: usize) -> String {
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

    /// [`sentences`] as first written, a character at a time.
    fn sentences_by_chars(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        for line in text.lines() {
            let line = line.trim().trim_start_matches(['-', '*', '#', ' ']);
            let mut start = 0usize;
            for (i, c) in line.char_indices() {
                let next = line.get(i + c.len_utf8()..).unwrap_or_default();
                if matches!(c, '.' | '!' | '?') && (next.is_empty() || next.starts_with(' ')) {
                    out.push(line.get(start..=i).unwrap_or_default().trim());
                    start = i + 1;
                }
            }
            out.push(line.get(start..).unwrap_or_default().trim());
        }
        out.retain(|s| s.chars().filter(|c| c.is_alphanumeric()).count() >= 3);
        out
    }

    /// [`is_error_line`] as first written, the check mark looked for first.
    fn is_error_line_mark_first(line: &str, command: bool) -> bool {
        let t = line.trim();
        if t.is_empty() || t.len() >= 400 || t.contains('✓') {
            return false;
        }
        let digits = t.chars().take_while(char::is_ascii_digit).count();
        let listing =
            digits > 0 && t.chars().nth(digits).is_some_and(|c| matches!(c, '→' | '\t' | '|' | ' ' | ':' | '-'));
        if listing {
            return false;
        }
        let found = MARKERS.found(t);
        let strong = found & STRONG != 0;
        let weak = command
            && (found & WEAK != 0
                || t.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("fail"))
                || t.starts_with('✗')
                || t.starts_with('×'));
        (strong || weak) && found & PASSING == 0
    }

    proptest! {
        #[test]
        fn sentences_are_cut_as_by_characters(text in "(?s)[a-zé1 .!?\n*#-]{0,60}") {
            prop_assert_eq!(sentences(&text), sentences_by_chars(&text));
        }

        #[test]
        fn the_check_mark_rules_out_an_error_line_wherever_it_is(
            line in "[a-z0-9 :\t→✓✗]{0,12}(error: |failed|fail|✓|not found| 0 failed|)[a-z ✓]{0,12}",
            command: bool,
        ) {
            prop_assert_eq!(is_error_line(&line, command), is_error_line_mark_first(&line, command));
        }

        #[test]
        fn error_lines_are_those_read_line_by_line(
            text in "(?s)([a-z0-9 :\t→✓✗×]{0,8}(error: |Failed|FAIL|fail|✓|not found| 0 failed|panicked|\n|)[a-z ✓]{0,8}\n?){0,6}",
            command: bool,
        ) {
            let by_line: Vec<&str> = text.lines().filter(|l| is_error_line(l, command)).take(3).collect();
            prop_assert_eq!(error_lines(&text, command, 3), by_line);
        }

        #[test]
        fn words_are_split_whitespace(text in "[a é東\t\n\u{a0}\u{85}\u{2028}\u{3000}\u{200b}]{0,40}") {
            prop_assert_eq!(words(&text).collect::<Vec<_>>(), text.split_whitespace().collect::<Vec<_>>());
        }

        #[test]
        fn cutting_is_flattening_then_cutting(text in "[a-z é東\t\n]{0,60}|[a-z ]{0,60}|[a-z]{1,9}( [a-z]{1,9}){0,8}[ \n]{0,3}[a-z ]{0,9}", max in 0usize..70) {
            prop_assert_eq!(cut_words(&text, max), cut_words_plain(&text, max));
        }

        #[test]
        fn words_in_text_is_a_lowercased_contains(text in "[a-zA-Z :0-9é]{0,40}", words in proptest::collection::vec("[a-z :]{2,4}", 0..5)) {
            let words: &'static [&'static str] =
                Box::leak(words.into_iter().map(|w| &*Box::leak(w.into_boxed_str())).collect::<Vec<_>>().into_boxed_slice());
            let lower = text.to_ascii_lowercase();
            let expected = words.iter().any(|w| lower.contains(w));
            prop_assert_eq!(Words::new(words).in_text(&text), expected);
            // Every word's bit, in one pass.
            let found = Words::new(words).found(&text);
            for (k, w) in words.iter().enumerate() {
                prop_assert_eq!((found >> k) & 1 == 1, lower.contains(w), "{}", w);
            }
        }
    }

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
