//! Diagnostics about a chain as read, pointed back into the caller's own JSON: the
//! message paths come from [`crate::format::source_map`], the diagnostics from
//! [`crate::repair`]; this module sits above both so neither depends on the other.

use crate::format::source_map::message_paths;
use crate::format::Format;
use crate::repair::Diagnostic;
use serde_json::Value;

/// The path in `value` of the wire message an error about a message as read came from.
/// Native input, and errors without a message, have none: their own path is exact.
pub fn error_path(error: &crate::Error, value: &Value, format: Format, total: usize) -> Option<String> {
    let crate::Error::Ast(ast) = error else { return None };
    let index = ast.index().filter(|_| format != Format::Native)?;
    message_paths(value, format, total).and_then(|paths| paths.get(index).cloned())
}

/// Points each diagnostic's `path` at the wire message its message came from (`index`
/// stays the position in the chain as read). Native input needs no map: its paths are
/// already exact, down to the part.
pub fn locate(mut diagnostics: Vec<Diagnostic>, value: &Value, format: Format, total: usize) -> Vec<Diagnostic> {
    if diagnostics.is_empty() || format == Format::Native {
        return diagnostics;
    }
    if let Some(paths) = message_paths(value, format, total) {
        for d in &mut diagnostics {
            if let Some(path) = paths.get(d.index) {
                d.path.clone_from(path);
            }
        }
    }
    diagnostics
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::read;
    use crate::repair::{validate, Provider};
    use serde_json::json;

    #[test]
    fn anthropic_request_paths_point_into_the_request() {
        // The second user message holds a result and text: two native messages.
        let wire = json!({"system": "S", "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "a"},
                {"type": "text", "text": "and?"}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "nope", "content": "x"}]}
        ]});
        let messages = read(&wire, Format::Anthropic).unwrap_or_default();
        assert_eq!(messages.len(), 6);
        let paths = message_paths(&wire, Format::Anthropic, messages.len()).unwrap_or_default();
        assert_eq!(paths, ["system", "messages[0]", "messages[1]", "messages[2]", "messages[2]", "messages[3]"]);
        let found = locate(validate(&messages, Provider::Anthropic), &wire, Format::Anthropic, messages.len());
        let orphan = found.iter().find(|d| d.code == "orphan_result").map(|d| (d.index, d.path.as_str()));
        assert_eq!(orphan, Some((5, "messages[3]")));
    }

    #[test]
    fn a_count_that_does_not_add_up_leaves_paths_alone() {
        let wire = json!([{"role": "user", "content": "q"}]);
        assert_eq!(message_paths(&wire, Format::OpenAi, 2), None);
        assert_eq!(message_paths(&json!("x"), Format::OpenAi, 0), None);
        let d = Diagnostic { code: "x", index: 0, path: "[0].parts[1]".into(), message: String::new() };
        assert_eq!(locate(vec![d.clone()], &wire, Format::Native, 1), vec![d]);
    }
}
