//! Block rules of the Anthropic Messages API ([`super::Provider::block_rules`]), each a 400
//! the API answers with:
//! - at most [`MAX_CACHE_BREAKPOINTS`] blocks with `cache_control` in a request ("A maximum
//!   of 4 blocks with cache_control may be provided"), counting the request's tool
//!   definitions ([`super::RequestRules::cache_breakpoints`]), its system prompt and its
//!   messages (tool results' content too). Repair drops the extra ones from the messages,
//!   from the earliest on, the system prompt's last: the latest breakpoints cache the
//!   longest prefix (and the one the previous request wrote), and the system prompt's
//!   (with the tools') is the one other conversations share;
//! - no `cache_control` on a thinking block (thinking is cached with the turn it is in,
//!   never on its own): repair drops the field (the signature covers the thinking only);
//! - no empty text block inside a tool result either (the top-level rule is
//!   [`super::empty`]'s): repair drops it;
//! - a server tool's result (`web_search_tool_result`, `code_execution_tool_result`, ...,
//!   `mcp_tool_result`) answers a `server_tool_use` (`mcp_tool_use`) earlier in the chain:
//!   one whose use is gone (folded away with an earlier message, a hand-edited history)
//!   becomes the text it renders to, which is what other formats get of it;
//! - an assistant message does not end with a thinking block ("The final block in an
//!   assistant message cannot be `thinking`"): repair drops that trailing thinking. The
//!   message is the wire's: a run of assistant messages is one there (Claude Code saves
//!   each block of a turn as a message of its own), so only the last of a run counts; and
//!   the last message of a chain is left alone: it is an answer still streaming in.
//!
//! Server blocks are kept as the provider's JSON ([`crate::message::TextPart::native_block`]):
//! their `type`, `id` and `tool_use_id` are read from it.

use super::{Draft, Item, RepairStep};
use crate::hashing::HashSet;
use crate::message::{Message, Part, Role, TextPart};
use serde_json::Value;

/// The most blocks with `cache_control` a request may hold.
pub const MAX_CACHE_BREAKPOINTS: usize = 4;

const CACHE_CONTROL: &str = "cache_control";

/// Whether a part (or the server block it stands for) carries a cache breakpoint.
fn has_cache_control(p: &Part) -> bool {
    let extra = match p {
        Part::Text(t) => return t.extra.contains_key(CACHE_CONTROL) || block_field(t, CACHE_CONTROL).is_some(),
        Part::Reasoning(r) => &r.extra,
        Part::Image(i) => &i.extra,
        Part::File(f) => &f.extra,
        Part::ToolCall(c) => &c.extra,
        Part::ToolResult(r) => &r.extra,
    };
    extra.contains_key(CACHE_CONTROL)
}

fn block_field<'a>(t: &'a TextPart, key: &str) -> Option<&'a Value> {
    t.native_block()?.get(key)
}

fn block_str<'a>(t: &'a TextPart, key: &str) -> Option<&'a str> {
    block_field(t, key)?.as_str()
}

/// The id of the server tool use a part stands for.
fn server_use(p: &Part) -> Option<&str> {
    let Part::Text(t) = p else { return None };
    matches!(block_str(t, "type")?, "server_tool_use" | "mcp_tool_use").then(|| block_str(t, "id")).flatten()
}

/// The id of the server tool use a server tool result part answers.
fn server_result(p: &Part) -> Option<&str> {
    let Part::Text(t) = p else { return None };
    let kind = block_str(t, "type")?;
    (kind.ends_with("_tool_result") && kind != "tool_result").then(|| block_str(t, "tool_use_id")).flatten()
}

/// Every cache breakpoint of the messages, in order: (message, part, content position
/// inside a tool result).
fn breakpoints(messages: &[&Message]) -> Vec<(usize, usize, Option<usize>)> {
    let mut out = Vec::new();
    for (index, m) in messages.iter().enumerate() {
        for (part, p) in m.parts.iter().enumerate() {
            if has_cache_control(p) {
                out.push((index, part, None));
            }
            if let Part::ToolResult(r) = p {
                let nested = r.content.iter().enumerate().filter(|(_, c)| has_cache_control(c));
                out.extend(nested.map(|(content, _)| (index, part, Some(content))));
            }
        }
    }
    out
}

/// The breakpoints over the limit, with `fixed` more outside the messages: the messages'
/// earliest first, the system prompt's last.
pub(crate) fn extra_breakpoints(messages: &[&Message], fixed: usize) -> Vec<(usize, usize, Option<usize>)> {
    let all = breakpoints(messages);
    let over = all.len().saturating_add(fixed).saturating_sub(MAX_CACHE_BREAKPOINTS);
    let system = |at: &(usize, usize, Option<usize>)| messages.get(at.0).is_some_and(|m| m.role == Role::System);
    let mut order: Vec<_> = all.iter().filter(|at| !system(at)).chain(all.iter().filter(|at| system(at))).collect();
    order.truncate(over);
    let mut extra: Vec<_> = order.into_iter().copied().collect();
    extra.sort_unstable();
    extra
}

/// The server tool results answering no server tool use before them: (message, part, id).
pub(crate) fn orphan_server_results(messages: &[&Message]) -> Vec<(usize, usize, String)> {
    let mut uses: HashSet<&str> = HashSet::default();
    let mut out = Vec::new();
    for (index, m) in messages.iter().enumerate() {
        for (part, p) in m.parts.iter().enumerate() {
            if let Some(id) = server_use(p) {
                uses.insert(id);
            }
            if let Some(id) = server_result(p).filter(|id| !uses.contains(id)) {
                out.push((index, part, id.to_string()));
            }
        }
    }
    out
}

/// Whether a part is thinking with a cache breakpoint.
pub(crate) fn cached_thinking(p: &Part) -> bool {
    matches!(p, Part::Reasoning(r) if r.extra.contains_key(CACHE_CONTROL))
}

/// The content positions of the empty texts of a tool result part.
pub(crate) fn empty_result_texts(p: &Part) -> Vec<usize> {
    let Part::ToolResult(r) = p else { return Vec::new() };
    let empty = |c: &Part| matches!(c, Part::Text(t) if t.text.trim().is_empty() && !c.is_native_block());
    r.content.iter().enumerate().filter(|(_, c)| empty(c)).map(|(i, _)| i).collect()
}

/// The position of the thinking block an assistant message ends with.
pub(crate) fn trailing_thinking(role: Role, parts: &[&Part]) -> Option<usize> {
    let last = parts.len().checked_sub(1)?;
    (role == Role::Assistant && matches!(parts.get(last), Some(Part::Reasoning(_)))).then_some(last)
}

/// For each message, whether it ends an assistant turn on the wire (the next message is
/// not the assistant's) before the end of the chain.
pub(crate) fn ends_turn<M: std::borrow::Borrow<Message>>(messages: &[M]) -> Vec<bool> {
    let role = |i: usize| messages.get(i).map(|m| m.borrow().role);
    (0..messages.len())
        .map(|i| role(i) == Some(Role::Assistant) && role(i.saturating_add(1)).is_some_and(|r| r != Role::Assistant))
        .collect()
}

/// The part-level rules, on one message.
pub(crate) fn clean(draft: &mut Draft<'_>, steps: &mut Vec<RepairStep>) {
    let index = draft.index;
    for (part, p) in &mut draft.parts {
        if cached_thinking(p) {
            if let Part::Reasoning(r) = p.to_mut() {
                r.extra.remove(CACHE_CONTROL);
            }
            steps.push(RepairStep::DroppedCacheControl { index, part: *part, content: None });
            draft.changed = true;
        }
        let empty = empty_result_texts(p);
        if !empty.is_empty() {
            if let Part::ToolResult(r) = p.to_mut() {
                let mut at = 0usize;
                r.content.retain(|_| {
                    let keep = !empty.contains(&at);
                    at = at.saturating_add(1);
                    keep
                });
            }
            for content in empty {
                steps.push(RepairStep::RemovedEmptyResultText { index, part: *part, content });
            }
            draft.changed = true;
        }
    }
}

/// Drops the thinking an assistant turn ends with (see [`ends_turn`]); a message left
/// without parts goes. After the passes that drop parts (pairing may drop a call after
/// the thinking) and before the merge of same-role messages, which joins the user
/// messages around a message that went.
pub(crate) fn drop_trailing_thinking(items: Vec<Item>, steps: &mut Vec<RepairStep>) -> Vec<Item> {
    // From the end: a message that goes leaves the one before it ending the turn.
    let mut next: Option<Role> = None;
    let mut out = Vec::with_capacity(items.len());
    let mut dropped = Vec::new();
    for mut item in items.into_iter().rev() {
        let ends = item.msg.role == Role::Assistant && next.is_some_and(|r| r != Role::Assistant);
        if ends {
            while let Some(at) = trailing_thinking(item.msg.role, &item.msg.parts.iter().collect::<Vec<_>>()) {
                dropped.push(RepairStep::DroppedTrailingThinking { index: item.origin, part: at });
                item.msg.parts.truncate(at);
            }
            if item.msg.parts.is_empty() {
                dropped.push(RepairStep::RemovedEmptyMessage { index: item.origin });
                continue;
            }
        }
        next = Some(item.msg.role);
        out.push(item);
    }
    out.reverse();
    dropped.reverse();
    steps.append(&mut dropped);
    out
}

/// A server tool result whose use is gone becomes the text it renders to.
pub(crate) fn unwrap_orphan_results(mut items: Vec<Item>, steps: &mut Vec<RepairStep>) -> Vec<Item> {
    let orphans = orphan_server_results(&items.iter().map(|i| &i.msg).collect::<Vec<_>>());
    for (at, part, call_id) in orphans {
        let Some(item) = items.get_mut(at) else { continue };
        if let Some(Part::Text(t)) = item.msg.parts.get_mut(part) {
            for namespace in crate::message::marker_namespace::ALL {
                if let Some(Value::Object(markers)) = t.extra.get_mut(namespace) {
                    markers.remove(crate::message::NATIVE_BLOCK);
                    if markers.is_empty() {
                        t.extra.remove(namespace);
                    }
                }
            }
            steps.push(RepairStep::UnwrappedOrphanServerResult { index: item.origin, part, call_id });
        }
    }
    items
}

/// Drops the cache breakpoints over the limit (see [`extra_breakpoints`]).
pub(crate) fn drop_extra_breakpoints(mut items: Vec<Item>, fixed: usize, steps: &mut Vec<RepairStep>) -> Vec<Item> {
    let extra = extra_breakpoints(&items.iter().map(|i| &i.msg).collect::<Vec<_>>(), fixed);
    for (at, part, content) in extra {
        let Some(item) = items.get_mut(at) else { continue };
        let target = match (item.msg.parts.get_mut(part), content) {
            (Some(Part::ToolResult(r)), Some(c)) => r.content.get_mut(c),
            (p, _) => p,
        };
        let Some(target) = target else { continue };
        match target {
            Part::Text(t) if !t.extra.contains_key(CACHE_CONTROL) => {
                if let Some(Value::Object(block)) = native_block_mut(t) {
                    block.remove(CACHE_CONTROL);
                }
            }
            other => {
                other.extra_mut().remove(CACHE_CONTROL);
            }
        }
        steps.push(RepairStep::DroppedCacheControl { index: item.origin, part, content });
    }
    items
}

fn native_block_mut(t: &mut TextPart) -> Option<&mut Value> {
    let namespace = crate::message::marker_namespace::ALL
        .into_iter()
        .find(|ns| t.extra.get(*ns).and_then(|m| m.get(crate::message::NATIVE_BLOCK)).is_some())?;
    t.extra.get_mut(namespace)?.get_mut(crate::message::NATIVE_BLOCK)
}
