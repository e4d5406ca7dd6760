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

#[cfg(test)]
mod tests {
    use super::*;

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
