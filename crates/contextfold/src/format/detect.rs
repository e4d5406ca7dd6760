//! Telling the formats apart by their shape.
//!
//! Every message is matched against every format and the formats all messages fit are
//! kept:
//! - a message with `parts` is native (roles system/user/assistant/tool, parts typed
//!   `text`, `reasoning`, `image`, `file`, `toolCall`, `toolResult`), a Gemini content
//!   (roles `user` / `model`, parts without `type`) or an AI SDK `UIMessage` (a string
//!   `id`, roles system/user/assistant, parts typed `text`, `reasoning`, `file`,
//!   `step-start`, `tool-<name>`, `dynamic-tool`, `source-*`, `data-*`);
//! - a LangChain message is `{type, data}` (`toDict`) or `{lc: 1, type: "constructor",
//!   id, kwargs}` (`toJSON`);
//! - roles `developer`, `function`, the fields `tool_calls`, `tool_call_id`,
//!   `function_call`, `reasoning_content`, `name`, `refusal`, `audio`, a `null` or
//!   missing `content`, and `image_url` / `input_audio` / `refusal` parts and `file`
//!   parts with a `file` object are OpenAI only;
//! - `tool_use`, `tool_result`, `thinking`, `image` with a `source`, `document` and the
//!   other Anthropic block types are Anthropic only;
//! - a message-level `type` (`function_call`, `reasoning`, `web_search_call`, `message`,
//!   ... every Responses item type), `input_text` / `output_text` / `input_image` /
//!   `input_file` parts and an `{id}` item reference are OpenAI Responses only; string
//!   content and `refusal` / `input_audio` parts fit it too;
//! - `tool-call`, `tool-result`, `reasoning` parts, `image` parts with an `image` field,
//!   `file` parts with `data`, `providerOptions` on a message or a `text` part and `tool`
//!   messages with a part array are AI SDK `ModelMessage` only;
//! - `system` messages with a string content fit OpenAI, Anthropic (a leading system
//!   message inside `messages`) and the AI SDK; `tool` messages with a string content
//!   fit OpenAI and the AI SDK;
//!   `user` / `assistant` messages with a string content or `text` parts fit OpenAI,
//!   Anthropic and the AI SDK.
//!
//! When several formats fit every message, the first of OpenAI, OpenAI Responses,
//! Anthropic, AI SDK, AI SDK UI, native, Gemini is picked. A plain text chat is therefore read as OpenAI:
//! every reader turns it into the very same parts (only the namespace of restoration
//! markers would differ), so the choice merely decides which format a writer answers in,
//! and OpenAI's is the shape most text chats come in. An empty array is OpenAI for the
//! same reason; `UIMessage`s (which have ids) win over native messages, and native over
//! Gemini (`{role: "user", parts: []}` fits both). An object is a request: `{messages}`
//! an OpenAI Chat or an Anthropic one, as its messages tell, else its fields and model
//! ([`request_format`]); `{systemInstruction, contents}` a Gemini one, `{instructions,
//! input}` a Responses one.

use super::fields::json_kind;
use super::path::JsonPath;
use super::{Format, FormatError, RequestFields};
use crate::json_node::{Node, Object};
use serde_json::{Map, Value};

/// Detects the format of `value` (an array of messages, or a request object). The first
/// message that fits no format, or none the earlier messages fit, is named in an
/// [`FormatError::UnknownFormat`].
pub fn detect(value: &Value) -> Result<Format, FormatError> {
    let root = JsonPath::root();
    match value {
        Value::Array(items) => {
            let fits = common_fits(items, &root, Fits::ALL)?;
            Ok(fits.pick().unwrap_or(Format::OpenAi))
        }
        Value::Object(request) => {
            let input_is_string = request.get("input").is_some_and(Value::is_string);
            let has = |key: &str| request.contains_key(key);
            match request_list(has, input_is_string) {
                Some(key) => {
                    let model = request.get("model").and_then(Value::as_str);
                    let prefer = request_format(key, has, model);
                    let fits = request_fits(request, key, &root, request_fits_of(key, prefer))?;
                    Ok(fits.pick_preferring(prefer))
                }
                None if input_is_string => Ok(Format::OpenAiResponses),
                None => Err(no_chain(value)),
            }
        }
        other => Err(no_chain(other)),
    }
}

fn no_chain(value: &Value) -> FormatError {
    JsonPath::root().unknown_format(format!(
        "expected an array of messages (or a request object: OpenAI Chat {{model, messages}}, Anthropic {{system, messages}}, Gemini {{systemInstruction, contents}}, OpenAI Responses {{instructions, input}}), found {}",
        json_kind(value)
    ))
}

/// The bit of `format`.
fn fits_of(format: Format) -> Fits {
    ORDER.iter().find(|(_, f, _)| *f == format).map_or(Fits::NONE, |(bit, _, _)| *bit)
}

fn request_fits(request: &Map<String, Value>, key: &str, root: &JsonPath, fits: Fits) -> Result<Fits, FormatError> {
    let path = root.key(key);
    let gemini = key == RequestFields::GEMINI.messages;
    let items = match request.get(key) {
        Some(Value::Array(items)) if !(gemini && super::gemini::holds_parts(items)) => items,
        // The genai SDK's `contents` may be one content, one part, a string or a list of
        // parts (the reader checks them).
        Some(Value::String(_) | Value::Object(_) | Value::Array(_)) if gemini => return Ok(Fits::GEMINI),
        _ => return Err(path.unknown_format(format!("`{key}` of a request object must be an array"))),
    };
    common_fits(items, &path, fits)
}

/// The formats the list under `key` of a request object may be in: a `messages` list is
/// OpenAI Chat's or Anthropic's (its messages tell which, or else `prefer`).
fn request_fits_of(key: &str, prefer: Format) -> Fits {
    if key == RequestFields::OPENAI.messages {
        Fits::OPENAI.or(Fits::ANTHROPIC)
    } else {
        fits_of(prefer)
    }
}

/// The formats a message may belong to, one bit each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fits(u8);

/// Every format, in the order [`Fits::pick`] prefers them, with its name for errors.
const ORDER: [(Fits, Format, &str); 8] = [
    (Fits::OPENAI, Format::OpenAi, "OpenAI"),
    (Fits::RESPONSES, Format::OpenAiResponses, "OpenAI Responses"),
    (Fits::ANTHROPIC, Format::Anthropic, "Anthropic"),
    (Fits::AISDK, Format::AiSdk, "AI SDK"),
    (Fits::AISDK_UI, Format::AiSdkUi, "AI SDK UI"),
    (Fits::NATIVE, Format::Native, "native"),
    (Fits::GEMINI, Format::Gemini, "Gemini"),
    (Fits::LANGCHAIN, Format::LangChain, "LangChain"),
];

impl Fits {
    /// `prefer` when it is among these, else [`Fits::pick`]'s (OpenAI when none).
    fn pick_preferring(self, prefer: Format) -> Format {
        if !self.and(fits_of(prefer)).is_empty() {
            prefer
        } else {
            self.pick().unwrap_or(Format::OpenAi)
        }
    }

    const NONE: Fits = Fits(0);
    const NATIVE: Fits = Fits(1);
    const OPENAI: Fits = Fits(2);
    const ANTHROPIC: Fits = Fits(4);
    const GEMINI: Fits = Fits(8);
    const AISDK: Fits = Fits(16);
    const AISDK_UI: Fits = Fits(32);
    const LANGCHAIN: Fits = Fits(64);
    const RESPONSES: Fits = Fits(128);
    const ALL: Fits = Fits(255);
    /// Text chat messages: OpenAI, Anthropic and AI SDK alike.
    const CHAT: Fits = Fits(2 | 4 | 16);

    fn and(self, other: Fits) -> Fits {
        Fits(self.0 & other.0)
    }

    fn or(self, other: Fits) -> Fits {
        Fits(self.0 | other.0)
    }

    fn without(self, other: Fits) -> Fits {
        Fits(self.0 & !other.0)
    }

    fn has(self, other: Fits) -> bool {
        self.0 & other.0 != 0
    }

    fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The preferred format among those that fit (see the module doc).
    fn pick(self) -> Option<Format> {
        ORDER.iter().find(|(bit, _, _)| self.has(*bit)).map(|(_, format, _)| *format)
    }

    fn describe(self) -> String {
        let names: Vec<&str> = ORDER.iter().filter(|(bit, _, _)| self.has(*bit)).map(|(_, _, name)| *name).collect();
        names.join(" or ")
    }
}

/// The detection of a message array that grows (a session's): the formats every message
/// so far fits, narrowed as messages come, so that it always answers what [`detect`]
/// answers for the whole array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detector(Fits);

impl Default for Detector {
    fn default() -> Self {
        Detector(Fits::ALL)
    }
}

impl Detector {
    /// Narrows to the formats `items` fit too. An item that fits none of them is an error
    /// (its path counts from the first of `items`) and leaves the detector as it was.
    pub fn add(&mut self, items: &[Value]) -> Result<(), FormatError> {
        self.0 = common_fits(items, &JsonPath::root(), self.0)?;
        Ok(())
    }

    /// The format picked for the messages so far.
    pub fn format(&self) -> Format {
        self.0.pick().unwrap_or(Format::OpenAi)
    }
}

/// [`detect`] of a message list met one element at a time (a list parsed as it is read):
/// the same format, and the same error at the same element.
#[derive(Debug, Clone)]
pub struct ListDetector {
    common: Fits,
    start: Fits,
    /// The list's path: the root, or a request's list field.
    path: JsonPath,
    /// A request's format when its messages fit more than one.
    prefer: Option<Format>,
}

impl ListDetector {
    /// For a bare message array.
    pub fn array() -> ListDetector {
        ListDetector { common: Fits::ALL, start: Fits::ALL, path: JsonPath::root(), prefer: None }
    }

    /// For the list of a request object under `key`, in `prefer` when its messages fit
    /// more than one format (see [`request_list`] and [`request_format`]).
    pub fn request(prefer: Format, key: &str) -> ListDetector {
        let start = request_fits_of(key, prefer);
        ListDetector { common: start, start, path: JsonPath::root().key(key), prefer: Some(prefer) }
    }

    /// Narrows to the formats the element at `index` fits too.
    pub fn push(&mut self, index: usize, item: &Node<'_>) -> Result<(), FormatError> {
        self.common = narrow(self.common, self.start, item, &self.path, index)?;
        Ok(())
    }

    /// The format picked for the elements so far.
    pub fn format(&self) -> Format {
        match self.prefer {
            Some(prefer) => self.common.pick_preferring(prefer),
            None => self.common.pick().unwrap_or(Format::OpenAi),
        }
    }

    /// Whether one format alone is left: later elements can then only fit it or fail.
    pub fn settled(&self) -> bool {
        self.common.0.count_ones() == 1
    }
}

/// What [`detect`] tells of a request object from its keys alone (`has`), and whether its
/// `input` is a string: the key of its message list. `None` when it holds no list (an
/// `input` string, or no request at all).
pub fn request_list(has: impl Fn(&str) -> bool, input_is_string: bool) -> Option<&'static str> {
    [RequestFields::OPENAI.messages, RequestFields::GEMINI.messages, RequestFields::RESPONSES.messages]
        .into_iter()
        .find(|key| has(key) && !(*key == RequestFields::RESPONSES.messages && input_is_string))
}

/// Fields only an Anthropic Messages request has.
const ANTHROPIC_REQUEST_FIELDS: &[&str] = &[
    "system",
    "stop_sequences",
    "top_k",
    "thinking",
    "anthropic_version",
    "container",
    "mcp_servers",
    "context_management",
];
/// Fields only an OpenAI Chat Completions request has (OpenAI-compatible APIs take them too).
const OPENAI_REQUEST_FIELDS: &[&str] = &[
    "max_completion_tokens",
    "n",
    "response_format",
    "frequency_penalty",
    "presence_penalty",
    "logprobs",
    "top_logprobs",
    "logit_bias",
    "seed",
    "stream_options",
    "reasoning_effort",
    "modalities",
    "audio",
    "store",
    "parallel_tool_calls",
    "prediction",
    "web_search_options",
    "verbosity",
    "functions",
    "function_call",
    "user",
];

/// The format of a request object's list under `key` when its messages fit more than one:
/// for `messages`, Anthropic when a field only Anthropic has or a `claude` model says so
/// (or when nothing tells, as a request without a model), else OpenAI Chat, whose shape
/// most APIs take (`anthropic/claude-...` through such an API included).
pub fn request_format(key: &str, has: impl Fn(&str) -> bool, model: Option<&str>) -> Format {
    if key == RequestFields::GEMINI.messages {
        return Format::Gemini;
    }
    if key == RequestFields::RESPONSES.messages {
        return Format::OpenAiResponses;
    }
    if ANTHROPIC_REQUEST_FIELDS.iter().any(|k| has(k)) {
        return Format::Anthropic;
    }
    if OPENAI_REQUEST_FIELDS.iter().any(|k| has(k)) {
        return Format::OpenAi;
    }
    match model {
        Some(model) if !model.starts_with("claude") => Format::OpenAi,
        _ => Format::Anthropic,
    }
}

/// The formats every message fits, starting from `start`.
fn common_fits(items: &[Value], path: &JsonPath, start: Fits) -> Result<Fits, FormatError> {
    items.iter().enumerate().try_fold(start, |common, (i, item)| narrow(common, start, &Node::of(item), path, i))
}

/// `common` narrowed to the formats `item` (at `index` of the list at `list`) fits too;
/// an error when none is left. (The item's path is made for an error only: the others
/// were a tenth of reading a large chain.)
fn narrow(common: Fits, start: Fits, item: &Node<'_>, list: &JsonPath, index: usize) -> Result<Fits, FormatError> {
    let fits = classify(item)
        .map_err(|why| list.index(index).unknown_format(format!("this message fits no known format: {why}")))?;
    let both = common.and(fits);
    if both.is_empty() {
        let at = list.index(index);
        let expected = if start == Fits::ALL { "earlier messages" } else { "a request object" };
        let fits = if fits.and(start).is_empty() { fits } else { fits.and(start) };
        return Err(at.unknown_format(format!(
            "this message is {} but {expected} are {}",
            fits.describe(),
            common.describe()
        )));
    }
    Ok(both)
}

/// Item types of the OpenAI Agents SDK's protocol that the Responses API does not have:
/// named in the error, which points at the adapter for them.
const AGENTS_ITEMS: &[&str] = &["function_call_result", "hosted_tool_call", "computer_call_result"];

/// Message fields only OpenAI has.
const OPENAI_FIELDS: &[&str] =
    &["tool_calls", "tool_call_id", "function_call", "reasoning_content", "name", "refusal", "audio"];

/// Block types only Anthropic has, besides its native blocks
/// ([`super::anthropic::NATIVE_BLOCKS`]). `image` is told apart from the AI SDK's by its
/// fields.
const ANTHROPIC_BLOCKS: &[&str] = &["document", "tool_use", "tool_result", "thinking", "redacted_thinking"];

/// Responses content part types (besides `refusal` and `input_audio`, which OpenAI Chat
/// has too).
const RESPONSES_PARTS: &[&str] = &["input_text", "output_text", "input_image", "input_file"];

/// OpenAI part types; `file` is told apart from the AI SDK's by its fields.
const OPENAI_PARTS: &[&str] = &["image_url", "input_audio"];

/// AI SDK `ModelMessage` part types (besides `text`, `image` and `file`).
const AISDK_PARTS: &[&str] = &[
    "reasoning",
    "reasoning-file",
    "custom",
    "tool-call",
    "tool-result",
    "tool-approval-request",
    "tool-approval-response",
];

/// Native part types.
const NATIVE_PARTS: &[&str] = &["text", "reasoning", "image", "file", "toolCall", "toolResult"];

/// AI SDK `UIMessage` part types (besides `tool-<name>` and `data-<name>`).
const UI_PARTS: &[&str] = &[
    "text",
    "reasoning",
    "file",
    "step-start",
    "dynamic-tool",
    "source-url",
    "source-document",
    // `ai` 7: kept verbatim by the reader, as every part it does not map.
    "reasoning-file",
    "custom",
    "steering-message",
];

/// LangChain `toDict` message types.
const LANGCHAIN_TYPES: &[&str] = &[
    "human",
    "ai",
    "tool",
    "system",
    "chat",
    "function",
    "developer",
    "HumanMessageChunk",
    "AIMessageChunk",
    "ToolMessageChunk",
    "SystemMessageChunk",
];

/// The formats one message fits, or why it fits none.
fn classify(message: &Node<'_>) -> Result<Fits, String> {
    let Node::Object(fields) = message else {
        return Err(format!("expected an object, found {}", json_kind(message)));
    };
    if let Some(fits) = classify_langchain(fields) {
        return fits;
    }
    if fields.contains_key("parts") {
        return classify_parts_message(fields);
    }
    let item_type = fields.get("type").and_then(Node::as_str);
    if let Some(item_type) = item_type.filter(|t| *t != "message") {
        return if super::responses::native::ITEM_TYPES.contains(&item_type) {
            Ok(Fits::RESPONSES)
        } else if AGENTS_ITEMS.contains(&item_type) {
            Err(format!(
                "unknown item type `{item_type}`: an OpenAI Agents SDK item (its own protocol, not the Responses API's); compact those with `contextfold/openai-agents`"
            ))
        } else {
            Err(format!("unknown item type `{item_type}`"))
        };
    }
    let Some(role) = fields.get("role").and_then(Node::as_str) else {
        // A Responses item reference: `{id}` alone.
        if fields.len() == 1 && fields.get("id").is_some_and(Node::is_string) {
            return Ok(Fits::RESPONSES);
        }
        return Err("no string `role`".to_string());
    };
    let mut fits = match role {
        "user" | "assistant" => Fits::CHAT.or(Fits::RESPONSES),
        // Anthropic: a leading system message inside `messages` (the reader checks where).
        "system" => Fits::OPENAI.or(Fits::AISDK).or(Fits::ANTHROPIC).or(Fits::RESPONSES),
        "tool" => Fits::OPENAI.or(Fits::AISDK),
        "function" => Fits::OPENAI,
        "developer" => Fits::OPENAI.or(Fits::RESPONSES),
        other => return Err(format!("unknown role `{other}`")),
    };
    if item_type == Some("message") {
        fits = fits.and(Fits::RESPONSES);
    }
    if OPENAI_FIELDS.iter().any(|k| fields.contains_key(k)) {
        fits = fits.and(Fits::OPENAI);
    }
    if fields.contains_key("providerOptions") {
        fits = fits.and(Fits::AISDK);
    }
    let content = classify_content(fields)?;
    fits = fits.and(content);
    match (role, fields.get("content")) {
        ("system", Some(Node::Array(_))) => fits = fits.without(Fits::AISDK),
        ("tool", Some(Node::String(_))) => fits = fits.without(Fits::AISDK),
        _ => {}
    }
    if fits.is_empty() {
        return Err("it mixes fields of different formats".to_string());
    }
    Ok(fits)
}

/// `Some` for a LangChain-looking object (`{type, data}` or `{lc, type, id, kwargs}`).
fn classify_langchain(fields: &Object<'_>) -> Option<Result<Fits, String>> {
    if fields.contains_key("lc") && fields.contains_key("kwargs") {
        let constructor = fields.get("type").and_then(Node::as_str) == Some("constructor");
        let id_ok = fields.get("id").and_then(Node::as_array).is_some_and(|id| {
            id.last()
                .and_then(Node::as_str)
                .is_some_and(|name| name.ends_with("Message") || name.ends_with("MessageChunk"))
        });
        return Some(if constructor && id_ok {
            Ok(Fits::LANGCHAIN)
        } else {
            Err("a LangChain `toJSON` object needs `type: \"constructor\"` and an `id` naming a message class".into())
        });
    }
    if fields.contains_key("role") || !fields.contains_key("data") {
        return None;
    }
    let kind = fields.get("type").and_then(Node::as_str)?;
    Some(if LANGCHAIN_TYPES.contains(&kind) {
        Ok(Fits::LANGCHAIN)
    } else {
        Err(format!("unknown LangChain message type `{kind}`"))
    })
}

/// A message with `parts`: native, Gemini or AI SDK UI.
fn classify_parts_message(fields: &Object<'_>) -> Result<Fits, String> {
    let role = match fields.get("role") {
        None => None,
        Some(Node::String(role)) => Some(role.as_ref()),
        Some(other) => return Err(format!("`role` is {}, not a string", json_kind(other))),
    };
    let mut fits = match role {
        None => Fits::GEMINI,
        Some("user") => Fits::NATIVE.or(Fits::GEMINI).or(Fits::AISDK_UI),
        Some("system" | "assistant") => Fits::NATIVE.or(Fits::AISDK_UI),
        Some("tool") => Fits::NATIVE.or(Fits::GEMINI),
        Some("model" | "function") => Fits::GEMINI,
        Some(other) => return Err(format!("unknown role `{other}`")),
    };
    if !fields.get("id").is_some_and(Node::is_string) {
        fits = fits.without(Fits::AISDK_UI);
    }
    let Some(Node::Array(parts)) = fields.get("parts") else {
        return Err("`parts` is not an array".to_string());
    };
    for (j, part) in parts.iter().enumerate() {
        let Node::Object(part) = part else {
            return Err(format!("parts[{j}]: expected an object, found {}", json_kind(part)));
        };
        let part_fits = match part.get("type") {
            None => Fits::GEMINI,
            Some(Node::String(t)) => {
                let mut f = Fits::NONE;
                if NATIVE_PARTS.contains(&t.as_ref()) {
                    f = f.or(Fits::NATIVE);
                }
                if UI_PARTS.contains(&t.as_ref()) || t.starts_with("tool-") || t.starts_with("data-") {
                    f = f.or(Fits::AISDK_UI);
                }
                if f.is_empty() {
                    return Err(format!("parts[{j}]: unknown part type `{t}`"));
                }
                f
            }
            Some(other) => return Err(format!("parts[{j}]: `type` is {}, not a string", json_kind(other))),
        };
        fits = fits.and(part_fits);
    }
    if fits.is_empty() {
        return Err("its role and parts belong to different formats".to_string());
    }
    Ok(fits)
}

fn classify_content(fields: &Object<'_>) -> Result<Fits, String> {
    match fields.get("content") {
        None | Some(Node::Null) => Ok(Fits::OPENAI),
        Some(Node::String(_)) => Ok(Fits::CHAT.or(Fits::RESPONSES)),
        Some(Node::Array(parts)) => {
            let mut fits = Fits::CHAT.or(Fits::RESPONSES);
            for (j, part) in parts.iter().enumerate() {
                fits = fits.and(classify_part(part).map_err(|why| format!("content[{j}]: {why}"))?);
            }
            Ok(fits)
        }
        Some(other) => Err(format!("`content` is {}, neither a string nor an array", json_kind(other))),
    }
}

fn classify_part(part: &Node<'_>) -> Result<Fits, String> {
    let Some(part_type) = part.get("type").and_then(Node::as_str) else {
        return Err("no string `type`".to_string());
    };
    let has = |key: &str| part.get(key).is_some();
    Ok(match part_type {
        // Provider options ride on the AI SDK's parts alone.
        "text" if has("providerOptions") => Fits::AISDK,
        "text" => Fits::CHAT,
        "image" if has("image") && !has("source") => Fits::AISDK,
        "image" => Fits::ANTHROPIC,
        "file" if has("file") => Fits::OPENAI,
        "file" if has("data") || has("mediaType") => Fits::AISDK,
        "file" => Fits::OPENAI,
        "refusal" | "input_audio" => Fits::OPENAI.or(Fits::RESPONSES),
        t if RESPONSES_PARTS.contains(&t) => Fits::RESPONSES,
        t if OPENAI_PARTS.contains(&t) => Fits::OPENAI,
        t if ANTHROPIC_BLOCKS.contains(&t) || super::anthropic::NATIVE_BLOCKS.contains(&t) => Fits::ANTHROPIC,
        t if AISDK_PARTS.contains(&t) => Fits::AISDK,
        t => return Err(format!("unknown part type `{t}`")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn detects_by_shape() {
        let cases = [
            ("empty", json!([]), Format::OpenAi),
            (
                "text chat",
                json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]),
                Format::OpenAi,
            ),
            ("text parts", json!([{"role": "user", "content": [{"type": "text", "text": "hi"}]}]), Format::OpenAi),
            ("native", json!([{"role": "user", "parts": [{"type": "text", "text": "hi"}]}]), Format::Native),
            (
                "system role",
                json!([{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}]),
                Format::OpenAi,
            ),
            (
                "tool_calls",
                json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": null,
                "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]),
                Format::OpenAi,
            ),
            (
                "image_url",
                json!([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u"}}]}]),
                Format::OpenAi,
            ),
            (
                "reasoning_content",
                json!([{"role": "assistant", "content": "a", "reasoning_content": "r"}]),
                Format::OpenAi,
            ),
            (
                "tool_use",
                json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t", "name": "f", "input": {}}]}]),
                Format::Anthropic,
            ),
            (
                "thinking",
                json!([{"role": "assistant", "content": [{"type": "thinking", "thinking": "x", "signature": "s"}]}]),
                Format::Anthropic,
            ),
            (
                "anthropic image",
                json!([{"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "u"}}]}]),
                Format::Anthropic,
            ),
            (
                "request object",
                json!({"system": "s", "messages": [{"role": "user", "content": "hi"}]}),
                Format::Anthropic,
            ),
            (
                "text part with providerOptions",
                json!([{"role": "user", "content": [{"type": "text", "text": "hi",
                "providerOptions": {"anthropic": {"cacheControl": {"type": "ephemeral"}}}}]},
                {"role": "assistant", "content": [{"type": "text", "text": "yo"}]}]),
                Format::AiSdk,
            ),
        ];
        for (name, value, expected) in cases {
            assert_eq!(detect(&value).unwrap_or_else(|e| panic!("{name}: {e}")), expected, "{name}");
        }
    }

    #[test]
    fn a_messages_request_is_openai_or_anthropic_by_its_messages_then_its_fields_and_model() {
        let text = json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]);
        let calls = json!([{"role": "assistant", "content": null, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c", "content": "r"}]);
        let blocks =
            json!([{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]}]);
        let cases = [
            (json!({"model": "claude-sonnet-4-5", "messages": calls}), Format::OpenAi),
            (json!({"model": "gpt-4o", "messages": blocks}), Format::Anthropic),
            (json!({"model": "gpt-4o", "max_tokens": 9, "messages": text}), Format::OpenAi),
            (json!({"model": "anthropic/claude-sonnet-4", "messages": text}), Format::OpenAi),
            (json!({"model": "claude-sonnet-4-5", "max_tokens": 9, "messages": text}), Format::Anthropic),
            (json!({"system": "s", "messages": text}), Format::Anthropic),
            (json!({"model": "claude-x", "response_format": {"type": "text"}, "messages": text}), Format::OpenAi),
            (json!({"messages": text}), Format::Anthropic),
        ];
        for (value, format) in cases {
            assert_eq!(detect(&value).unwrap(), format, "{value}");
            // The streaming reader's detector settles the same.
            let mut detector = ListDetector::request(
                request_format("messages", |k| value.get(k).is_some(), value["model"].as_str()),
                "messages",
            );
            for (i, item) in value["messages"].as_array().unwrap().iter().enumerate() {
                detector.push(i, &Node::of(item)).unwrap();
            }
            assert_eq!(detector.format(), format, "{value}");
        }
    }

    #[test]
    fn unknown_shapes_name_the_first_message_that_fits_none() {
        let cases = [
            ("not an array", json!("hi"), ""),
            ("number message", json!([{"role": "user", "content": "a"}, 3]), "[1]"),
            ("no role", json!([{"content": "a"}]), "[0]"),
            ("unknown role", json!([{"role": "model", "content": "a"}]), "[0]"),
            ("unknown part", json!([{"role": "user", "content": [{"type": "banana"}]}]), "[0]"),
            ("numeric content", json!([{"role": "user", "content": 1}]), "[0]"),
            (
                "mixed in one message",
                json!([{"role": "assistant", "tool_calls": [], "content": [{"type": "tool_use"}]}]),
                "[0]",
            ),
            (
                "mixed across messages",
                json!([{"role": "user", "content": "a"},
                {"role": "assistant", "content": [{"type": "tool_use"}]},
                {"role": "tool", "tool_call_id": "t", "content": "r"}]),
                "[2]",
            ),
            (
                "openai and anthropic messages in one request object",
                json!({"messages": [{"role": "assistant", "content": [{"type": "tool_use"}]}, {"role": "tool", "tool_call_id": "c", "content": "s"}]}),
                "messages[1]",
            ),
            ("messages not an array", json!({"messages": {}}), "messages"),
            ("an Agents SDK item", json!([{"type": "function_call_result", "callId": "c", "output": "x"}]), "[0]"),
        ];
        for (name, value, path) in cases {
            let err = detect(&value).expect_err(name);
            assert_eq!((err.code(), err.path()), ("unknown_format", Some(path)), "{name}: {err}");
            if name == "an Agents SDK item" {
                assert!(err.to_string().contains("contextfold/openai-agents"), "{err}");
            }
        }
    }

    #[test]
    fn a_message_at_the_root_has_no_leading_colon() {
        for value in [json!({}), json!(null), json!({"foo": 1}), json!(3)] {
            let err = detect(&value).expect_err("not a chain");
            assert_eq!(err.path(), Some(""));
            assert!(err.to_string().starts_with("expected an array of messages"), "{value}: {err}");
        }
        // Below the root the path still leads.
        let err = detect(&json!({"messages": {}})).expect_err("not an array");
        assert!(err.to_string().starts_with("messages: "), "{err}");
    }
}
