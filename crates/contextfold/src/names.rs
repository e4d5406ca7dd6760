//! Checking the keys of a settings object against the names a reader knows. A misspelt
//! option (`maxToken`) silently ignored is a budget silently ignored, so every reader of
//! options rejects unknown keys and names the nearest known one.

/// A key no reader knows, and the known name it most likely meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKey {
    pub key: String,
    pub suggestion: Option<String>,
}

impl UnknownKey {
    /// `unknown option "maxToken"; did you mean maxTokens?`, or the known names when none
    /// is near.
    pub fn message(&self, known: &[&str]) -> String {
        match &self.suggestion {
            Some(name) => format!("unknown option {:?}; did you mean {name}?", self.key),
            None => format!("unknown option {:?}; known options: {}", self.key, public(known).join(", ")),
        }
    }
}

/// Names starting with `__` are internal: accepted, never suggested nor listed.
fn public<'a>(known: &[&'a str]) -> Vec<&'a str> {
    known.iter().copied().filter(|k| !k.starts_with("__")).collect()
}

/// The first of `keys` that `known` does not hold. `__proto__` is never an option: it is
/// how `JSON.parse` output may spell the prototype slot as an own key.
pub fn unknown_key<'k>(keys: impl IntoIterator<Item = &'k str>, known: &[&str]) -> Option<UnknownKey> {
    keys.into_iter()
        .find(|key| *key != "__proto__" && !known.contains(key))
        .map(|key| UnknownKey { key: key.to_string(), suggestion: nearest(key, known).map(str::to_string) })
}

/// The public known name closest to `name` (case-insensitive edit distance, adjacent
/// swaps counting one), if close enough to be a slip: at most a third of its length,
/// and never more than 3 edits.
pub fn nearest<'n>(name: &str, known: &[&'n str]) -> Option<&'n str> {
    let wanted = name.to_lowercase();
    let limit = (wanted.chars().count() / 3).clamp(1, 3);
    known
        .iter()
        .filter(|k| !k.starts_with("__"))
        .map(|k| (distance(&wanted, &k.to_lowercase()), *k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps
/// of adjacent characters, each one edit.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // rows[i][j]: distance of a[..i] and b[..j]; three rows suffice.
    let width = b.len() + 1;
    let mut before: Vec<usize> = vec![0; width];
    let mut previous: Vec<usize> = (0..width).collect();
    let mut current: Vec<usize> = vec![0; width];
    for (i, ca) in a.iter().enumerate() {
        current.clear();
        current.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            let deleted = previous.get(j + 1).copied().unwrap_or(usize::MAX).saturating_add(1);
            let inserted = current.get(j).copied().unwrap_or(usize::MAX).saturating_add(1);
            let replaced = previous.get(j).copied().unwrap_or(usize::MAX).saturating_add(cost);
            let mut best = deleted.min(inserted).min(replaced);
            let swapped = i > 0 && j > 0 && a.get(i - 1) == Some(cb) && b.get(j - 1) == Some(ca);
            if swapped {
                best = best.min(before.get(j - 1).copied().unwrap_or(usize::MAX).saturating_add(1));
            }
            current.push(best);
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: &[&str] = &["format", "strategy", "maxTokens", "maxBytes", "timeoutMs", "__reuse"];

    #[test]
    fn distances() {
        assert_eq!(distance("maxtoken", "maxtokens"), 1);
        assert_eq!(distance("fromat", "format"), 1);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn suggests_the_nearest_known_name() {
        let found = unknown_key(["format", "maxToken"], KNOWN).unwrap();
        assert_eq!(found, UnknownKey { key: "maxToken".into(), suggestion: Some("maxTokens".into()) });
        assert_eq!(found.message(KNOWN), "unknown option \"maxToken\"; did you mean maxTokens?");
        assert_eq!(nearest("TIMEOUTMS", KNOWN), Some("timeoutMs"));
        assert_eq!(nearest("fromat", KNOWN), Some("format"));
        assert_eq!(nearest("reuse", KNOWN), None, "internal names are never suggested");
    }

    #[test]
    fn far_names_list_the_known_ones_and_known_keys_pass() {
        let found = unknown_key(["temperature"], KNOWN).unwrap();
        assert_eq!(found.suggestion, None);
        assert_eq!(
            found.message(KNOWN),
            "unknown option \"temperature\"; known options: format, strategy, maxTokens, maxBytes, timeoutMs"
        );
        assert_eq!(unknown_key(["format", "__reuse", "__proto__"], KNOWN), None);
    }
}
