//! Conversions shared by the exports: JS values to core types and back.

use crate::error::{BindingError, JsResult};
use contextfold::format::{self, Format, FormatError};
use js_sys::{JsString, Uint8Array};
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

/// The `format` option: `None` means auto-detect.
pub fn format_option(name: Option<&str>) -> Result<Option<Format>, BindingError> {
    match name {
        None | Some("auto") => Ok(None),
        Some(name) => Format::from_name(name).map(Some).ok_or_else(|| BindingError::InvalidOption {
            path: ".format".to_string(),
            message: unknown_format(name, true),
        }),
    }
}

/// "unknown format ...; expected ..." naming every format (from [`Format::ALL`], so that
/// none is left out), and `"auto"` where it is accepted.
pub fn unknown_format(name: &str, auto: bool) -> String {
    let mut names: Vec<String> = auto.then(|| "\"auto\"".to_string()).into_iter().collect();
    names.extend(Format::ALL.iter().map(|f| format!("{:?}", f.as_str())));
    let last = names.pop().unwrap_or_default();
    format!("unknown format {name:?}; expected {} or {last}", names.join(", "))
}

/// Reads messages in `format`, or in the detected format when `None`.
pub use contextfold::pipeline::read_json as read_messages;

/// JSON text is parsed by the core (errors carry line and column); any other value is
/// converted as it is.
pub fn messages_from_js(messages: JsValue) -> Result<Value, BindingError> {
    messages_and_text_from_js(messages).map(|(_, value)| value)
}

/// [`messages_from_js`], with the JSON text when the messages came as one.
pub fn messages_and_text_from_js(messages: JsValue) -> Result<(Option<String>, Value), BindingError> {
    if let Some(text) = js_text(&messages) {
        let value = format::parse_json(&text)?;
        return Ok((Some(text), value));
    }
    let value = serde_wasm_bindgen::from_value(messages).map_err(|e| {
        BindingError::from(FormatError::Shape {
            path: String::new(),
            message: format!("not a JSON value: {}", describe(&e)),
        })
    })?;
    Ok((None, value))
}

#[wasm_bindgen]
extern "C" {
    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(this: &TextEncoder, source: &JsString, destination: &Uint8Array) -> EncodeInto;

    type EncodeInto;
    #[wasm_bindgen(method, getter)]
    fn read(this: &EncodeInto) -> u32;
    #[wasm_bindgen(method, getter)]
    fn written(this: &EncodeInto) -> u32;
}

/// UTF-8 bytes encoded per `encodeInto` call: a bounded JS buffer, reused.
const ENCODE_CHUNK: u32 = 1 << 20;

/// The pieces of [`JsTextPieces`]. 64 KiB pieces were as fast, but on a first call
/// their buffers grew a fresh instance by a page or two more (3.1x a 550 KB chain for
/// `auto`, 2.8x with these).
const PIECE: u32 = 1 << 14;

/// A JS string as Rust text, `None` for any other value. `JsValue::as_string` copies an
/// ASCII string one character at a time in JS (about 30 ms for a 5 MiB chain); the
/// native `TextEncoder.encodeInto` does it in about 1 ms. Lone surrogates become U+FFFD,
/// as with `as_string`.
pub fn js_text(value: &JsValue) -> Option<String> {
    let mut encoding = Encoding::of(value, ENCODE_CHUNK)?;
    let mut bytes: Vec<u8> = Vec::with_capacity(encoding.units as usize);
    while let Some(written) = encoding.next_chunk() {
        let start = bytes.len();
        bytes.resize(start.saturating_add(written as usize), 0);
        encoding.chunk.subarray(0, written).copy_to(bytes.get_mut(start..)?);
    }
    if !encoding.done() {
        return value.as_string();
    }
    // encodeInto writes whole characters only: the bytes are UTF-8.
    String::from_utf8(bytes).ok().or_else(|| value.as_string())
}

/// The UTF-8 bytes of a JS string, as [`js_text`] gives them, in pieces of at most
/// 16 KiB: all of the text wasm holds at a time.
pub struct JsTextPieces {
    encoding: Encoding,
    piece: Vec<u8>,
    /// The UTF-16 offset the current piece starts at.
    start: u32,
}

impl JsTextPieces {
    /// `None` for a value that is not a string.
    pub fn of(value: &JsValue) -> Option<Self> {
        Some(JsTextPieces { encoding: Encoding::of(value, PIECE)?, piece: Vec::new(), start: 0 })
    }
}

impl contextfold::text_pieces::TextPieces for JsTextPieces {
    fn advance(&mut self) -> bool {
        self.start = self.encoding.read;
        let Some(written) = self.encoding.next_chunk() else {
            self.piece.clear();
            return false;
        };
        self.piece.resize(written as usize, 0);
        self.encoding.chunk.subarray(0, written).copy_to(&mut self.piece);
        true
    }

    fn piece(&self) -> &[u8] {
        &self.piece
    }

    fn size_hint(&self) -> usize {
        // A UTF-16 unit is at least one byte.
        self.encoding.units as usize
    }

    fn mark(&self) -> Option<u64> {
        Some(u64::from(self.start))
    }

    fn seek(&mut self, mark: u64) -> bool {
        // Marks are where pieces started: between whole characters.
        let Some(at) = u32::try_from(mark).ok().filter(|&at| at <= self.encoding.units) else { return false };
        (self.encoding.read, self.start) = (at, at);
        self.piece.clear();
        true
    }
}

/// A JS string being encoded by `TextEncoder.encodeInto` into a bounded JS buffer,
/// reused, so that the JS side never holds a second copy of the whole text.
struct Encoding {
    text: JsString,
    units: u32,
    read: u32,
    chunk: Uint8Array,
    encoder: TextEncoder,
}

impl Encoding {
    fn of(value: &JsValue, size: u32) -> Option<Self> {
        let text = value.dyn_ref::<JsString>()?.clone();
        let units = text.length();
        let chunk = Uint8Array::new_with_length(size.min(units.saturating_mul(3)).max(4));
        Some(Encoding { text, units, read: 0, chunk, encoder: TextEncoder::new() })
    }

    /// Encodes the next chunk into `chunk`: the bytes written, `None` at the end.
    fn next_chunk(&mut self) -> Option<u32> {
        if self.read >= self.units {
            return None;
        }
        let rest = if self.read == 0 { self.text.clone() } else { self.text.slice(self.read, self.units) };
        let done = self.encoder.encode_into(&rest, &self.chunk);
        // A chunk of 4 bytes or more always takes a character; never loop forever.
        let units_read = done.read();
        if units_read == 0 {
            return None;
        }
        self.read = self.read.saturating_add(units_read);
        Some(done.written())
    }

    /// Whether every character was encoded.
    fn done(&self) -> bool {
        self.read >= self.units
    }
}

/// serde-wasm-bindgen errors print as `Error: ...`; the prefix adds nothing here.
pub fn describe(e: &serde_wasm_bindgen::Error) -> String {
    let text = e.to_string();
    contextfold::settings::plain_expectation(text.strip_prefix("Error: ").unwrap_or(&text))
}

/// `value` as JS: its JSON text, parsed by `JSON.parse`. One string crosses instead of a
/// call into JS for every object, key and string (a compaction's new messages and report
/// are thousands of them), and JS reads every number as it reads any JSON: an integer
/// beyond 2^53 in a message is rounded as `JSON.parse` rounds it, not refused, and a
/// `"__proto__"` key is the object's own field.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsResult<JsValue> {
    let text = serde_json::to_string(value).map_err(|e| BindingError::Internal(e.to_string()))?;
    js_sys::JSON::parse(&text).map_err(|e| BindingError::Internal(crate::bridge::describe_js(&e)).into())
}

/// `value` as JS, built object by object: for a value the engine made alone (counts,
/// names and texts, no number of the caller's, which may not fit a JS number) that is
/// mostly long strings, as `measureChain`'s texts: each string crosses once, where JSON
/// text would be escaped in wasm and read again by `JSON.parse` (1.08x on 10k messages).
pub fn to_js_objects<T: Serialize + ?Sized>(value: &T) -> JsResult<JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| BindingError::Internal(e.to_string()).into())
}
