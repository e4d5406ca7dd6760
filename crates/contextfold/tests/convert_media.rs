#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
//! `convert`: media as each target takes them, or dropped and listed in `changes`.

use contextfold::convert::{convert, provider_of, Change};
use contextfold::format::Format;
use contextfold::repair::validate;
use serde_json::{json, Value};

/// A Gemini user turn: a text, then inline data of `mime_type`.
fn gemini_inline(mime_type: &str, data: &str) -> Value {
    json!({"contents": [{"role": "user", "parts": [{"text": "look"}, {"inlineData": {"mimeType": mime_type, "data": data}}]}]})
}

/// Converts and checks the result is valid for the target.
fn converted(wire: &Value, from: Format, to: Format) -> (Value, Vec<Change>) {
    let out = convert(wire, Some(from), to).unwrap();
    assert!(validate(&out.messages, provider_of(to)).is_empty(), "{from:?} -> {to:?}");
    (out.value, out.changes)
}

fn dropped_media(changes: &[Change], at: usize) -> bool {
    changes.iter().any(|c| matches!(c, Change::DroppedMedia { index, .. } if *index == at))
}

#[test]
fn anthropic_gets_text_documents_as_plain_text_and_drops_media_it_has_no_source_for() {
    let csv = gemini_inline("text/csv", "YSxiCjEsMgo=");
    let (value, changes) = converted(&csv, Format::Gemini, Format::Anthropic);
    let block = &value[0]["content"][1];
    assert_eq!(block["type"], "document");
    assert_eq!(block["source"], json!({"type": "text", "media_type": "text/plain", "data": "a,b\n1,2\n"}));
    assert!(changes.is_empty(), "{changes:?}");
    let (value, _) = converted(&gemini_inline("application/json", "eyJhIjoxfQ=="), Format::Gemini, Format::Anthropic);
    assert_eq!(value[0]["content"][1]["source"]["data"], "{\"a\":1}");

    // Not UTF-8 (base64 of ff fe 00), audio, an image type Anthropic does not read: dropped, and listed.
    for (mime_type, data) in [("text/csv", "//4A"), ("audio/mpeg", "SUQzLi4u"), ("image/heic", "aGVpYw==")] {
        let (value, changes) = converted(&gemini_inline(mime_type, data), Format::Gemini, Format::Anthropic);
        assert_eq!(value[0]["content"], "look", "{mime_type}");
        assert!(dropped_media(&changes, 0), "{mime_type}: {changes:?}");
    }
    let audio = json!([{"role": "user", "content": [
        {"type": "text", "text": "transcribe"},
        {"type": "input_audio", "input_audio": {"data": "UklGRi4uLi5XQVZF", "format": "wav"}}]}]);
    let (value, changes) = converted(&audio, Format::OpenAi, Format::Anthropic);
    assert_eq!(value[0]["content"], "transcribe");
    assert!(dropped_media(&changes, 0), "{changes:?}");

    // What Anthropic takes goes through unchanged.
    for mime_type in ["application/pdf", "image/png"] {
        let (value, changes) = converted(&gemini_inline(mime_type, "JVBERi0="), Format::Gemini, Format::Anthropic);
        assert_eq!(value[0]["content"][1]["source"]["media_type"], mime_type);
        assert!(changes.is_empty(), "{mime_type}: {changes:?}");
    }
}

#[test]
fn openai_chat_gets_wav_and_mp3_as_input_audio_and_drops_other_audio() {
    let wav = "UklGRi4uLi5XQVZF";
    let chat = json!([{"role": "user", "content": [
        {"type": "text", "text": "transcribe"},
        {"type": "input_audio", "input_audio": {"data": wav, "format": "wav"}}]}]);
    // There and back keeps Chat's own part.
    let (there, _) = converted(&chat, Format::OpenAi, Format::Gemini);
    let (back, changes) = converted(&there, Format::Gemini, Format::OpenAi);
    assert_eq!(back, chat, "{changes:?}");
    let (value, changes) = converted(&gemini_inline("audio/mpeg", wav), Format::Gemini, Format::OpenAi);
    assert_eq!(value[0]["content"][1], json!({"type": "input_audio", "input_audio": {"data": wav, "format": "mp3"}}));
    assert!(changes.is_empty(), "{changes:?}");
    // `input_audio` has no name: it goes, and is listed.
    let aisdk = json!([{"role": "user", "content": [
        {"type": "text", "text": "x"}, {"type": "file", "data": wav, "mediaType": "audio/wav", "filename": "a.wav"}]}]);
    let (value, changes) = converted(&aisdk, Format::AiSdk, Format::OpenAi);
    assert_eq!(value[0]["content"][1]["input_audio"]["format"], "wav");
    assert!(
        changes
            .iter()
            .any(|c| matches!(c, Change::DroppedFields { index: 0, part: Some(1), fields } if fields == &["filename"])),
        "{changes:?}"
    );
    // Other audio Chat does not take, not even as a file.
    let (value, changes) = converted(&gemini_inline("audio/ogg", wav), Format::Gemini, Format::OpenAi);
    assert_eq!(value[0]["content"], "look");
    assert!(dropped_media(&changes, 0), "{changes:?}");
}

#[test]
fn openai_gets_inline_files_with_a_filename() {
    let pdf = "JVBERi0xLjQK";
    let document = |title: Option<&str>| {
        let mut block =
            json!({"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": pdf}});
        if let Some(title) = title {
            block["title"] = json!(title);
        }
        json!([{"role": "user", "content": [block, {"type": "text", "text": "Summarize this report."}]}])
    };
    for (title, filename) in [(Some("report.pdf"), "report.pdf"), (None, "document.pdf")] {
        let (chat, changes) = converted(&document(title), Format::Anthropic, Format::OpenAi);
        assert_eq!(chat[0]["content"][0]["file"]["filename"], filename, "{changes:?}");
        assert!(changes.is_empty(), "{changes:?}");
        let (responses, _) = converted(&document(title), Format::Anthropic, Format::OpenAiResponses);
        assert_eq!(responses[0]["content"][0]["filename"], filename);
    }
    // And back: the name is the title again.
    let (chat, _) = converted(&document(Some("report.pdf")), Format::Anthropic, Format::OpenAi);
    let (back, _) = converted(&chat, Format::OpenAi, Format::Anthropic);
    assert_eq!(back, document(Some("report.pdf")));
}

#[test]
fn a_document_given_as_blocks_goes_over_as_its_text() {
    let chain = json!([
        {"role": "user", "content": [
            {"type": "document", "title": "contract", "source": {"type": "content", "content": [
                {"type": "text", "text": "CLAUSE 7: notice period is 90 days."}]}},
            {"type": "text", "text": "What is the notice period?"}]},
        {"role": "assistant", "content": "90 days."}]);
    let data = "Q0xBVVNFIDc6IG5vdGljZSBwZXJpb2QgaXMgOTAgZGF5cy4=";
    for to in [Format::OpenAi, Format::OpenAiResponses, Format::Gemini, Format::AiSdk, Format::AiSdkUi] {
        let (value, changes) = converted(&chain, Format::Anthropic, to);
        assert!(value.to_string().contains(data), "{to:?}: {value}");
        assert!(!dropped_media(&changes, 0), "{to:?}: {changes:?}");
    }
    // Through native, back to Anthropic as blocks, to another format as text.
    let native = convert(&chain, Some(Format::Anthropic), Format::Native).unwrap();
    let (back, _) = converted(&native.value, Format::Native, Format::Anthropic);
    assert_eq!(back, chain);
    let (gemini, _) = converted(&native.value, Format::Native, Format::Gemini);
    assert_eq!(
        gemini[0]["parts"][0]["inlineData"],
        json!({"mimeType": "text/plain", "data": data, "displayName": "contract"})
    );
}

#[test]
fn a_file_by_a_providers_id_goes_to_another_provider_listed() {
    let anthropic = json!([
        {"role": "user", "content": [{"type": "text", "text": "compare"},
            {"type": "document", "source": {"type": "file", "file_id": "file_011PDF"}}]},
        {"role": "assistant", "content": "ok"}]);
    let openai = json!([
        {"role": "user", "content": [{"type": "text", "text": "summarize"}, {"type": "file", "file": {"file_id": "file-abc"}}]},
        {"role": "assistant", "content": "ok"}]);
    for (wire, from, to) in [
        (&anthropic, Format::Anthropic, Format::Gemini),
        (&anthropic, Format::Anthropic, Format::OpenAi),
        (&openai, Format::OpenAi, Format::Anthropic),
    ] {
        let (_, changes) = converted(wire, from, to);
        let listed = changes
            .iter()
            .any(|c| matches!(c, Change::DroppedMedia { index: 0, part: 1, reason } if reason.contains("file id")));
        assert!(listed, "{from:?} -> {to:?}: {changes:?}");
        // Through native as well: kept there, dropped listed after.
        let native = convert(wire, Some(from), Format::Native).unwrap();
        assert!(!dropped_media(&native.changes, 0), "{from:?} -> native: {:?}", native.changes);
        let (_, changes) = converted(&native.value, Format::Native, to);
        assert!(dropped_media(&changes, 0), "{from:?} -> native -> {to:?}: {changes:?}");
    }
}

/// A file OpenAI stores goes between its two APIs by id: Chat's `file.file_id` is the
/// Responses API's `input_file.file_id` (it was dropped as media the target cannot carry
/// one way, and written as the text "[input_file]" the other).
#[test]
fn a_file_by_openai_s_id_goes_between_chat_and_responses() {
    let chat = json!([
        {"role": "user", "content": [{"type": "text", "text": "summarize"},
            {"type": "file", "file": {"file_id": "file-abc", "filename": "report.pdf"}}]},
        {"role": "assistant", "content": "ok"}]);
    let (responses, changes) = converted(&chat, Format::OpenAi, Format::OpenAiResponses);
    assert!(!dropped_media(&changes, 0), "{changes:?}");
    assert_eq!(
        responses[0]["content"][1],
        json!({"type": "input_file", "file_id": "file-abc", "filename": "report.pdf"}),
        "{responses}"
    );
    let (back, changes) = converted(&responses, Format::OpenAiResponses, Format::OpenAi);
    assert!(
        changes.iter().all(|c| !matches!(c, Change::ReplacedNativeBlock { .. } | Change::DroppedMedia { .. })),
        "{changes:?}"
    );
    assert_eq!(back[0]["content"][1], chat[0]["content"][1], "{back}");
}
