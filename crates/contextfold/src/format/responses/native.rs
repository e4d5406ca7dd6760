//! Responses API items kept verbatim: server-side tool calls (web search, file search,
//! code interpreter, image generation, MCP), provider compaction items, item references,
//! and the built-in client tools (computer, shell, local shell, apply patch, programs).
//!
//! A server-side item stands alone: it becomes a text part of the assistant turn whose
//! text is a short rendering (what summarizers read, what other formats get) and which
//! carries the item under the namespace marker `block` ([`crate::format::native_block`]).
//!
//! A built-in client tool call is answered by an output item with the same `call_id`, as a
//! function call is (a `local_shell_call_output` names its call by `id`: the call's
//! `call_id`, or the call item's `id`): the call becomes a tool call part (name: the tool,
//! arguments: its action as JSON) and the output a tool result, so that the pair is kept,
//! or summarized, together. A hosted `mcp_call` holds its call and its output in one item:
//! it reads as both, a tool call and the result right after it, so that it is measured,
//! masked and folded as any exchange is, and is written back as the one item.
//!
//! Each carries its item verbatim (a result in its own `extra`) and is written back
//! unchanged while its content is what the item says ([`output_content`]: a screenshot
//! as the image it is, so that it is measured by its area, any other output as its text).
//! A result whose content a strategy replaced (a mask placeholder, a summary) is written
//! as its own item type with that text ([`with_text`]); a screenshot cannot hold text, so
//! a computer call's output is never replaced ([`only_item_answers`]).

use super::NAMESPACE;
use crate::format::{data_url, native_block};
use crate::message::{Extra, ImagePart, Part, TextPart, ToolCallPart, ToolResultPart, NATIVE_BLOCK};
use serde_json::Value;

/// Built-in client tool calls: the item type, the tool name it is given, and the field
/// holding what it does (its arguments).
pub(super) const CLIENT_CALLS: &[(&str, &str, &str)] = &[
    ("computer_call", "computer", "action"),
    ("shell_call", "shell", "action"),
    ("apply_patch_call", "apply_patch", "operation"),
    ("program", "program", "code"),
    ("local_shell_call", "local_shell", "action"),
];

/// The output item types answering [`CLIENT_CALLS`], by `call_id`.
pub(super) const CLIENT_OUTPUTS: &[&str] = &[
    "computer_call_output",
    "shell_call_output",
    "apply_patch_call_output",
    "program_output",
    "local_shell_call_output",
];

/// A hosted MCP tool call: the call and its output in one item.
pub(super) const MCP_CALL: &str = "mcp_call";

/// Every item type of the Responses input (detection tells the format by them; the
/// reader also keeps types added later, as native blocks).
pub const ITEM_TYPES: &[&str] = &[
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "computer_call",
    "computer_call_output",
    "shell_call",
    "shell_call_output",
    "apply_patch_call",
    "apply_patch_call_output",
    "program",
    "program_output",
    "local_shell_call",
    "local_shell_call_output",
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "mcp_list_tools",
    "mcp_approval_request",
    "mcp_approval_response",
    "mcp_call",
    "tool_search_call",
    "tool_search_output",
    "additional_tools",
    "compaction",
    "compaction_trigger",
    "item_reference",
];

/// Longest rendering of one item's content, in characters.
const MAX_CHARS: usize = 600;

/// The text part standing for a server-side or otherwise opaque item.
pub(super) fn item_part(item: &Value, item_type: &str) -> Part {
    native_block::part(item, NAMESPACE, render(item, item_type))
}

/// The text part standing for a content part that maps to no native part (an image or
/// file by `file_id` only, audio, a type added later): marked `part`, so that a writer
/// puts it back among content parts rather than as an item.
pub(crate) fn content_part(part: &Value, part_type: &str) -> Part {
    let mut out = item_part(part, part_type);
    if let Part::Text(t) = &mut out {
        crate::format::fields::add_marker(&mut t.extra, NAMESPACE, CONTENT_PART, Value::Bool(true));
    }
    out
}

/// Marker of a native block that is a content part, not an item.
pub(super) const CONTENT_PART: &str = "part";

/// The item a text part stands for, when it stands for a whole item (not a content part).
pub(super) fn item_of(part: &TextPart) -> Option<&Value> {
    let markers = part.extra.get(NAMESPACE)?;
    let is_part = markers.get(CONTENT_PART).and_then(Value::as_bool) == Some(true);
    markers.get(NATIVE_BLOCK).filter(|_| !is_part)
}

/// The item a part stands for, when it carries one.
pub fn block_of(extra: &Extra) -> Option<&Value> {
    extra.get(NAMESPACE)?.get(NATIVE_BLOCK)
}

/// Whether `message` holds an `item_reference`: an item the provider stores (a call of an
/// earlier response, say), whose results may follow it without the call in the chain.
pub fn refers_to_stored_item(message: &crate::message::Message) -> bool {
    message.parts.iter().any(|p| match p {
        crate::message::Part::Text(t) => {
            item_of(t).and_then(|item| item.get("type")).and_then(Value::as_str) == Some("item_reference")
        }
        _ => false,
    })
}

/// The tool call part standing for a built-in client tool call.
pub(super) fn call_part(item: &Value, call_id: &str, name: &str, field: &str) -> Part {
    let arguments = item.get(field).map_or_else(|| "{}".to_string(), Value::to_string);
    Part::ToolCall(ToolCallPart {
        id: call_id.to_string(),
        name: name.to_string(),
        arguments,
        signature: None,
        extra: block_extra(item),
    })
}

/// The tool result standing for a built-in tool's output item (or an `mcp_call`'s
/// output): its content is what the item says ([`output_content`]), the item itself is
/// in its `extra`.
pub(super) fn output_part(item: &Value, call_id: &str, item_type: &str) -> Part {
    Part::ToolResult(ToolResultPart {
        call_id: call_id.to_string(),
        name: None,
        content: output_content(item, item_type),
        is_error: false,
        extra: block_extra(item),
    })
}

/// An `mcp_call` with an `id`: the tool call (its arguments as sent) and the result
/// holding its output, each carrying the item.
pub(super) fn mcp_parts(item: &Value) -> Option<(Part, Part)> {
    let id = item.get("id")?.as_str()?;
    let call = Part::ToolCall(ToolCallPart {
        id: id.to_string(),
        name: str_at(item, "name").to_string(),
        arguments: str_at(item, "arguments").to_string(),
        signature: None,
        extra: block_extra(item),
    });
    Some((call, output_part(item, id, MCP_CALL)))
}

/// What an output item says, as content: a screenshot (`computer_call_output` with an
/// `image_url`) as the image, anything else as its text (the item's rendering when it
/// has none: the content of a result is never empty).
pub(super) fn output_content(item: &Value, item_type: &str) -> Vec<Part> {
    let url = item.get("output").and_then(|o| o.get("image_url")).and_then(Value::as_str);
    if let (Some(url), "computer_call_output") = (url, item_type) {
        return vec![Part::Image(image_at(url))];
    }
    let text = output_text(item, item_type);
    vec![Part::text(if text.is_empty() { render(item, item_type) } else { text })]
}

/// An image at `url`, a `data:` URL split into media type and data.
fn image_at(url: &str) -> ImagePart {
    match data_url::split(url) {
        Some(d) => ImagePart {
            data: Some(d.data.to_string()),
            media_type: Some(d.media_type.to_string()),
            ..ImagePart::default()
        },
        None => ImagePart { url: Some(url.to_string()), ..ImagePart::default() },
    }
}

/// The text an output item holds.
fn output_text(item: &Value, item_type: &str) -> String {
    match item_type {
        "shell_call_output" => {
            let entries = item.get("output").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
            let streams = entries.iter().flat_map(|e| [str_at(e, "stdout"), str_at(e, "stderr")]);
            streams.filter(|s| !s.is_empty()).collect::<Vec<_>>().join("\n")
        }
        "apply_patch_call_output" | "local_shell_call_output" => readable(item, "output"),
        "program_output" => readable(item, "result"),
        MCP_CALL => match str_at(item, "output") {
            "" => str_at(item, "error").to_string(),
            _ => readable(item, "output"),
        },
        _ => found_texts(item),
    }
}

/// The item a result carries (an output item, or an `mcp_call`), and its type.
pub fn result_item(result: &ToolResultPart) -> Option<(&Value, &str)> {
    let item = block_of(&result.extra)?;
    let item_type = item.get("type")?.as_str()?;
    (CLIENT_OUTPUTS.contains(&item_type) || item_type == MCP_CALL).then_some((item, item_type))
}

/// Whether `result` still holds what its item says (nothing replaced it).
pub(super) fn unchanged(result: &ToolResultPart, item: &Value, item_type: &str) -> bool {
    result.content == output_content(item, item_type)
}

/// `item` (an output item, or an `mcp_call`) with `text` as what it says; `None` for a
/// screenshot, which no text can stand for.
pub(super) fn with_text(item: &Value, item_type: &str, text: &str) -> Option<Value> {
    // An MCP call that failed says so in `error`: the text stands there.
    let failed = str_at(item, "output").is_empty() && item.get("error").is_some_and(|e| !e.is_null());
    let mut item = item.clone();
    let map = item.as_object_mut()?;
    match item_type {
        "shell_call_output" => {
            let outcome = map
                .get("output")
                .and_then(|o| o.get(0))
                .and_then(|e| e.get("outcome"))
                .cloned()
                .unwrap_or_else(|| serde_json::json!({"type": "exit", "exit_code": 0}));
            map.insert("output".into(), serde_json::json!([{"stdout": text, "stderr": "", "outcome": outcome}]));
        }
        "apply_patch_call_output" | "local_shell_call_output" => {
            map.insert("output".into(), text.into());
        }
        "program_output" => {
            map.insert("result".into(), text.into());
        }
        MCP_CALL if failed => {
            map.insert("error".into(), text.into());
        }
        MCP_CALL => {
            map.insert("output".into(), text.into());
        }
        _ => return None,
    }
    Some(item)
}

/// Built-in client calls no text can answer without their own item: a computer call
/// wants a screenshot, a program's output an item id. Left open, they are dropped rather
/// than answered.
const TEXTLESS_OUTPUTS: &[&str] = &["computer_call", "program"];

/// The item type of the built-in client call `call` stands for, if it stands for one.
pub(super) fn client_call_type(call: &ToolCallPart) -> Option<&str> {
    let item_type = block_of(&call.extra)?.get("type")?.as_str()?;
    CLIENT_CALLS.iter().any(|(t, _, _)| *t == item_type).then_some(item_type)
}

/// Whether `call` stands for an `mcp_call`, which holds its own output.
pub(super) fn is_mcp_call(call: &ToolCallPart) -> bool {
    block_of(&call.extra).and_then(|item| item.get("type")).and_then(Value::as_str) == Some(MCP_CALL)
}

/// Whether `call` is a built-in client call that only its own output item can answer.
pub fn answered_by_item_only(call: &ToolCallPart) -> bool {
    client_call_type(call).is_some_and(|t| TEXTLESS_OUTPUTS.contains(&t))
}

/// Whether the content of `result` must stay as it is: a screenshot, or the result of a
/// call only its own output item can answer that does not carry that item. Masks and
/// summaries leave it alone.
pub fn only_item_answers(result: &ToolResultPart, call: Option<&ToolCallPart>) -> bool {
    match result_item(result) {
        Some((item, item_type)) => with_text(item, item_type, "").is_none(),
        None => call.is_some_and(answered_by_item_only),
    }
}

/// Content part types the API takes: in input messages and tool outputs, and in
/// assistant messages.
const INPUT_PARTS: &[&str] = &["input_text", "input_image", "input_file"];
const OUTPUT_PARTS: &[&str] = &["output_text", "refusal"];

/// What the API rejects in a content part read from a message of `role` (or a tool output):
/// a part type it does not know (`input_txt`), or one of the other side (output text in a
/// user message).
pub fn content_problem(role: crate::message::Role, part: &Part) -> Option<String> {
    let wire_type = match part {
        Part::Text(t) => match block_of(&t.extra) {
            Some(block) if item_of(t).is_none() => block.get("type").and_then(Value::as_str),
            Some(_) => return None,
            None => t.extra.get(NAMESPACE).and_then(|m| m.get("type")).and_then(Value::as_str),
        },
        // The writer has no assistant image or file either.
        Part::Image(_) | Part::File(_) if role == crate::message::Role::Assistant => {
            return Some(format!("the API takes no {} in assistant messages", part.kind()));
        }
        _ => None,
    }?;
    let allowed = match role {
        crate::message::Role::Assistant => OUTPUT_PARTS,
        _ => INPUT_PARTS,
    };
    let known = INPUT_PARTS.contains(&wire_type) || OUTPUT_PARTS.contains(&wire_type);
    match (allowed.contains(&wire_type), known) {
        (true, _) => None,
        (false, true) => Some(format!("the API takes no `{wire_type}` part in {} messages", role.as_str())),
        (false, false) => Some(format!("`{wire_type}` is no Responses content part type")),
    }
}

/// What repair makes of a part [`content_problem`] reports, `None` when nothing can stand in
/// for it (it goes): its words as text of the side it is on (a Chat Completions `text` or
/// `refusal`, output text in a user message), a Chat Completions `image_url` as the image
/// in an input message or tool output. The API rejects the part as it is either way.
pub fn fixed_content_part(role: crate::message::Role, part: &Part) -> Option<Part> {
    let Part::Text(t) = part else { return None };
    let Some(block) = block_of(&t.extra) else {
        // A text of the other side: the writer gives it this side's type.
        return Some(Part::text(t.text.as_str()));
    };
    let field = |key: &str| block.get(key).and_then(Value::as_str).filter(|s| !s.is_empty());
    if let Some(text) = field("text").or_else(|| field("refusal")) {
        return Some(Part::text(text));
    }
    let url = field("image_url").or_else(|| {
        block.get("image_url").and_then(|u| u.get("url")).and_then(Value::as_str).filter(|s| !s.is_empty())
    });
    match url {
        Some(url) if role != crate::message::Role::Assistant => Some(Part::Image(image_at(url))),
        _ => None,
    }
}

/// The output item type answering a built-in client call of `call_type`.
fn output_type(call_type: &str) -> String {
    match call_type {
        "program" => "program_output".to_string(),
        other => format!("{other}_output"),
    }
}

/// What is wrong when `result` answers `call` with an item the API does not take for it
/// (a computer call answered by a function output, a function call by a shell output).
pub fn output_mismatch(call: &ToolCallPart, result: &ToolResultPart) -> Option<String> {
    let wanted = client_call_type(call).map(|t| (t, output_type(t)));
    let got = result_item(result).map(|(_, t)| t).filter(|t| *t != MCP_CALL);
    match (wanted, got) {
        (Some((call_type, wanted)), Some(got)) if wanted != got => {
            Some(format!("the {call_type} {} is answered by a {got}, not a {wanted}", call.id))
        }
        (None, Some(got)) if !is_mcp_call(call) => {
            Some(format!("the function call {} is answered by a {got}, not a function_call_output", call.id))
        }
        (Some((call_type, wanted)), None) if answered_by_item_only(call) => {
            Some(format!("the {call_type} {} is answered by a function output; only a {wanted} answers it", call.id))
        }
        _ => None,
    }
}

/// The output item answering a built-in client call of `call_type` with `text` (a
/// result the item did not come with: the repair's placeholder); `None` for the calls
/// of [`TEXTLESS_OUTPUTS`].
pub(super) fn text_output(call_type: &str, call_id: &str, text: &str) -> Option<Value> {
    match call_type {
        "shell_call" => Some(serde_json::json!({
            "type": "shell_call_output",
            "call_id": call_id,
            "output": [{"stdout": "", "stderr": text, "outcome": {"type": "exit", "exit_code": 1}}],
        })),
        "apply_patch_call" => Some(serde_json::json!({
            "type": "apply_patch_call_output",
            "call_id": call_id,
            "status": "failed",
            "output": text,
        })),
        // `id`: the call's `call_id`, as the API names the call it answers.
        "local_shell_call" => Some(serde_json::json!({
            "type": "local_shell_call_output",
            "id": call_id,
            "output": text,
        })),
        _ => None,
    }
}

/// The output item a tool result stands for in the form earlier versions read (one text
/// part carrying it), when it stands for one: a native chain stored by them.
pub fn legacy_output_item(result: &ToolResultPart) -> Option<&Value> {
    match result.content.as_slice() {
        [Part::Text(TextPart { extra, .. })] => block_of(extra)
            .filter(|item| item.get("type").and_then(Value::as_str).is_some_and(|t| CLIENT_OUTPUTS.contains(&t))),
        _ => None,
    }
}

fn block_extra(item: &Value) -> Extra {
    let mut markers = serde_json::Map::new();
    markers.insert(NATIVE_BLOCK.to_string(), item.clone());
    let mut extra = Extra::new();
    extra.insert(NAMESPACE.to_string(), Value::Object(markers));
    extra
}

fn short(text: &str) -> String {
    native_block::short(text, MAX_CHARS)
}

/// The fields whose strings a rendering shows.
const TEXT_KEYS: &[&str] = &[
    "text", "output", "outputs", "stdout", "stderr", "logs", "result", "query", "queries", "error", "title", "url",
    "code", "filename",
];

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    native_block::str_at(v, key)
}

/// A string field as a summarizer may read it: inline binary data (a base64 image) as its
/// kind and size only.
fn readable(v: &Value, key: &str) -> String {
    let text = str_at(v, key);
    native_block::binary_text(text).unwrap_or_else(|| text.to_string())
}

fn found_texts(item: &Value) -> String {
    let mut found = Vec::new();
    native_block::texts(item, TEXT_KEYS, &mut found);
    found.join(" ")
}

/// What a summarizer reads of an item.
fn render(item: &Value, item_type: &str) -> String {
    match item_type {
        "web_search_call" => {
            let action = item.get("action").unwrap_or(&Value::Null);
            format!("[web search: {}]", short(&found_texts(action)))
        }
        "mcp_call" | "mcp_approval_request" => format!(
            "[{item_type} {}/{}: {}]",
            str_at(item, "server_label"),
            str_at(item, "name"),
            short(&format!("{} {}", str_at(item, "arguments"), readable(item, "output")))
        ),
        "image_generation_call" => "[image generated]".to_string(),
        "compaction" => "[earlier context, compacted by the provider]".to_string(),
        "item_reference" => format!("[earlier item {}]", str_at(item, "id")),
        "computer_call_output" => "[computer screenshot]".to_string(),
        _ => {
            // A call's name and arguments (a hosted tool's query) say what it was for.
            let (name, arguments) = (str_at(item, "name"), str_at(item, "arguments"));
            let head = match (name, arguments) {
                ("", "") => item_type.to_string(),
                (name, "") => format!("{item_type} {name}"),
                (name, arguments) => format!("{item_type} {name}({})", short(arguments)),
            };
            let body = found_texts(item);
            if body.is_empty() {
                format!("[{head}]")
            } else {
                format!("[{head}: {}]", short(&body))
            }
        }
    }
}

/// Whether `message` is a provider compaction item as read (the earlier conversation,
/// encrypted by the provider: `{type: "compaction", encrypted_content}`).
pub fn is_compaction(message: &crate::message::Message) -> bool {
    matches!(message.parts.as_slice(), [Part::Text(text)]
        if native_block::of(text, NAMESPACE).and_then(|item| item.get("type")).and_then(Value::as_str) == Some("compaction"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renders_what_a_summarizer_needs() {
        let search = json!({"type": "web_search_call", "id": "ws_1", "status": "completed",
            "action": {"type": "search", "query": "rust wasm size"}});
        assert_eq!(render(&search, "web_search_call"), "[web search: rust wasm size]");
        let shell = json!({"type": "shell_call_output", "call_id": "c", "output": [
            {"stdout": "ok\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]});
        assert_eq!(render(&shell, "shell_call_output"), "[shell_call_output: ok]");
        assert_eq!(render(&json!({"type": "compaction_trigger"}), "compaction_trigger"), "[compaction_trigger]");
        let hosted = json!({"type": "hosted", "name": "web_search_call", "arguments": "{\"query\":\"q3\"}", "output": "3 pages"});
        assert_eq!(render(&hosted, "hosted"), "[hosted web_search_call({\"query\":\"q3\"}): 3 pages]");
    }
}
