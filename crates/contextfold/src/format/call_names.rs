//! The tool name of a result, for writers whose wire repeats it on the result (Gemini's
//! `functionResponse.name`, the AI SDK's `toolName`): the name of the latest call with the
//! result's id before it. A chain may reuse an id (SWE-agent does, OpenAI accepts it), so
//! one map of the whole chain would give the first result the second call's name.

use super::path::JsonPath;
use super::FormatError;
use crate::hashing::HashMap;
use crate::message::{Message, ToolResultPart};

/// Call names by id as a writer walks the chain.
pub(crate) struct CallNames<'a> {
    /// Every call of the chain, the first with each id: results written before their call.
    first: HashMap<&'a str, &'a str>,
    latest: HashMap<&'a str, &'a str>,
}

impl<'a> CallNames<'a> {
    pub fn new(messages: &'a [Message]) -> Self {
        let mut first = HashMap::default();
        for call in messages.iter().flat_map(Message::tool_calls) {
            first.entry(call.id.as_str()).or_insert(call.name.as_str());
        }
        CallNames { first, latest: HashMap::default() }
    }

    /// Records the calls of `message`, the next one the writer writes.
    pub fn visit(&mut self, message: &'a Message) {
        for call in message.tool_calls() {
            self.latest.insert(call.id.as_str(), call.name.as_str());
        }
    }

    /// The name of the call `id` answers.
    pub fn get(&self, id: &str) -> Option<&'a str> {
        self.latest.get(id).or_else(|| self.first.get(id)).copied()
    }

    /// The name written on `result`: its own, else that of the call it answers; an error
    /// at `path` naming `what` (the wire field that needs it) when there is neither.
    pub fn of_result<'r>(
        &'r self,
        result: &'r ToolResultPart,
        path: &JsonPath,
        what: &str,
    ) -> Result<&'r str, FormatError> {
        match (&result.name, self.get(result.call_id.as_str())) {
            (Some(name), _) => Ok(name.as_str()),
            (None, Some(name)) => Ok(name),
            (None, None) => Err(path.unwritable(format!(
                "a tool result without a name, answering no call of the chain, cannot be written to {what}"
            ))),
        }
    }
}
