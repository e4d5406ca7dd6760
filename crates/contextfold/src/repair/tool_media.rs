//! Media out of tool results, for providers whose tool messages hold text only: OpenAI
//! types a `tool` message's content as text (the API answers 400 to an image there). The
//! media of the results go, in order, into one user message right after the run of tool
//! messages (a user message between two results would cut the call's answers), and each
//! result keeps a note saying so: nothing is lost.

use super::{Item, RepairStep};
use crate::message::{Message, Part, Role};

/// Text a result keeps in place of the media moved out of it.
pub const MOVED_MEDIA_NOTE: &str = "[media of this tool result follows in the next user message]";

/// Whether `p` is media, which OpenAI does not take in a tool result.
pub(crate) fn is_media(p: &Part) -> bool {
    matches!(p, Part::Image(_) | Part::File(_))
}

pub(crate) fn move_out(items: Vec<Item>, steps: &mut Vec<RepairStep>) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::with_capacity(items.len());
    let mut moved: Vec<Part> = Vec::new();
    let mut origin = 0;
    for mut item in items {
        if item.msg.role != Role::Tool {
            flush(&mut moved, origin, &mut out);
        } else if item.msg.parts.iter().any(has_media) {
            origin = item.origin;
            for (part, p) in item.msg.parts.iter_mut().enumerate() {
                let Part::ToolResult(result) = p else { continue };
                let (media, kept): (Vec<Part>, Vec<Part>) =
                    std::mem::take(&mut result.content).into_iter().partition(is_media);
                if media.is_empty() {
                    result.content = kept;
                    continue;
                }
                steps.push(RepairStep::MovedToolMedia { index: item.origin, part, count: media.len() });
                result.content = kept;
                result.content.push(Part::text(MOVED_MEDIA_NOTE));
                moved.extend(media);
            }
        }
        out.push(item);
    }
    flush(&mut moved, origin, &mut out);
    out
}

fn has_media(p: &Part) -> bool {
    matches!(p, Part::ToolResult(r) if r.content.iter().any(is_media))
}

fn flush(moved: &mut Vec<Part>, origin: usize, out: &mut Vec<Item>) {
    if !moved.is_empty() {
        out.push(Item { msg: Message::new(Role::User, std::mem::take(moved)), origin });
    }
}
