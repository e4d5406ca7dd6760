//! Between the AI SDK's two shapes (`UIMessage` <-> `ModelMessage`): the provider fields
//! `convertToModelMessages` carries from one to the other, under the other shape's name.
//! A part's `providerMetadata` is the `ModelMessage` part's `providerOptions`; a tool
//! part's `callProviderMetadata` is its call's `providerOptions`, and that of its results;
//! `providerExecuted` stays `providerExecuted`, and a provider-executed call goes, with its
//! result, into the assistant message (the provider ran it: no tool message answers it).

use crate::format::Format;
use crate::hashing::HashMap;
use crate::message::{Message, Part, Role};
use serde_json::Value;

const UI_PART: &str = "providerMetadata";
const UI_CALL: &str = "callProviderMetadata";
const UI_RESULT: &str = "resultProviderMetadata";
const MODEL: &str = "providerOptions";
const EXECUTED: &str = "providerExecuted";

/// The provider field of `part` in the AI SDK shape `format`, where its provider packages
/// keep their signatures and item ids.
pub(super) fn provider_field(format: Format, part: &Part) -> &'static str {
    match (format, part) {
        (Format::AiSdkUi, Part::ToolCall(_) | Part::ToolResult(_)) => UI_CALL,
        (Format::AiSdkUi, _) => UI_PART,
        _ => MODEL,
    }
}

/// A conversion from one AI SDK shape to the other.
pub(super) struct Shapes {
    to_model: bool,
    /// Per call id: the provider options of its results (`ModelMessage`s: those of the
    /// call, which the SDK gives its results as well).
    results: HashMap<String, Value>,
}

impl Shapes {
    /// `Some` when `from` and `to` are the AI SDK's two shapes.
    pub(super) fn new(messages: &[Message], from: Format, to: Format) -> Option<Self> {
        let to_model = match (from, to) {
            (Format::AiSdkUi, Format::AiSdk) => true,
            (Format::AiSdk, Format::AiSdkUi) => false,
            _ => return None,
        };
        let mut results = HashMap::default();
        for call in messages.iter().flat_map(Message::tool_calls) {
            let options = if to_model {
                // A provider-executed result keeps its own metadata, if it has some.
                let executed = call.extra.get(EXECUTED) == Some(&Value::Bool(true));
                executed.then(|| call.extra.get(UI_RESULT)).flatten().or_else(|| call.extra.get(UI_CALL))
            } else {
                call.extra.get(MODEL)
            };
            if let Some(options) = options {
                results.insert(call.id.clone(), options.clone());
            }
        }
        Some(Self { to_model, results })
    }

    /// Takes the fields of `part` that go over, under their names in the target shape
    /// (to be put back with [`put`] once the source's fields are cleaned away).
    pub(super) fn take(&self, part: &mut Part) -> Vec<(String, Value)> {
        let mut carried = Vec::new();
        match part {
            Part::ToolResult(result) if self.to_model => {
                if let Some(options) = self.results.get(&result.call_id) {
                    carried.push((MODEL.to_string(), options.clone()));
                }
            }
            // The SDK gives a result its call's options: nothing of its own is lost.
            Part::ToolResult(result) => {
                if result.extra.get(MODEL).is_some_and(|o| self.results.get(&result.call_id) == Some(o)) {
                    result.extra.shift_remove(MODEL);
                }
            }
            Part::ToolCall(call) => {
                let (options, from) = if self.to_model { (MODEL, UI_CALL) } else { (UI_CALL, MODEL) };
                carried.extend(call.extra.shift_remove(from).map(|v| (options.to_string(), v)));
                if let Some(executed) = call.extra.shift_remove(EXECUTED) {
                    if self.to_model && executed == Value::Bool(true) {
                        // Its result's, carried there.
                        call.extra.shift_remove(UI_RESULT);
                    }
                    carried.push((EXECUTED.to_string(), executed));
                }
            }
            other => {
                let (to, from) = if self.to_model { (MODEL, UI_PART) } else { (UI_PART, MODEL) };
                carried.extend(other.extra_mut().shift_remove(from).map(|v| (to.to_string(), v)));
            }
        }
        carried
    }

    /// `UIMessage`s -> `ModelMessage`s: each provider-executed call and its result as the
    /// SDK's own parts in the assistant message, the result taken out of its tool message
    /// (left empty, the repair pass removes that).
    pub(super) fn place_provider_executed(&self, messages: &mut [Message]) {
        if !self.to_model {
            return;
        }
        for index in 0..messages.len() {
            let Some((head, tail)) = messages.split_at_mut_checked(index.saturating_add(1)) else { continue };
            let Some(message) = head.last_mut().filter(|m| m.role == Role::Assistant) else { continue };
            let mut parts = Vec::with_capacity(message.parts.len());
            for part in std::mem::take(&mut message.parts) {
                let executed = match &part {
                    Part::ToolCall(call) => call.extra.get(EXECUTED) == Some(&Value::Bool(true)),
                    _ => false,
                };
                if !executed {
                    parts.push(part);
                    continue;
                }
                let result = match (&part, tail.first_mut().filter(|m| m.role == Role::Tool)) {
                    (Part::ToolCall(call), Some(tool)) => take_result(tool, &call.id),
                    _ => None,
                };
                match crate::format::aisdk::provider_executed(&part, result.as_ref()) {
                    Ok(kept) => parts.extend(kept),
                    // Not writable as the SDK's parts (arguments not JSON): left as they
                    // are, for the writer to report.
                    Err(_) => {
                        parts.push(part);
                        if let (Some(result), Some(tool)) = (result, tail.first_mut()) {
                            tool.parts.push(result);
                        }
                    }
                }
            }
            message.parts = parts;
        }
    }
}

/// The result answering `call_id`, taken out of `tool`.
fn take_result(tool: &mut Message, call_id: &str) -> Option<Part> {
    let at = tool.parts.iter().position(|p| matches!(p, Part::ToolResult(r) if r.call_id == call_id))?;
    Some(tool.parts.remove(at))
}

/// Puts back the fields [`Shapes::take`] took.
pub(super) fn put(part: &mut Part, carried: Vec<(String, Value)>) {
    part.extra_mut().extend(carried);
}
