//! Summarizers for tests, benchmarks and demos.

use super::{SummarizeError, Summarizer, SummaryRequest};
use std::cell::RefCell;
use std::future::Future;

/// Answers every request with the same text and records the requests it got.
#[derive(Debug, Default)]
pub struct FixedSummarizer {
    pub text: String,
    pub requests: RefCell<Vec<SummaryRequest>>,
}

impl FixedSummarizer {
    pub fn new(text: impl Into<String>) -> Self {
        FixedSummarizer { text: text.into(), requests: RefCell::new(Vec::new()) }
    }

    pub fn calls(&self) -> usize {
        self.requests.borrow().len()
    }
}

impl Summarizer for FixedSummarizer {
    async fn summarize(&self, request: SummaryRequest) -> Result<String, SummarizeError> {
        self.requests.borrow_mut().push(request);
        Ok(self.text.clone())
    }
}

/// A summarizer from a closure returning a future (fault injection, latency, ...).
pub struct FnSummarizer<F>(pub F);

impl<F, Fut> Summarizer for FnSummarizer<F>
where
    F: Fn(SummaryRequest) -> Fut,
    Fut: Future<Output = Result<String, SummarizeError>>,
{
    async fn summarize(&self, request: SummaryRequest) -> Result<String, SummarizeError> {
        (self.0)(request).await
    }
}
