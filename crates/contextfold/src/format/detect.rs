//! Telling native, OpenAI Chat and Anthropic Messages input apart by its shape.
//!
//! Every message is matched against the three formats and the formats all messages fit
//! are kept:
//! - a message with `parts` is native;
//! - roles `system`, `developer`, `tool`, `function`, the fields `tool_calls`,
//!   `tool_call_id`, `function_call`, `reasoning_content`, `name`, `refusal`, `audio`,
//!   a `null` or missing `content`, and `image_url` / `input_audio` / `file` / `refusal`
//!   parts are OpenAI only;
//! - `tool_use`, `tool_result`, `thinking`, `image` (with a `source`), `document` and the
//!   other Anthropic block types are Anthropic only;
//! - `user` / `assistant` messages with a string content or `text` parts fit both.
//!
//! A plain text chat therefore fits OpenAI and Anthropic, and is read as OpenAI: both
//! readers turn it into the very same parts (only the namespace of restoration markers
//! would differ), so the choice merely decides which format a writer answers in, and
//! OpenAI's is the shape most text chats come in. An empty array is OpenAI for the same
//! reason. An object is only ever an Anthropic request `{system, messages}`.

use super::fields::json_kind;
use super::path::JsonPath;
use super::{Format, FormatError};
use serde_json::{Map, Value};

/// Detects the format of `value` (an array of messages, or an Anthropic request object).
/// The first message that fits no format, or none the earlier messages fit, is named in
/// an [`FormatError::UnknownFormat`].
pub fn detect(value: &Value) -> Result<Format, FormatError> {
    let root = JsonPath::root();
    match value {
        Value::Array(items) => {
            let fits = common_fits(items, &root, Fits::ALL)?;
            Ok(fits.pick().unwrap_or(Format::OpenAi))
        }
        Value::Object(request) if request.contains_key("messages") => {
            let path = root.key("messages");
            let Some(Value::Array(items)) = request.get("messages") else {
                return Err(path.unknown_format("`messages` of a request object must be an array"));
            };
            common_fits(items, &path, Fits::ANTHROPIC)?;
            Ok(Format::Anthropic)
        }
        other => Err(root.unknown_format(format!(
            "expected an array of messages (or an Anthropic request object {{system, messages}}), found {}",
            json_kind(other)
        ))),
    }
}

/// The formats a message may belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fits {
    native: bool,
    openai: bool,
    anthropic: bool,
}

impl Fits {
    const ALL: Fits = Fits::new(true, true, true);
    const NATIVE: Fits = Fits::new(true, false, false);
    const OPENAI: Fits = Fits::new(false, true, false);
    const ANTHROPIC: Fits = Fits::new(false, false, true);
    const CHAT: Fits = Fits::new(false, true, true);

    const fn new(native: bool, openai: bool, anthropic: bool) -> Fits {
        Fits { native, openai, anthropic }
    }

    fn and(self, other: Fits) -> Fits {
        Fits::new(self.native && other.native, self.openai && other.openai, self.anthropic && other.anthropic)
    }

    fn is_empty(self) -> bool {
        !(self.native || self.openai || self.anthropic)
    }

    /// OpenAI first when a text chat fits both chat formats (see the module doc).
    fn pick(self) -> Option<Format> {
        if self.openai {
            Some(Format::OpenAi)
        } else if self.anthropic {
            Some(Format::Anthropic)
        } else if self.native {
            Some(Format::Native)
        } else {
            None
        }
    }

    fn describe(self) -> String {
        let names: Vec<&str> = [(self.native, "native"), (self.openai, "OpenAI"), (self.anthropic, "Anthropic")]
            .iter()
            .filter(|(fits, _)| *fits)
            .map(|(_, name)| *name)
            .collect();
        names.join(" or ")
    }
}

/// The formats every message fits, starting from `start`.
fn common_fits(items: &[Value], path: &JsonPath, start: Fits) -> Result<Fits, FormatError> {
    let mut common = start;
    for (i, item) in items.iter().enumerate() {
        let fits = classify(item)
            .map_err(|why| path.index(i).unknown_format(format!("this message fits no known format: {why}")))?;
        let both = common.and(fits);
        if both.is_empty() {
            let expected = if start == Fits::ALL { "earlier messages" } else { "a request object" };
            return Err(path.index(i).unknown_format(format!(
                "this message is {} but {expected} are {}",
                fits.describe(),
                common.describe()
            )));
        }
        common = both;
    }
    Ok(common)
}

/// Message fields only OpenAI has.
const OPENAI_FIELDS: &[&str] =
    &["tool_calls", "tool_call_id", "function_call", "reasoning_content", "name", "refusal", "audio"];

/// Block types only Anthropic has (the reader rejects the ones it cannot carry yet,
/// with a precise error).
const ANTHROPIC_BLOCKS: &[&str] = &[
    "image",
    "document",
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "mcp_tool_use",
    "mcp_tool_result",
    "container_upload",
    "search_result",
];

const OPENAI_PARTS: &[&str] = &["image_url", "input_audio", "file", "refusal"];

/// The formats one message fits, or why it fits none.
fn classify(message: &Value) -> Result<Fits, String> {
    let Value::Object(fields) = message else {
        return Err(format!("expected an object, found {}", json_kind(message)));
    };
    if fields.contains_key("parts") {
        return Ok(Fits::NATIVE);
    }
    let Some(role) = fields.get("role").and_then(Value::as_str) else {
        return Err("no string `role`".to_string());
    };
    let mut fits = match role {
        "user" | "assistant" => Fits::CHAT,
        "system" | "developer" | "tool" | "function" => Fits::OPENAI,
        other => return Err(format!("unknown role `{other}`")),
    };
    if OPENAI_FIELDS.iter().any(|k| fields.contains_key(*k)) {
        fits = fits.and(Fits::OPENAI);
    }
    fits = fits.and(classify_content(fields)?);
    if fits.is_empty() {
        return Err("it mixes OpenAI and Anthropic fields".to_string());
    }
    Ok(fits)
}

fn classify_content(fields: &Map<String, Value>) -> Result<Fits, String> {
    match fields.get("content") {
        None | Some(Value::Null) => Ok(Fits::OPENAI),
        Some(Value::String(_)) => Ok(Fits::CHAT),
        Some(Value::Array(parts)) => {
            let mut fits = Fits::CHAT;
            for (j, part) in parts.iter().enumerate() {
                fits = fits.and(classify_part(part).map_err(|why| format!("content[{j}]: {why}"))?);
            }
            Ok(fits)
        }
        Some(other) => Err(format!("`content` is {}, neither a string nor an array", json_kind(other))),
    }
}

fn classify_part(part: &Value) -> Result<Fits, String> {
    let Some(part_type) = part.get("type").and_then(Value::as_str) else {
        return Err("no string `type`".to_string());
    };
    if part_type == "text" {
        Ok(Fits::CHAT)
    } else if OPENAI_PARTS.contains(&part_type) {
        Ok(Fits::OPENAI)
    } else if ANTHROPIC_BLOCKS.contains(&part_type) {
        Ok(Fits::ANTHROPIC)
    } else {
        Err(format!("unknown part type `{part_type}`"))
    }
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
        ];
        for (name, value, expected) in cases {
            assert_eq!(detect(&value).unwrap_or_else(|e| panic!("{name}: {e}")), expected, "{name}");
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
                "openai messages in a request object",
                json!({"messages": [{"role": "user", "content": "a"}, {"role": "system", "content": "s"}]}),
                "messages[1]",
            ),
            ("messages not an array", json!({"messages": {}}), "messages"),
        ];
        for (name, value, path) in cases {
            let err = detect(&value).expect_err(name);
            assert_eq!((err.code(), err.path()), ("unknown_format", Some(path)), "{name}: {err}");
        }
    }
}
