//! How `budget` splits what it condenses: where the kept window starts, and the chunks
//! (one summary call each) of everything before it.

use super::BudgetConfig;
use crate::ast::{BodyPair, ChainAst, Section};
use crate::message::Message;
use crate::prompt::Draft;
use crate::summarize::{Job, JobPrompt, MessageRange, RequestKind};

/// What `budget` condenses, planned before any call.
pub(super) struct Plan<'a> {
    /// Where the kept window starts: its section, and its first pair in that section.
    pub cut_section: usize,
    pub cut_pair: usize,
    /// Everything before the cut section is too small to condense: kept verbatim.
    pub keep_before: bool,
    /// The chunks, each with its summary job and the bytes it condenses.
    pub chunks: Vec<Chunk>,
    /// Their prompts are made from the AST as the calls start.
    pub jobs: Vec<Job<'a>>,
    pub content_bytes: Vec<usize>,
    /// The first chunk updates the condensed summaries an earlier run left: its summary
    /// replaces them.
    pub updates_earlier: bool,
}

/// Plans the kept window and the chunks before it, for a chain over the budget.
/// `tokens`: the cost of each message of `ast`, in order, in `config.max`'s unit.
/// `earlier`: the condensed summaries an earlier run left, which the oldest chunk's
/// summary updates (when there is such a chunk).
pub(super) fn plan<'a>(
    ast: &'a ChainAst,
    config: &BudgetConfig,
    tokens: &[usize],
    earlier: Option<&'a str>,
) -> Plan<'a> {
    let sections = ast.sections();
    let summary_share = config.summary_percent.min(100);
    let kept_budget = config.max.value().saturating_mul(100usize.saturating_sub(summary_share)) / 100;
    let (cut_section, mut cut_pair) = find_cut(ast, config.keep_recent, kept_budget, tokens);
    // Older pairs of the cut section too small for any summary to beat stay as they are
    // (enforcement trims them if need be).
    let in_cut =
        |pairs: usize| sections.get(cut_section).map_or(0, |s| s.body().iter().take(pairs).map(BodyPair::size).sum());
    if in_cut(cut_pair) < MIN_CHUNK_BYTES {
        cut_pair = 0;
    }
    let summary_bytes = config.max.percent(summary_share).approx_bytes();
    // One budget's worth of text per call, unless that would make more summaries than
    // the summary budget can hold: then fewer, larger chunks.
    let condensed_bytes =
        sections.iter().take(cut_section).map(Section::size).sum::<usize>().saturating_add(in_cut(cut_pair));
    let max_chunks = (summary_bytes / MIN_SUMMARY_BYTES).max(1);
    let chunk_bytes = config.max.approx_bytes().max(condensed_bytes.div_ceil(max_chunks));
    let mut chunks = plan_chunks(sections, cut_section, cut_pair, chunk_bytes);
    merge_small_chunks(&mut chunks, sections);
    // Everything before the cut section too small to condense: kept verbatim instead.
    let keep_before = match chunks.iter().filter(|c| !c.in_cut).collect::<Vec<_>>().as_slice() {
        [only] => chunk_bytes_of(sections, only) < MIN_CHUNK_BYTES,
        _ => false,
    };
    if keep_before {
        chunks.retain(|c| c.in_cut);
    }
    let target = (summary_bytes / chunks.len().max(1)).max(64);
    let starts = ast.section_starts();
    // The oldest chunk before the cut carries the earlier summaries (the cut section's
    // older pairs are summarized in place, not into the condensed history).
    let earlier = earlier.filter(|_| chunks.first().is_some_and(|c| !c.in_cut));
    let mut content_bytes = Vec::with_capacity(chunks.len());
    let mut updates_earlier = false;
    let (chunks, jobs): (Vec<Chunk>, Vec<Job>) = chunks
        .into_iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let previous = earlier.filter(|_| i == 0);
            let bytes = chunk_bytes_of(sections, &c).saturating_add(previous.map_or(0, str::len));
            let hint = crate::strategy::hint(target, bytes);
            let job = chunk_job(sections, &c, &starts, hint, previous)?;
            updates_earlier |= previous.is_some();
            content_bytes.push(bytes);
            Some((c, job))
        })
        .unzip();
    Plan { cut_section, cut_pair, keep_before, chunks, jobs, content_bytes, updates_earlier }
}

/// Pairs `pairs` of section `section`, with its user message when `with_human`, and
/// from its start when `with_header` (a section after the first may open with system
/// messages, a mid-chat instruction: condensed or kept with it).
#[derive(Debug, Clone)]
pub(super) struct Segment {
    pub section: usize,
    pub pairs: std::ops::Range<usize>,
    with_human: bool,
    with_header: bool,
}

/// The system messages a segment carries: those of a later section's header, from its
/// start (the first section's are the system prompt, kept apart).
fn segment_systems<'s, 'a>(s: &'s Section<'a>, seg: &Segment) -> &'s [std::borrow::Cow<'a, Message>] {
    if seg.with_header && seg.section > 0 {
        s.header().system()
    } else {
        &[]
    }
}

/// One summary call's worth of history: consecutive segments, possibly spanning
/// several short sections.
pub(super) struct Chunk {
    pub segments: Vec<Segment>,
    /// The older pairs of the section the kept window starts in (summarized in place).
    pub in_cut: bool,
}

impl Chunk {
    pub fn first_section(&self) -> usize {
        self.segments.first().map_or(0, |s| s.section)
    }
}

/// Content under this many bytes is never sent to be condensed: no useful summary is
/// smaller (the same floor as the other strategies' `minSummarizeBytes` default).
const MIN_CHUNK_BYTES: usize = 512;

/// Summaries get at least this many bytes each: more chunks than the summary budget
/// allows at that size would only be summarized to be dropped again.
const MIN_SUMMARY_BYTES: usize = 256;

/// Folds each condensed chunk under [`MIN_CHUNK_BYTES`] into the chunk before it (or
/// after it, for the first), so no call is made for content no summary can beat. The
/// cut section's chunk is never merged: its summary goes in a different place.
fn merge_small_chunks(chunks: &mut Vec<Chunk>, sections: &[Section]) {
    let mut i = 0;
    while i < chunks.len() {
        let small = chunks.get(i).is_some_and(|c| !c.in_cut && chunk_bytes_of(sections, c) < MIN_CHUNK_BYTES);
        let into = if i > 0 { Some(i - 1) } else { Some(i + 1).filter(|&n| chunks.get(n).is_some_and(|c| !c.in_cut)) };
        match (small, into) {
            (true, Some(target)) => {
                let chunk = chunks.remove(i);
                if let Some(t) = chunks.get_mut(target.min(i)) {
                    if target < i {
                        t.segments.extend(chunk.segments);
                    } else {
                        let later = std::mem::replace(&mut t.segments, chunk.segments);
                        t.segments.extend(later);
                    }
                }
            }
            _ => i += 1,
        }
    }
}

/// A chunk whose content can be kept as it is in place of its summary: the cut
/// section's older pairs, or whole sections from their user message on.
pub(super) fn stands_alone(chunk: &Chunk) -> bool {
    chunk.in_cut || chunk.segments.iter().all(|s| s.with_human)
}

/// The sections of a chunk kept verbatim (each from its user message, no system).
pub(super) fn verbatim_sections<'a>(sections: &[Section<'a>], chunk: &Chunk) -> Vec<Section<'a>> {
    chunk
        .segments
        .iter()
        .filter_map(|seg| {
            let s = sections.get(seg.section)?;
            let body = s.body().get(seg.pairs.clone())?.to_vec();
            let header = if seg.section == 0 { s.header().without_system() } else { s.header().clone() };
            Some(Section::new(header, body))
        })
        .collect()
}

/// Bytes of the content a chunk condenses (its pairs, and the user messages condensed
/// with them).
fn chunk_bytes_of(sections: &[Section], chunk: &Chunk) -> usize {
    chunk
        .segments
        .iter()
        .filter_map(|seg| {
            let s = sections.get(seg.section)?;
            let human = if seg.with_human { s.header().human().map_or(0, Message::size) } else { 0 };
            let systems: usize = segment_systems(s, seg).iter().map(|m| m.size()).sum();
            let pairs: usize = s.body().get(seg.pairs.clone())?.iter().map(BodyPair::size).sum();
            Some(human.saturating_add(systems).saturating_add(pairs))
        })
        .sum()
}

/// Where the kept window starts: (section, first kept pair). At least the last `keep`
/// messages are kept, extended back to the start of the exchange (pair) they begin in;
/// then further back, exchange by exchange, while the system prompt and the kept
/// messages (with the user message of the section the window starts in) fit
/// `kept_budget` tokens: the budget is used, not just the minimum.
fn find_cut(ast: &ChainAst, keep: usize, kept_budget: usize, tokens: &[usize]) -> (usize, usize) {
    let sum = |range: std::ops::Range<usize>| tokens.get(range).map_or(0, |t| t.iter().sum::<usize>());
    let systems = ast.sections().first().map_or(0, |s| s.header().system().len());
    // Every place a window may start: (section, pair, first message, user message index).
    let mut starts: Vec<(usize, usize, usize, Option<usize>)> = Vec::new();
    let mut at = 0usize;
    for (si, s) in ast.sections().iter().enumerate() {
        // A later section's own system messages are kept (and counted) with it.
        let section_start = if si == 0 { at.saturating_add(s.header().system().len()) } else { at };
        let header_start = at.saturating_add(s.header().system().len());
        let human = s.header().human().map(|_| header_start);
        at = header_start.saturating_add(usize::from(human.is_some()));
        if human.is_some() {
            starts.push((si, 0, section_start, None));
        }
        for (pj, p) in s.body().iter().enumerate() {
            if pj > 0 || human.is_none() {
                starts.push((si, pj, if pj == 0 { section_start } else { at }, human));
            }
            at = at.saturating_add(p.tools().len().saturating_add(1));
        }
    }
    let total = tokens.len();
    let keep_from = total.saturating_sub(keep.max(1));
    let system_tokens = sum(0..systems);
    let fits = |&(_, _, first, human): &(usize, usize, usize, Option<usize>)| {
        let kept = sum(first.max(systems)..total).saturating_add(human.map_or(0, |h| sum(h..h.saturating_add(1))));
        system_tokens.saturating_add(kept) <= kept_budget
    };
    // The latest start that keeps at least `keep` messages, then earlier ones while they
    // fit. A `keep` beyond the chain asks for every start: the earliest, then shrunk
    // like any other when it does not fit.
    let mut candidates = starts.iter().rev().skip_while(|s| s.2 > keep_from);
    let Some(mut chosen) = candidates.next().or_else(|| starts.first()) else {
        return (0, 0);
    };
    if !fits(chosen) {
        // Even `keep` messages do not fit: condense more rather than drop anything
        // later, down to the latest start (the latest exchange).
        let mut later = starts.iter().filter(|s| s.2 > chosen.2);
        let fitting = later.clone().find(|s| fits(s));
        return fitting.or_else(|| later.next_back()).map_or((chosen.0, chosen.1), |s| (s.0, s.1));
    }
    for candidate in candidates {
        if !fits(candidate) {
            break;
        }
        chosen = candidate;
    }
    (chosen.0, chosen.1)
}

/// Chunks of everything before the cut, packed in order up to `chunk_bytes` (a section
/// larger than that is split between pairs), then the cut section's older pairs alone.
fn plan_chunks(sections: &[Section], cut_section: usize, cut_pair: usize, chunk_bytes: usize) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut current: Vec<Segment> = Vec::new();
    let mut bytes = 0usize;
    for (si, s) in sections.iter().enumerate().take(cut_section) {
        let mut segment =
            Segment { section: si, pairs: 0..0, with_human: s.header().human().is_some(), with_header: true };
        let systems: usize = segment_systems(s, &segment).iter().map(|m| m.size()).sum();
        let human = s.header().human().map_or(0, Message::size);
        bytes = bytes.saturating_add(human).saturating_add(systems);
        for (pj, p) in s.body().iter().enumerate() {
            let open = segment.with_human || !segment.pairs.is_empty() || !current.is_empty();
            if open && bytes.saturating_add(p.size()) > chunk_bytes {
                if segment.with_human || !segment.pairs.is_empty() || systems > 0 {
                    current.push(segment);
                }
                chunks.push(Chunk { segments: std::mem::take(&mut current), in_cut: false });
                bytes = 0;
                segment = Segment { section: si, pairs: pj..pj, with_human: false, with_header: false };
            }
            segment.pairs.end = pj.saturating_add(1);
            bytes = bytes.saturating_add(p.size());
        }
        if segment.with_human || !segment.pairs.is_empty() || (segment.with_header && systems > 0) {
            current.push(segment);
        }
    }
    if !current.is_empty() {
        chunks.push(Chunk { segments: current, in_cut: false });
    }
    if cut_pair > 0 {
        let segment = Segment { section: cut_section, pairs: 0..cut_pair, with_human: false, with_header: false };
        chunks.push(Chunk { segments: vec![segment], in_cut: true });
    }
    chunks
}

fn chunk_job<'a>(
    sections: &'a [Section],
    c: &Chunk,
    starts: &[usize],
    target: usize,
    previous: Option<&'a str>,
) -> Option<Job<'a>> {
    let mut tasks: Vec<&Message> = Vec::new();
    let mut work: Vec<&Message> = Vec::new();
    for segment in &c.segments {
        let s = sections.get(segment.section)?;
        // The user message gives context. It is condensed with its section, or stays
        // in place for the section the kept window starts in.
        if segment.with_human || c.in_cut {
            tasks.extend(s.header().human());
        }
        work.extend(segment_systems(s, segment).iter().map(|m| &**m));
        work.extend(s.body().get(segment.pairs.clone())?.iter().flat_map(BodyPair::message_refs));
    }
    if tasks.is_empty() && work.is_empty() {
        return None;
    }
    let first = c.first_section();
    let last = c.segments.last().map_or(first, |s| s.section);
    let start = starts.get(first).copied().unwrap_or(0);
    let end = starts.get(last.saturating_add(1)).copied().unwrap_or(start);
    let kind = if c.in_cut { RequestKind::Rotation } else { RequestKind::Chunk };
    Some(Job {
        kind,
        // Rendered where the messages lie when the call starts (or read there).
        prompt: JobPrompt::Draft(Draft { previous, tasks, work, ..Draft::default() }),
        range: MessageRange { start, end },
        section: Some(first),
        target_bytes: target,
    })
}
