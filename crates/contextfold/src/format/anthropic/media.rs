//! Which inline media Anthropic takes, and as what: the base64 sources of the Messages
//! API are `Base64ImageSource` (JPEG, PNG, GIF, WebP) and `Base64PDFSource` (PDF only);
//! text goes as a `PlainTextSource` (`media_type: "text/plain"`, the text itself).

use crate::format::media_type;

/// The media types of a base64 image source.
const IMAGE_TYPES: &[&str] = &["image/jpeg", "image/png", "image/gif", "image/webp"];

/// The media type of a base64 document source.
const PDF: &str = "application/pdf";

/// The media type of a plain-text source.
pub(super) const PLAIN_TEXT: &str = "text/plain";

/// Whether inline data of this type goes as a plain-text source.
pub(super) fn is_text(media_type: &str) -> bool {
    media_type::is_text(media_type) && !media_type.starts_with("image/")
}

/// The text of base64 data, when it is UTF-8 (what a plain-text source holds).
pub(super) fn text_of(data: &str) -> Option<String> {
    String::from_utf8(crate::format::base64::decode(data)?).ok()
}

/// Why Anthropic cannot take inline `data` of `media_type`, if it cannot.
pub(crate) fn rejects_inline(media_type: Option<&str>, data: &str) -> Option<&'static str> {
    match media_type {
        None => Some("Anthropic takes inline media with a media type only"),
        Some(m) if m.starts_with("image/") && !IMAGE_TYPES.contains(&m) => {
            Some("Anthropic takes images as JPEG, PNG, GIF or WebP only")
        }
        Some(m) if IMAGE_TYPES.contains(&m) || m == PDF => None,
        Some(m) if is_text(m) => match text_of(data) {
            Some(_) => None,
            None => Some("Anthropic takes text documents as UTF-8 text only"),
        },
        Some(_) => Some("Anthropic takes inline documents as PDF or text only"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_anthropic_takes_inline() {
        let text = crate::format::base64::encode(b"a,b\n1,2\n");
        for ok in ["image/png", "application/pdf", "text/csv", "application/json", "text/plain"] {
            assert_eq!(rejects_inline(Some(ok), &text), None, "{ok}");
        }
        let invalid_utf8 = crate::format::base64::encode(&[0xff, 0xfe, 0x00]);
        assert!(rejects_inline(Some("text/csv"), &invalid_utf8).is_some());
        for rejected in ["image/heic", "audio/wav", "audio/mpeg", "application/octet-stream"] {
            assert!(rejects_inline(Some(rejected), &text).is_some(), "{rejected}");
        }
        assert!(rejects_inline(None, &text).is_some());
    }
}
