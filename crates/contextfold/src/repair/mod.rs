//! Provider validity passes: the last thing every compaction strategy does, and callable
//! on its own (`repairChain` / `validateChain` in JS).
//!
//! Works on plain [`Message`] lists, not on the chain AST (the strict AST parser rejects
//! some chains this pass must fix). It never mutates its input, keeps every untouched
//! message exactly as it was, and lists each change as a [`RepairStep`] naming the input
//! message it concerns. [`validate`] reports the same rules as [`Diagnostic`]s, and the
//! output of [`repair`] validates clean for the provider it was repaired for.
//!
//! Passes, in order (each one only acts on a rule the provider would reject, so a valid
//! chain comes back unchanged with no step):
//! 1. `thinking`: when history before a kept thinking block was rewritten (see
//!    [`RepairOptions::history_changed_from`] and [`repair_compacted`]), older thinking is
//!    dropped for providers that sign it against its history; the current tool cycle keeps
//!    its reasoning byte-for-byte;
//!    Thinking without a signature is dropped for providers that require one (Anthropic);
//! 2. `content_parts` (Responses): a content part the API does not take where it stands (a
//!    Chat Completions `text` or `image_url`, output text in a user message) becomes the
//!    type it takes there, or goes when nothing can stand for it;
//!    `parts`: parts in a place no provider allows them (a tool call outside an assistant
//!    message, a tool result outside a tool message, anything else in a tool message, media
//!    without a source, an empty call id) and a call id used twice in one message are
//!    dropped;
//! 3. `empty`: empty and whitespace-only text parts are dropped (whitespace beside other
//!    content of an assistant message stays: real Claude transcripts send it back), then
//!    messages left with no parts;
//! 4. `roles` (system placement): a system message after the start becomes a user
//!    message in place; a leading run of system messages is merged into one for providers
//!    with a single system field;
//! 5. `tool_pairing`: results right after their call, orphans removed or answered,
//!    duplicates dropped, pending calls answered with a placeholder, leading results
//!    dropped;
//!    then `items` (Responses): the later copy of an item id loses it (or goes, when the
//!    item needs its id), and a reasoning item left without the item after it goes;
//!    then `call_ids`: a call reusing the id of an earlier message's call is renamed, with
//!    its results, for providers that want each id once (all but OpenAI), and
//!    `tool_media`: media of tool results move to a user message after the results, for
//!    providers whose tool messages hold text only (OpenAI);
//! 6. `roles` (alternation): consecutive user or assistant messages merged where the
//!    provider requires alternation, and a placeholder user message put before an assistant
//!    that would open the conversation; `result_turn`: for Gemini, tool results and the
//!    user's words after them that were read as contents of their own join the content
//!    of the results before them; before it, with thinking on
//!    ([`RequestRules::thinking`]), a summary pair that would be the final assistant
//!    message moves into the user's turn (`thinking`), and the thinking an assistant turn
//!    ends with is dropped (`blocks`);
//! 7. `blocks` (Anthropic): besides the part-level rules run with step 3 (no
//!    `cache_control` on thinking, no empty text in a tool result), a server tool result
//!    whose use is not in the chain becomes its text, and cache breakpoints over the
//!    limit are dropped.

mod blocks;
mod call_ids;
mod content_parts;
mod empty;
mod items;
mod parts;
mod result_order;
mod result_turn;
mod roles;
mod step;
mod thinking;
mod tool_media;
mod tool_pairing;
mod validate;

pub(crate) use roles::merge_into;
pub use step::RepairStep;
pub(crate) use thinking::current_cycle_start;
pub use thinking::summary_pairs_as_user;
pub use tool_media::MOVED_MEDIA_NOTE;
pub(crate) use tool_pairing::in_flight;
pub(crate) use validate::has_misplaced_results;
pub use validate::{
    validate, validate_request, Diagnostic, CODES as DIAGNOSTIC_CODES, CODES_TS as DIAGNOSTIC_CODES_TS,
};

use crate::message::{Message, Part};
use serde::Serialize;
use std::borrow::Cow;

/// Content of the result added for a tool call that had none.
pub const DEFAULT_PENDING_PLACEHOLDER: &str = crate::ast::FALLBACK_RESPONSE_CONTENT;
/// Text of the user message put before an assistant message that would open the chain.
pub const DEFAULT_LEADING_USER_PLACEHOLDER: &str = "(continuing the conversation)";

/// The API a chain is meant for; it decides which rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[cfg_attr(feature = "tsify", tsify(rename = "ProviderName"))]
pub enum Provider {
    /// The rules every provider shares: tool pairing, one system prompt first, no empty
    /// text, no leading tool result. Older thinking is dropped when history changed (no
    /// provider needs it, and Anthropic rejects it).
    #[default]
    Generic,
    /// OpenAI Chat Completions (and compatible APIs): several system messages, anywhere,
    /// and consecutive same-role messages are accepted.
    #[serde(rename = "openai")]
    OpenAi,
    /// OpenAI Responses API: system and developer messages anywhere, consecutive same-role
    /// items, media in tool outputs; a reasoning item must be followed by the item it led
    /// to (it is kept in the same assistant message).
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// Anthropic Messages: one top-level system prompt (and system messages in `messages`),
    /// alternating user/assistant turns starting with user, thinking signed against the
    /// history before it.
    Anthropic,
    /// Gemini: one `systemInstruction`, alternating `user` / `model` turns starting with
    /// user; thought signatures stay on their part.
    Gemini,
}

impl Provider {
    pub const ALL: [Provider; 5] =
        [Provider::Generic, Provider::OpenAi, Provider::OpenAiResponses, Provider::Anthropic, Provider::Gemini];

    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Generic => "generic",
            Provider::OpenAi => "openai",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
        }
    }

    /// Reads a provider name (case-insensitive, `openai` and `openAi` alike).
    pub fn from_name(name: &str) -> Option<Provider> {
        match name.to_ascii_lowercase().as_str() {
            "generic" => Some(Provider::Generic),
            "openai" => Some(Provider::OpenAi),
            "openairesponses" | "openai-responses" => Some(Provider::OpenAiResponses),
            "anthropic" => Some(Provider::Anthropic),
            "gemini" | "google" => Some(Provider::Gemini),
            _ => None,
        }
    }

    /// Roles must alternate: no two user or two assistant messages in a row. Tool
    /// messages are not counted: several results go into one user turn on the wire, and a
    /// user message after results joins their turn (real Anthropic transcripts have it).
    pub fn requires_alternation(self) -> bool {
        matches!(self, Provider::Anthropic | Provider::Gemini)
    }

    /// The system prompt is one field (Anthropic `system`, Gemini `systemInstruction`), so
    /// a leading run of system messages must become one.
    pub fn single_system(self) -> bool {
        matches!(self, Provider::Anthropic | Provider::Gemini)
    }

    /// The tool results of a user turn come before its other blocks.
    pub fn results_first(self) -> bool {
        self == Provider::Anthropic
    }

    /// A whitespace-only text in an assistant message needs a text with something in it
    /// beside it: thinking or tool use is not enough (see [`empty`]).
    pub fn blank_text_needs_text(self) -> bool {
        self == Provider::Anthropic
    }

    /// System messages may stand anywhere in the chain: OpenAI Chat (`system` and
    /// `developer`), the Responses API, and Anthropic (`role: "system"` in `messages`,
    /// `SystemMessageParam`). Gemini has no system role in `contents`; the generic rules
    /// keep the one place every provider accepts, the start.
    pub fn system_anywhere(self) -> bool {
        matches!(self, Provider::OpenAi | Provider::OpenAiResponses | Provider::Anthropic)
    }

    /// The first turn after the system prompt must be the user's.
    pub fn user_first(self) -> bool {
        matches!(self, Provider::Anthropic | Provider::Gemini)
    }

    /// Every tool-call id may be used once in the whole chain: Anthropic rejects a reused
    /// `tool_use` id ("tool_use ids must be unique"), and Gemini and the formats under the
    /// shared rules (AI SDK, LangChain) pair a result with its call by id, so a reused id
    /// gives a result the wrong call. OpenAI Chat accepts it (real transcripts reuse ids);
    /// the Responses API pairs an output with its call by `call_id`, so it needs them unique.
    pub fn unique_call_ids(self) -> bool {
        !matches!(self, Provider::OpenAi)
    }

    /// The responses to a call turn, and the user's words after them, are one content
    /// (Gemini): see [`result_turn`].
    pub fn one_result_turn(self) -> bool {
        self == Provider::Gemini
    }

    /// A tool message holds text only (OpenAI): media of results go to a user message.
    pub fn text_only_tool_results(self) -> bool {
        matches!(self, Provider::OpenAi)
    }

    /// The Messages API's block rules ([`blocks`]): cache breakpoints, server tool results,
    /// thinking at the end of a message, empty text in tool results.
    pub fn block_rules(self) -> bool {
        self == Provider::Anthropic
    }

    /// A thinking block must carry its signature (or be redacted).
    pub fn requires_signed_thinking(self) -> bool {
        matches!(self, Provider::Anthropic)
    }

    /// Thinking is signed against the history before it: once that history changed, only
    /// the current tool cycle may keep its thinking.
    pub fn drops_stale_thinking(self) -> bool {
        matches!(self, Provider::Anthropic | Provider::Generic)
    }
}

/// What a request object says beside its messages that a provider's rules depend on (a
/// bare list says none of it: the rules that need it are not checked then).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RequestRules {
    /// Thinking is on for every turn (Anthropic `thinking: {type: "enabled"}`; with
    /// `adaptive` the model may answer without it).
    pub thinking: bool,
    /// Cache breakpoints outside the messages (Anthropic: tool definitions with
    /// `cache_control`), which count toward the provider's limit.
    pub cache_breakpoints: usize,
}

/// What to do with a tool result that answers no earlier call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum OrphanResults {
    /// Drop it.
    #[default]
    Remove,
    /// Add a call for it (arguments `{}`) to the assistant message right before it, as
    /// ChainAST repair does; a result with no assistant message right before it (only
    /// tool messages between) is dropped anyway.
    Answer,
}

/// Options of [`repair`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepairOptions {
    pub provider: Provider,
    pub orphan_results: OrphanResults,
    /// Content of the result added for a call that has none.
    pub pending_placeholder: String,
    /// Merge consecutive user / assistant messages; `None` = when the provider requires
    /// alternation (Anthropic, Gemini).
    pub merge_same_role: Option<bool>,
    /// Text of the user message put before an assistant message that would open the
    /// chain (Anthropic, Gemini). A blank text is replaced by the default (a blank user
    /// message would itself be rejected).
    pub leading_user_placeholder: String,
    /// Index (in the chain given to [`repair`]) of the first message whose history differs
    /// from what the provider saw before: thinking in an assistant message at or after it,
    /// outside the current tool cycle, is stale, and then all older thinking is dropped for
    /// providers that sign it. `None` = the history is as the provider saw it (standalone
    /// repair). [`repair_compacted`] sets it from the original chain.
    pub history_changed_from: Option<usize>,
    /// How many messages at the end keep their reasoning whatever the thinking rule says
    /// of the current tool cycle: a stable compaction's last fold settled which thinking
    /// its request sent, and the requests after it append to that prefix (dropping more
    /// of it later would change a prefix the provider has cached). `None`: the current
    /// tool cycle alone.
    pub thinking_kept_last: Option<usize>,
    /// What the request the chain came in says (see [`RequestRules`]).
    pub request: RequestRules,
    /// A system message after the start stays where it is, whatever the provider (the
    /// native form: `convert` to it keeps a mid-chain developer message, for the format
    /// converted to next to place).
    pub keep_system_in_place: bool,
}

impl Default for RepairOptions {
    fn default() -> Self {
        RepairOptions::for_provider(Provider::Generic)
    }
}

impl RepairOptions {
    pub fn for_provider(provider: Provider) -> Self {
        RepairOptions {
            provider,
            orphan_results: OrphanResults::Remove,
            pending_placeholder: DEFAULT_PENDING_PLACEHOLDER.to_string(),
            merge_same_role: None,
            leading_user_placeholder: DEFAULT_LEADING_USER_PLACEHOLDER.to_string(),
            history_changed_from: None,
            thinking_kept_last: None,
            request: RequestRules::default(),
            keep_system_in_place: false,
        }
    }

    /// Whether consecutive same-role messages are merged.
    pub fn merges_same_role(&self) -> bool {
        self.merge_same_role.unwrap_or_else(|| self.provider.requires_alternation())
    }

    fn leading_user_text(&self) -> &str {
        if self.leading_user_placeholder.trim().is_empty() {
            DEFAULT_LEADING_USER_PLACEHOLDER
        } else {
            &self.leading_user_placeholder
        }
    }
}

/// A repaired chain and every change made to get it.
#[derive(Debug, Clone, PartialEq)]
pub struct Repaired {
    pub messages: Vec<Message>,
    pub steps: Vec<RepairStep>,
}

impl Repaired {
    /// True when repair changed nothing.
    pub fn is_unchanged(&self) -> bool {
        self.steps.is_empty()
    }
}

/// A message on its way through the passes, with the input index it came from (for an
/// added message: the input message it was added for).
#[derive(Debug, Clone)]
pub(crate) struct Item {
    pub msg: Message,
    pub origin: usize,
}

/// One input message under the part-level passes: its parts with their input positions.
pub(crate) struct Draft<'a> {
    pub index: usize,
    pub source: &'a Message,
    pub parts: Vec<(usize, Cow<'a, Part>)>,
    pub changed: bool,
}

impl<'a> Draft<'a> {
    fn new(index: usize, source: &'a Message) -> Self {
        let parts = source.parts.iter().enumerate().map(|(i, p)| (i, Cow::Borrowed(p))).collect();
        Draft { index, source, parts, changed: false }
    }

    /// Keeps the parts for which `keep` says true; `keep` gets the input position.
    pub fn retain(&mut self, mut keep: impl FnMut(usize, &Part) -> bool) {
        let before = self.parts.len();
        self.parts.retain(|(i, p)| keep(*i, p));
        if self.parts.len() != before {
            self.changed = true;
        }
    }

    /// What the passes made of the message: `None` when no part is left.
    fn finish(self) -> Option<Drafted> {
        if self.parts.is_empty() {
            return None;
        }
        if !self.changed {
            return Some(Drafted::Unchanged);
        }
        let parts = self.parts.into_iter().map(|(_, p)| p.into_owned()).collect();
        Some(Drafted::Changed(Message { role: self.source.role, parts, extra: self.source.extra.clone() }))
    }
}

/// A message the part-level passes kept.
enum Drafted {
    /// As it came: the message itself goes on (moved when the repair owns it).
    Unchanged,
    Changed(Message),
}

/// Makes `messages` valid for `options.provider`. Total: any input gives a result.
/// Standalone use applies no thinking rule unless `options.history_changed_from` says
/// history was rewritten.
pub fn repair(messages: &[Message], options: &RepairOptions) -> Repaired {
    let stale = thinking::StaleThinking::find(messages, options);
    repair_each(messages.iter().map(Cow::Borrowed).collect(), &stale, options)
}

/// [`repair`] of a chain it may take over: a message no pass changes is moved into the
/// result, not copied (a strategy's result is repaired so, and is most of the output).
pub fn repair_owned(messages: Vec<Message>, options: &RepairOptions) -> Repaired {
    let stale = thinking::StaleThinking::find(&messages, options);
    repair_each(messages.into_iter().map(Cow::Owned).collect(), &stale, options)
}

/// The passes, once for both: a list of one type (not an iterator of each) keeps the
/// whole pass in the wasm once.
fn repair_each(messages: Vec<Cow<'_, Message>>, stale: &thinking::StaleThinking, options: &RepairOptions) -> Repaired {
    let mut steps = Vec::new();
    let mut items: Vec<Item> = Vec::with_capacity(messages.len());
    for (index, message) in messages.into_iter().enumerate() {
        let mut draft = Draft::new(index, &message);
        stale.drop_parts(&mut draft, &mut steps);
        thinking::drop_unsigned(&mut draft, options.provider, &mut steps);
        if options.provider == Provider::OpenAiResponses {
            content_parts::clean(&mut draft, &mut steps);
        }
        parts::clean(&mut draft, &mut steps);
        if options.provider.block_rules() {
            blocks::clean(&mut draft, &mut steps);
        }
        empty::drop_blank_text(&mut draft, options.provider, &mut steps);
        match draft.finish() {
            Some(Drafted::Unchanged) => items.push(Item { msg: message.into_owned(), origin: index }),
            Some(Drafted::Changed(msg)) => items.push(Item { msg, origin: index }),
            None => steps.push(RepairStep::RemovedEmptyMessage { index }),
        }
    }
    let items = roles::place_system(items, options, &mut steps);
    let items = tool_pairing::repair(items, options, &mut steps);
    let items = if options.provider == Provider::OpenAiResponses {
        // After pairing, which may drop the call a reasoning item led to.
        let items = items::drop_duplicate_ids(items, &mut steps);
        items::drop_orphan_reasoning(items, &mut steps)
    } else {
        items
    };
    // A system message kept mid-chain may join the leading run once pairing dropped what
    // stood before it (an orphan result): the one-field system prompt takes it then.
    let items = if options.provider.single_system() && options.provider.system_anywhere() {
        roles::place_system(items, options, &mut steps)
    } else {
        items
    };
    // After pairing (which pairs reused ids by position, and may add calls for orphans).
    let items = if options.provider.unique_call_ids() { call_ids::rename_reused(items, &mut steps) } else { items };
    let items = if options.provider.text_only_tool_results() { tool_media::move_out(items, &mut steps) } else { items };
    let items = if options.request.thinking && options.provider.requires_signed_thinking() {
        thinking::summary_pairs_to_user(items, &mut steps)
    } else {
        items
    };
    let items = if options.provider.block_rules() {
        // A message that went may leave system messages joining the leading run.
        let items = blocks::drop_trailing_thinking(items, &mut steps);
        roles::place_system(items, options, &mut steps)
    } else {
        items
    };
    let items = if options.merges_same_role() { roles::merge_same_role(items, &mut steps) } else { items };
    let items = if options.provider.one_result_turn() { result_turn::join(items, &mut steps) } else { items };
    let items = roles::leading_user(items, options, &mut steps);
    let items = if options.provider.results_first() { result_order::results_first(items, &mut steps) } else { items };
    let items = if options.provider.block_rules() {
        let items = blocks::unwrap_orphan_results(items, &mut steps);
        blocks::drop_extra_breakpoints(items, options.request.cache_breakpoints, &mut steps)
    } else {
        items
    };
    Repaired { messages: items.into_iter().map(|i| i.msg).collect(), steps }
}

/// What a strategy finishes with: [`repair`] of `compacted`, also applying the thinking
/// rule when `compacted` rewrote history that `original` had before a kept thinking block.
/// History counts as rewritten from the first message where the two chains differ (their
/// longest common prefix); a chain that only appends to or cuts the end of `original`
/// rewrote nothing.
/// The result takes `compacted` over ([`repair_owned`]).
pub fn repair_compacted(original: &[Message], compacted: Vec<Message>, options: &RepairOptions) -> Repaired {
    let common = original.iter().zip(&compacted).take_while(|(a, b)| a == b).count();
    let changed = (common < original.len() && common < compacted.len()).then_some(common);
    let history_changed_from = match (options.history_changed_from, changed) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    repair_owned(compacted, &RepairOptions { history_changed_from, ..options.clone() })
}
