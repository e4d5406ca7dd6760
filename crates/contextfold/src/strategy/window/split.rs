//! Where the history is cut: the four-phase safe split.
//!
//! A split at index `s` summarizes `messages[..s]` and keeps `messages[s..]`. It is
//! *safe* when no complete call/result pair straddles `s`, no call without a result is
//! summarized, and no orphaned result (one without an earlier call) is kept; keeping a
//! pending call is fine. A *turn start* is a user message (never a tool result).
//!
//! 1. From the target (the split keeping `window` messages) backwards, while the kept
//!    part costs at most 70% of the threshold: the first safe turn start.
//! 2. From the target forwards, among splits keeping at most 70%: the first safe turn
//!    start, else the first safe split.
//! 3. Over all splits keeping at most 80%: the first safe turn start, else the first
//!    safe split.
//! 4. Best effort: splits that never separate a complete pair nor keep an orphan. Among
//!    those keeping at most the threshold, the best score `10 x kept messages - 50 x
//!    summarized pending calls` (upstream's score); when none fits, the one keeping the
//!    least (upstream would then keep the most, and compaction would do nothing). With no
//!    such split at all, everything is summarized.
//!
//! Splits are only considered up to `limit` (the last exchange is always kept), and a
//! `pinned` message (the latest user message) counts as kept wherever the split falls.

use crate::hashing::{HashMap, HashSet};
use crate::message::{Message, Role};
use std::borrow::Borrow;

/// Which phase chose the split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    NearWindow,
    ForwardFromWindow,
    Largest,
    BestEffort,
    Everything,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Split {
    pub index: usize,
    pub phase: Phase,
}

/// What the split search looks at: messages held or borrowed.
pub(crate) struct SplitRequest<'a, M: Borrow<Message> = Message> {
    pub messages: &'a [M],
    /// Cost of each message, in the threshold's unit.
    pub costs: &'a [usize],
    pub threshold: usize,
    /// The ideal split (keeps `window` messages).
    pub target: usize,
    /// The latest split considered (at most `messages.len()`).
    pub limit: usize,
    /// A message kept wherever the split falls.
    pub pinned: Option<usize>,
}

/// Tool-call structure of a message list, by message index.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct ToolPairs {
    /// (call message, result message) of every answered call.
    pub complete: Vec<(usize, usize)>,
    /// Message of every call without a later result.
    pub pending: Vec<usize>,
    /// Message of every result without an earlier call.
    pub orphans: Vec<usize>,
}

impl ToolPairs {
    pub fn of(messages: &[impl Borrow<Message>]) -> ToolPairs {
        let mut calls: HashMap<&str, usize> = HashMap::default();
        let mut answered: HashSet<&str> = HashSet::default();
        let mut pairs = ToolPairs::default();
        for (i, m) in messages.iter().map(Borrow::borrow).enumerate() {
            for c in m.tool_calls() {
                calls.insert(c.id.as_str(), i);
            }
            for r in m.tool_results() {
                match calls.get(r.call_id.as_str()) {
                    Some(&c) => {
                        pairs.complete.push((c, i));
                        answered.insert(r.call_id.as_str());
                    }
                    None => pairs.orphans.push(i),
                }
            }
        }
        let mut pending: Vec<usize> = calls.iter().filter(|(id, _)| !answered.contains(*id)).map(|(_, &i)| i).collect();
        pending.sort_unstable();
        pairs.pending = pending;
        pairs
    }
}

/// [`ToolPairs`] indexed so each split is checked in constant time.
struct Safety {
    /// `straddling[s]`: complete pairs with the call before `s` and the result at or after.
    straddling: Vec<i64>,
    first_pending: Option<usize>,
    last_orphan: Option<usize>,
    pending: Vec<usize>,
}

impl Safety {
    fn new(pairs: ToolPairs, n: usize) -> Safety {
        let mut diff = vec![0i64; n.saturating_add(2)];
        for &(c, r) in &pairs.complete {
            if let Some(d) = diff.get_mut(c.saturating_add(1)) {
                *d = d.saturating_add(1);
            }
            if let Some(d) = diff.get_mut(r.saturating_add(1)) {
                *d = d.saturating_sub(1);
            }
        }
        let mut running = 0i64;
        let straddling = diff
            .iter()
            .map(|d| {
                running = running.saturating_add(*d);
                running
            })
            .collect();
        Safety {
            straddling,
            first_pending: pairs.pending.first().copied(),
            last_orphan: pairs.orphans.iter().max().copied(),
            pending: pairs.pending,
        }
    }

    /// No complete pair is separated and no orphan is kept.
    fn admissible(&self, s: usize) -> bool {
        self.straddling.get(s).is_some_and(|&n| n == 0) && self.last_orphan.is_none_or(|o| o < s)
    }

    /// Admissible, and no pending call is summarized.
    fn is_safe(&self, s: usize) -> bool {
        self.admissible(s) && self.first_pending.is_none_or(|p| p >= s)
    }

    /// Pending calls a split at `s` would summarize.
    fn broken(&self, s: usize) -> usize {
        self.pending.partition_point(|&p| p < s)
    }
}

fn is_turn_start(messages: &[impl Borrow<Message>], s: usize) -> bool {
    messages.get(s).map(Borrow::borrow).is_some_and(|m| m.role == Role::User && m.tool_results().next().is_none())
}

/// Finds the split (see the module documentation).
pub(crate) fn find_split<M: Borrow<Message>>(req: &SplitRequest<'_, M>) -> Split {
    let n = req.messages.len();
    let limit = req.limit.min(n);
    let target = req.target.min(limit);
    let pairs = Safety::new(ToolPairs::of(req.messages), n);
    // suffix[s] = cost of messages[s..]
    let mut suffix = vec![0usize; n.saturating_add(1)];
    for i in (0..n).rev() {
        let here = req.costs.get(i).copied().unwrap_or(0);
        let after = suffix.get(i.saturating_add(1)).copied().unwrap_or(0);
        if let Some(slot) = suffix.get_mut(i) {
            *slot = here.saturating_add(after);
        }
    }
    let pinned_cost = req.pinned.and_then(|p| req.costs.get(p)).copied().unwrap_or(0);
    let kept = |s: usize| {
        let tail = suffix.get(s).copied().unwrap_or(0);
        match req.pinned {
            Some(p) if p < s => tail.saturating_add(pinned_cost),
            _ => tail,
        }
    };
    let under = |percent: usize| req.threshold.saturating_mul(percent) / 100;
    let turn = |s: usize| is_turn_start(req.messages, s);
    let found = |index: usize, phase: Phase| Split { index, phase };

    // Phase 1: backwards from the target while the kept part fits 70%.
    for s in (0..=target).rev() {
        if kept(s) > under(70) {
            break;
        }
        if turn(s) && pairs.is_safe(s) {
            return found(s, Phase::NearWindow);
        }
    }
    // Phase 2: forwards from the target, under 70%.
    let mut first_safe = None;
    for s in target..=limit {
        if kept(s) > under(70) || !pairs.is_safe(s) {
            continue;
        }
        if turn(s) {
            return found(s, Phase::ForwardFromWindow);
        }
        first_safe = first_safe.or(Some(s));
    }
    if let Some(s) = first_safe {
        return found(s, Phase::ForwardFromWindow);
    }
    // Phase 3: anywhere, under 80%.
    let mut first_safe = None;
    for s in 0..=limit {
        if kept(s) > under(80) || !pairs.is_safe(s) {
            continue;
        }
        if turn(s) {
            return found(s, Phase::Largest);
        }
        first_safe = first_safe.or(Some(s));
    }
    if let Some(s) = first_safe {
        return found(s, Phase::Largest);
    }
    // Phase 4: best effort.
    let admissible: Vec<usize> = (0..=limit).filter(|&s| pairs.admissible(s)).collect();
    let score = |s: usize| {
        let kept_messages = i64::try_from(n.saturating_sub(s)).unwrap_or(i64::MAX);
        let broken = i64::try_from(pairs.broken(s)).unwrap_or(i64::MAX);
        kept_messages.saturating_mul(10).saturating_sub(broken.saturating_mul(50))
    };
    let fitting = admissible.iter().copied().filter(|&s| kept(s) <= req.threshold);
    if let Some(s) = fitting.max_by_key(|&s| (score(s), std::cmp::Reverse(s))) {
        return found(s, Phase::BestEffort);
    }
    if let Some(s) = admissible.iter().copied().min_by_key(|&s| (pairs.broken(s), kept(s), std::cmp::Reverse(s))) {
        return found(s, Phase::BestEffort);
    }
    found(n, Phase::Everything)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Extra, Part, ToolCallPart};

    fn user(t: &str) -> Message {
        Message::text(Role::User, t)
    }
    fn ai(t: &str) -> Message {
        Message::text(Role::Assistant, t)
    }
    fn calls(ids: &[&str]) -> Message {
        let parts = ids
            .iter()
            .map(|id| {
                Part::ToolCall(ToolCallPart {
                    id: (*id).into(),
                    name: "f".into(),
                    arguments: "{}".into(),
                    signature: None,
                    extra: Extra::new(),
                })
            })
            .collect();
        Message::new(Role::Assistant, parts)
    }
    fn result(id: &str) -> Message {
        Message::tool_result(id, "f", "r")
    }

    fn split(messages: &[Message], threshold: usize, target: usize) -> Split {
        let costs = vec![10; messages.len()];
        find_split(&SplitRequest { messages, costs: &costs, threshold, target, limit: messages.len(), pinned: None })
    }

    #[test]
    fn tool_pairs_classify_complete_pending_and_orphans() {
        let m = [result("x"), calls(&["a", "b"]), result("a"), user("u"), calls(&["c"])];
        let p = ToolPairs::of(&m);
        assert_eq!(p.complete, vec![(1, 2)]);
        assert_eq!(p.pending, vec![1, 4]);
        assert_eq!(p.orphans, vec![0]);
        let p = Safety::new(p, m.len());
        assert!(!p.is_safe(0), "keeps the orphan");
        assert!(!p.is_safe(2), "separates a/result");
        assert!(!p.is_safe(3), "summarizes pending b");
        assert!(p.admissible(3));
        assert_eq!((p.broken(2), p.broken(5)), (1, 2));
    }

    #[test]
    fn phase_one_takes_the_nearest_turn_start_at_or_before_the_target() {
        let m = [user("0"), ai("1"), user("2"), ai("3"), calls(&["a"]), result("a"), ai("6")];
        let s = split(&m, 1000, 4);
        assert_eq!(s, Split { index: 2, phase: Phase::NearWindow });
    }

    #[test]
    fn phase_two_searches_forwards_when_backwards_is_too_costly() {
        // Keeping from index 2 costs 40 > 70% of 50; forwards: the turn start at 4.
        let m = [user("0"), ai("1"), user("2"), ai("3"), user("4"), ai("5")];
        let s = split(&m, 50, 3);
        assert_eq!(s, Split { index: 4, phase: Phase::ForwardFromWindow });
        // No turn start forwards: the first safe split.
        let m = [user("0"), ai("1"), calls(&["a"]), result("a"), ai("4"), ai("5")];
        let s = split(&m, 40, 3);
        assert_eq!(s, Split { index: 4, phase: Phase::ForwardFromWindow });
    }

    #[test]
    fn never_separates_a_complete_pair() {
        let m = [user("0"), calls(&["a", "b"]), result("a"), result("b"), ai("4")];
        for target in 0..=m.len() {
            for threshold in [10, 30, 50, 1000] {
                let s = split(&m, threshold, target).index;
                assert!(!(2..=3).contains(&s), "split {s} (target {target}, threshold {threshold})");
            }
        }
    }

    #[test]
    fn a_pending_call_at_the_end_is_kept() {
        let m = [user("0"), ai("1"), user("2"), ai("3"), calls(&["p"])];
        for target in 0..=m.len() {
            let s = split(&m, 40, target).index;
            assert!(s <= 4, "the pending call is kept (split {s})");
        }
    }

    #[test]
    fn an_orphaned_result_is_never_kept() {
        let m = [user("0"), result("ghost"), ai("2"), user("3"), ai("4")];
        for target in 0..=m.len() {
            let s = split(&m, 1000, target).index;
            assert!(s >= 2, "the orphan is summarized away (split {s})");
        }
    }

    #[test]
    fn best_effort_prefers_few_broken_pending_calls_and_fits() {
        // A pending call in the middle forbids every safe split beyond it; the part it
        // allows to keep is too large, so phase 4 breaks it.
        let m = [user("0"), calls(&["p"]), ai("2"), ai("3"), ai("4"), ai("5")];
        let s = split(&m, 25, 5);
        assert_eq!(s.phase, Phase::BestEffort);
        assert!(s.index >= 2 && 10 * (m.len() - s.index) <= 25);
    }

    #[test]
    fn nothing_fits_keeps_the_least() {
        let m = [user("0"), ai("1"), user("2"), ai("3")];
        let costs = [10, 10, 10, 500];
        let s = find_split(&SplitRequest {
            messages: &m,
            costs: &costs,
            threshold: 100,
            target: 2,
            limit: 3,
            pinned: None,
        });
        assert_eq!(s, Split { index: 3, phase: Phase::BestEffort });
    }

    #[test]
    fn a_pinned_message_counts_as_kept() {
        let m = [user("0"), ai("1"), user("2"), ai("3"), ai("4"), ai("5")];
        let costs = [10, 10, 40, 10, 10, 10];
        // Without the pin, the split at 3 keeps 30 <= 70% of 50 = 35; with message 2
        // pinned, it keeps 70 and phase 1 fails.
        let req = |pinned| SplitRequest { messages: &m, costs: &costs, threshold: 50, target: 3, limit: 5, pinned };
        assert_eq!(find_split(&req(None)).index, 3);
        assert_ne!(find_split(&req(Some(2))).phase, Phase::NearWindow);
    }

    #[test]
    fn the_limit_is_respected() {
        let m = [user("0"), ai("1"), user("2"), ai("3")];
        let costs = [100, 100, 100, 100];
        let s =
            find_split(&SplitRequest { messages: &m, costs: &costs, threshold: 10, target: 4, limit: 3, pinned: None });
        assert!(s.index <= 3);
    }
}
