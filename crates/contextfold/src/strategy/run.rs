//! One entry point over every strategy: pick the strategy, compact, then finish with the
//! provider-validity pass ([`crate::repair`]) so every result is a chain the target
//! provider accepts.

use super::auto::{self, AutoConfig};
use super::budget::{self, BudgetConfig};
use super::mask::{self, MaskConfig};
use super::sections::{self, SectionsConfig};
use super::tiers::{self, TiersConfig};
use super::window::{self, WindowConfig};
use super::{CompactError, CompactResult, Totals};
use crate::measure::{Amount, Meter, Unit};
use crate::message::{Message, Part, Role};
use crate::repair::{merge_into, repair, repair_compacted, repair_owned, validate_request, RepairOptions};
use crate::summarize::{Controls, Progress, Summarizer};

/// A strategy with its settings.
#[derive(Debug, Clone, PartialEq)]
pub enum StrategyConfig {
    Auto(AutoConfig),
    Mask(MaskConfig),
    Sections(SectionsConfig),
    Window(WindowConfig),
    Tiers(TiersConfig),
    Budget(BudgetConfig),
}

impl StrategyConfig {
    pub fn name(&self) -> &'static str {
        match self {
            StrategyConfig::Auto(_) => "auto",
            StrategyConfig::Mask(_) => "mask",
            StrategyConfig::Sections(_) => "sections",
            StrategyConfig::Window(_) => "window",
            StrategyConfig::Tiers(_) => "tiers",
            StrategyConfig::Budget(_) => "budget",
        }
    }

    /// What a failed summary call leads to.
    pub fn on_error(&self) -> super::OnError {
        match self {
            StrategyConfig::Auto(c) => c.on_error,
            StrategyConfig::Mask(c) => c.on_error,
            StrategyConfig::Sections(c) => c.on_error,
            StrategyConfig::Window(c) => c.on_error,
            StrategyConfig::Tiers(c) => c.on_error,
            StrategyConfig::Budget(c) => c.on_error,
        }
    }

    /// The budget whose crossing triggers compaction, for the strategies triggered by one
    /// (`auto`, `budget`, and `mask` when it has one).
    pub fn trigger_budget(&self) -> Option<Amount> {
        match self {
            StrategyConfig::Mask(c) => c.max,
            other => other.hard_budget(),
        }
    }

    /// The unit the trigger measures the chain in: its budget's, `window`'s threshold's,
    /// else tokens (`sections` and `tiers` measure nothing).
    pub fn trigger_unit(&self) -> Unit {
        match self {
            StrategyConfig::Window(c) => c.threshold.unit(),
            other => other.trigger_budget().map_or(Unit::Tokens, |max| max.unit()),
        }
    }

    /// [`Self::hard_budget`], to lower it.
    fn hard_budget_mut(&mut self) -> Option<&mut Amount> {
        match self {
            StrategyConfig::Budget(c) => Some(&mut c.max),
            StrategyConfig::Auto(c) => Some(&mut c.max),
            _ => None,
        }
    }

    /// The budget the result must never exceed, for the strategies that guarantee one.
    fn hard_budget(&self) -> Option<Amount> {
        match self {
            StrategyConfig::Budget(c) => Some(c.max),
            StrategyConfig::Auto(c) => Some(c.max),
            _ => None,
        }
    }

    /// The budget is hard: a step after the strategy (the provider repair pass) that pushes
    /// the result over it fails the call rather than breaking the guarantee; `what` names
    /// the step.
    fn check_hard_budget(&self, meter: Meter<'_>, messages: &[Message], what: &str) -> Result<(), CompactError> {
        let Some(max) = self.hard_budget() else { return Ok(()) };
        let cost = meter.total(max.unit(), messages);
        if cost <= max.value() {
            return Ok(());
        }
        Err(CompactError::Budget { max, reason: format!("{what} made the result {}", max.with_value(cost)) })
    }
}

impl Default for StrategyConfig {
    fn default() -> Self {
        StrategyConfig::Auto(AutoConfig::default())
    }
}

/// Everything `compact` needs besides the messages, the summarizer and the controls.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompactOptions {
    pub strategy: StrategyConfig,
    /// The validity pass the result finishes with (provider rules).
    pub repair: RepairOptions,
    /// Whether the output may hold system messages the input did not have.
    pub new_system: NewSystem,
}

/// What becomes of system messages a strategy adds (`tiers` and `budget` write their
/// summaries as system messages after the system prompt) when the input had none.
/// [`crate::format::may_gain_system`] tells which one a container needs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum NewSystem {
    /// They stay system messages (OpenAI, LangChain, native, request objects).
    #[default]
    Keep,
    /// They become user messages in place, at the fold point, and the provider-validity
    /// pass merges them with a user neighbour where the provider alternates roles: an
    /// Anthropic or Gemini list has no place for a system prompt, and an AI SDK list must
    /// not gain one (`generateText` rejects system messages in `messages`).
    AsUser,
}

/// Compacts with the chosen strategy, then repairs the result for the provider: a
/// changed chain always goes through the repair pass; an unchanged one (nothing to do,
/// or a rollback) comes back exactly as given when the provider accepts it, and
/// repaired (every step listed in `report.provider_repairs`) when it does not, so the
/// output is always valid for the provider.
///
/// A turn in progress (the last assistant message has tool calls, and only the results
/// of some of them follow: its tools running, a call waiting for the user's approval,
/// parallel calls answered one at a time) is set aside, the rest is compacted (with
/// `budget`, within what the turn leaves), and it comes back as it was, its open calls
/// unanswered.
pub async fn compact<S: Summarizer + ?Sized>(
    messages: &[Message],
    options: &CompactOptions,
    summarizer: &S,
    controls: &Controls,
    meter: Meter<'_>,
) -> Result<CompactResult, CompactError> {
    // One repair path: a chain whose tool results are out of place, or with a system
    // message after the start (the AI SDK's `allowSystemInMessages`, a mid-chat
    // instruction) where the provider takes none there, is first repaired exactly as
    // `repairChain` does (a misplaced result moved, not replaced by a placeholder; the
    // late system message a user message in place), and the strategy compacts that; the
    // steps lead `report.provider_repairs`. Where the provider takes it, a late system
    // message opens a section of the chain, kept or summarized with it.
    // Other broken rules keep their typed errors.
    let late_system = system_after_start(messages) && !options.repair.provider.system_anywhere();
    let repair_first = crate::repair::has_misplaced_results(messages) || late_system;
    let result = if repair_first {
        let repaired = repair(messages, &options.repair);
        let mut result = compact_valid(&repaired.messages, options, summarizer, controls, meter).await?;
        let mut steps = repaired.steps;
        steps.append(&mut result.report.provider_repairs);
        result.report.provider_repairs = steps;
        result.report.before = Totals::of(messages);
        result.changed = result.messages != messages;
        result
    } else {
        compact_valid(messages, options, summarizer, controls, meter).await?
    };
    controls.report(Progress::Done { calls: result.report.calls, waves: result.report.waves });
    Ok(result)
}

/// `options` with a hard budget lowered by what a request's other fields the model reads
/// cost (`texts`: their JSON, see [`crate::format::container::request_overhead`]); an
/// error when they alone reach it.
pub fn without_request_fields(
    options: &CompactOptions,
    texts: &[String],
    meter: Meter<'_>,
) -> Result<CompactOptions, CompactError> {
    let cost = |unit| texts.iter().fold(0usize, |a, t| a.saturating_add(meter.text(unit, t)));
    lowered(options, cost, "what the request holds beside the conversation (tool definitions and the like)")
}

/// `options` for the rest of a chain once `set_aside` (kept as it is) is taken out: a
/// hard budget lowered by what it costs; an error when it alone (`what`) reaches it.
fn without(
    options: &CompactOptions,
    set_aside: &[Message],
    meter: Meter<'_>,
    what: &str,
) -> Result<CompactOptions, CompactError> {
    lowered(options, |unit| meter.total(unit, set_aside), what)
}

/// `options` with a hard budget lowered by what `what` costs in its unit (`cost`); an
/// error when that alone reaches it.
fn lowered(options: &CompactOptions, cost: impl Fn(Unit) -> usize, what: &str) -> Result<CompactOptions, CompactError> {
    let mut options = options.clone();
    if let Some(max) = options.strategy.hard_budget_mut() {
        let own = cost(max.unit());
        if own >= max.value() {
            let reason = format!("{what} alone is {}", max.with_value(own));
            return Err(CompactError::Budget { max: *max, reason });
        }
        *max = max.with_value(max.value().saturating_sub(own));
    }
    Ok(options)
}

/// [`compact`] of a chain whose first `kept` messages stay as they are, first (in a
/// Responses chain: results answering calls the provider stores, a provider compaction
/// item; see the pipeline's `kept_first`): the rest is compacted within what they leave
/// of the budget.
pub async fn compact_after_kept<S: Summarizer + ?Sized>(
    messages: &[Message],
    kept: usize,
    options: &CompactOptions,
    summarizer: &S,
    controls: &Controls,
    meter: Meter<'_>,
) -> Result<CompactResult, CompactError> {
    let (head, rest) = messages.split_at(kept.min(messages.len()));
    if head.is_empty() {
        return compact(messages, options, summarizer, controls, meter).await;
    }
    let options = without(options, head, meter, "what the chain opens with (stored results, compaction items)")?;
    let mut result = compact(rest, &options, summarizer, controls, meter).await?;
    for step in &mut result.report.provider_repairs {
        step.shift_index(head.len());
    }
    result.messages =
        if result.changed { head.iter().chain(&result.messages).cloned().collect() } else { messages.to_vec() };
    result.report.before = Totals::of(messages);
    result.report.after = Totals::of(&result.messages);
    Ok(result)
}

/// [`needs_compaction`] of a chain whose first `kept` messages stay as they are, first
/// ([`compact_after_kept`]): the strategy is asked about the rest, within what those leave
/// of a hard budget (they alone reaching it, `compact` fails: there is an error to see now).
pub fn needs_compaction_after_kept(
    messages: &[Message],
    kept: usize,
    strategy: &StrategyConfig,
    meter: Meter<'_>,
) -> bool {
    let (head, rest) = messages.split_at(kept.min(messages.len()));
    if head.is_empty() {
        return needs_compaction(messages, strategy, meter);
    }
    let options = CompactOptions { strategy: strategy.clone(), ..CompactOptions::default() };
    match without(&options, head, meter, "what the chain opens with") {
        Ok(options) => needs_compaction(rest, &options.strategy, meter),
        Err(_) => true,
    }
}

/// Whether a system message comes after the leading run of them (kept where the provider
/// takes one, made a user message in place where it does not).
fn system_after_start(messages: &[Message]) -> bool {
    messages.iter().skip_while(|m| m.role == Role::System).any(|m| m.role == Role::System)
}

/// [`compact`] of a chain the provider accepts.
async fn compact_valid<S: Summarizer + ?Sized>(
    messages: &[Message],
    options: &CompactOptions,
    summarizer: &S,
    controls: &Controls,
    meter: Meter<'_>,
) -> Result<CompactResult, CompactError> {
    let as_user = options.new_system == NewSystem::AsUser && !messages.iter().any(|m| m.role == Role::System);
    let Some((turn, body)) = set_aside(messages) else {
        return compact_whole(messages, options, as_user, summarizer, controls, meter).await;
    };
    let strategy = &options.strategy;
    let what = match turn.len() {
        1 => "the last message".to_string(),
        n => format!("the last {n} messages"),
    };
    let options = without(options, turn, meter, &format!("the turn in progress ({what})"))?;
    let mut result = compact_whole(body, &options, as_user, summarizer, controls, meter).await?;
    result.messages.extend_from_slice(turn);
    if !validate_request(&result.messages, options.repair.provider, &options.repair.request).is_empty() {
        // The turn itself may break a rule (a call id used twice, empty text); the repair
        // pass mends it and leaves its calls open.
        let repaired = repair_owned(std::mem::take(&mut result.messages), &options.repair);
        result.messages = repaired.messages;
        result.report.provider_repairs.extend(repaired.steps);
        strategy.check_hard_budget(meter, &result.messages, "the provider repair pass")?;
    }
    result.report.before = Totals::of(messages);
    result.report.after = Totals::of(&result.messages);
    result.changed = result.messages != messages;
    Ok(result)
}

/// `(turn, rest)`: what [`compact`] sets aside and gives back as it was (a turn in
/// progress, or a final thinking tool cycle), and the history before it, the one part it
/// compacts. The trigger asks its strategy about that part too, so the two cannot differ.
fn set_aside(messages: &[Message]) -> Option<(&[Message], &[Message])> {
    split_turn_in_progress(messages).or_else(|| split_thinking_cycle(messages))
}

/// `(turn, rest)` when the turn in flight ([`crate::repair::in_flight`]: the last
/// assistant message and the results after it) has a call with no result yet, and
/// follows a user, tool or assistant message (one that follows an assistant message is a
/// turn in progress too: its calls stay open). A turn whose calls are all answered is
/// history like any other.
fn split_turn_in_progress(messages: &[Message]) -> Option<(&[Message], &[Message])> {
    let at = crate::repair::in_flight(messages)?;
    let (body, turn) = messages.split_at(at);
    let (call, results) = turn.split_first()?;
    let answered = |id: &str| results.iter().flat_map(Message::tool_results).any(|r| r.call_id == id);
    let open = call.tool_calls().any(|c| !answered(&c.id));
    let after = matches!(body.last()?.role, Role::User | Role::Tool | Role::Assistant);
    (open && after).then_some((turn, body))
}

/// `(cycle, rest)` when the chain ends with a tool cycle whose assistant message thinks
/// (reasoning parts) and calls tools, its results, and then the user's text: on the wire
/// (Anthropic) the text rides in the user turn with the results, and the assistant
/// message they answer must keep its signed thinking (a final assistant message must
/// start with a thinking block when thinking is on). Folded or summarized, it would lose
/// it: the cycle is set aside like a turn in progress.
fn split_thinking_cycle(messages: &[Message]) -> Option<(&[Message], &[Message])> {
    let (last, rest) = messages.split_last()?;
    if last.role != Role::User {
        return None;
    }
    let results = rest.iter().rev().take_while(|m| m.role == Role::Tool).count();
    let at = rest.len().checked_sub(results.checked_add(1)?)?;
    let call = rest.get(at)?;
    let thinks = call.parts.iter().any(|p| matches!(p, crate::message::Part::Reasoning(_)));
    let cycle = results > 0 && call.role == Role::Assistant && call.tool_calls().next().is_some() && thinks;
    let after = at > 0;
    (cycle && after).then(|| {
        let (body, turn) = messages.split_at(at);
        (turn, body)
    })
}

/// [`compact`] of a chain with no turn in progress set aside; `as_user`: system messages
/// the strategy adds become user messages ([`NewSystem::AsUser`] on a chain without one).
async fn compact_whole<S: Summarizer + ?Sized>(
    messages: &[Message],
    options: &CompactOptions,
    as_user: bool,
    summarizer: &S,
    controls: &Controls,
    meter: Meter<'_>,
) -> Result<CompactResult, CompactError> {
    let lifted = if as_user { lift_summary(messages) } else { None };
    let input = lifted.as_deref().unwrap_or(messages);
    let mut result = match &options.strategy {
        StrategyConfig::Auto(c) => auto::compact(input, c, summarizer, controls, meter).await?,
        StrategyConfig::Mask(c) => mask::compact(input, c, meter)?,
        StrategyConfig::Sections(c) => sections::compact(input, c, summarizer, controls).await?,
        StrategyConfig::Window(c) => window::compact(input, c, summarizer, controls, meter).await?,
        StrategyConfig::Tiers(c) => tiers::compact(input, c, summarizer, controls, meter).await?,
        StrategyConfig::Budget(c) => budget::compact(input, c, summarizer, controls, meter).await?,
    };
    // Both passes reshape the strategy's result (a lowered summary joins the user message
    // beside it): `after` is measured again on what they give.
    if as_user && result.messages.iter().any(|m| m.role == Role::System) {
        result.messages = lower_summaries(std::mem::take(&mut result.messages));
        result.report.after = Totals::of(&result.messages);
    }
    // Anthropic's rule, and the shared rules' (an AI SDK or LangChain chain may go to it).
    if result.changed && options.repair.provider.drops_stale_thinking() && thinks(input) {
        result.messages = crate::repair::summary_pairs_as_user(std::mem::take(&mut result.messages));
        result.report.after = Totals::of(&result.messages);
    }
    if lifted.is_some() {
        // Nothing done: the chain exactly as it came (the lifted summary merged back).
        if !result.changed {
            result.messages = messages.to_vec();
        }
        result.changed = result.messages != messages;
        result.report.before = Totals::of(messages);
    }
    // With `onError: "partial"` a failed summary leaves what succeeded, which may be over
    // the budget before any repair: the report's errors say why, not the repair pass.
    let over_before = !result.report.errors.is_empty()
        && options.strategy.hard_budget().is_some_and(|max| !meter.fits(max, &result.messages));
    let repaired = if result.changed {
        // The result is taken over, and given back (repaired or as it was).
        let repair = RepairOptions { thinking_kept_last: result.thinking_kept_last, ..options.repair.clone() };
        repair_compacted(messages, std::mem::take(&mut result.messages), &repair)
    } else if validate_request(messages, options.repair.provider, &options.repair.request).is_empty() {
        return Ok(result);
    } else {
        repair(messages, &options.repair)
    };
    result.messages = repaired.messages;
    if !repaired.steps.is_empty() {
        result.report.after = Totals::of(&result.messages);
        result.report.provider_repairs = repaired.steps;
        result.changed = result.messages != messages;
        // A placeholder answer, say, may not fit. A chain given back after a failed
        // summary (or a cancel) is over the budget anyway: the report says why.
        if result.changed && !result.report.cancelled && !result.report.rolled_back && !over_before {
            let what = format!("the provider repair pass ({} step(s))", result.report.provider_repairs.len());
            options.strategy.check_hard_budget(meter, &result.messages, &what)?;
        }
    }
    Ok(result)
}

/// Whether any message of `messages` holds signed reasoning: Anthropic's thinking is on.
fn thinks(messages: &[Message]) -> bool {
    messages.iter().any(|m| {
        m.parts.iter().any(|p| matches!(p, Part::Reasoning(r) if r.signature.is_some() || r.redacted_data.is_some()))
    })
}

/// [`NewSystem::AsUser`]: every system message (all added by the strategy: the input had
/// none) becomes a user message where it is, merged with the user messages next to it, so
/// that the chain never holds two user messages in a row (a strict parse rejects them,
/// Anthropic and Gemini alternate roles). The tier metadata of these goes (it is kept in
/// the native format only, which holds system messages, and would otherwise reach the
/// provider JSON).
fn lower_summaries(messages: Vec<Message>) -> Vec<Message> {
    let mut out: Vec<(Message, bool)> = Vec::with_capacity(messages.len());
    for mut m in messages {
        let lowered = m.role == Role::System;
        if lowered {
            m.role = Role::User;
            m.extra.remove(tiers::METADATA_KEY);
        }
        if let Some((last, last_lowered)) = out.last_mut() {
            if last.role == Role::User && m.role == Role::User && (lowered || *last_lowered) {
                // A merged message is no longer the bridge its metadata may say it is.
                m.extra.remove(tiers::METADATA_KEY);
                merge_into(last, m);
                *last_lowered = lowered;
                continue;
            }
        }
        out.push((m, lowered));
    }
    out.into_iter().map(|(m, _)| m).collect()
}

/// A chain an earlier run wrote with [`NewSystem::AsUser`] opens with the tier summary as
/// a user message (merged with the user message after it where roles alternate). Only a
/// system message is a tier summary to `tiers`, so that part is lifted back into a system
/// message for the strategy (the rest of the message stays a user message), which keeps
/// compaction idempotent; the result is written back as user messages. `None` when the
/// chain does not open so.
fn lift_summary(messages: &[Message]) -> Option<Vec<Message>> {
    let (first, rest) = messages.split_first()?;
    let (head, tail) = first.parts.split_first()?;
    if first.role != Role::User {
        return None;
    }
    // Only a sealed summary is lifted: a user text imitating one stays user text.
    let Part::Text(text) = head else { return None };
    tiers::sealed_info(&text.text)?;
    let summary = Message { role: Role::System, parts: vec![head.clone()], extra: first.extra.clone() };
    tiers::summary_info(&summary)?;
    let mut out = Vec::with_capacity(messages.len().saturating_add(1));
    out.push(summary);
    if !tail.is_empty() {
        out.push(Message { role: Role::User, parts: tail.to_vec(), extra: first.extra.clone() });
    }
    out.extend_from_slice(rest);
    Some(out)
}

/// Whether `compact` would change `messages` even where its strategy changes nothing: the
/// provider repair pass it ends with mends what breaks a rule of `options.provider`. One
/// validation when nothing does (the common case); else the pass runs as `compact` runs it
/// on an unchanged chain (a turn in progress set aside, then mended with the rest), since
/// some findings (a call still waiting for its result) are left as they are.
pub fn repair_would_change(messages: &[Message], options: &RepairOptions) -> bool {
    repaired(messages, options).is_some_and(|out| out != messages)
}

/// What the repair pass `compact` ends with makes of an unchanged chain; `None` when the
/// chain breaks no rule (one validation: the common case). See [`repair_would_change`].
pub fn repaired(messages: &[Message], options: &RepairOptions) -> Option<Vec<Message>> {
    let broken = |m: &[Message]| !validate_request(m, options.provider, &options.request).is_empty();
    if !broken(messages) {
        return None;
    }
    let Some((turn, body)) = set_aside(messages) else {
        return Some(repair(messages, options).messages);
    };
    let mut out = if broken(body) { repair(body, options).messages } else { body.to_vec() };
    out.extend_from_slice(turn);
    if broken(&out) {
        out = repair_owned(out, options).messages;
    }
    Some(out)
}

/// Whether the chain ends in a turn in progress (see [`compact`]): calls waiting for their
/// results, before which no request can be made. A turn holding the user's answers to
/// approval requests (AI SDK) waits for nothing: the request that runs the approved calls
/// is being made (`compact` still keeps it whole).
pub fn waits_for_results(messages: &[Message]) -> bool {
    split_turn_in_progress(messages)
        .is_some_and(|(turn, _)| !turn.iter().flat_map(|m| &m.parts).any(crate::format::aisdk::answers_approval))
}

/// The cheap trigger check: whether `compact` with these settings would do anything, and
/// should now. Not while a turn waits for its results ([`waits_for_results`]): no request
/// can be made before they come, and a compaction then would have to leave the turn's
/// results so far whole (a history pushing a tool's results one at a time compacts once
/// the last has come).
pub fn needs_compaction(messages: &[Message], strategy: &StrategyConfig, meter: Meter<'_>) -> bool {
    trigger(messages, None, strategy, meter)
}

/// [`needs_compaction`] for a caller that holds what each message costs in `unit` (a
/// session): no message is measured again, and a token counter counts no chain.
pub fn needs_compaction_with_costs(
    messages: &[Message],
    costs: &[usize],
    unit: Unit,
    strategy: &StrategyConfig,
    meter: Meter<'_>,
) -> bool {
    trigger(messages, Some((costs, unit)), strategy, meter)
}

/// The one trigger of every strategy; `known`: the messages' costs in a unit, when held.
/// It asks the strategy about what [`compact`] gives it: the history before a turn it sets
/// aside ([`set_aside`]), within what that turn leaves of a hard budget (the turn alone
/// reaching it, `compact` fails: there is an error to see now).
fn trigger(messages: &[Message], known: Option<(&[usize], Unit)>, strategy: &StrategyConfig, meter: Meter<'_>) -> bool {
    if waits_for_results(messages) {
        return false;
    }
    let Some((turn, body)) = set_aside(messages) else {
        return strategy_trigger(messages, known, strategy, meter);
    };
    let options = CompactOptions { strategy: strategy.clone(), ..CompactOptions::default() };
    let Ok(options) = without(&options, turn, meter, "the turn in progress") else { return true };
    // The body opens the chain: its costs are the first ones held.
    let known = known.map(|(costs, unit)| (costs.get(..body.len()).unwrap_or(costs), unit));
    strategy_trigger(body, known, &options.strategy, meter)
}

/// Whether `strategy` would change `messages`, all of which it would be given.
fn strategy_trigger(
    messages: &[Message],
    known: Option<(&[usize], Unit)>,
    strategy: &StrategyConfig,
    meter: Meter<'_>,
) -> bool {
    // The costs held, when in the unit asked.
    let held = |unit: Unit| known.filter(|(costs, u)| *u == unit && costs.len() == messages.len()).map(|(c, _)| c);
    let over = |max: Amount| match held(max.unit()) {
        Some(costs) => crate::measure::sum_costs(costs) > max.value(),
        None => !meter.fits(max, messages),
    };
    match strategy {
        StrategyConfig::Auto(c) => over(c.max),
        StrategyConfig::Mask(c) => c.max.is_none_or(over) && mask::would_mask(messages, c),
        StrategyConfig::Sections(c) => sections::needs_compaction(messages, c),
        StrategyConfig::Window(c) => window::needs_compaction_with(messages, held(c.threshold.unit()), c, meter),
        StrategyConfig::Tiers(c) => tiers::needs_compaction(messages, c),
        StrategyConfig::Budget(c) => over(c.max),
    }
}
