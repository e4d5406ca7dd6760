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

#[cfg(test)]
mod tests {
    use super::*;

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
