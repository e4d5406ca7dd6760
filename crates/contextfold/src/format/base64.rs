//! Standard base64 (RFC 4648, padded), for file data a format holds as text where others
//! hold base64: Anthropic's plain-text document source.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The base64 text of `bytes`.
pub(crate) fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3).saturating_mul(4));
    let digit = |v: u32| char::from(ALPHABET.get((v & 63) as usize).copied().unwrap_or(b'A'));
    for chunk in bytes.chunks(3) {
        let word = chunk.iter().fold(0u32, |w, &b| (w << 8) | u32::from(b)) << (8 * (3 - chunk.len() as u32));
        out.push(digit(word >> 18));
        out.push(digit(word >> 12));
        out.push(if chunk.len() > 1 { digit(word >> 6) } else { '=' });
        out.push(if chunk.len() > 2 { digit(word) } else { '=' });
    }
    out
}

/// The value of a base64 digit (`INVALID` for a byte that is none).
const fn value(b: u8) -> u8 {
    match b {
        b'A'..=b'Z' => b - b'A',
        b'a'..=b'z' => b - b'a' + 26,
        b'0'..=b'9' => b - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => INVALID,
    }
}
const INVALID: u8 = 255;

/// The bytes of base64 `text` (padded or not); `None` when it is not base64.
pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let (out, word, bits) = decode_digits(text.as_bytes())?;
    // Leftover bits must be padding zeros, and one base64 digit alone is no byte.
    (bits < 6 && word & ((1 << bits) - 1) == 0).then_some(out)
}

/// The bytes the first `digits` base64 digits of `text` stand for (a file's head, to
/// read its header without decoding it whole); `None` when they are not base64.
pub(crate) fn decode_head(text: &str, digits: usize) -> Option<Vec<u8>> {
    let head = text.as_bytes().get(..digits.min(text.len()))?;
    let head = head.iter().position(|&b| b == b'=').map_or(head, |end| head.get(..end).unwrap_or_default());
    decode_digits(head).map(|(out, _, _)| out)
}

/// The bytes of `digits`, and the bits left over.
fn decode_digits(digits: &[u8]) -> Option<(Vec<u8>, u32, u32)> {
    let mut out = Vec::with_capacity(digits.len() / 4 * 3 + 2);
    let (mut word, mut bits) = (0u32, 0u32);
    for &b in digits {
        let v = value(b);
        if v == INVALID {
            return None;
        }
        word = ((word << 6) | u32::from(v)) & 0x00ff_ffff;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((word >> bits) & 0xff) as u8);
        }
    }
    Some((out, word, bits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_what_is_not_base64() {
        for text in ["", "f", "fo", "foo", "foob", "fooba", "foobar", "hello world", "é東🙂"] {
            let encoded = encode(text.as_bytes());
            assert_eq!(decode(&encoded).as_deref(), Some(text.as_bytes()), "{text}");
        }
        assert_eq!(encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(encode(b"fo"), "Zm8=");
        assert_eq!(decode("Zm8"), Some(b"fo".to_vec()));
        assert_eq!(decode("hello world"), None);
        assert_eq!(decode("Zm9=x"), None);
        assert_eq!(decode_head("Zm9vYmFy", 4).as_deref(), Some(&b"foo"[..]));
        assert_eq!(decode_head("Zm8=", 100).as_deref(), Some(&b"fo"[..]));
    }
}
