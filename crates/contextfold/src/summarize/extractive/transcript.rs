//! Reads the envelope [`crate::prompt::render`] writes back into what it holds, or what
//! it would hold from the messages themselves.
//!
//! What holds no escaped character is read where it lies in the transcript: a copy of
//! every text was as large as the transcript (most of a chain, for a fold).

use crate::hashing::HashMap;
use crate::message::{Part, Role};
use crate::prompt::{names_of, result_name, Draft};
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

/// What the items are made of, as [`parse`] meets it in a transcript and [`of_draft`] in
/// messages: one state machine for both, so that the built-in summarizer reads messages
/// exactly as it reads their transcript.
#[derive(Default)]
struct Reader<'t> {
    items: Vec<Item<'t>>,
    /// Inside `<task>`.
    in_task: bool,
    /// The message is the assistant's.
    assistant: bool,
    /// The tool result being read: its name, error flag, and texts so far.
    result: Option<(Cow<'t, str>, bool, Cow<'t, str>)>,
}

impl<'t> Reader<'t> {
    /// A `<content>`: a text of the tool result being read, else a task or assistant text.
    fn content(&mut self, text: Cow<'t, str>) {
        if let Some((_, _, body)) = self.result.as_mut() {
            if body.is_empty() {
                *body = text;
            } else {
                let body = body.to_mut();
                body.push('\n');
                body.push_str(&text);
            }
        } else if self.in_task {
            self.items.push(Item::Task(text));
        } else if self.assistant {
            self.items.push(Item::AssistantText(text));
        }
    }

    fn open_result(&mut self, name: Cow<'t, str>, error: bool) {
        self.result = Some((name, error, Cow::Borrowed("")));
    }

    fn close_result(&mut self) {
        if let Some((name, error, text)) = self.result.take() {
            self.items.push(Item::Result { name, text, error });
        }
    }
}

pub(super) fn parse(t: &str) -> Vec<Item<'_>> {
    let mut r = Reader::default();
    let mut rest = t;
    while let Some(open) = rest.find('<') {
        let Some(close) = rest.get(open..).and_then(|r| r.find('>')).map(|c| open.saturating_add(c)) else {
            break;
        };
        let tag = rest.get(open.saturating_add(1)..close).unwrap_or_default();
        let after = rest.get(close.saturating_add(1)..).unwrap_or_default();
        let name = tag.split_whitespace().next().unwrap_or_default();
        match name {
            "task" => r.in_task = true,
            "/task" => r.in_task = false,
            "message" => r.assistant = attr(tag, "role") == Some("assistant"),
            "content" => {
                let end = closing(after, "</content>");
                r.content(unescape(after.get(..end).unwrap_or_default()));
                rest = after.get(end..).unwrap_or_default();
                continue;
            }
            "tool_call" => {
                let end = closing(after, "</tool_call>");
                r.items.push(Item::Call {
                    name: unescape(attr(tag, "name").unwrap_or_default()),
                    args: unescape(after.get(..end).unwrap_or_default()),
                });
                rest = after.get(end..).unwrap_or_default();
                continue;
            }
            "previous_summary" => {
                let end = closing(after, "</previous_summary>");
                r.items.push(Item::Previous(unescape(after.get(..end).unwrap_or_default())));
                rest = after.get(end..).unwrap_or_default();
                continue;
            }
            "tool_call_response" => {
                r.open_result(unescape(attr(tag, "name").unwrap_or_default()), attr(tag, "error").is_some());
            }
            "/tool_call_response" => r.close_result(),
            _ => {}
        }
        rest = after;
    }
    r.items
}

/// The items of the transcript `draft` renders to, read from its messages: their texts
/// where they lie, nothing rendered or copied.
pub(super) fn of_draft<'m>(draft: &Draft<'m>) -> Vec<Item<'m>> {
    let mut r = Reader::default();
    if let Some(previous) = draft.previous {
        // As written between the tags: a line before and after.
        r.items.push(Item::Previous(Cow::Owned(format!("\n{}\n", previous.trim_end()))));
    }
    let no_names = HashMap::default();
    for m in &draft.tasks {
        r.in_task = true;
        read_parts(&mut r, &m.parts, &no_names);
        r.in_task = false;
    }
    let names = names_of(&draft.work);
    for m in &draft.work {
        r.assistant = m.role == Role::Assistant;
        read_parts(&mut r, &m.parts, &names);
    }
    r.items
}

/// What `crate::prompt` renders of `parts`, as the reader meets it.
fn read_parts<'m>(r: &mut Reader<'m>, parts: &'m [Part], names: &HashMap<&'m str, &'m str>) {
    for p in parts {
        match p {
            Part::Text(t) if t.text.trim().is_empty() => {}
            Part::Text(t) => r.content(Cow::Borrowed(&t.text)),
            Part::ToolCall(c) => {
                r.items.push(Item::Call { name: Cow::Borrowed(&c.name), args: Cow::Borrowed(&c.arguments) })
            }
            Part::ToolResult(result) => {
                r.open_result(Cow::Borrowed(result_name(result, names)), result.is_error);
                read_parts(r, &result.content, names);
                r.close_result();
            }
            Part::Image(_) | Part::File(_) | Part::Reasoning(_) => {}
        }
    }
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
    use crate::message::Message;
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

    /// A part of any kind, with texts full of what must be escaped, blank ones, names
    /// with quotes, results within results, media and reasoning.
    fn any_part() -> impl Strategy<Value = Part> {
        use crate::message::{Extra, ImagePart, ReasoningPart, ToolCallPart, ToolResultPart};
        let text = "(?s)[a-z <>&\"';\n]{0,24}|[ \n]{0,3}|&(lt|gt|amp|quot);";
        let name = "[a-z \"<>&=]{0,8}";
        let id = "[ab]";
        let leaf = prop_oneof![
            3 => text.prop_map(Part::text),
            2 => (id, name, text).prop_map(|(id, name, arguments)| Part::ToolCall(ToolCallPart {
                id,
                name,
                arguments,
                signature: None,
                extra: Extra::new(),
            })),
            1 => "[a-z]{0,6}".prop_map(|url| Part::Image(ImagePart { url: Some(url), ..ImagePart::default() })),
            1 => text.prop_map(|text| Part::Reasoning(ReasoningPart { text, ..ReasoningPart::default() })),
        ];
        leaf.prop_recursive(2, 12, 3, move |inner| {
            (id, proptest::option::of(name), proptest::collection::vec(inner, 0..3), any::<bool>()).prop_map(
                |(call_id, name, content, is_error)| {
                    Part::ToolResult(ToolResultPart { call_id, name, content, is_error, extra: Extra::new() })
                },
            )
        })
    }

    fn any_messages(roles: Vec<Role>) -> impl Strategy<Value = Vec<Message>> {
        proptest::collection::vec(
            (prop::sample::select(roles), proptest::collection::vec(any_part(), 0..4))
                .prop_map(|(role, parts)| Message::new(role, parts)),
            0..5,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// The summarizer reads a draft's messages exactly as it reads their transcript.
        #[test]
        fn messages_read_as_their_transcript(
            previous in proptest::option::of("(?s)[a-z <>&\"\n-]{0,30}"),
            tasks in any_messages(vec![Role::User]),
            work in any_messages(vec![Role::System, Role::User, Role::Assistant, Role::Tool]),
        ) {
            let draft = Draft {
                previous: previous.as_deref(),
                tasks: tasks.iter().collect(),
                work: work.iter().collect(),
                note: "",
            };
            let rendered = draft.render();
            prop_assume!(rendered.is_some());
            let transcript = rendered.map(|p| p.transcript).unwrap_or_default();
            prop_assert_eq!(of_draft(&draft), parse(&transcript));
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
