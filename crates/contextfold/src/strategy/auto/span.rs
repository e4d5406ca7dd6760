//! Summarizing the span a fold takes: one request, or, when the span is too long for the
//! summarizer (`summarizer_max_tokens`), a chain of requests over consecutive parts of it,
//! each updating the summary the one before gave. No request exceeds the limit: the
//! summary asked for is at most [`Limit::room`] bytes, which leaves every part room for
//! its messages whatever the summary says (a token is at least a byte), and each part is
//! planned beside the running summary as it came back, so a summary written within what
//! was asked reaches the next part whole. A single message longer than a part's room
//! reaches the summarizer cut (its texts, results and long tool-call arguments shortened,
//! reported); only a running summary longer than asked (or one a caller's token counter
//! counts at more tokens than bytes) is cut, at a line end, reported, never the limit
//! crossed.

use super::{cut_at_line, Run};
use crate::measure::{Meter, Unit};
use crate::message::{Message, Part, Role};
use crate::prompt::{render_refs, Draft};
use crate::settings::OptionError;
use crate::strategy::window::snapshot_body;
use crate::strategy::{cut_by, Action, CompactError};
use crate::summarize::{Controls, Job, JobPrompt, MessageRange, RequestKind, Summarizer};
use serde_json::Value;

/// What summarizing a span needs besides the summarizer.
pub(super) struct SpanRequest<'a> {
    /// The span's messages, where they lie.
    pub span: &'a [&'a Message],
    /// The summary being updated, if any.
    pub previous: Option<&'a str>,
    /// Bytes asked for; with a limit, at most its [`Limit::room`].
    pub target_bytes: usize,
    /// Most tokens one request may hold.
    pub limit: Option<Limit>,
    pub range: MessageRange,
}

/// The most tokens one summary request may hold, and what every request spends besides
/// its summary and messages.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limit {
    tokens: usize,
    /// Kept free in every request: the engine's lines (target length) and the caller's
    /// focus.
    margin: usize,
    /// Bytes of summary the limit leaves room for: what the instructions leave, less the
    /// messages' least room.
    room: usize,
}

impl Limit {
    /// The limit of `tokens`; an `invalid_option` error when the instructions alone (with
    /// the caller's `focus`) leave no room for a summary and a message.
    pub(super) fn new(tokens: usize, focus: Option<&str>, meter: Meter<'_>) -> Result<Limit, CompactError> {
        let focus = focus.map_or(0, |f| meter.text(Unit::Tokens, f));
        let margin = MARGIN_TOKENS.saturating_add(focus);
        // The longest instructions (an update's) with a one-word message.
        let bare = prompt_tokens("", &[&Message::text(Role::Assistant, ".")], meter, margin);
        let free = tokens.saturating_sub(bare);
        if free < MIN_ROOM_TOKENS.saturating_mul(2) {
            return Err(CompactError::Option(OptionError::new(
                ".strategy.summarizerMaxTokens",
                format!(
                    "{tokens} tokens leave no room for a summary request: its instructions alone take {bare}{}",
                    if focus > 0 { " with the focus `instructions`" } else { "" }
                ),
            )));
        }
        // A summary of `room` bytes takes at most `room` tokens (no token is shorter than a
        // byte, with the estimate as with a byte-level tokenizer), so one written within
        // what was asked leaves every part at least `MIN_ROOM_TOKENS` for its messages. (A
        // stand-in text's ratio undercounted a real summary's paths and numbers: the
        // answer did not fit beside the next part and was cut, to one byte.)
        Ok(Limit { tokens, margin, room: free.saturating_sub(MIN_ROOM_TOKENS) })
    }

    /// Bytes of summary a request may ask for under this limit.
    pub(super) fn room(&self) -> usize {
        self.room
    }

    /// Whether a request of `group` (updating `previous`) fits.
    fn fits(&self, previous: &str, group: &[&Message], meter: Meter<'_>) -> bool {
        prompt_tokens(previous, group, meter, self.margin) <= self.tokens
    }

    /// Whether `summary` leaves a request room for `MIN_ROOM_TOKENS` of messages.
    fn leaves_room(&self, summary: &str, meter: Meter<'_>) -> bool {
        prompt_tokens(summary, &[&Message::text(Role::Assistant, ".")], meter, self.margin)
            .saturating_add(MIN_ROOM_TOKENS)
            <= self.tokens
    }
}

/// Fewest tokens a limit must leave for the messages of a part (and for the summary).
const MIN_ROOM_TOKENS: usize = 100;

/// The summary of the span (inside its snapshot), or `None` when a call failed (the
/// error is recorded in `run`).
pub(super) async fn summarize_span<S: Summarizer + ?Sized>(
    request: SpanRequest<'_>,
    summarizer: &S,
    controls: &Controls,
    meter: Meter<'_>,
    run: &mut Run,
) -> Option<String> {
    let mut summary: Option<String> = request.previous.map(str::to_string);
    let Some(limit) = request.limit else {
        return ask(request.span.to_vec(), summary, &request, summarizer, controls, run).await.ok().flatten();
    };
    // Each part planned beside the running summary as it is: as many messages as fit.
    let mut at = 0usize;
    while at < request.span.len() {
        // What was asked of the summary, once it is an answer of this span's (an earlier
        // fold's, asked for before the limit, may take the whole room).
        let asked = (at > 0).then_some(request.target_bytes);
        if let Some(running) = summary.as_mut() {
            *running = fit_summary(running, asked, limit, meter, run);
        }
        let (part, next) = next_part(request.span, at, summary.as_deref().unwrap_or_default(), limit, meter, run);
        at = next;
        summary = ask(part.iter().collect(), summary, &request, summarizer, controls, run).await.ok()?;
    }
    summary
}

/// A summary call failed (the error is recorded in the run).
struct Failed;

/// The summary `previous` updated with `group` (itself when the group holds nothing to
/// summarize).
async fn ask<S: Summarizer + ?Sized>(
    group: Vec<&Message>,
    previous: Option<String>,
    request: &SpanRequest<'_>,
    summarizer: &S,
    controls: &Controls,
    run: &mut Run,
) -> Result<Option<String>, Failed> {
    let (tasks, work): (Vec<&Message>, Vec<&Message>) = group.into_iter().partition(|m| m.role == Role::User);
    let draft = Draft { previous: previous.as_deref(), tasks, work, note: "" };
    if !draft.holds_messages() {
        return Ok(previous);
    }
    let job = Job {
        kind: RequestKind::Fold,
        prompt: JobPrompt::Draft(draft),
        range: request.range,
        section: Some(0),
        target_bytes: request.target_bytes,
    };
    match run.engine.wave(summarizer, controls, vec![job]).await.into_iter().next() {
        Some(Ok(text)) => Ok(Some(snapshot_body(&text))),
        Some(Err(e)) => {
            run.record(0, Action::Failed { kind: RequestKind::Fold, request: e.request });
            run.errors.push(e);
            Err(Failed)
        }
        None => Err(Failed),
    }
}

/// The running `summary` as the next request can hold it: itself when it is no longer
/// than was `asked` (an answer's) and leaves the part room for its messages (one within
/// what was asked always does, unless a caller's counter counts more tokens than bytes);
/// else cut at a line end, first to what was asked, then shorter until it leaves that
/// room.
fn fit_summary(summary: &str, asked: Option<usize>, limit: Limit, meter: Meter<'_>, run: &mut Run) -> String {
    let before = summary.len();
    let asked = asked.unwrap_or(limit.room).min(limit.room);
    if before <= asked && limit.leaves_room(summary, meter) {
        return summary.to_string();
    }
    let mut keep = asked.min(before);
    let mut cut = String::new();
    while keep > 0 {
        cut = cut_by(summary, before.saturating_sub(keep)).and_then(cut_at_line).unwrap_or_default();
        if limit.leaves_room(&cut, meter) {
            break;
        }
        keep = keep.saturating_mul(3) / 4;
    }
    run.record(0, Action::Truncated { message: None, bytes_before: before, bytes_after: cut.len() });
    cut
}

/// Tokens a prompt for `group` (updating `previous`) takes, instructions included (the
/// engine adds a line or two: a margin is kept for them).
fn prompt_tokens(previous: &str, group: &[&Message], meter: Meter<'_>, margin: usize) -> usize {
    let (tasks, work): (Vec<&Message>, Vec<&Message>) = group.iter().partition(|m| m.role == Role::User);
    render_refs(Some(previous), &tasks, &work).map_or(0, |p| meter.text(Unit::Tokens, &p.full()).saturating_add(margin))
}

/// Tokens kept free in every request for what the engine adds (its target length line).
const MARGIN_TOKENS: usize = 200;

/// The part of `span` from `at` whose request fits `limit` with `previous` (the running
/// summary) beside it: as many messages as fit, and where the next part starts. A message
/// too long alone is cut to fit (and the cut reported), and opens its part.
fn next_part(
    span: &[&Message],
    at: usize,
    previous: &str,
    limit: Limit,
    meter: Meter<'_>,
    run: &mut Run,
) -> (Vec<Message>, usize) {
    let Some(&first) = span.get(at) else { return (Vec::new(), at) };
    let cut = (!limit.fits(previous, &[first], meter)).then(|| cut_to_fit(first, previous, limit, meter, run));
    let lead = cut.as_ref().unwrap_or(first);
    let rest = span.get(at.saturating_add(1)..).unwrap_or_default();
    let with = |n: usize| -> Vec<&Message> { std::iter::once(lead).chain(rest.iter().take(n).copied()).collect() };
    // A prompt only grows with its messages: the most that fit are found by doubling,
    // then halving, in a few renders of the part (one per message rendered it again and
    // again: quadratic in the part, seconds at 10k messages).
    let n = most_that_fit(rest.len(), |n| limit.fits(previous, &with(n), meter));
    let mut part = Vec::with_capacity(n.saturating_add(1));
    part.push(cut.unwrap_or_else(|| first.clone()));
    part.extend(rest.iter().take(n).map(|m| (*m).clone()));
    (part, at.saturating_add(n).saturating_add(1))
}

/// The largest `n` up to `max` for which `fit(n)` holds, `fit(0)` holding and `fit` never
/// holding again once it fails: doubling to a failure, then halving between.
fn most_that_fit(max: usize, fit: impl Fn(usize) -> bool) -> usize {
    let (mut good, mut step) = (0usize, 1usize);
    // `bad`: the least known to fail, or one past `max`.
    let mut bad = max.saturating_add(1);
    while good < max {
        let probe = good.saturating_add(step).min(max);
        if fit(probe) {
            good = probe;
            step = step.saturating_mul(2);
        } else {
            bad = probe;
            break;
        }
    }
    while bad.saturating_sub(good) > 1 {
        let mid = good.saturating_add(bad.saturating_sub(good) / 2);
        if fit(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    good
}

/// A copy of `m` with its texts, results, documents and tool-call arguments cut (from the
/// end, marked) until a request of it alone fits `limit`; a message even that leaves too
/// long (hundreds of parts) is a note of what it was.
fn cut_to_fit(m: &Message, previous: &str, limit: Limit, meter: Meter<'_>, run: &mut Run) -> Message {
    let before = m.size();
    // Cut to leave the part some room: the short messages after it (a call's result)
    // then go in the same request, not one request each.
    let roomy = Limit { tokens: limit.tokens.saturating_sub(MIN_ROOM_TOKENS), ..limit };
    let mut keep = before / 2;
    let mut copy;
    loop {
        copy = m.clone();
        shrink(&mut copy.parts, keep);
        if roomy.fits(previous, &[&copy], meter) {
            break;
        }
        if keep == 0 {
            if !limit.fits(previous, &[&copy], meter) {
                let note = format!("[a message of {before} bytes, too long for the summarizer]");
                copy = Message::new(m.role, vec![Part::text(note)]);
            }
            break;
        }
        keep /= 2;
    }
    run.record(0, Action::Truncated { message: None, bytes_before: before, bytes_after: copy.size() });
    copy
}

/// Cuts every text (tool results, text documents and tool-call arguments included) to at
/// most `keep` bytes in all, each in proportion to its size.
fn shrink(parts: &mut [Part], keep: usize) {
    let total: usize = parts.iter().map(Part::size).sum::<usize>().max(1);
    let share_of = |size: usize| keep.saturating_mul(size) / total;
    for p in parts.iter_mut() {
        match p {
            Part::Text(t) => {
                if let Some(cut) = cut_text(&t.text, share_of(t.text.len())) {
                    t.text = cut;
                }
            }
            Part::ToolResult(r) => {
                let own: usize = r.content.iter().map(Part::size).sum();
                shrink(&mut r.content, share_of(own));
            }
            Part::ToolCall(c) => {
                if let Some(cut) = cut_arguments(&c.arguments, share_of(c.arguments.len())) {
                    c.arguments = cut;
                }
            }
            Part::File(f) => {
                // A text document is read as its text: cut, it goes as a text.
                let text = f.text().map(|t| t.into_owned());
                if let Some(text) = text {
                    let name = f.name.as_deref().map_or_else(String::new, |n| format!("{n}: "));
                    let body = cut_text(&text, share_of(text.len())).unwrap_or(text);
                    *p = Part::text(format!("[document] {name}{body}"));
                }
            }
            Part::Reasoning(_) | Part::Image(_) => {}
        }
    }
}

/// `text` cut to its first `share` bytes (at a character), marked; `None` when that
/// would not shorten it (a short text is left whole).
fn cut_text(text: &str, share: usize) -> Option<String> {
    if text.len() <= share.saturating_add(CUT_MARK_BYTES) {
        return None;
    }
    let mut end = share;
    while !text.is_char_boundary(end) {
        end = end.saturating_sub(1);
    }
    let cut = text.len().saturating_sub(end);
    Some(format!("{}… [{cut} bytes cut to fit the summarizer]", text.get(..end).unwrap_or_default()))
}

/// Tool-call `arguments` cut to about `share` bytes, still telling what the call was on:
/// JSON keeps its keys, short values and the start of each long string (a file write's
/// path whole, its content cut, as masking shortens arguments); other arguments, and
/// JSON whose keys alone are over the share, are cut as a text. `None` when not longer.
fn cut_arguments(arguments: &str, share: usize) -> Option<String> {
    if arguments.len() <= share.saturating_add(CUT_MARK_BYTES) {
        return None;
    }
    let Ok(mut value) = serde_json::from_str::<Value>(arguments) else { return cut_text(arguments, share) };
    let strings = string_bytes(&value);
    // What the JSON takes besides its strings' contents.
    let skeleton = arguments.len().saturating_sub(strings);
    match share.checked_sub(skeleton) {
        Some(room) if strings > 0 => {
            cut_strings(&mut value, room, strings);
            Some(value.to_string())
        }
        _ => cut_text(arguments, share),
    }
}

/// Bytes of the string values in `value`.
fn string_bytes(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len(),
        Value::Array(items) => items.iter().map(string_bytes).fold(0, usize::saturating_add),
        Value::Object(map) => map.values().map(string_bytes).fold(0, usize::saturating_add),
        _ => 0,
    }
}

/// A marked cut takes about this many bytes: a text no longer than its share and this
/// is left whole.
const CUT_MARK_BYTES: usize = 48;

/// Cuts each string value of `value` to its share of `room` (of `strings` bytes in all),
/// when that shortens it.
fn cut_strings(value: &mut Value, room: usize, strings: usize) {
    match value {
        Value::String(s) => {
            if let Some(cut) = cut_text(s, room.saturating_mul(s.len()) / strings.max(1)) {
                *s = cut;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| cut_strings(v, room, strings)),
        Value::Object(map) => map.values_mut().for_each(|v| cut_strings(v, room, strings)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::message::ToolCallPart;
    use crate::summarize::Engine;
    use crate::testing::tool_call;
    use proptest::prelude::*;

    fn run() -> Run {
        Run { actions: vec![Vec::new()], starts: vec![0], engine: Engine::default(), errors: Vec::new() }
    }

    /// The whole span in parts beside a fixed `previous`.
    fn parts(span: &[&Message], previous: &str, limit: Limit, meter: Meter<'_>, run: &mut Run) -> Vec<Vec<Message>> {
        let (mut out, mut at) = (Vec::new(), 0);
        while at < span.len() {
            let (part, next) = next_part(span, at, previous, limit, meter, run);
            out.push(part);
            at = next;
        }
        out
    }

    /// The parts as they were made before: one message at a time, the whole part rendered
    /// again for each (kept here as the reference).
    fn parts_one_by_one(span: &[&Message], previous: &str, limit: Limit, meter: Meter<'_>) -> Vec<Vec<Message>> {
        let mut out: Vec<Vec<Message>> = Vec::new();
        let mut current: Vec<Message> = Vec::new();
        for &m in span {
            let mut with = current.clone();
            with.push(m.clone());
            if prompt_tokens(previous, &with.iter().collect::<Vec<_>>(), meter, limit.margin) <= limit.tokens {
                current = with;
                continue;
            }
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            if prompt_tokens(previous, &[m], meter, limit.margin) <= limit.tokens {
                current.push(m.clone());
            } else {
                current.push(cut_to_fit(m, previous, limit, meter, &mut run()));
            }
        }
        if !current.is_empty() {
            out.push(current);
        }
        out
    }

    /// An agent's span: requests, calls with results of `sizes[i]` lines, answers.
    fn span(sizes: &[usize]) -> Vec<Message> {
        let mut out = Vec::new();
        for (i, &lines) in sizes.iter().enumerate() {
            let id = format!("c{i}");
            out.push(Message::text(Role::User, format!("Step {i}: read src/m{i}.rs")));
            out.push(Message::new(Role::Assistant, vec![tool_call(&id, "read", &format!("src/m{i}.rs"))]));
            out.push(Message::tool_result(id, "read", "fn step() { value += 1; }\n".repeat(lines)));
            out.push(Message::text(Role::Assistant, format!("Read m{i}.")));
        }
        out
    }

    #[test]
    fn long_arguments_keep_their_keys_and_short_values() {
        let content = "fn step() { value += 1; }\n".repeat(200);
        let args = serde_json::json!({ "file_path": "src/lib.rs", "content": content, "mode": 420 }).to_string();
        let cut = cut_arguments(&args, 400).unwrap();
        let value: Value = serde_json::from_str(&cut).unwrap();
        assert_eq!((value["file_path"].as_str(), value["mode"].as_u64()), (Some("src/lib.rs"), Some(420)));
        let kept = value["content"].as_str().unwrap();
        assert!(kept.starts_with("fn step()") && kept.ends_with("bytes cut to fit the summarizer]"), "{kept}");
        assert!(cut.len() < 500, "{} bytes", cut.len());
        // Short arguments stay; none at all left, the text is cut.
        assert_eq!(cut_arguments(r#"{"path":"a.rs"}"#, 0), None);
        assert!(cut_arguments(&args, 0).unwrap().starts_with("… ["));
        assert!(cut_arguments(&"not json ".repeat(100), 50).unwrap().starts_with("not json"));
    }

    #[test]
    fn a_message_of_long_calls_is_cut_under_the_limit() {
        let args = serde_json::json!({ "file_path": "a.ex", "content": "  def f(x), do: x + 1\n".repeat(400) });
        let call = ToolCallPart {
            id: "c".into(),
            name: "Write".into(),
            arguments: args.to_string(),
            signature: None,
            extra: Default::default(),
        };
        let m = Message::new(Role::Assistant, vec![Part::ToolCall(call)]);
        let limit = Limit::new(1200, None, Meter::default()).unwrap();
        let previous = "x".repeat(limit.room());
        let cut = cut_to_fit(&m, &previous, limit, Meter::default(), &mut run());
        assert!(limit.fits(&previous, &[&cut], Meter::default()));
        let Part::ToolCall(c) = &cut.parts[0] else { panic!("{cut:?}") };
        assert!(c.arguments.contains(r#""content":"  def f(x)"#) && c.arguments.contains(r#""file_path":"a.ex""#));
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
        /// Doubling and halving make the parts one message at a time made: the same
        /// messages in the same parts (a message too long alone cut the same way).
        #[test]
        fn parts_are_the_ones_made_one_message_at_a_time(
            sizes in proptest::collection::vec(0usize..400, 1..24),
            limit in 1200usize..6000,
        ) {
            let chain = span(&sizes);
            let refs: Vec<&Message> = chain.iter().collect();
            let meter = Meter::default();
            let previous = "lorem ipsum dolor sit amet, ".repeat(20);
            let limit = Limit { tokens: limit, margin: MARGIN_TOKENS, room: usize::MAX };
            let got = parts(&refs, &previous, limit, meter, &mut run());
            prop_assert_eq!(got, parts_one_by_one(&refs, &previous, limit, meter));
        }

        #[test]
        fn most_that_fit_is_the_last_that_fits(max in 0usize..200, first_failure in 0usize..250) {
            let fit = |n: usize| n < first_failure.max(1);
            let expected = (0..=max).rev().find(|&n| fit(n)).unwrap_or(0);
            prop_assert_eq!(most_that_fit(max, fit), expected);
        }
    }
}
