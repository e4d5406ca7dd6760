//! Reads the envelope [`crate::prompt::render`] writes back into what it holds.
//!
//! What holds no escaped character is read where it lies in the transcript: a copy of
//! every text was as large as the transcript (most of a chain, for a fold).

use std::borrow::Cow;

/// One thing the transcript holds, in order.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Item<'t> {
    /// A user message (`<task>`).
    Task(Cow<'t, str>),
    /// Text of an assistant message.
    AssistantText(Cow<'t, str>),
    Call {
        name: Cow<'t, str>,
        args: Cow<'t, str>,
    },
    /// A tool result: its contents, one per line.
    Result {
        name: Cow<'t, str>,
        text: Cow<'t, str>,
        error: bool,
    },
    /// An earlier summary being updated.
    Previous(Cow<'t, str>),
}

pub(super) fn parse(t: &str) -> Vec<Item<'_>> {
    let mut items = Vec::new();
    let mut rest = t;
    let mut role = "";
    let mut in_task = false;
    let mut result: Option<(Cow<'_, str>, bool, Cow<'_, str>)> = None;
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
                let end = closing(after, "</content>");
                let text = unescape(after.get(..end).unwrap_or_default());
                if let Some((_, _, body)) = result.as_mut() {
                    if body.is_empty() {
                        *body = text;
                    } else {
                        let body = body.to_mut();
                        body.push('\n');
                        body.push_str(&text);
                    }
                } else if in_task {
                    items.push(Item::Task(text));
                } else if role == "assistant" {
                    items.push(Item::AssistantText(text));
                }
                rest = after.get(end..).unwrap_or_default();
                continue;
            }
            "tool_call" => {
                let end = closing(after, "</tool_call>");
                items.push(Item::Call {
                    name: unescape(attr(tag, "name").unwrap_or_default()),
                    args: unescape(after.get(..end).unwrap_or_default()),
                });
                rest = after.get(end..).unwrap_or_default();
                continue;
            }
            "previous_summary" => {
                let end = closing(after, "</previous_summary>");
                items.push(Item::Previous(unescape(after.get(..end).unwrap_or_default())));
                rest = after.get(end..).unwrap_or_default();
                continue;
            }
            "tool_call_response" => {
                let name = unescape(attr(tag, "name").unwrap_or_default());
                result = Some((name, attr(tag, "error").is_some(), Cow::Borrowed("")));
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

/// Where `close` first is in `after` (its end when absent). Escaped text holds no `<`,
/// so the first one is mostly the closing tag: found with a byte search, the substring
/// search (slow in wasm) only when it is not.
fn closing(after: &str, close: &str) -> usize {
    match after.find('<') {
        Some(at) if after.get(at..).is_some_and(|r| r.starts_with(close)) => at,
        Some(_) => after.find(close).unwrap_or(after.len()),
        None => after.len(),
    }
}

/// The value of attribute `name` in `tag` (` name="value"`), as written.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let mut rest = tag;
    while let Some(at) = rest.find(' ') {
        rest = rest.get(at.saturating_add(1)..)?;
        if let Some(value) = rest.strip_prefix(name).and_then(|r| r.strip_prefix("=\"")) {
            return value.get(..value.find('"')?);
        }
    }
    None
}

/// The text `crate::prompt`'s escaping wrote, read back in one pass: entities cannot
/// overlap (each starts with `&` and holds none), so this is four `replace`s in one.
/// Four `replace` calls scanned the whole transcript four times, each through a
/// substring searcher (slow in wasm, without SIMD). Text without entities is `s` itself.
fn unescape(s: &str) -> Cow<'_, str> {
    let Some(first) = s.find('&') else { return Cow::Borrowed(s) };
    let mut out = String::with_capacity(s.len());
    out.push_str(s.get(..first).unwrap_or_default());
    let mut rest = s.get(first..).unwrap_or_default();
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
    Cow::Owned(out)
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

    proptest! {
        #[test]
        fn attributes_and_closing_tags_are_found_as_by_substring_search(
            tag in "[a-z =\"<>/]{0,30}",
            name in "[a-z]{1,3}",
        ) {
            let key = format!(" {name}=\"");
            let expected = tag.find(&key).and_then(|at| {
                let value = tag.get(at + key.len()..)?;
                value.get(..value.find('"')?)
            });
            prop_assert_eq!(attr(&tag, &name), expected);
            for close in ["</a>", "</content>"] {
                prop_assert_eq!(closing(&tag, close), tag.find(close).unwrap_or(tag.len()));
            }
        }
    }

    #[test]
    fn texts_without_entities_are_read_where_they_lie() {
        let work = [
            crate::message::Message::text(crate::message::Role::Assistant, "plain words"),
            crate::message::Message::text(crate::message::Role::Assistant, "a < b"),
        ];
        let prompt = crate::prompt::render(&[], &work).unwrap_or_else(|| unreachable!());
        let items = parse(&prompt.transcript);
        let texts: Vec<&Cow<'_, str>> =
            items.iter().filter_map(|i| if let Item::AssistantText(t) = i { Some(t) } else { None }).collect();
        assert!(matches!(texts.as_slice(), [Cow::Borrowed("plain words"), Cow::Owned(t)] if t == "a < b"), "{texts:?}");
    }

    #[test]
    fn escaped_text_comes_back() {
        let text = "a < b && c > \"d\" &amp; &lt;";
        let mut escaped = String::new();
        crate::prompt::escape_into(&mut escaped, text);
        assert_eq!(unescape(&escaped), text);
    }
}
