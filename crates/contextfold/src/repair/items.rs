//! Responses API item rules (400 errors of the API, not rules of any other provider):
//! - a reasoning item must be followed by the item it led to ("Item 'rs_…' of type
//!   'reasoning' was provided without its required following item"). The reader keeps a
//!   turn's items in one assistant message, so reasoning is orphaned when it ends its
//!   message and no assistant message follows (a user or tool message, or the chain's
//!   end): the turn it began was cut (a dropped call, a user who interrupted). It is
//!   dropped: it cannot be sent without the item it led to, and it is never shown to a
//!   summarizer anyway;
//! - every item `id` once ("Duplicate item found with id"): the same items appended twice.
//!   The later copy loses its `id` where the API takes the item without one (a call, a
//!   message, an output), and goes whole where it wants one (a reasoning item, a
//!   server-side item, an `mcp_call`: with the output it holds, which reads as the result
//!   after it), the first copy holding the same content.

use super::{Item, RepairStep};
use crate::format::responses::ids::{drop_message_id, drop_part_id, mcp_output_id, message_id, part_id, IdKind};
use crate::hashing::{HashMap, HashSet};
use crate::message::{Message, Part, Role};

/// Positions `(message, part)` of reasoning parts left without their following item.
pub(crate) fn orphan_reasoning(messages: &[&Message]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (index, m) in messages.iter().enumerate() {
        let next_is_turn = messages.get(index.saturating_add(1)).is_some_and(|n| n.role == Role::Assistant);
        if m.role != Role::Assistant || next_is_turn {
            continue;
        }
        let trailing = m.parts.iter().rev().take_while(|p| matches!(p, Part::Reasoning(_))).count();
        let from = m.parts.len().saturating_sub(trailing);
        out.extend((from..m.parts.len()).map(|part| (index, part)));
    }
    out
}

/// A later copy of an item `id`: where it is (`part`: `None` for a message's own id),
/// the id, and the message of its first copy.
pub(crate) struct DuplicateId<'a> {
    pub index: usize,
    pub part: Option<usize>,
    pub id: &'a str,
    pub kind: IdKind,
    pub first: usize,
}

/// Every later copy of an item `id`, in chain order.
pub(crate) fn duplicate_ids<'a>(messages: &[&'a Message]) -> Vec<DuplicateId<'a>> {
    let mut seen: HashMap<&str, usize> = HashMap::default();
    let mut out = Vec::new();
    for (index, m) in messages.iter().enumerate() {
        let own = message_id(m).map(|id| (None, id, IdKind::Optional));
        let parts = m.parts.iter().enumerate().filter_map(|(k, p)| part_id(p).map(|(id, kind)| (Some(k), id, kind)));
        for (part, id, kind) in own.into_iter().chain(parts) {
            match seen.get(id) {
                Some(&first) => out.push(DuplicateId { index, part, id, kind, first }),
                None => {
                    seen.insert(id, index);
                }
            }
        }
    }
    out
}

/// Drops the later copies of item ids (or the items that cannot go without theirs).
pub(crate) fn drop_duplicate_ids(items: Vec<Item>, steps: &mut Vec<RepairStep>) -> Vec<Item> {
    let refs: Vec<&Message> = items.iter().map(|i| &i.msg).collect();
    let found: Vec<(usize, Option<usize>, IdKind)> =
        duplicate_ids(&refs).into_iter().map(|d| (d.index, d.part, d.kind)).collect();
    if found.is_empty() {
        return items;
    }
    let mut out = Vec::with_capacity(items.len());
    // `mcp_call` copies gone whose output (a result after them) is still to go.
    let mut outputs_to_drop: Vec<String> = Vec::new();
    for (i, mut item) in items.into_iter().enumerate() {
        let index = item.origin;
        let mut gone: HashSet<usize> = HashSet::default();
        if !outputs_to_drop.is_empty() {
            for (k, p) in item.msg.parts.iter().enumerate() {
                let Some(id) = mcp_output_id(p) else { continue };
                if let Some(at) = outputs_to_drop.iter().position(|o| o == id) {
                    outputs_to_drop.remove(at);
                    steps.push(RepairStep::DroppedDuplicateItem { index, part: k, id: id.to_string() });
                    gone.insert(k);
                }
            }
        }
        for &(_, part, kind) in found.iter().filter(|(m, _, _)| *m == i) {
            match (part, kind) {
                (None, _) => {
                    if let Some(id) = drop_message_id(&mut item.msg) {
                        steps.push(RepairStep::DroppedDuplicateItemId { index, part: None, id });
                    }
                }
                (Some(k), IdKind::Optional) => {
                    if let Some(id) = item.msg.parts.get_mut(k).and_then(drop_part_id) {
                        steps.push(RepairStep::DroppedDuplicateItemId { index, part: Some(k), id });
                    }
                }
                (Some(k), IdKind::Required) => {
                    if let Some((id, _)) = item.msg.parts.get(k).and_then(part_id) {
                        if matches!(item.msg.parts.get(k), Some(Part::ToolCall(_))) {
                            outputs_to_drop.push(id.to_string());
                        }
                        steps.push(RepairStep::DroppedDuplicateItem { index, part: k, id: id.to_string() });
                        gone.insert(k);
                    }
                }
            }
        }
        if gone.is_empty() && !item.msg.parts.is_empty() {
            out.push(item);
            continue;
        }
        let mut k = 0usize;
        item.msg.parts.retain(|_| {
            let keep = !gone.contains(&k);
            k = k.saturating_add(1);
            keep
        });
        keep_what_is_left(item, &mut out, steps);
    }
    out
}

/// Drops reasoning left without its following item ([`orphan_reasoning`]), from the end
/// of the chain back: a turn that held only reasoning goes, which may leave the
/// reasoning before it orphaned in turn.
pub(crate) fn drop_orphan_reasoning(items: Vec<Item>, steps: &mut Vec<RepairStep>) -> Vec<Item> {
    let refs: Vec<&Message> = items.iter().map(|i| &i.msg).collect();
    if orphan_reasoning(&refs).is_empty() {
        return items;
    }
    // Where each message is cut (`None`: it stays whole), from the end back.
    let mut cut: Vec<Option<usize>> = vec![None; items.len()];
    let mut next_is_turn = false;
    for (i, item) in items.iter().enumerate().rev() {
        let parts = &item.msg.parts;
        let trailing = parts.iter().rev().take_while(|p| matches!(p, Part::Reasoning(_))).count();
        let mut left = parts.len();
        if item.msg.role == Role::Assistant && !next_is_turn && trailing > 0 {
            let from = parts.len().saturating_sub(trailing);
            if let Some(c) = cut.get_mut(i) {
                *c = Some(from);
            }
            // What is left after the cut, less the blank text [`drop_blank_left`] drops.
            let kept: Vec<(usize, &Part)> = parts.iter().take(from).enumerate().collect();
            let blank = super::empty::empty_texts(item.msg.role, &kept, super::Provider::OpenAiResponses);
            left = from.saturating_sub(blank.len());
        }
        if left > 0 {
            next_is_turn = item.msg.role == Role::Assistant;
        }
    }
    let mut out = Vec::with_capacity(items.len());
    for (mut item, cut) in items.into_iter().zip(cut) {
        let Some(from) = cut else {
            out.push(item);
            continue;
        };
        let index = item.origin;
        let len = item.msg.parts.len();
        steps.extend((from..len).map(|part| RepairStep::DroppedOrphanReasoning { index, part }));
        item.msg.parts.truncate(from);
        keep_what_is_left(item, &mut out, steps);
    }
    out
}

/// An item some parts of which went: its whitespace-only text left beside them goes too,
/// and it is kept unless nothing is left of it.
fn keep_what_is_left(mut item: Item, out: &mut Vec<Item>, steps: &mut Vec<RepairStep>) {
    drop_blank_left(&mut item, steps);
    if item.msg.parts.is_empty() {
        steps.push(RepairStep::RemovedEmptyMessage { index: item.origin });
    } else {
        out.push(item);
    }
}

/// Drops the whitespace-only text a message kept only beside the parts that went (as
/// [`super::empty`] would have).
fn drop_blank_left(item: &mut Item, steps: &mut Vec<RepairStep>) {
    let parts: Vec<(usize, &Part)> = item.msg.parts.iter().enumerate().collect();
    let blank = super::empty::empty_texts(item.msg.role, &parts, super::Provider::OpenAiResponses);
    if blank.is_empty() {
        return;
    }
    let index = item.origin;
    steps.extend(blank.iter().map(|&part| RepairStep::RemovedEmptyText { index, part }));
    let mut k = 0usize;
    item.msg.parts.retain(|_| {
        let keep = !blank.contains(&k);
        k = k.saturating_add(1);
        keep
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{ReasoningPart, TextPart};

    fn reasoning() -> Part {
        Part::Reasoning(ReasoningPart { text: "t".into(), signature: Some("s".into()), ..ReasoningPart::default() })
    }

    #[test]
    fn a_turn_left_with_blank_text_alone_goes_and_orphans_the_reasoning_before_it() {
        let blank = Part::Text(TextPart { text: " \n".into(), extra: crate::message::Extra::new() });
        let items: Vec<Item> = [vec![reasoning()], vec![blank, reasoning()]]
            .into_iter()
            .enumerate()
            .map(|(origin, parts)| Item { msg: Message::new(Role::Assistant, parts), origin })
            .collect();
        let mut steps = Vec::new();
        assert!(drop_orphan_reasoning(items, &mut steps).is_empty());
        assert_eq!(
            steps,
            [
                RepairStep::DroppedOrphanReasoning { index: 0, part: 0 },
                RepairStep::RemovedEmptyMessage { index: 0 },
                RepairStep::DroppedOrphanReasoning { index: 1, part: 1 },
                RepairStep::RemovedEmptyText { index: 1, part: 0 },
                RepairStep::RemovedEmptyMessage { index: 1 },
            ]
        );
    }
}
