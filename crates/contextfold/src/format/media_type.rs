//! Facts about media types that several formats and the measures share.

/// The type without its parameters (`text/csv; charset=utf-8` -> `text/csv`).
fn essence(media_type: &str) -> &str {
    media_type.split(';').next().unwrap_or_default().trim()
}

/// Whether data of this type is text: `text/*`, JSON, XML, YAML (what a provider taking
/// text documents can be given as text).
pub(crate) fn is_text(media_type: &str) -> bool {
    let essence = essence(media_type);
    essence.starts_with("text/") || essence.ends_with("json") || essence.ends_with("xml") || essence.ends_with("yaml")
}

/// The media type of an image from its header: PNG, GIF, JPEG or WebP (what the measures
/// read sizes of, and what `convert` gives inline images read without a type).
pub(crate) fn image_type(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if head.starts_with(b"GIF8") {
        Some("image/gif")
    } else if head.starts_with(b"RIFF") && head.get(8..12) == Some(b"WEBP") {
        Some("image/webp")
    } else if head.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("image/jpeg")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_types_from_headers() {
        assert_eq!(image_type(b"\x89PNG\r\n\x1a\n\0\0"), Some("image/png"));
        assert_eq!(image_type(b"GIF89a"), Some("image/gif"));
        assert_eq!(image_type(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(image_type(&[0xff, 0xd8, 0xff, 0xe0]), Some("image/jpeg"));
        for other in [&b"RIFF\0\0\0\0WAVE"[..], b"%PDF-1.4", b"", b"\x89PN"] {
            assert_eq!(image_type(other), None);
        }
    }

    #[test]
    fn text_types() {
        for text in [
            "text/plain",
            "text/csv; charset=utf-8",
            "application/json",
            "application/ld+json",
            "image/svg+xml",
            "application/x-yaml",
        ] {
            assert!(is_text(text), "{text}");
        }
        for binary in ["application/pdf", "audio/wav", "image/png", "application/octet-stream"] {
            assert!(!is_text(binary), "{binary}");
        }
    }
}
