//! JSON in, JSON out: what every binding (and a Rust user holding provider JSON) runs.
//! Read the chain in its format (given or detected), compact it with the chosen strategy
//! under the provider's rules, and write it back in the format and container it came in.
//! An error about a message as read is pointed at the caller's own JSON.

use crate::format::{self, Format, FormatError};
use crate::measure::Meter;
use crate::message::Message;
use crate::repair::{Diagnostic, Provider, RepairOptions};
use crate::reuse::{self, ReuseItem};
use crate::settings::CompactSettings;
use crate::strategy::run::{self, CompactOptions, NewSystem, StrategyConfig};
use crate::strategy::{CompactError, Report};
use crate::summarize::{Controls, Summarizer};
use crate::text_pieces::{Held, RangeReader, TextPieces};
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

/// The input's JSON text as [`compact_text`] takes it. A host that can give the text
/// again, in pieces ([`TextPieces`]; the JS binding encodes the caller's string anew, a
/// chunk at a time, about 1 ms per 5 MB), lets the pipeline hold it whole only while it
/// finds the message list: the messages are then parsed from pieces, and the reuse plan
/// reads it once more at the end. The text and the messages read from it were never
/// whole together; a summary request of most of the chain never sits beside it.
pub struct InputText<'a> {
    held: Option<std::borrow::Cow<'a, str>>,
    again: Option<&'a TextAgain<'a>>,
}

/// Gives the text again from its start, the same bytes as first given; `None` when it
/// no longer can.
pub type TextAgain<'t> = dyn Fn() -> Option<Box<dyn TextPieces + 't>> + 't;

impl<'a> InputText<'a> {
    /// A text held for the whole call.
    pub fn held(text: &'a str) -> Self {
        InputText { held: Some(text.into()), again: None }
    }

    /// A text let go once its list is found, then read from `again` when needed.
    pub fn again(text: String, again: &'a TextAgain<'a>) -> Self {
        InputText { held: Some(text.into()), again: Some(again) }
    }

    /// Drops the copy when it can be had again.
    fn let_go(&mut self) {
        if self.again.is_some() {
            self.held = None;
        }
    }

    /// The text in pieces from its start; `None` when it is not to be had.
    fn pieces(&self) -> Option<Box<dyn TextPieces + '_>> {
        match (&self.held, self.again) {
            (Some(text), _) => Some(Box::new(Held::whole(text.as_bytes()))),
            (None, Some(again)) => again(),
            (None, None) => None,
        }
    }

    /// The whole text, held or given again (to find the list, and for errors).
    fn whole(&self) -> Option<std::borrow::Cow<'_, str>> {
        if let Some(text) = &self.held {
            return Some(std::borrow::Cow::Borrowed(text.as_ref()));
        }
        let mut pieces = self.pieces()?;
        let mut bytes = Vec::new();
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
/// and a reuse plan is asked for: its elements are parsed one at a time as they are read,
/// so that the list's tree never exists whole (only the prefix that settles the format,
/// when it is detected: all of it when it never settles). Parsing, detecting and reading
/// as they go, element after element, also keeps each element in cache while it is read.
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
    let mut input = input;
    let List { spans, shell, mut detector, format: known } = list_of(&input.whole()?, settings.format)?;
    // The list found, the text is let go (when it can be had again) and read in pieces,
    // element after element.
    input.let_go();
    let mut pieces = input.pieces()?;
    let mut parsed = Parsed::new(&mut *pieces, &spans);
    let mut prints: Vec<u64> = Vec::with_capacity(spans.len());
    // 1. The format: given, or settled by the shortest prefix.
    let mut prefix: Vec<Value> = Vec::new();
    if let Some(detector) = detector.as_mut() {
        for (i, element) in parsed.by_ref().enumerate() {
            let element = element?;
            if let Err(e) = detector.push(i, &element) {
                // A text that does not parse reports that first, as a whole parse would.
                return spans
                    .get(i.saturating_add(1)..)
                    .is_some_and(|rest| input.whole().is_some_and(|text| all_parse(&text, rest)))
                    .then(|| Err(e.into()));
            }
            prints.push(reuse::fingerprint(&element));
            prefix.push(element);
            if detector.settled() {
                break;
            }
        }
    }
    let format = known.or(detector.as_ref().map(format::detect::ListDetector::format)).unwrap_or(Format::OpenAi);
    // 2. The read: the prefix, then each element as it is parsed (and still detected).
    let from = prefix.len();
    let mut stop: Option<Result<(), FormatError>> = None;
    let rest = parsed.enumerate().map_while(|(k, element)| {
        let Some(element) = element else {
            stop = Some(Ok(()));
            return None;
        };
        if let Some(detector) = detector.as_mut() {
            if let Err(e) = detector.push(from.saturating_add(k), &element) {
                stop = Some(Err(e));
                return None;
            }
        }
        prints.push(reuse::fingerprint(&element));
        Some(element)
    });
    let mut elements = prefix.into_iter().chain(rest);
    let read = format::read_taken(&shell, format::Items::Stream { elements: &mut elements, len: spans.len() }, format);
    // A read that failed leaves elements unread: a detection error or a parse error among
    // them comes first, as it would have come before any read.
    elements.by_ref().for_each(drop);
    drop(elements);
    let messages = match stop {
        Some(Ok(())) => return None,
        Some(Err(detected)) => {
            let at = prints.len().saturating_add(1);
            let rest_parses =
                spans.get(at..).is_some_and(|rest| input.whole().is_some_and(|text| all_parse(&text, rest)));
            return rest_parses.then(|| Err(detected.into()));
        }
        None => match read {
            Ok(messages) => messages,
            Err(e) => return Some(Err(e.into())),
        },
    };
    drop(pieces);
    let caller = Caller::Text { text: input, shell, list: reuse::InputList::new(spans, prints) };
    Some(compact_read(caller, messages, format, settings, summarizer, controls, meter).await)
}

/// The message list of a JSON text, found without parsing it.
struct List {
    /// Its elements in the text.
    spans: Vec<std::ops::Range<usize>>,
    /// The text's value without the list's elements (an empty array, or the request
    /// object with its list emptied).
    shell: Value,
    /// What checks the elements as detection would; `None` when the format is given.
    detector: Option<format::detect::ListDetector>,
    /// The format, when given or told by a request's keys.
    format: Option<Format>,
}

/// The message list of `text` in `format` (detected when `None`): a bare array, or the
/// list field of a request object (its other fields parsed, the list left out). `None`
/// for anything else (no list, a repeated list field, a text that is not JSON).
fn list_of(text: &str, format: Option<Format>) -> Option<List> {
    let bytes = text.as_bytes();
    if let Some(spans) = crate::json_span::array_spans(bytes) {
        let detector = format.is_none().then(format::detect::ListDetector::array);
        return Some(List { spans, shell: Value::Array(Vec::new()), detector, format });
    }
    let object = crate::json_span::object_spans(bytes)?;
    let count = |key: &str| object.fields.iter().filter(|(k, _)| k == key).count();
    let (format, key, detector) = match format {
        Some(format) => (format, format.request_fields()?.messages, None),
        None => {
            let input_is_string =
                object.field("input").is_some_and(|span| bytes.get(span.start).is_some_and(|b| *b == b'"'));
            let (format, key) = format::detect::request_list(|key| count(key) > 0, input_is_string)?;
            (format, key, Some(format::detect::ListDetector::request(format, key)))
        }
    };
    let list = object.field(key).filter(|_| count(key) == 1)?;
    let spans = crate::json_span::object_spans_with(bytes, Some(key))?.1?;
    let shell_text = [text.get(..list.start)?, "[]", text.get(list.end..)?].concat();
    let shell = serde_json::from_str(&shell_text).ok()?;
    Some(List { spans, shell, detector, format: Some(format) })
}

/// The elements at `spans` of a JSON array's text, parsed a few at a time from its
/// pieces: one parse per element grew the parser's buffer for escaped strings again for
/// every element (in wasm, that made the read 8% slower than one parse of the whole
/// text). `None` for elements that do not parse, or a text that ends first.
struct Parsed<'t, 'p> {
    reader: RangeReader<'p>,
    spans: &'t [std::ops::Range<usize>],
    batch: std::vec::IntoIter<Value>,
}

/// Elements parsed together: at most this many, and no more than [`PARSED_BYTES`] of
/// text beyond the first (a batch is copied, then held as a tree while it is read: 256
/// large messages were most of a real session's text, held twice over).
const PARSED_TOGETHER: usize = 256;
const PARSED_BYTES: usize = 64 * 1024;

impl<'t, 'p> Parsed<'t, 'p> {
    fn new(pieces: &'p mut dyn TextPieces, spans: &'t [std::ops::Range<usize>]) -> Self {
        Parsed { reader: RangeReader::new(pieces), spans, batch: Vec::new().into_iter() }
    }
}

impl Iterator for Parsed<'_, '_> {
    type Item = Option<Value>;

    fn next(&mut self) -> Option<Option<Value>> {
        if let Some(element) = self.batch.next() {
            return Some(Some(element));
        }
        let first_start = self.spans.first()?.start;
        let taken = self
            .spans
            .iter()
            .take(PARSED_TOGETHER)
            .position(|span| span.end.saturating_sub(first_start) > PARSED_BYTES)
            .map_or(self.spans.len().min(PARSED_TOGETHER), |at| at.max(1));
        let last_end = self.spans.get(taken.checked_sub(1)?)?.end;
        self.spans = self.spans.get(taken..).unwrap_or_default();
        // The elements and what separates them (commas, spaces), as an array of their own.
        let mut array = Vec::with_capacity(last_end.saturating_sub(first_start).saturating_add(2));
        array.push(b'[');
        if !self.reader.read(first_start..last_end, &mut |bytes| array.extend_from_slice(bytes)) {
            return Some(None);
        }
        array.push(b']');
        // Checked as UTF-8 first: in wasm, faster than `from_slice` checking each string.
        let parsed = std::str::from_utf8(&array).ok().and_then(|text| serde_json::from_str::<Vec<Value>>(text).ok());
        match parsed {
            Some(batch) if batch.len() == taken => {
                self.batch = batch.into_iter();
                self.batch.next().map(Some)
            }
            _ => Some(None),
        }
    }
}

/// Whether every element of `spans` in `text` is JSON.
fn all_parse(text: &str, spans: &[std::ops::Range<usize>]) -> bool {
    spans
        .iter()
        .all(|span| text.get(span.clone()).is_some_and(|t| serde_json::from_str::<serde::de::IgnoredAny>(t).is_ok()))
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
        repair: RepairOptions::for_provider(provider),
        new_system,
    };
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
    let result = run::compact(&messages, &options, summarizer, controls, meter).await.map_err(|error| {
        let input_path = match (&error, &caller) {
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
    let crate::strategy::CompactResult { messages: compacted, changed, report } = result;
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

/// Bytes and estimated tokens of every message of the chain `value` holds, in `format`
/// (detected when `None`).
pub fn measure_json(value: &Value, format: Option<Format>) -> Result<crate::inspect::ChainMeasure, FormatError> {
    let (messages, format) = read_json(value, format)?;
    Ok(crate::inspect::measure(&messages, format))
}

/// Whether [`compact_json`] with this strategy would change anything now; no summarizer
/// is called.
pub fn needs_compaction_json(
    value: &Value,
    format: Option<Format>,
    strategy: &StrategyConfig,
    meter: Meter<'_>,
) -> Result<bool, FormatError> {
    let (messages, _) = read_json(value, format)?;
    Ok(run::needs_compaction(&messages, strategy, meter))
}

/// Every rule of `provider` (default: the provider of the format read) the chain `value`
/// holds breaks, each pointed at its place in `value`; with the format read.
pub fn validate_json(
    value: &Value,
    format: Option<Format>,
    provider: Option<Provider>,
) -> Result<(Vec<Diagnostic>, Format), FormatError> {
    let (messages, format) = read_json(value, format)?;
    let found = crate::repair::validate(&messages, provider.unwrap_or_else(|| crate::convert::provider_of(format)));
    // Paths into the caller's JSON, not the chain as read (whose indices shift where a
    // wire message became several).
    Ok((crate::locate::locate(found, value, format, messages.len()), format))
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
    let (messages, format) = read_json(value, format)?;
    options.provider = provider.unwrap_or_else(|| crate::convert::provider_of(format));
    let repaired = crate::repair::repair_owned(messages, &options);
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
