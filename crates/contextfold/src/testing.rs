//! Chain generators for tests and benchmarks (the seed's `GenerateChain` and
//! `GenerateComplexChain`, deterministic and without their bugs: every generated id is
//! unique, and "missing responses" are exactly as many as asked, capped by the calls).

use crate::message::{Extra, Message, Part, Role, ToolCallPart};

/// Shape of a generated chain. Per-pair vectors are indexed by the pair's position
/// across the whole chain; missing entries mean "no tools".
#[derive(Debug, Clone, PartialEq)]
pub struct ChainConfig {
    pub include_system: bool,
    pub sections: usize,
    pub pairs_per_section: Vec<usize>,
    pub tools_for_pairs: Vec<bool>,
    pub tool_calls_per_pair: Vec<usize>,
    pub include_all_tool_responses: bool,
}

impl Default for ChainConfig {
    /// System + one user message + one assistant reply.
    fn default() -> Self {
        ChainConfig {
            include_system: true,
            sections: 1,
            pairs_per_section: vec![1],
            tools_for_pairs: vec![false],
            tool_calls_per_pair: vec![0],
            include_all_tool_responses: true,
        }
    }
}

/// A tool call part with a JSON argument.
pub fn tool_call(id: &str, name: &str, arg: &str) -> Part {
    Part::ToolCall(ToolCallPart {
        id: id.to_string(),
        name: name.to_string(),
        arguments: serde_json::json!({ "query": arg }).to_string(),
        signature: None,
        extra: Extra::new(),
    })
}

/// Generates a chain as `config` describes.
pub fn generate_chain(config: &ChainConfig) -> Vec<Message> {
    let mut out = Vec::new();
    if config.include_system {
        out.push(Message::text(Role::System, "You are a helpful assistant."));
    }
    let mut pair_index = 0usize;
    for s in 0..config.sections {
        out.push(Message::text(Role::User, format!("Question {s}: what about topic {s}?")));
        let pairs = config.pairs_per_section.get(s).copied().unwrap_or(1);
        for p in 0..pairs {
            let tools = config.tools_for_pairs.get(pair_index).copied().unwrap_or(false);
            let calls = if tools { config.tool_calls_per_pair.get(pair_index).copied().unwrap_or(1).max(1) } else { 0 };
            if calls == 0 {
                out.push(Message::text(Role::Assistant, format!("Answer {s}.{p}: here is what I know.")));
            } else {
                let ids: Vec<String> = (0..calls).map(|c| format!("call_s{s}_p{p}_c{c}")).collect();
                let mut parts = vec![Part::text(format!("Let me look that up ({s}.{p})."))];
                parts.extend(ids.iter().map(|id| tool_call(id, "search", &format!("topic {s}"))));
                out.push(Message::new(Role::Assistant, parts));
                let answered = if config.include_all_tool_responses { ids.len() } else { ids.len().saturating_sub(1) };
                for id in ids.iter().take(answered) {
                    out.push(Message::tool_result(id.clone(), "search", format!("Result for {id}: found 3 items.")));
                }
            }
            pair_index = pair_index.saturating_add(1);
        }
    }
    out
}

/// `sections` sections of two pairs each (a tool-using one with `tools_per_pair` calls,
/// then a completion), with `missing` results left out (from the newest calls back).
pub fn generate_complex_chain(sections: usize, tools_per_pair: usize, missing: usize) -> Vec<Message> {
    let config = ChainConfig {
        include_system: true,
        sections,
        pairs_per_section: vec![2; sections],
        tools_for_pairs: (0..sections.saturating_mul(2)).map(|i| i % 2 == 0).collect(),
        tool_calls_per_pair: vec![tools_per_pair.max(1); sections.saturating_mul(2)],
        include_all_tool_responses: true,
    };
    let mut chain = generate_chain(&config);
    let mut left = missing;
    let mut i = chain.len();
    while left > 0 && i > 0 {
        i -= 1;
        if chain.get(i).is_some_and(|m| m.role == Role::Tool) {
            chain.remove(i);
            left -= 1;
        }
    }
    chain
}
