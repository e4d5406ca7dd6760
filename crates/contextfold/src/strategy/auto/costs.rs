//! Message costs, counted once per call: the chain is measured when the call starts, and
//! what follows (masking, the layouts, the span) reuses those counts, measuring again only
//! the messages it changed. With a tokenizer behind a boundary (a JS token counter), each
//! pass over the chain is a crossing; with the built-in estimate, a pass over every byte.

use crate::measure::{Meter, Unit};
use crate::message::{Message, Role};
use crate::strategy::window::{layout, Layout, LayoutCosts};

/// The chain before masking, laid out as the masked chain is, without a copy of it: a
/// layout of its first messages (the first request, split around an earlier summary as
/// [`layout`] splits it), then the chain's own messages by origin. The summarizer reads
/// the span from here, as it was before masking.
pub(super) struct Unmasked<'a> {
    prefix: Layout<'a>,
    prefix_costs: LayoutCosts,
    chain: &'a [Message],
    costs: &'a [usize],
}

impl<'a> Unmasked<'a> {
    pub fn new(chain: &'a [Message], costs: &'a [usize], meter: Meter<'_>, unit: Unit) -> Self {
        let systems = chain.iter().take_while(|m| m.role == Role::System).count();
        let prefix = layout(chain.get(..systems.saturating_add(1).min(chain.len())).unwrap_or_default());
        let prefix_costs = LayoutCosts::of(&prefix, costs, meter, unit);
        Unmasked { prefix, prefix_costs, chain, costs }
    }

    /// The first request moved into the body, as [`super::unpin_first_request`] moves it
    /// in the masked layout.
    pub fn unpin(&mut self) {
        super::unpin_first_request(&mut self.prefix, &mut self.prefix_costs);
    }

    /// Body message `k` of the layout, at `origin` in the chain, with its cost.
    pub fn body(&self, k: usize, origin: usize) -> Option<(&Message, usize)> {
        match self.prefix.body.get(k) {
            Some(m) => Some((m, self.prefix_costs.body.get(k).copied().unwrap_or(0))),
            None => Some((self.chain.get(origin)?, self.costs.get(origin).copied().unwrap_or(0))),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::message::Part;
    use crate::strategy::mask::{after_mask, mask, MaskConfig};
    use crate::strategy::window::{layout, restoration_part_with, Note};
    use crate::testing::tool_call;

    /// An agent turn: a call and its long result.
    fn turn(i: usize) -> Vec<Message> {
        let id = format!("c{i}");
        vec![
            Message::text(Role::User, format!("step {i}")),
            Message::new(Role::Assistant, vec![tool_call(&id, "read", "src/lib.rs")]),
            Message::tool_result(id, "read", "fn main() {}\n".repeat(60 + i)),
        ]
    }

    #[test]
    fn reused_costs_are_what_a_fresh_count_gives() {
        let meter = Meter::default();
        let unit = Unit::Tokens;
        // A chain compacted before: the first message holds the request, the earlier
        // summary and the next request, and the layout splits it.
        let first = Message::new(
            Role::User,
            vec![
                Part::text("the goal"),
                restoration_part_with("## Current state\n- done", Note::Whole),
                Part::text("next"),
            ],
        );
        let plain = Message::text(Role::User, "the goal");
        for (lead, summarized) in [(first, true), (plain, false)] {
            let mut chain = vec![Message::text(Role::System, "be brief"), lead];
            chain.extend((0..6).flat_map(turn));
            let costs = meter.costs(unit, &chain);

            let (masked, items) = mask(&chain, &MaskConfig::default());
            let masked: Vec<Message> = masked.into_iter().map(std::borrow::Cow::into_owned).collect();
            assert!(!items.is_empty());
            let masked_costs = after_mask(&costs, &masked, &items, meter, unit);
            assert_eq!(masked_costs, meter.costs(unit, &masked));

            for (messages, costs) in [(&chain, &costs), (&masked, &masked_costs)] {
                let shape = layout(messages);
                assert_eq!(shape.previous.is_some(), summarized);
                let laid = LayoutCosts::of(&shape, costs, meter, unit);
                assert_eq!(laid.head, meter.costs(unit, &shape.head));
                assert_eq!(laid.body, meter.costs(unit, &shape.body));
            }

            // The unmasked view is the chain's own layout, message for message, before
            // and after the first request is unpinned.
            let (mut whole, mut whole_costs) = (layout(&chain), LayoutCosts::of(&layout(&chain), &costs, meter, unit));
            let mut view = Unmasked::new(&chain, &costs, meter, unit);
            for unpinned in [false, true] {
                if unpinned {
                    super::super::unpin_first_request(&mut whole, &mut whole_costs);
                    view.unpin();
                }
                for (k, (m, &origin)) in whole.body.iter().zip(&whole.origin).enumerate() {
                    assert_eq!(view.body(k, origin), Some((&**m, whole_costs.body[k])), "{k} (unpinned: {unpinned})");
                }
            }
        }
    }
}
