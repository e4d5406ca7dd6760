//! Summarizing the span a fold takes: one request, or, when the span is too long for the
//! summarizer (`summarizer_max_tokens`), a chain of requests over consecutive parts of it,
//! each updating the summary the one before gave. No request exceeds the limit: a single
//! message longer than it reaches the summarizer cut (reported), never the chain itself.

use super::Run;
use crate::measure::{Meter, Unit};
use crate::message::{Message, Part, Role};
use crate::prompt::{render_refs, Draft};
use crate::strategy::window::snapshot_body;
use crate::strategy::Action;
use crate::summarize::{Controls, Job, JobPrompt, MessageRange, RequestKind, Summarizer};

/// What summarizing a span needs besides the summarizer.
pub(super) struct SpanRequest<'a> {
    /// The span's messages, where they lie.
    pub span: &'a [&'a Message],
    /// The summary being updated, if any.
    pub previous: Option<&'a str>,
    pub target_bytes: usize,
    /// Most tokens one request may hold.
    pub limit: Option<usize>,
    pub range: MessageRange,
}

/// The summary of the span (inside its snapshot), or `None` when a call failed (the
/// error is recorded in `run`).
pub(super) async fn summarize_span<S: Summarizer + ?Sized>(
    request: SpanRequest<'_>,
    summarizer: &S,
    controls: &Controls,
    meter: Meter<'_>,
    run: &mut Run,
) -> Option<String> {
    // With a limit, parts of the span (copies: a message too long is cut); without one,
    // the span as it lies.
    let cut: Vec<Vec<Message>>;
    let groups: Vec<Vec<&Message>> = match request.limit {
        Some(limit) => {
            // Planned as if the running summary were already as long as it may get.
            let size = request.previous.map_or(0, str::len).max(request.target_bytes);
            let stand_in = "lorem ipsum dolor sit amet, ".repeat(size / 28);
            cut = parts(request.span, &stand_in, limit, meter, run);
            cut.iter().map(|group| group.iter().collect()).collect()
        }
        None => vec![request.span.to_vec()],
    };
    let mut summary: Option<String> = request.previous.map(str::to_string);
    for group in groups {
        let (tasks, work): (Vec<&Message>, Vec<&Message>) = group.into_iter().partition(|m| m.role == Role::User);
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

/// Tokens a prompt for `group` (updating `previous`) takes, instructions included (the
/// engine adds a line or two: a margin is kept for them).
fn prompt_tokens(previous: &str, group: &[&Message], meter: Meter<'_>) -> usize {
    let (tasks, work): (Vec<&Message>, Vec<&Message>) = group.iter().partition(|m| m.role == Role::User);
    render_refs(Some(previous), &tasks, &work)
        .map_or(0, |p| meter.text(Unit::Tokens, &p.full()).saturating_add(MARGIN_TOKENS))
}

/// Tokens kept free in every request for what the engine adds (target length, focus).
const MARGIN_TOKENS: usize = 200;

/// The span in consecutive parts whose requests fit `limit` tokens with `previous` (a
/// stand-in for the running summary) beside them: each part as many messages as fit. A
/// message too long alone is cut to fit (and the cut reported), and opens its part.
fn parts(span: &[&Message], previous: &str, limit: usize, meter: Meter<'_>, run: &mut Run) -> Vec<Vec<Message>> {
    // A limit the instructions and the summary alone reach leaves nothing to split for.
    if prompt_tokens(previous, &[&Message::text(Role::Assistant, ".")], meter) >= limit {
        return vec![span.iter().map(|m| (*m).clone()).collect()];
    }
    let fits = |group: &[&Message]| prompt_tokens(previous, group, meter) <= limit;
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
fn cut_to_fit(m: &Message, previous: &str, limit: usize, meter: Meter<'_>, run: &mut Run) -> Message {
    let before = m.size();
    let mut keep = before / 2;
    let mut copy = m.clone();
    while keep > 0 {
        copy = m.clone();
        shrink(&mut copy.parts, keep);
        if prompt_tokens(previous, &[&copy], meter) <= limit {
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
    fn parts_one_by_one(span: &[&Message], previous: &str, limit: usize, meter: Meter<'_>) -> Vec<Vec<Message>> {
        let mut out: Vec<Vec<Message>> = Vec::new();
        let mut current: Vec<Message> = Vec::new();
        for &m in span {
            let mut with = current.clone();
            with.push(m.clone());
            if prompt_tokens(previous, &with.iter().collect::<Vec<_>>(), meter) <= limit {
                current = with;
                continue;
            }
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            if prompt_tokens(previous, &[m], meter) <= limit {
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
            let previous = "lorem ipsum dolor sit amet, ".repeat(20);
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
