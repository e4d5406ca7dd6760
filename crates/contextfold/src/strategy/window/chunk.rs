//! Chunking, and the level-by-level summarization of long texts.
//!
//! A span of messages is packed into chunks that each cost at most a limit, never
//! splitting an exchange (an assistant message and its tool results) unless the exchange
//! alone is too large; a single message over the limit becomes a *long text*.
//!
//! A long text is cut into pieces, each piece summarized, the summaries joined; when the
//! joined summaries are still over their goal, they are cut and summarized again one
//! level deeper, and past the depth limit they are truncated (never silently: the
//! caller reports it). All items of one level run in ONE engine wave, so the number of
//! sequential waves is the depth reached, not the number of items.

use crate::measure::{Amount, Meter};
use crate::message::{Message, Part, Role, ToolResultPart};
use crate::prompt::{render, with_note, Draft, Prompt};
use crate::summarize::{Controls, Engine, Job, JobPrompt, MessageRange, RequestKind, SummarizeError, Summarizer};
use std::borrow::Borrow;
use std::ops::Range;

/// Instructions added when summaries of parts are condensed again.
const DEEPER_NOTE: &str = "The <messages> are summaries of consecutive parts of one long text, oldest first: \
condense them into ONE shorter summary that keeps every fact still needed.";

/// Smallest per-call size hint, in bytes.
const MIN_TARGET_BYTES: usize = 128;

/// What a chunk of a span is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ChunkPlan {
    /// Consecutive messages summarized in one call.
    Messages(Range<usize>),
    /// One message too large for a chunk, summarized as a long text.
    Long(usize),
}

/// Packs `messages` (with their `costs`) into chunks costing at most `limit` each.
pub(crate) fn plan_chunks(messages: &[impl Borrow<Message>], costs: &[usize], limit: usize) -> Vec<ChunkPlan> {
    let cost =
        |r: &Range<usize>| costs.get(r.clone()).map_or(0, |c| c.iter().fold(0usize, |a, b| a.saturating_add(*b)));
    // Exchanges: a non-tool message and the tool messages after it.
    let mut units: Vec<Range<usize>> = Vec::new();
    for (i, m) in messages.iter().map(Borrow::borrow).enumerate() {
        match units.last_mut() {
            Some(last) if m.role == Role::Tool => last.end = i.saturating_add(1),
            _ => units.push(i..i.saturating_add(1)),
        }
    }
    // Atoms: whole exchanges when they fit, else their messages one by one.
    let atoms = units.into_iter().flat_map(|u| {
        if cost(&u) <= limit || u.len() == 1 {
            vec![u]
        } else {
            u.map(|i| i..i.saturating_add(1)).collect()
        }
    });
    let mut plans = Vec::new();
    // The chunk being filled, and its cost so far (summing its range again for every atom
    // made packing quadratic in the chunk's length).
    let mut current: Option<(Range<usize>, usize)> = None;
    for atom in atoms {
        let c = cost(&atom);
        if c > limit && atom.len() == 1 {
            plans.extend(current.take().map(|(r, _)| ChunkPlan::Messages(r)));
            plans.push(ChunkPlan::Long(atom.start));
            continue;
        }
        match current.as_mut() {
            Some((cur, spent)) if spent.saturating_add(c) <= limit => {
                cur.end = atom.end;
                *spent = spent.saturating_add(c);
            }
            _ => {
                plans.extend(current.take().map(|(r, _)| ChunkPlan::Messages(r)));
                current = Some((atom, c));
            }
        }
    }
    plans.extend(current.map(|(r, _)| ChunkPlan::Messages(r)));
    plans
}

/// The text a message carries, media as placeholders and reasoning left out.
pub(crate) fn message_text(m: &Message) -> String {
    let mut out = String::new();
    push_parts_text(&mut out, &m.parts);
    out
}

pub(crate) fn push_parts_text(out: &mut String, parts: &[Part]) {
    for p in parts {
        let piece = match p {
            Part::Text(t) => t.text.clone(),
            Part::Reasoning(_) => continue,
            Part::Image(i) => match (&i.url, &i.media_type) {
                (Some(url), _) if !url.starts_with("data:") => format!("[Image URL: {url}]"),
                (_, Some(mime)) => format!("[Image: {mime}]"),
                _ => "[Image]".to_string(),
            },
            Part::File(f) => format!("[Binary Content: {}]", f.media_type.as_deref().unwrap_or("unknown")),
            Part::ToolCall(c) => format!("[Tool call {}: {}]", c.name, c.arguments),
            Part::ToolResult(r) => {
                let mut inner = String::new();
                push_parts_text(&mut inner, &r.content);
                inner
            }
        };
        if !out.is_empty() && !piece.is_empty() {
            out.push('\n');
        }
        out.push_str(&piece);
    }
}

/// The largest char boundary of `s` at or below `i`.
fn floor_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while i > 0 && !s.is_char_boundary(i) {
        i = i.saturating_sub(1);
    }
    i
}

/// The smallest char boundary of `s` above 0 (the end of the first char).
fn first_char_end(s: &str) -> usize {
    s.chars().next().map_or(0, char::len_utf8)
}

/// Cuts `text` into pieces costing about `limit` each (cut by bytes in proportion to
/// the text's cost, at line breaks where one is close: one count, not one per line).
pub(crate) fn split_text(text: &str, limit: Amount, meter: Meter<'_>) -> Vec<String> {
    let cost = meter.text(limit.unit(), text);
    let max = limit.value().max(1);
    if cost <= max || text.is_empty() {
        return vec![text.to_string()];
    }
    // A caller's counter may claim any count: never more pieces than bytes.
    let pieces = cost.div_ceil(max).min(text.len());
    let piece_bytes = text.len().div_ceil(pieces).max(1);
    let mut out = Vec::with_capacity(pieces);
    let mut rest = text;
    while !rest.is_empty() {
        if rest.len() <= piece_bytes {
            out.push(rest.to_string());
            break;
        }
        let mut cut = floor_boundary(rest, piece_bytes);
        if cut == 0 {
            cut = first_char_end(rest);
        }
        let window_start = cut.saturating_sub(cut / 5);
        if let Some(nl) = rest.get(..cut).and_then(|head| head.rfind('\n')) {
            if nl.saturating_add(1) > window_start {
                cut = nl.saturating_add(1);
            }
        }
        let Some((head, tail)) = rest.split_at_checked(cut) else { break };
        out.push(head.to_string());
        rest = tail;
    }
    out
}

/// `text` cut to cost at most `limit`: its head and tail around a marker saying how
/// much was cut. Unchanged when it fits.
pub(crate) fn truncate_text(text: &str, limit: Amount, meter: Meter<'_>) -> String {
    let unit = limit.unit();
    let cost = meter.text(unit, text);
    if cost <= limit.value() {
        return text.to_string();
    }
    // Bytes in proportion to the cost, shrunk until the result fits.
    let mut budget = text.len().saturating_mul(limit.value()) / cost.max(1);
    for _ in 0..32 {
        let cut = cut_middle(text, budget);
        if meter.text(unit, &cut) <= limit.value() || budget == 0 {
            return cut;
        }
        budget = budget.saturating_mul(9) / 10;
    }
    cut_middle(text, 0)
}

/// Head (two thirds) and tail (one third) of `text` within about `budget` bytes.
fn cut_middle(text: &str, budget: usize) -> String {
    let marker_len = 40usize;
    let room = budget.saturating_sub(marker_len);
    let head_end = floor_boundary(text, room.saturating_mul(2) / 3);
    let tail_len = room.saturating_sub(head_end);
    let mut tail_start = text.len().saturating_sub(tail_len);
    while tail_start < text.len() && !text.is_char_boundary(tail_start) {
        tail_start = tail_start.saturating_add(1);
    }
    let tail_start = tail_start.max(head_end);
    let head = text.get(..head_end).unwrap_or_default();
    let tail = text.get(tail_start..).unwrap_or_default();
    let cut = tail_start.saturating_sub(head_end);
    format!("{head}\n[... {cut} bytes cut ...]\n{tail}")
}

/// How the pieces of a long text are shown to the summarizer.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    /// A tool result: pieces stay tool results (after the call that asked for them).
    ToolResult { call: Option<Box<Message>>, template: Box<ToolResultPart> },
    /// Any other message: pieces keep its role.
    Message(Role),
}

impl Source {
    /// The prompt for one piece, with `note` added to the instructions.
    pub(crate) fn render(&self, piece: &str, note: &str) -> Option<Prompt> {
        let prompt = match self {
            Source::ToolResult { call, template } => {
                let mut work: Vec<Message> = call.iter().map(|c| c.as_ref().clone()).collect();
                let part = ToolResultPart { content: vec![Part::text(piece)], ..template.as_ref().clone() };
                work.push(Message::new(Role::Tool, vec![Part::ToolResult(part)]));
                render(&[], &work)
            }
            Source::Message(Role::User) => render(&[Message::text(Role::User, piece)], &[]),
            Source::Message(_) => render(&[], &[Message::text(Role::Assistant, piece)]),
        }?;
        Some(with_note(prompt, note))
    }
}

/// One call's prompt of an item's level.
#[derive(Debug, Clone)]
pub(crate) enum Piece<'a> {
    /// Made already (a piece of a long text, a deeper level's summaries).
    Ready(Prompt),
    /// Messages of the chain, rendered where they lie as the call starts (a chunk is
    /// often most of the chain: all chunks rendered up front held it twice), or read
    /// there by a summarizer that reads messages.
    Messages(Draft<'a>),
}

impl From<Prompt> for Piece<'_> {
    fn from(prompt: Prompt) -> Self {
        Piece::Ready(prompt)
    }
}

/// One thing to summarize, possibly over several levels.
#[derive(Debug, Clone)]
pub(crate) struct Item<'a> {
    /// This level's prompts (one call each).
    pub pieces: Vec<Piece<'a>>,
    /// The result must cost at most this, or it goes one level deeper.
    pub goal: Amount,
    /// Added to the instructions of deeper levels.
    pub note: &'static str,
    pub kind: RequestKind,
    pub range: MessageRange,
    pub section: Option<usize>,
    /// Size hint of the whole result; split over the pieces.
    pub target_bytes: usize,
    /// Largest result in bytes that can replace what the item covers with a gain: a
    /// longer one goes one level deeper like one over `goal`, and is cut past the depth
    /// limit, so a summary is never discarded (and asked for again on every rerun).
    pub max_bytes: usize,
    /// Bytes of what this level summarizes: a level answering more than it was given
    /// is not summarized again (a summarizer that grows its input would otherwise
    /// multiply the pieces at every level), it is truncated.
    pub input_bytes: usize,
}

/// How an item ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome {
    /// The summary, and whether it had to be truncated past the depth limit.
    Done { text: String, truncated: bool },
    /// Calls failed (or were not made: cancelled); the errors of this item.
    Failed(Vec<SummarizeError>),
}

/// How deep long texts go and how large their pieces are.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Levels<'a> {
    pub meter: Meter<'a>,
    /// Largest piece sent in one call.
    pub piece_limit: Amount,
    /// Levels summarized below the first; past them, truncation.
    pub max_depth: usize,
}

/// Summarizes every item, level by level, one wave per level for all of them.
pub(crate) async fn run_items<S: Summarizer + ?Sized>(
    engine: &mut Engine,
    summarizer: &S,
    controls: &Controls,
    levels: Levels<'_>,
    mut items: Vec<Item<'_>>,
) -> Vec<Outcome> {
    let mut outcomes: Vec<Option<Outcome>> = vec![None; items.len()];
    let mut depth = 0usize;
    loop {
        let active: Vec<usize> = (0..items.len()).filter(|&i| outcomes.get(i).is_some_and(Option::is_none)).collect();
        if active.is_empty() {
            break;
        }
        if controls.cancel.is_cancelled() {
            for i in active {
                if let Some(slot) = outcomes.get_mut(i) {
                    *slot = Some(Outcome::Failed(Vec::new()));
                }
            }
            break;
        }
        let (jobs, owners) = level_jobs(&items, &active);
        let results = engine.wave(summarizer, controls, jobs).await;
        let mut texts: Vec<Vec<String>> = vec![Vec::new(); items.len()];
        let mut errors: Vec<Vec<SummarizeError>> = vec![Vec::new(); items.len()];
        for (owner, result) in owners.into_iter().zip(results) {
            match (result, texts.get_mut(owner), errors.get_mut(owner)) {
                (Ok(text), Some(t), _) => t.push(text.trim().to_string()),
                (Err(e), _, Some(errs)) => errs.push(e),
                _ => {}
            }
        }
        for i in active {
            let (Some(item), Some(slot)) = (items.get_mut(i), outcomes.get_mut(i)) else { continue };
            let errs = errors.get_mut(i).map(std::mem::take).unwrap_or_default();
            if !errs.is_empty() || item.pieces.is_empty() {
                *slot = Some(Outcome::Failed(errs));
                continue;
            }
            let joined = texts.get_mut(i).map(std::mem::take).unwrap_or_default().join("\n\n");
            *slot = settle(item, joined, depth, levels);
        }
        depth = depth.saturating_add(1);
    }
    outcomes.into_iter().map(|o| o.unwrap_or(Outcome::Failed(Vec::new()))).collect()
}

/// One job per piece of the `active` items, with the item each job belongs to.
fn level_jobs<'a>(items: &'a [Item<'_>], active: &[usize]) -> (Vec<Job<'a>>, Vec<usize>) {
    let mut jobs = Vec::new();
    let mut owners = Vec::new();
    for &i in active {
        let Some(item) = items.get(i) else { continue };
        // Never above the item's own hint (a fair share of what it replaces).
        let floor = MIN_TARGET_BYTES.min(item.target_bytes);
        let per_piece = (item.target_bytes / item.pieces.len().max(1)).max(floor).max(1);
        for piece in &item.pieces {
            // Made when its call starts.
            let prompt = match piece {
                Piece::Ready(prompt) => JobPrompt::Deferred(Box::new(move || Some(prompt.clone()))),
                Piece::Messages(draft) => JobPrompt::Draft(draft.clone()),
            };
            jobs.push(Job {
                kind: item.kind,
                prompt,
                range: item.range,
                section: item.section,
                target_bytes: per_piece,
            });
            owners.push(i);
        }
    }
    (jobs, owners)
}

/// What an item's joined summaries at `depth` make of it: done when they fit its goal
/// and are one summary (or no level remains); else, while levels remain and they did not
/// grow, `None` with the item's pieces set to the next level's; else done, truncated.
fn settle(item: &mut Item<'_>, joined: String, depth: usize, levels: Levels<'_>) -> Option<Outcome> {
    let goal = item.goal.with_value(item.goal.value().max(1));
    let fits = levels.meter.text(goal.unit(), &joined) <= goal.value() && joined.len() <= item.max_bytes;
    // Summaries of several parts, each in the summary's own form, pasted together repeat
    // its headings: while a level remains they are merged into one, even when they fit.
    let deeper = depth < levels.max_depth && joined.len() <= item.input_bytes;
    if fits && (item.pieces.len() < 2 || !deeper) {
        return Some(Outcome::Done { text: joined, truncated: false });
    }
    if deeper {
        item.input_bytes = joined.len();
        let source = Source::Message(Role::Assistant);
        let note =
            if item.note.is_empty() { DEEPER_NOTE.to_string() } else { format!("{DEEPER_NOTE}\n\n{}", item.note) };
        item.pieces = split_text(&joined, levels.piece_limit, levels.meter)
            .iter()
            .filter_map(|piece| source.render(piece, &note).map(Piece::Ready))
            .collect();
        return None;
    }
    let cut = truncate_text(&joined, goal, levels.meter);
    let cut = truncate_text(&cut, Amount::Bytes(item.max_bytes), levels.meter);
    Some(Outcome::Done { text: cut, truncated: true })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summarize::mock::FixedSummarizer;
    use futures::executor::block_on;

    fn bytes(n: usize) -> Amount {
        Amount::Bytes(n)
    }

    #[test]
    fn split_text_covers_the_text_in_pieces_under_the_limit() {
        let text = "alpha beta gamma delta\n".repeat(100);
        let pieces = split_text(&text, bytes(300), Meter::default());
        assert!(pieces.len() >= 8);
        assert_eq!(pieces.concat(), text);
        assert!(pieces.iter().all(|p| p.len() <= 300));
        assert!(pieces.iter().take(pieces.len() - 1).all(|p| p.ends_with('\n')), "cut at line breaks");
        // Multi-byte text never panics and stays whole.
        let wide = "日本語のテキスト".repeat(50);
        let pieces = split_text(&wide, bytes(7), Meter::default());
        assert_eq!(pieces.concat(), wide);
        assert_eq!(split_text("short", bytes(100), Meter::default()), vec!["short".to_string()]);
    }

    /// A caller's counter that claims absurd counts (a JS counter may return 9e15).
    struct Absurd;
    impl crate::measure::TokenCounter for Absurd {
        fn count_texts(&self, texts: &[&str]) -> Vec<usize> {
            vec![usize::MAX / 2; texts.len()]
        }
    }

    #[test]
    fn split_text_survives_a_counter_claiming_absurd_counts() {
        let text = "a few words\n".repeat(10);
        let pieces = split_text(&text, Amount::Tokens(1), Meter::new(&Absurd));
        assert_eq!(pieces.concat(), text);
        assert!(pieces.len() <= text.len());
    }

    #[test]
    fn truncation_keeps_head_and_tail_and_says_so() {
        let text = format!("HEAD{}TAIL", "x".repeat(10_000));
        let cut = truncate_text(&text, bytes(500), Meter::default());
        assert!(cut.len() <= 500, "{}", cut.len());
        assert!(cut.starts_with("HEAD") && cut.ends_with("TAIL"));
        assert!(cut.contains("bytes cut"));
        let tokens = truncate_text(&"word ".repeat(5000), Amount::Tokens(100), Meter::default());
        assert!(Meter::default().text(crate::measure::Unit::Tokens, &tokens) <= 100);
        assert_eq!(truncate_text("fits", bytes(10), Meter::default()), "fits");
        let wide = "é".repeat(1000);
        assert!(truncate_text(&wide, bytes(101), Meter::default()).len() <= 101);
    }

    #[test]
    fn chunks_keep_exchanges_together_and_isolate_huge_messages() {
        use crate::message::{Extra, ToolCallPart};
        let call = Message::new(
            Role::Assistant,
            vec![Part::ToolCall(ToolCallPart {
                id: "a".into(),
                name: "f".into(),
                arguments: "{}".into(),
                signature: None,
                extra: Extra::new(),
            })],
        );
        let m = vec![
            Message::text(Role::User, "u"),
            call,
            Message::tool_result("a", "f", "r"),
            Message::text(Role::Assistant, "big"),
            Message::text(Role::User, "u2"),
        ];
        let costs = [10, 10, 10, 100, 10];
        let plans = plan_chunks(&m, &costs, 25);
        assert_eq!(
            plans,
            vec![ChunkPlan::Messages(0..1), ChunkPlan::Messages(1..3), ChunkPlan::Long(3), ChunkPlan::Messages(4..5)]
        );
        assert_eq!(plan_chunks(&m, &[1, 1, 1, 1, 1], 100), vec![ChunkPlan::Messages(0..5)]);
        // An exchange too large as a whole is cut between its messages.
        assert_eq!(plan_chunks(&m[1..3], &[20, 20], 25), vec![ChunkPlan::Messages(0..1), ChunkPlan::Messages(1..2)]);
    }

    fn item(goal: usize, pieces: usize) -> Item<'static> {
        let prompt = Source::Message(Role::Assistant).render("text", "").unwrap();
        Item {
            pieces: vec![prompt.into(); pieces],
            goal: bytes(goal),
            note: "",
            kind: RequestKind::Chunk,
            range: MessageRange { start: 0, end: 1 },
            section: None,
            target_bytes: 1000,
            max_bytes: usize::MAX,
            input_bytes: 10_000,
        }
    }

    #[test]
    fn items_of_one_level_share_a_wave_and_recursion_stops_at_the_depth_limit() {
        let s = FixedSummarizer::new("y".repeat(50));
        let levels = Levels { meter: Meter::default(), piece_limit: bytes(1000), max_depth: 5 };
        let mut engine = Engine::default();
        let out = block_on(run_items(&mut engine, &s, &Controls::default(), levels, vec![item(200, 3), item(60, 1)]));
        // Item 0: three 50-byte summaries joined (154 bytes) fit 200, and are merged into
        // one in a second wave (pasted, they would repeat the summary's headings). Item 1:
        // fits 60 at once.
        assert_eq!(engine.waves, 2);
        assert_eq!(s.calls(), 5);
        assert!(matches!(&out[0], Outcome::Done { truncated: false, text } if text.len() == 50));
        assert!(matches!(&out[1], Outcome::Done { truncated: false, .. }));
        // No level left (the waves go to a fold to come): the parts' summaries joined.
        let mut engine = Engine::default();
        let flat = Levels { max_depth: 0, ..levels };
        let out = block_on(run_items(&mut engine, &s, &Controls::default(), flat, vec![item(200, 3)]));
        assert_eq!(engine.waves, 1);
        assert!(matches!(&out[0], Outcome::Done { truncated: false, text } if text.len() == 154));

        // A goal the summarizer never reaches: levels 0..=5, then truncation.
        let mut engine = Engine::default();
        let s = FixedSummarizer::new("z".repeat(50));
        let out = block_on(run_items(&mut engine, &s, &Controls::default(), levels, vec![item(45, 1)]));
        assert_eq!(engine.waves, 6);
        assert_eq!(s.calls(), 6);
        match &out[0] {
            Outcome::Done { text, truncated: true } => assert!(text.len() <= 45),
            other => panic!("{other:?}"),
        }
    }
}
