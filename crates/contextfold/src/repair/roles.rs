//! Role rules: one system prompt first, alternation where required, a user turn first.
//!
//! System placement. A system message after the first non-system message is kept where
//! the provider takes one (OpenAI Chat and Responses, Anthropic's `role: "system"`
//! messages); elsewhere it breaks "one system prompt at the start" (Gemini has no system
//! role in `contents`; Qwen's template refuses one mid-chain), and such a message is
//! turned into a user message IN PLACE, parts
//! unchanged: it is context that belongs where it was said (compaction puts summaries
//! there), while moving it into the leading system prompt would reorder the conversation
//! and rewrite the system prompt (and with it every provider's prompt cache). The native
//! form keeps it where it is ([`RepairOptions::keep_system_in_place`]): round trips
//! through it are lossless, and the format converted to next places it. A leading
//! run of several system messages is merged into one only for providers with a single
//! system field (Anthropic `system`, Gemini `systemInstruction`); OpenAI accepts several.
//!
//! Alternation. Consecutive user messages, or consecutive assistant messages, are merged
//! (the later one's parts appended in order, byte-for-byte; message fields the first lacks
//! are taken from the later one) when the provider requires alternation, or the options
//! force it. Tool messages are never merged: results go into one wire turn anyway.
//!
//! First turn. For Anthropic and Gemini the conversation after the system prompt must
//! open with the user: a short placeholder user message goes before an assistant opener.

use super::{Item, RepairOptions, RepairStep};
use crate::message::{Message, Role};

/// Turns late system messages into user messages where the provider takes none and, for
/// single-system providers,
/// merges the leading run of system messages.
pub(crate) fn place_system(items: Vec<Item>, options: &RepairOptions, steps: &mut Vec<RepairStep>) -> Vec<Item> {
    let provider = options.provider;
    let mut out: Vec<Item> = Vec::with_capacity(items.len());
    let mut started = false;
    for mut item in items {
        if item.msg.role != Role::System {
            started = true;
        } else if started {
            // Kept where the provider takes one (see `Provider::system_anywhere`).
            if !provider.system_anywhere() && !options.keep_system_in_place {
                item.msg.role = Role::User;
                steps.push(RepairStep::SystemToUser { index: item.origin });
            }
        } else if provider.single_system() {
            if let Some(first) = out.first_mut() {
                steps.push(RepairStep::MergedSystem { index: item.origin, into: first.origin });
                merge_into(&mut first.msg, item.msg);
                continue;
            }
        }
        out.push(item);
    }
    out
}

/// Merges consecutive user messages and consecutive assistant messages.
pub(crate) fn merge_same_role(items: Vec<Item>, steps: &mut Vec<RepairStep>) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::with_capacity(items.len());
    for item in items {
        let role = item.msg.role;
        if let Some(last) = out.last_mut() {
            if last.msg.role == role && matches!(role, Role::User | Role::Assistant) {
                steps.push(RepairStep::MergedSameRole { index: item.origin, into: last.origin, role });
                merge_into(&mut last.msg, item.msg);
                continue;
            }
        }
        out.push(item);
    }
    out
}

/// Puts a placeholder user message before an assistant message that opens the chain
/// (after the system prompt), for providers that want a user turn first.
pub(crate) fn leading_user(mut items: Vec<Item>, options: &RepairOptions, steps: &mut Vec<RepairStep>) -> Vec<Item> {
    if !options.provider.user_first() {
        return items;
    }
    let Some(at) = items.iter().position(|i| i.msg.role != Role::System) else {
        return items;
    };
    let Some(first) = items.get(at) else {
        return items;
    };
    if first.msg.role == Role::Assistant {
        let origin = first.origin;
        steps.push(RepairStep::AddedLeadingUser { index: origin });
        items.insert(at, Item { msg: Message::text(Role::User, options.leading_user_text()), origin });
    }
    items
}

/// Appends `m`'s parts to `into`; message fields `into` lacks are taken from `m`.
/// Appends `m` to `into`. Fields of `m` that `into` lacks are kept, except its format
/// restoration markers: they describe `m`'s own wire message (an Anthropic system
/// prompt read from inside `messages`, the block positions of a split user message)
/// and would misplace the merged one.
pub(crate) fn merge_into(into: &mut Message, m: Message) {
    into.parts.extend(m.parts);
    for (k, v) in m.extra {
        if !crate::message::marker_namespace::contains(&k) {
            into.extra.entry(k).or_insert(v);
        }
    }
}
