//! Vercel AI SDK `UIMessage`s (AI SDK v5+) -> native [`Message`]s ([`read`]), and back
//! ([`write()`]).
//!
//! A `UIMessage` is `{id, role, metadata?, parts}` with roles `system`, `user` and
//! `assistant`. One assistant `UIMessage` holds a whole agent turn: its steps (each
//! opened by a `step-start` part), and in each step the tool calls together with their
//! results. Reading splits it the way the AI SDK's `convertToModelMessages` does: per
//! step, an assistant message (text, reasoning, files and tool calls in order) followed
//! by a tool message with the results of that step's calls, when there are any.
//!
//! Mapping:
//! - `text` -> text, `reasoning` -> reasoning (`state`, `providerMetadata` and every
//!   other field stay in the part's `extra`);
//! - `file` (`mediaType`, `filename?`, `url`) -> an image (an `image/*` media type and no
//!   file name) or a file; a `data:<mediaType>;base64,` URL becomes inline data;
//! - `tool-<name>` and `dynamic-tool` (`toolName`) -> a tool call (`toolCallId`, `input`
//!   as compact JSON), and a result when the part has an outcome: state
//!   `output-available` (or any `output`) -> a result whose content is the output's text
//!   (a string output) or compact JSON (any other output); `output-error` -> an error
//!   result with `errorText`; `output-denied` (AI SDK 6: the user refused the call)
//!   -> an error result whose text is `approval.reason` (or a fixed sentence), as the
//!   model is told, and so does `approval-responded` with `approval.approved: false`;
//!   `input-streaming` / `input-available` / `approval-requested` / approved
//!   `approval-responded` -> a pending call (no result). Every other field of the tool part (`providerExecuted`,
//!   `callProviderMetadata`, `preliminary`, ...) stays in the call's `extra`;
//! - `source-url`, `source-document` and `data-*` -> a text part standing for the part
//!   (see [`blocks`]): content, so a message of them only is not empty;
//! - `step-start`, `ai` 7's `reasoning-file`, `custom` and `steering-message`, and any
//!   other part type are kept verbatim (see the `uiParts` marker; `convert` makes the
//!   `ModelMessage` parts of an assistant's `reasoning-file` and `custom`);
//! - `id`, `metadata` and every other message field stay in the `extra` of the first
//!   native message made from the `UIMessage`.
//!
//! Restoration markers, under `"_aisdk"` (shared with [`super`], whose `input`,
//! `output` and `value` markers mean the same here):
//! - message `uiParts`: the parts kept verbatim, as `[position, part]` pairs (position in
//!   the `UIMessage` parts of that step), when not the natural `[[0, step-start]]` of an
//!   assistant step or `[]` of another message; `turn`: `"new"` on an assistant message
//!   that opens a `UIMessage` where the writer would continue the previous one (it follows
//!   that one's results), `"step"` on one that continues a `UIMessage` where the writer
//!   would open one (the step before had no results); `noId` when the message had no
//!   `id`; `of` on a later step: the `UIMessage`'s own fields (`id`, `metadata`), which a
//!   step kept without the first takes when it opens a `UIMessage`;
//! - tool call `dynamic` (a `dynamic-tool` part), `state` (the state when not the natural
//!   one, `null` when absent), `noInput` (no `input` field), `input` (the original input
//!   when its compact JSON does not read back the same);
//! - tool result `output`: `"json"` for an output that is not a string, `"absent"` for an
//!   `output-available` part without `output`; `value` (the original output, as for
//!   `input`); `noErrorText` for an `output-error` part without `errorText`; `denied`
//!   for the result of an `output-denied` or refused `approval-responded` part;
//! - file and image `noMediaType`; `shadowed` as in every format.
//!
//! # Writing
//!
//! [`write()`] reverses the mapping. System and user messages become one `UIMessage`
//! each; an assistant message opens a `UIMessage` unless it follows the results of the
//! `UIMessage` being built (a later step of the same turn), and each step starts with a
//! `step-start` part. Tool results go into their call's tool part (state
//! `output-available` with the text as a string output, or the JSON value for a `json`
//! output; `output-error` with `errorText` for an error), calls without a result are
//! written `input-available`. A call read pending that the repair pass answered (a user
//! message followed it, `input-streaming` included: the user stopped it) gets its answer as
//! `output-error`, unless `ai` leaves it out of the prompt (`approval-requested`). A later step kept after a
//! summary of the steps before it gives the `UIMessage` its own `id` and fields. Messages without an `id` get `msg-<n>`. Errors
//! ([`FormatError::Unwritable`]): a tool result answering no call written before, media
//! in a tool result (a `UIMessage` tool output is JSON), tool calls outside an assistant
//! message, tool results outside a tool message, arguments that are not JSON, media
//! without URL or data. Reasoning signatures and redacted reasoning have no field of
//! their own: they are read from the provider entry of `providerMetadata` (see
//! [`super::signatures`]), written verbatim when it was read.

mod blocks;
mod writer;

pub(crate) use blocks::is_block;

use super::{compact_json, NAMESPACE};
use crate::format::data_url;
use crate::format::fields::{json_kind, native_keys, Markers, WireObject};
use crate::format::items::Items;
use crate::format::path::JsonPath;
use crate::format::wire::{object, Restore};
use crate::format::FormatError;
use crate::json_node::Node;
use crate::message::{Extra, FilePart, ImagePart, Message, Part, ReasoningPart, Role, TextPart, ToolResultPart};
use serde_json::Value;

pub use writer::write;

/// The part that opens each step of an assistant `UIMessage`.
const STEP_START: &str = "step-start";
/// Default media types for media without one (`image/*` is what the AI SDK itself uses).
const IMAGE_ANY: &str = "image/*";
const FILE_ANY: &str = "application/octet-stream";

/// Reads an array of AI SDK `UIMessage`s.
pub fn read(value: &Value) -> Result<Vec<Message>, FormatError> {
    let root = JsonPath::root();
    let Value::Array(items) = value else {
        return Err(root.shape_error(format!("expected an array of AI SDK UIMessages, found {}", json_kind(value))));
    };
    read_list(Items::Borrowed(items))
}

/// Reads the elements of an AI SDK `UIMessage` array.
pub(crate) fn read_list(items: Items<'_>) -> Result<Vec<Message>, FormatError> {
    let root = JsonPath::root();
    let mut turn = Turn::default();
    items.read_all(Vec::new(), |i, item, out| read_message(item, root.index(i), out, &mut turn))
}

/// Where the writer stands: inside an assistant `UIMessage`, right after its results.
#[derive(Debug, Default, Clone, Copy)]
struct Turn {
    assistant: bool,
    after_results: bool,
}

/// One step of a `UIMessage`: the native parts, the results of its calls, the parts
/// kept verbatim with their positions, and how many `UIMessage` parts it spans.
#[derive(Default)]
struct Step {
    parts: Vec<Part>,
    results: Vec<Part>,
    verbatim: Vec<Value>,
    len: usize,
}

enum Kind {
    Text,
    Reasoning,
    File,
    Tool,
    Block,
    Verbatim,
}

fn kind_of(part_type: &str) -> Kind {
    match part_type {
        "text" => Kind::Text,
        "reasoning" => Kind::Reasoning,
        "file" => Kind::File,
        "dynamic-tool" => Kind::Tool,
        t if t.starts_with("tool-") => Kind::Tool,
        t if blocks::is_block(t) => Kind::Block,
        _ => Kind::Verbatim,
    }
}

fn read_message(item: &Node<'_>, path: JsonPath, out: &mut Vec<Message>, turn: &mut Turn) -> Result<(), FormatError> {
    let mut obj = WireObject::new(item, path, "a UIMessage")?;
    let role = read_role(&mut obj)?;
    let mut markers = Markers::default();
    if obj.peek("id").is_none() {
        markers.set("noId", true);
    }
    let parts_path = obj.field_path("parts");
    let items = match obj.take("parts") {
        Some(Node::Array(items)) => items,
        Some(other) => {
            return Err(parts_path.shape_error(format!("`parts` must be an array, found {}", json_kind(other))))
        }
        None => return Err(parts_path.shape_error("missing array field `parts`")),
    };
    let steps = read_steps(items, &parts_path, role)?;
    push_steps(steps, role, (obj, markers), out, turn);
    Ok(())
}

fn read_role(obj: &mut WireObject<'_>) -> Result<Role, FormatError> {
    match obj.required_string("role")? {
        "system" => Ok(Role::System),
        "user" => Ok(Role::User),
        "assistant" => Ok(Role::Assistant),
        other => Err(obj
            .field_path("role")
            .shape_error(format!("unknown UIMessage role `{other}` (expected system, user or assistant)"))),
    }
}

/// The parts of a `UIMessage` split into steps: an assistant's `step-start` opens a new
/// one once the current step has native parts.
fn read_steps(items: &[Node<'_>], parts_path: &JsonPath, role: Role) -> Result<Vec<Step>, FormatError> {
    let mut steps = Vec::new();
    let mut step = Step::default();
    for (j, item) in items.iter().enumerate() {
        let part_path = parts_path.index(j);
        let part_type = read_part_type(item, &part_path)?;
        if part_type == STEP_START && role == Role::Assistant && !step.parts.is_empty() {
            steps.push(std::mem::take(&mut step));
        }
        match kind_of(part_type) {
            Kind::Text => step.parts.push(read_text(item, part_path, false)?),
            Kind::Reasoning => step.parts.push(read_text(item, part_path, true)?),
            Kind::File => step.parts.push(read_file(item, part_path)?),
            Kind::Tool if role != Role::Assistant => {
                return Err(part_path.key("type").shape_error(format!(
                    "tool parts are only read in assistant UIMessages, not in a {} message",
                    role.as_str()
                )))
            }
            Kind::Tool => {
                let (call, result) = read_tool(item, part_path, part_type)?;
                step.parts.push(call);
                step.results.extend(result);
            }
            Kind::Block => step.parts.push(blocks::read(item, part_type)),
            Kind::Verbatim => step.verbatim.push(Value::Array(vec![Value::from(step.len), item.to_value()])),
        }
        step.len = step.len.saturating_add(1);
    }
    steps.push(step);
    Ok(steps)
}

/// The `type` of a part, which must be a JSON object.
fn read_part_type<'a>(item: &'a Node<'a>, part_path: &JsonPath) -> Result<&'a str, FormatError> {
    match item.get("type") {
        Some(Node::String(t)) => Ok(t.as_ref()),
        Some(other) => {
            Err(part_path.key("type").shape_error(format!("`type` must be a string, found {}", json_kind(other))))
        }
        None if item.is_object() => Err(part_path.key("type").shape_error("missing string field `type`")),
        None => Err(part_path.shape_error(format!("expected a part (a JSON object), found {}", json_kind(item)))),
    }
}

/// One native message per step (the first takes the `UIMessage`'s fields and markers),
/// each followed by a tool message with its results, if any. A `turn` marker records an
/// assistant step that opens or continues a `UIMessage` where the writer would not.
fn push_steps(steps: Vec<Step>, role: Role, first: (WireObject<'_>, Markers), out: &mut Vec<Message>, turn: &mut Turn) {
    let natural_parts = if role == Role::Assistant {
        vec![Value::Array(vec![Value::from(0), object([("type", STEP_START.into())]).into()])]
    } else {
        Vec::new()
    };
    let mut first = Some(first);
    // The `UIMessage`'s own fields (`id`, `metadata`, ...), for a later step kept without
    // the first: it opens a `UIMessage` then, which they still describe.
    let mut own_fields: Option<Value> = None;
    for (k, step) in steps.into_iter().enumerate() {
        let (obj, mut markers) = match first.take() {
            Some((obj, markers)) => (Some(obj), markers),
            None => (None, Markers::default()),
        };
        if step.verbatim != natural_parts {
            markers.set("uiParts", Value::Array(step.verbatim));
        }
        if role == Role::Assistant {
            let natural_continue = turn.assistant && turn.after_results;
            if k == 0 && natural_continue {
                markers.set("turn", "new");
            } else if k > 0 && !natural_continue {
                markers.set("turn", "step");
            }
        }
        if let Some(fields) = own_fields.as_ref().filter(|f| f.as_object().is_some_and(|f| !f.is_empty())) {
            markers.set("of", fields.clone());
        }
        let extra = match obj {
            Some(obj) => {
                let extra = obj.into_extra(native_keys::MESSAGE, NAMESPACE, markers);
                let fields = extra.iter().filter(|(k, _)| k.as_str() != NAMESPACE);
                own_fields = Some(Value::Object(fields.map(|(k, v)| (k.clone(), v.clone())).collect()));
                extra
            }
            None => marker_extra(markers),
        };
        out.push(Message { role, parts: step.parts, extra });
        turn.assistant = role == Role::Assistant;
        turn.after_results = !step.results.is_empty();
        if !step.results.is_empty() {
            out.push(Message::new(Role::Tool, step.results));
        }
    }
}

/// An `extra` holding only markers.
fn marker_extra(markers: Markers) -> Extra {
    let mut extra = Extra::new();
    if let Value::Object(map) = markers.into_value() {
        if !map.is_empty() {
            extra.insert(NAMESPACE.to_string(), Value::Object(map));
        }
    }
    extra
}

fn read_text(item: &Node<'_>, path: JsonPath, reasoning: bool) -> Result<Part, FormatError> {
    let mut obj = WireObject::new(item, path, "a part")?;
    obj.take("type");
    let text = obj.required_string("text")?.to_string();
    if reasoning {
        let mut markers = Markers::default();
        let (signature, redacted_data) =
            crate::format::aisdk::signatures::read(obj.peek("providerMetadata"), &mut markers);
        let extra = obj.into_extra(native_keys::REASONING, NAMESPACE, markers);
        return Ok(Part::Reasoning(ReasoningPart { text, signature, redacted_data, extra }));
    }
    Ok(Part::Text(TextPart { text, extra: obj.into_extra(native_keys::TEXT, NAMESPACE, Markers::default()) }))
}

fn read_file(item: &Node<'_>, path: JsonPath) -> Result<Part, FormatError> {
    let mut obj = WireObject::new(item, path, "a file part")?;
    obj.take("type");
    let url = obj.required_string("url")?;
    let media_type = obj.string("mediaType")?.map(str::to_string);
    let name = obj.string("filename")?.map(str::to_string);
    let mut markers = Markers::default();
    if media_type.is_none() {
        markers.set("noMediaType", true);
    }
    let (url, data) = match data_url::split(url) {
        Some(split) if Some(split.media_type) == media_type.as_deref() => (None, Some(split.data.to_string())),
        _ => (Some(url.to_string()), None),
    };
    if name.is_none() && media_type.as_deref().is_some_and(|m| m.starts_with("image/")) {
        let extra = obj.into_extra(native_keys::IMAGE, NAMESPACE, markers);
        return Ok(Part::Image(ImagePart { url, data, media_type, extra }));
    }
    let extra = obj.into_extra(native_keys::FILE, NAMESPACE, markers);
    Ok(Part::File(FilePart { url, data, media_type, name, extra }))
}

/// The outcome of a call the user denied without a reason (`output-denied`).
const DENIED_TEXT: &str = "The user denied this tool call.";

/// The state a writer gives a tool part by itself.
fn natural_state(result: Option<&ToolResultPart>) -> &'static str {
    match result {
        Some(r) if r.is_error => "output-error",
        Some(_) => "output-available",
        None => "input-available",
    }
}

/// Whether a recorded state still fits the call (it may have got a result since).
fn state_fits(state: &str, result: Option<&ToolResultPart>) -> bool {
    match state {
        "output-available" => result.is_some_and(|r| !r.is_error),
        "output-error" => result.is_some_and(|r| r.is_error),
        "output-denied" => result.is_some_and(|r| r.is_error),
        // Refused (a denial read from it), or approved and not run yet (no result).
        "approval-responded" => result.is_none_or(is_denial),
        "input-available" | "input-streaming" | "approval-requested" => result.is_none(),
        _ => true,
    }
}

/// Whether a result is a refusal read from a tool part's `approval` (marker `denied`).
fn is_denial(result: &ToolResultPart) -> bool {
    result.is_error && Restore::new(&result.extra, NAMESPACE).marker_flag("denied")
}

/// Whether the user answered the part's approval request with no (`approved: false`).
fn approval_refused(obj: &WireObject<'_>) -> bool {
    obj.peek("approval").and_then(|a| a.get("approved")).and_then(Node::as_bool) == Some(false)
}

/// A tool part -> its call, and its result when it has an outcome.
fn read_tool(item: &Node<'_>, path: JsonPath, part_type: &str) -> Result<(Part, Option<Part>), FormatError> {
    let mut obj = WireObject::new(item, path, "a tool part")?;
    obj.take("type");
    let mut markers = Markers::default();
    let name = match part_type.strip_prefix("tool-") {
        Some(name) => name.to_string(),
        None => {
            markers.set("dynamic", true);
            obj.required_string("toolName")?.to_string()
        }
    };
    let id = obj.required_string("toolCallId")?.to_string();
    let state = obj.string("state")?;
    let arguments = match obj.take("input") {
        Some(input) => compact_json(input, &mut markers, "input"),
        None => {
            markers.set("noInput", true);
            String::new()
        }
    };
    let mut result_markers = Markers::default();
    let outcome = if state == Some("output-error") {
        let text = obj.string("errorText")?;
        if text.is_none() {
            result_markers.set("noErrorText", true);
        }
        Some((text_content(text.unwrap_or_default()), true))
    } else if state == Some("output-denied") || (state == Some("approval-responded") && approval_refused(&obj)) {
        // The user refused the call: its outcome, as the AI SDK tells the model
        // (`execution-denied`). The reason stays in `approval`, where it came from.
        result_markers.set("denied", true);
        let reason = obj.peek("approval").and_then(|a| a.get("reason")).and_then(Node::as_str);
        Some((text_content(reason.unwrap_or(DENIED_TEXT)), true))
    } else if state == Some("output-available") || obj.peek("output").is_some() {
        let content = match obj.take("output") {
            Some(Node::String(text)) => text_content(text),
            Some(output) => {
                result_markers.set("output", "json");
                vec![Part::text(compact_json(output, &mut result_markers, "value"))]
            }
            None => {
                result_markers.set("output", "absent");
                Vec::new()
            }
        };
        Some((content, false))
    } else {
        None
    };
    let result = outcome.map(|(content, is_error)| {
        let extra = marker_extra(result_markers);
        Part::ToolResult(ToolResultPart { call_id: id.clone(), name: Some(name.clone()), content, is_error, extra })
    });
    let natural = natural_state(match &result {
        Some(Part::ToolResult(r)) => Some(r),
        _ => None,
    });
    match state {
        // A call with no outcome keeps its state recorded, natural or not: the writer
        // tells by it a result the repair pass added (see `writer::write_tool`).
        Some(state) if state == natural && result.is_some() => {}
        Some(state) => markers.set("state", state),
        None => markers.set("state", Value::Null),
    }
    let call = obj.into_tool_call(id, name, arguments, NAMESPACE, markers);
    Ok((call, result))
}

/// A string output or error text as content: one text part, none for `""`.
fn text_content(text: &str) -> Vec<Part> {
    if text.is_empty() {
        Vec::new()
    } else {
        vec![Part::text(text)]
    }
}
