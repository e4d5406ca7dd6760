//! A serializable outline of a parsed chain: what the CLI and the playground show.

use crate::ast::{ChainAst, PairKind};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outline {
    pub messages: usize,
    pub sections: usize,
    pub pairs: usize,
    pub bytes: usize,
    pub completions: usize,
    pub request_responses: usize,
    pub summarizations: usize,
    pub tool_calls: usize,
    pub section_list: Vec<SectionOutline>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SectionOutline {
    pub system_messages: usize,
    pub has_human: bool,
    pub header_bytes: usize,
    pub bytes: usize,
    pub pairs: Vec<PairOutline>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
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
