//! A conversation held between calls, for callers that push messages as they happen (the
//! bindings' `History`): the messages as read, what each costs in the trigger's unit, and
//! the total, so that a push costs in proportion to what it adds and the strategy's
//! trigger needs no reading of the whole chain.
//!
//! What a session holds is what reading the whole array would give, message for message:
//! the format is detected as the array grows ([`Detector`]), and a pushed message is read
//! with the items it joins (a reader may join the items of one assistant turn, as the
//! Responses API's reader does).

use crate::format::detect::Detector;
use crate::format::{self, Format, FormatError};
use crate::measure::{Meter, Unit};
use crate::message::{Message, Role};
use crate::repair::Provider;
use crate::strategy::run::{self, StrategyConfig};
use serde_json::Value;

/// See the module documentation.
#[derive(Debug, Clone)]
pub struct Session {
    /// The format given, or `None` to detect it.
    given: Option<Format>,
    detector: Detector,
    strategy: StrategyConfig,
    /// The provider whose repair pass `compact` ends with (`None`: the format's).
    provider: Option<Provider>,
    /// The unit the trigger counts in; `costs` are in it.
    unit: Unit,
    messages: Vec<Message>,
    costs: Vec<usize>,
    total: usize,
    /// The last group of provider messages pushed, read again when an item joins it.
    turn: Vec<Value>,
    /// Where its messages start in `messages`.
    turn_start: usize,
    /// The role the last item pushed reads as alone.
    last_role: Option<Role>,
    /// The format the held messages were read in.
    read_as: Option<Format>,
}

/// What a push came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pushed {
    /// The session holds the new messages.
    Held,
    /// The messages so far turned out to be in another format than they were read in
    /// (detection narrowed): give the whole array again with [`Session::reset`].
    Stale,
}

impl Session {
    /// An empty session for messages in `format` (`None`: detected), with the strategy
    /// whose trigger it answers and the provider whose repair pass `compact` ends with
    /// (`None`: the format's).
    pub fn new(format: Option<Format>, strategy: StrategyConfig, provider: Option<Provider>) -> Session {
        let unit = strategy.trigger_unit();
        Session {
            given: format,
            detector: Detector::default(),
            strategy,
            provider,
            unit,
            messages: Vec::new(),
            costs: Vec::new(),
            total: 0,
            turn: Vec::new(),
            turn_start: 0,
            last_role: None,
            read_as: None,
        }
    }

    /// Appends provider messages. An error (a message no format reads) leaves the session
    /// as it was.
    pub fn push(&mut self, items: Vec<Value>, meter: Meter<'_>) -> Result<Pushed, FormatError> {
        let format = self.format_with(&items)?;
        if self.read_as.is_some_and(|read| read != format) {
            return Ok(Pushed::Stale);
        }
        // Each item is read alone, but the assistant items a reader joins are read with
        // the group they join (see `Format::joins_assistant_items`).
        let alone: Vec<Option<Vec<Message>>> =
            items.iter().map(|item| format::read(&Value::Array(vec![item.clone()]), format).ok()).collect();
        let role_of = |read: &Option<Vec<Message>>| read.as_ref().and_then(|r| r.first()).map(|m| m.role);
        let joins = |role: Option<Role>, before: Option<Role>| {
            format.joins_assistant_items() && role == Some(Role::Assistant) && before == Some(Role::Assistant)
        };
        // Groups of items, each with its read when it is one item read alone.
        let mut groups: Vec<(Vec<Value>, Option<Vec<Message>>)> = Vec::new();
        let mut start = self.messages.len();
        if joins(alone.first().and_then(role_of), self.last_role) {
            groups.push((self.turn.clone(), None));
            start = self.turn_start.min(start);
        }
        let mut before = self.last_role;
        for (item, read) in items.into_iter().zip(alone) {
            let role = role_of(&read);
            match groups.last_mut() {
                Some((group, read)) if joins(role, before) => {
                    group.push(item);
                    *read = None;
                }
                _ => groups.push((vec![item], read)),
            }
            before = role;
        }
        let mut read = Vec::new();
        let mut last_start = 0;
        let mut last = Vec::new();
        for (group, known) in groups {
            last_start = read.len();
            let array = Value::Array(group);
            match known {
                Some(messages) => read.extend(messages),
                None => read.extend(format::read(&array, format)?),
            }
            if let Value::Array(group) = array {
                last = group;
            }
        }
        self.replace_from(start, read, meter);
        self.turn_start = start.saturating_add(last_start);
        self.turn = last;
        self.last_role = before;
        self.read_as = Some(format);
        Ok(Pushed::Held)
    }

    /// Holds `items` (the whole array) in place of what the session held.
    pub fn reset(&mut self, items: Vec<Value>, meter: Meter<'_>) -> Result<(), FormatError> {
        let mut fresh = Session::new(self.given, self.strategy.clone(), self.provider);
        match fresh.push(items, meter)? {
            Pushed::Held => {
                *self = fresh;
                Ok(())
            }
            // A fresh session reads everything in the detected format: never stale.
            Pushed::Stale => Ok(()),
        }
    }

    /// Whether `compact` with the session's strategy would do anything now, as
    /// [`crate::pipeline::needs_compaction_json`] on the whole array answers it: the
    /// strategy's trigger from the costs held (no message is measured again, a token
    /// counter counts no chain), else, once the chain ends in a user message or tool
    /// results (the next request is due), whether the repair pass would change it (a
    /// validation of the chain, which a clean chain passes without a change). Not while it
    /// ends in an answer: a chat UI pushes the answer it streams as the stream starts,
    /// empty, and fills it in place (mended then, the placeholder would go); and the
    /// validation, of the whole chain, is made once per request, not at every push.
    pub fn needs_compaction(&self, meter: Meter<'_>) -> bool {
        let Some(format) = self.read_as else { return false };
        // What `compact` keeps first (a Responses compaction item) is no part of what its
        // strategy is given: then the rest is measured (rare), else the costs held serve.
        let kept = crate::pipeline::kept_first(&Value::Null, format, &self.messages);
        let triggered = if kept == 0 {
            run::needs_compaction_with_costs(&self.messages, &self.costs, self.unit, &self.strategy, meter)
        } else {
            run::needs_compaction_after_kept(&self.messages, kept, &self.strategy, meter)
        };
        if triggered {
            return true;
        }
        let due = self.messages.last().is_some_and(|m| matches!(m.role, Role::User | Role::Tool));
        if !due {
            return false;
        }
        // A bare array: no request fields (no `thinking`, no continued conversation).
        crate::pipeline::repaired_rest(&Value::Null, format, &self.messages, self.provider)
            .is_some_and(|(rest, out)| out != rest)
    }

    /// The messages held, as the whole array reads.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Their total in the trigger's unit.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The format the messages are read in (`None` before the first push).
    pub fn format(&self) -> Option<Format> {
        self.read_as
    }

    /// The format of the array with `items` added; the detector narrows only when the
    /// items fit.
    fn format_with(&mut self, items: &[Value]) -> Result<Format, FormatError> {
        if let Some(format) = self.given {
            return Ok(format);
        }
        let mut detector = self.detector;
        detector.add(items)?;
        self.detector = detector;
        Ok(detector.format())
    }

    /// Replaces the messages from `start` on with `read`, keeping costs and total.
    fn replace_from(&mut self, start: usize, read: Vec<Message>, meter: Meter<'_>) {
        let dropped: usize = self.costs.get(start..).map_or(0, |c| c.iter().sum());
        let costs = meter.costs(self.unit, &read);
        self.total = self.total.saturating_sub(dropped).saturating_add(costs.iter().sum());
        self.messages.truncate(start);
        self.costs.truncate(start);
        self.messages.extend(read);
        self.costs.extend(costs);
    }
}
