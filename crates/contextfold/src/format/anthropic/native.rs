//! Anthropic's server-side and native blocks (`server_tool_use` and the results of web
//! search, web fetch and code execution, MCP tool use and results, `search_result`,
//! `container_upload`, `compaction`, and the beta blocks: `tool_reference` in a tool
//! result, tool listings, additions and removals, advisor results, browser state,
//! `fallback`), kept verbatim.
//!
//! Each becomes a text part whose text is a short rendering (what summarizers read, what
//! the token estimate counts, what other formats get on conversion) and which carries the
//! block itself under the namespace marker `block`; the Anthropic writer writes that block
//! back unchanged. A server tool use and its result sit in the same assistant message, so
//! they are kept, or summarized, together.

use super::NAMESPACE;
use crate::format::native_block;
use crate::message::{Part, TextPart};
use serde_json::Value;

/// The block types kept verbatim.
pub(crate) const NATIVE_BLOCKS: &[&str] = &[
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
    "mcp_tool_use",
    "mcp_tool_result",
    "search_result",
    "container_upload",
    "compaction",
    "tool_reference",
    "mcp_tool_listing",
    "advisor_tool_result",
    "browser_state",
    "tool_addition",
    "tool_removal",
    "fallback",
];

/// Longest rendering of one block's content, in characters.
const MAX_CHARS: usize = 600;

/// The text part standing for a native block.
pub(super) fn read(block: &Value, block_type: &str) -> Part {
    native_block::part(block, NAMESPACE, render(block, block_type))
}

/// The Anthropic block a text part stands for, when it is one.
pub(super) fn block_of(part: &TextPart) -> Option<&Value> {
    native_block::of(part, NAMESPACE)
}

fn short(text: &str) -> String {
    native_block::short(text, MAX_CHARS)
}

/// The fields whose strings a rendering shows.
const TEXT_KEYS: &[&str] = &["text", "content", "stdout", "stderr", "title", "url", "error_code"];

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    native_block::str_at(v, key)
}

/// The texts found anywhere in a value (`text`, `content`, `stdout`, ... strings).
fn texts(v: &Value, out: &mut Vec<String>) {
    native_block::texts(v, TEXT_KEYS, out);
}

fn render(block: &Value, block_type: &str) -> String {
    match block_type {
        "server_tool_use" | "mcp_tool_use" => {
            let server = str_at(block, "server_name");
            let name = str_at(block, "name");
            let input = block.get("input").map(Value::to_string).unwrap_or_default();
            let on = if server.is_empty() { String::new() } else { format!("{server}/") };
            format!("[{block_type} {on}{name}: {}]", short(&input))
        }
        "web_search_tool_result" => {
            let results: Vec<String> = block
                .get("content")
                .and_then(Value::as_array)
                .map(|items| items.iter().map(|r| format!("{} <{}>", str_at(r, "title"), str_at(r, "url"))).collect())
                .unwrap_or_default();
            let body = if results.is_empty() {
                let mut found = Vec::new();
                texts(block.get("content").unwrap_or(&Value::Null), &mut found);
                found.join(" ")
            } else {
                results.join("; ")
            };
            format!("[web search results: {}]", short(&body))
        }
        "search_result" => {
            let mut found = Vec::new();
            texts(block.get("content").unwrap_or(&Value::Null), &mut found);
            format!(
                "[search result {} ({}): {}]",
                str_at(block, "title"),
                str_at(block, "source"),
                short(&found.join(" "))
            )
        }
        "container_upload" => format!("[container upload {}]", str_at(block, "file_id")),
        "tool_reference" => format!("[tool reference {}]", str_at(block, "tool_name")),
        "mcp_tool_listing" => format!("[tools of MCP server {}]", str_at(block, "mcp_server_name")),
        "compaction" => {
            let mut found = Vec::new();
            texts(block.get("content").unwrap_or(&Value::Null), &mut found);
            format!("[earlier context, compacted by the provider: {}]", short(&found.join(" ")))
        }
        _ => {
            let mut found = Vec::new();
            texts(block.get("content").unwrap_or(&Value::Null), &mut found);
            let body = if found.is_empty() {
                // No text to show: the block's own fields (a tool added, a model fallen back to).
                let mut fields = block.as_object().cloned().unwrap_or_default();
                fields.remove("type");
                fields.remove("cache_control");
                Value::Object(fields).to_string()
            } else {
                found.join(" ")
            };
            format!("[{block_type}: {}]", short(&body))
        }
    }
}
