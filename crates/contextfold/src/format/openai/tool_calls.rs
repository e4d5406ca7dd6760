//! Assistant `tool_calls` and the legacy `function_call` -> tool call parts.

use super::NAMESPACE;
use crate::format::fields::{Markers, WireObject};
use crate::format::path::JsonPath;
use crate::format::FormatError;
use crate::json_node::Node;
use crate::message::Part;

/// Prefix of the ids made up for legacy `function_call`s, which have none.
pub const LEGACY_CALL_ID_PREFIX: &str = "legacy_function_call_";

/// Pairs legacy `function_call`s with the `function` messages answering them: the wire
/// pairs them by position, the neutral model by id.
#[derive(Debug, Default)]
pub(super) struct LegacyCalls {
    pending: Option<String>,
}

impl LegacyCalls {
    /// The id of the call a `function` message at `index` answers. Without a pending
    /// call it gets an id of its own, which the chain parser reports as unmatched.
    pub(super) fn answer(&mut self, index: usize) -> String {
        self.pending.take().unwrap_or_else(|| format!("{LEGACY_CALL_ID_PREFIX}{index}"))
    }
}

pub(super) fn read_tool_calls(obj: &mut WireObject<'_>) -> Result<Vec<Part>, FormatError> {
    let path = obj.field_path("tool_calls");
    let Some(calls) = obj.nonempty_array("tool_calls")? else {
        return Ok(Vec::new());
    };
    calls.iter().enumerate().map(|(j, call)| read_tool_call(call, path.index(j))).collect()
}

/// `{id, type: "function", function: {name, arguments}}`, or a custom tool's call
/// `{id, type: "custom", custom: {name, input}}` (marked `custom`), whose free-text
/// `input` is its arguments.
fn read_tool_call(item: &Node<'_>, path: JsonPath) -> Result<Part, FormatError> {
    let mut call = WireObject::new(item, path, "a tool call")?;
    let mut markers = Markers::default();
    let id = call.required_string("id")?.to_string();
    match call.string("type")? {
        Some("function") => {}
        Some("custom") => {
            let mut custom = call.required_object("custom", "a custom tool call object")?;
            let name = custom.required_string("name")?.to_string();
            let input = custom.required_string("input")?.to_string();
            markers.set("custom", true);
            markers.nested_leftovers("customFields", &custom);
            return Ok(call.into_tool_call(id, name, input, NAMESPACE, markers));
        }
        None if call.peek("type").is_none() => markers.set("type", "absent"),
        _ => {
            return Err(call
                .field_path("type")
                .shape_error("unsupported tool call type (`function` and `custom` calls are read)"))
        }
    }
    let mut function = call.required_object("function", "a function object")?;
    let name = function.required_string("name")?.to_string();
    let arguments = function.required_string("arguments")?.to_string();
    markers.nested_leftovers("function", &function);
    Ok(call.into_tool_call(id, name, arguments, NAMESPACE, markers))
}

/// The legacy `function_call: {name, arguments}` of the message at `index`.
pub(super) fn read_function_call(
    obj: &mut WireObject<'_>,
    index: usize,
    legacy: &mut LegacyCalls,
) -> Result<Option<Part>, FormatError> {
    if matches!(obj.peek("function_call"), None | Some(Node::Null)) {
        return Ok(None);
    }
    let mut function = obj.required_object("function_call", "a function_call object")?;
    let name = function.required_string("name")?.to_string();
    let arguments = function.required_string("arguments")?.to_string();
    let id = format!("{LEGACY_CALL_ID_PREFIX}{index}");
    legacy.pending = Some(id.clone());
    let mut markers = Markers::default();
    markers.set("legacyFunctionCall", true);
    Ok(Some(function.into_tool_call(id, name, arguments, NAMESPACE, markers)))
}
