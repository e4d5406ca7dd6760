//! Reads the envelope [`crate::prompt::render`] writes back into what it holds.

/// One thing the transcript holds, in order.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Item {
    /// A user message (`<task>`).
    Task(String),
    /// Text of an assistant message.
    AssistantText(String),
    Call {
        name: String,
        args: String,
    },
    Result {
        name: String,
        text: String,
        error: bool,
    },
    /// An earlier summary being updated.
    Previous(String),
}

pub(super) fn parse(t: &str) -> Vec<Item> {
    let mut items = Vec::new();
    let mut rest = t;
    let mut role = "";
    let mut in_task = false;
    let mut result: Option<(String, bool, String)> = None;
    while let Some(open) = rest.find('<') {
        let Some(close) = rest.get(open..).and_then(|r| r.find('>')).map(|c| open.saturating_add(c)) else {
            break;
        };
        let tag = rest.get(open.saturating_add(1)..close).unwrap_or_default();
        let after = rest.get(close.saturating_add(1)..).unwrap_or_default();
        let name = tag.split_whitespace().next().unwrap_or_default();
        match name {
            "task" => in_task = true,
            "/task" => in_task = false,
            "message" => role = attr(tag, "role").map_or("", |r| if r == "assistant" { "assistant" } else { "other" }),
            "content" => {
                let end = after.find("</content>").unwrap_or(after.len());
                let text = unescape(after.get(..end).unwrap_or_default());
                if let Some((_, _, body)) = result.as_mut() {
                    body.push_str(&text);
                    body.push('\n');
                } else if in_task {
                    items.push(Item::Task(text));
                } else if role == "assistant" {
                    items.push(Item::AssistantText(text));
                }
                rest = after.get(end..).unwrap_or_default();
                continue;
            }
            "tool_call" => {
                let end = after.find("</tool_call>").unwrap_or(after.len());
                items.push(Item::Call {
                    name: unescape(&attr(tag, "name").unwrap_or_default()),
                    args: unescape(after.get(..end).unwrap_or_default()),
                });
                rest = after.get(end..).unwrap_or_default();
                continue;
            }
            "previous_summary" => {
                let end = after.find("</previous_summary>").unwrap_or(after.len());
                items.push(Item::Previous(unescape(after.get(..end).unwrap_or_default())));
                rest = after.get(end..).unwrap_or_default();
                continue;
            }
            "tool_call_response" => {
                let name = unescape(&attr(tag, "name").unwrap_or_default());
                result = Some((name, attr(tag, "error").is_some(), String::new()));
            }
            "/tool_call_response" => {
                if let Some((name, error, text)) = result.take() {
                    items.push(Item::Result { name, text, error });
                }
            }
            _ => {}
        }
        rest = after;
    }
    items
}

fn attr(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)?.saturating_add(key.len());
    let value = tag.get(start..)?;
    Some(value.get(..value.find('"')?)?.to_string())
}

/// The text `crate::prompt`'s escaping wrote, read back in one pass: entities cannot
/// overlap (each starts with `&` and holds none), so this is four `replace`s in one.
/// Four `replace` calls scanned the whole transcript four times, each through a
/// substring searcher (slow in wasm, without SIMD).
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(rest.get(..at).unwrap_or_default());
        let entity = rest.get(at..).unwrap_or_default();
        let (text, len) = [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&amp;", "&")]
            .into_iter()
            .find(|(name, _)| entity.starts_with(name))
            .map_or(("&", 1), |(name, text)| (text, name.len()));
        out.push_str(text);
        rest = entity.get(len..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn unescaping_in_one_pass_equals_the_four_replaces(text in "(?s).{0,40}|[&;ltgquoamp<>\"é]{0,40}") {
            let replaced = text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&");
            prop_assert_eq!(unescape(&text), replaced);
        }
    }

    #[test]
    fn escaped_text_comes_back() {
        let text = "a < b && c > \"d\" &amp; &lt;";
        let mut escaped = String::new();
        crate::prompt::escape_into(&mut escaped, text);
        assert_eq!(unescape(&escaped), text);
    }
}
