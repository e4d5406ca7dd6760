//! Summarizing the span a fold takes: one request, or, when the span is too long for the
//! summarizer (`summarizer_max_tokens`), a chain of requests over consecutive parts of it,
//! each updating the summary the one before gave. No request exceeds the limit: the
//! summary asked for takes at most half of what the instructions leave ([`Limit::room`]),
//! so every part has the other half for its messages; a single message longer than that
//! reaches the summarizer cut, and a running summary that came back longer than planned
//! is cut at a line end (both reported), never the limit crossed.

use super::{cut_at_line, Run};
use crate::measure::{Meter, Unit};
use crate::message::{Message, Part, Role};
use crate::prompt::{render_refs, Draft};
use crate::settings::OptionError;
use crate::strategy::window::snapshot_body;
use crate::strategy::{cut_by, Action, CompactError};
use crate::summarize::{Controls, Job, JobPrompt, MessageRange, RequestKind, Summarizer};

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
    /// Bytes of summary the limit leaves room for (half of what the instructions leave).
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
        // Half for the summary, half for the messages of each part.
        let room_tokens = free / 2;
        let sample = STAND_IN.repeat(100);
        let per_token = sample.len() / meter.text(Unit::Tokens, &sample).max(1);
        let room = room_tokens.saturating_mul(per_token.max(1));
        if room_tokens < MIN_ROOM_TOKENS {
            return Err(CompactError::Option(OptionError::new(
                ".strategy.summarizerMaxTokens",
                format!(
                    "{tokens} tokens leave no room for a summary request: its instructions alone take {bare}{}",
                    if focus > 0 { " with the focus `instructions`" } else { "" }
                ),
            )));
        }
        Ok(Limit { tokens, margin, room })
    }

    /// Bytes of summary a request may ask for under this limit.
    pub(super) fn room(&self) -> usize {
        self.room
    }
}

/// Fewest tokens a limit must leave for the summary (and as many for the messages).
const MIN_ROOM_TOKENS: usize = 100;

/// The text standing in for a summary while parts are planned.
const STAND_IN: &str = "lorem ipsum dolor sit amet, ";

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
    // With a limit, parts of the span (copies: a message too long is cut); without one,
    // the span as it lies.
    let cut: Vec<Vec<Message>>;
    let (groups, planned): (Vec<Vec<&Message>>, usize) = match request.limit {
        Some(limit) => {
            // An earlier summary over the room (asked for before the limit, or an answer
            // longer than asked) is cut to it: else no request could hold it.
            if let Some(previous) = summary.as_mut().filter(|p| p.len() > limit.room) {
                *previous = cut_summary(previous, limit.room, run);
            }
            // Planned as if the running summary were already as long as it may get.
            let size = summary.as_ref().map_or(0, String::len).max(request.target_bytes).min(limit.room);
            let stand_in = STAND_IN.repeat(size / STAND_IN.len());
            cut = parts(request.span, &stand_in, limit, meter, run);
            (cut.iter().map(|group| group.iter().collect()).collect(), size)
        }
        None => (vec![request.span.to_vec()], usize::MAX),
    };
    for group in groups {
        let (tasks, work): (Vec<&Message>, Vec<&Message>) = group.into_iter().partition(|m| m.role == Role::User);
        if let (Some(limit), Some(running)) = (request.limit, summary.as_mut()) {
            // A summary that came back longer than planned is cut to what the part leaves.
            *running = fit_summary(running, planned, &tasks, &work, limit, meter, run);
        }
        let draft = Draft { previous: summary.as_deref(), tasks, work, note: "" };
        if !draft.holds_messages() {
            continue;
        }
        let job = Job {
            kind: RequestKind::Fold,
            prompt: JobPrompt::Draft(draft),
            range: request.range,
            section: Some(0),
            target_bytes: request.target_bytes,
        };
        match run.engine.wave(summarizer, controls, vec![job]).await.into_iter().next() {
            Some(Ok(text)) => summary = Some(snapshot_body(&text)),
            Some(Err(e)) => {
                run.record(0, Action::Failed { kind: RequestKind::Fold, request: e.request });
                run.errors.push(e);
                return None;
            }
            None => return None,
        }
    }
    summary
}

/// `summary` cut at a line end to at most `bytes` (reported), as a running summary
/// larger than its room is.
fn cut_summary(summary: &str, bytes: usize, run: &mut Run) -> String {
    let cut = cut_by(summary, summary.len().saturating_sub(bytes)).and_then(cut_at_line).unwrap_or_default();
    run.record(0, Action::Truncated { message: None, bytes_before: summary.len(), bytes_after: cut.len() });
    cut
}

/// The running `summary` as the next request can hold it beside `tasks` and `work`
/// (planned with a summary of `planned` bytes): itself when it fits, else cut, first to
/// `planned`, then shorter until the request fits.
#[allow(clippy::too_many_arguments)]
fn fit_summary(
    summary: &str,
    planned: usize,
    tasks: &[&Message],
    work: &[&Message],
    limit: Limit,
    meter: Meter<'_>,
    run: &mut Run,
) -> String {
    let fits = |s: &str| {
        render_refs(Some(s), tasks, work)
            .map_or(0, |p| meter.text(Unit::Tokens, &p.full()).saturating_add(limit.margin))
            <= limit.tokens
    };
    if fits(summary) {
        return summary.to_string();
    }
    let before = summary.len();
    let mut keep = planned.min(before);
    let mut cut = String::new();
    while keep > 0 {
        cut = cut_by(summary, before.saturating_sub(keep)).and_then(cut_at_line).unwrap_or_default();
        if fits(&cut) {
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

/// The span in consecutive parts whose requests fit `limit` with `previous` (a stand-in
/// for the running summary, within the limit's room) beside them: each part as many
/// messages as fit. A message too long alone is cut to fit (and the cut reported), and
/// opens its part.
fn parts(span: &[&Message], previous: &str, limit: Limit, meter: Meter<'_>, run: &mut Run) -> Vec<Vec<Message>> {
    let fits = |group: &[&Message]| prompt_tokens(previous, group, meter, limit.margin) <= limit.tokens;
    let mut out: Vec<Vec<Message>> = Vec::new();
    let mut at = 0usize;
    while let Some(&first) = span.get(at) {
        let cut = (!fits(&[first])).then(|| cut_to_fit(first, previous, limit, meter, run));
        let lead = cut.as_ref().unwrap_or(first);
        let rest = span.get(at.saturating_add(1)..).unwrap_or_default();
        let with = |n: usize| -> Vec<&Message> { std::iter::once(lead).chain(rest.iter().take(n).copied()).collect() };
        // A prompt only grows with its messages: the most that fit are found by doubling,
        // then halving, in a few renders of the part (one per message rendered it again
        // and again: quadratic in the part, seconds at 10k messages).
        let n = most_that_fit(rest.len(), |n| fits(&with(n)));
        let mut part = Vec::with_capacity(n.saturating_add(1));
        part.push(cut.unwrap_or_else(|| first.clone()));
        part.extend(rest.iter().take(n).map(|m| (*m).clone()));
        out.push(part);
        at = at.saturating_add(n).saturating_add(1);
    }
    out
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

/// A copy of `m` with its texts cut (from the end, marked) until a request of it alone
/// fits `limit`.
fn cut_to_fit(m: &Message, previous: &str, limit: Limit, meter: Meter<'_>, run: &mut Run) -> Message {
    let before = m.size();
    let mut keep = before / 2;
    let mut copy = m.clone();
    while keep > 0 {
        copy = m.clone();
        shrink(&mut copy.parts, keep);
        if prompt_tokens(previous, &[&copy], meter, limit.margin) <= limit.tokens {
            break;
        }
        keep /= 2;
    }
    run.record(0, Action::Truncated { message: None, bytes_before: before, bytes_after: copy.size() });
    copy
}

/// Cuts every text (tool results included) to at most `keep` bytes in all, each in
/// proportion to its size.
fn shrink(parts: &mut [Part], keep: usize) {
    let total: usize = parts.iter().map(Part::size).sum::<usize>().max(1);
    for p in parts.iter_mut() {
        match p {
            Part::Text(t) => {
                let share = keep.saturating_mul(t.text.len()) / total;
                if t.text.len() > share {
                    let mut end = share;
                    while !t.text.is_char_boundary(end) {
                        end = end.saturating_sub(1);
                    }
                    let cut = t.text.len().saturating_sub(end);
                    t.text =
                        format!("{}… [{cut} bytes cut to fit the summarizer]", t.text.get(..end).unwrap_or_default());
                }
            }
            Part::ToolResult(r) => {
                let own: usize = r.content.iter().map(Part::size).sum();
                shrink(&mut r.content, keep.saturating_mul(own) / total);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::summarize::Engine;
    use crate::testing::tool_call;
    use proptest::prelude::*;

    fn run() -> Run {
        Run { actions: vec![Vec::new()], starts: vec![0], engine: Engine::default(), errors: Vec::new() }
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
            let previous = STAND_IN.repeat(20);
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
