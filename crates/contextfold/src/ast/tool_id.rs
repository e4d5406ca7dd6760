//! Tool-call ID templates: literal text plus `{r:N:charset}` (N random characters) and
//! `{f}` (the function name). OpenAI and Gemini use `call_{r:24:x}`, Anthropic
//! `toolu_{r:24:b}`.
//!
//! Generation is deterministic from a seed (so compacting the same chain twice gives the
//! same output); validation reports a length mismatch first, then the first position
//! that does not fit and what was expected there.

use serde::Serialize;

/// Template used when none is given.
pub const DEFAULT_TEMPLATE: &str = "call_{r:24:x}";
/// Longest random run a template may ask for (guards against absurd allocations).
const MAX_RANDOM_LEN: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Charset {
    /// `d` / `digit`: 0-9
    Digit,
    /// `l` / `lower`: a-z
    Lower,
    /// `u` / `upper`: A-Z
    Upper,
    /// `a` / `alpha`: a-z A-Z
    Alpha,
    /// `x` / `alnum`: 0-9 a-z A-Z
    Alnum,
    /// `h` / `hex`: 0-9 a-f
    Hex,
    /// `H` / `HEX`: 0-9 A-F
    HexUpper,
    /// `b` / `base62`: the same set as alnum
    Base62,
}

const DIGITS: &str = "0123456789";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ALPHA: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ALNUM: &str = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const HEX: &str = "0123456789abcdef";
const HEX_UPPER: &str = "0123456789ABCDEF";

impl Charset {
    pub fn from_name(name: &str) -> Option<Charset> {
        Some(match name {
            "d" | "digit" => Charset::Digit,
            "l" | "lower" => Charset::Lower,
            "u" | "upper" => Charset::Upper,
            "a" | "alpha" => Charset::Alpha,
            "x" | "alnum" => Charset::Alnum,
            "h" | "hex" => Charset::Hex,
            "H" | "HEX" => Charset::HexUpper,
            "b" | "base62" => Charset::Base62,
            _ => return None,
        })
    }

    pub fn chars(self) -> &'static str {
        match self {
            Charset::Digit => DIGITS,
            Charset::Lower => LOWER,
            Charset::Upper => UPPER,
            Charset::Alpha => ALPHA,
            Charset::Alnum | Charset::Base62 => ALNUM,
            Charset::Hex => HEX,
            Charset::HexUpper => HEX_UPPER,
        }
    }

    pub fn contains(self, c: char) -> bool {
        self.chars().contains(c)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Literal(String),
    Random { len: usize, charset: Charset },
    FunctionName,
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdTemplate {
    source: String,
    segments: Vec<Segment>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("tool-call id template {template:?}: unclosed '{{' at byte {at}")]
    Unclosed { template: String, at: usize },
    #[error(
        "tool-call id template {template:?}: unknown placeholder {{{placeholder}}} (use {{r:N:charset}} or {{f}})"
    )]
    UnknownPlaceholder { template: String, placeholder: String },
    #[error("tool-call id template {template:?}: bad length in {{{placeholder}}} (1 to 256)")]
    BadLength { template: String, placeholder: String },
    #[error("tool-call id template {template:?}: unknown charset {charset:?} (d l u a x h H b or digit lower upper alpha alnum hex HEX base62)")]
    UnknownCharset { template: String, charset: String },
    #[error("tool-call id template is empty")]
    Empty,
}

/// What was expected at a position where an id does not fit its template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "camelCase")]
pub enum Expected {
    Literal(char),
    Charset(Charset),
}

/// Why an id does not fit a template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "mismatch", rename_all = "camelCase")]
pub enum IdMismatch {
    /// Lengths differ (in characters).
    Length { expected: usize, actual: usize },
    /// The first character that does not fit.
    Char { position: usize, found: char, expected: Expected },
}

impl IdTemplate {
    pub fn parse(template: &str) -> Result<IdTemplate, TemplateError> {
        if template.is_empty() {
            return Err(TemplateError::Empty);
        }
        let mut segments = Vec::new();
        let mut literal = String::new();
        let mut rest = template;
        let mut offset = 0usize;
        while let Some(open) = rest.find('{') {
            literal.push_str(rest.get(..open).unwrap_or_default());
            let after = rest.get(open.saturating_add(1)..).unwrap_or_default();
            let Some(close) = after.find('}') else {
                return Err(TemplateError::Unclosed {
                    template: template.to_string(),
                    at: offset.saturating_add(open),
                });
            };
            let placeholder = after.get(..close).unwrap_or_default();
            if !literal.is_empty() {
                segments.push(Segment::Literal(std::mem::take(&mut literal)));
            }
            segments.push(parse_placeholder(template, placeholder)?);
            let consumed = open.saturating_add(close).saturating_add(2);
            offset = offset.saturating_add(consumed);
            rest = rest.get(consumed..).unwrap_or_default();
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            segments.push(Segment::Literal(literal));
        }
        Ok(IdTemplate { source: template.to_string(), segments })
    }

    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// True when the template has a random part (ids can be made unique by reseeding).
    pub fn has_random(&self) -> bool {
        self.segments.iter().any(|s| matches!(s, Segment::Random { .. }))
    }

    /// A new id for a call of `function`, determined by `seed`.
    pub fn generate(&self, function: &str, seed: u64) -> String {
        let mut rng = SplitMix64(seed);
        let mut out = String::new();
        for seg in &self.segments {
            match seg {
                Segment::Literal(s) => out.push_str(s),
                Segment::FunctionName => out.push_str(function),
                Segment::Random { len, charset } => {
                    let chars = charset.chars().as_bytes();
                    for _ in 0..*len {
                        let i = (rng.next() % chars.len().max(1) as u64) as usize;
                        out.push(chars.get(i).copied().map_or('0', char::from));
                    }
                }
            }
        }
        out
    }

    /// Checks `id` (of a call of `function`) against the template.
    pub fn validate(&self, id: &str, function: &str) -> Result<(), IdMismatch> {
        let expected: Vec<Expected> = self
            .segments
            .iter()
            .flat_map(|seg| -> Vec<Expected> {
                match seg {
                    Segment::Literal(s) => s.chars().map(Expected::Literal).collect(),
                    Segment::FunctionName => function.chars().map(Expected::Literal).collect(),
                    Segment::Random { len, charset } => vec![Expected::Charset(*charset); *len],
                }
            })
            .collect();
        let actual = id.chars().count();
        if actual != expected.len() {
            return Err(IdMismatch::Length { expected: expected.len(), actual });
        }
        for (position, (c, exp)) in id.chars().zip(expected).enumerate() {
            let fits = match exp {
                Expected::Literal(l) => l == c,
                Expected::Charset(cs) => cs.contains(c),
            };
            if !fits {
                return Err(IdMismatch::Char { position, found: c, expected: exp });
            }
        }
        Ok(())
    }
}

fn parse_placeholder(template: &str, placeholder: &str) -> Result<Segment, TemplateError> {
    if placeholder == "f" {
        return Ok(Segment::FunctionName);
    }
    let mut fields = placeholder.split(':');
    let (Some("r"), Some(len), Some(charset), None) = (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err(TemplateError::UnknownPlaceholder {
            template: template.to_string(),
            placeholder: placeholder.to_string(),
        });
    };
    let len = match len.parse::<usize>() {
        Ok(n) if (1..=MAX_RANDOM_LEN).contains(&n) => n,
        _ => {
            return Err(TemplateError::BadLength {
                template: template.to_string(),
                placeholder: placeholder.to_string(),
            })
        }
    };
    let charset = Charset::from_name(charset).ok_or_else(|| TemplateError::UnknownCharset {
        template: template.to_string(),
        charset: charset.to_string(),
    })?;
    Ok(Segment::Random { len, charset })
}

/// A small deterministic generator (SplitMix64); ids need spread, not secrecy.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// FNV-1a over bytes: a stable seed from content.
pub fn seed_from(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in *p {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01B3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}
