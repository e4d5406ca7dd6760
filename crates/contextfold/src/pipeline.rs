//! JSON in, JSON out: what every binding (and a Rust user holding provider JSON) runs.
//! Read the chain in its format (given or detected), compact it with the chosen strategy
//! under the provider's rules, and write it back in the format and container it came in.
//! An error about a message as read is pointed at the caller's own JSON.

use crate::format::{self, Format, FormatError};
use crate::json_node::Node;
use crate::json_span::{ArrayScan, ObjectScan};
use crate::measure::Meter;
use crate::message::Message;
use crate::repair::{Diagnostic, Provider, RepairOptions, RequestRules};
use crate::reuse::{self, ReuseItem};
use crate::settings::CompactSettings;
use crate::strategy::run::{self, CompactOptions, NewSystem, StrategyConfig};
use crate::strategy::{CompactError, Report};
use crate::summarize::{Controls, Summarizer};
use crate::text_pieces::{Held, Marks, RangeReader, TextPieces};
use serde_json::Value;

/// What [`compact_json`] gives back.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonOutput {
    /// The compacted chain in the format and container it was read in; the input itself
    /// when nothing changed. With a reuse plan, the output without its message array
    /// (`null` for a bare array; see [`crate::reuse`]).
    pub messages: Value,
    /// Whether any content changed; `false` after a rollback or with nothing to do.
    pub changed: bool,
    /// The format read, and written back.
    pub format: Format,
    pub report: Report,
    /// The output message array as input indices and new messages, when asked for.
    pub reuse: Option<Vec<ReuseItem>>,
}

/// A failed [`compact_json`]: the error, and where in the caller's JSON its message came
/// from (a provider message may be read as several; `None` when no message is at fault
/// or the place cannot be told).
#[derive(Debug, Clone, PartialEq)]
pub struct JsonError {
    pub error: CompactError,
    pub input_path: Option<String>,
}

impl From<FormatError> for JsonError {
    fn from(e: FormatError) -> Self {
        JsonError { error: CompactError::Input(e.into()), input_path: None }
    }
}

/// The input's JSON text as [`compact_text`] takes it: held by the caller, or given by
/// a host in pieces ([`TextPieces`]; the JS binding encodes the caller's string a chunk
/// at a time, about 1 ms per 5 MB) as often as it is read: the message list as it is
/// parsed, then the reuse plan. From a host, the text is never whole in the pipeline
/// (but to point an error into it): neither beside the messages read from it nor beside
/// a summary request of most of the chain.
pub struct InputText<'a>(Source<'a>);

enum Source<'a> {
    Held(&'a str),
    Host(&'a TextAgain<'a>),
}

/// Gives the text from its start, the same bytes each time; `None` when it no longer
/// can.
pub type TextAgain<'t> = dyn Fn() -> Option<Box<dyn TextPieces + 't>> + 't;

impl<'a> InputText<'a> {
    /// A text the caller holds.
    pub fn held(text: &'a str) -> Self {
        InputText(Source::Held(text))
    }

    /// A text a host gives in pieces each time it is read.
    pub fn from_host(again: &'a TextAgain<'a>) -> Self {
        InputText(Source::Host(again))
    }

    /// The text in pieces from its start; `None` when it is not to be had.
    fn pieces(&self) -> Option<Box<dyn TextPieces + '_>> {
        match self.0 {
            Source::Held(text) => Some(Box::new(Held::whole(text.as_bytes()))),
            Source::Host(again) => again(),
        }
    }

    /// The whole text (to point an error into it).
    fn whole(&self) -> Option<std::borrow::Cow<'_, str>> {
        if let Source::Held(text) = self.0 {
            return Some(std::borrow::Cow::Borrowed(text));
        }
        let mut pieces = self.pieces()?;
        let mut bytes = Vec::with_capacity(pieces.size_hint());
        while pieces.advance() {
            bytes.extend_from_slice(pieces.piece());
        }
        String::from_utf8(bytes).ok().map(std::borrow::Cow::Owned)
    }
}

/// Reads messages in `format`, or in the detected format when `None`.
pub fn read_json(value: &Value, format: Option<Format>) -> Result<(Vec<Message>, Format), FormatError> {
    match format {
        Some(format) => format::read(value, format).map(|messages| (messages, format)),
        None => format::read_auto(value),
    }
}

/// Reads, compacts with the chosen strategy, repairs for the provider and writes back in
/// the format and container read.
pub async fn compact_json<S: Summarizer + ?Sized>(
    value: &Value,
    settings: &CompactSettings,
    summarizer: &S,
    controls: &Controls,
    meter: Meter<'_>,
) -> Result<JsonOutput, JsonError> {
    let (messages, format) = read_json(value, settings.format)?;
    compact_read(Caller::Tree(value), messages, format, settings, summarizer, controls, meter).await
}

/// [`compact_json`] of the JSON `text` whose tree is `value` (parsed by the caller, who
/// reports its errors). With a reuse plan asked for, the tree of the message list is let
/// go element by element as the messages are read (the list's tree and the messages held
/// together were the largest memory of a compaction): the plan compares the output with
/// the text instead.
pub async fn compact_json_text<S: Summarizer + ?Sized>(
    text: &str,
    mut value: Value,
    settings: &CompactSettings,
    summarizer: &S,
    controls: &Controls,
    meter: Meter<'_>,
) -> Result<JsonOutput, JsonError> {
    let format = match settings.format {
        Some(format) => format,
        None => format::detect(&value)?,
    };
    let list = if settings.reuse { reuse::InputList::of(text, &value, format) } else { None };
    let Some(list) = list else {
        let messages = format::read(&value, format)?;
        return compact_read(Caller::Tree(&value), messages, format, settings, summarizer, controls, meter).await;
    };
    let messages = match reuse::take_list(&mut value, format) {
        Some(taken) => format::read_taken(&value, format::Items::Owned(taken), format)?,
        None => format::read(&value, format)?,
    };
    let caller = Caller::Text { text: InputText::held(text), shell: value, list };
    compact_read(caller, messages, format, settings, summarizer, controls, meter).await
}

/// [`compact_json_text`] of a JSON `text` not parsed yet, when it is a bare message list
/// or a request object, and a reuse plan is asked for: the list is scanned and its
/// elements parsed a batch at a time as the text's pieces come, so that neither the
/// text nor the list's tree is ever whole (a request's other fields are read from its
/// pieces first; a detected format is settled by the shortest prefix). Parsing,
/// detecting and reading as they go also keeps each element in cache while it is read.
/// `None` (nothing done) for any other text, and for a text that does not parse: the
/// caller then parses it whole, reports its error, and calls [`compact_json_text`].
pub async fn compact_text<S: Summarizer + ?Sized>(
    input: InputText<'_>,
    settings: &CompactSettings,
    summarizer: &S,
    controls: &Controls,
    meter: Meter<'_>,
) -> Option<Result<JsonOutput, JsonError>> {
    if !settings.reuse {
        return None;
    }
    let List { region, shell, mut detector, format: known } = match first_byte(&input)? {
        b'[' => List::array(settings.format),
        _ => request_list(&input, settings.format)?,
    };
    // A Gemini request's list may be parts (the genai SDK's form for one user content),
    // told by its first element: read from the tree.
    let parts_first = known == Some(Format::Gemini) && shell.is_object();
    let mut pieces = input.pieces()?;
    let mut parsed = ListElements::new(&mut *pieces, region);
    let mut prints: Vec<u64> = Vec::new();
    // 1. The format: given, or settled by the shortest prefix of whole batches (held
    // with their own strings until the read).
    let mut prefix: Vec<Node<'static>> = Vec::new();
    while detector.as_ref().is_some_and(|d| !d.settled()) || (parts_first && prefix.is_empty()) {
        // Small batches first, doubling: detection mostly settles within a few
        // messages, and the prefix is held with its own strings.
        let most = prefix.len().clamp(DETECTED_FIRST, PARSED_TOGETHER);
        let Some(batch) = parsed.next_batch(most) else { break };
        let mut array = Vec::new();
        let nodes = batch.and_then(|batch| batch.parse(&mut array))?;
        for node in nodes {
            if parts_first && prefix.is_empty() && !format::gemini::is_content_like(&node) {
                return None;
            }
            if let Some(Err(e)) = detector.as_mut().map(|d| d.push(prefix.len(), &node)) {
                // A text that does not parse reports that first, as a whole parse would.
                return parsed.rest_parses().then(|| Err(e.into()));
            }
            prints.push(reuse::fingerprint_node(&node));
            prefix.push(node.into_owned());
        }
    }
    let format = known.or(detector.as_ref().map(format::detect::ListDetector::format)).unwrap_or(Format::OpenAi);
    // 2. The read: the prefix, then each element as it is parsed (and still detected).
    let mut elements = Elements {
        prefix,
        parsed: &mut parsed,
        detector: detector.as_mut(),
        prints: &mut prints,
        stop: None,
        done: false,
    };
    let read = format::read_taken(&shell, format::Items::Stream(&mut elements), format);
    // A read that failed (or never began) leaves elements unread: a detection error or a
    // parse error among them comes first, as it would have come before any read.
    if !elements.done {
        let _ = format::items::Stream::each(&mut elements, &mut |_, _| Ok(()));
    }
    let stop = elements.stop.take();
    drop(elements);
    let messages = match stop {
        Some(Ok(())) => return None,
        Some(Err(detected)) => return parsed.rest_parses().then(|| Err(detected.into())),
        None => match read {
            Ok(messages) => messages,
            Err(e) => return Some(Err(e.into())),
        },
    };
    let (spans, marks) = parsed.into_spans();
    drop(pieces);
    let caller = Caller::Text { text: input, shell, list: reuse::InputList::new(spans, prints, marks) };
    Some(compact_read(caller, messages, format, settings, summarizer, controls, meter).await)
}

/// The first byte of the text that is not a space; `None` for a text of spaces or one
/// not to be had.
fn first_byte(input: &InputText<'_>) -> Option<u8> {
    let mut pieces = input.pieces()?;
    while pieces.advance() {
        if let Some(&b) = pieces.piece().iter().find(|b| !b.is_ascii_whitespace()) {
            return Some(b);
        }
    }
    None
}

/// The message list of a JSON text, found without parsing it.
struct List {
    /// The list's bytes in the text (from its `[` to its `]`; for a bare list, all of it).
    region: std::ops::Range<usize>,
    /// The text's value without the list's elements (an empty array, or the request
    /// object with its list emptied).
    shell: Value,
    /// What checks the elements as detection would; `None` when the format is given.
    detector: Option<format::detect::ListDetector>,
    /// The format, when given or told by a request's keys.
    format: Option<Format>,
}

impl List {
    /// A bare list, in `format` (detected when `None`).
    fn array(format: Option<Format>) -> List {
        let detector = format.is_none().then(format::detect::ListDetector::array);
        List { region: 0..usize::MAX, shell: Value::Array(Vec::new()), detector, format }
    }
}

/// The list field of the request object `input` holds, in `format` (detected when
/// `None`), its other fields parsed. `None` for anything else (no list, a repeated list
/// field, a text that is not JSON). The text is read in pieces twice, never whole: once
/// for the object's fields, once more for the bytes around the list (seeking over it).
fn request_list(input: &InputText<'_>, format: Option<Format>) -> Option<List> {
    let mut pieces = input.pieces()?;
    let mut scan = ObjectScan::default();
    let mut marks = Marks::new();
    let mut len = 0usize;
    while pieces.advance() {
        if let Some(mark) = pieces.mark() {
            marks.push((len, mark));
        }
        len = len.saturating_add(pieces.piece().len());
        if !scan.feed(pieces.piece()) {
            return None;
        }
    }
    drop(pieces);
    let (object, firsts) = scan.finish()?;
    let count = |key: &str| object.fields.iter().filter(|(k, _)| k == key).count();
    let key = match format {
        Some(format) => format.request_fields()?.messages,
        None => {
            // The first byte of the last `input` field's value (the one `JSON.parse` keeps).
            let last_input = object.fields.iter().rposition(|(k, _)| k == "input");
            let input_is_string = last_input.and_then(|i| firsts.get(i)).is_some_and(|b| *b == b'"');
            format::detect::request_list(|key| count(key) > 0, input_is_string)?
        }
    };
    let list = object.field(key).filter(|_| count(key) == 1)?;
    // A list that is no array (the genai SDK's single content) is read from the tree.
    let at = object.fields.iter().position(|(k, _)| k == key)?;
    if firsts.get(at) != Some(&b'[') {
        return None;
    }
    let mut again = input.pieces()?;
    let mut around = RangeReader::with_marks(&mut *again, &marks);
    let mut shell_text = Vec::new();
    let head = around.read(0..list.start, &mut |b| shell_text.extend_from_slice(b));
    shell_text.extend_from_slice(b"[]");
    let tail = around.read(list.end..len, &mut |b| shell_text.extend_from_slice(b));
    if !(head && tail) {
        return None;
    }
    let shell: Value = serde_json::from_slice(&shell_text).ok()?;
    let (format, detector) = match format {
        Some(format) => (format, None),
        None => {
            let model = shell.get("model").and_then(Value::as_str);
            let prefer = format::detect::request_format(key, |key| count(key) > 0, model);
            (prefer, Some(format::detect::ListDetector::request(prefer, key)))
        }
    };
    Some(List { region: list, shell, detector, format: Some(format) })
}

/// Elements parsed together: at most this many, and no more than [`PARSED_BYTES`] of
/// text beyond the first (a batch is copied, then held as a tree while it is read: 256
/// large messages were most of a real session's text, held twice over). One parse per
/// element grew the parser's buffer for escaped strings again for every element (in
/// wasm, that made the read 8% slower than one parse of the whole text).
const PARSED_TOGETHER: usize = 256;
/// Elements parsed in the first batch read while the format is detected.
const DETECTED_FIRST: usize = 8;
const PARSED_BYTES: usize = 64 * 1024;

/// The elements of the JSON array at `region` of a text, scanned as its pieces come and
/// lent a batch at a time: it holds the text from the first element not lent yet to the
/// end of the last piece read.
struct ListElements<'p> {
    pieces: &'p mut dyn TextPieces,
    /// Offset of the current piece in the text.
    piece_start: usize,
    region: std::ops::Range<usize>,
    scan: ArrayScan,
    /// Every element found so far; those from `parsed` on are not lent yet.
    spans: Vec<std::ops::Range<usize>>,
    parsed: usize,
    /// Where each piece read started (for the reuse plan's pass over the text).
    marks: Marks,
    /// The list's text from `held_from` to the end of what was read.
    held: Vec<u8>,
    held_from: usize,
    /// Where the batch lent last ends: its text is let go when the next is asked for.
    lent_to: usize,
    /// The region is read (`closed`: and it was one JSON array).
    ended: bool,
    closed: bool,
}

/// The text of a few elements, to be parsed by the borrower.
struct Batch<'t> {
    text: &'t [u8],
    count: usize,
}

impl<'t> Batch<'t> {
    /// The batch's elements, their strings borrowed from its text (or from `array`, where
    /// several elements are copied to be parsed as one array); `None` when they do not
    /// parse. Checked as UTF-8 first: in wasm, faster than `from_slice` checking each
    /// string.
    fn parse<'a>(self, array: &'a mut Vec<u8>) -> Option<Vec<Node<'a>>>
    where
        't: 'a,
    {
        let nodes = if self.count == 1 {
            // One element (a batch's worth or more, as a large file or image): read where
            // it lies, not copied.
            vec![serde_json::from_str::<Node<'t>>(std::str::from_utf8(self.text).ok()?).ok()?]
        } else {
            // The elements and what separates them (commas, spaces), as an array of their
            // own: one parse per element grew the parser's buffer for escaped strings
            // again for every element (8% slower in wasm).
            array.reserve(self.text.len().saturating_add(2));
            array.push(b'[');
            array.extend_from_slice(self.text);
            array.push(b']');
            serde_json::from_str::<Vec<Node<'a>>>(std::str::from_utf8(array).ok()?).ok()?
        };
        (nodes.len() == self.count).then_some(nodes)
    }
}

impl<'p> ListElements<'p> {
    fn new(pieces: &'p mut dyn TextPieces, region: std::ops::Range<usize>) -> Self {
        ListElements {
            pieces,
            piece_start: 0,
            scan: ArrayScan::at(region.start),
            held_from: region.start,
            lent_to: region.start,
            region,
            spans: Vec::new(),
            parsed: 0,
            marks: Marks::new(),
            held: Vec::new(),
            ended: false,
            closed: false,
        }
    }

    /// Reads and scans the next piece's part of the region.
    fn pull(&mut self) {
        self.piece_start = self.piece_start.saturating_add(self.pieces.piece().len());
        if self.piece_start >= self.region.end || !self.pieces.advance() {
            self.ended = true;
            self.closed = self.scan.finish();
            return;
        }
        if let Some(mark) = self.pieces.mark() {
            self.marks.push((self.piece_start, mark));
        }
        let piece = self.pieces.piece();
        let end = self.piece_start.saturating_add(piece.len());
        let from = self.region.start.saturating_sub(self.piece_start).min(piece.len());
        let to = self.region.end.min(end).saturating_sub(self.piece_start);
        let Some(part) = piece.get(from..to) else { return };
        self.held.extend_from_slice(part);
        if !self.scan.feed(part, &mut self.spans) {
            self.ended = true;
        }
    }

    /// How many unparsed elements the next batch takes, once there are enough of them
    /// (or the region is read): at most `most`, and no more than
    /// [`PARSED_BYTES`] of text beyond the first.
    fn batch_ready(&self, most: usize) -> Option<usize> {
        let waiting = self.spans.get(self.parsed..).unwrap_or_default();
        let first_start = waiting.first()?.start;
        let over = waiting.iter().take(most).position(|s| s.end.saturating_sub(first_start) > PARSED_BYTES);
        match over {
            Some(at) => Some(at.max(1)),
            None if waiting.len() >= most => Some(most),
            None => self.ended.then_some(waiting.len()),
        }
    }

    /// The next batch (the text of the one before let go); `None` at the end, `Some(None)`
    /// (said once) for a list that turns out not to be one JSON array.
    fn next_batch(&mut self, most: usize) -> Option<Option<Batch<'_>>> {
        self.held.drain(..self.lent_to.saturating_sub(self.held_from).min(self.held.len()));
        self.held_from = self.held_from.max(self.lent_to);
        let taken = loop {
            if let Some(taken) = self.batch_ready(most) {
                break taken;
            }
            if self.ended {
                return (!std::mem::replace(&mut self.closed, true)).then_some(None);
            }
            self.pull();
        };
        let (Some(first), Some(last)) = (
            self.spans.get(self.parsed),
            self.parsed.checked_add(taken).and_then(|n| self.spans.get(n.checked_sub(1)?)),
        ) else {
            return Some(None);
        };
        let (start, end) = (first.start, last.end);
        self.parsed = self.parsed.saturating_add(taken);
        self.lent_to = end;
        // Text no longer held would be a fault: read as a list that does not parse (then
        // parsed whole), never as its end.
        let held = start.checked_sub(self.held_from).zip(end.checked_sub(self.held_from));
        let text = held.and_then(|(from, to)| self.held.get(from..to));
        Some(text.map(|text| Batch { text, count: taken }))
    }

    /// Nothing after a batch that did not parse is read.
    fn fail(&mut self, count: usize) {
        (self.ended, self.closed) = (true, true);
        self.spans.truncate(self.parsed.saturating_sub(count));
    }

    /// Whether every element left parses and the list is one JSON array.
    fn rest_parses(&mut self) -> bool {
        loop {
            let mut array = Vec::new();
            match self.next_batch(PARSED_TOGETHER) {
                None => return true,
                Some(Some(batch)) => {
                    if batch.parse(&mut array).is_none() {
                        return false;
                    }
                }
                Some(None) => return false,
            }
        }
    }

    /// The span of every element (all of them once the list is read), and where the
    /// pieces read started.
    fn into_spans(self) -> (Vec<std::ops::Range<usize>>, Marks) {
        (self.spans, self.marks)
    }
}

/// The list's elements as the reader takes them: the prefix read to detect the format,
/// then each batch as it is lent, detected (when the format was not settled) and
/// fingerprinted for the reuse plan. `stop` says why the elements ended early: `Ok` for
/// a text that does not parse, or the detection error.
struct Elements<'s, 'p> {
    prefix: Vec<Node<'static>>,
    parsed: &'s mut ListElements<'p>,
    detector: Option<&'s mut format::detect::ListDetector>,
    prints: &'s mut Vec<u64>,
    stop: Option<Result<(), FormatError>>,
    done: bool,
}

impl format::items::Stream for Elements<'_, '_> {
    fn at_least(&self) -> usize {
        self.prefix.len()
    }

    /// After a failed read, the elements left are still parsed and detected (not read):
    /// an error among them comes first.
    fn each(&mut self, read: &mut format::items::Read<'_>) -> Result<(), FormatError> {
        self.done = true;
        let mut failed: Option<FormatError> = None;
        let mut read_one = |index: usize, node: &Node<'_>| {
            if failed.is_none() {
                failed = read(index, node).err();
            }
        };
        let mut index = self.prefix.len();
        for (i, node) in std::mem::take(&mut self.prefix).into_iter().enumerate() {
            read_one(i, &node);
        }
        loop {
            let mut array = Vec::new();
            let batch = match self.parsed.next_batch(PARSED_TOGETHER) {
                None => break,
                Some(None) => {
                    self.stop = Some(Ok(()));
                    break;
                }
                Some(Some(batch)) => batch,
            };
            let count = batch.count;
            let Some(nodes) = batch.parse(&mut array) else {
                self.parsed.fail(count);
                self.stop = Some(Ok(()));
                break;
            };
            for node in &nodes {
                if let Some(detector) = self.detector.as_deref_mut() {
                    if let Err(e) = detector.push(index, node) {
                        self.stop = Some(Err(e));
                        return failed.map_or(Ok(()), Err);
                    }
                }
                self.prints.push(reuse::fingerprint_node(node));
                read_one(index, node);
                index = index.saturating_add(1);
            }
        }
        failed.map_or(Ok(()), Err)
    }
}

/// What the pipeline holds of the caller's JSON while it compacts.
enum Caller<'a> {
    /// Its whole tree.
    Tree(&'a Value),
    /// Its text, and of its tree only the container (the message list emptied) and what
    /// the reuse plan needs of the list. Only with a reuse plan.
    Text { text: InputText<'a>, shell: Value, list: reuse::InputList },
}

impl Caller<'_> {
    /// The input's container: its shape, and a request's other fields.
    fn container(&self) -> &Value {
        match self {
            Caller::Tree(value) => value,
            Caller::Text { shell, .. } => shell,
        }
    }
}

/// The steps after the read, the same whatever [`Caller`] holds.
async fn compact_read<S: Summarizer + ?Sized>(
    caller: Caller<'_>,
    messages: Vec<Message>,
    format: Format,
    settings: &CompactSettings,
    summarizer: &S,
    controls: &Controls,
    meter: Meter<'_>,
) -> Result<JsonOutput, JsonError> {
    let provider = settings.provider.unwrap_or_else(|| crate::convert::provider_of(format));
    // The output has the input's container: summaries go where that container holds them.
    let new_system = if format::may_gain_system(caller.container(), format, &messages) {
        NewSystem::Keep
    } else {
        NewSystem::AsUser
    };
    let options = CompactOptions {
        strategy: settings.strategy.clone(),
        repair: repair_options(caller.container(), format, provider),
        new_system,
    };
    // The request's tool definitions (and the like) take their share of a hard budget.
    let overhead = format::container::request_overhead(caller.container(), format);
    let options = run::without_request_fields(&options, &overhead, meter)
        .map_err(|error| JsonError { error, input_path: None })?;
    // The caller's focus reaches every prompt.
    let focused;
    let controls = match &settings.instructions {
        Some(focus) => {
            focused = Controls { focus: Some(focus.clone()), ..controls.clone() };
            &focused
        }
        None => controls,
    };
    let count = messages.len();
    let kept = kept_first(caller.container(), format, &messages);
    let result =
        run::compact_after_kept(&messages, kept, &options, summarizer, controls, meter).await.map_err(|error| {
            let input_path = match (&error, &caller) {
                // Positions in the chain after the results set aside: no path rather than a wrong one.
                (CompactError::Input(_), _) if kept > 0 => None,
                (CompactError::Input(e), Caller::Tree(value)) => crate::locate::error_path(e, value, format, count),
                // The tree is read again, for the error only.
                (CompactError::Input(e), Caller::Text { text, .. }) => text
                    .whole()
                    .and_then(|text| format::parse_json(&text).ok())
                    .and_then(|value| crate::locate::error_path(e, &value, format, count)),
                _ => None,
            };
            JsonError { error, input_path }
        })?;
    // The input's messages are done with: let them go before the output is written (its
    // tree and the reuse plan are the last peak of a call).
    drop(messages);
    let crate::strategy::CompactResult { messages: compacted, changed, report, .. } = result;
    // Unchanged (nothing to do, or a rollback): the caller's own JSON goes back as it came.
    let (messages, reuse) = match (changed, &caller) {
        (true, Caller::Tree(value)) => {
            let written = format::write_like(&compacted, format, value)?;
            drop(compacted);
            if settings.reuse {
                reuse::plan(value, written, format)
            } else {
                (written, None)
            }
        }
        (true, Caller::Text { text, shell, list }) => {
            let written = format::write_like(&compacted, format, shell)?;
            drop(compacted);
            let mut pieces = text.pieces();
            let pieces = pieces.as_deref_mut().map(|p| p as &mut dyn TextPieces);
            reuse::plan_from_pieces(pieces, list, written, format)
        }
        // The caller hands back its own input.
        (false, Caller::Text { .. }) => (Value::Null, None),
        (false, Caller::Tree(_)) if settings.reuse => (Value::Null, None),
        (false, Caller::Tree(value)) => ((*value).clone(), None),
    };
    let report = Report { format, ..report };
    Ok(JsonOutput { messages, changed, format, report, reuse })
}

/// How many messages `container`'s chain opens with that stay first, as they are, in a
/// Responses chain: the provider's compaction items (the earlier conversation, encrypted:
/// no summarizer can read it, and folded it would be gone), and in a request continuing a
/// stored conversation (`previous_response_id`, `conversation`) the results of the calls
/// its last response made, which are not in `input` (no orphans); with the system prompt
/// (`instructions`) before them. Compaction and repair leave them as they are.
pub(crate) fn kept_first(container: &Value, format: Format, messages: &[Message]) -> usize {
    if format != Format::OpenAiResponses {
        return 0;
    }
    let continues = container.as_object().is_some_and(|request| {
        ["previous_response_id", "conversation"].iter().any(|k| request.get(*k).is_some_and(|v| !v.is_null()))
    });
    let systems = messages.iter().take_while(|m| m.role == crate::message::Role::System).count();
    let opening = messages
        .iter()
        .skip(systems)
        .take_while(|m| (continues && m.role == crate::message::Role::Tool) || format::responses::is_compaction(m))
        .count();
    if opening == 0 {
        0
    } else {
        systems.saturating_add(opening)
    }
}

/// Bytes and estimated tokens of every message of the chain `value` holds, in `format`
/// (detected when `None`).
pub fn measure_json(value: &Value, format: Option<Format>) -> Result<crate::inspect::ChainMeasure, FormatError> {
    let (messages, format) = read_json(value, format)?;
    Ok(crate::inspect::measure(&messages, format))
}

/// Whether [`compact_json`] with this strategy and `provider` (`None`: the provider of the
/// format read) would change anything now; no summarizer is called. Beside the strategy's
/// trigger, the provider repair pass `compact` ends with: a chain breaking a rule it mends
/// (a whitespace-only text block) is changed by `compact` whatever its size. Not while a
/// turn waits for its results ([`run::needs_compaction`]).
pub fn needs_compaction_json(
    value: &Value,
    format: Option<Format>,
    strategy: &StrategyConfig,
    provider: Option<Provider>,
    meter: Meter<'_>,
) -> Result<bool, FormatError> {
    let (messages, format) = read_json(value, format)?;
    let overhead = format::container::request_overhead(value, format);
    let options = CompactOptions { strategy: strategy.clone(), ..CompactOptions::default() };
    // Its fields alone over the budget: compact would fail, so there is work (or an error) now.
    let Ok(options) = run::without_request_fields(&options, &overhead, meter) else { return Ok(true) };
    // What `compact` keeps first, as it is, is no part of what its strategy is given.
    let kept = kept_first(value, format, &messages);
    if run::needs_compaction_after_kept(&messages, kept, &options.strategy, meter) {
        return Ok(true);
    }
    Ok(repaired_rest(value, format, &messages, provider).is_some_and(|(rest, out)| out != rest))
}

/// What the provider repair pass `compact` ends with makes of the chain `messages` read
/// from `container` in `format` (`provider` `None`: the format's): the messages it works
/// on (those after the ones [`kept_first`] keeps) and their repair; `None` when they break
/// no rule, or while a turn waits for its results (what `needs_compaction_json` checks
/// under the budget).
pub fn repaired_rest<'a>(
    container: &Value,
    format: Format,
    messages: &'a [Message],
    provider: Option<Provider>,
) -> Option<(&'a [Message], Vec<Message>)> {
    if run::waits_for_results(messages) {
        return None;
    }
    let provider = provider.unwrap_or_else(|| crate::convert::provider_of(format));
    let kept = kept_first(container, format, messages);
    let rest = messages.get(kept..).unwrap_or_default();
    run::repaired(rest, &repair_options(container, format, provider)).map(|out| (rest, out))
}

/// The repair pass `compact` ends with, for a chain read from `container` in `format`.
fn repair_options(container: &Value, format: Format, provider: Provider) -> RepairOptions {
    RepairOptions { request: request_rules(container, format), ..RepairOptions::for_provider(provider) }
}

/// Every rule of `provider` (default: the provider of the format read) the chain `value`
/// holds breaks, each pointed at its place in `value`; with the format read.
pub fn validate_json(
    value: &Value,
    format: Option<Format>,
    provider: Option<Provider>,
) -> Result<(Vec<Diagnostic>, Format), FormatError> {
    let (messages, format) = read_json(value, format)?;
    let kept = kept_first(value, format, &messages);
    let provider = provider.unwrap_or_else(|| crate::convert::provider_of(format));
    let rules = request_rules(value, format);
    let mut found = crate::repair::validate_request(messages.get(kept..).unwrap_or_default(), provider, &rules);
    for d in &mut found {
        d.index = d.index.saturating_add(kept);
    }
    // Paths into the caller's JSON, not the chain as read (whose indices shift where a
    // wire message became several).
    Ok((crate::locate::locate(found, value, format, messages.len()), format))
}

/// What the request object `value` (read in `format`) says beside its messages that
/// provider rules depend on; nothing for a bare list.
fn request_rules(value: &Value, format: Format) -> RequestRules {
    if format != Format::Anthropic {
        return RequestRules::default();
    }
    RequestRules {
        thinking: format::anthropic::thinking_enabled(value),
        cache_breakpoints: format::anthropic::tool_cache_breakpoints(value),
    }
}

/// What [`repair_json`] gives back.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[cfg_attr(feature = "tsify", tsify(rename = "RepairResult", type_params = "M = unknown"))]
pub struct RepairedJson {
    /// The repaired chain, in the format and container it was read in (`M`: the type of
    /// the input, see `repairChain`); the input itself when nothing changed.
    #[cfg_attr(feature = "tsify", tsify(type = "M"))]
    pub messages: Value,
    /// Whether anything changed (`steps` is not empty).
    pub changed: bool,
    #[cfg_attr(feature = "tsify", tsify(type = "ChainFormat"))]
    pub format: Format,
    #[cfg_attr(feature = "tsify", tsify(type = "ProviderName"))]
    pub provider: Provider,
    pub steps: Vec<crate::repair::RepairStep>,
}

/// Repairs what the provider (`options.provider`, or `None`: the provider of the format
/// read) would reject in the chain `value` holds, written back in its format and container.
pub fn repair_json(
    value: &Value,
    format: Option<Format>,
    provider: Option<Provider>,
    mut options: RepairOptions,
) -> Result<RepairedJson, FormatError> {
    let (mut messages, format) = read_json(value, format)?;
    options.provider = provider.unwrap_or_else(|| crate::convert::provider_of(format));
    options.request = request_rules(value, format);
    // What the chain opens with that stays (see `kept_first`) stays first, as it is; the rest is repaired.
    let kept = kept_first(value, format, &messages);
    let rest = messages.split_off(kept);
    let mut repaired = crate::repair::repair_owned(rest, &options);
    for step in &mut repaired.steps {
        step.shift_index(kept);
    }
    messages.append(&mut repaired.messages);
    repaired.messages = messages;
    let changed = !repaired.steps.is_empty();
    let messages = written_like(value, changed, &repaired.messages, format)?;
    Ok(RepairedJson { messages, changed, format, provider: options.provider, steps: repaired.steps })
}

/// `messages` written in `format` and the container of `value` when `changed`; else the
/// caller's own JSON as it came.
pub fn written_like(value: &Value, changed: bool, messages: &[Message], format: Format) -> Result<Value, FormatError> {
    if changed {
        format::write_like(messages, format, value)
    } else {
        Ok(value.clone())
    }
}
