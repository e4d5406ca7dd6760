//! Tool-call argument sanitizing: models sometimes emit raw control characters inside
//! JSON strings, which strict providers reject.

/// What sanitizing did to an arguments text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SanitizeOutcome {
    /// Already valid JSON; unchanged.
    Valid,
    /// Raw control characters inside strings were escaped; the result is valid JSON.
    Escaped(String),
    /// Still invalid after escaping: replaced by `{}`.
    Replaced,
}

/// Sanitizes one arguments text.
pub fn sanitize_arguments_text(args: &str) -> SanitizeOutcome {
    if is_json(args) {
        return SanitizeOutcome::Valid;
    }
    let escaped = escape_controls_in_strings(args);
    if escaped != args && is_json(&escaped) {
        SanitizeOutcome::Escaped(escaped)
    } else {
        SanitizeOutcome::Replaced
    }
}

fn is_json(s: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(s).is_ok()
}

/// Escapes raw control characters (below U+0020) that stand inside JSON strings.
fn escape_controls_in_strings(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in s.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            } else if (c as u32) < 0x20 {
                match c {
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    _ => out.push_str(&format!("\\u{:04x}", c as u32)),
                }
                continue;
            }
        } else if c == '"' {
            in_string = true;
        }
        out.push(c);
    }
    out
}
