//! Diagnostics: every rule of [`super`] a provider would reject, with a stable code and
//! the path of the culprit, as in every contextfold error (`[3]`, `[3].parts[1]`,
//! `[3].parts[1].content[0]`).
//!
//! Codes: `invalid_part`, `duplicate_call_id`, `empty_text`, `empty_message`,
//! `system_not_first`, `multiple_system` (Anthropic, Gemini), `starts_with_tool_result`,
//! `first_not_user` (Anthropic, Gemini), `unsigned_thinking` (Anthropic),
//! `media_in_tool_result` (OpenAI), `duplicate_call_id`
//! across messages (every provider but OpenAI), `orphan_result`, `duplicate_result`,
//! `result_not_after_call`, `unanswered_call`, `consecutive_same_role` (Anthropic,
//! Gemini; for Gemini also a user content right after the function responses' one),
//! `split_function_responses` (Gemini), `wrong_output_item` (the Responses API: a built-in
//! tool call answered by another item type than its own output, a computer call by a
//! function output, say; `duplicate_item_id`, an item `id` given twice; `orphan_reasoning`,
//! a reasoning item without the item it led to after it), and, for a chain in a request object that turns thinking on
//! (Anthropic `thinking: {type: "enabled"}`, [`RequestRules`]), `final_call_without_thinking`;
//! the Anthropic block rules ([`super::blocks`]): `too_many_cache_breakpoints`,
//! `cache_control_on_thinking`, `empty_text` inside a tool result, `orphan_server_result`,
//! `ends_with_thinking`. The stale-thinking rule needs the history the provider saw
//! before, so it is not checked here.

use super::parts::{check, duplicate_calls, Verdict};
use super::tool_pairing::{analyze, Fate};
use super::{Provider, RequestRules};
use crate::format::responses::ids::{part_id, IdKind};
use crate::hashing::HashMap;
use crate::message::{Message, Part, Role, ToolCallPart};
use serde::Serialize;

/// The list of codes below as a Rust slice ([`CODES`]) and as the TypeScript union of
/// `Diagnostic["code"]` ([`CODES_TS`], which the wasm crate emits as `DiagnosticCode`):
/// one list, so that no code is missing from either.
macro_rules! diagnostic_codes {
    ($($code:literal,)*) => {
        /// Every code a [`Diagnostic`] may have (a test checks this module uses no other).
        pub const CODES: &[&str] = &[$($code),*];
        /// The TypeScript declaration of the codes: open-ended, as more may come.
        pub const CODES_TS: &str = concat!(
            "/** The stable code of a `Diagnostic`: the rule broken (more may come). */\n",
            "export type DiagnosticCode =",
            $("\n    | \"", $code, "\"",)*
            "\n    | (string & {});\n"
        );
    };
}

// One code per line, in no particular order.
diagnostic_codes![
    "orphan_result",
    "unanswered_call",
    "result_not_after_call",
    "duplicate_result",
    "consecutive_same_role",
    "empty_text",
    "empty_message",
    "system_not_first",
    "multiple_system",
    "starts_with_tool_result",
    "first_not_user",
    "duplicate_call_id",
    "invalid_part",
    "results_not_first",
    "unsigned_thinking",
    "media_in_tool_result",
    "split_function_responses",
    "wrong_output_item",
    "final_call_without_thinking",
    "cache_control_on_thinking",
    "too_many_cache_breakpoints",
    "orphan_server_result",
    "ends_with_thinking",
    "duplicate_item_id",
    "orphan_reasoning",
];

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct Diagnostic {
    /// Stable machine-readable code, one of [`CODES`].
    #[cfg_attr(feature = "tsify", tsify(type = "DiagnosticCode"))]
    pub code: &'static str,
    /// The offending message's position in the chain as read (a provider message may be
    /// read as several: an Anthropic user message of tool results and text, the steps
    /// of an AI SDK UIMessage).
    pub index: usize,
    /// Path of the culprit, as in every contextfold error: in the messages validated
    /// (`[3].parts[1]`), and from JSON input in your JSON (`messages[3]` of an Anthropic
    /// request, `[5]` of an array).
    pub path: String,
    /// What is wrong, for people.
    pub message: String,
}

impl Diagnostic {
    fn message(code: &'static str, index: usize, message: String) -> Self {
        Diagnostic { code, index, path: format!("[{index}]"), message }
    }

    fn part(code: &'static str, index: usize, part: usize, message: String) -> Self {
        Diagnostic { code, index, path: format!("[{index}].parts[{part}]"), message }
    }
}

/// Every rule `messages` breaks for `provider`, sorted by message index (stable). An
/// empty list means the provider accepts the chain's structure.
pub fn validate(messages: &[Message], provider: Provider) -> Vec<Diagnostic> {
    validate_request(messages, provider, &RequestRules::default())
}

/// [`validate`] of a chain that came in a request object, with the rules that depend on
/// what the request says beside its messages (`request`).
pub fn validate_request(messages: &[Message], provider: Provider, request: &RequestRules) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if request.thinking && provider.requires_signed_thinking() {
        if let Some(index) = super::thinking::final_call_without_thinking(messages) {
            out.push(Diagnostic::message(
                "final_call_without_thinking",
                index,
                format!(
                    "with thinking on, {} wants the assistant message whose tool results end the chain to start with a thinking block",
                    provider.as_str()
                ),
            ));
        }
    }
    for (index, m) in messages.iter().enumerate() {
        part_rules(index, m, provider, &mut out);
    }
    system_rules(messages, provider, &mut out);
    first_turn(messages, provider, &mut out);
    pairing_rules(messages, &mut out);
    if provider == Provider::OpenAiResponses {
        output_items(messages, &mut out);
        content_parts(messages, &mut out);
        item_rules(messages, &mut out);
    }
    if provider.unique_call_ids() {
        for (index, part, id, first) in super::call_ids::reused(messages) {
            // An item id the API wants (an `mcp_call`): `duplicate_item_id` tells it.
            let item_id = messages.get(index).and_then(|m| m.parts.get(part)).and_then(part_id).map(|(_, kind)| kind);
            if provider == Provider::OpenAiResponses && item_id == Some(IdKind::Required) {
                continue;
            }
            out.push(Diagnostic::part(
                "duplicate_call_id",
                index,
                part,
                format!("tool call id {id} was already used in message {first}"),
            ));
        }
    }
    if provider.text_only_tool_results() {
        for (index, m) in messages.iter().enumerate().filter(|(_, m)| m.role == Role::Tool) {
            for (part, p) in m.parts.iter().enumerate() {
                let Part::ToolResult(r) = p else { continue };
                for (content, _) in r.content.iter().enumerate().filter(|(_, c)| super::tool_media::is_media(c)) {
                    out.push(Diagnostic {
                        code: "media_in_tool_result",
                        index,
                        path: format!("[{index}].parts[{part}].content[{content}]"),
                        message: format!("{} tool messages hold text only", provider.as_str()),
                    });
                }
            }
        }
    }
    if provider.requires_signed_thinking() {
        // Any role: the repair drops unsigned thinking wherever it is, as the provider
        // rejects a `thinking` block without its signature in any message.
        for (index, m) in messages.iter().enumerate() {
            for (part, _) in m.parts.iter().enumerate().filter(|(_, p)| super::thinking::is_unsigned(p)) {
                out.push(Diagnostic::part(
                    "unsigned_thinking",
                    index,
                    part,
                    format!("{} rejects a thinking block without its signature", provider.as_str()),
                ));
            }
        }
    }
    if provider.requires_alternation() {
        alternation(messages, &mut out);
    }
    if provider.one_result_turn() {
        split_result_turns(messages, provider, &mut out);
    }
    if provider.block_rules() {
        block_rules(messages, provider, request, &mut out);
    }
    if provider.results_first() {
        for (index, pair) in messages.windows(2).enumerate() {
            if let [tool, user] = pair {
                if super::result_order::misplaced(tool, user).is_some() {
                    out.push(Diagnostic::message(
                        "results_not_first",
                        index.saturating_add(1),
                        format!("{} wants a turn's tool results before its other blocks", provider.as_str()),
                    ));
                }
            }
        }
    }
    out.sort_by_key(|d| d.index);
    out
}

fn part_rules(index: usize, m: &Message, provider: Provider, out: &mut Vec<Diagnostic>) {
    if m.parts.is_empty() {
        out.push(Diagnostic::message("empty_message", index, format!("{} message without any part", m.role.as_str())));
        return;
    }
    let mut valid: Vec<(usize, &Part)> = Vec::with_capacity(m.parts.len());
    for (part, p) in m.parts.iter().enumerate() {
        match check(m.role, p) {
            Verdict::Fine => valid.push((part, p)),
            Verdict::Invalid(rule) => out.push(Diagnostic::part("invalid_part", index, part, rule.describe().into())),
            Verdict::BadContent(bad) => {
                valid.push((part, p));
                for (content, rule) in bad {
                    out.push(Diagnostic {
                        code: "invalid_part",
                        index,
                        path: format!("[{index}].parts[{part}].content[{content}]"),
                        message: rule.describe().into(),
                    });
                }
            }
        }
    }
    for (part, id) in duplicate_calls(m.role, m.parts.iter().enumerate()) {
        out.push(Diagnostic::part(
            "duplicate_call_id",
            index,
            part,
            format!("tool call id {id} is used twice in one assistant message"),
        ));
    }
    for part in super::empty::empty_texts(m.role, &valid, provider) {
        out.push(Diagnostic::part("empty_text", index, part, "empty or whitespace-only text".into()));
    }
}

fn system_rules(messages: &[Message], provider: Provider, out: &mut Vec<Diagnostic>) {
    let lead = messages.iter().take_while(|m| m.role == Role::System).count();
    if provider.single_system() {
        for index in 1..lead {
            out.push(Diagnostic::message(
                "multiple_system",
                index,
                format!("{} takes one system prompt; this is a second one", provider.as_str()),
            ));
        }
    }
    for (index, m) in messages.iter().enumerate().skip(lead) {
        if m.role == Role::System && !provider.system_anywhere() {
            out.push(Diagnostic::message(
                "system_not_first",
                index,
                "a system message may only appear at the start of the chain".into(),
            ));
        }
    }
}

fn first_turn(messages: &[Message], provider: Provider, out: &mut Vec<Diagnostic>) {
    let Some((index, first)) = messages.iter().enumerate().find(|(_, m)| m.role != Role::System) else {
        return;
    };
    match first.role {
        Role::Tool => out.push(Diagnostic::message(
            "starts_with_tool_result",
            index,
            "the conversation starts with a tool result".into(),
        )),
        Role::Assistant if provider.user_first() => out.push(Diagnostic::message(
            "first_not_user",
            index,
            format!("{} wants the conversation to open with a user message", provider.as_str()),
        )),
        _ => {}
    }
}

/// Whether a tool result is not right after its call (`result_not_after_call`), the one
/// rule `compact` repairs before compacting: checked alone, not with every rule.
pub(crate) fn has_misplaced_results(messages: &[Message]) -> bool {
    if super::tool_pairing::answered_in_turn(messages) {
        return false;
    }
    // As the repair pass pairs them: after the user and system messages it removes first
    // (nothing but blank text or parts it drops), which end no turn then.
    let refs: Vec<&Message> = messages.iter().filter(|m| !removed_before_pairing(m)).collect();
    analyze(&refs, false).results.iter().any(|r| matches!(r.fate, Fate::Moved { .. }))
}

/// A user or system message the part passes of repair leave without parts.
fn removed_before_pairing(m: &Message) -> bool {
    matches!(m.role, Role::User | Role::System)
        && m.parts.iter().all(|p| match p {
            Part::Text(t) if t.text.trim().is_empty() => true,
            _ => matches!(check(m.role, p), Verdict::Invalid(_)),
        })
}

/// Content parts of a type the Responses API does not take where they are.
fn content_parts(messages: &[Message], out: &mut Vec<Diagnostic>) {
    use crate::format::responses::native::content_problem;
    for (index, m) in messages.iter().enumerate() {
        for (part, p) in m.parts.iter().enumerate() {
            if let Some(text) = content_problem(m.role, p) {
                out.push(Diagnostic::part("invalid_part", index, part, text));
            }
            let Part::ToolResult(r) = p else { continue };
            for (content, c) in r.content.iter().enumerate() {
                if let Some(message) = content_problem(Role::Tool, c) {
                    let path = format!("[{index}].parts[{part}].content[{content}]");
                    out.push(Diagnostic { code: "invalid_part", index, path, message });
                }
            }
        }
    }
}

/// [`super::items`]: item ids given twice, reasoning without its following item.
fn item_rules(messages: &[Message], out: &mut Vec<Diagnostic>) {
    let refs: Vec<&Message> = messages.iter().collect();
    for d in super::items::duplicate_ids(&refs) {
        let text =
            format!("item id {} was already given in message {} (the API rejects duplicate items)", d.id, d.first);
        out.push(match d.part {
            Some(part) => Diagnostic::part("duplicate_item_id", d.index, part, text),
            None => Diagnostic::message("duplicate_item_id", d.index, text),
        });
    }
    for (index, part) in super::items::orphan_reasoning(&refs) {
        let text = "a reasoning item must be followed by the item it led to; here its turn ends".to_string();
        out.push(Diagnostic::part("orphan_reasoning", index, part, text));
    }
}

/// Results whose item type does not answer their call's (Responses built-in tools).
fn output_items(messages: &[Message], out: &mut Vec<Diagnostic>) {
    let calls: HashMap<&str, &ToolCallPart> =
        messages.iter().flat_map(Message::tool_calls).map(|c| (c.id.as_str(), c)).collect();
    for (index, m) in messages.iter().enumerate().filter(|(_, m)| m.role == Role::Tool) {
        for (part, p) in m.parts.iter().enumerate() {
            let Part::ToolResult(r) = p else { continue };
            let Some(call) = calls.get(r.call_id.as_str()) else { continue };
            if let Some(text) = crate::format::responses::native::output_mismatch(call, r) {
                out.push(Diagnostic::part("wrong_output_item", index, part, text));
            }
        }
    }
}

fn pairing_rules(messages: &[Message], out: &mut Vec<Diagnostic>) {
    let refs: Vec<&Message> = messages.iter().collect();
    let pairing = analyze(&refs, false);
    for r in pairing.results {
        let (code, text) = match r.fate {
            Fate::InPlace { .. } | Fate::Answered { .. } => continue,
            Fate::Moved { assistant } => (
                "result_not_after_call",
                format!("result for {} is not right after its call (message {assistant})", r.call_id),
            ),
            Fate::Orphan { .. } => ("orphan_result", format!("result for {} answers no earlier call", r.call_id)),
            Fate::Duplicate => ("duplicate_result", format!("a second result for call {}", r.call_id)),
        };
        out.push(Diagnostic::part(code, r.message, r.part, text));
    }
    for p in pairing.pending {
        out.push(Diagnostic::part(
            "unanswered_call",
            p.message,
            p.part,
            format!("tool call {} ({}) has no result", p.call_id, p.name),
        ));
    }
}

/// [`super::blocks`]: the Messages API's block rules.
fn block_rules(messages: &[Message], provider: Provider, request: &RequestRules, out: &mut Vec<Diagnostic>) {
    let name = provider.as_str();
    let ends_turn = super::blocks::ends_turn(messages);
    for (index, m) in messages.iter().enumerate() {
        for (part, p) in m.parts.iter().enumerate() {
            if super::blocks::cached_thinking(p) {
                let text = format!("{name} takes no cache_control on a thinking block");
                out.push(Diagnostic::part("cache_control_on_thinking", index, part, text));
            }
            for content in super::blocks::empty_result_texts(p) {
                out.push(Diagnostic {
                    code: "empty_text",
                    index,
                    path: format!("[{index}].parts[{part}].content[{content}]"),
                    message: "empty or whitespace-only text in a tool result".into(),
                });
            }
        }
        let parts: Vec<&Part> = m.parts.iter().collect();
        if let Some(part) =
            super::blocks::trailing_thinking(m.role, &parts).filter(|_| ends_turn.get(index) == Some(&true))
        {
            let text = format!("{name} rejects an assistant message whose final block is thinking");
            out.push(Diagnostic::part("ends_with_thinking", index, part, text));
        }
    }
    let refs: Vec<&Message> = messages.iter().collect();
    for (index, part, id) in super::blocks::orphan_server_results(&refs) {
        let text = format!("server tool result for {id} answers no earlier server_tool_use");
        out.push(Diagnostic::part("orphan_server_result", index, part, text));
    }
    let max = super::blocks::MAX_CACHE_BREAKPOINTS;
    for (index, part, content) in super::blocks::extra_breakpoints(&refs, request.cache_breakpoints) {
        let path = match content {
            Some(c) => format!("[{index}].parts[{part}].content[{c}]"),
            None => format!("[{index}].parts[{part}]"),
        };
        let message = format!("{name} takes at most {max} blocks with cache_control in a request (tools included)");
        out.push(Diagnostic { code: "too_many_cache_breakpoints", index, path, message });
    }
}

fn alternation(messages: &[Message], out: &mut Vec<Diagnostic>) {
    for (index, pair) in messages.windows(2).enumerate() {
        if let [a, b] = pair {
            if a.role == b.role && matches!(a.role, Role::User | Role::Assistant) {
                out.push(Diagnostic::message(
                    "consecutive_same_role",
                    index.saturating_add(1),
                    format!("two {} messages in a row", b.role.as_str()),
                ));
            }
        }
    }
}

/// Tool results, or the user's words after them, that would go out as a content of their
/// own (see [`super::result_turn`]).
fn split_result_turns(messages: &[Message], provider: Provider, out: &mut Vec<Diagnostic>) {
    for (index, pair) in messages.windows(2).enumerate() {
        let [previous, message] = pair else { continue };
        if !super::result_turn::split(previous, message) {
            continue;
        }
        let index = index.saturating_add(1);
        out.push(if message.role == Role::Tool {
            Diagnostic::message(
                "split_function_responses",
                index,
                format!(
                    "{} wants every response to a call turn in one content; these follow the responses before \
                     them in a content of their own",
                    provider.as_str()
                ),
            )
        } else {
            Diagnostic::message(
                "consecutive_same_role",
                index,
                "a user content right after the function responses' user content: they must be one".into(),
            )
        });
    }
}
