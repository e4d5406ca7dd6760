//! Converting a conversation from one format to another, following the target
//! provider's rules (SEMANTICS.md section 6).
//!
//! [`convert`] reads the input (in `from`, or the detected format), runs
//! [`convert_messages`] and writes the result in `to`. [`convert_messages`] works on
//! native messages and lists every change it makes as a [`Change`]; every `index` is a
//! position in the messages as read (native), every `part` a position in that message's
//! parts. When the source and the target are the same format, only the repair pass runs
//! (a provider's own ids, signatures and fields are valid for it). Otherwise, in order:
//!
//! 1. parts only the source SDK reads are dropped (the AI SDK's tool approval requests
//!    and responses: it never sends them to a model; an assistant `UIMessage`'s
//!    `reasoning-file` and `custom` parts, kept aside by its reader, become the
//!    `ModelMessage` parts `convertToModelMessages` makes: see [`ui_parts`]), and native blocks become their
//!    rendering (text; a plain tool call or result for a Responses built-in tool), listed
//!    as [`Change::ReplacedNativeBlock`]; OpenAI's tool results lose the error flag
//!    (listed as a dropped field, `is_error`); restoration markers of other formats are dropped (they only serve lossless round
//!    trips of the format that wrote them), and so are the provider fields read from the
//!    source's wire (`cache_control`, `annotations`, ...): the target does not know them,
//!    and strict APIs (Anthropic, Gemini) reject unknown fields. Native is the hub: it
//!    keeps the source's markers and fields, recorded as the source's, for that format
//!    only (see [`hub`]); fields of a native chain without that record are the caller's. Between the AI
//!    SDK's two shapes, what `convertToModelMessages` carries goes over under the other
//!    shape's name (see [`aisdk_shapes`]); a Responses item's `id` (reasoning, function
//!    call) goes to the AI SDK as the `itemId` its OpenAI package sends back, and from
//!    there back to `id` (see [`responses_ids`]); to another target a function call's id
//!    is listed as dropped;
//! 2. reasoning, per target:
//!    - Anthropic: thinking must carry an Anthropic signature (or be redacted Anthropic
//!      data); signatures from another provider are dropped, and reasoning left without
//!      one is dropped, since Anthropic rejects unsigned thinking;
//!    - Gemini: thoughts must carry a Gemini signature; signatures from another provider
//!      are dropped, reasoning left without one is dropped, redacted data too; the first
//!      function call of each model message that has no signature gets the placeholder
//!      [`crate::ast::FAKE_REASONING_SIGNATURE`], which Gemini accepts for history it did
//!      not produce ([`crate::ast::sign_first_calls`]);
//!    - OpenAI: reasoning is dropped: the official Chat Completions types have no field
//!      for it (`reasoning_content`, which DeepSeek-style APIs use, stays in chains read
//!      from OpenAI, where the caller put it);
//!    - native, AI SDK, LangChain: carriers, not APIs: reasoning and signatures stay for
//!      the writer; for the AI SDK, a provider's signature goes where that provider's
//!      package keeps it (`providerOptions` / `providerMetadata`, see
//!      [`crate::format::aisdk::signatures`]), and one it has no place for is dropped
//!      and listed.
//!
//!    A tool call's signature (only Gemini signs calls) goes, listed, to a target with no
//!    place for it (OpenAI, Anthropic, LangChain).
//!
//!    A signature counts as foreign when the source is a provider format other than the
//!    target (Anthropic signatures are not valid for Gemini and vice versa); one read
//!    from the AI SDK belongs to the provider whose entry held it, one read from
//!    LangChain to its message's `model_provider`, one read from native to the provider
//!    native's mark names; native and LangChain record the owner of the signatures they
//!    are given (see [`signature_owners`]). Other signatures read from native or
//!    LangChain input have no known owner and are kept;
//! 3. tool call arguments are made valid JSON for targets that take them as JSON
//!    (everything but OpenAI and native; raw control characters escaped, else the text
//!    as `{"input": text}`: a custom tool's free-text input, a model's broken JSON),
//!    and a JSON object where the target requires one (Anthropic, Gemini, LangChain;
//!    another JSON value as `{"input": value}`); a custom call's free text stays a custom
//!    call for both OpenAI formats, and for native, which keeps the source's `custom`
//!    mark (the one marker it keeps) for the way back; an assistant's output text loses
//!    its `annotations` and `logprobs` (listed) for the Responses API when it has no
//!    output item there, as it is then written as an easy input message;
//! 4. a file holding an image is an image for OpenAI (its file inputs are documents), one
//!    holding WAV or MP3 audio is `input_audio` for OpenAI Chat (its name goes), another
//!    inline file without a name gets a placeholder for OpenAI (which requires one), a
//!    file is LangChain's standard file block for LangChain, an inline image without a
//!    media type gets the one its header shows (as `ai` does);
//!    an Anthropic document given as blocks is the plain-text file of its text for
//!    others; media the target cannot carry are dropped: a file by a provider's file id
//!    for another format (only native keeps it, for the way back), a file by URL for OpenAI, other audio
//!    for OpenAI Chat, inline data without a (detected) media type for every target but
//!    native and the AI SDK (there too in a tool output), any media in an AI SDK UIMessage
//!    tool output, inline data Anthropic takes no source for (images other than JPEG, PNG, GIF and WebP,
//!    documents other than PDF and UTF-8 text: see [`crate::format::anthropic::media`]);
//! 5. tool-call ids that do not fit the target's template are renamed (OpenAI and Gemini
//!    `call_{r:24:x}`, Anthropic `toolu_{r:24:b}`; deterministic, unique in the chain),
//!    and so are the results answering them; for every target but OpenAI, so is an id an
//!    earlier message already used (SWE-agent reuses ids; Anthropic rejects that, and the
//!    others pair results by id);
//! 6. the repair pass of the target's provider ([`provider_of`]): system placement (to the
//!    native form, a system message stays where it is), role alternation, tool results
//!    grouped after their call, empty text, ...
//!
//! A summarization pair needs nothing special: it is a tool call and its result, and the
//! writer gives it the target's native shape.

mod aisdk_shapes;
mod file_ids;
mod hub;
mod media;
mod native_blocks;
mod part_signatures;
mod reasoning_items;
mod responses_ids;
mod signature_owners;
mod ui_parts;

use crate::ast::tool_id::{seed_from, IdTemplate};
use crate::ast::{sanitize_arguments_text, SanitizeOutcome};
use crate::format::aisdk::signatures;
use crate::format::{detect, langchain, read, write, Format, FormatError};
use crate::hashing::{HashMap, HashSet};
use crate::message::marker_namespace;
use crate::message::{Extra, Message, Part, Role};
use crate::repair::{repair_owned, Provider, RepairOptions, RepairStep};
use aisdk_shapes::{provider_field, Shapes};
use serde::Serialize;
use serde_json::Value;

/// The provider whose rules a chain written in `format` must keep: the API itself for
/// OpenAI, Anthropic and Gemini, the shared rules for the others.
pub fn provider_of(format: Format) -> Provider {
    match format {
        Format::OpenAi => Provider::OpenAi,
        Format::OpenAiResponses => Provider::OpenAiResponses,
        Format::Anthropic => Provider::Anthropic,
        Format::Gemini => Provider::Gemini,
        Format::Native | Format::AiSdk | Format::AiSdkUi | Format::LangChain => Provider::Generic,
    }
}

/// What there is to know of a format, for hosts that handle its JSON themselves (the
/// Worker middleware, the playground): its name, the provider whose rules apply, the
/// request object it may come in, and its tool-call id template.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[cfg_attr(feature = "tsify", tsify(missing_as_null))]
pub struct FormatInfo {
    #[cfg_attr(feature = "tsify", tsify(type = "ChainFormat"))]
    pub name: Format,
    /// The provider whose rules a chain in this format keeps.
    #[cfg_attr(feature = "tsify", tsify(type = "ProviderName"))]
    pub provider: Provider,
    /// The request object the chain may come in (OpenAI Chat, Responses, Anthropic, Gemini):
    /// its system field (none for OpenAI Chat, whose system messages are in the list), its
    /// list field, and the object field the system prompt may be in instead (`systemIn`:
    /// `config` of the `@google/genai` SDK's parameters); `null`: a list only.
    #[cfg_attr(feature = "tsify", tsify(type = "{ system?: string; messages: string; systemIn?: string } | null"))]
    pub request: Option<crate::format::RequestFields>,
    /// The tool-call id template of the provider API; `null` where ids are free.
    #[cfg_attr(feature = "tsify", tsify(type = "string | null"))]
    pub id_template: Option<&'static str>,
}

/// The facts of every format, in [`Format::ALL`] order.
pub fn formats() -> Vec<FormatInfo> {
    Format::ALL
        .iter()
        .map(|&name| FormatInfo {
            name,
            provider: provider_of(name),
            request: name.request_fields(),
            id_template: id_template(name),
        })
        .collect()
}

/// The tool-call id template of a provider API; `None` where ids are free.
pub fn id_template(format: Format) -> Option<&'static str> {
    match format {
        Format::OpenAi | Format::Gemini => Some("call_{r:24:x}"),
        Format::Anthropic => Some("toolu_{r:24:b}"),
        // The Responses API echoes any `call_id` the caller chose.
        Format::OpenAiResponses | Format::Native | Format::AiSdk | Format::AiSdkUi | Format::LangChain => None,
    }
}

/// One change [`convert_messages`] made. `index` is a message of the chain as read,
/// `part` a position in its parts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "change", rename_all = "camelCase")]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[cfg_attr(feature = "tsify", tsify(rename = "ConvertChange"))]
pub enum Change {
    /// Provider fields the target does not know were dropped (`part`: on a part; else
    /// on the message).
    #[serde(rename_all = "camelCase")]
    DroppedFields {
        index: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        part: Option<usize>,
        fields: Vec<String>,
    },
    /// A reasoning or tool-call signature of another provider was dropped.
    #[serde(rename_all = "camelCase")]
    DroppedSignature { index: usize, part: usize },
    /// Reasoning the target would reject (unsigned, or redacted data it cannot carry)
    /// was dropped.
    #[serde(rename_all = "camelCase")]
    DroppedReasoning { index: usize, part: usize },
    /// The placeholder signature was put on a function call for Gemini.
    #[serde(rename_all = "camelCase")]
    AddedSignature { index: usize, part: usize },
    /// Media the target cannot carry was dropped.
    #[serde(rename_all = "camelCase")]
    DroppedMedia { index: usize, part: usize, reason: String },
    /// A provider's own block or item, which only its format writes back (`kind`: its
    /// type, e.g. `web_search_tool_result`, `image_generation_call`), was replaced by its
    /// rendering: text, or for a Responses built-in tool call or output, a plain tool
    /// call or result.
    #[serde(rename_all = "camelCase")]
    ReplacedNativeBlock { index: usize, part: usize, kind: String },
    /// A part only its source SDK reads was dropped (`kind`: the AI SDK's
    /// `tool-approval-request` or `tool-approval-response`, which it never sends a model).
    #[serde(rename_all = "camelCase")]
    DroppedSdkPart { index: usize, part: usize, kind: String },
    /// Tool call arguments were made valid JSON (`replaced`: wrapped as `{"input": ...}`).
    #[serde(rename_all = "camelCase")]
    SanitizedArguments { index: usize, part: usize, replaced: bool },
    /// A tool-call id that did not fit the target's template was renamed, and the
    /// results answering it.
    #[serde(rename_all = "camelCase")]
    RenamedToolCallId { index: usize, part: usize, old: String, new: String },
    /// A change made by the target provider's repair pass.
    Repaired {
        #[serde(flatten)]
        step: RepairStep,
    },
}

/// The result of [`convert`].
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    /// The conversation written in `to`.
    pub value: Value,
    /// The native messages that were written.
    pub messages: Vec<Message>,
    pub from: Format,
    pub to: Format,
    pub changes: Vec<Change>,
}

/// Reads `value` in `from` (detected when `None`), converts it for `to` and writes it.
pub fn convert(value: &Value, from: Option<Format>, to: Format) -> Result<Converted, FormatError> {
    let from = match from {
        Some(from) => from,
        None => detect(value)?,
    };
    let messages = read(value, from)?;
    let (messages, changes) = convert_messages(&messages, from, to);
    let value = write(&messages, to)?;
    Ok(Converted { value, messages, from, to, changes })
}

/// Native messages read from `from`, made fit for `to` (see the module doc).
pub fn convert_messages(messages: &[Message], from: Format, to: Format) -> (Vec<Message>, Vec<Change>) {
    let mut changes = Vec::new();
    let mut out = messages.to_vec();
    if from != to {
        let shapes = Shapes::new(messages, from, to);
        for (index, message) in out.iter_mut().enumerate() {
            clean_message(index, message, (from, to), shapes.as_ref(), &mut changes);
        }
        if let Some(shapes) = &shapes {
            shapes.place_provider_executed(&mut out);
        }
        if to == Format::Gemini {
            add_gemini_signatures(&mut out, &mut changes);
        }
        if let Some(template) = id_template(to).and_then(|t| IdTemplate::parse(t).ok()) {
            normalize_ids(&mut out, &template, provider_of(to).unique_call_ids(), &mut changes);
        }
    }
    // The native form is a hub round trips cross: a system or developer message stays
    // where it was said, for the target after it to place.
    let options =
        RepairOptions { keep_system_in_place: to == Format::Native, ..RepairOptions::for_provider(provider_of(to)) };
    let repaired = repair_owned(out, &options);
    changes.extend(repaired.steps.into_iter().map(|step| Change::Repaired { step }));
    (repaired.messages, changes)
}

/// Whose signatures a format's reader produces; `None` when unknown.
fn signature_owner(format: Format) -> Option<Provider> {
    match format {
        Format::OpenAi | Format::OpenAiResponses | Format::Anthropic | Format::Gemini => Some(provider_of(format)),
        Format::Native | Format::AiSdk | Format::AiSdkUi | Format::LangChain => None,
    }
}

fn is_aisdk(format: Format) -> bool {
    matches!(format, Format::AiSdk | Format::AiSdkUi)
}

/// The formats of the two OpenAI APIs, which mark the same facts alike: a custom
/// (free-text) tool call (`custom`: Chat `type: "custom"`, Responses `custom_tool_call`),
/// a developer message (`role: "developer"`) and a refusal (`type: "refusal"`, which
/// goes over to Chat only).
fn is_openai(format: Format) -> bool {
    matches!(format, Format::OpenAi | Format::OpenAiResponses)
}

/// The marker `key` of an `extra` read from `from`, one of the OpenAI formats.
fn openai_marker<'e>(extra: &'e Extra, from: Format, key: &str) -> Option<&'e Value> {
    extra.get(from.namespace().filter(|_| is_openai(from))?)?.get(key)
}

/// Whether a tool call read from `from` is a custom (free-text) one: marked so by an
/// OpenAI format, or by either in a native chain (which [`convert`] to native keeps).
fn is_custom_call(extra: &Extra, from: Format) -> bool {
    let marked =
        |namespace: &str| extra.get(namespace).and_then(|m| m.get("custom")).and_then(Value::as_bool) == Some(true);
    match from {
        Format::Native => [marker_namespace::OPENAI, marker_namespace::RESPONSES].into_iter().any(marked),
        _ => openai_marker(extra, from, "custom").and_then(Value::as_bool) == Some(true),
    }
}

/// Marks `extra` with `key` for `to` when it is an OpenAI format.
fn carry_openai_marker(extra: &mut Extra, to: Format, key: &str, value: Value) {
    if let Some(namespace) = to.namespace().filter(|_| is_openai(to)) {
        crate::format::fields::add_marker(extra, namespace, key, value);
    }
}

/// Drops the markers and fields of other formats from an `extra` (see [`hub`] for native
/// on either side). Returns the names of the dropped plain fields.
fn clean_extra(extra: &mut Extra, (from, to): (Format, Format)) -> Vec<String> {
    match (from, to) {
        (_, Format::Native) => {
            hub::into_native(extra, from);
            return Vec::new();
        }
        (Format::Native, _) => return hub::out_of_native(extra, to),
        _ => {}
    }
    let own = to.namespace();
    let mut dropped = Vec::new();
    extra.retain(|key, _| {
        if marker_namespace::contains(key) {
            return Some(key.as_str()) == own;
        }
        dropped.push(key.clone());
        false
    });
    dropped
}

/// Steps 1 to 4 of the module doc on one message.
fn clean_message(
    index: usize,
    message: &mut Message,
    (from, to): (Format, Format),
    shapes: Option<&Shapes>,
    changes: &mut Vec<Change>,
) {
    // The `UIMessage` parts `convertToModelMessages` carries that the UI reader kept aside
    // (native keeps them there, for the way back).
    let from_ui = from == Format::AiSdkUi && to != Format::Native;
    let model_parts = if from_ui { ui_parts::restore(message) } else { Vec::new() };
    // A developer message is one in both OpenAI APIs: the mark goes over.
    let developer = openai_marker(&message.extra, from, "role").and_then(Value::as_str) == Some("developer");
    let owner = signature_owner(from).or(signature_owners::of_message(from, &message.extra));
    let fields = clean_extra(&mut message.extra, (from, to));
    if developer {
        carry_openai_marker(&mut message.extra, to, "role", Value::from("developer"));
    }
    if !fields.is_empty() {
        changes.push(Change::DroppedFields { index, part: None, fields });
    }
    let target = provider_of(to);
    let foreign = |owner: Option<Provider>| match (to, owner) {
        (Format::OpenAi, _) => true,
        (Format::Anthropic | Format::Gemini | Format::OpenAiResponses, Some(owner)) => owner != target,
        _ => false,
    };
    let parts = std::mem::take(&mut message.parts);
    for (part_index, mut part) in parts.into_iter().enumerate() {
        // Already the `ModelMessage` part the AI SDK takes; another format gets its
        // rendering below.
        if to == Format::AiSdk && model_parts.contains(&part_index) {
            message.parts.push(part);
            continue;
        }
        if let Some(kind) = crate::format::aisdk::bookkeeping_part(&part) {
            changes.push(Change::DroppedSdkPart { index, part: part_index, kind: kind.to_string() });
            continue;
        }
        let openai_file = file_ids::between_openai_apis(&mut part, from, to);
        // A custom (free-text) tool call is one in both OpenAI APIs: the mark goes over.
        let custom = matches!(part, Part::ToolCall(_)) && is_custom_call(part.extra_mut(), from);
        // A refusal (Chat's part or field, Responses' part).
        let refusal = matches!(part, Part::Text(_))
            && ["type", "field"]
                .iter()
                .any(|k| openai_marker(part.extra_mut(), from, k).and_then(Value::as_str) == Some("refusal"));
        // An image's `detail`: a field of Chat's `image_url`, of Responses' `input_image`.
        let detail = match (&part, from) {
            (Part::Image(image), Format::OpenAi) => {
                openai_marker(&image.extra, from, "image_url").and_then(|u| u.get("detail")).cloned()
            }
            (Part::Image(image), Format::OpenAiResponses) => image.extra.get("detail").cloned(),
            _ => None,
        };
        if let (Some(_), Format::OpenAiResponses, Format::OpenAi) = (&detail, from, to) {
            part.extra_mut().shift_remove("detail");
        }
        // Whose signature a reasoning part holds: the source's, or for the AI SDK the
        // provider entry it was read from.
        let native_owner = if from == Format::Native { signature_owners::take_native(&mut part) } else { None };
        let part_owner = match &part {
            Part::Reasoning(r) if is_aisdk(from) => signatures::owner(&r.extra, marker_namespace::AISDK),
            // `@langchain/openai`'s Responses reasoning item.
            Part::Reasoning(r) if from == Format::LangChain && langchain::is_responses_item(&r.extra) => {
                Some(Provider::OpenAiResponses)
            }
            _ => native_owner.or(owner),
        };
        // A Responses item's id (reasoning, function call): the AI SDK's OpenAI package
        // keeps it as `itemId` in the part's provider field, and sends the item back by it.
        let (from_field, to_field) = (provider_field(from, &part), provider_field(to, &part));
        let responses_item = matches!(part, Part::Reasoning(_) | Part::ToolCall(_));
        let item_id = match (from, to, &part) {
            (Format::OpenAiResponses, _, _) if responses_item => responses_ids::read(&mut part),
            (from, Format::OpenAiResponses, _) if responses_item && is_aisdk(from) => {
                signatures::item_id(part.extra_mut(), from_field, Provider::OpenAiResponses).cloned()
            }
            // LangChain keeps a reasoning item (by its id) in `additional_kwargs`.
            (from, Format::LangChain, Part::Reasoning(_)) if is_aisdk(from) => {
                signatures::item_id(part.extra_mut(), from_field, Provider::OpenAiResponses).cloned()
            }
            (Format::LangChain, _, Part::Reasoning(r)) if langchain::is_responses_item(&r.extra) => {
                r.extra.get("id").cloned()
            }
            _ => None,
        };
        // That field loses nothing when it held only what goes over.
        let only_carried = item_id.is_some()
            && is_aisdk(from)
            && signatures::holds_only(part.extra_mut(), from_field, Provider::OpenAiResponses);
        // A Gemini signature on a text or other part, or on an AI SDK tool call, lifted
        // off before the source's fields go.
        let (part_signature, call_signed) = if is_aisdk(from) && is_aisdk(to) {
            (None, false)
        } else {
            part_signatures::take(&mut part, from, from_field)
        };
        let call_owner = if call_signed { Some(Provider::Gemini) } else { owner };
        // A `ModelMessage` system message is a string: its parts' fields have no place.
        let shapes = shapes.filter(|_| message.role != Role::System);
        let carried = shapes.map(|s| s.take(&mut part)).unwrap_or_default();
        let native = native_blocks::kind(part.extra_mut());
        // Anthropic alone takes a document as blocks; native keeps it for the way back.
        if !matches!(to, Format::Anthropic | Format::Native) && media::content_document_as_text(&mut part) {
            let reason = format!("{} takes only the text of a document given as blocks", to.as_str());
            changes.push(Change::DroppedMedia { index, part: part_index, reason });
        }
        // A file a provider stores, by its id: only that provider takes it.
        let provider_source = media_source(&part).is_some_and(crate::format::keeps_provider_source);
        let reasoning_item = reasoning_items::take(&part, (from, to));
        let mut fields = clean_extra(part.extra_mut(), (from, to));
        if let Some(item) = reasoning_item {
            item.put(&mut part, to, &mut fields);
        }
        aisdk_shapes::put(&mut part, carried);
        media::detect_image_type(&mut part);
        match item_id.clone() {
            // Carried below (reasoning) or here, as the AI SDK's `itemId`.
            Some(id) if from == Format::OpenAiResponses && is_aisdk(to) => {
                fields.retain(|f| f != "id");
                if matches!(part, Part::ToolCall(_)) {
                    signatures::carry(part.extra_mut(), to_field, Provider::OpenAiResponses, None, None, Some(id));
                }
            }
            // A call's id was a marker (its name is the native call id's): no other
            // target holds it.
            Some(_) if from == Format::OpenAiResponses => {
                // Native keeps it, in the marker, for the way back.
                let dropped = matches!(part, Part::ToolCall(_)) && to != Format::Native;
                fields.extend(dropped.then(|| "id".to_string()));
            }
            // LangChain's reasoning item: its fields went over above (Responses), its id
            // goes to the AI SDK as `itemId` below.
            Some(_) if from == Format::LangChain && is_aisdk(to) => fields.retain(|f| f != "id"),
            Some(_) if from == Format::LangChain => {}
            Some(id) => {
                responses_ids::write(&mut part, id);
                if only_carried {
                    fields.retain(|f| f != from_field);
                }
            }
            None => {}
        }
        match (detail, to) {
            (Some(detail), Format::OpenAiResponses) if from == Format::OpenAi => {
                part.extra_mut().insert("detail".into(), detail);
            }
            (Some(detail), Format::OpenAi) if from == Format::OpenAiResponses => {
                let nested = Value::Object([("detail".to_string(), detail)].into_iter().collect());
                carry_openai_marker(part.extra_mut(), to, "image_url", nested);
            }
            _ => {}
        }
        if custom {
            carry_openai_marker(part.extra_mut(), to, "custom", Value::Bool(true));
            // The native form keeps it too, under the source's mark, for the way back.
            if let (Format::Native, Some(namespace)) = (to, from.namespace()) {
                crate::format::fields::add_marker(part.extra_mut(), namespace, "custom", Value::Bool(true));
            }
        }
        // An assistant's output text goes to the Responses API, without the id of the
        // item it came in, as an easy input message (a string), which holds no annotations.
        if let (Format::OpenAiResponses, Part::Text(text)) = (to, &mut part) {
            if message.role == crate::message::Role::Assistant && !text.extra.contains_key(marker_namespace::RESPONSES)
            {
                for field in ["annotations", "logprobs"] {
                    if text.extra.shift_remove(field).is_some() {
                        fields.push(field.to_string());
                    }
                }
            }
        }
        // To Chat only: a Responses message without the id and status of an output
        // message takes no refusal part (EasyInputMessage), so there it is the text.
        if refusal && to == Format::OpenAi {
            carry_openai_marker(part.extra_mut(), to, "type", Value::from("refusal"));
        }
        // Native keeps it for the way back; out of native, [`hub`] already dropped it for
        // any format but its own.
        let via_native = from == Format::Native || to == Format::Native;
        if let (Part::Text(text), false) = (&mut part, via_native) {
            native_blocks::forget(text);
        }
        if let Some(kind) = native.filter(|_| native_blocks::kind(part.extra_mut()).is_none()) {
            changes.push(Change::ReplacedNativeBlock { index, part: part_index, kind });
        }
        if let Some(file) = openai_file {
            part = file;
        }
        if is_openai(to) {
            part = media::image_file_as_image(part);
        }
        if to == Format::OpenAi && media::audio_as_input_audio(&mut part) {
            fields.push("filename".to_string());
        }
        if is_openai(to) {
            media::name_inline_file(&mut part);
        }
        if let Part::ToolResult(result) = &mut part {
            for inner in &mut result.content {
                // A Responses built-in tool's output item, say.
                let native = native_blocks::kind(inner.extra_mut());
                clean_extra(inner.extra_mut(), (from, to));
                if let (Part::Text(text), false) = (&mut *inner, via_native) {
                    native_blocks::forget(text);
                }
                if let Some(kind) = native.filter(|_| native_blocks::kind(inner.extra_mut()).is_none()) {
                    changes.push(Change::ReplacedNativeBlock { index, part: part_index, kind });
                }
                media::detect_image_type(inner);
                if to == Format::OpenAi {
                    media::audio_as_input_audio(inner);
                }
                if to == Format::LangChain {
                    media::file_as_langchain_block(&mut message.extra, inner);
                }
                if is_openai(to) {
                    media::name_inline_file(inner);
                }
            }
            // OpenAI has no error flag on a tool result.
            if is_openai(to) && std::mem::take(&mut result.is_error) {
                fields.push("is_error".to_string());
            }
            let before = result.content.len();
            result.content.retain(|inner| media::unsupported(to, inner, true).is_none());
            if result.content.len() != before {
                let reason = format!("{} cannot carry this media in a tool result", to.as_str());
                changes.push(Change::DroppedMedia { index, part: part_index, reason });
            }
        }
        if let Some(signature) = part_signature {
            if !part_signatures::put(&mut part, signature, to, to_field) {
                changes.push(Change::DroppedSignature { index, part: part_index });
            }
        }
        if !fields.is_empty() {
            changes.push(Change::DroppedFields { index, part: Some(part_index), fields });
        }
        let keep = match &mut part {
            Part::Reasoning(reasoning) => {
                if foreign(part_owner) && (reasoning.signature.is_some() || reasoning.redacted_data.is_some()) {
                    reasoning.signature = None;
                    reasoning.redacted_data = None;
                    changes.push(Change::DroppedSignature { index, part: part_index });
                }
                // To the AI SDK: where the provider's package reads it back.
                if let (true, Some(provider)) = (is_aisdk(to) && !is_aisdk(from), part_owner) {
                    let (signature, redacted) = (reasoning.signature.take(), reasoning.redacted_data.take());
                    let carried = signatures::carry(
                        &mut reasoning.extra,
                        to_field,
                        provider,
                        signature.clone(),
                        redacted.clone(),
                        item_id.clone(),
                    );
                    if !carried {
                        (reasoning.signature, reasoning.redacted_data) = (signature, redacted);
                    }
                }
                // Whatever is left the AI SDK's writer cannot hold (no provider entry).
                let unheld = is_aisdk(to) && !is_aisdk(from) && !matches!(from, Format::Native);
                if unheld && (reasoning.signature.take().is_some() | reasoning.redacted_data.take().is_some()) {
                    changes.push(Change::DroppedSignature { index, part: part_index });
                }
                let rejected = match to {
                    Format::Anthropic => reasoning.signature.is_none() && reasoning.redacted_data.is_none(),
                    Format::Gemini => reasoning.signature.is_none(),
                    // The official Chat Completions message has no reasoning field (the
                    // `reasoning_content` of DeepSeek-style APIs is kept only where read).
                    Format::OpenAi => true,
                    // A reasoning item is sent back by its Responses id.
                    Format::OpenAiResponses => !reasoning.extra.contains_key("id"),
                    _ => false,
                };
                if rejected {
                    changes.push(Change::DroppedReasoning { index, part: part_index });
                }
                !rejected
            }
            Part::ToolCall(call) => {
                if foreign(call_owner) && call.signature.take().is_some() {
                    changes.push(Change::DroppedSignature { index, part: part_index });
                }
                // Only Gemini signs calls: a target with no place for one (OpenAI,
                // Anthropic, LangChain) loses it, listed (the AI SDK's place is below).
                let holds_call_signature = matches!(to, Format::Gemini | Format::Native) || is_aisdk(to);
                if !holds_call_signature && call.signature.take().is_some() {
                    changes.push(Change::DroppedSignature { index, part: part_index });
                }
                // To the AI SDK: where `@ai-sdk/google` reads it back (only Gemini signs
                // calls, so one of unknown owner is Gemini's too).
                if is_aisdk(to) && !is_aisdk(from) {
                    if let Some(signature) = call.signature.take() {
                        let gemini = matches!(call_owner, Some(Provider::Gemini) | None);
                        let carried = gemini
                            && signatures::carry(
                                &mut call.extra,
                                to_field,
                                Provider::Gemini,
                                Some(signature),
                                None,
                                None,
                            );
                        if !carried {
                            changes.push(Change::DroppedSignature { index, part: part_index });
                        }
                    }
                }
                // A custom call's input is free text, not JSON, in both OpenAI APIs.
                if !(custom && is_openai(to)) {
                    sanitize_call(index, part_index, &mut call.arguments, to, changes);
                }
                true
            }
            // OpenAI assistant turns hold text only (Chat: text and refusal parts; the
            // Responses API: output text): a model-made image or file cannot go there.
            Part::Image(_) | Part::File(_)
                if message.role == crate::message::Role::Assistant
                    && matches!(to, Format::OpenAi | Format::OpenAiResponses) =>
            {
                let reason = format!("{} assistant messages hold text only", to.as_str());
                changes.push(Change::DroppedMedia { index, part: part_index, reason });
                false
            }
            media_part @ (Part::Image(_) | Part::File(_)) if provider_source && !media_part.has_media_source() => {
                let reason = format!("{} cannot carry a file given by another format's file id", to.as_str());
                changes.push(Change::DroppedMedia { index, part: part_index, reason });
                false
            }
            media_part @ (Part::Image(_) | Part::File(_)) => match media::unsupported(to, media_part, false) {
                Some(reason) => {
                    changes.push(Change::DroppedMedia { index, part: part_index, reason: reason.to_string() });
                    false
                }
                None => true,
            },
            _ => true,
        };
        if keep {
            if to == Format::LangChain {
                media::file_as_langchain_block(&mut message.extra, &mut part);
            }
            signature_owners::carry(to, &mut message.extra, &mut part, part_owner);
            message.parts.push(part);
        }
    }
}

/// The `extra` of a media part (image or file).
fn media_source(part: &Part) -> Option<&Extra> {
    match part {
        Part::Image(image) => Some(&image.extra),
        Part::File(file) => Some(&file.extra),
        _ => None,
    }
}

/// Step 3: arguments as JSON (an object where the target requires one).
fn sanitize_call(index: usize, part: usize, arguments: &mut String, to: Format, changes: &mut Vec<Change>) {
    if matches!(to, Format::OpenAi | Format::OpenAiResponses | Format::Native) || arguments.trim().is_empty() {
        return;
    }
    let mut replaced = false;
    let mut changed = false;
    match sanitize_arguments_text(arguments) {
        SanitizeOutcome::Valid => {}
        SanitizeOutcome::Escaped(text) => {
            *arguments = text;
            changed = true;
        }
        SanitizeOutcome::Replaced => {
            // Not JSON: the text itself, as the one field of an object (never lost).
            *arguments = wrapped(Value::String(std::mem::take(arguments)));
            replaced = true;
        }
    }
    let needs_object = matches!(to, Format::Anthropic | Format::Gemini | Format::LangChain);
    if needs_object {
        match serde_json::from_str::<Value>(arguments) {
            Ok(Value::Object(_)) => {}
            Ok(other) => {
                *arguments = wrapped(other);
                replaced = true;
            }
            Err(_) => {
                *arguments = wrapped(Value::String(std::mem::take(arguments)));
                replaced = true;
            }
        }
    }
    if changed || replaced {
        changes.push(Change::SanitizedArguments { index, part, replaced });
    }
}

/// `{"input": value}` as JSON text: arguments a target takes as an object.
fn wrapped(value: Value) -> String {
    let mut object = serde_json::Map::new();
    object.insert("input".to_string(), value);
    Value::Object(object).to_string()
}

/// The first function call of each model message without a signature gets the
/// placeholder Gemini accepts for history it did not produce.
fn add_gemini_signatures(messages: &mut [Message], changes: &mut Vec<Change>) {
    for (index, part) in crate::ast::sign_first_calls(messages) {
        changes.push(Change::AddedSignature { index, part });
    }
}

/// Step 5: ids that do not fit `template` renamed, with the results answering them
/// (results after the call, up to the next call with the same old id); with `unique`, so
/// is an id an earlier message's call already used (see [`Provider::unique_call_ids`]).
fn normalize_ids(messages: &mut [Message], template: &IdTemplate, unique: bool, changes: &mut Vec<Change>) {
    let mut taken: HashSet<String> = messages.iter().flat_map(Message::tool_calls).map(|c| c.id.clone()).collect();
    let mut renamed: HashMap<String, String> = HashMap::default();
    // Ids kept or given so far, with the message that has them.
    let mut used: HashMap<String, usize> = HashMap::default();
    for (index, message) in messages.iter_mut().enumerate() {
        for (part, p) in message.parts.iter_mut().enumerate() {
            match p {
                Part::ToolCall(call) if message.role == Role::Assistant => {
                    let reused = unique && used.get(&call.id).is_some_and(|&at| at != index);
                    if template.validate(&call.id, &call.name).is_ok() && !reused {
                        renamed.remove(&call.id);
                        used.insert(call.id.clone(), index);
                        continue;
                    }
                    let new = fresh_id(template, &call.id, &call.name, &taken);
                    taken.insert(new.clone());
                    used.insert(new.clone(), index);
                    renamed.insert(call.id.clone(), new.clone());
                    let old = std::mem::replace(&mut call.id, new.clone());
                    changes.push(Change::RenamedToolCallId { index, part, old, new });
                }
                Part::ToolResult(result) => {
                    if let Some(new) = renamed.get(&result.call_id) {
                        result.call_id = new.clone();
                    }
                }
                _ => {}
            }
        }
    }
}

/// A new id for the call `old` of `function`: deterministic, not in `taken`.
fn fresh_id(template: &IdTemplate, old: &str, function: &str, taken: &HashSet<String>) -> String {
    let base = seed_from(&[old.as_bytes(), function.as_bytes()]);
    let mut attempt = 0u64;
    loop {
        let id = template.generate(function, base.wrapping_add(attempt));
        if !taken.contains(&id) || !template.has_random() || attempt >= 1024 {
            return id;
        }
        attempt = attempt.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn changes_serialize_flat() {
        let change = Change::Repaired { step: RepairStep::RemovedEmptyMessage { index: 3 } };
        assert_eq!(
            serde_json::to_value(change).unwrap(),
            json!({"change": "repaired", "step": "removedEmptyMessage", "index": 3})
        );
        let change = Change::DroppedSignature { index: 1, part: 0 };
        assert_eq!(serde_json::to_value(change).unwrap(), json!({"change": "droppedSignature", "index": 1, "part": 0}));
    }

    #[test]
    fn every_format_maps_to_a_provider_and_a_namespace() {
        for format in Format::ALL {
            let _ = provider_of(format);
            assert_eq!(format.namespace().is_none(), format == Format::Native);
        }
    }
}
