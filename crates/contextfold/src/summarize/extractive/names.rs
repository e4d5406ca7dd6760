//! Which of a file's names a summary shows first: what the edits defined, the lines small
//! edits added, then what the assistant named, then calls into the session's own modules,
//! then the rest; calls into modules the session never touched (a standard library's
//! `Enum.map`, `Path.join`) and constants come last; a name another file defines is shown
//! under that file only.

use super::facts::{Facts, FileFacts};
use crate::hashing::HashSet;

/// Each file's names, best first.
pub(super) fn ranked(f: &Facts) -> Vec<Vec<String>> {
    let modules = session_modules(&f.files);
    let mentioned: HashSet<String> = f.mentions.iter().map(|(m, _)| m.clone()).collect();
    // Every name a file defined (`x/2` also as `x`): shown under that file, not where used.
    let defined: HashSet<String> = f
        .files
        .iter()
        .flat_map(|x| &x.defs)
        .flat_map(|d| [d.clone(), d.split('/').next().unwrap_or(d).to_string()])
        .collect();
    f.files
        .iter()
        .map(|file| {
            let others: Vec<(u8, &String)> = file
                .idents
                .iter()
                .filter(|n| !defined.contains(n.as_str()))
                .map(|n| (tier(n, &modules, &mentioned), n))
                .collect();
            // Tier by tier; within one, the edits' order (most frequent first) holds.
            let by_tier = (0..=3u8).flat_map(|t| others.iter().filter(move |(x, _)| *x == t).map(|(_, n)| *n));
            let mut out = Vec::new();
            for name in file.defs.iter().chain(&file.added).chain(by_tier) {
                // `name` adds nothing next to `name/2` shown under the same file.
                let with_arity = |d: &String| d.strip_prefix(name.as_str()).is_some_and(|r| r.starts_with('/'));
                // `_x` is a name meant to go unused.
                if !file.defs.iter().any(with_arity) && !name.starts_with('_') {
                    out.push(name.clone());
                }
            }
            out
        })
        .collect()
}

/// 0: the assistant named it; 1: a call into a module of the session; 2: any other name;
/// 3: a call into a module the session never touched, or a constant (`MAX_SIZE`).
fn tier(name: &str, modules: &HashSet<String>, mentioned: &HashSet<String>) -> u8 {
    if mentioned.contains(name) {
        return 0;
    }
    let body = name.trim_start_matches([':', '.', '@']);
    // `SCRIPT_DIR`, `MAX_SIZE`: environment and constants, rarely what a change is about.
    if body.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_') {
        return 3;
    }
    match body.split_once('.') {
        Some((head, _)) if head.chars().next().is_some_and(char::is_uppercase) => {
            if modules.contains(head) {
                1
            } else {
                3
            }
        }
        _ => 2,
    }
}

/// The session's own module names: each file's name in CamelCase (`active_registry.ex`
/// is `ActiveRegistry`) and every segment of a dotted name a file defined.
fn session_modules(files: &[FileFacts]) -> HashSet<String> {
    let mut out = HashSet::default();
    for file in files {
        let name = file.path.rsplit('/').next().unwrap_or_default();
        let stem = name.split('.').next().unwrap_or_default();
        let camel: String = stem
            .split(['_', '-'])
            .map(|part| {
                let mut chars = part.chars();
                // ASCII only: `char::to_uppercase` would bring Unicode's case tables into the wasm.
                chars
                    .next()
                    .map(|c| std::iter::once(c.to_ascii_uppercase()).chain(chars).collect::<String>())
                    .unwrap_or_default()
            })
            .collect();
        if !camel.is_empty() {
            out.insert(camel);
        }
        for def in &file.defs {
            for segment in def.split('/').next().unwrap_or_default().split('.') {
                if segment.chars().next().is_some_and(char::is_uppercase) {
                    out.insert(segment.to_string());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, defs: &[&str], idents: &[&str]) -> FileFacts {
        FileFacts {
            path: path.into(),
            defs: defs.iter().map(|s| s.to_string()).collect(),
            idents: idents.iter().map(|s| s.to_string()).collect(),
            ..FileFacts::default()
        }
    }

    #[test]
    fn definitions_lead_and_library_calls_trail() {
        let f = Facts {
            files: vec![
                file("lib/a/sync_jobs.ex", &["Spotter.SyncJobs", "run/2"], &["Enum.map", "session_id", "run", "_opts"]),
                file(
                    "lib/b/live.ex",
                    &["handle/1"],
                    &[
                        "Path.join",
                        "SyncJobs.run",
                        "session_id",
                        "LIB_DIR",
                        "reload",
                        "status_badge",
                        "Spotter.SyncJobs",
                    ],
                ),
            ],
            mentions: vec![("status_badge".into(), 1)],
            ..Facts::default()
        };
        // `run` adds nothing next to `run/2`; the name the assistant mentioned leads the
        // second file's other names.
        assert_eq!(
            ranked(&f),
            [
                vec!["Spotter.SyncJobs", "run/2", "session_id", "Enum.map"],
                vec!["handle/1", "status_badge", "SyncJobs.run", "session_id", "reload", "Path.join", "LIB_DIR"],
            ]
        );
    }
}
