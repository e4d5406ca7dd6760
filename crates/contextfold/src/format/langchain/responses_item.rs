//! The OpenAI Responses reasoning item of an AI message. `@langchain/openai`'s ChatOpenAI
//! (Responses API) keeps it whole in `additional_kwargs.reasoning` (`{type: "reasoning",
//! id, summary, encrypted_content?}`) and sends it back from there, and only from there:
//! the `{type: "reasoning", reasoning}` content block it adds for a summary text is for
//! display (its Responses input takes text blocks only).
//!
//! Read as one reasoning part (the Responses reader's mapping: the summary texts as its
//! text, `encrypted_content` as its signature, the item's other fields (`id`, ...) in its
//! `extra`), marked `kwargs`; the content block of the summary, when there is one, is
//! that part (marked `block`), not a second one. Written back the same way: the item into
//! `additional_kwargs.reasoning`, and the display block at the part's place. A message
//! holds one item: a second part marked so is written as a v1 `reasoning` block.

use super::NAMESPACE;
use crate::format::fields::{add_marker, Markers, WireObject};
use crate::format::path::JsonPath;
use crate::format::responses::{natural_summary, summary_text};
use crate::format::wire::{object, Restore};
use crate::format::FormatError;
use crate::json_node::Node;
use crate::message::{Extra, Message, Part, ReasoningPart};
use serde_json::{Map, Value};

const KWARGS: &str = "additional_kwargs";
const FIELD: &str = "reasoning";
/// The marker of a part read from (and written to) `additional_kwargs.reasoning`.
const MARK: &str = "kwargs";
/// The marker of such a part that also has its display block in the content.
const BLOCK: &str = "block";

/// Whether a reasoning part (its `extra`) is a Responses item kept in `additional_kwargs`.
pub(crate) fn is_item(extra: &Extra) -> bool {
    Restore::new(extra, NAMESPACE).marker_flag(MARK)
}

/// Marks a reasoning part (`extra`; `text`, its text) as the message's Responses item:
/// written to `additional_kwargs.reasoning`, with a display block for a summary text as
/// ChatOpenAI gives one.
pub(crate) fn mark(extra: &mut Extra, text: &str) {
    add_marker(extra, NAMESPACE, MARK, Value::Bool(true));
    if !text.is_empty() {
        add_marker(extra, NAMESPACE, BLOCK, Value::Bool(true));
    }
}

/// Reads the Responses item of an assistant message body (`kwargs`, its
/// `additional_kwargs`, at `path`) into `message`: the part takes the place of the
/// display block of its summary, else goes first. The item leaves `additional_kwargs`.
/// Anything else there (not an object of `type: "reasoning"` with a summary array) stays
/// verbatim.
pub(super) fn read(kwargs: Option<&Node<'_>>, path: JsonPath, message: &mut Message) -> Result<(), FormatError> {
    let Some(item) = kwargs.and_then(|k| k.get(FIELD)) else { return Ok(()) };
    let is_item = item.get("type").and_then(Node::as_str) == Some("reasoning")
        && matches!(item.get("summary"), None | Some(Node::Array(_)))
        && matches!(item.get("encrypted_content"), None | Some(Node::String(_)));
    if !is_item {
        return Ok(());
    }
    let mut obj = WireObject::new(item, path, "a reasoning item")?;
    obj.take("type");
    let mut markers = Markers::default();
    markers.set(MARK, true);
    let entries: Option<Vec<Value>> = match obj.take("summary") {
        Some(Node::Array(entries)) => Some(entries.iter().map(Node::to_value).collect()),
        _ => None,
    };
    let text = entries.as_deref().map(summary_text).unwrap_or_default();
    match &entries {
        None => markers.set("summary", "absent"),
        Some(entries) if Value::Array(entries.clone()) != natural_summary(&text) => {
            markers.set("summary", Value::Array(entries.clone()));
        }
        Some(_) => {}
    }
    let display = entries.as_deref().map(display_text).unwrap_or_default();
    let at = message.parts.iter().position(|p| is_display_block(p, &display));
    if at.is_some() {
        markers.set(BLOCK, true);
    }
    let signature = obj.string("encrypted_content")?.map(str::to_string);
    let part = obj.into_reasoning(text, signature, NAMESPACE, markers);
    match at.and_then(|at| message.parts.get_mut(at)) {
        Some(block) => *block = part,
        None => message.parts.insert(0, part),
    }
    if let Some(Value::Object(kwargs)) = message.extra.get_mut(KWARGS) {
        kwargs.shift_remove(FIELD);
    }
    Ok(())
}

/// The text of the display block ChatOpenAI makes of a summary: its texts, run together.
fn display_text(entries: &[Value]) -> String {
    entries.iter().filter_map(|e| e.get("text").and_then(Value::as_str)).collect()
}

/// A bare v1 `{type: "reasoning", reasoning}` block (read as a part marked `type`, with
/// nothing else) of the text `display`.
fn is_display_block(part: &Part, display: &str) -> bool {
    let Part::Reasoning(r) = part else { return false };
    let bare = r.extra.len() == 1
        && r.extra
            .get(NAMESPACE)
            .and_then(Value::as_object)
            .is_some_and(|m| m.len() == 1 && m.get("type").and_then(Value::as_str) == Some("reasoning"));
    bare && !display.is_empty() && r.text == display && r.signature.is_none() && r.redacted_data.is_none()
}

/// The message's item to write, the first part marked `kwargs`: its index, the item, and
/// the display block to write at its place (if it had one).
pub(super) fn write(parts: &[Part]) -> Option<(usize, Value, Option<Part>)> {
    let (at, reasoning) = parts.iter().enumerate().find_map(|(j, p)| match p {
        Part::Reasoning(r) if r.redacted_data.is_none() && is_item(&r.extra) => Some((j, r)),
        _ => None,
    })?;
    let restore = Restore::new(&reasoning.extra, NAMESPACE);
    let summary = match restore.marker("summary") {
        Some(Value::String(absent)) if absent == "absent" && reasoning.text.is_empty() => None,
        Some(Value::Array(entries)) if summary_text(entries) == reasoning.text => Some(Value::Array(entries.clone())),
        _ => Some(natural_summary(&reasoning.text)),
    };
    let display = summary.as_ref().and_then(Value::as_array).map(|e| display_text(e)).unwrap_or_default();
    let block = (restore.marker_flag(BLOCK) && !display.is_empty()).then(|| {
        let text = display;
        let mut extra = Extra::new();
        add_marker(&mut extra, NAMESPACE, "type", Value::from("reasoning"));
        Part::Reasoning(ReasoningPart { text, signature: None, redacted_data: None, extra })
    });
    let mut mapped = object([("type", "reasoning".into())]);
    if let Some(summary) = summary {
        mapped.insert("summary".into(), summary);
    }
    if let Some(signature) = &reasoning.signature {
        mapped.insert("encrypted_content".into(), signature.as_str().into());
    }
    Some((at, restore.finish(mapped), block))
}

/// `additional_kwargs` of a message (its `extra`) with `item` as its `reasoning`.
pub(super) fn kwargs_with(extra: &Extra, item: Value) -> Value {
    let mut kwargs = extra.get(KWARGS).and_then(Value::as_object).cloned().unwrap_or_else(Map::new);
    kwargs.shift_insert(0, FIELD.to_string(), item);
    Value::Object(kwargs)
}

/// The key the item goes under in the message body.
pub(super) const KWARGS_KEY: &str = KWARGS;
