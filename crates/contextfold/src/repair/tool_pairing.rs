//! Tool pairing (SEMANTICS §6): every call answered, every result answering a call, each
//! call's results right after its assistant message (before the next user or assistant
//! message), one result per call, and no chain starting with a result.
//!
//! Matching is positional, as OpenAI pairs them: a result answers the most recent earlier
//! call with its id (ids reused across turns, as some local models do, stay paired).
//! - a result in the tool messages right after its call's assistant message stays;
//! - a result that comes after other messages is moved up, behind the results already
//!   there (the whole tool message when all of its results go, else a copy holding just
//!   the moved results);
//! - a second result for an already answered call is dropped (the first one is kept);
//! - a result with no earlier call is an orphan: dropped ([`OrphanResults::Remove`]), or
//!   ([`OrphanResults::Answer`]) answered by a call with `{}` arguments added to the
//!   assistant message right before its tool message; with no such assistant message
//!   (the result follows a user message, or opens the chain) it is dropped anyway;
//! - a call with no result that no text can answer (a Responses computer call) is dropped,
//!   with the reasoning items right before it, which led to it;
//! - a call with no result gets a placeholder result ([`RepairOptions::pending_placeholder`]),
//!   after its other results; except the calls of a turn in flight ([`in_flight`]: the
//!   chain's last assistant message, with nothing but its results so far after it) whose
//!   results come next: a tool running, a call waiting for the user's approval, parallel
//!   calls answered one at a time. A made-up result would end that turn in the caller's
//!   app, and the real one would then come twice; [`crate::repair::validate`] does not
//!   report them either.

use super::{Item, OrphanResults, Provider, RepairOptions, RepairStep, DEFAULT_PENDING_PLACEHOLDER};
use crate::ast::FALLBACK_TOOL_ARGS;
use crate::format::responses::native::{answered_by_item_only, refers_to_stored_item};
use crate::hashing::{HashMap, HashSet};
use crate::message::{Extra, Message, Part, Role, ToolCallPart};
use std::collections::BTreeMap;

/// Name given to an added call when the orphan result carries no name.
const UNKNOWN_TOOL_NAME: &str = "unknown_tool";

/// What becomes of one tool result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fate {
    /// Right after its call's assistant message `assistant`: stays.
    InPlace { assistant: usize },
    /// Answers a call of `assistant` but comes after other messages.
    Moved { assistant: usize },
    /// An orphan that gets a call added to `assistant`, the message before it.
    Answered { assistant: usize },
    /// Answers no earlier call; `leading` when no user or assistant message precedes it.
    Orphan { leading: bool },
    /// A second result for an answered call.
    Duplicate,
}

/// Ids and names are borrowed from the messages read: only a repair copies them.
#[derive(Debug, Clone)]
pub(crate) struct ResultFate<'a> {
    pub message: usize,
    pub part: usize,
    pub call_id: &'a str,
    pub name: Option<&'a str>,
    pub fate: Fate,
}

/// A call without any result.
#[derive(Debug, Clone)]
pub(crate) struct Pending<'a> {
    pub message: usize,
    pub part: usize,
    pub call_id: &'a str,
    pub name: &'a str,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Pairing<'a> {
    pub results: Vec<ResultFate<'a>>,
    pub pending: Vec<Pending<'a>>,
}

impl Pairing<'_> {
    fn is_clean(&self) -> bool {
        self.pending.is_empty() && self.results.iter().all(|r| matches!(r.fate, Fate::InPlace { .. }))
    }
}

/// Valid calls of an assistant message: (part position, call), without invalid parts and
/// later duplicates of an id.
fn valid_calls(m: &Message) -> Vec<(usize, &ToolCallPart)> {
    let mut ids = super::parts::CallIds::default();
    m.parts
        .iter()
        .enumerate()
        .filter(|(_, p)| super::parts::is_valid_call(m.role, p))
        .filter_map(|(i, p)| match p {
            Part::ToolCall(c) => Some((i, c)),
            _ => None,
        })
        .filter(|(_, c)| !ids.repeated(c.id.as_str()))
        .collect()
}

/// The index of the turn in flight: the chain's last assistant message when nothing but
/// tool messages (the results come so far) follows it. Its calls without a result are
/// not pending: their results come next.
pub(crate) fn in_flight<M: std::borrow::Borrow<Message>>(messages: &[M]) -> Option<usize> {
    let last = messages.iter().rposition(|m| m.borrow().role != Role::Tool)?;
    (messages.get(last)?.borrow().role == Role::Assistant).then_some(last)
}

/// Whether every tool result answers a valid call of the assistant message its turn
/// follows (the latest one, with no user or system message between): then [`analyze`]
/// finds none moved, as that message is the latest to make each of those calls. A chain
/// is mostly so, and this check hashes no id.
pub(crate) fn answered_in_turn(messages: &[Message]) -> bool {
    let mut owner: Vec<(usize, &ToolCallPart)> = Vec::new();
    for m in messages {
        match m.role {
            Role::System | Role::User => owner.clear(),
            Role::Assistant => owner = valid_calls(m),
            Role::Tool => {
                let answers = |id: &str| owner.iter().any(|(_, c)| c.id == id);
                if !m.tool_results().all(|r| r.call_id.is_empty() || answers(&r.call_id)) {
                    return false;
                }
            }
        }
    }
    true
}

/// Matches results with calls. `answer_orphans`: orphans right after an assistant message
/// count as answered by a call added there (so later duplicates of them are caught).
pub(crate) fn analyze<'a>(messages: &[&'a Message], answer_orphans: bool) -> Pairing<'a> {
    let mut pairing = Pairing::default();
    // Keyed by the ids where they lie: nothing is copied to be looked up.
    let mut latest: HashMap<&'a str, usize> = HashMap::default();
    let mut answered: HashSet<(usize, &'a str)> = HashSet::default();
    let mut owner: Option<usize> = None;
    let mut leading = true;
    for (i, &m) in messages.iter().enumerate() {
        match m.role {
            Role::System => owner = None,
            Role::User => {
                owner = None;
                leading = false;
            }
            Role::Assistant => {
                owner = Some(i);
                leading = false;
                for (_, c) in valid_calls(m) {
                    latest.insert(&c.id, i);
                }
            }
            Role::Tool => {
                for (part, p) in m.parts.iter().enumerate() {
                    let Part::ToolResult(r) = p else { continue };
                    if r.call_id.is_empty() {
                        continue;
                    }
                    let fate = match latest.get(r.call_id.as_str()).copied() {
                        Some(a) if !answered.insert((a, &r.call_id)) => Fate::Duplicate,
                        Some(a) if owner == Some(a) => Fate::InPlace { assistant: a },
                        Some(a) => Fate::Moved { assistant: a },
                        None => match owner {
                            // The call is the stored item a reference stands for.
                            Some(a) if messages.get(a).is_some_and(|m| refers_to_stored_item(m)) => {
                                answered.insert((a, &r.call_id));
                                Fate::InPlace { assistant: a }
                            }
                            Some(a) if answer_orphans => {
                                latest.insert(&r.call_id, a);
                                answered.insert((a, &r.call_id));
                                Fate::Answered { assistant: a }
                            }
                            _ => Fate::Orphan { leading },
                        },
                    };
                    pairing.results.push(ResultFate {
                        message: i,
                        part,
                        call_id: &r.call_id,
                        name: r.name.as_deref(),
                        fate,
                    });
                }
            }
        }
    }
    answer_early(messages, &mut pairing, &mut answered);
    let in_flight = in_flight(messages);
    for (i, &m) in messages.iter().enumerate() {
        if m.role != Role::Assistant || Some(i) == in_flight {
            continue;
        }
        for (part, c) in valid_calls(m) {
            if !answered.contains(&(i, c.id.as_str())) {
                pairing.pending.push(Pending { message: i, part, call_id: &c.id, name: &c.name });
            }
        }
    }
    pairing
}

/// A result stored before its call in the same turn (a session written out of order)
/// answers the first later call with its id that nothing after it answers: it is moved
/// there, as a late one is, rather than dropped while the call gets a placeholder.
fn answer_early<'a>(messages: &[&'a Message], pairing: &mut Pairing<'a>, answered: &mut HashSet<(usize, &'a str)>) {
    let early = |r: &ResultFate<'_>| matches!(r.fate, Fate::Orphan { .. });
    if !pairing.results.iter().any(early) {
        return;
    }
    for r in pairing.results.iter_mut().filter(|r| early(r)) {
        let call_id = r.call_id;
        // Within the turn: a result before the user's message that led to its call is
        // not that call's.
        let later = messages
            .iter()
            .enumerate()
            .skip(r.message.saturating_add(1))
            .take_while(|(_, m)| !matches!(m.role, Role::User | Role::System))
            .find(|(a, m)| {
                m.role == Role::Assistant
                    && valid_calls(m).iter().any(|(_, c)| c.id == call_id)
                    && !answered.contains(&(*a, call_id))
            });
        if let Some((a, _)) = later {
            answered.insert((a, call_id));
            r.fate = Fate::Moved { assistant: a };
        }
    }
}

/// What the rebuild does to each message.
#[derive(Default)]
struct Plan {
    /// Tool message -> positions of the results it keeps in place.
    in_place: HashMap<usize, Vec<usize>>,
    /// Assistant message -> results moved behind its results: (tool message, position).
    moved: BTreeMap<usize, Vec<(usize, usize)>>,
    /// Assistant message -> calls added for orphans.
    added_calls: HashMap<usize, Vec<Part>>,
    /// Assistant message -> calls to answer with a placeholder: (id, name).
    pending: HashMap<usize, Vec<(String, String)>>,
    /// Assistant message -> positions of open calls no placeholder can answer.
    dropped_calls: HashMap<usize, Vec<usize>>,
}

pub(crate) fn repair(items: Vec<Item>, options: &RepairOptions, steps: &mut Vec<RepairStep>) -> Vec<Item> {
    let refs: Vec<&Message> = items.iter().map(|i| &i.msg).collect();
    let pairing = analyze(&refs, options.orphan_results == OrphanResults::Answer);
    if pairing.is_clean() {
        return items;
    }
    let origin = |i: usize| items.get(i).map_or(i, |item| item.origin);
    let mut plan = Plan::default();
    for r in pairing.results {
        let index = origin(r.message);
        let call_id = r.call_id.to_string();
        match r.fate {
            Fate::InPlace { .. } => plan.in_place.entry(r.message).or_default().push(r.part),
            Fate::Moved { assistant } => {
                plan.moved.entry(assistant).or_default().push((r.message, r.part));
                steps.push(RepairStep::MovedResult { index, call_id, assistant: origin(assistant) });
            }
            Fate::Answered { assistant } => {
                plan.in_place.entry(r.message).or_default().push(r.part);
                let name = r.name.unwrap_or(UNKNOWN_TOOL_NAME).to_string();
                plan.added_calls.entry(assistant).or_default().push(Part::ToolCall(ToolCallPart {
                    id: call_id.clone(),
                    name: name.clone(),
                    arguments: FALLBACK_TOOL_ARGS.to_string(),
                    signature: None,
                    extra: Extra::new(),
                }));
                steps.push(RepairStep::AnsweredOrphanResult { index, assistant: origin(assistant), call_id, name });
            }
            Fate::Orphan { leading: true } => steps.push(RepairStep::DroppedLeadingResult { index, call_id }),
            Fate::Orphan { leading: false } => steps.push(RepairStep::DroppedOrphanResult { index, call_id }),
            Fate::Duplicate => steps.push(RepairStep::DroppedDuplicateResult { index, call_id }),
        }
    }
    for p in pairing.pending {
        let call = items.get(p.message).and_then(|item| item.msg.parts.get(p.part));
        if let (Provider::OpenAiResponses, Some(Part::ToolCall(call))) = (options.provider, call) {
            if answered_by_item_only(call) {
                steps.push(RepairStep::DroppedUnansweredCall {
                    index: origin(p.message),
                    part: p.part,
                    call_id: p.call_id.to_string(),
                    name: p.name.to_string(),
                });
                plan.dropped_calls.entry(p.message).or_default().push(p.part);
                // The reasoning items that led to the call go with it: the API rejects a
                // reasoning item without its following item.
                let parts = items.get(p.message).map_or(&[][..], |item| item.msg.parts.as_slice());
                let before = parts.get(..p.part).unwrap_or_default();
                let bound = before.iter().rev().take_while(|q| matches!(q, Part::Reasoning(_))).count();
                for part in p.part.saturating_sub(bound)..p.part {
                    steps.push(RepairStep::DroppedOrphanReasoning { index: origin(p.message), part });
                    plan.dropped_calls.entry(p.message).or_default().push(part);
                }
                continue;
            }
        }
        steps.push(RepairStep::AnsweredPendingCall {
            index: origin(p.message),
            call_id: p.call_id.to_string(),
            name: p.name.to_string(),
        });
        plan.pending.entry(p.message).or_default().push((p.call_id.to_string(), p.name.to_string()));
    }
    rebuild(&items, &plan, options)
}

fn rebuild(items: &[Item], plan: &Plan, options: &RepairOptions) -> Vec<Item> {
    let placeholder = if options.pending_placeholder.trim().is_empty() {
        DEFAULT_PENDING_PLACEHOLDER
    } else {
        options.pending_placeholder.as_str()
    };
    let mut out: Vec<Item> = Vec::with_capacity(items.len());
    let mut open: Option<usize> = None;
    for (i, item) in items.iter().enumerate() {
        if item.msg.role != Role::Tool {
            if let Some(a) = open.take() {
                close_block(items, a, plan, placeholder, &mut out);
            }
        }
        match item.msg.role {
            Role::Assistant => {
                open = Some(i);
                let mut msg = match plan.dropped_calls.get(&i) {
                    Some(dropped) => {
                        let kept: Vec<usize> = (0..item.msg.parts.len()).filter(|k| !dropped.contains(k)).collect();
                        with_parts(&item.msg, &kept)
                    }
                    None => item.msg.clone(),
                };
                if let Some(calls) = plan.added_calls.get(&i) {
                    msg.parts.extend(calls.iter().cloned());
                }
                // A message of dropped calls alone goes with them.
                if !msg.parts.is_empty() {
                    out.push(Item { msg, origin: item.origin });
                }
            }
            Role::Tool => {
                // Its results that stay, and the native parts beside them (an AI SDK
                // approval response): pairing is not theirs to undo.
                let mut kept = plan.in_place.get(&i).cloned().unwrap_or_default();
                kept.extend(item.msg.parts.iter().enumerate().filter(|(_, p)| p.is_native_block()).map(|(k, _)| k));
                kept.sort_unstable();
                if !kept.is_empty() {
                    out.push(Item { msg: with_parts(&item.msg, &kept), origin: item.origin });
                }
            }
            Role::System | Role::User => out.push(item.clone()),
        }
    }
    if let Some(a) = open {
        close_block(items, a, plan, placeholder, &mut out);
    }
    out
}

/// Ends assistant `a`'s block: the results moved up to it, then placeholders for its
/// unanswered calls.
fn close_block(items: &[Item], a: usize, plan: &Plan, placeholder: &str, out: &mut Vec<Item>) {
    if let Some(moved) = plan.moved.get(&a) {
        let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
        for (message, part) in moved {
            match groups.last_mut() {
                Some((m, parts)) if m == message => parts.push(*part),
                _ => groups.push((*message, vec![*part])),
            }
        }
        for (message, parts) in groups {
            if let Some(item) = items.get(message) {
                out.push(Item { msg: with_parts(&item.msg, &parts), origin: item.origin });
            }
        }
    }
    if let Some(pending) = plan.pending.get(&a) {
        let origin = items.get(a).map_or(a, |item| item.origin);
        for (call_id, name) in pending {
            out.push(Item { msg: Message::tool_result(call_id.clone(), name.clone(), placeholder), origin });
        }
    }
}

/// `m` holding only the parts at `positions` (`m` itself when that is all of them).
fn with_parts(m: &Message, positions: &[usize]) -> Message {
    if positions.len() == m.parts.len() {
        return m.clone();
    }
    let parts = positions.iter().filter_map(|i| m.parts.get(*i).cloned()).collect();
    Message { role: m.role, parts, extra: m.extra.clone() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str) -> Part {
        Part::ToolCall(ToolCallPart {
            id: id.to_string(),
            name: "read".to_string(),
            arguments: "{}".to_string(),
            signature: None,
            extra: Extra::new(),
        })
    }

    /// A message of any role; calls and results use ids from a small set (`""` among
    /// them), so results land in place, moved, orphaned and repeated.
    fn any_message() -> impl proptest::strategy::Strategy<Value = Message> {
        use proptest::prelude::*;
        let id = prop::sample::select(vec!["", "a", "b", "c"]);
        let roles = prop::sample::select(vec![Role::System, Role::User, Role::Assistant, Role::Tool]);
        (roles, proptest::collection::vec((id, any::<bool>()), 0..4)).prop_map(|(role, parts)| {
            let parts = parts
                .into_iter()
                .map(|(id, is_call)| match (role, is_call) {
                    (Role::Assistant, true) => call(id),
                    (_, _) if role == Role::Tool || is_call => Part::ToolResult(crate::message::ToolResultPart {
                        call_id: id.to_string(),
                        name: None,
                        content: vec![Part::text("r")],
                        is_error: false,
                        extra: Extra::new(),
                    }),
                    _ => Part::text("t"),
                })
                .collect();
            Message::new(role, parts)
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, ..Default::default() })]
        /// The quick check never hides a result the full analysis finds moved.
        #[test]
        fn answered_in_turn_means_nothing_moved(messages in proptest::collection::vec(any_message(), 0..10)) {
            let refs: Vec<&Message> = messages.iter().collect();
            let moved = analyze(&refs, false).results.iter().any(|r| matches!(r.fate, Fate::Moved { .. }));
            proptest::prop_assert!(!(answered_in_turn(&messages) && moved), "{:?}", messages);
        }
    }

    #[test]
    fn repeated_ids_are_left_out_however_many_calls() {
        for n in [3usize, 32, 33, 90] {
            let mut ids: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
            // Repeats early, around the switch to a set, and last.
            ids.insert(1, "c0".to_string());
            ids.insert(32.min(ids.len()), "c2".to_string());
            ids.push(format!("c{}", n - 1));
            let mut parts = vec![Part::text("x")];
            parts.extend(ids.iter().map(|id| call(id)));
            parts.push(call(""));
            let m = Message::new(Role::Assistant, parts);
            let kept: Vec<&str> = valid_calls(&m).iter().map(|(_, c)| c.id.as_str()).collect();
            let expected: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
            assert_eq!(kept, expected, "{n} calls");
            // Positions are those of the first call of each id.
            for (position, c) in valid_calls(&m) {
                let first = m.parts.iter().position(|p| matches!(p, Part::ToolCall(t) if t.id == c.id));
                assert_eq!(Some(position), first, "{n} calls, {}", c.id);
            }
        }
    }
}
