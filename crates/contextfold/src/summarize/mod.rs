//! The summarizer interface and the engine that calls it.
//!
//! A [`Summarizer`] is anything with `async fn summarize(SummaryRequest) -> Result<String,
//! SummarizeError>`; there is no `Send` bound, so a JS Promise can stand behind it. One
//! that [`reads_messages`](Summarizer::reads_messages) gets the messages of a request
//! where they lie ([`Summarizer::summarize_draft`]) instead of a transcript rendered whole
//! first (the built-in summarizer reads them; the JS bridge renders them into JS a piece
//! at a time). The
//! engine issues independent calls of one phase together as a *wave*, at most
//! `concurrency` in flight, on a single thread (futures, no runtime), checks cancellation
//! before every call, and turns empty answers into errors.

pub mod extractive;
pub mod mock;

use crate::prompt::Draft;
use futures::future::{self, Either};
use futures::stream::{self, StreamExt};
use serde::Serialize;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use std::task::{Poll, Waker};

/// What a summary request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[cfg_attr(feature = "tsify", tsify(rename = "SummaryRequestKind"))]
pub enum RequestKind {
    /// A whole older section collapsed into one pair.
    Section,
    /// One oversized body pair.
    Pair,
    /// The older pairs of a recent section that outgrew its budget.
    Rotation,
    /// The user messages of sections folded by QA summarization.
    QaHuman,
    /// The assistant work of sections folded by QA summarization.
    QaAi,
    /// One chunk of a long span (window strategy).
    Chunk,
    /// Merging partial summaries into one (window strategy).
    Consolidate,
    /// A condensed tier summary (tiers strategy).
    TierCondensed,
    /// A compressed tier summary (tiers strategy).
    TierCompressed,
    /// One oversized message (window strategy).
    Message,
    /// The oldest span folded into the running summary (auto strategy).
    Fold,
}

/// Input messages a request covers: `start..end` in the chain given to compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct MessageRange {
    pub start: usize,
    pub end: usize,
}

/// One call to the summarizer. The full prompt is [`SummaryRequest::prompt`], made when
/// asked for: it holds the transcript, often most of the chain, which is here already.
/// (In JS the request's `prompt` is the same text, joined from the strings it has; its
/// TypeScript type adds it to these fields.)
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[cfg_attr(feature = "tsify", tsify(missing_as_null, rename = "SummaryRequestFields"))]
pub struct SummaryRequest {
    /// Number of this call within the compaction, from 0.
    pub id: usize,
    #[cfg_attr(feature = "tsify", tsify(type = "SummaryRequestKind"))]
    pub kind: RequestKind,
    /// The instructions alone (for callers that send them as a system message).
    pub instructions: String,
    /// The transcript alone.
    pub transcript: String,
    /// Input messages covered.
    pub range: MessageRange,
    /// The section concerned, where there is one.
    pub section: Option<usize>,
    /// Size the summary should stay under, in bytes (a hint: larger answers are
    /// discarded by the no-gain guard only when they save nothing).
    pub target_bytes: usize,
    /// The sequential round this call belongs to, from 0.
    pub wave: usize,
    /// The `timeoutMs` of the compaction, if any (contextfold enforces it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

impl SummaryRequest {
    /// The full prompt: the instructions envelope, a blank line, the transcript. Send it
    /// as the user message.
    pub fn prompt(&self) -> String {
        crate::prompt::full(&self.instructions, &self.transcript)
    }
}

/// Why a summary call gave nothing usable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub enum SummarizeErrorKind {
    /// The summarizer failed (rejected promise, thrown error, HTTP error, ...).
    Failed,
    /// It answered with empty or blank text.
    Empty,
    /// It answered with something that is not text.
    InvalidResult,
    /// It did not answer in time.
    Timeout,
    /// The compaction was cancelled before or during the call.
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "camelCase")]
#[error("summary call {request} failed ({kind:?}): {message}")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct SummarizeError {
    pub kind: SummarizeErrorKind,
    pub message: String,
    /// The request id, once the engine knows it.
    pub request: usize,
}

impl SummarizeError {
    pub fn new(kind: SummarizeErrorKind, message: impl Into<String>) -> Self {
        SummarizeError { kind, message: message.into(), request: 0 }
    }

    pub fn failed(message: impl Into<String>) -> Self {
        SummarizeError::new(SummarizeErrorKind::Failed, message)
    }
}

/// Produces summaries. Implemented by the JS bridge, the mocks and the extractive
/// summarizer; no `Send` bound so it can wrap single-threaded JS.
#[allow(async_fn_in_trait)]
pub trait Summarizer {
    async fn summarize(&self, request: SummaryRequest) -> Result<String, SummarizeError>;

    /// Whether this summarizer reads the messages of a request ([`Summarizer::summarize_draft`])
    /// rather than a transcript of them: the engine then renders none.
    fn reads_messages(&self) -> bool {
        false
    }

    /// Summarizes the messages of `request`, whose transcript is left empty: called instead
    /// of [`Summarizer::summarize`] when [`Summarizer::reads_messages`]. By default the
    /// transcript is rendered and `summarize` called.
    async fn summarize_draft(&self, request: SummaryRequest, draft: Draft<'_>) -> Result<String, SummarizeError> {
        let transcript = draft.render().map(|p| p.transcript).unwrap_or_default();
        self.summarize(SummaryRequest { transcript, ..request }).await
    }
}

impl<S: Summarizer + ?Sized> Summarizer for &S {
    async fn summarize(&self, request: SummaryRequest) -> Result<String, SummarizeError> {
        (**self).summarize(request).await
    }

    fn reads_messages(&self) -> bool {
        (**self).reads_messages()
    }

    async fn summarize_draft(&self, request: SummaryRequest, draft: Draft<'_>) -> Result<String, SummarizeError> {
        (**self).summarize_draft(request, draft).await
    }
}

/// A cancellation flag shared between the caller and a running compaction. Cancelling
/// also ends the calls in flight: the engine races each call against
/// [`CancelFlag::cancelled`], so a summarizer that never answers cannot hold a
/// compaction forever.
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Rc<CancelState>);

#[derive(Debug, Default)]
struct CancelState {
    cancelled: Cell<bool>,
    wakers: RefCell<Vec<Waker>>,
}

impl CancelFlag {
    pub fn new() -> Self {
        CancelFlag::default()
    }

    pub fn cancel(&self) {
        self.0.cancelled.set(true);
        for waker in self.0.wakers.take() {
            waker.wake();
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.get()
    }

    /// Resolves once [`CancelFlag::cancel`] is called.
    pub fn cancelled(&self) -> impl Future<Output = ()> + '_ {
        future::poll_fn(move |cx| {
            if self.is_cancelled() {
                Poll::Ready(())
            } else {
                let mut wakers = self.0.wakers.borrow_mut();
                // Polled again on every wake-up of the call it races: register once.
                if !wakers.iter().any(|w| w.will_wake(cx.waker())) {
                    wakers.push(cx.waker().clone());
                }
                Poll::Pending
            }
        })
    }
}

/// What a running compaction reports as it goes, for progress bars.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "phase", rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[cfg_attr(feature = "tsify", tsify(rename = "ProgressEvent"))]
pub enum Progress {
    /// A wave of `total` calls starts.
    Wave {
        wave: usize,
        #[cfg_attr(feature = "tsify", tsify(type = "0"))]
        done: usize,
        total: usize,
    },
    /// A call of the wave ended (`ok` false when it failed); `done` of `total` ended.
    Call { wave: usize, done: usize, total: usize, request: usize, ok: bool },
    /// The compaction finished (also after a rollback).
    Done { calls: usize, waves: usize },
}

/// Receives [`Progress`] events. A plain callback: it must not block.
#[derive(Clone)]
pub struct ProgressSink(pub Rc<dyn Fn(Progress)>);

impl std::fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressSink")
    }
}

/// How the engine calls the summarizer.
#[derive(Debug, Clone)]
pub struct Controls {
    /// Calls in flight at most (at least 1).
    pub concurrency: usize,
    pub cancel: CancelFlag,
    /// Passed on in every request for the binding to enforce.
    pub timeout_ms: Option<u64>,
    /// Told when each wave starts, each call ends and the compaction finishes.
    pub progress: Option<ProgressSink>,
    /// The caller's own instructions (what to focus on), added to every prompt.
    pub focus: Option<String>,
}

impl Controls {
    pub(crate) fn report(&self, event: Progress) {
        if let Some(sink) = &self.progress {
            (sink.0)(event);
        }
    }
}

impl Default for Controls {
    fn default() -> Self {
        Controls {
            concurrency: DEFAULT_CONCURRENCY,
            cancel: CancelFlag::new(),
            timeout_ms: None,
            progress: None,
            focus: None,
        }
    }
}

/// Calls in flight when nothing else is said.
pub const DEFAULT_CONCURRENCY: usize = 4;

/// A request before the engine numbers it.
#[derive(Debug)]
pub struct Job<'a> {
    pub kind: RequestKind,
    pub prompt: JobPrompt<'a>,
    pub range: MessageRange,
    pub section: Option<usize>,
    pub target_bytes: usize,
}

/// A job's prompt: made already, or made when its call starts, so that a wave of many
/// calls holds the transcripts of the calls in flight, not of every call of the wave.
pub enum JobPrompt<'a> {
    Ready(crate::prompt::Prompt),
    /// `None` when there is nothing to summarize after all: the call then fails.
    Deferred(Box<dyn FnOnce() -> Option<crate::prompt::Prompt> + 'a>),
    /// Messages, rendered as the call starts unless the summarizer reads them as they are.
    /// A draft of no message fails its call.
    Draft(Draft<'a>),
}

impl From<crate::prompt::Prompt> for JobPrompt<'_> {
    fn from(prompt: crate::prompt::Prompt) -> Self {
        JobPrompt::Ready(prompt)
    }
}

impl std::fmt::Debug for JobPrompt<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobPrompt::Ready(prompt) => f.debug_tuple("Ready").field(prompt).finish(),
            JobPrompt::Deferred(_) => f.write_str("Deferred"),
            JobPrompt::Draft(draft) => f.debug_tuple("Draft").field(draft).finish(),
        }
    }
}

impl<'a> Job<'a> {
    /// The request of this job as call `id` of `wave`: the prompt made if it was not, with
    /// its target length and the caller's focus. A draft stays one, beside a request with
    /// no transcript, for a summarizer that `reads_messages`.
    fn into_request(
        self,
        (id, wave): (usize, usize),
        controls: &Controls,
        reads_messages: bool,
    ) -> Result<(SummaryRequest, Option<Draft<'a>>), SummarizeError> {
        let gone = || SummarizeError {
            request: id,
            ..SummarizeError::failed("the messages of this request were gone when it started")
        };
        let (mut instructions, transcript, draft) = match self.prompt {
            JobPrompt::Ready(prompt) => (prompt.instructions, prompt.transcript, None),
            JobPrompt::Deferred(make) => make().map(|p| (p.instructions, p.transcript, None)).ok_or_else(gone)?,
            JobPrompt::Draft(draft) if reads_messages => {
                (draft.instructions().ok_or_else(gone)?, String::new(), Some(draft))
            }
            JobPrompt::Draft(draft) => draft.render().map(|p| (p.instructions, p.transcript, None)).ok_or_else(gone)?,
        };
        // Every prompt states its target length and carries the caller's focus.
        instructions.push_str("\n\n");
        instructions.push_str(&crate::schema::target_line(self.target_bytes));
        if let Some(focus) = controls.focus.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
            instructions.push_str("\n\nThe user of this summary asks you to focus on: ");
            instructions.push_str(focus);
        }
        let request = SummaryRequest {
            id,
            kind: self.kind,
            instructions,
            transcript,
            range: self.range,
            section: self.section,
            target_bytes: self.target_bytes,
            wave,
            timeout_ms: controls.timeout_ms,
        };
        Ok((request, draft))
    }
}

/// One call: not issued (its prompt not even made) once cancelled, ended when cancelled
/// in flight, and an empty answer is an error. The error carries the request id.
/// `issued` is set when the call is made (not when cancellation came first).
async fn call<S: Summarizer + ?Sized>(
    summarizer: &S,
    job: Job<'_>,
    (id, wave): (usize, usize),
    controls: &Controls,
    issued: &Cell<bool>,
) -> Result<String, SummarizeError> {
    let cancel = &controls.cancel;
    let cancelled = || SummarizeError::new(SummarizeErrorKind::Cancelled, "compaction cancelled");
    let result = if cancel.is_cancelled() {
        Err(cancelled())
    } else {
        issued.set(true);
        let answer = match job.into_request((id, wave), controls, summarizer.reads_messages())? {
            (request, Some(draft)) => Either::Left(summarizer.summarize_draft(request, draft)),
            (request, None) => Either::Right(summarizer.summarize(request)),
        };
        match future::select(pin!(answer), pin!(cancel.cancelled())).await {
            Either::Left((Ok(text), _)) if text.trim().is_empty() => {
                Err(SummarizeError::new(SummarizeErrorKind::Empty, "the summarizer returned empty text"))
            }
            Either::Left((answer, _)) => answer,
            Either::Right(_) => Err(cancelled()),
        }
    };
    result.map_err(|e| SummarizeError { request: id, ..e })
}

/// Numbers requests and waves. Only the count of requests made is kept: a copy of each
/// (its transcript held twice) was the largest memory of a compaction.
#[derive(Debug, Default)]
pub struct Engine {
    /// Summary calls made so far: a call cancellation came before is not one.
    pub calls: usize,
    pub waves: usize,
    /// The next request's id. Ids are given as a wave is planned, so after a
    /// cancellation it is ahead of `calls`.
    next_id: usize,
    /// Ids of the requests never issued (cancellation came first): they are not calls,
    /// and their `Cancelled` results are no failed calls ([`Engine::issued`]).
    unissued: Vec<usize>,
}

impl Engine {
    /// The id the next wave's first request gets.
    pub fn next_id(&self) -> usize {
        self.next_id
    }

    /// Whether request `id` was issued (a call made), not cancelled before it started.
    pub fn issued(&self, id: usize) -> bool {
        id < self.next_id && !self.unissued.contains(&id)
    }

    /// Runs `jobs` as one wave: all issued together (up to the concurrency limit), the
    /// results returned in job order. An empty wave does not count. Calls not yet issued
    /// when cancellation is seen fail with `Cancelled` without reaching the summarizer,
    /// and are neither counted in `calls` nor [`Engine::issued`].
    pub async fn wave<S: Summarizer + ?Sized>(
        &mut self,
        summarizer: &S,
        controls: &Controls,
        jobs: Vec<Job<'_>>,
    ) -> Vec<Result<String, SummarizeError>> {
        if jobs.is_empty() {
            return Vec::new();
        }
        let wave = self.waves;
        self.waves = self.waves.saturating_add(1);
        let first_id = self.next_id;
        let total = jobs.len();
        self.next_id = self.next_id.saturating_add(total);
        controls.report(Progress::Wave { wave, done: 0, total });
        let done = Cell::new(0usize);
        let done = &done;
        // A job becomes its request (its prompt made) only as its call starts.
        let mut results: Vec<(usize, bool, Result<String, SummarizeError>)> =
            stream::iter(jobs.into_iter().enumerate())
                .map(|(i, job)| async move {
                    let id = first_id.saturating_add(i);
                    let issued = Cell::new(false);
                    let result = call(summarizer, job, (id, wave), controls, &issued).await;
                    done.set(done.get().saturating_add(1));
                    controls.report(Progress::Call { wave, done: done.get(), total, request: id, ok: result.is_ok() });
                    (i, issued.get(), result)
                })
                .buffer_unordered(controls.concurrency.max(1))
                .collect()
                .await;
        results.sort_by_key(|(i, _, _)| *i);
        for (i, issued, _) in &results {
            if *issued {
                self.calls = self.calls.saturating_add(1);
            } else {
                self.unissued.push(first_id.saturating_add(*i));
            }
        }
        results.into_iter().map(|(_, _, r)| r).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompt::render;

    fn job(text: &str) -> Job<'static> {
        let work = [crate::message::Message::text(crate::message::Role::Assistant, text)];
        Job {
            kind: RequestKind::Chunk,
            prompt: render(&[], &work).unwrap_or_else(|| unreachable!()).into(),
            range: MessageRange { start: 0, end: 1 },
            section: None,
            target_bytes: 100,
        }
    }

    #[test]
    fn progress_reports_each_wave_and_each_call() {
        let events = Rc::new(RefCell::new(Vec::new()));
        let sink = events.clone();
        let controls = Controls {
            concurrency: 2,
            progress: Some(ProgressSink(Rc::new(move |e| sink.borrow_mut().push(e)))),
            ..Controls::default()
        };
        let fail_second = mock::FnSummarizer(|r: SummaryRequest| async move {
            if r.id == 1 {
                Err(SummarizeError::failed("no"))
            } else {
                Ok("ok".to_string())
            }
        });
        let mut engine = Engine::default();
        futures::executor::block_on(engine.wave(&fail_second, &controls, vec![job("a"), job("b"), job("c")]));
        futures::executor::block_on(engine.wave(&fail_second, &controls, vec![job("d")]));
        let events = events.borrow();
        assert_eq!(events.len(), 6, "{events:?}");
        assert_eq!(events[0], Progress::Wave { wave: 0, done: 0, total: 3 });
        let calls: Vec<(usize, bool)> = events[1..4]
            .iter()
            .map(|e| match e {
                Progress::Call { done, request, ok, total: 3, wave: 0 } => (*done, *request == 1 && !ok || *ok),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(calls.iter().map(|c| c.0).collect::<Vec<_>>(), vec![1, 2, 3]);
        assert!(calls.iter().all(|c| c.1));
        assert_eq!(events[4], Progress::Wave { wave: 1, done: 0, total: 1 });
        assert!(matches!(events[5], Progress::Call { wave: 1, done: 1, total: 1, request: 3, ok: true }));
    }

    /// Pending once, then ready: calls of a wave overlap as real ones do.
    async fn yield_once() {
        let mut yielded = false;
        future::poll_fn(|cx| {
            if yielded {
                Poll::Ready(())
            } else {
                yielded = true;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        })
        .await;
    }

    #[test]
    fn deferred_prompts_are_made_as_their_calls_start() {
        let made = Cell::new(0usize);
        let ended = Cell::new(0usize);
        let most_alive = Cell::new(0usize);
        let controls = Controls { concurrency: 2, ..Controls::default() };
        let made = &made;
        let deferred = |text: &'static str| Job {
            prompt: JobPrompt::Deferred(Box::new(move || {
                let JobPrompt::Ready(prompt) = job(text).prompt else { return None };
                // "gone": the prompt cannot be made.
                (text != "gone").then(|| made.set(made.get() + 1)).map(|()| prompt)
            })),
            ..job(text)
        };
        let summarizer = mock::FnSummarizer(|r: SummaryRequest| {
            most_alive.set(most_alive.get().max(made.get() - ended.get()));
            let (ended, transcript) = (&ended, r.transcript);
            async move {
                yield_once().await;
                ended.set(ended.get() + 1);
                Ok(transcript)
            }
        });
        let jobs = ["a", "b", "gone", "c", "d", "e"].map(deferred).into_iter().collect();
        let results = futures::executor::block_on(Engine::default().wave(&summarizer, &controls, jobs));
        // Every prompt made, never more than two held by calls at once.
        assert_eq!(made.get(), 5);
        assert!(most_alive.get() <= 2, "{} prompts alive at once", most_alive.get());
        assert_eq!(results.len(), 6);
        assert!(results.get(4).is_some_and(|r| r.as_ref().is_ok_and(|t| t.contains('d'))));
        // A prompt that cannot be made fails its own call, with its id.
        assert!(results.get(2).is_some_and(|r| r.as_ref().is_err_and(|e| e.request == 2)));
    }

    /// Reads drafts: what it was given, transcript and draft.
    struct ReadsMessages(RefCell<Vec<(String, usize)>>);

    impl Summarizer for ReadsMessages {
        async fn summarize(&self, request: SummaryRequest) -> Result<String, SummarizeError> {
            self.0.borrow_mut().push((request.transcript, usize::MAX));
            Ok("from a transcript".into())
        }

        fn reads_messages(&self) -> bool {
            true
        }

        async fn summarize_draft(&self, request: SummaryRequest, draft: Draft<'_>) -> Result<String, SummarizeError> {
            self.0.borrow_mut().push((request.transcript, draft.work.len()));
            Ok("from messages".into())
        }
    }

    #[test]
    fn a_draft_reaches_a_summarizer_that_reads_messages_and_is_rendered_for_others() {
        let work = [crate::message::Message::text(crate::message::Role::Assistant, "did a thing")];
        let draft = |work: &'static [crate::message::Message]| Job {
            prompt: JobPrompt::Draft(Draft { work: work.iter().collect(), ..Draft::default() }),
            ..job("x")
        };
        let work: &'static [crate::message::Message] = Box::leak(Box::new(work));
        let controls = Controls::default();
        // Read as messages: no transcript; the instructions as rendering gives them.
        let reads = ReadsMessages(RefCell::new(Vec::new()));
        let results =
            futures::executor::block_on(Engine::default().wave(&reads, &controls, vec![draft(work), draft(&[])]));
        assert_eq!(reads.0.borrow().as_slice(), [(String::new(), 1)]);
        assert!(matches!(results.first(), Some(Ok(t)) if t == "from messages"));
        // A draft of no message fails its call, as a prompt that cannot be made does.
        assert!(matches!(results.get(1), Some(Err(e)) if e.request == 1 && e.message.contains("gone")));
        // Any other summarizer gets the transcript the draft renders.
        let given = RefCell::new(Vec::new());
        let transcripts = mock::FnSummarizer(|r: SummaryRequest| {
            given.borrow_mut().push((r.instructions.clone(), r.transcript.clone()));
            async { Ok("s".to_string()) }
        });
        futures::executor::block_on(Engine::default().wave(&transcripts, &controls, vec![draft(work)]));
        let rendered = render(&[], work).unwrap_or_else(|| unreachable!());
        let given = given.borrow();
        assert_eq!(given.len(), 1);
        assert_eq!(given[0].1, rendered.transcript);
        assert!(given[0].0.starts_with(&rendered.instructions));
    }

    #[test]
    fn a_cancelled_wave_makes_no_prompt() {
        let made = Cell::new(0usize);
        let controls = Controls::default();
        controls.cancel.cancel();
        let jobs = (0..3)
            .map(|_| Job {
                prompt: JobPrompt::Deferred(Box::new(|| {
                    made.set(made.get() + 1);
                    None
                })),
                ..job("x")
            })
            .collect();
        let results =
            futures::executor::block_on(Engine::default().wave(&mock::FixedSummarizer::new("s"), &controls, jobs));
        assert_eq!(made.get(), 0);
        assert!(results.iter().all(|r| r.as_ref().is_err_and(|e| e.kind == SummarizeErrorKind::Cancelled)));
    }
}
