//! Where the tiers fall: what an earlier run left (system messages, summaries, bridge)
//! and the boundaries of this run.
//!
//! Boundaries are message positions in the (repaired) input. The recent tier starts at
//! least `recent` messages from the end and never after the last assistant message (the
//! last exchange, with its reasoning signatures, is never summarized); the condensed
//! tier starts at least `condensed` messages before it. Each boundary then moves back
//! to a clean point: the latest user message within half the tier's size, else the
//! latest message that is not a tool result (the assistant message opening an exchange).
//! So a tool call and its results always stay on the same side, and a tier is never
//! smaller than asked.

use super::marker::{
    covered, from_text, header, is_bridge, strip_prefix, summary_body, summary_info, TierLevel, BRIDGE_TEXT,
    METADATA_KEY,
};
use super::TiersConfig;
use crate::message::{messages_size, Message, Part, Role};
use crate::summarize::MessageRange;

/// An earlier summary found in the input.
pub(super) struct Previous {
    /// Its text without prefix (several compressed ones joined by blank lines).
    pub text: String,
    /// Original messages it covers.
    pub count: usize,
    pub bytes: usize,
    /// Input index of the message carrying it (the first one, when several).
    pub index: usize,
    /// The message itself (condensed summaries only).
    pub message: Option<Message>,
}

/// What an earlier run left at the start of the chain.
pub(super) struct Existing {
    /// The leading system messages, as they are.
    pub head: Vec<Message>,
    /// The leading system messages without the compressed summaries they carry.
    pub systems: Vec<Message>,
    pub compressed: Option<Previous>,
    pub condensed: Option<Previous>,
    /// Index of the first message after the head, a bridge, a condensed summary and the
    /// bridge after it.
    pub body: usize,
}

/// Finds the parts of a tiered history: compressed summaries among the leading system
/// messages (whole messages, or text parts of a system message that a provider format
/// joined), then an optional bridge, an optional condensed summary and its bridge.
pub(super) fn detect(input: &[Message]) -> Existing {
    let lead = input.iter().take_while(|m| m.role == Role::System).count();
    let head = input.get(..lead).unwrap_or_default().to_vec();
    let mut systems = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    let mut compressed: Option<Previous> = None;
    let mut add = |index: usize, text: String, count: usize, bytes: usize| {
        texts.push(text);
        let p = compressed.get_or_insert(Previous { text: String::new(), count: 0, bytes: 0, index, message: None });
        p.count = p.count.saturating_add(count);
        p.bytes = p.bytes.saturating_add(bytes);
    };
    for (i, m) in head.iter().enumerate() {
        if let Some(info) = summary_info(m).filter(|s| s.level == TierLevel::Compressed) {
            if m.parts.len() == 1 || m.extra.contains_key(METADATA_KEY) {
                add(i, summary_body(m), info.message_count, m.size());
                continue;
            }
        }
        let mut kept = m.clone();
        kept.parts.clear();
        for p in &m.parts {
            if let Part::Text(t) = p {
                if let Some((TierLevel::Compressed, count)) = from_text(&t.text) {
                    add(i, strip_prefix(&t.text).to_string(), count, p.size());
                    continue;
                }
            }
            kept.parts.push(p.clone());
        }
        if !kept.parts.is_empty() {
            systems.push(kept);
        }
    }
    if let Some(p) = compressed.as_mut() {
        p.text = texts.join("\n\n");
    }
    let mut at = lead;
    if input.get(at).is_some_and(is_bridge) {
        at = at.saturating_add(1);
    }
    let condensed = input.get(at).and_then(|m| {
        let info = summary_info(m).filter(|s| s.level == TierLevel::Condensed)?;
        Some(Previous {
            text: summary_body(m),
            count: info.message_count,
            bytes: m.size(),
            index: at,
            message: Some(m.clone()),
        })
    });
    if condensed.is_some() {
        at = at.saturating_add(1);
        if input.get(at).is_some_and(is_bridge) {
            at = at.saturating_add(1);
        }
    }
    Existing { head, systems, compressed, condensed, body: at }
}

/// Messages becoming (or merged into) one summary.
pub(super) struct Span<'a> {
    pub level: TierLevel,
    /// An earlier summary this one updates (sent as `<previous_summary>`).
    pub previous: Option<String>,
    /// Messages the request carries, where they lie (the input, an earlier summary).
    pub content: Vec<&'a Message>,
    /// What stays before `content` when the summary is not applied (the earlier condensed
    /// summary it would have merged): the fallback is these, then `content`. A copy of
    /// the content itself was one more copy of the span.
    pub fallback_lead: Option<&'a Message>,
    /// Original messages covered, earlier summaries' counts included.
    pub count: usize,
    /// Size of everything the summary replaces, earlier summaries included.
    pub bytes_before: usize,
    pub merged: bool,
    /// Input messages replaced.
    pub range: MessageRange,
    /// Bytes of the bridges this summary may bring in (counted against its gain).
    pub bridge: usize,
}

/// This run's tiers.
pub(super) struct Plan<'a> {
    pub compressed: Option<Span<'a>>,
    pub condensed: Option<Span<'a>>,
    /// The recent tier, kept verbatim.
    pub recent: &'a [Message],
}

/// The tiers of this run, or `None` when no message is older than the recent tier.
///
/// Messages aging out of the recent tier join the condensed summary while it stays
/// within `condensed` messages (an update of it when there is one). Otherwise the
/// condensed tier is rebuilt from the last `condensed` of them, and the rest, with the
/// old condensed summary as one of its messages, is merged into the compressed summary
/// (an update of the old one when there is one): at most one summary per level.
pub(super) fn plan<'a>(input: &'a [Message], existing: &'a Existing, config: &TiersConfig) -> Option<Plan<'a>> {
    let n = input.len();
    let b = existing.body;
    let mut target = n.saturating_sub(config.recent.max(1));
    if let Some(last_ai) = (b..n).rev().find(|&i| input.get(i).is_some_and(|m| m.role == Role::Assistant)) {
        target = target.min(last_ai);
    }
    let t = clean_start(input, b, target, half(config.recent));
    if t <= b {
        return None;
    }
    let aging = input.get(b..t)?;
    let recent = input.get(t..)?;
    let old = existing.condensed.as_ref();
    let old_message = old.and_then(|p| p.message.as_ref());
    if old.map_or(0, |p| p.count).saturating_add(weight(aging.iter())) <= config.condensed {
        let condensed = Span {
            level: TierLevel::Condensed,
            previous: old.map(|p| p.text.clone()),
            content: aging.iter().collect(),
            count: old.map_or(0, |p| p.count).saturating_add(weight(aging.iter())),
            bytes_before: old.map_or(0, |p| p.bytes).saturating_add(messages_size(aging)),
            merged: old.is_some(),
            range: MessageRange { start: old.map_or(b, |p| p.index), end: t },
            bridge: condensed_bridges(recent),
            fallback_lead: old_message,
        };
        return Some(Plan { compressed: None, condensed: Some(condensed), recent });
    }
    let c = if config.condensed == 0 {
        t
    } else {
        clean_start(input, b, t.saturating_sub(config.condensed), half(config.condensed))
    };
    let mut content: Vec<&Message> = old_message.into_iter().chain(input.get(b..c)?).collect();
    let prev = existing.compressed.as_ref();
    let mut span: Vec<&Message> = input.get(c..t)?.iter().collect();
    let mut span_start = c;
    let comp_bytes = prev.map_or(0, |p| p.bytes).saturating_add(size_of(&content));
    let comp_count = prev.map_or(0, |p| p.count).saturating_add(weight(content.iter().copied()));
    // After a compressed summary, an assistant message needs the bridge.
    let comp_bridge = if input.get(c).is_some_and(|m| m.role == Role::Assistant) { BRIDGE_TEXT.len() } else { 0 };
    if !content.is_empty() && too_small(config, TierLevel::Compressed, comp_bytes, comp_count, comp_bridge) {
        // Too little to compress on its own: it joins the condensed summary, so no
        // verbatim remainder sits before a summary (and a rerun stays free).
        content.append(&mut span);
        span = content;
        content = Vec::new();
        span_start = old.map_or(b, |p| p.index);
    }
    let compressed = (!content.is_empty()).then(|| Span {
        level: TierLevel::Compressed,
        previous: prev.map(|p| p.text.clone()),
        count: comp_count,
        bytes_before: comp_bytes,
        merged: prev.is_some() || old.is_some(),
        range: MessageRange { start: prev.or(old).map_or(b, |p| p.index), end: c },
        bridge: comp_bridge,
        fallback_lead: None,
        content,
    });
    let condensed = (!span.is_empty()).then(|| Span {
        level: TierLevel::Condensed,
        previous: None,
        count: weight(span.iter().copied()),
        bytes_before: size_of(&span),
        merged: span_start < c && old.is_some(),
        range: MessageRange { start: span_start, end: t },
        bridge: condensed_bridges(recent),
        fallback_lead: None,
        content: span,
    });
    Some(Plan { compressed, condensed, recent })
}

/// Bridges a condensed summary (an assistant message) may bring in: one before it, as
/// only system messages or the compressed summary can precede it, and one after it when
/// the recent tier opens with an assistant message. Counting only one let an honouring
/// summarizer fail the whole run's gain check.
fn condensed_bridges(recent: &[Message]) -> usize {
    let after = recent.first().is_some_and(|m| m.role == Role::Assistant);
    BRIDGE_TEXT.len().saturating_mul(if after { 2 } else { 1 })
}

/// Whether content of `bytes` is too small to summarize: it does not exceed the fixed
/// cost of its summary (the prefix, one byte of text, and the bridge the summary may
/// need: `bridge` bytes) by at least `min_summarize_bytes`. Skipping by size, not by a
/// discarded attempt, keeps a rerun free of calls.
pub(super) fn too_small(config: &TiersConfig, level: TierLevel, bytes: usize, count: usize, bridge: usize) -> bool {
    let fixed = fixed_cost(level, count, bridge).saturating_add(1);
    bytes <= fixed || bytes.saturating_sub(fixed) < config.min_summarize_bytes
}

/// What a summary of `count` messages costs besides its text: its prefix, its seal and
/// the bridge.
pub(super) fn fixed_cost(level: TierLevel, count: usize, bridge: usize) -> usize {
    header(level, count).len().saturating_add(crate::ast::SEAL_BYTES).saturating_add(bridge)
}

/// Original messages `messages` stand for.
fn weight<'m>(messages: impl Iterator<Item = &'m Message>) -> usize {
    messages.map(covered).fold(0usize, usize::saturating_add)
}

/// [`messages_size`] of messages wherever they lie.
fn size_of(messages: &[&Message]) -> usize {
    messages.iter().map(|m| m.size()).fold(0usize, usize::saturating_add)
}

fn half(tier: usize) -> usize {
    (tier / 2).max(1)
}

/// Where a tier meant to start at `target` starts: the latest user message in
/// `target - lookback..=target`, else the latest message at or before `target` that is
/// not a tool result; never before `lo`.
fn clean_start(input: &[Message], lo: usize, target: usize, lookback: usize) -> usize {
    if target <= lo {
        return lo;
    }
    let role = |i: usize| input.get(i).map(|m| m.role);
    let floor = target.saturating_sub(lookback).max(lo);
    if let Some(i) = (floor..=target).rev().find(|&i| role(i) == Some(Role::User)) {
        return i;
    }
    (lo..=target).rev().find(|&i| role(i).is_some_and(|r| r != Role::Tool)).unwrap_or(lo)
}
