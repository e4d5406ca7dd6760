//! The tool name of a result, for writers whose wire repeats it on the result (Gemini's
//! `functionResponse.name`, the AI SDK's `toolName`): the name of the latest call with the
//! result's id before it. A chain may reuse an id (SWE-agent does, OpenAI accepts it), so
//! one map of the whole chain would give the first result the second call's name.

use crate::message::Message;
use std::collections::HashMap;

/// Call names by id as a writer walks the chain.
pub(crate) struct CallNames<'a> {
    /// Every call of the chain, the first with each id: results written before their call.
    first: HashMap<&'a str, &'a str>,
    latest: HashMap<&'a str, &'a str>,
}

impl<'a> CallNames<'a> {
    pub fn new(messages: &'a [Message]) -> Self {
        let mut first = HashMap::new();
        for call in messages.iter().flat_map(Message::tool_calls) {
            first.entry(call.id.as_str()).or_insert(call.name.as_str());
        }
        CallNames { first, latest: HashMap::new() }
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
}
