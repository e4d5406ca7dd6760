//! The built-in token estimate of a text (see [`super`] for what it counts and how well).
//!
//! It is read byte by byte through a small state machine: the state is the run being read
//! (its class, and how far into a run of letters, digits or punctuation it is, as each
//! twelfth letter or third digit starts a token), a byte's class picks the next state and
//! whether a token starts there. A long text is read as four lanes at once, each from a
//! point where a new run starts whatever came before, so the lanes' steps overlap instead
//! of waiting on each other: one lane waits on its table lookup at every byte. Characters
//! of other scripts are counted in a second pass, only in a text that has any.

/// Letters a tokenizer's vocabulary typically covers with one token.
const LETTERS_PER_TOKEN: u8 = 12;
const DIGITS_PER_TOKEN: u8 = 3;
const PUNCTUATION_PER_TOKEN: u8 = 3;

/// What a byte is for the estimate.
const LETTER: u8 = 0;
const DIGIT: u8 = 1;
const SPACE: u8 = 2;
/// `\n`, `\r` and `\t`.
const BREAK: u8 = 3;
const PUNCTUATION: u8 = 4;
/// A byte of a character of another script (counted apart).
const NON_ASCII: u8 = 5;

/// The class of every byte.
// Built at compile time: an index out of range would not compile, it cannot panic.
#[allow(clippy::indexing_slicing)]
const CLASSES: [u8; 256] = {
    let mut table = [NON_ASCII; 256];
    let mut b = 0usize;
    while b < 128 {
        table[b] = match b as u8 {
            b'a'..=b'z' | b'A'..=b'Z' => LETTER,
            b'0'..=b'9' => DIGIT,
            b' ' => SPACE,
            b'\n' | b'\r' | b'\t' => BREAK,
            _ => PUNCTUATION,
        };
        b += 1;
    }
    table
};

fn class(b: u8) -> u8 {
    CLASSES.get(usize::from(b)).copied().unwrap_or(NON_ASCII)
}

/// The states: the phase in a run of letters (0 to 11), of digits, of punctuation (0 to
/// 2 each; a token starts at phase 0), the first, second and later spaces of a run (the
/// second costs a token), a line break run (the breaks and spaces after a break: one
/// token), after a character of another script, and before the first byte.
const LETTERS: u8 = 0;
const DIGITS: u8 = LETTERS + LETTERS_PER_TOKEN;
const PUNCTUATIONS: u8 = DIGITS + DIGITS_PER_TOKEN;
const SPACES: u8 = PUNCTUATIONS + PUNCTUATION_PER_TOKEN;
const BREAKS: u8 = SPACES + 3;
const OTHER_SCRIPT: u8 = BREAKS + 1;
const START: u8 = OTHER_SCRIPT + 1;

/// The next state after `state` on a byte of `class`, and whether a token starts there.
const fn step(state: u8, class: u8) -> (u8, bool) {
    // A run of `first..first + period` phases: the next phase, or phase 0 of a new run.
    const fn cycle(state: u8, first: u8, period: u8) -> (u8, bool) {
        let next = if state >= first && state < first + period { first + (state - first + 1) % period } else { first };
        (next, next == first)
    }
    match class {
        LETTER => cycle(state, LETTERS, LETTERS_PER_TOKEN),
        DIGIT => cycle(state, DIGITS, DIGITS_PER_TOKEN),
        PUNCTUATION => cycle(state, PUNCTUATIONS, PUNCTUATION_PER_TOKEN),
        // Spaces after a break are its indentation.
        SPACE if state == BREAKS => (BREAKS, false),
        SPACE if state == SPACES => (SPACES + 1, true),
        SPACE if state == SPACES + 1 || state == SPACES + 2 => (SPACES + 2, false),
        SPACE => (SPACES, false),
        BREAK => (BREAKS, state != BREAKS),
        _ => (OTHER_SCRIPT, false),
    }
}

/// [`step`] of every state and class, at `state << 3 | class`, as `next << 1 | token`.
/// Indexed by any `u8 >> 1` state and any class below 8: an index is always in range.
#[allow(clippy::indexing_slicing)]
const STEPS: [u8; 1024] = {
    let mut table = [(OTHER_SCRIPT << 1); 1024];
    let mut state = 0u8;
    while state <= START {
        let mut class = 0u8;
        while class <= NON_ASCII {
            let (next, token) = step(state, class);
            table[((state as usize) << 3) | class as usize] = (next << 1) | token as u8;
            class += 1;
        }
        state += 1;
    }
    table
};

/// Two [`step`]s: for `state` and the classes of two bytes, at `state << 6 | first << 3 |
/// second`, as `next << 2 | tokens` (0 to 2). A lane waits on one lookup every two bytes.
#[allow(clippy::indexing_slicing)]
const PAIRS: [u8; 2048] = {
    let mut table = [(OTHER_SCRIPT << 2); 2048];
    let mut state = 0u8;
    while state <= START {
        let mut first = 0u8;
        while first <= NON_ASCII {
            let (middle, one) = step(state, first);
            let mut second = 0u8;
            while second <= NON_ASCII {
                let (next, two) = step(middle, second);
                table[((state as usize) << 6) | ((first as usize) << 3) | second as usize] =
                    (next << 2) | (one as u8 + two as u8);
                second += 1;
            }
            first += 1;
        }
        state += 1;
    }
    table
};

/// One step: the entry for `state` on `byte`.
fn entry(state: u8, byte: u8) -> u8 {
    STEPS.get(((usize::from(state) << 3) | usize::from(class(byte))) & 1023).copied().unwrap_or(0)
}

/// A lane of the text being read: its bytes, its state, the tokens it found, and every
/// byte read ORed together (its high bit: a byte of another script was met).
struct Lane<'a> {
    bytes: &'a [u8],
    state: u8,
    tokens: usize,
    seen: u8,
}

impl<'a> Lane<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Lane { bytes, state: START, tokens: 0, seen: 0 }
    }

    fn read(&mut self, byte: u8) {
        let entry = entry(self.state, byte);
        // At most one token a byte: the count cannot wrap (a saturating add costs a
        // compare at every byte).
        self.tokens = self.tokens.wrapping_add(usize::from(entry & 1));
        self.state = entry >> 1;
        self.seen |= byte;
    }

    fn read_pair(&mut self, first: u8, second: u8) {
        let at = (usize::from(self.state) << 6) | (usize::from(class(first)) << 3) | usize::from(class(second));
        let entry = PAIRS.get(at & 2047).copied().unwrap_or(0);
        self.tokens = self.tokens.wrapping_add(usize::from(entry & 3));
        self.state = entry >> 2;
        self.seen |= first | second;
    }

    /// Reads the lane's bytes from `from` to its end.
    fn finish(&mut self, from: usize) {
        let mut pairs = self.bytes.get(from..).unwrap_or_default().chunks_exact(2);
        for pair in &mut pairs {
            if let [first, second] = *pair {
                self.read_pair(first, second);
            }
        }
        if let [last] = *pairs.remainder() {
            self.read(last);
        }
    }
}

/// Texts shorter than this are read as one lane.
const LANED: usize = 256;

/// Where a lane may start at or after `from`: a byte that starts a run of letters, digits,
/// punctuation or another script, whose count does not depend on what came before.
fn lane_start(bytes: &[u8], from: usize) -> usize {
    let mut previous = bytes.get(from.saturating_sub(1)).map_or(SPACE, |&b| class(b));
    for (at, &b) in bytes.iter().enumerate().skip(from) {
        let c = class(b);
        if c != previous && matches!(c, LETTER | DIGIT | PUNCTUATION | NON_ASCII) && at > 0 {
            return at;
        }
        previous = c;
    }
    bytes.len()
}

/// Estimated tokens of a text.
pub fn estimate_text_tokens(text: &str) -> usize {
    let bytes = text.as_bytes();
    let (tokens, seen) = if bytes.len() < LANED {
        let mut lane = Lane::new(bytes);
        lane.finish(0);
        (lane.tokens, lane.seen)
    } else {
        let len = bytes.len();
        let first = lane_start(bytes, len / 4);
        let second = lane_start(bytes, (len / 2).max(first));
        let third = lane_start(bytes, (len / 4).saturating_mul(3).max(second));
        let mut lanes = [
            Lane::new(bytes.get(..first).unwrap_or_default()),
            Lane::new(bytes.get(first..second).unwrap_or_default()),
            Lane::new(bytes.get(second..third).unwrap_or_default()),
            Lane::new(bytes.get(third..).unwrap_or_default()),
        ];
        let pairs = lanes.iter().map(|l| l.bytes.len() / 2).min().unwrap_or(0);
        let common = pairs.saturating_mul(2);
        let [a, b, c, d] = &mut lanes;
        let (w, x, y, z) =
            (a.bytes.chunks_exact(2), b.bytes.chunks_exact(2), c.bytes.chunks_exact(2), d.bytes.chunks_exact(2));
        for (((w, x), y), z) in w.take(pairs).zip(x).zip(y).zip(z) {
            if let ([w0, w1], [x0, x1], [y0, y1], [z0, z1]) = (w, x, y, z) {
                a.read_pair(*w0, *w1);
                b.read_pair(*x0, *x1);
                c.read_pair(*y0, *y1);
                d.read_pair(*z0, *z1);
            }
        }
        lanes.iter_mut().fold((0usize, 0u8), |(tokens, seen), lane| {
            lane.finish(common);
            (tokens.saturating_add(lane.tokens), seen | lane.seen)
        })
    };
    if seen < 0x80 {
        return tokens;
    }
    // Other scripts: a CJK character a token, others two characters a token.
    let (wide, other) = text.chars().filter(|c| !c.is_ascii()).fold((0usize, 0usize), |(wide, other), c| {
        if is_cjk(c) {
            (wide.saturating_add(1), other)
        } else {
            (wide, other.saturating_add(1))
        }
    });
    tokens.saturating_add(wide).saturating_add(other.div_ceil(2))
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The estimate as first written, a character at a time: the byte-table one must
    /// count exactly the same.
    fn reference_estimate(text: &str) -> usize {
        #[derive(Clone, Copy, PartialEq, Eq)]
        enum Class {
            Letter,
            Digit,
            Space,
            Break,
            Punctuation,
            Wide,
            Other,
        }
        let class = |c: char| match c {
            'a'..='z' | 'A'..='Z' => Class::Letter,
            '0'..='9' => Class::Digit,
            ' ' => Class::Space,
            '\n' | '\r' | '\t' => Class::Break,
            c if c.is_ascii() => Class::Punctuation,
            c if is_cjk(c) => Class::Wide,
            _ => Class::Other,
        };
        let (mut tokens, mut halves) = (0usize, 0usize);
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            let kind = class(c);
            let mut run = 1usize;
            while let Some(&next) = chars.peek() {
                let same = class(next) == kind || (kind == Class::Break && class(next) == Class::Space);
                if !same || matches!(kind, Class::Wide | Class::Other) {
                    break;
                }
                run += 1;
                chars.next();
            }
            tokens += match kind {
                Class::Letter => 1 + (run - 1) / usize::from(LETTERS_PER_TOKEN),
                Class::Digit => run.div_ceil(usize::from(DIGITS_PER_TOKEN)),
                Class::Space => usize::from(run > 1),
                Class::Break | Class::Wide => 1,
                Class::Punctuation => run.div_ceil(usize::from(PUNCTUATION_PER_TOKEN)),
                Class::Other => {
                    halves += 1;
                    0
                }
            };
        }
        tokens + halves.div_ceil(2)
    }

    proptest! {
        #[test]
        fn the_state_machine_counts_as_the_character_walk(text in "(?s)[a-zA-Z0-9 \\t\\n\\r{}\\[\\]\":,._/-]{0,40}|.{0,40}|[a-z 東京привет🙂\\n]{0,40}|([a-z]{0,90}|[0-9]{0,70}|[ \\n]{0,70}|[.,{}]{0,70}|[привет東]{0,40}|[a-z0-9 \\n.]{0,200}){1,8}") {
            prop_assert_eq!(estimate_text_tokens(&text), reference_estimate(&text));
        }
    }

    #[test]
    fn words_digits_punctuation_and_breaks_count_like_a_tokenizer() {
        assert_eq!(estimate_text_tokens(""), 0);
        // One token a word; the single spaces ride on the words.
        assert_eq!(estimate_text_tokens("hello world again"), 3);
        // A very long identifier is several tokens.
        assert_eq!(estimate_text_tokens(&"a".repeat(25)), 3);
        // Digits go by threes.
        assert_eq!(estimate_text_tokens("1234567"), 3);
        // `{"` `":"` `"}` are punctuation runs.
        assert_eq!(estimate_text_tokens(r#"{"path":"a"}"#), 5);
        // A line break with its indentation is one token.
        assert_eq!(estimate_text_tokens("a\n    b"), 3);
        // Double spaces cost a token.
        assert_eq!(estimate_text_tokens("a  b"), 3);
    }

    #[test]
    fn scripts_other_than_latin_are_not_undercounted() {
        // CJK: a token a character (len / 4 would say 3 for these 12 bytes).
        assert_eq!(estimate_text_tokens("東京都庁"), 4);
        // Cyrillic: two characters a token.
        assert_eq!(estimate_text_tokens("привет"), 3);
        assert!(estimate_text_tokens("🙂🙂") >= 1);
    }

    #[test]
    fn lanes_start_where_a_run_starts_whatever_came_before() {
        // Long texts of every kind, split into lanes: the same count as one lane.
        let samples = [
            "word ".repeat(300),
            "    indented\n".repeat(60),
            "1234567 ".repeat(100),
            "{\"a\":[1,2]},".repeat(80),
            "привет мир 東京 ".repeat(40),
            " ".repeat(700),
            format!("{}x", "\n  ".repeat(200)),
        ];
        for text in samples {
            assert_eq!(estimate_text_tokens(&text), reference_estimate(&text), "{:?}", text.get(..30));
            let mut one = Lane::new(text.as_bytes());
            one.finish(0);
            let other: usize = text.chars().filter(|c| !c.is_ascii()).count();
            if other == 0 {
                assert_eq!(one.tokens, estimate_text_tokens(&text));
            }
        }
    }
}
