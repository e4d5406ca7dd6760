//! What a chain is made of, serializable: the outline of a parsed chain (what the CLI and
//! the playground show) and the measure of each message (what `measureChain` answers).

use crate::ast::{ChainAst, PairKind};
use crate::format::Format;
use crate::measure::{estimate_message_tokens, estimate_text_tokens};
use crate::message::{Message, Part, Role};
use crate::strategy::Totals;
use serde::Serialize;

/// The outline of a chain: counts and sizes, section by section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[cfg_attr(feature = "tsify", tsify(rename = "ChainOutline"))]
pub struct Outline {
    pub messages: usize,
    pub sections: usize,
    pub pairs: usize,
    /// Size of the whole chain in bytes.
    pub bytes: usize,
    pub completions: usize,
    pub request_responses: usize,
    pub summarizations: usize,
    pub tool_calls: usize,
    pub section_list: Vec<SectionOutline>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct SectionOutline {
    pub system_messages: usize,
    pub has_human: bool,
    pub header_bytes: usize,
    pub bytes: usize,
    pub pairs: Vec<PairOutline>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct PairOutline {
    pub kind: PairKind,
    pub tool_calls: usize,
    pub tool_messages: usize,
    pub has_reasoning: bool,
    pub bytes: usize,
}

/// The outline of `ast`.
pub fn outline(ast: &ChainAst) -> Outline {
    let section_list: Vec<SectionOutline> = ast
        .sections()
        .iter()
        .map(|s| SectionOutline {
            system_messages: s.header().system().len(),
            has_human: s.header().human().is_some(),
            header_bytes: s.header().size(),
            bytes: s.size(),
            pairs: s
                .body()
                .iter()
                .map(|p| PairOutline {
                    kind: p.kind(),
                    tool_calls: p.ai().tool_calls().count(),
                    tool_messages: p.tools().len(),
                    has_reasoning: p.ai().parts.iter().any(|x| matches!(x, crate::message::Part::Reasoning(_))),
                    bytes: p.size(),
                })
                .collect(),
        })
        .collect();
    let count = |k: PairKind| section_list.iter().flat_map(|s| &s.pairs).filter(|p| p.kind == k).count();
    Outline {
        messages: ast.message_count(),
        sections: ast.sections().len(),
        pairs: ast.pair_count(),
        bytes: ast.size(),
        completions: count(PairKind::Completion),
        request_responses: count(PairKind::RequestResponse),
        summarizations: count(PairKind::Summarization),
        tool_calls: section_list.iter().flat_map(|s| &s.pairs).map(|p| p.tool_calls).sum(),
        section_list,
    }
}

/// Size of one message: bytes as the strategies count them, and estimated tokens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct MessageMeasure {
    pub role: Role,
    /// What the message mostly holds: `"text"`, `"reasoning"`, `"toolCall"`, `"toolResult"` or `"media"`.
    #[cfg_attr(
        feature = "tsify",
        tsify(type = "\"text\" | \"reasoning\" | \"toolCall\" | \"toolResult\" | \"media\"")
    )]
    pub kind: &'static str,
    pub bytes: usize,
    pub tokens: usize,
    /// Every text the estimate counts (text, reasoning, tool names, arguments, results), in order.
    pub texts: Vec<String>,
    /// Tokens the estimate adds beyond those texts (message overhead, tool framing, media).
    pub fixed_tokens: usize,
}

/// Every message of a chain measured, with the totals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct ChainMeasure {
    #[cfg_attr(feature = "tsify", tsify(type = "ChainFormat"))]
    pub format: Format,
    pub messages: Vec<MessageMeasure>,
    pub total: Totals,
}

/// The measure of `messages`, read in `format`.
pub fn measure(messages: &[Message], format: Format) -> ChainMeasure {
    let list = messages
        .iter()
        .map(|m| {
            let mut texts = Vec::new();
            collect_texts(&m.parts, &mut texts);
            let tokens = estimate_message_tokens(m);
            let counted: usize = texts.iter().map(|t| estimate_text_tokens(t)).sum();
            MessageMeasure {
                role: m.role,
                kind: kind(m),
                bytes: m.size(),
                tokens,
                texts,
                fixed_tokens: tokens.saturating_sub(counted),
            }
        })
        .collect();
    ChainMeasure { format, messages: list, total: Totals::of(messages) }
}

fn collect_texts(parts: &[Part], texts: &mut Vec<String>) {
    for p in parts {
        match p {
            Part::Text(t) => texts.push(t.text.clone()),
            Part::Reasoning(r) => texts.push(r.text.clone()),
            Part::ToolCall(c) => {
                texts.push(c.name.clone());
                texts.push(c.arguments.clone());
            }
            Part::ToolResult(r) => collect_texts(&r.content, texts),
            Part::Image(_) | Part::File(_) => {}
        }
    }
}

/// The kind of the message's largest part.
fn kind(m: &Message) -> &'static str {
    let weight = |p: &Part| match p {
        Part::Text(t) => ("text", t.text.len()),
        Part::Reasoning(r) => ("reasoning", r.text.len()),
        Part::ToolCall(c) => ("toolCall", c.arguments.len().saturating_add(c.name.len())),
        Part::ToolResult(r) => ("toolResult", r.content.iter().map(Part::size).sum()),
        Part::Image(_) | Part::File(_) => ("media", 0),
    };
    m.parts.iter().map(weight).max_by_key(|(_, w)| *w).map_or("text", |(k, _)| k)
}
