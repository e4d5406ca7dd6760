//! What an image or a file costs a model, estimated from its bytes when it is inline.
//!
//! Providers bill images by area, not by their encoding: Anthropic about `w × h / 750`
//! tokens after scaling the long edge down to 1568 pixels (at most about 1,600), OpenAI
//! 85 plus 170 per 512-pixel tile. The estimate reads the size from the image's header
//! (PNG, GIF, JPEG, WebP) and takes Anthropic's figure, at least 85; an image by URL, or
//! one whose header says nothing, is 85. A PDF costs per page (Anthropic: 1,500 to 3,000
//! tokens a page, its text and its picture), so its pages are counted; a text file is
//! its text; any other file its decoded bytes over 4. Counted as base64 text over 4
//! (before), a 0.7 MB PDF was 240k tokens and was folded away whole as if it were over
//! any budget, and a screenshot was 85 where it costs 1,366.

use crate::format::base64;
use crate::message::{FilePart, ImagePart};

/// The flat figure of an image whose size is unknown (OpenAI's low-detail price).
const FLAT: usize = 85;
/// Anthropic scales an image's long edge down to this many pixels.
const LONG_EDGE: u64 = 1568;
/// ... and bills this many pixels a token.
const PIXELS_PER_TOKEN: u64 = 750;
/// The most a scaled image costs.
const MOST: usize = 1600;
/// Base64 digits of an image read for its header: enough for PNG, GIF and WebP; a JPEG's
/// size may follow its EXIF, read up to [`JPEG_DIGITS`].
const HEAD_DIGITS: usize = 64;
const JPEG_DIGITS: usize = 256 * 1024;
/// Tokens a PDF page costs (Anthropic's lower figure).
const PAGE: usize = 1500;
/// Bytes a page takes where a PDF's pages cannot be counted (compressed page objects).
const BYTES_PER_PAGE: usize = 50 * 1024;

/// Tokens of an image.
pub(crate) fn image_tokens(image: &ImagePart) -> usize {
    let Some(data) = inline(image.data.as_deref(), image.url.as_deref()) else {
        return FLAT;
    };
    head_size(data).map_or(FLAT, |(w, h)| area_tokens(w, h))
}

/// Shortest string of a native block read as media: shorter, its cost as text is small
/// whatever it is.
const MEDIA_DIGITS: usize = 256;

/// Tokens of a provider's native block (an item kept verbatim, as JSON): its text, but an
/// image it holds inline (an `image_generation_call`'s base64 `result`, a screenshot's
/// `data:` URL, a hosted tool's base64 output) as an image, by its area, and other media
/// by `data:` URL as a file. Counted as text, a generated 1024x1024 PNG was 480k tokens.
pub(crate) fn native_block_tokens(block: &serde_json::Value) -> usize {
    let mut media = 0usize;
    if !has_media(block) {
        return crate::measure::estimate_text_tokens(&block.to_string());
    }
    let mut rest = block.clone();
    take_media(&mut rest, &mut media);
    crate::measure::estimate_text_tokens(&rest.to_string()).saturating_add(media)
}

/// Tokens of `text` when it is inline media: a `data:` URL, or base64 whose header is an
/// image's.
fn media_tokens(text: &str) -> Option<usize> {
    if text.len() < MEDIA_DIGITS {
        return None;
    }
    if let Some(url) = crate::format::data_url::split(text) {
        let file = FilePart {
            data: Some(url.data.to_string()),
            media_type: Some(url.media_type.to_string()),
            ..FilePart::default()
        };
        return Some(file_tokens(&file));
    }
    head_size(text).map(|(w, h)| area_tokens(w, h))
}

fn has_media(value: &serde_json::Value) -> bool {
    use serde_json::Value;
    match value {
        Value::String(s) => media_tokens(s).is_some(),
        Value::Array(items) => items.iter().any(has_media),
        Value::Object(map) => map.values().any(has_media),
        _ => false,
    }
}

/// Empties the media strings of `value`, adding their tokens to `tokens`.
fn take_media(value: &mut serde_json::Value, tokens: &mut usize) {
    use serde_json::Value;
    match value {
        Value::String(s) => {
            if let Some(t) = media_tokens(s) {
                *tokens = tokens.saturating_add(t);
                s.clear();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| take_media(v, tokens)),
        Value::Object(map) => map.values_mut().for_each(|v| take_media(v, tokens)),
        _ => {}
    }
}

/// The size an image's base64 `data` gives in its header: its first digits read, more
/// only for a JPEG (every image of a chain is measured on each call).
fn head_size(data: &str) -> Option<(u64, u64)> {
    let head = base64::decode_head(data, HEAD_DIGITS)?;
    match size(&head) {
        None if head.starts_with(&[0xff, 0xd8]) => size(&base64::decode_head(data, JPEG_DIGITS)?),
        found => found,
    }
}

/// Tokens of a file: an image's, a PDF's pages, a text's, or its bytes over 4.
pub(crate) fn file_tokens(file: &FilePart) -> usize {
    if let Some(content) = file.embedded_content() {
        return content_tokens(content);
    }
    let media = file.media_type.as_deref().unwrap_or_default();
    let Some(data) = inline(file.data.as_deref(), file.url.as_deref()) else {
        return FLAT;
    };
    if media.starts_with("image/") {
        return head_size(data).map_or(FLAT, |(w, h)| area_tokens(w, h));
    }
    let Some(bytes) = base64::decode(data) else {
        // Not base64: the text it is.
        return crate::measure::estimate_text_tokens(data);
    };
    if media == "application/pdf" || bytes.starts_with(b"%PDF") {
        return pdf_pages(&bytes).saturating_mul(PAGE);
    }
    match std::str::from_utf8(&bytes) {
        Ok(text) if crate::format::media_type::is_text(media) => crate::measure::estimate_text_tokens(text),
        _ => bytes.len() / 4,
    }
}

/// Tokens of a document given as blocks (an Anthropic `content` source): its text, an
/// image block as an image of unknown size, any other block as its JSON.
fn content_tokens(content: &serde_json::Value) -> usize {
    use crate::measure::estimate_text_tokens;
    let Some(blocks) = content.as_array() else {
        return content.as_str().map_or(0, estimate_text_tokens);
    };
    blocks
        .iter()
        .map(|b| {
            match (b.get("type").and_then(serde_json::Value::as_str), b.get("text").and_then(serde_json::Value::as_str))
            {
                (Some("text"), Some(text)) => estimate_text_tokens(text),
                (Some("image"), _) => FLAT,
                _ => estimate_text_tokens(&b.to_string()),
            }
        })
        .fold(0usize, usize::saturating_add)
}

/// The base64 data of a part: its data, or the payload of a `data:` URL.
fn inline<'a>(data: Option<&'a str>, url: Option<&'a str>) -> Option<&'a str> {
    data.or_else(|| url.and_then(crate::format::data_url::split).map(|split| split.data))
}

/// Anthropic's tokens for a `w × h` image, at least [`FLAT`].
fn area_tokens(w: u64, h: u64) -> usize {
    let long = w.max(h).max(1);
    let (w, h) = if long > LONG_EDGE { (w * LONG_EDGE / long, h * LONG_EDGE / long) } else { (w, h) };
    let tokens = usize::try_from(w.saturating_mul(h) / PIXELS_PER_TOKEN).unwrap_or(MOST);
    tokens.clamp(FLAT, MOST)
}

/// Width and height from an image's header.
fn size(head: &[u8]) -> Option<(u64, u64)> {
    let be16 = |at: usize| Some(u64::from(u16::from_be_bytes([*head.get(at)?, *head.get(at + 1)?])));
    let le16 = |at: usize| Some(u64::from(u16::from_le_bytes([*head.get(at)?, *head.get(at + 1)?])));
    let be32 = |at: usize| {
        let b = head.get(at..at + 4)?;
        Some(u64::from(u32::from_be_bytes([*b.first()?, *b.get(1)?, *b.get(2)?, *b.get(3)?])))
    };
    let le24 = |at: usize| {
        let b = head.get(at..at + 3)?;
        Some(u64::from(*b.first()?) | u64::from(*b.get(1)?) << 8 | u64::from(*b.get(2)?) << 16)
    };
    match crate::format::media_type::image_type(head)? {
        "image/png" => Some((be32(16)?, be32(20)?)),
        "image/gif" => Some((le16(6)?, le16(8)?)),
        "image/webp" => match head.get(12..16)? {
            b"VP8 " => Some((le16(26)? & 0x3fff, le16(28)? & 0x3fff)),
            b"VP8L" => {
                let bits =
                    u64::from(u32::from_le_bytes([*head.get(21)?, *head.get(22)?, *head.get(23)?, *head.get(24)?]));
                Some(((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1))
            }
            b"VP8X" => Some((le24(24)? + 1, le24(27)? + 1)),
            _ => None,
        },
        _ => {
            // JPEG: segments up to the frame header (SOF0-15 but DHT, JPG and DAC), which
            // holds the height and then the width.
            let mut at = 2usize;
            while let (Some(0xff), Some(&marker)) = (head.get(at), head.get(at + 1)) {
                let frame = matches!(marker, 0xc0..=0xcf) && !matches!(marker, 0xc4 | 0xc8 | 0xcc);
                if frame {
                    return Some((be16(at + 7)?, be16(at + 5)?));
                }
                at = at.checked_add(2)?.checked_add(usize::try_from(be16(at + 2)?).ok()?)?;
            }
            None
        }
    }
}

/// A PDF's pages: its page objects (`/Type /Page`), else the largest `/Count` of its page
/// tree, else one a [`BYTES_PER_PAGE`] (page objects compressed in object streams).
fn pdf_pages(bytes: &[u8]) -> usize {
    let mut pages = 0usize;
    let mut count = 0usize;
    let mut at = 0usize;
    while let Some(found) = bytes.get(at..).and_then(|rest| rest.windows(5).position(|w| w == b"/Type")) {
        at = at.saturating_add(found).saturating_add(5);
        let rest = bytes.get(at..).unwrap_or_default();
        let rest = rest.get(rest.iter().take_while(|b| b.is_ascii_whitespace()).count()..).unwrap_or_default();
        if rest.starts_with(b"/Page") && rest.get(5..).is_none_or(|r| r.first() != Some(&b's')) {
            pages = pages.saturating_add(1);
        }
    }
    let mut at = 0usize;
    while let Some(found) = bytes.get(at..).and_then(|rest| rest.windows(6).position(|w| w == b"/Count")) {
        at = at.saturating_add(found).saturating_add(6);
        let digits = bytes.get(at..).unwrap_or_default().iter().skip_while(|b| b.is_ascii_whitespace());
        let n = digits
            .take_while(|b| b.is_ascii_digit())
            .fold(0usize, |n, d| n.saturating_mul(10).saturating_add(usize::from(d - b'0')));
        count = count.max(n);
    }
    if pages > 0 {
        pages
    } else if count > 0 {
        count
    } else {
        (bytes.len() / BYTES_PER_PAGE).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> String {
        let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        bytes.extend(w.to_be_bytes());
        bytes.extend(h.to_be_bytes());
        bytes.extend([8, 6, 0, 0, 0]);
        base64::encode(&bytes)
    }

    #[test]
    fn images_cost_their_area() {
        let image = |data: String| ImagePart { data: Some(data), ..ImagePart::default() };
        // A screenshot: 1280 x 800 / 750.
        assert_eq!(image_tokens(&image(png(1280, 800))), 1365);
        // Tiny, huge (scaled down, capped), unknown.
        assert_eq!(image_tokens(&image(png(1, 1))), FLAT);
        assert_eq!(image_tokens(&image(png(8000, 8000))), MOST);
        assert_eq!(image_tokens(&ImagePart { url: Some("https://x/a.png".into()), ..ImagePart::default() }), FLAT);
        assert_eq!(image_tokens(&image("not base64!".into())), FLAT);
        // GIF, JPEG (after an APP0 segment), WebP VP8X.
        let gif = base64::encode(b"GIF89a\x00\x04\x00\x03\x00\x00");
        assert_eq!(size(&base64::decode(&gif).unwrap_or_default()), Some((1024, 768)));
        let jpeg = [&[0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 17, 8, 3, 0x20, 5, 0][..]].concat();
        assert_eq!(size(&jpeg), Some((1280, 800)));
        // A JPEG whose frame header lies past the first digits read (after its EXIF).
        let exif =
            [&[0xff, 0xd8, 0xff, 0xe1, 0x01, 0x02][..], &[0u8; 256][..], &[0xff, 0xc0, 0, 17, 8, 3, 0x20, 5, 0][..]];
        assert_eq!(head_size(&base64::encode(&exif.concat())), Some((1280, 800)));
        let mut webp = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0".to_vec();
        webp.extend([0xff, 0x04, 0x00, 0x1f, 0x03, 0x00]);
        assert_eq!(size(&webp), Some((1280, 800)));
    }

    #[test]
    fn files_cost_their_pages_or_text() {
        let file = |media: &str, bytes: &[u8]| FilePart {
            data: Some(base64::encode(bytes)),
            media_type: Some(media.into()),
            ..FilePart::default()
        };
        let pdf = b"%PDF-1.4\n1 0 obj << /Type /Pages /Count 2 >>\n2 0 obj << /Type /Page >>\n3 0 obj <</Type/Page>>";
        assert_eq!(file_tokens(&file("application/pdf", pdf)), 2 * PAGE);
        let compressed = [&b"%PDF-1.7\n<< /Type /Pages /Count 12 >>"[..], &[0u8; 4096][..]].concat();
        assert_eq!(file_tokens(&file("application/pdf", &compressed)), 12 * PAGE);
        let opaque = [&b"%PDF-1.7\n"[..], &vec![0x41u8; 700 * 1024][..]].concat();
        assert_eq!(file_tokens(&file("application/pdf", &opaque)), 14 * PAGE);
        assert_eq!(
            file_tokens(&file("text/plain", b"hello world")),
            crate::measure::estimate_text_tokens("hello world")
        );
        assert_eq!(file_tokens(&file("application/zip", &[0u8; 400])), 100);
    }
}
