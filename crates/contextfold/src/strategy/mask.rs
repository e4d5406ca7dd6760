//! Observation masking: tool results older than the last few tool exchanges are replaced
//! by a short visible placeholder that says what was there (the tool, what it was called
//! on, the size, how it began), so the model knows it can call the tool again. No
//! summarizer call: deterministic and idempotent (a placeholder is sealed, and never
//! masked again), and pairs are never broken (the result stays, only its content
//! changes). Measured studies (`shared/reference/PEERS.md`) find it matches or beats
//! LLM summaries on agent tasks at half the cost.
//!
//! It is a strategy of its own (`mask`) and the first phase of `auto`.

use super::{conclude, Action, CompactError, CompactResult, OnError, Outcome};
use crate::format::responses;
use crate::hashing::{HashMap, HashSet};
use crate::measure::{sum_costs, Amount, Meter, Unit};
use crate::message::{Message, Part, Role, TextPart, ToolCallPart, ToolResultPart};
use serde_json::Value;
use std::borrow::{Borrow, Cow};
use std::fmt::Write;

/// Settings of observation masking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaskConfig {
    /// Newest tool exchanges (assistant messages with tool calls, and their results)
    /// kept whole.
    pub keep_last: usize,
    /// Tools whose results are never masked.
    pub exclude_tools: Vec<String>,
    /// Results (and, with `mask_arguments`, argument values) smaller than this many
    /// bytes are kept: a placeholder would save little.
    pub min_bytes: usize,
    /// Also mask large string values in the arguments of older tool calls (the content
    /// of a file write, say); the keys and small values stay, so the call still reads.
    pub mask_arguments: bool,
    /// Only when the chain is over this (`None`: always).
    pub max: Option<Amount>,
    pub on_error: OnError,
}

impl Default for MaskConfig {
    /// The last 3 exchanges kept, results of 512 bytes and more masked, arguments kept.
    fn default() -> Self {
        MaskConfig {
            keep_last: 3,
            exclude_tools: Vec::new(),
            min_bytes: 512,
            mask_arguments: false,
            max: None,
            on_error: OnError::Rollback,
        }
    }
}

/// Seal kind of a placeholder (see [`crate::ast::seal`]).
const MASK_MARK: &str = "masked";
/// How a placeholder begins.
pub const MASK_PREFIX: &str = "[masked tool output]";
/// How a masked argument value reads.
const ARGUMENT_PREFIX: &str = "[masked:";

/// Whether `text` is a placeholder this module wrote.
pub fn is_masked(text: &str) -> bool {
    masked_body(text).is_some()
}

/// What a placeholder this module wrote says, without its seal.
pub fn masked_body(text: &str) -> Option<&str> {
    crate::ast::unseal(text, MASK_MARK).filter(|t| t.starts_with(MASK_PREFIX))
}

/// One masked result or argument value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Masked {
    /// Index of the message.
    pub message: usize,
    pub tool: String,
    pub bytes_before: usize,
    pub bytes_after: usize,
}

/// `messages` with what [`MaskConfig`] masks replaced, and what was masked. A message
/// nothing was masked in is borrowed, not copied: only the masked ones are new.
pub fn mask<'a>(messages: &'a [Message], config: &MaskConfig) -> (Vec<Cow<'a, Message>>, Vec<Masked>) {
    mask_oldest(messages, config, usize::MAX)
}

/// [`mask`] of the `limit` oldest results (and argument values) it would mask, at most.
pub fn mask_oldest<'a>(
    messages: &'a [Message],
    config: &MaskConfig,
    limit: usize,
) -> (Vec<Cow<'a, Message>>, Vec<Masked>) {
    let calls: HashMap<&str, &ToolCallPart> =
        messages.iter().flat_map(Message::tool_calls).map(|c| (c.id.as_str(), c)).collect();
    // The calls of the newest `keep_last` exchanges.
    let recent: HashSet<&str> = messages
        .iter()
        .rev()
        .filter(|m| m.role == Role::Assistant && m.has_tool_calls())
        .take(config.keep_last)
        .flat_map(Message::tool_calls)
        .map(|c| c.id.as_str())
        .collect();
    let excluded = |name: &str| config.exclude_tools.iter().any(|t| t == name);
    let mut out = Vec::with_capacity(messages.len());
    let mut masked = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        // Part by part: a masked result is never copied, only replaced; the parts are
        // copied from the first one masked on (`None` while none is).
        let mut parts: Option<Vec<Part>> = None;
        for (at, part) in m.parts.iter().enumerate() {
            let replaced = match part {
                _ if masked.len() >= limit => None,
                Part::ToolResult(r) if !recent.contains(r.call_id.as_str()) => {
                    let call = calls.get(r.call_id.as_str()).copied();
                    let tool = r.name.clone().or_else(|| call.map(|c| c.name.clone())).unwrap_or_else(|| "tool".into());
                    let before: usize = r.content.iter().map(Part::size).sum();
                    let already = matches!(r.content.as_slice(), [Part::Text(t)] if is_masked(&t.text));
                    // A screenshot (a Responses computer call's output) cannot hold one.
                    let item = responses::native::only_item_answers(r, call);
                    if before < config.min_bytes || already || item || excluded(&tool) {
                        None
                    } else {
                        let text = crate::ast::seal(placeholder(&tool, call, &r.content, before), MASK_MARK);
                        let after = text.len();
                        (after < before).then(|| {
                            masked.push(Masked { message: i, tool, bytes_before: before, bytes_after: after });
                            Part::ToolResult(ToolResultPart {
                                call_id: r.call_id.clone(),
                                name: r.name.clone(),
                                content: vec![Part::Text(TextPart { text, extra: crate::message::Extra::new() })],
                                is_error: r.is_error,
                                extra: r.extra.clone(),
                            })
                        })
                    }
                }
                Part::ToolCall(c)
                    if config.mask_arguments
                        && !recent.contains(c.id.as_str())
                        && c.signature.is_none()
                        && responses::native::block_of(&c.extra).is_none()
                        && !excluded(&c.name) =>
                {
                    mask_arguments(&c.arguments, config.min_bytes).map(|arguments| {
                        let (bytes_before, bytes_after) = (c.arguments.len(), arguments.len());
                        masked.push(Masked { message: i, tool: c.name.clone(), bytes_before, bytes_after });
                        Part::ToolCall(ToolCallPart {
                            id: c.id.clone(),
                            name: c.name.clone(),
                            arguments,
                            signature: None,
                            extra: c.extra.clone(),
                        })
                    })
                }
                _ => None,
            };
            match (replaced, parts.as_mut()) {
                (None, None) => {}
                (None, Some(parts)) => parts.push(part.clone()),
                (Some(new), Some(parts)) => parts.push(new),
                (Some(new), None) => {
                    let mut copy = Vec::with_capacity(m.parts.len());
                    copy.extend(m.parts.get(..at).unwrap_or_default().iter().cloned());
                    copy.push(new);
                    parts = Some(copy);
                }
            }
        }
        out.push(match parts {
            Some(parts) => Cow::Owned(Message { role: m.role, parts, extra: m.extra.clone() }),
            None => Cow::Borrowed(m),
        });
    }
    (out, masked)
}

/// The arguments with every string value of `min_bytes` or more replaced by its size;
/// `None` when nothing is large (or the arguments are no JSON object).
fn mask_arguments(arguments: &str, min_bytes: usize) -> Option<String> {
    let Ok(Value::Object(mut map)) = serde_json::from_str::<Value>(arguments) else { return None };
    let mut removed = 0usize;
    for value in map.values_mut() {
        if let Value::String(s) = value {
            if s.len() >= min_bytes.max(64) && !s.starts_with(ARGUMENT_PREFIX) {
                let lines = line_count(s);
                let short = format!("{ARGUMENT_PREFIX} {} bytes, {lines} lines]", s.len());
                removed = removed.saturating_add(s.len().saturating_sub(short.len()));
                *s = short;
            }
        }
    }
    (removed > 0).then(|| Value::Object(map).to_string())
}

/// What the placeholder of a masked result says.
fn placeholder(tool: &str, call: Option<&ToolCallPart>, content: &[Part], bytes: usize) -> String {
    let on = call.and_then(|c| telling_argument(&c.arguments));
    // Results are mostly one text part: read in place, not copied.
    let text: std::borrow::Cow<'_, str> = match content {
        [Part::Text(t)] => t.text.as_str().into(),
        _ => content.iter().filter_map(|p| if let Part::Text(t) = p { Some(t.text.as_str()) } else { None }).collect(),
    };
    let media = content.iter().filter(|p| matches!(p, Part::Image(_) | Part::File(_))).count();
    // One string, written in place (masking writes thousands a call), sealed in place.
    let mut out = String::with_capacity(320);
    let _ = write!(out, "{MASK_PREFIX} The output of {tool}");
    if let Some(on) = on {
        out.push_str(" on ");
        out.push_str(&on);
    }
    let _ = write!(out, " ({bytes} bytes");
    if !text.is_empty() {
        let _ = write!(out, ", {} lines", line_count(&text));
    }
    if media > 0 {
        let _ = write!(out, ", {media} image(s) or file(s)");
    }
    out.push(')');
    // Only an object is read as JSON: the parse of every other result was wasted.
    let object = text.trim_start().starts_with('{');
    match object.then(|| serde_json::from_str::<ObjectKeys>(&text)).and_then(Result::ok) {
        Some(ObjectKeys(keys)) => {
            out.push_str(" was a JSON object with the fields ");
            for (k, key) in keys.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                out.push_str(key);
            }
        }
        None => {
            if let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty()) {
                // Its first 120 characters, sliced (not pushed one at a time).
                let end = first.char_indices().nth(120).map_or(first.len(), |(at, _)| at);
                out.push_str(" began: \"");
                out.push_str(first.get(..end).unwrap_or(first));
                out.push('"');
            }
        }
    }
    out.push_str(". It was removed to save context; call the tool again if you need it.");
    out
}

/// `text.lines().count()`, counting newlines instead of cutting lines out (every result
/// masked is counted: most of a chain's text).
fn line_count(text: &str) -> usize {
    let newlines = count_byte(text.as_bytes(), b'\n');
    newlines.saturating_add(usize::from(!text.is_empty() && !text.ends_with('\n')))
}

/// How many bytes of `bytes` are `byte`, eight at a time: a byte equal to `byte` is a
/// zero byte of the word XORed with it, and each zero byte sets exactly one high bit
/// (the exact test, without the borrow of the short one; wasm has no SIMD to do better).
fn count_byte(bytes: &[u8], byte: u8) -> usize {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let pattern = u64::from_ne_bytes([byte; 8]);
    let mut words = bytes.chunks_exact(8);
    let mut count = 0usize;
    for word in &mut words {
        let x = word.try_into().map_or(0, u64::from_ne_bytes) ^ pattern;
        let zero_high = !(((x & LOW7).wrapping_add(LOW7)) | x | LOW7);
        count = count.saturating_add(zero_high.count_ones() as usize);
    }
    count.saturating_add(words.remainder().iter().filter(|&&b| b == byte).count())
}

/// Argument names that say what a call was about, the most telling first.
const TELLING_KEYS: [&str; 9] = ["file_path", "path", "command", "cmd", "query", "pattern", "url", "filename", "id"];

/// The argument that says what a call was about: a path, a command, a query.
fn telling_argument(arguments: &str) -> Option<String> {
    let TellingArguments(found) = serde_json::from_str(arguments).ok()?;
    let value = found.into_iter().flatten().next()?;
    let short: String = value.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(120).collect();
    Some(format!("`{short}`"))
}

/// Of a JSON object, the string value of each of [`TELLING_KEYS`] (the last one given
/// for a key, as a map keeps it; `None` for a key absent or not a string), every other
/// value skipped unread: no tree of the whole arguments is built for one field.
struct TellingArguments(Vec<Option<String>>);

impl<'de> serde::Deserialize<'de> for TellingArguments {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = TellingArguments;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<TellingArguments, A::Error> {
                let mut found: Vec<Option<String>> = vec![None; TELLING_KEYS.len()];
                while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                    match TELLING_KEYS.iter().position(|k| *k == key).and_then(|at| found.get_mut(at)) {
                        Some(slot) => *slot = map.next_value::<Value>()?.as_str().map(str::to_string),
                        None => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(TellingArguments(found))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

/// Fields a placeholder names of a result that is a JSON object.
const LISTED_KEYS: usize = 12;

/// Of a JSON object, its first [`LISTED_KEYS`] keys in the order a map keeps them (a
/// repeated key where it first stood), the values skipped unread: a result's whole tree
/// was built for its keys alone. The text must still be one whole JSON object; a value
/// a tree would refuse though `JSON.parse` reads it (nested past 128 levels, a lone
/// surrogate escape, a number past f64) is skipped like any other.
struct ObjectKeys<'de>(Vec<Cow<'de, str>>);

impl<'de> serde::Deserialize<'de> for ObjectKeys<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = ObjectKeys<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<ObjectKeys<'de>, A::Error> {
                let mut keys: Vec<Cow<'de, str>> = Vec::new();
                while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                    if keys.len() < LISTED_KEYS && !keys.contains(&key) {
                        keys.push(key);
                    }
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
                Ok(ObjectKeys(keys))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

/// A key borrowed from the text when it holds no escape (serde's own `Cow` always copies).
struct Key<'de>(Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

/// Costs of `masked`, a copy of the chain costing `costs` in which only the messages the
/// mask `items` name changed.
pub(crate) fn after_mask(
    costs: &[usize],
    masked: &[impl Borrow<Message>],
    items: &[Masked],
    meter: Meter<'_>,
    unit: Unit,
) -> Vec<usize> {
    let mut changed: Vec<usize> = items.iter().map(|item| item.message).collect();
    // Items come in message order; a message may hold several.
    changed.dedup();
    let (at, messages): (Vec<usize>, Vec<&Message>) =
        changed.into_iter().filter_map(|i| masked.get(i).map(|m| (i, m.borrow()))).unzip();
    let mut out = costs.to_vec();
    for (i, cost) in at.into_iter().zip(meter.costs_of(unit, &messages)) {
        if let Some(slot) = out.get_mut(i) {
            *slot = cost;
        }
    }
    out
}

/// The masks of [`mask_oldest`] for any `limit`, taken from one whole [`mask`] of the
/// chain instead of masking it again: its `limit` oldest items are the ones that call
/// would mask, with the same placeholders.
pub(crate) struct Oldest<'a> {
    chain: &'a [Message],
    all: &'a [Cow<'a, Message>],
    items: &'a [Masked],
    /// Costs before masking, and sums of the first `i` costs after and before.
    costs: &'a [usize],
    after_prefix: Vec<usize>,
    before_prefix: Vec<usize>,
}

impl<'a> Oldest<'a> {
    /// `all` and `items`: [`mask`] of `chain`; `costs` and `all_costs`: their costs.
    pub(crate) fn new(
        chain: &'a [Message],
        costs: &'a [usize],
        all: &'a [Cow<'a, Message>],
        all_costs: &[usize],
        items: &'a [Masked],
    ) -> Self {
        let prefix = |costs: &[usize]| {
            let mut sums = Vec::with_capacity(costs.len().saturating_add(1));
            sums.push(0usize);
            sums.extend(costs.iter().scan(0usize, |sum, c| {
                *sum = sum.saturating_add(*c);
                Some(*sum)
            }));
            sums
        };
        Oldest { chain, all, items, costs, after_prefix: prefix(all_costs), before_prefix: prefix(costs) }
    }

    /// The message the `limit`-th item is in (the first left whole), and how many of its
    /// items are masked; `None` when every item is.
    fn boundary(&self, limit: usize) -> Option<(usize, usize)> {
        let message = self.items.get(limit)?.message;
        let masked =
            self.items.get(..limit).unwrap_or_default().iter().rev().take_while(|i| i.message == message).count();
        Some((message, masked))
    }

    /// Message `at` with its `k` first masked parts masked.
    fn partial(&self, at: usize, k: usize) -> Option<Message> {
        let (mut m, all) = (self.chain.get(at)?.clone(), self.all.get(at)?);
        let mut left = k;
        for (part, masked) in m.parts.iter_mut().zip(&all.parts) {
            if left == 0 {
                break;
            }
            // A masked part always differs: its placeholder is shorter than what it replaced.
            if part != masked {
                *part = masked.clone();
                left = left.saturating_sub(1);
            }
        }
        Some(m)
    }

    /// What the chain costs with its `limit` oldest items masked.
    pub(crate) fn cost(&self, limit: usize, meter: Meter<'_>, unit: Unit) -> usize {
        let total = |sums: &[usize], range: std::ops::Range<usize>| {
            sums.get(range.end).copied().unwrap_or(0).saturating_sub(sums.get(range.start).copied().unwrap_or(0))
        };
        let Some((at, k)) = self.boundary(limit) else {
            return self.after_prefix.last().copied().unwrap_or(0);
        };
        let end = self.costs.len();
        let middle = match self.partial(at, k).filter(|_| k > 0) {
            Some(m) => meter.costs_of(unit, &[&m]).first().copied().unwrap_or(0),
            None => self.costs.get(at).copied().unwrap_or(0),
        };
        total(&self.after_prefix, 0..at)
            .saturating_add(middle)
            .saturating_add(total(&self.before_prefix, at.saturating_add(1)..end))
    }

    /// The chain with its `limit` oldest items masked, and those items.
    pub(crate) fn chain(&self, limit: usize) -> (Vec<Cow<'a, Message>>, &'a [Masked]) {
        let items = self.items.get(..limit).unwrap_or(self.items);
        let Some((at, k)) = self.boundary(limit) else {
            return (self.all.to_vec(), items);
        };
        let mut out: Vec<Cow<'a, Message>> = self.all.get(..at).unwrap_or_default().to_vec();
        out.extend(self.partial(at, k).map(Cow::Owned));
        out.extend(self.chain.get(at.saturating_add(1)..).unwrap_or_default().iter().map(Cow::Borrowed));
        (out, items)
    }
}

/// The `mask` strategy: [`mask`] alone, when the chain is over `config.max` (always
/// without one). The input is parsed in repair mode like every strategy's.
pub fn compact(messages: &[Message], config: &MaskConfig, meter: Meter<'_>) -> Result<CompactResult, CompactError> {
    let super::Read { chain, starts, sections, repairs } = super::read(messages)?;
    let chain: &[Message] = &chain;
    // The report's estimate, counted once: the trigger reads it too when it is the
    // meter's, and the result's is this with the masked messages counted again.
    let estimate = Meter::default();
    let tokens = estimate.costs(Unit::Tokens, chain);
    let over = config.max.is_none_or(|max| {
        if meter.is_estimate(max.unit()) {
            sum_costs(&tokens) > max.value()
        } else {
            !meter.fits(max, chain)
        }
    });
    let (masked, items) = if over { mask(chain, config) } else { (Vec::new(), Vec::new()) };
    let after_tokens = sum_costs(&after_mask(&tokens, &masked, &items, estimate, Unit::Tokens));
    let before_tokens = repairs.is_empty().then(|| sum_costs(&tokens));
    let mut actions = vec![Vec::new(); sections];
    for item in &items {
        let section = starts.partition_point(|&s| s <= item.message).saturating_sub(1).min(sections.saturating_sub(1));
        if let Some(list) = actions.get_mut(section) {
            list.push(Action::Masked {
                message: item.message,
                tool: item.tool.clone(),
                bytes_before: item.bytes_before,
                bytes_after: item.bytes_after,
            });
        }
    }
    conclude(Outcome {
        strategy: "mask",
        original: messages,
        result: (!items.is_empty()).then(|| crate::message::owned_messages(masked)),
        engine: &crate::summarize::Engine::default(),
        errors: Vec::new(),
        actions,
        repairs,
        on_error: config.on_error,
        cancelled: false,
        hard_budget: false,
        before_tokens,
        after_tokens: Some(after_tokens),
    })
}

/// Whether [`compact`] would mask anything.
pub fn needs_compaction(messages: &[Message], config: &MaskConfig, meter: Meter<'_>) -> bool {
    config.max.is_none_or(|max| !meter.fits(max, messages)) && would_mask(messages, config)
}

/// Whether masking would replace anything (the budget aside).
pub(crate) fn would_mask(messages: &[Message], config: &MaskConfig) -> bool {
    !mask(messages, config).1.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Extra;
    use proptest::prelude::*;

    /// Exchanges of `shape[i]` calls each, answered by one tool message holding every
    /// result (as Anthropic's user messages do); `sizes` gives each result's length and,
    /// with the arguments masked too, each call's argument length.
    fn chain(shape: &[usize], sizes: &[usize]) -> Vec<Message> {
        let mut size = sizes.iter().cycle();
        let mut next = || size.next().copied().unwrap_or(600);
        let mut out = vec![Message::text(Role::User, "Fix the parser.")];
        for (e, calls) in shape.iter().enumerate() {
            let ids: Vec<String> = (0..*calls).map(|c| format!("c{e}_{c}")).collect();
            let parts = ids
                .iter()
                .map(|id| {
                    let arguments = format!(r#"{{"path":"src/{id}.rs","content":"{}"}}"#, "x".repeat(next()));
                    Part::ToolCall(ToolCallPart {
                        id: id.clone(),
                        name: "edit".into(),
                        arguments,
                        signature: None,
                        extra: Extra::new(),
                    })
                })
                .collect();
            out.push(Message::new(Role::Assistant, parts));
            let results = ids
                .iter()
                .map(|id| {
                    Part::ToolResult(ToolResultPart {
                        call_id: id.clone(),
                        name: None,
                        content: vec![Part::text(format!("line of {id}\n").repeat(next() / 8))],
                        is_error: false,
                        extra: Extra::new(),
                    })
                })
                .collect();
            out.push(Message::new(Role::Tool, results));
        }
        out
    }

    proptest! {
        #[test]
        fn line_count_counts_lines(text in "[a\r\n\u{a0}\u{10a}]{0,40}") {
            // Long enough for whole words, with bytes one bit away from a newline.
            prop_assert_eq!(line_count(&text), text.lines().count());
        }

        /// Every limit: the same chain, items and costs as masking the oldest again.
        #[test]
        fn the_oldest_masks_are_what_masking_them_again_gives(
            shape in proptest::collection::vec(0usize..4, 1..9),
            sizes in proptest::collection::vec(0usize..2000, 1..12),
            keep_last in 0usize..3,
            mask_arguments: bool,
        ) {
            let chain = chain(&shape, &sizes);
            let config = MaskConfig { keep_last, mask_arguments, ..MaskConfig::default() };
            let (meter, unit) = (Meter::default(), Unit::Tokens);
            let costs = meter.costs(unit, &chain);
            let (all, items) = mask(&chain, &config);
            let all_costs = after_mask(&costs, &all, &items, meter, unit);
            let oldest = Oldest::new(&chain, &costs, &all, &all_costs, &items);
            for limit in 0..=items.len() {
                let (expected, expected_items) = mask_oldest(&chain, &config, limit);
                let (got, got_items) = oldest.chain(limit);
                prop_assert_eq!(&got, &expected, "limit {}", limit);
                prop_assert_eq!(got_items, expected_items.as_slice());
                let expected_cost = sum_costs(&after_mask(&costs, &expected, &expected_items, meter, unit));
                prop_assert_eq!(oldest.cost(limit, meter, unit), expected_cost, "limit {}", limit);
            }
        }

        /// The fields a placeholder lists are the first keys of a whole parse's map (a
        /// repeated key, written escaped or not, where it first stood); a text the key
        /// reader rejects, a whole parse rejects too.
        #[test]
        fn listed_keys_are_the_first_of_a_whole_parse(
            fields in proptest::collection::vec(
                (prop::sample::select(vec!["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "\\u0061", "\\\"q"]),
                 prop_oneof![
                     Just("\"x\\ny\"".to_string()), Just("-1.5e3".to_string()), Just("[1,{\"a\":[]}]".to_string()),
                     Just("null".to_string()), Just("{\"b\":true}".to_string()), Just("tru".to_string()), Just("01".to_string()),
                 ]),
                0..16,
            ),
            tail in prop_oneof![Just(""), Just(" \n"), Just("x"), Just("}"), Just(",")],
        ) {
            let body: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            let text = format!("{{{}}}{tail}", body.join(","));
            let whole = match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(map)) => Some(map.keys().take(LISTED_KEYS).cloned().collect::<Vec<_>>()),
                _ => None,
            };
            let read = serde_json::from_str::<ObjectKeys>(&text).ok().map(|k| k.0.into_iter().map(Cow::into_owned).collect::<Vec<_>>());
            prop_assert_eq!(read, whole, "{}", text);
        }

        /// The telling argument read field by field is the one a whole parse finds: the
        /// first key of [`TELLING_KEYS`] holding a string, a repeated key's last value.
        #[test]
        fn telling_argument_reads_as_a_whole_parse(
            fields in proptest::collection::vec(
                (prop::sample::select(vec!["path", "command", "id", "other", "pa\\u0074h", "url"]),
                 prop_oneof![
                     "[ a-z/\\\\\"]{0,8}".prop_map(|s| serde_json::to_string(&s).unwrap_or_default()),
                     Just("12".to_string()), Just("[1,{\"path\":\"x\"}]".to_string()), Just("null".to_string()),
                 ]),
                0..6,
            ),
            tail in prop_oneof![Just(""), Just(" "), Just("x"), Just("}")],
        ) {
            let body: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            let arguments = format!("{{{}}}{tail}", body.join(","));
            let whole = match serde_json::from_str::<Value>(&arguments) {
                Ok(Value::Object(map)) => TELLING_KEYS.iter().find_map(|k| map.get(*k).and_then(Value::as_str)).map(|value| {
                    let short: String = value.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(120).collect();
                    format!("`{short}`")
                }),
                _ => None,
            };
            prop_assert_eq!(telling_argument(&arguments), whole, "{}", arguments);
        }
    }
}
