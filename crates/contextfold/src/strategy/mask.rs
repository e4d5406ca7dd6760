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
use crate::measure::{sum_costs, Amount, Meter, Unit};
use crate::message::{Message, Part, Role, TextPart, ToolCallPart};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

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
    crate::ast::unseal(text, MASK_MARK).is_some_and(|t| t.starts_with(MASK_PREFIX))
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

/// `messages` with what [`MaskConfig`] masks replaced, and what was masked.
pub fn mask(messages: &[Message], config: &MaskConfig) -> (Vec<Message>, Vec<Masked>) {
    mask_oldest(messages, config, usize::MAX)
}

/// [`mask`] of the `limit` oldest results (and argument values) it would mask, at most.
pub fn mask_oldest(messages: &[Message], config: &MaskConfig, limit: usize) -> (Vec<Message>, Vec<Masked>) {
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
        let mut m = m.clone();
        for part in &mut m.parts {
            match part {
                _ if masked.len() >= limit => {}
                Part::ToolResult(r) if !recent.contains(r.call_id.as_str()) => {
                    let call = calls.get(r.call_id.as_str()).copied();
                    let tool = r.name.clone().or_else(|| call.map(|c| c.name.clone())).unwrap_or_else(|| "tool".into());
                    let before: usize = r.content.iter().map(Part::size).sum();
                    let already = matches!(r.content.as_slice(), [Part::Text(t)] if is_masked(&t.text));
                    // A provider's own output item (a screenshot) cannot hold a placeholder.
                    let item = responses::native::output_item(r).is_some();
                    if before < config.min_bytes || already || item || excluded(&tool) {
                        continue;
                    }
                    let text = crate::ast::seal(&placeholder(&tool, call, &r.content, before), MASK_MARK);
                    let after = text.len();
                    if after >= before {
                        continue;
                    }
                    r.content = vec![Part::Text(TextPart { text, extra: crate::message::Extra::new() })];
                    masked.push(Masked { message: i, tool, bytes_before: before, bytes_after: after });
                }
                Part::ToolCall(c)
                    if config.mask_arguments
                        && !recent.contains(c.id.as_str())
                        && c.signature.is_none()
                        && responses::native::block_of(&c.extra).is_none()
                        && !excluded(&c.name) =>
                {
                    if let Some(arguments) = mask_arguments(&c.arguments, config.min_bytes) {
                        let bytes_before = c.arguments.len();
                        let bytes_after = arguments.len();
                        c.arguments = arguments;
                        masked.push(Masked { message: i, tool: c.name.clone(), bytes_before, bytes_after });
                    }
                }
                _ => {}
            }
        }
        out.push(m);
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
                let lines = s.lines().count();
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
    let on = call.and_then(|c| telling_argument(&c.arguments)).map(|a| format!(" on {a}")).unwrap_or_default();
    let text: String =
        content.iter().filter_map(|p| if let Part::Text(t) = p { Some(t.text.as_str()) } else { None }).collect();
    let media = content.iter().filter(|p| matches!(p, Part::Image(_) | Part::File(_))).count();
    let mut out = format!("{MASK_PREFIX} The output of {tool}{on} ({bytes} bytes");
    if !text.is_empty() {
        out.push_str(&format!(", {} lines", text.lines().count()));
    }
    if media > 0 {
        out.push_str(&format!(", {media} image(s) or file(s)"));
    }
    out.push(')');
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => {
            let keys: Vec<&str> = map.keys().take(12).map(String::as_str).collect();
            out.push_str(&format!(" was a JSON object with the fields {}", keys.join(", ")));
        }
        _ => {
            if let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty()) {
                let first: String = first.chars().take(120).collect();
                out.push_str(&format!(" began: \"{first}\""));
            }
        }
    }
    out.push_str(". It was removed to save context; call the tool again if you need it.");
    out
}

/// The argument that says what a call was about: a path, a command, a query.
fn telling_argument(arguments: &str) -> Option<String> {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(arguments) else { return None };
    let keys = ["file_path", "path", "command", "cmd", "query", "pattern", "url", "filename", "id"];
    let value = keys.iter().find_map(|k| map.get(*k).and_then(Value::as_str))?;
    let short: String = value.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(120).collect();
    Some(format!("`{short}`"))
}

/// Costs of `masked`, a copy of the chain costing `costs` in which only the messages the
/// mask `items` name changed.
pub(crate) fn after_mask(
    costs: &[usize],
    masked: &[Message],
    items: &[Masked],
    meter: Meter<'_>,
    unit: Unit,
) -> Vec<usize> {
    let mut changed: Vec<usize> = items.iter().map(|item| item.message).collect();
    // Items come in message order; a message may hold several.
    changed.dedup();
    let (at, messages): (Vec<usize>, Vec<&Message>) =
        changed.into_iter().filter_map(|i| masked.get(i).map(|m| (i, m))).unzip();
    let mut out = costs.to_vec();
    for (i, cost) in at.into_iter().zip(meter.costs_of(unit, &messages)) {
        if let Some(slot) = out.get_mut(i) {
            *slot = cost;
        }
    }
    out
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
        result: (!items.is_empty()).then_some(masked),
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
    config.max.is_none_or(|max| !meter.fits(max, messages)) && !mask(messages, config).1.is_empty()
}
