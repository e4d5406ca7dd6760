//! `data:` URLs (how OpenAI inlines images and files) split into media type and base64
//! payload, the neutral form Anthropic also uses. Only the exact form
//! `data:<media type>;base64,<payload>` is split, so a writer can rebuild the very same
//! text; any other URL is kept whole.

pub(crate) struct DataUrl<'a> {
    pub(crate) media_type: &'a str,
    pub(crate) data: &'a str,
}

pub(crate) fn split(url: &str) -> Option<DataUrl<'_>> {
    let rest = url.strip_prefix("data:")?;
    let (media_type, data) = rest.split_once(";base64,")?;
    let plain = !media_type.is_empty() && !media_type.contains([';', ',']);
    plain.then_some(DataUrl { media_type, data })
}

/// Media type and payload size in bytes of any `data:` URL (parameters allowed, base64
/// or not), for a short placeholder where the URL itself would be too long to show;
/// `None` when `url` is not a `data:` URL.
pub(crate) fn describe(url: &str) -> Option<(&str, usize)> {
    let rest = url.get(..5).filter(|s| s.eq_ignore_ascii_case("data:")).and_then(|_| url.get(5..))?;
    let (meta, payload) = rest.split_once(',').unwrap_or((rest, ""));
    let mut params = meta.split(';');
    let media_type = params.next().unwrap_or("").trim();
    let base64 = params.any(|p| p.trim().eq_ignore_ascii_case("base64"));
    let bytes = if base64 {
        let digits = payload.bytes().filter(|b| !b.is_ascii_whitespace() && *b != b'=').count();
        digits.saturating_mul(3) / 4
    } else {
        payload.len()
    };
    Some((if media_type.is_empty() { "text/plain" } else { media_type }, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_every_data_url() {
        assert_eq!(describe("data:image/png;name=x.png;base64,AAAA"), Some(("image/png", 3)));
        assert_eq!(describe("DATA:image/jpeg;base64,AAAAAA=="), Some(("image/jpeg", 4)));
        assert_eq!(describe("data:,hello"), Some(("text/plain", 5)));
        assert_eq!(describe("data:text/plain;charset=utf-8,hi"), Some(("text/plain", 2)));
        assert_eq!(describe("https://example.com/a.png"), None);
    }

    #[test]
    fn splits_only_the_exact_base64_form() {
        let cases = [
            ("data:image/png;base64,iVBOR", Some(("image/png", "iVBOR"))),
            ("data:application/pdf;base64,", Some(("application/pdf", ""))),
            ("data:image/png;name=a.png;base64,xx", None),
            ("data:;base64,xx", None),
            ("data:text/plain,hello", None),
            ("https://example.com/a.png", None),
        ];
        for (url, expected) in cases {
            let got = split(url).map(|d| (d.media_type, d.data));
            assert_eq!(got, expected, "{url}");
        }
    }
}
