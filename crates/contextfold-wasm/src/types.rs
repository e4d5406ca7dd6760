//! Value types several exports share, declared once in Rust: tsify generates their
//! TypeScript declarations into the package's `.d.ts`.
//!
//! Where a value is a core type, the core crate stays free of wasm-bindgen and tsify
//! (DESIGN rule): the shape JS sees is declared here as a DTO with a `From` conversion,
//! and the tests below prove that each DTO serializes exactly as the core value does.

use contextfold::format::Format;
use contextfold::repair::Provider;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tsify::Tsify;

/// A message format contextfold reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Tsify)]
pub enum ChainFormat {
    #[serde(rename = "native")]
    Native,
    #[serde(rename = "openai")]
    OpenAi,
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    #[serde(rename = "anthropic")]
    Anthropic,
    #[serde(rename = "gemini")]
    Gemini,
    #[serde(rename = "aisdk")]
    AiSdk,
    #[serde(rename = "aisdk-ui")]
    AiSdkUi,
    #[serde(rename = "langchain")]
    LangChain,
}

impl From<Format> for ChainFormat {
    fn from(f: Format) -> Self {
        match f {
            Format::Native => ChainFormat::Native,
            Format::OpenAi => ChainFormat::OpenAi,
            Format::OpenAiResponses => ChainFormat::OpenAiResponses,
            Format::Anthropic => ChainFormat::Anthropic,
            Format::Gemini => ChainFormat::Gemini,
            Format::AiSdk => ChainFormat::AiSdk,
            Format::AiSdkUi => ChainFormat::AiSdkUi,
            Format::LangChain => ChainFormat::LangChain,
        }
    }
}

/// The API whose rules a chain must keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
pub enum ProviderName {
    #[serde(rename = "generic")]
    Generic,
    #[serde(rename = "openai")]
    OpenAi,
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    #[serde(rename = "anthropic")]
    Anthropic,
    #[serde(rename = "gemini")]
    Gemini,
}

impl From<Provider> for ProviderName {
    fn from(p: Provider) -> Self {
        match p {
            Provider::Generic => ProviderName::Generic,
            Provider::OpenAi => ProviderName::OpenAi,
            Provider::OpenAiResponses => ProviderName::OpenAiResponses,
            Provider::Anthropic => ProviderName::Anthropic,
            Provider::Gemini => ProviderName::Gemini,
        }
    }
}

/// Who speaks: provider roles map onto these four (`developer` is system, `model` assistant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl From<contextfold::Role> for Role {
    fn from(r: contextfold::Role) -> Self {
        match r {
            contextfold::Role::System => Role::System,
            contextfold::Role::User => Role::User,
            contextfold::Role::Assistant => Role::Assistant,
            contextfold::Role::Tool => Role::Tool,
        }
    }
}

/// A message in contextfold's native, provider-neutral format (the `"native"` format).
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
pub struct NativeMessage {
    pub role: Role,
    #[tsify(type = "Array<{ type: string; [key: string]: unknown }>")]
    pub parts: Vec<Value>,
    /// Fields of other formats, kept through a round trip.
    #[serde(flatten)]
    #[tsify(type = "{ [key: string]: unknown }")]
    pub extra: Map<String, Value>,
}

/// Messages, bytes and estimated tokens of a chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Tsify)]
pub struct Totals {
    pub messages: usize,
    pub bytes: usize,
    pub tokens: usize,
}

impl From<contextfold::strategy::Totals> for Totals {
    fn from(t: contextfold::strategy::Totals) -> Self {
        Totals { messages: t.messages, bytes: t.bytes, tokens: t.tokens }
    }
}

/// One change made by repair mode; `index` is the input message concerned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Tsify)]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum RepairAction {
    MergedConsecutiveHuman {
        index: usize,
    },
    MovedHumanIntoHeader {
        index: usize,
    },
    DroppedToolMessage {
        index: usize,
    },
    #[serde(rename_all = "camelCase")]
    DroppedDuplicateResult {
        index: usize,
        call_id: String,
    },
    #[serde(rename_all = "camelCase")]
    AddedMissingResult {
        index: usize,
        call_id: String,
        name: String,
    },
    #[serde(rename_all = "camelCase")]
    AddedMissingCall {
        index: usize,
        call_id: String,
        name: String,
    },
}

impl From<contextfold::ast::RepairAction> for RepairAction {
    fn from(a: contextfold::ast::RepairAction) -> Self {
        use contextfold::ast::RepairAction as A;
        match a {
            A::MergedConsecutiveHuman { index } => RepairAction::MergedConsecutiveHuman { index },
            A::MovedHumanIntoHeader { index } => RepairAction::MovedHumanIntoHeader { index },
            A::DroppedToolMessage { index } => RepairAction::DroppedToolMessage { index },
            A::DroppedDuplicateResult { index, call_id } => RepairAction::DroppedDuplicateResult { index, call_id },
            A::AddedMissingResult { index, call_id, name } => RepairAction::AddedMissingResult { index, call_id, name },
            A::AddedMissingCall { index, call_id, name } => RepairAction::AddedMissingCall { index, call_id, name },
        }
    }
}

/// One change made by `repairChain` (or by `compact`'s final pass); `index` is the input
/// message. Open on purpose: the repair pass gains steps over time, each with its own
/// fields (`part`, `callId`, `into`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
pub struct RepairStep {
    /// What was done, e.g. `"removedEmptyText"` or `"answeredPendingCall"`.
    pub step: String,
    pub index: usize,
    /// The step's other fields.
    #[serde(flatten)]
    #[tsify(type = "{ [key: string]: unknown }")]
    pub details: Map<String, Value>,
}

impl From<contextfold::repair::RepairStep> for RepairStep {
    fn from(s: contextfold::repair::RepairStep) -> Self {
        let index = s.index();
        // Serializing a plain data enum to a JSON value cannot fail.
        let mut details = match serde_json::to_value(&s) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        let step = match details.remove("step") {
            Some(Value::String(name)) => name,
            _ => String::new(),
        };
        details.remove("index");
        RepairStep { step, index, details }
    }
}

/// One rule the chain breaks: `path` points into the JSON you passed, `index` is the
/// message's position in the chain as read (the native messages).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Tsify)]
pub struct Diagnostic {
    /// Stable machine-readable code (more may come: unknown ones are plain strings).
    #[tsify(type = "\"orphan_result\" | \"unanswered_call\" | \"result_not_after_call\" | \"duplicate_result\" \
        | \"consecutive_same_role\" | \"empty_text\" | \"system_not_first\" | \"multiple_system\" \
        | \"starts_with_tool_result\" | \"first_not_user\" | \"duplicate_call_id\" | \"invalid_part\" | (string & {})")]
    pub code: &'static str,
    /// The offending message's position in the chain as read (a provider message may be
    /// read as several: an Anthropic user message of tool results and text, the steps
    /// of an AI SDK UIMessage).
    pub index: usize,
    /// Path of the culprit in your JSON: `messages[3]` of an Anthropic request, `[5]` of
    /// an array; down to the part (`[3].parts[1]`) for the native format.
    pub path: String,
    /// What is wrong, for people.
    pub message: String,
}

impl From<contextfold::repair::Diagnostic> for Diagnostic {
    fn from(d: contextfold::repair::Diagnostic) -> Self {
        Diagnostic { code: d.code, index: d.index, path: d.path, message: d.message }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use contextfold::ast::PartRule;
    use serde_json::json;

    /// The DTO serializes exactly as the core value it stands for.
    pub(crate) fn same_json<C: Serialize, D: Serialize + From<C>>(core: C) {
        let expected = serde_json::to_value(&core).unwrap();
        assert_eq!(serde_json::to_value(D::from(core)).unwrap(), expected);
    }

    #[test]
    fn a_chain_format_serializes_to_the_format_name() {
        for f in Format::ALL {
            assert_eq!(serde_json::to_value(ChainFormat::from(f)).unwrap(), json!(f.as_str()));
        }
        for p in Provider::ALL {
            let name = serde_json::to_value(ProviderName::from(p)).unwrap();
            assert_eq!(name.as_str().and_then(Provider::from_name), Some(p));
        }
        for r in
            [contextfold::Role::System, contextfold::Role::User, contextfold::Role::Assistant, contextfold::Role::Tool]
        {
            same_json::<_, Role>(r);
        }
    }

    #[test]
    fn dtos_serialize_as_the_core_values() {
        same_json::<_, Totals>(contextfold::strategy::Totals { messages: 1, bytes: 2, tokens: 3 });
        use contextfold::ast::RepairAction as A;
        for a in [
            A::MergedConsecutiveHuman { index: 1 },
            A::MovedHumanIntoHeader { index: 2 },
            A::DroppedToolMessage { index: 3 },
            A::DroppedDuplicateResult { index: 4, call_id: "c".into() },
            A::AddedMissingResult { index: 5, call_id: "c".into(), name: "n".into() },
            A::AddedMissingCall { index: 6, call_id: "c".into(), name: "n".into() },
        ] {
            same_json::<_, RepairAction>(a);
        }
        use contextfold::repair::RepairStep as S;
        for s in [
            S::RemovedEmptyMessage { index: 1 },
            S::DroppedInvalidPart { index: 2, part: 1, content: None, rule: PartRule::EmptyToolCallId },
            S::MergedSameRole { index: 3, into: 2, role: contextfold::Role::User },
            S::AnsweredPendingCall { index: 4, call_id: "c".into(), name: "n".into() },
        ] {
            same_json::<_, RepairStep>(s);
        }
        same_json::<_, Diagnostic>(contextfold::repair::Diagnostic {
            code: "empty_text",
            index: 2,
            path: "[2].parts[0]".into(),
            message: "m".into(),
        });
    }
}
