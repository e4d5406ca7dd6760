//! Constructors for the pairs that compaction creates.

use super::tool_id::{seed_from, IdTemplate};
use super::BodyPair;
use crate::message::{Extra, Message, Part, Role, ToolCallPart, ToolResultPart};

/// Name of the tool call that carries a summary.
pub const SUMMARIZATION_TOOL_NAME: &str = "execute_task_and_return_summary";
/// Arguments of the summarization tool call: upstream's, as compact JSON (upstream has a
/// space after the colon), the form every wire that holds arguments as an object (Anthropic,
/// Gemini, the AI SDK, LangChain) gives back, so a chain measures the same read back.
pub const SUMMARIZATION_TOOL_ARGS: &str =
    r#"{"question":"delegate and execute the task, then return the summary of the result"}"#;
/// Signature Gemini accepts in place of a real `thoughtSignature`.
pub const FAKE_REASONING_SIGNATURE: &str = "skip_thought_signature_validator";
/// Marks a completion pair whose text is a summary.
pub const SUMMARIZED_CONTENT_PREFIX: &str = "**summarized content:**\n";

impl BodyPair<'_> {
    /// A completion pair: one assistant text part.
    pub fn completion(text: impl Into<String>) -> BodyPair<'static> {
        BodyPair::build(Message::text(Role::Assistant, text), Vec::<Message>::new())
    }

    /// A summarization pair: an assistant call to [`SUMMARIZATION_TOOL_NAME`] answered by
    /// one tool message holding `summary`. The call id comes from `template`, seeded by the
    /// summary and by the tool-call ids of the `replaced` messages: the same summary of the
    /// same span always gets the same id (byte-stable reruns), and equal summaries of two
    /// spans get two ids (Anthropic rejects a chain using an id twice). `fake_signature` puts
    /// [`FAKE_REASONING_SIGNATURE`] on the call (when the summarized content carried
    /// tool-call reasoning); `reasoning`'s parts, if given, go before the call (providers
    /// such as Kimi want reasoning before a tool call).
    pub fn summarization(
        summary: &str,
        replaced: &[Message],
        template: &IdTemplate,
        fake_signature: bool,
        reasoning: Option<&Message>,
    ) -> BodyPair<'static> {
        BodyPair::summarization_of(summary, replaced, template, fake_signature, reasoning)
    }

    /// [`BodyPair::summarization`] of the messages where they lie.
    pub(crate) fn summarization_of<'m>(
        summary: &str,
        replaced: impl IntoIterator<Item = &'m Message>,
        template: &IdTemplate,
        fake_signature: bool,
        reasoning: Option<&Message>,
    ) -> BodyPair<'static> {
        let mut seed: Vec<&[u8]> = vec![summary.as_bytes()];
        seed.extend(replaced.into_iter().flat_map(|m| m.parts.iter()).filter_map(|p| match p {
            Part::ToolCall(c) => Some(c.id.as_bytes()),
            Part::ToolResult(r) => Some(r.call_id.as_bytes()),
            _ => None,
        }));
        let id = template.generate(SUMMARIZATION_TOOL_NAME, seed_from(&seed));
        let mut parts: Vec<Part> = reasoning.map(|m| m.parts.clone()).unwrap_or_default();
        parts.push(Part::ToolCall(ToolCallPart {
            id: id.clone(),
            name: SUMMARIZATION_TOOL_NAME.to_string(),
            arguments: SUMMARIZATION_TOOL_ARGS.to_string(),
            signature: fake_signature.then(|| FAKE_REASONING_SIGNATURE.to_string()),
            extra: Extra::new(),
        }));
        let ai = Message::new(Role::Assistant, parts);
        // The result carries no name of its own (writers that need one take its call's):
        // OpenAI's official tool message has no `name`.
        let result = Part::ToolResult(ToolResultPart {
            call_id: id,
            name: None,
            content: vec![Part::text(summary)],
            is_error: false,
            extra: Extra::new(),
        });
        BodyPair::build(ai, vec![Message::new(Role::Tool, vec![result])])
    }
}
