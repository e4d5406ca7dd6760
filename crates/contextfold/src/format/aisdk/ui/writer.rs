//! Native [`Message`]s -> AI SDK `UIMessage`s (see the module doc of [`super`]).

use super::{natural_state, state_fits, FILE_ANY, IMAGE_ANY, STEP_START};
use crate::format::aisdk::NAMESPACE;
use crate::format::path::JsonPath;
use crate::format::wire::{object, Restore};
use crate::format::FormatError;
use crate::hashing::{HashMap, HashSet};
use crate::message::{Extra, Message, Part, Role, ToolCallPart, ToolResultPart};
use serde_json::{Map, Value};

/// A `UIMessage` being written.
struct UiMessage {
    fields: Map<String, Value>,
    id: Option<Value>,
    /// Whether `id` is one of ours (`msg-<n>`): a step kept with its `UIMessage`'s own id
    /// gives it that one.
    fresh: bool,
    role: Role,
    parts: Vec<Value>,
}

/// Where a call's tool part was written, to put its result in later.
struct Slot<'a> {
    message: usize,
    part: usize,
    call: &'a ToolCallPart,
    path: JsonPath,
}

/// Writes messages as an array of AI SDK `UIMessage`s.
pub fn write(messages: &[Message]) -> Result<Value, FormatError> {
    let root = JsonPath::root();
    let mut writer = UiWriter {
        taken: messages.iter().filter_map(|m| m.extra.get("id").and_then(Value::as_str)).collect(),
        out: Vec::new(),
        open: HashMap::default(),
        current: None,
        after_results: false,
    };
    for (i, message) in messages.iter().enumerate() {
        let path = root.index(i);
        if message.role == Role::Tool {
            writer.results(message, &path.key("parts"))?;
        } else {
            writer.turn(message, &path.key("parts"))?;
        }
    }
    Ok(writer.finish())
}

/// The `UIMessage`s written so far, and what the next message needs to know of them.
struct UiWriter<'a> {
    /// Message ids in use: fresh ids avoid them.
    taken: HashSet<&'a str>,
    out: Vec<UiMessage>,
    /// Calls written whose result has not come yet, by id.
    open: HashMap<&'a str, Slot<'a>>,
    /// The assistant `UIMessage` a following assistant step may continue.
    current: Option<usize>,
    /// Whether the previous message was a tool message (its results end the step).
    after_results: bool,
}

impl<'a> UiWriter<'a> {
    /// A tool message: each result goes into the tool part of the call it answers.
    fn results(&mut self, message: &'a Message, parts_path: &JsonPath) -> Result<(), FormatError> {
        for (j, part) in message.parts.iter().enumerate() {
            let part_path = parts_path.index(j);
            let Part::ToolResult(result) = part else {
                return Err(part_path.unwritable(format!(
                    "a `{}` part cannot be written from a tool message: UIMessages carry only tool results there",
                    part.kind()
                )));
            };
            let Some(slot) = self.open.remove(result.call_id.as_str()) else {
                return Err(part_path.unwritable(format!(
                    "the result for {} answers no call written before it: a UIMessage keeps a result in its call's tool part",
                    result.call_id
                )));
            };
            let written = write_tool(&slot.path, slot.call, Some((result, &part_path)))?;
            if let Some(target) = self.out.get_mut(slot.message).and_then(|m| m.parts.get_mut(slot.part)) {
                *target = written;
            }
        }
        self.after_results = true;
        Ok(())
    }

    /// A user, system or assistant message: a new `UIMessage`, or the next step of the
    /// current assistant one.
    fn turn(&mut self, message: &'a Message, parts_path: &JsonPath) -> Result<(), FormatError> {
        let restore = Restore::new(&message.extra, NAMESPACE);
        let continues = message.role == Role::Assistant
            && self.current.is_some()
            && match restore.marker_str("turn") {
                Some("new") => false,
                Some("step") => true,
                _ => self.after_results,
            };
        let index = match (continues, self.current) {
            (true, Some(index)) => index,
            _ => {
                self.out.push(UiMessage {
                    fields: Map::new(),
                    id: None,
                    fresh: false,
                    role: message.role,
                    parts: Vec::new(),
                });
                self.out.len().saturating_sub(1)
            }
        };
        let no_id = restore.marker_flag("noId");
        let verbatim = restore.marker("uiParts").cloned();
        let of = restore.marker_object("of").cloned();
        let mut fields = restore.into_fields();
        // Whether this message gives the `UIMessage` its fields: it opens one, or
        // continues one with an id of ours (a summary of the steps before it).
        let gives = !continues || self.out.get(index).is_some_and(|ui| ui.fresh);
        if gives && !fields.contains_key("id") {
            // A later step of a `UIMessage` whose first step is gone: its id (unless a
            // message written or kept has it) and its other fields.
            for (k, v) in of.into_iter().flatten() {
                let free = |id: &Value| {
                    id.as_str().is_some_and(|id| !self.taken.contains(id))
                        && !self.out.iter().any(|ui| ui.id.as_ref() == Some(id))
                };
                if k != "id" || free(&v) {
                    fields.entry(k).or_insert(v);
                }
            }
        }
        if let Some(ui) = self.out.get_mut(index) {
            match fields.get("id") {
                Some(id) if gives => {
                    ui.id = Some(id.clone());
                    ui.fresh = false;
                }
                None if !continues && !no_id => {
                    ui.id = Some(Value::from(fresh_id(index, &mut self.taken)));
                    ui.fresh = true;
                }
                _ => {}
            }
            for (k, v) in fields {
                ui.fields.entry(k).or_insert(v);
            }
        }
        let step = step_parts(message, parts_path, verbatim)?;
        if let Some(ui) = self.out.get_mut(index) {
            for (value, call) in step {
                if let Some((call, path)) = call {
                    self.open.insert(call.id.as_str(), Slot { message: index, part: ui.parts.len(), call, path });
                }
                ui.parts.push(value);
            }
        }
        self.current = (message.role == Role::Assistant).then_some(index);
        self.after_results = false;
        Ok(())
    }

    fn finish(self) -> Value {
        let written = self
            .out
            .into_iter()
            .map(|ui| {
                let mut mapped = Map::new();
                if let Some(id) = ui.id {
                    mapped.insert("id".into(), id);
                }
                mapped.insert("role".into(), ui.role.as_str().into());
                mapped.insert("parts".into(), Value::Array(ui.parts));
                for (k, v) in ui.fields {
                    mapped.entry(k).or_insert(v);
                }
                Value::Object(mapped)
            })
            .collect();
        Value::Array(written)
    }
}

/// A written part, with the call it holds (to put its result in later).
type StepPart<'a> = (Value, Option<(&'a ToolCallPart, JsonPath)>);

/// The parts of one step: the message's parts, then the verbatim ones (marker `uiParts`,
/// or a `step-start` for an assistant step) at their positions.
fn step_parts<'a>(
    message: &'a Message,
    parts_path: &JsonPath,
    verbatim: Option<Value>,
) -> Result<Vec<StepPart<'a>>, FormatError> {
    let mut step: Vec<StepPart<'a>> = Vec::with_capacity(message.parts.len());
    for (j, part) in message.parts.iter().enumerate() {
        let part_path = parts_path.index(j);
        match part {
            Part::ToolCall(call) if message.role == Role::Assistant => {
                step.push((write_tool(&part_path, call, None)?, Some((call, part_path))));
            }
            other => {
                if let Some(value) = write_part(&part_path, other, message.role)? {
                    step.push((value, None));
                }
            }
        }
    }
    let verbatim = match verbatim {
        Some(Value::Array(items)) => items,
        _ if message.role == Role::Assistant => {
            vec![Value::Array(vec![Value::from(0), object([("type", STEP_START.into())]).into()])]
        }
        _ => Vec::new(),
    };
    for entry in verbatim {
        let (Some(at), Some(part)) = (entry.get(0).and_then(Value::as_u64), entry.get(1)) else {
            continue;
        };
        let at = usize::try_from(at).unwrap_or(usize::MAX).min(step.len());
        step.insert(at, (part.clone(), None));
    }
    Ok(step)
}

/// `msg-<n>`, or the first free `msg-<n>-<k>`.
fn fresh_id(index: usize, taken: &mut HashSet<&str>) -> String {
    let base = format!("msg-{index}");
    let mut id = base.clone();
    let mut k = 0usize;
    while taken.contains(id.as_str()) {
        k = k.saturating_add(1);
        id = format!("{base}-{k}");
    }
    id
}

/// A text, reasoning, image or file part; `None` for reasoning with no text to write
/// (redacted data only).
fn write_part(path: &JsonPath, part: &Part, role: Role) -> Result<Option<Value>, FormatError> {
    let written = match part {
        Part::Text(text) => match super::blocks::of(text) {
            Some(block) => block.clone(),
            None => crate::format::aisdk::writer::text_value(text),
        },
        Part::Reasoning(reasoning) => match crate::format::aisdk::writer::reasoning_value(reasoning) {
            Some(value) => value,
            None => return Ok(None),
        },
        Part::Image(image) => write_file(path, &image.extra, &image.url, &image.data, &image.media_type, &None, true)?,
        Part::File(file) => write_file(path, &file.extra, &file.url, &file.data, &file.media_type, &file.name, false)?,
        Part::ToolCall(_) | Part::ToolResult(_) => {
            let what = if matches!(part, Part::ToolCall(_)) { "assistant" } else { "tool" };
            return Err(path.unwritable(format!(
                "a `{}` part cannot be written in a {} UIMessage (only in an {what} message)",
                part.kind(),
                role.as_str()
            )));
        }
    };
    Ok(Some(written))
}

fn write_file(
    path: &JsonPath,
    extra: &Extra,
    url: &Option<String>,
    data: &Option<String>,
    media_type: &Option<String>,
    name: &Option<String>,
    image: bool,
) -> Result<Value, FormatError> {
    let restore = Restore::new(extra, NAMESPACE);
    let default = if image { IMAGE_ANY } else { FILE_ANY };
    let url = match (url, data) {
        (Some(url), _) => url.clone(),
        (None, Some(data)) => format!("data:{};base64,{data}", media_type.as_deref().unwrap_or(default)),
        (None, None) => {
            return Err(path.unwritable("an image or file needs a URL or data to be written as a UIMessage part"))
        }
    };
    let mut mapped = object([("type", "file".into())]);
    match media_type {
        Some(media_type) => {
            mapped.insert("mediaType".into(), media_type.as_str().into());
        }
        None if restore.marker_flag("noMediaType") => {}
        None => {
            mapped.insert("mediaType".into(), default.into());
        }
    }
    if let Some(name) = name {
        mapped.insert("filename".into(), name.as_str().into());
    }
    mapped.insert("url".into(), url.into());
    Ok(restore.finish(mapped))
}

/// A `tool-<name>` or `dynamic-tool` part for a call and its result, if any.
fn write_tool(
    path: &JsonPath,
    call: &ToolCallPart,
    result: Option<(&ToolResultPart, &JsonPath)>,
) -> Result<Value, FormatError> {
    let mut restore = Restore::new(&call.extra, NAMESPACE);
    let mut mapped = if restore.marker_flag("dynamic") {
        object([("type", "dynamic-tool".into()), ("toolName", call.name.as_str().into())])
    } else {
        object([("type", format!("tool-{}", call.name).into())])
    };
    mapped.insert("toolCallId".into(), call.id.as_str().into());
    // A call read with no outcome that has a result now got it from the repair pass,
    // because a user message came after it. `convertToModelMessages` leaves a call awaiting
    // approval out before the last user message: it stays as the SDK holds it (as an
    // outcome, its `approval` would claim an answer never given). Any other pending call
    // (`input-streaming` the user stopped, `input-available`, approved
    // `approval-responded`) gets the repair's answer as an error, the call did not run:
    // read back, it is answered, as the repair said.
    let recorded = restore.marker_str("state");
    let left_out = recorded == Some("approval-requested");
    let result = result.filter(|_| !left_out);
    let late = result.is_some_and(|(r, _)| !super::is_denial(r))
        && matches!(recorded, Some("input-streaming" | "input-available" | "approval-responded"));
    let natural = if late { "output-error" } else { natural_state(result.map(|(r, _)| r)) };
    match restore.marker("state") {
        Some(Value::Null) if !late => {}
        Some(Value::String(state)) if !late && state_fits(state, result.map(|(r, _)| r)) => {
            mapped.insert("state".into(), state.as_str().into());
        }
        _ => {
            mapped.insert("state".into(), natural.into());
        }
    }
    match tool_input(path, call, &restore)? {
        Some(input) => {
            mapped.insert("input".into(), input);
        }
        // A call stopped before any input streamed: a call with an outcome has one.
        None if late => {
            mapped.insert("input".into(), Value::Object(Map::new()));
        }
        None => {}
    }
    if let Some((result, result_path)) = result {
        let result_restore = Restore::new(&result.extra, NAMESPACE);
        write_outcome(&mut mapped, result, result_path, &result_restore, late)?;
        restore.absorb(result_restore.into_fields());
    }
    Ok(restore.finish(mapped))
}

/// A call's `input`: the original one while the arguments are still its compact JSON,
/// else the arguments read as JSON (`{}` for none, unless the part had no `input`).
fn tool_input(path: &JsonPath, call: &ToolCallPart, restore: &Restore<'_>) -> Result<Option<Value>, FormatError> {
    let kept = restore
        .marker("input")
        .filter(|input| serde_json::to_string(input).ok().as_deref() == Some(call.arguments.as_str()));
    Ok(match kept {
        Some(input) => Some(input.clone()),
        None if call.arguments.trim().is_empty() && restore.marker_flag("noInput") => None,
        None if call.arguments.trim().is_empty() => Some(Value::Object(Map::new())),
        None => Some(serde_json::from_str(&call.arguments).map_err(|e| {
            path.key("arguments")
                .unwritable(format!("tool call arguments must be JSON to be written as a UIMessage `input`: {e}"))
        })?),
    })
}

/// A result in its call's tool part: `errorText` for an error (or `as_error`), else
/// `output`.
fn write_outcome(
    mapped: &mut Map<String, Value>,
    result: &ToolResultPart,
    result_path: &JsonPath,
    result_restore: &Restore<'_>,
    as_error: bool,
) -> Result<(), FormatError> {
    let text = output_text(result, result_path)?;
    let denied = result_restore.marker_flag("denied")
        && matches!(mapped.get("state").and_then(Value::as_str), Some("output-denied" | "approval-responded"));
    if denied {
        // The text was read from `approval` (kept in the call's fields) or is ours.
    } else if result.is_error || as_error {
        if !(text.is_empty() && result_restore.marker_flag("noErrorText")) {
            mapped.insert("errorText".into(), text.into());
        }
    } else if let Some(output) = output_value(text, result_restore) {
        mapped.insert("output".into(), output);
    }
    Ok(())
}

/// The text of a result: a `UIMessage` tool output is JSON, so it holds no media.
fn output_text(result: &ToolResultPart, result_path: &JsonPath) -> Result<String, FormatError> {
    let mut texts = Vec::with_capacity(result.content.len());
    for (k, part) in result.content.iter().enumerate() {
        match part {
            Part::Text(t) => texts.push(t.text.as_str()),
            other => {
                return Err(result_path.key("content").index(k).unwritable(format!(
                    "a `{}` part cannot be written in a UIMessage tool output, which is JSON",
                    other.kind()
                )))
            }
        }
    }
    Ok(texts.join("\n"))
}

/// The `output` of a result's text: the JSON it was read from (the original value while
/// the text is still its compact JSON), none when it had none, else the text.
fn output_value(text: String, result_restore: &Restore<'_>) -> Option<Value> {
    match result_restore.marker_str("output") {
        Some("absent") if text.is_empty() => None,
        Some("json" | "error-json") => {
            let same = |v: &&Value| serde_json::to_string(v).ok().as_deref() == Some(text.as_str());
            match result_restore.marker("value").filter(same) {
                Some(value) => Some(value.clone()),
                None => Some(serde_json::from_str::<Value>(&text).unwrap_or_else(|_| Value::from(text.clone()))),
            }
        }
        _ => Some(Value::from(text)),
    }
}
