//! What `compact` tells JS besides the messages: the summary requests the summarizer
//! gets, the report, the progress events. The core's own types under their TypeScript
//! names (see [`crate::types`]). `SummaryRequest` is `SummaryRequestFields` in
//! TypeScript, extended with `prompt` in [`crate::bridge`], which builds it in JS.

pub use contextfold::strategy::{Action as SectionAction, Report as CompactReport, SectionReport};
pub use contextfold::summarize::{
    MessageRange, Progress as ProgressEvent, RequestKind as SummaryRequestKind, SummarizeError, SummarizeErrorKind,
    SummaryRequest,
};
