//! Hands kept messages back as the caller's own JS objects.
//!
//! Converting a large chain from Rust to JS costs more than the compaction itself, and
//! most of a compacted chain is messages kept as they were. So for input given as JS
//! objects, the package's JS layer asks for a reuse plan instead of the messages: one
//! item per output message, either the index of the identical input message (the JS
//! layer puts the caller's own object there) or the new message itself. Only new
//! messages cross the boundary, and kept ones stay the very same objects (`===`).

use crate::format::Format;
use crate::json_node::Node;
use crate::text_pieces::{Marks, RangeReader, TextPieces};
use serde::Serialize;
use serde_json::Value;
use std::hash::{Hash, Hasher};

/// One output message: an input index, or a new message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ReuseItem {
    Keep(usize),
    New(Value),
}

/// The key of a request object's message array in `format`: Anthropic `{ system, messages }`,
/// Gemini `{ systemInstruction, contents }`; `None` for a format read from lists only.
fn list_key(map: &serde_json::Map<String, Value>, format: Format) -> Option<&'static str> {
    let is_list = |list: &Vec<Value>| !(format == Format::Gemini && crate::format::gemini::holds_parts(list));
    format
        .request_fields()
        .map(|fields| fields.messages)
        .filter(|k| map.get(*k).and_then(Value::as_array).is_some_and(is_list))
}

/// The message array of a chain value: the value itself, or a request's list.
fn message_array(value: &Value, format: Format) -> Option<&Vec<Value>> {
    match value {
        Value::Array(list) => Some(list),
        Value::Object(map) => list_key(map, format).and_then(|k| map.get(k)).and_then(Value::as_array),
        _ => None,
    }
}

/// The message list of `value`: the value itself, or a request's list.
fn list_mut(value: &mut Value, format: Format) -> Option<&mut Vec<Value>> {
    match value {
        Value::Array(list) => Some(list),
        Value::Object(map) => match list_key(map, format).and_then(|k| map.get_mut(k)) {
            Some(Value::Array(list)) => Some(list),
            _ => None,
        },
        _ => None,
    }
}

/// Takes the message list out of `value`, leaving it empty in place (the container and
/// its other fields stay). `None` when `value` holds no list.
pub fn take_list(value: &mut Value, format: Format) -> Option<Vec<Value>> {
    list_mut(value, format).map(std::mem::take)
}

/// Splits `output` into a shell (the output with its message array emptied, `null` for
/// a bare array) and the plan for that array; the JS layer fills the shell's list. The
/// output has the input's container (`contextfold::format::write_like`), but the plan
/// does not rely on it. `None` when either has no message array (then `output` is
/// returned whole).
pub fn plan(input: &Value, output: Value, format: Format) -> (Value, Option<Vec<ReuseItem>>) {
    let Some(before) = message_array(input, format) else {
        return (output, None);
    };
    let prints: Vec<u64> = before.iter().map(fingerprint).collect();
    plan_with(output, format, &prints, |pairs, after| {
        pairs.iter().all(|&(i, j)| before.get(i).is_some_and(|b| after.get(j) == Some(b)))
    })
}

/// The input's message list as the reuse plan needs it when the input tree is let go
/// during the compaction: each message's span of the JSON text and its fingerprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputList {
    spans: Vec<std::ops::Range<usize>>,
    prints: Vec<u64>,
    /// Where the pieces of the text started when it was read in pieces: the plan's pass
    /// over it skips the pieces no kept message lies in.
    marks: Marks,
}

impl InputList {
    /// The list from its elements' spans in the text and their [`fingerprint`]s, in
    /// order, and the marks of the pieces it was read in.
    pub(crate) fn new(spans: Vec<std::ops::Range<usize>>, prints: Vec<u64>, marks: Marks) -> InputList {
        InputList { spans, prints, marks }
    }

    /// The list of `input`, the value `text` holds; `None` when it has no message array
    /// or its elements cannot be told apart in the text.
    pub fn of(text: &str, input: &Value, format: Format) -> Option<InputList> {
        let before = message_array(input, format)?;
        let spans = match input {
            Value::Array(_) => crate::json_span::array_spans(text.as_bytes())?,
            Value::Object(map) => {
                let key = list_key(map, format)?;
                crate::json_span::object_spans_with(text.as_bytes(), Some(key))?.1?
            }
            _ => return None,
        };
        let prints = before.iter().map(fingerprint).collect();
        (spans.len() == before.len()).then(|| InputList { spans, prints, marks: Marks::new() })
    }
}

/// [`plan`] against the input's JSON text and its [`InputList`] instead of its tree: an
/// output message is an input message when it reads the same as that message's text.
/// The text is read once, in order, from `pieces` (a text held whole is one piece:
/// [`Held::whole`](crate::text_pieces::Held::whole)): only a message that straddles two
/// pieces is copied. Without the text (`None`, or pieces that end early), the output is
/// returned whole.
pub fn plan_from_pieces(
    pieces: Option<&mut dyn TextPieces>,
    input: &InputList,
    output: Value,
    format: Format,
) -> (Value, Option<Vec<ReuseItem>>) {
    plan_with(output, format, &input.prints, |pairs, after| {
        pieces.is_some_and(|pieces| {
            confirm_in_text(RangeReader::with_marks(pieces, &input.marks), &input.spans, pairs, after)
        })
    })
}

/// Whether each output message `after[j]` reads the same as the text of input message
/// `i` (at `spans[i]`), for `pairs` in input order.
fn confirm_in_text(
    mut reader: RangeReader<'_>,
    spans: &[std::ops::Range<usize>],
    pairs: &[(usize, usize)],
    after: &[Value],
) -> bool {
    // A message's bytes when they lie in more than one piece.
    let mut parts: Vec<u8> = Vec::new();
    pairs.iter().all(|&(i, j)| {
        let (Some(span), Some(message)) = (spans.get(i), after.get(j)) else { return false };
        let mut equal = None;
        parts.clear();
        let read = reader.read(span.clone(), &mut |bytes| {
            if bytes.len() == span.len() {
                equal = Some(crate::json_eq::equals_text(message, bytes));
            } else {
                parts.extend_from_slice(bytes);
            }
        });
        read && equal.unwrap_or_else(|| crate::json_eq::equals_text(message, &parts))
    })
}

/// The plan of `output` against input messages known by their fingerprints `prints`.
/// Kept messages keep their order: each output message is matched to the first input
/// message after the previous match with its fingerprint. `confirm(pairs, after)` then
/// checks that each matched output message `after[j]` is input message `i` (pairs in
/// input order); when one is not (two messages with one fingerprint), the output is
/// returned whole, without a plan.
fn plan_with(
    mut output: Value,
    format: Format,
    prints: &[u64],
    confirm: impl FnOnce(&[(usize, usize)], &[Value]) -> bool,
) -> (Value, Option<Vec<ReuseItem>>) {
    let Some(after) = take_list(&mut output, format) else {
        return (output, None);
    };
    // The input's fingerprints with their indices, sorted: the candidates for a print are
    // a run, in input order (one allocation, where a map held a list per message).
    let mut by_print: Vec<(u64, usize)> = prints.iter().copied().zip(0usize..).collect();
    by_print.sort_unstable();
    let mut next = 0usize;
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for (j, m) in after.iter().enumerate() {
        let print = fingerprint(m);
        let from = by_print.partition_point(|&candidate| candidate < (print, next));
        if let Some(&(_, i)) = by_print.get(from).filter(|(p, _)| *p == print) {
            next = i.saturating_add(1);
            pairs.push((i, j));
        }
    }
    if !confirm(&pairs, &after) {
        if let Some(list) = list_mut(&mut output, format) {
            *list = after;
        }
        return (output, None);
    }
    let mut kept = pairs.into_iter().peekable();
    let items = after
        .into_iter()
        .enumerate()
        .map(|(j, m)| match kept.next_if(|&(_, k)| k == j) {
            Some((i, _)) => ReuseItem::Keep(i),
            None => ReuseItem::New(m),
        })
        .collect();
    let shell = if output.is_array() { Value::Null } else { output };
    (shell, Some(items))
}

/// The fingerprint of a message's tree (an output message's).
pub(crate) fn fingerprint(value: &Value) -> u64 {
    let mut h = Fx::default();
    hash_tree(value, &mut h);
    h.finish()
}

/// The fingerprint of a message's tree as the readers hold it (an input message's): the
/// same as [`fingerprint`] of its `Value`.
pub(crate) fn fingerprint_node(node: &Node<'_>) -> u64 {
    let mut h = Fx::default();
    hash_tree(node, &mut h);
    h.finish()
}

/// What the fingerprint reads of a JSON tree of either kind.
enum Shape<'x, T> {
    Null,
    Bool(bool),
    Number(&'x serde_json::Number),
    String(&'x str),
    Array(&'x [T]),
    /// An object of this many fields (see [`Tree::entries`]).
    Object(usize),
}

trait Tree: Sized {
    fn shape(&self) -> Shape<'_, Self>;
    /// Each field of an object.
    fn entries(&self, each: &mut dyn FnMut(&str, &Self));
}

impl Tree for Value {
    fn shape(&self) -> Shape<'_, Value> {
        match self {
            Value::Null => Shape::Null,
            Value::Bool(b) => Shape::Bool(*b),
            Value::Number(n) => Shape::Number(n),
            Value::String(s) => Shape::String(s),
            Value::Array(list) => Shape::Array(list),
            Value::Object(map) => Shape::Object(map.len()),
        }
    }

    fn entries(&self, each: &mut dyn FnMut(&str, &Value)) {
        self.as_object().into_iter().flatten().for_each(|(k, v)| each(k, v));
    }
}

impl<'a> Tree for Node<'a> {
    fn shape(&self) -> Shape<'_, Node<'a>> {
        match self {
            Node::Null => Shape::Null,
            Node::Bool(b) => Shape::Bool(*b),
            Node::Number(n) => Shape::Number(n),
            Node::String(s) => Shape::String(s),
            Node::Array(list) => Shape::Array(list),
            Node::Object(object) => Shape::Object(object.len()),
        }
    }

    fn entries(&self, each: &mut dyn FnMut(&str, &Node<'a>)) {
        self.as_object().into_iter().flat_map(|o| o.iter()).for_each(|(k, v)| each(k, v));
    }
}

fn hash_tree<T: Tree>(value: &T, h: &mut Fx) {
    match value.shape() {
        Shape::Null => 0u8.hash(h),
        Shape::Bool(b) => b.hash(h),
        Shape::Number(n) => n.to_string().hash(h),
        Shape::String(s) => s.hash(h),
        Shape::Array(list) => {
            list.len().hash(h);
            for v in list {
                hash_tree(v, h);
            }
        }
        // Key order does not matter (`==` on objects ignores it too): the writer may order
        // keys differently from the caller (the AI SDK's own messages come in two orders),
        // so each entry is hashed alone and the hashes are summed.
        Shape::Object(len) => {
            len.hash(h);
            let mut sum = 0u64;
            value.entries(&mut |k, v| {
                let mut entry = Fx::default();
                k.hash(&mut entry);
                hash_tree(v, &mut entry);
                sum = sum.wrapping_add(entry.finish());
            });
            sum.hash(h);
        }
    }
}

/// FxHash (rustc's), finalized: one multiply per 8 bytes, several times faster than SipHash on the
/// whole chain's text. It has no defence against crafted collisions, which here can
/// only cost the plan: every match is confirmed against the input, and one that is not
/// the input message sends the output whole (never a wrong message).
#[derive(Default)]
struct Fx(u64);

impl Fx {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.add(word.try_into().map_or(0, u64::from_le_bytes));
        }
        let rest = words.remainder();
        let tail = rest.iter().rev().fold(0u64, |w, b| (w << 8) | u64::from(*b));
        self.add(tail ^ ((rest.len() as u64) << 56));
    }

    /// Finalized (murmur3's fmix64): object entries are summed, and without it entries
    /// that differ alike (`"Continue 1"`/`"h1"` and `"Continue 2"`/`"h2"`, a digit at the
    /// same place of each) summed to the same fingerprint, and the plan was given up.
    fn finish(&self) -> u64 {
        let mut x = self.0;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^ (x >> 33)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_that_differ_alike_have_other_fingerprints() {
        // Entries differing the same way (a digit at the same place of each string) once
        // summed to one fingerprint: the plan matched h2 to h1 and was given up.
        let message = |i: usize| json!({"kwargs": {"id": format!("h{i}"), "content": format!("Continue {i}")}});
        let prints: std::collections::HashSet<u64> = (0..200).map(|i| fingerprint(&message(i))).collect();
        assert_eq!(prints.len(), 200);
        let input = json!((0..6).map(message).collect::<Vec<_>>());
        let output = json!([message(0), {"summary": "s"}, message(4), message(5)]);
        let (_, plan) = plan(&input, output, Format::LangChain);
        let kept: Vec<ReuseItem> = plan.unwrap().into_iter().filter(|i| matches!(i, ReuseItem::Keep(_))).collect();
        assert_eq!(kept, vec![ReuseItem::Keep(0), ReuseItem::Keep(4), ReuseItem::Keep(5)]);
    }

    #[test]
    fn kept_messages_become_indices_in_order_and_new_ones_stay() {
        let input = json!([{ "role": "user", "content": "a" }, { "role": "assistant", "content": "b" }, { "role": "user", "content": "a" }]);
        let output = json!([{ "role": "user", "content": "a" }, { "role": "assistant", "content": "summary" }, { "role": "user", "content": "a" }]);
        let (shell, items) = plan(&input, output, Format::OpenAi);
        assert_eq!(shell, Value::Null);
        // The second "a" maps to input 2, not input 0 again: order is kept.
        assert_eq!(
            items.unwrap(),
            vec![
                ReuseItem::Keep(0),
                ReuseItem::New(json!({ "role": "assistant", "content": "summary" })),
                ReuseItem::Keep(2)
            ]
        );
    }

    proptest::proptest! {
        /// Each output message is the first equal input message after the previous match
        /// (a plain scan says which), whatever repeats the lists hold.
        #[test]
        fn the_plan_matches_in_order_as_a_scan_does(
            input in proptest::collection::vec(0u8..4, 0..12),
            output in proptest::collection::vec(0u8..6, 0..12),
        ) {
            let message = |n: u8| json!({ "role": "user", "content": format!("m{n}") });
            let input = Value::Array(input.into_iter().map(message).collect());
            let output: Vec<Value> = output.into_iter().map(message).collect();
            let before = input.as_array().cloned().unwrap_or_default();
            let mut next = 0usize;
            let expected: Vec<ReuseItem> = output
                .iter()
                .map(|m| match (next..before.len()).find(|&i| before.get(i) == Some(m)) {
                    Some(i) => {
                        next = i + 1;
                        ReuseItem::Keep(i)
                    }
                    None => ReuseItem::New(m.clone()),
                })
                .collect();
            let (_, items) = plan(&input, Value::Array(output), Format::OpenAi);
            proptest::prop_assert_eq!(items, Some(expected));
        }
    }

    #[test]
    fn a_match_not_confirmed_gives_the_output_whole() {
        // Two messages with one fingerprint (a collision) is what confirming rules out.
        let m = json!({ "role": "user", "content": "q" });
        for output in [json!([m.clone()]), json!({ "system": "s", "messages": [m.clone()] })] {
            let prints = [fingerprint(&m)];
            let (whole, none) = plan_with(output.clone(), Format::Anthropic, &prints, |pairs, _| {
                assert_eq!(pairs, [(0, 0)]);
                false
            });
            assert!(none.is_none());
            assert_eq!(whole, output);
        }
    }

    #[test]
    fn key_order_does_not_matter() {
        let input = json!([{ "id": "a", "role": "user", "parts": [] }, { "role": "assistant", "content": "b" }]);
        let output = json!([{ "parts": [], "role": "user", "id": "a" }, { "role": "assistant", "content": "new" }]);
        let (_, items) = plan(&input, output, Format::AiSdkUi);
        assert_eq!(items.unwrap()[0], ReuseItem::Keep(0));
    }

    #[test]
    fn an_anthropic_request_keeps_its_shell() {
        let input = json!({ "system": "s", "messages": [{ "role": "user", "content": "q" }] });
        let output = json!({ "system": "s2", "messages": [{ "role": "user", "content": "q" }] });
        let (shell, items) = plan(&input, output, Format::Anthropic);
        assert_eq!(shell, json!({ "system": "s2", "messages": [] }));
        assert_eq!(items.unwrap(), vec![ReuseItem::Keep(0)]);
        // An array that gained a system prompt: the shell is the request, items index
        // the input array.
        let (shell, items) = plan(
            &json!([{ "role": "user", "content": "q" }]),
            json!({ "system": "s", "messages": [{ "role": "user", "content": "q" }] }),
            Format::Anthropic,
        );
        assert_eq!(shell, json!({ "system": "s", "messages": [] }));
        assert_eq!(items.unwrap(), vec![ReuseItem::Keep(0)]);
        // Gemini requests keep their `contents`.
        let input = json!({ "systemInstruction": { "parts": [{ "text": "s" }] }, "contents": [{ "role": "user", "parts": [{ "text": "q" }] }] });
        let (shell, items) = plan(&input, input.clone(), Format::Gemini);
        assert_eq!(shell["contents"], json!([]));
        assert_eq!(items.unwrap(), vec![ReuseItem::Keep(0)]);
        let (whole, none) = plan(&json!("x"), json!({ "messages": [] }), Format::Anthropic);
        assert!(none.is_none());
        assert_eq!(whole, json!({ "messages": [] }));
    }

    proptest::proptest! {
        /// A message read as a node has the fingerprint of its `Value`.
        #[test]
        fn a_node_and_its_value_have_one_fingerprint(value in crate::json_eq::tests::value()) {
            proptest::prop_assert_eq!(fingerprint_node(&Node::of(&value)), fingerprint(&value));
        }
    }

    #[test]
    fn fingerprints_tell_near_texts_apart() {
        let texts = ["", "a", "a\0", "ab", "abcdefgh", "abcdefgh\0", "abcdefghi", "abcdefgj", "bacdefgh"];
        let prints: std::collections::HashSet<u64> = texts.iter().map(|t| fingerprint(&json!(t))).collect();
        assert_eq!(prints.len(), texts.len());
        assert_eq!(fingerprint(&json!({ "a": 1, "b": [2] })), fingerprint(&json!({ "b": [2], "a": 1 })));
    }
}
