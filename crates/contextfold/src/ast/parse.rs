//! Strict and repair parsing of a message list into a [`ChainAst`].
//!
//! Rules (index = position in the input):
//! - the first message must not be a tool message (an error in both modes); an assistant
//!   message opening the chain (a chat UI's greeting) opens a section without a user
//!   message (upstream refuses it);
//! - system messages open a section's header (upstream allowed one, at the start; real
//!   transcripts carry several, and OpenAI and Anthropic take them mid-chain too: a
//!   developer's instruction, so a run of them goes into the header of the section they
//!   open); one between tool calls and their results is an error in both modes;
//! - a user message opens a new section once the current one has replies; a second user
//!   message before any reply is an error (repair: merged into the first); a user message
//!   after replies in a section without one opens a new section too (upstream: an error,
//!   repaired by moving it into the header, before the replies, which reorders the chat);
//! - every assistant message opens its own body pair; tool messages join the open pair
//!   (one holding only a native block, an AI SDK approval response, too: it is kept);
//!   a tool message with no open pair, or after a completion, is an error (repair: dropped);
//! - every tool call needs exactly one result and every result a call: missing results
//!   (repair: a fallback result is added), results for unknown calls (repair: a call with
//!   `{}` arguments is added), duplicate results (repair: the later one is dropped, and no
//!   duplicate call is ever created);
//! - parts must fit their message's role (an error in both modes).
//!
//! Repairs never happen silently: each one is listed in [`Parsed::repairs`].

use super::error::{AstError, PartRule};
use super::{BodyPair, ChainAst, Header, PairKind, Section};
use crate::hashing::HashSet;
use crate::message::{Extra, Message, Part, Role, ToolCallPart};
use serde::Serialize;
use std::borrow::Cow;

/// Content of the result added for a tool call that had none.
pub const FALLBACK_RESPONSE_CONTENT: &str = "the call was not handled, please try again";
/// Arguments of the call added for a result that answered none.
pub const FALLBACK_TOOL_ARGS: &str = "{}";
/// Name given to an added call when the orphan result carried no name.
const UNKNOWN_TOOL_NAME: &str = "unknown_tool";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseMode {
    /// Any broken rule is an error.
    Strict,
    /// Repair what can be repaired, and list what was done.
    Repair,
}

/// A parsed chain and the repairs that parsing made.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed<'a> {
    pub ast: ChainAst<'a>,
    pub repairs: Vec<RepairAction>,
}

/// One change made by repair parsing; `index` is the input message concerned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub enum RepairAction {
    /// A user message with no reply before it was merged into the previous user message.
    #[serde(rename_all = "camelCase")]
    MergedConsecutiveHuman { index: usize },
    /// A tool message that answers no open tool call was dropped.
    #[serde(rename_all = "camelCase")]
    DroppedToolMessage { index: usize },
    /// A second result for the same call was dropped.
    #[serde(rename_all = "camelCase")]
    DroppedDuplicateResult { index: usize, call_id: String },
    /// A result was added for a call that had none (assistant message `index`).
    #[serde(rename_all = "camelCase")]
    AddedMissingResult { index: usize, call_id: String, name: String },
    /// A call was added to assistant message `index` for a result that answered none.
    #[serde(rename_all = "camelCase")]
    AddedMissingCall { index: usize, call_id: String, name: String },
}

// The builders borrow the input's messages and copy one only to change it (a repair):
// a chain that needs none is outlined without a copy ([`outline`]).
struct OpenPair<'a> {
    ai: Cow<'a, Message>,
    ai_index: usize,
    tools: Vec<Cow<'a, Message>>,
    /// Ids where they lie in the input: none is copied to be looked up.
    calls: HashSet<&'a str>,
    answered: HashSet<&'a str>,
}

struct SectionBuilder<'a> {
    system: Vec<Cow<'a, Message>>,
    human: Option<Cow<'a, Message>>,
    body: Vec<(Cow<'a, Message>, Vec<Cow<'a, Message>>)>,
}

impl SectionBuilder<'_> {
    fn message_count(&self) -> usize {
        let header = self.system.len().saturating_add(usize::from(self.human.is_some()));
        self.body.iter().fold(header, |n, (_, tools)| n.saturating_add(1).saturating_add(tools.len()))
    }
}

struct Parser<'a> {
    mode: ParseMode,
    sections: Vec<SectionBuilder<'a>>,
    open: Option<OpenPair<'a>>,
    repairs: Vec<RepairAction>,
}

/// What [`outline`] tells of a chain: where its sections start, and the repairs it needs.
pub(crate) struct Outline {
    /// First message of each section, then the message count (as
    /// [`ChainAst::section_starts`] gives them).
    pub starts: Vec<usize>,
    pub sections: usize,
    pub repairs: Vec<RepairAction>,
    /// The repaired chain; `None` when nothing was repaired (the input is the chain).
    pub repaired: Option<Vec<Message>>,
}

/// [`parse`] for a reader of the message list: the sections' places and the repairs,
/// without the nodes of an AST.
pub(crate) fn outline(messages: &[Message], mode: ParseMode) -> Result<Outline, AstError> {
    let p = Parser::run(messages, mode)?;
    let starts = super::starts_of(p.sections.iter().map(SectionBuilder::message_count));
    let sections = p.sections.len();
    let repaired = (!p.repairs.is_empty()).then(|| {
        let mut out = Vec::with_capacity(starts.last().copied().unwrap_or(0));
        for s in p.sections {
            out.extend(s.system.into_iter().map(Cow::into_owned));
            out.extend(s.human.map(Cow::into_owned));
            for (ai, tools) in s.body {
                out.push(ai.into_owned());
                out.extend(tools.into_iter().map(Cow::into_owned));
            }
        }
        out
    });
    Ok(Outline { starts, sections, repairs: p.repairs, repaired })
}

pub(crate) fn parse(messages: &[Message], mode: ParseMode) -> Result<Parsed<'_>, AstError> {
    let p = Parser::run(messages, mode)?;
    let sections = p
        .sections
        .into_iter()
        .map(|s| {
            let body = s.body.into_iter().map(|(ai, tools)| BodyPair::build(ai, tools)).collect();
            Section::new(Header::build(s.system, s.human), body)
        })
        .collect();
    Ok(Parsed { ast: ChainAst::new(sections), repairs: p.repairs })
}

impl<'a> Parser<'a> {
    /// Reads `messages` into section builders (every rule checked, repairs made in
    /// repair mode).
    fn run(messages: &'a [Message], mode: ParseMode) -> Result<Parser<'a>, AstError> {
        let mut p = Parser { mode, sections: Vec::new(), open: None, repairs: Vec::new() };
        // An assistant message may open the chain (a chat UI's greeting): it opens a
        // section without a user message. A tool result cannot answer anything there.
        if let Some(first) = messages.first() {
            if first.role == Role::Tool {
                return Err(AstError::InvalidStart { index: 0, role: first.role });
            }
        }
        for (index, message) in messages.iter().enumerate() {
            check_parts(index, message)?;
            match message.role {
                Role::System => p.system(index, message)?,
                Role::User => p.human(index, message)?,
                Role::Assistant => p.assistant(index, message)?,
                Role::Tool => p.tool(index, message)?,
            }
        }
        p.close_pair()?;
        Ok(p)
    }

    fn repair(&self) -> bool {
        self.mode == ParseMode::Repair
    }

    /// A system message: in the header of the section it opens (or of the one it
    /// starts with other system messages). Not between calls and their results.
    fn system(&mut self, index: usize, m: &'a Message) -> Result<(), AstError> {
        if self.open.as_ref().is_some_and(|pair| pair.ai.tool_calls().any(|c| !pair.answered.contains(c.id.as_str()))) {
            return Err(AstError::SystemAfterStart { index });
        }
        self.close_pair()?;
        match self.sections.last_mut() {
            Some(last) if last.human.is_none() && last.body.is_empty() => last.system.push(Cow::Borrowed(m)),
            _ => self.sections.push(SectionBuilder { system: vec![Cow::Borrowed(m)], human: None, body: Vec::new() }),
        }
        Ok(())
    }

    fn human(&mut self, index: usize, m: &'a Message) -> Result<(), AstError> {
        self.close_pair()?;
        let repair = self.repair();
        let Some(last) = self.sections.last_mut() else {
            self.sections.push(SectionBuilder { system: Vec::new(), human: Some(Cow::Borrowed(m)), body: Vec::new() });
            return Ok(());
        };
        match (&mut last.human, last.body.is_empty()) {
            (Some(_), false) => {
                self.sections.push(SectionBuilder {
                    system: Vec::new(),
                    human: Some(Cow::Borrowed(m)),
                    body: Vec::new(),
                });
            }
            (Some(existing), true) => {
                if !repair {
                    return Err(AstError::ConsecutiveHuman { index });
                }
                merge_into(existing.to_mut(), m);
                self.repairs.push(RepairAction::MergedConsecutiveHuman { index });
            }
            // After replies that no user message prompted (a greeting opening the chain):
            // a new section, the conversation's order kept. (Upstream moves the user
            // message into the header, before the replies: that reorders the chat.)
            (None, false) => {
                self.sections.push(SectionBuilder {
                    system: Vec::new(),
                    human: Some(Cow::Borrowed(m)),
                    body: Vec::new(),
                });
            }
            (None, true) => last.human = Some(Cow::Borrowed(m)),
        }
        Ok(())
    }

    fn assistant(&mut self, index: usize, m: &'a Message) -> Result<(), AstError> {
        self.close_pair()?;
        if self.sections.is_empty() {
            self.sections.push(SectionBuilder { system: Vec::new(), human: None, body: Vec::new() });
        }
        let mut calls = HashSet::default();
        for call in m.tool_calls() {
            if !calls.insert(call.id.as_str()) {
                return Err(AstError::DuplicateToolCallId { index, id: call.id.clone() });
            }
        }
        self.open = Some(OpenPair {
            ai: Cow::Borrowed(m),
            ai_index: index,
            tools: Vec::new(),
            calls,
            answered: HashSet::default(),
        });
        Ok(())
    }

    fn tool(&mut self, index: usize, m: &'a Message) -> Result<(), AstError> {
        let repair = self.repair();
        let pair = match self.open.as_mut() {
            Some(pair)
                if PairKind::detect(&pair.ai) != PairKind::Completion
                    || crate::format::responses::native::refers_to_stored_item(&pair.ai) =>
            {
                pair
            }
            _ => {
                if !repair {
                    return Err(AstError::UnexpectedTool { index });
                }
                self.repairs.push(RepairAction::DroppedToolMessage { index });
                return Ok(());
            }
        };
        // Results after an `item_reference` answer the stored item it stands for.
        let stored = crate::format::responses::native::refers_to_stored_item(&pair.ai);
        let unmatched: Vec<String> = m
            .tool_results()
            .filter(|r| !stored && !pair.calls.contains(r.call_id.as_str()))
            .map(|r| r.call_id.clone())
            .collect();
        if !unmatched.is_empty() && !repair {
            return Err(AstError::UnmatchedToolResult { index, ids: unmatched });
        }
        // The parts kept, by their places: the message is copied only when one is dropped.
        let mut kept: Vec<usize> = Vec::with_capacity(m.parts.len());
        for (at, part) in m.parts.iter().enumerate() {
            let Part::ToolResult(result) = part else {
                kept.push(at);
                continue;
            };
            if stored {
                pair.calls.insert(result.call_id.as_str());
            }
            if !pair.calls.contains(result.call_id.as_str()) {
                // Repair: give the orphan result a call (never twice for one id: the id
                // joins `calls`, so a later duplicate result is caught below).
                let name = result.name.clone().unwrap_or_else(|| UNKNOWN_TOOL_NAME.to_string());
                pair.ai.to_mut().parts.push(Part::ToolCall(ToolCallPart {
                    id: result.call_id.clone(),
                    name: name.clone(),
                    arguments: FALLBACK_TOOL_ARGS.to_string(),
                    signature: None,
                    extra: Extra::new(),
                }));
                pair.calls.insert(result.call_id.as_str());
                self.repairs.push(RepairAction::AddedMissingCall {
                    index: pair.ai_index,
                    call_id: result.call_id.clone(),
                    name,
                });
            }
            if !pair.answered.insert(result.call_id.as_str()) {
                if !repair {
                    return Err(AstError::DuplicateToolResult { index, id: result.call_id.clone() });
                }
                self.repairs.push(RepairAction::DroppedDuplicateResult { index, call_id: result.call_id.clone() });
                continue;
            }
            kept.push(at);
        }
        let kept = if kept.len() == m.parts.len() {
            Cow::Borrowed(m)
        } else {
            let parts = kept.iter().filter_map(|&at| m.parts.get(at).cloned()).collect();
            Cow::Owned(Message { role: m.role, parts, extra: m.extra.clone() })
        };
        // A message left with no part had only duplicate results (each listed above); one
        // holding a native block alone (an AI SDK approval response) is kept: the block is
        // the user's answer, not a result to pair.
        if !kept.parts.is_empty() {
            pair.tools.push(kept);
        }
        Ok(())
    }

    /// Closes the open pair into the last section, answering pending calls in repair mode.
    fn close_pair(&mut self) -> Result<(), AstError> {
        let Some(mut pair) = self.open.take() else {
            return Ok(());
        };
        let pending: Vec<(String, String)> = pair
            .ai
            .tool_calls()
            .filter(|c| !pair.answered.contains(c.id.as_str()))
            .map(|c| (c.id.clone(), c.name.clone()))
            .collect();
        if !pending.is_empty() {
            if !self.repair() {
                let ids = pending.into_iter().map(|(id, _)| id).collect();
                return Err(AstError::MissingToolResult { index: pair.ai_index, ids });
            }
            for (call_id, name) in pending {
                pair.tools.push(Cow::Owned(Message::tool_result(
                    call_id.clone(),
                    name.clone(),
                    FALLBACK_RESPONSE_CONTENT,
                )));
                self.repairs.push(RepairAction::AddedMissingResult { index: pair.ai_index, call_id, name });
            }
        }
        // A section always exists here: an assistant message opens one if need be.
        if let Some(last) = self.sections.last_mut() {
            last.body.push((pair.ai, pair.tools));
        }
        Ok(())
    }
}

/// Appends `m`'s parts to `into`; fields `into` lacks are taken from `m`.
fn merge_into(into: &mut Message, m: &Message) {
    let two = into.join_parts(m);
    for (k, v) in &m.extra {
        let participant = two && crate::message::PARTICIPANT_FIELDS.contains(&k.as_str());
        if !participant && !into.extra.contains_key(k) {
            into.extra.insert(k.clone(), v.clone());
        }
    }
}

/// Part rules that hold in both modes: parts must fit their message's role.
fn check_parts(index: usize, m: &Message) -> Result<(), AstError> {
    let err = |part: usize, rule: PartRule| Err(AstError::InvalidPart { index, part, rule });
    if m.role == Role::Tool && m.parts.is_empty() {
        return err(0, PartRule::EmptyToolMessage);
    }
    for (part, p) in m.parts.iter().enumerate() {
        match p {
            Part::ToolCall(c) => {
                if m.role != Role::Assistant {
                    return err(part, PartRule::ToolCallOutsideAssistant);
                }
                if c.id.is_empty() {
                    return err(part, PartRule::EmptyToolCallId);
                }
            }
            Part::ToolResult(r) => {
                if m.role != Role::Tool {
                    return err(part, PartRule::ToolResultOutsideTool);
                }
                if r.call_id.is_empty() {
                    return err(part, PartRule::EmptyToolCallId);
                }
                for c in &r.content {
                    match c {
                        Part::Text(_) => {}
                        Part::Image(_) | Part::File(_) if !c.has_media_source() => {
                            return err(part, PartRule::MediaWithoutSource)
                        }
                        Part::Image(_) | Part::File(_) => {}
                        _ => return err(part, PartRule::NestedPartInToolResult),
                    }
                }
            }
            _ if m.role == Role::Tool && p.is_native_block() => {}
            _ if m.role == Role::Tool => return err(part, PartRule::NonResultInToolMessage),
            Part::Image(_) | Part::File(_) if !p.has_media_source() => return err(part, PartRule::MediaWithoutSource),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolResultPart;
    use proptest::prelude::*;

    /// A message of any role; calls and results use ids from a small set, so results go
    /// missing, come twice or answer nothing: most chains need repairs, some fail.
    fn message() -> impl Strategy<Value = Message> {
        let ids = proptest::collection::vec(0u8..4, 0..3);
        prop_oneof![
            Just(Message::text(Role::System, "rules")),
            "[a-z]{0,6}".prop_map(|t| Message::text(Role::User, t)),
            ("[a-z]{0,6}", ids.clone()).prop_map(|(t, ids)| {
                let mut parts = vec![Part::text(t)];
                parts.extend(ids.iter().map(|i| {
                    Part::ToolCall(ToolCallPart {
                        id: format!("c{i}"),
                        name: "read".into(),
                        arguments: "{}".into(),
                        signature: None,
                        extra: Extra::new(),
                    })
                }));
                Message::new(Role::Assistant, parts)
            }),
            // Results, and maybe the user's answer to an approval request (an AI SDK native
            // block, alone when there is no result).
            (ids, any::<bool>()).prop_filter("a tool message is not empty", |(ids, a)| *a || !ids.is_empty()).prop_map(
                |(ids, answer)| {
                    let mut parts: Vec<Part> = ids
                        .iter()
                        .map(|i| {
                            Part::ToolResult(ToolResultPart {
                                call_id: format!("c{i}"),
                                name: None,
                                content: vec![Part::text("out")],
                                is_error: false,
                                extra: Extra::new(),
                            })
                        })
                        .collect();
                    if answer {
                        parts.insert(0, approval_response());
                    }
                    Message::new(Role::Tool, parts)
                }
            ),
        ]
    }

    /// An AI SDK `tool-approval-response`, as its reader keeps it.
    fn approval_response() -> Part {
        let block = serde_json::json!({ "type": "tool-approval-response", "approvalId": "ap", "approved": true, "reason": "go ahead" });
        crate::format::native_block::part(&block, crate::message::marker_namespace::AISDK, "[approved]".into())
    }

    #[test]
    fn a_tool_message_holding_only_an_approval_response_is_kept() {
        let call = Part::ToolCall(ToolCallPart {
            id: "c1".into(),
            name: "rm".into(),
            arguments: "{}".into(),
            signature: None,
            extra: Extra::new(),
        });
        let result = Part::ToolResult(ToolResultPart {
            call_id: "c1".into(),
            name: None,
            content: vec![Part::text("removed")],
            is_error: false,
            extra: Extra::new(),
        });
        let answer = Message::new(Role::Tool, vec![approval_response()]);
        let turn = [Message::new(Role::Assistant, vec![call]), answer.clone(), Message::new(Role::Tool, vec![result])];
        // As it comes, and after a repair elsewhere in the chain (two user messages).
        for users in 1..=2 {
            let mut chain = vec![Message::text(Role::User, "rm a"); users];
            chain.extend(turn.iter().cloned());
            for mode in [ParseMode::Strict, ParseMode::Repair] {
                let Ok(parsed) = parse(&chain, mode) else {
                    assert!(users == 2 && mode == ParseMode::Strict, "{users} {mode:?}");
                    continue;
                };
                assert!(parsed.ast.into_messages().contains(&answer), "{users} {mode:?}");
                let o = outline(&chain, mode).ok().and_then(|o| o.repaired.or(Some(chain.clone())));
                assert!(o.is_some_and(|c| c.contains(&answer)), "{users} {mode:?}");
            }
        }
    }

    proptest! {
        /// The outline is what the AST gives: section starts, repairs, repaired chain, or
        /// the same error.
        #[test]
        fn the_outline_is_what_the_ast_gives(
            chain in proptest::collection::vec(message(), 0..12),
            repair: bool,
        ) {
            let mode = if repair { ParseMode::Repair } else { ParseMode::Strict };
            match (outline(&chain, mode), parse(&chain, mode)) {
                (Ok(o), Ok(Parsed { ast, repairs })) => {
                    prop_assert_eq!(&o.starts, &ast.section_starts());
                    prop_assert_eq!(o.sections, ast.sections().len());
                    prop_assert_eq!(&o.repairs, &repairs);
                    let messages = ast.into_messages();
                    // Every native block stays, but in a tool message a repair dropped.
                    let blocks = |ms: &[Message]| ms.iter().flat_map(|m| &m.parts).filter(|p| p.is_native_block()).count();
                    let dropped: Vec<Message> = repairs
                        .iter()
                        .filter_map(|r| match r {
                            RepairAction::DroppedToolMessage { index } => chain.get(*index).cloned(),
                            _ => None,
                        })
                        .collect();
                    prop_assert_eq!(blocks(&messages), blocks(&chain) - blocks(&dropped));
                    if repairs.is_empty() {
                        // Nothing repaired: the chain as it came is the chain parsed (nothing
                        // is dropped without a repair saying so).
                        prop_assert_eq!(&o.repaired, &None);
                        prop_assert_eq!(o.starts.last().copied(), Some(chain.len()));
                        prop_assert_eq!(&messages, &chain);
                    } else {
                        prop_assert_eq!(&o.repaired, &Some(messages));
                    }
                }
                (Err(a), Err(b)) => prop_assert_eq!(a, b),
                (a, b) => prop_assert!(false, "outline {:?} but parse {:?}", a.map(|o| o.starts), b.map(|p| p.repairs)),
            }
        }
    }
}
