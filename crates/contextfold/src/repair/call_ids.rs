//! One call id, one call: Anthropic rejects a chain that uses a `tool_use` id twice ("tool_use
//! ids must be unique"), even across turns, and every format that pairs results by id
//! (AI SDK, LangChain, Gemini) would give a result to the wrong call. Real transcripts do it
//! (SWE-agent reuses an id turn after turn, OpenAI accepts that), so for providers that
//! reject it the later call gets a fresh id, `{id}_{n}`, and so do the results that answer
//! it (those after it and before the id's next call). Deterministic: the same chain always
//! gets the same ids.

use super::{Item, RepairStep};
use crate::hashing::{HashMap, HashSet};
use crate::message::{Part, Role};

/// The later uses of a call id, for providers that want every id once.
pub(crate) fn rename_reused(mut items: Vec<Item>, steps: &mut Vec<RepairStep>) -> Vec<Item> {
    let taken: HashSet<String> = items
        .iter()
        .flat_map(|i| i.msg.parts.iter())
        .filter_map(|p| match p {
            Part::ToolCall(c) => Some(c.id.clone()),
            _ => None,
        })
        .collect();
    let mut seen: HashSet<String> = HashSet::default();
    let mut used = taken;
    // Old id -> new id, for the results of the latest call with that id.
    let mut current: HashMap<String, String> = HashMap::default();
    for item in &mut items {
        let index = item.origin;
        match item.msg.role {
            Role::Assistant => {
                for (part, p) in item.msg.parts.iter_mut().enumerate() {
                    let Part::ToolCall(c) = p else { continue };
                    if seen.insert(c.id.clone()) {
                        current.remove(&c.id);
                        continue;
                    }
                    let fresh = fresh_id(&c.id, &used);
                    used.insert(fresh.clone());
                    steps.push(RepairStep::RenamedReusedCallId {
                        index,
                        part,
                        call_id: c.id.clone(),
                        new_id: fresh.clone(),
                    });
                    current.insert(std::mem::replace(&mut c.id, fresh.clone()), fresh);
                }
            }
            Role::Tool => {
                for p in &mut item.msg.parts {
                    if let Part::ToolResult(r) = p {
                        if let Some(fresh) = current.get(&r.call_id) {
                            r.call_id = fresh.clone();
                        }
                    }
                }
            }
            _ => {}
        }
    }
    items
}

/// `{id}_{n}` with the smallest `n >= 2` no call uses.
fn fresh_id(id: &str, used: &HashSet<String>) -> String {
    (2u64..).map(|n| format!("{id}_{n}")).find(|candidate| !used.contains(candidate)).unwrap_or_else(|| id.to_string())
}

/// Positions `(message, part, id, first message)` of calls whose id an earlier message's
/// call already used (a second use inside one message is [`super::parts`]' rule).
pub(crate) fn reused(messages: &[crate::message::Message]) -> Vec<(usize, usize, String, usize)> {
    let mut first: HashMap<&str, usize> = HashMap::default();
    let mut out = Vec::new();
    for (index, m) in messages.iter().enumerate() {
        if m.role != Role::Assistant {
            continue;
        }
        for (part, p) in m.parts.iter().enumerate() {
            let Part::ToolCall(c) = p else { continue };
            if c.id.is_empty() {
                continue;
            }
            match first.get(c.id.as_str()) {
                Some(&at) if at != index => out.push((index, part, c.id.clone(), at)),
                Some(_) => {}
                None => {
                    first.insert(c.id.as_str(), index);
                }
            }
        }
    }
    out
}
