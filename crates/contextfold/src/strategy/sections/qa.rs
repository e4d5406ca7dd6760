//! Phase 2 of `sections`: the older sections fold into one QA section.

use super::{target_for, Run};
use crate::ast::{BodyPair, Header, Section};
use crate::message::{Message, Role};
use crate::prompt::Draft;
use crate::strategy::{cut_by, Action};
use crate::summarize::{Job, JobPrompt, MessageRange, RequestKind, Summarizer};
use std::borrow::Cow;

/// Bytes kept under the QA byte limit for the summary section itself.
const QA_HEADROOM: usize = 1000;

/// What phase 2 folds: the leading `fold` sections, their user messages and assistant
/// work, and the job's range and target; the messages as the chain holds them (borrowed
/// from the input, not copied).
struct QaFold<'m> {
    fold: usize,
    humans: Vec<Cow<'m, Message>>,
    work: Vec<Cow<'m, Message>>,
    replaced: Vec<BodyPair<'m>>,
    bytes_before: usize,
    system: Vec<Cow<'m, Message>>,
    range: MessageRange,
    target: usize,
}

impl<'m> Run<'_, 'm> {
    /// Whether phase 2 would make a call now.
    pub(super) fn qa_would_fold(&self, keep: usize) -> bool {
        self.qa_fold(keep).is_some_and(|f| !f.humans.is_empty() || !f.work.is_empty())
    }

    /// Phase 2: with too many or too large sections, the older ones fold into ONE
    /// section: the first system message(s), their user messages (concatenated, or
    /// summarized), and one summary of their assistant work. Both calls in one wave.
    pub(super) async fn summarize_qa<S: Summarizer + ?Sized>(&mut self, summarizer: &S, keep: usize) {
        let Some(QaFold { fold, humans, work, replaced, bytes_before, system, range, target }) = self.qa_fold(keep)
        else {
            return;
        };
        let mut jobs = Vec::new();
        let humans: Vec<&Message> = humans.iter().map(|m| &**m).collect();
        let work: Vec<&Message> = work.iter().map(|m| &**m).collect();
        let ai = Draft { tasks: humans.clone(), work, ..Draft::default() };
        if ai.holds_messages() {
            jobs.push(Job {
                kind: RequestKind::QaAi,
                prompt: JobPrompt::Draft(ai),
                range,
                section: None,
                target_bytes: target,
            });
        }
        if self.config.summ_human_in_qa {
            let human = Draft { tasks: humans.clone(), ..Draft::default() };
            if human.holds_messages() {
                jobs.push(Job {
                    kind: RequestKind::QaHuman,
                    prompt: JobPrompt::Draft(human),
                    range,
                    section: None,
                    target_bytes: target,
                });
            }
        }
        if jobs.is_empty() || self.controls.cancel.is_cancelled() {
            return;
        }
        let kinds: Vec<RequestKind> = jobs.iter().map(|j| j.kind).collect();
        let results = self.engine.wave(summarizer, self.controls, jobs).await;
        let mut ai_summary = None;
        let mut human_summary = None;
        for (kind, result) in kinds.into_iter().zip(results) {
            match result {
                Ok(text) if kind == RequestKind::QaAi => ai_summary = Some(text),
                Ok(text) => human_summary = Some(text),
                Err(e) => {
                    for s in 0..fold {
                        self.record(s, Action::Failed { kind, request: e.request });
                    }
                    self.errors.push(e);
                }
            }
        }
        let (Some(ai), true) = (ai_summary, human_summary.is_some() || !self.config.summ_human_in_qa) else {
            return;
        };
        let human = match human_summary {
            Some(text) => Some(Message::text(Role::User, text)),
            None => merge_humans(&humans),
        };
        let mut summary = Section::new(
            Header::build(system.clone(), human.clone()),
            vec![crate::strategy::summary_pair_for(&ai, &replaced, &self.template)],
        );
        let excess = summary.size().saturating_add(1).saturating_sub(bytes_before);
        if let Some(cut) = (excess > 0).then(|| cut_by(&ai, excess)).flatten() {
            self.record(0, Action::Truncated { message: None, bytes_before: ai.len(), bytes_after: cut.len() });
            summary = Section::new(
                Header::build(system, human),
                vec![crate::strategy::summary_pair_for(&cut, &replaced, &self.template)],
            );
        }
        if summary.size() >= bytes_before {
            self.record(0, Action::NoGain { kind: RequestKind::QaAi, bytes_before, summary_bytes: summary.size() });
            return;
        }
        for s in 0..fold {
            let bytes = self.section(s).map_or(0, Section::size);
            self.record(s, Action::FoldedIntoQa { bytes_before: bytes });
        }
        let mut sections = vec![summary];
        sections.extend(
            self.ast
                .sections()
                .get(fold..)
                .unwrap_or_default()
                .iter()
                // Sections after the first hold no system prompt; a system message of
                // theirs (a mid-chat instruction) stays where it was said.
                .cloned(),
        );
        *self.ast.sections_mut() = sections;
    }

    /// What phase 2 would fold, when it would: the older sections are too many or too
    /// large, not already the QA summary of an earlier run, and the fold can gain.
    fn qa_fold(&self, keep: usize) -> Option<QaFold<'m>> {
        let fold = self.qa_fold_count(keep);
        if fold == 0 {
            return None;
        }
        let folded = self.ast.sections().get(..fold).unwrap_or_default();
        if let [only] = folded {
            if matches!(only.body(), [p] if p.is_summarized()) {
                return None; // Already the QA summary of an earlier run.
            }
        }
        let humans: Vec<Cow<'m, Message>> = folded.iter().filter_map(|s| s.header().human_cow().cloned()).collect();
        let replaced: Vec<BodyPair<'m>> = folded.iter().flat_map(|s| s.body().iter().cloned()).collect();
        let bytes_before: usize = folded.iter().map(Section::size).sum();
        let system = folded.first().map(|s| s.header().system().to_vec()).unwrap_or_default();
        // Skip by size what can never shrink: the summary section's fixed cost (system,
        // merged user messages, the summary pair) already reaches the folded bytes.
        let fixed_human = if self.config.summ_human_in_qa { None } else { merge_humans(&humans) };
        let fixed = Header::build(system.clone(), fixed_human)
            .size()
            .saturating_add(crate::strategy::summary_pair_for("", &replaced, &self.template).size());
        if bytes_before.saturating_sub(fixed) < self.config.min_summarize_bytes.max(1) {
            return None;
        }
        // Each summary gets a fair share of what the fold can gain.
        let room = bytes_before.saturating_sub(fixed);
        let room = if self.config.summ_human_in_qa { room / 2 } else { room };
        Some(QaFold {
            fold,
            humans,
            // A later folded section's system messages (mid-chat instructions) are
            // summarized with the work they came with.
            work: folded
                .iter()
                .enumerate()
                .flat_map(|(k, s)| {
                    let systems = if k > 0 { s.header().system() } else { &[] };
                    systems.iter().chain(s.body().iter().flat_map(BodyPair::message_cows))
                })
                .cloned()
                .collect(),
            replaced,
            bytes_before,
            system,
            range: MessageRange { start: 0, end: self.starts.get(fold).copied().unwrap_or(0) },
            target: crate::strategy::hint(target_for(bytes_before), room),
        })
    }

    /// How many leading sections QA folds: 0 when under both limits.
    fn qa_fold_count(&self, keep: usize) -> usize {
        let sections = self.ast.sections();
        let n = sections.len();
        let total = self.ast.size();
        if n <= self.config.max_qa_sections && total <= self.config.max_qa_bytes {
            return 0;
        }
        let mut kept = keep.min(n);
        let mut bytes: usize =
            sections.get(n.saturating_sub(kept)..).unwrap_or_default().iter().map(Section::size).sum();
        let limit = self.config.max_qa_bytes.saturating_sub(QA_HEADROOM);
        for s in sections.get(..n.saturating_sub(kept)).unwrap_or_default().iter().rev() {
            if kept < self.config.max_qa_sections && bytes.saturating_add(s.size()) <= limit {
                kept = kept.saturating_add(1);
                bytes = bytes.saturating_add(s.size());
            } else {
                break;
            }
        }
        n.saturating_sub(kept)
    }
}

/// The user messages of the folded sections as one: their parts in order, the first's
/// fields, but for a participant's `name` they do not all share (several participants'
/// requests are no one's: each text then says whose it is, [`Message::join_parts`]).
fn merge_humans<M: std::ops::Deref<Target = Message>>(humans: &[M]) -> Option<Message> {
    let first = humans.first()?;
    let mut merged = Message::clone(first);
    for h in humans.iter().skip(1) {
        merged.join_parts(h);
    }
    Some(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Role;

    #[test]
    fn merged_requests_of_several_participants_are_no_one_s() {
        let named = |name: &str, text: &str| {
            let mut m = Message::text(Role::User, text);
            m.extra.insert("name".into(), serde_json::json!(name));
            m.extra.insert("id".into(), serde_json::json!(text));
            m
        };
        let merged = merge_humans(&[&named("alice", "a"), &named("bob", "b")]).unwrap();
        // Who said what stays in the text.
        assert_eq!(merged.joined_text(), "alice: a\nbob: b");
        assert_eq!((merged.extra.get("name"), merged.extra.get("id")), (None, Some(&serde_json::json!("a"))));
        let merged = merge_humans(&[&named("bob", "a"), &named("bob", "b")]).unwrap();
        assert_eq!(merged.extra.get("name"), Some(&serde_json::json!("bob")));
        assert_eq!(merged.joined_text(), "a\nb");
    }
}
