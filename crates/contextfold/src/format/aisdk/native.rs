//! AI SDK parts kept verbatim: what the SDK itself keeps in a `ModelMessage` but never
//! sends as a part of ours, or that only the provider that made it reads back.
//!
//! - `tool-approval-request` (assistant) and `tool-approval-response` (tool): a call of a
//!   tool with `needsApproval` waits for the user's answer. The SDK matches the last
//!   message's responses with requests (and their calls) anywhere before, then leaves
//!   both out of the prompt (a provider-executed response excepted);
//! - a provider-executed `tool-call` (`providerExecuted: true`) and the `tool-result`
//!   the provider wrote in the same assistant message (web search, code execution);
//! - `reasoning-file` and `custom` (provider content of a kind the SDK does not know);
//! - a `file` whose tagged data is a provider `reference` or inline `text`, or whose `data`
//!   (an `image`'s `image`) is a bare provider reference (`{openai: "file-..."}`);
//! - in a tool's `content` output, items of files the provider stores (`file-id`,
//!   `file-reference`, `image-file-id`, `image-file-reference`, a `file` by reference) and
//!   `custom` items.
//!
//! Each becomes a text part whose text is a short rendering (what summarizers read and
//! the estimate counts) carrying the part itself (see [`crate::format::native_block`]):
//! kept, it is written back unchanged, and it goes with its message when that is summarized.
//! A tool message may hold them beside its results ([`crate::repair`] keeps them there).

use super::NAMESPACE;
use crate::format::native_block;
use crate::json_node::Node;
use crate::message::{Part, Role, TextPart};
use serde_json::Value;

/// Longest rendering of one part's content, in characters.
const MAX_CHARS: usize = 600;

/// Whether the part `item` of type `part_type` in a message of `role` is kept verbatim.
pub(super) fn is_native(role: Role, part_type: &str, item: &Node<'_>) -> bool {
    match (role, part_type) {
        (Role::Assistant, "tool-approval-request" | "tool-result" | "reasoning-file" | "custom") => true,
        (Role::Assistant, "tool-call") => item.get("providerExecuted").and_then(Node::as_bool) == Some(true),
        (Role::Tool, "tool-approval-response") => true,
        (Role::User | Role::Assistant, "file") => by_reference(item.get("data"), true),
        (Role::User, "image") => by_reference(item.get("image"), false),
        _ => false,
    }
}

/// Whether file data is held by the provider: tagged `{type: "reference"}` (or, for a
/// `file` part, inline `{type: "text"}`), or a bare `ProviderReference` record (an object
/// without `type`: `{openai: "file-..."}`), which the SDK reads as a reference.
fn by_reference(data: Option<&Node<'_>>, text_too: bool) -> bool {
    let Some(Node::Object(data)) = data else { return false };
    match data.get("type").and_then(Node::as_str) {
        None => true,
        Some("reference") => true,
        Some("text") => text_too,
        Some(_) => false,
    }
}

/// Whether the item `item` of type `item_type` of a tool's `content` output is kept verbatim.
pub(super) fn is_native_output_item(item_type: &str, item: &Node<'_>) -> bool {
    match item_type {
        "file-id" | "file-reference" | "image-file-id" | "image-file-reference" | "custom" => true,
        // Tagged text too (`ai` 7's `FileDataText`, an inline text document).
        "file" => by_reference(item.get("data"), true),
        _ => false,
    }
}

/// The text part standing for `item`.
pub(super) fn read(item: &Node<'_>, part_type: &str) -> Part {
    let block = item.to_value();
    let rendering = render(&block, part_type);
    native_block::part(&block, NAMESPACE, rendering)
}

/// The text part standing for the AI SDK part `block`, built by a writer.
pub(crate) fn kept(block: &Value) -> Part {
    native_block::part(block, NAMESPACE, render(block, str_at(block, "type")))
}

/// The type of the AI SDK part `part` stands for when the SDK keeps it for itself and,
/// left to itself, never sends it to a model (an approval request or response; a
/// `UIMessage` source or data part): conversion drops those.
pub(crate) fn bookkeeping_part(part: &Part) -> Option<&str> {
    let Part::Text(text) = part else { return None };
    let kind = part_of(text)?.get("type")?.as_str()?;
    (matches!(kind, "tool-approval-request" | "tool-approval-response") || super::ui::is_block(kind)).then_some(kind)
}

/// The AI SDK part a text part stands for, when it is one.
pub(super) fn part_of(part: &TextPart) -> Option<&Value> {
    native_block::of(part, NAMESPACE)
}

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    native_block::str_at(v, key)
}

fn short(text: &str) -> String {
    native_block::short(text, MAX_CHARS)
}

fn render(part: &Value, part_type: &str) -> String {
    match part_type {
        "tool-approval-request" => format!("[approval asked for tool call {}]", str_at(part, "toolCallId")),
        "tool-approval-response" => {
            let answer =
                if part.get("approved").and_then(Value::as_bool) == Some(true) { "approved" } else { "denied" };
            match str_at(part, "reason") {
                "" => format!("[tool call {answer}]"),
                reason => format!("[tool call {answer}: {}]", short(reason)),
            }
        }
        "tool-call" => {
            let input = part.get("input").map(Value::to_string).unwrap_or_default();
            format!("[provider tool call {}: {}]", str_at(part, "toolName"), short(&input))
        }
        "tool-result" => {
            let output = part.get("output");
            let value = output.and_then(|o| o.get("value")).or(output);
            let body = match value {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            format!("[provider tool result {}: {}]", str_at(part, "toolName"), short(&body))
        }
        "reasoning-file" => format!("[reasoning file {}]", str_at(part, "mediaType")),
        "custom" => match str_at(part, "kind") {
            "" => "[provider content]".to_string(),
            kind => format!("[{kind}]"),
        },
        "image" | "image-file-id" | "image-file-reference" => "[image stored by the provider]".to_string(),
        "file-id" | "file-reference" => "[file stored by the provider]".to_string(),
        _ => {
            let name = match str_at(part, "filename") {
                "" => str_at(part, "mediaType"),
                name => name,
            };
            match name {
                "" => "[file]".to_string(),
                name => format!("[file {name}]"),
            }
        }
    }
}
