//! `UIMessage` parts that are content but no native part: `data-*` parts (the app's
//! data, which `convertToModelMessages` sends with `convertDataPart`) and sources
//! (`source-url`, `source-document`). Each becomes a text part whose text is a short
//! rendering (what summarizers read) carrying the part itself (see
//! [`crate::format::native_block`]): the message holding only such parts is not empty,
//! and the part is written back unchanged. Conversion to another format drops them
//! ([`crate::format::aisdk::bookkeeping_part`]), as `convertToModelMessages` does by default.

use crate::format::aisdk::NAMESPACE;
use crate::format::native_block;
use crate::json_node::Node;
use crate::message::{Part, TextPart};
use serde_json::Value;

/// Longest rendering of one part's content, in characters.
const MAX_CHARS: usize = 600;

/// Whether a part of this type is kept as a block.
pub(crate) fn is_block(part_type: &str) -> bool {
    matches!(part_type, "source-url" | "source-document") || part_type.starts_with("data-")
}

/// The text part standing for `item`.
pub(super) fn read(item: &Node<'_>, part_type: &str) -> Part {
    let block = item.to_value();
    let rendering = render(&block, part_type);
    native_block::part(&block, NAMESPACE, rendering)
}

/// The `UIMessage` part a text part stands for, when it is one of these.
pub(super) fn of(part: &TextPart) -> Option<&Value> {
    native_block::of(part, NAMESPACE).filter(|b| b.get("type").and_then(Value::as_str).is_some_and(is_block))
}

fn render(part: &Value, part_type: &str) -> String {
    let s = |key| native_block::str_at(part, key);
    let title = if s("title").is_empty() { s("url") } else { s("title") };
    match part_type {
        "source-url" => format!("[source: {}]", native_block::short(title, MAX_CHARS)),
        "source-document" => format!("[source document: {}]", native_block::short(title, MAX_CHARS)),
        _ => {
            let data = part.get("data").map(Value::to_string).unwrap_or_default();
            format!("[{part_type}: {}]", native_block::short(&data, MAX_CHARS))
        }
    }
}
