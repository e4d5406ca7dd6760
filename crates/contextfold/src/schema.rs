//! The one summary schema: the sections every summarization prompt asks for, the
//! built-in offline summarizer fills, and an update merges section by section.
//!
//! A summary is markdown: a `## ` heading per section, in [`Section::ALL`] order, each
//! followed by terse `- ` bullets; an empty section is left out. Measured studies (see
//! `shared/reference/PEERS.md`) find structured summaries keep the most of what the next
//! turn needs, and file tracking is where summarizers are weakest, hence a section of its
//! own with paths relative to a root named once.

use std::fmt::Write;

/// One section of a summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Section {
    Requests,
    Goal,
    State,
    Files,
    Commands,
    Errors,
    Decisions,
    Next,
}

impl Section {
    pub const ALL: [Section; 8] = [
        Section::Requests,
        Section::Goal,
        Section::State,
        Section::Files,
        Section::Commands,
        Section::Errors,
        Section::Decisions,
        Section::Next,
    ];

    /// The heading text (after `## `).
    pub fn heading(self) -> &'static str {
        match self {
            Section::Requests => "User requests",
            Section::Goal => "Goal and constraints",
            Section::State => "Current state",
            Section::Files => "Files",
            Section::Commands => "Commands",
            Section::Errors => "Errors and fixes",
            Section::Decisions => "Decisions",
            Section::Next => "Next step",
        }
    }

    /// What the section holds, as the prompt asks for it.
    pub fn ask(self) -> &'static str {
        match self {
            Section::Requests => {
                "every request the user made, verbatim and in order, one bullet each (leave out notices \
                 the harness or the system added)"
            }
            Section::Goal => "the overall goal in one sentence, then every constraint and preference still in force",
            Section::State => "each task with its status: done, in progress or pending",
            Section::Files => {
                "`Root: <dir>` once, then each file touched, by its path relative to that root (never cut a \
                 path), with what was done to it and the identifiers it defines or that changed"
            }
            Section::Commands => "each command run, verbatim, with its latest outcome",
            Section::Errors => "each error as it was reported, verbatim, with its fix or `unresolved`",
            Section::Decisions => "decisions taken and findings that explain them",
            Section::Next => "the next step, tied to the latest request",
        }
    }

    /// The section a heading names (ours, or the headings of the snapshots and
    /// summaries earlier versions wrote), matched loosely: case and punctuation aside.
    pub fn of_heading(heading: &str) -> Option<Section> {
        let h: String = heading
            .chars()
            .filter(|c| c.is_alphanumeric() || c.is_whitespace())
            .collect::<String>()
            .to_lowercase()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if let Some(s) = Section::ALL.into_iter().find(|s| s.heading().to_lowercase() == h) {
            return Some(s);
        }
        Some(match h.as_str() {
            "goals and constraints" | "overall goal" | "active constraints" | "goal" => Section::Goal,
            "errors seen" | "errors" => Section::Errors,
            "decisions and findings" | "key knowledge" => Section::Decisions,
            "actions taken" | "work log" | "last state" | "task state" => Section::State,
            "files and identifiers" => Section::Files,
            _ => return None,
        })
    }
}

/// The instructions every prompt carries after its own opening: the sections, in order.
pub fn instructions() -> String {
    let mut out = String::from(
        "Write the summary as markdown in these sections, in this order: each a `## ` heading followed \
         by terse `- ` bullets; leave out a section that would be empty.\n",
    );
    for s in Section::ALL {
        let _ = writeln!(out, "## {}: {}", s.heading(), s.ask());
    }
    out.push_str(
        "Keep file paths, commands, identifiers, numbers, versions and error messages verbatim. Write \
         only the summary: no preamble, no note on what it is (the application adds that).",
    );
    out
}

/// The sentence that asks for a length.
pub fn target_line(target_bytes: usize) -> String {
    format!(
        "Target length: about {target_bytes} bytes (about {} tokens). Use that room for detail, and do not exceed it.",
        target_bytes.div_ceil(4)
    )
}

/// A summary read back into its sections: bullets (the `- ` removed) per section, in
/// the order found. Text before any heading, or under a heading that names no section,
/// goes to [`Section::Decisions`].
pub fn parse(summary: &str) -> Vec<(Section, Vec<String>)> {
    let mut out: Vec<(Section, Vec<String>)> = Vec::new();
    let mut current = Section::Decisions;
    for line in summary.lines() {
        let trimmed = line.trim();
        if let Some(h) = trimmed.strip_prefix('#') {
            let h = h.trim_start_matches('#').trim();
            current = Section::of_heading(h).unwrap_or(Section::Decisions);
            continue;
        }
        if let Some(h) = trimmed.strip_suffix(':') {
            // Headings of the earlier extractive format ("Errors seen:").
            if let Some(s) = Section::of_heading(h) {
                current = s;
                continue;
            }
        }
        let bullet = trimmed.trim_start_matches(['-', '*']).trim();
        if bullet.is_empty() || bullet.starts_with('<') && bullet.ends_with('>') && !bullet.contains(' ') {
            continue;
        }
        match out.iter_mut().find(|(s, _)| *s == current) {
            Some((_, list)) => list.push(bullet.to_string()),
            None => out.push((current, vec![bullet.to_string()])),
        }
    }
    out
}

/// Renders sections (in schema order, whatever order they are given in).
pub fn render(sections: &[(Section, Vec<String>)]) -> String {
    let mut out = String::new();
    for s in Section::ALL {
        let bullets: Vec<&String> =
            sections.iter().filter(|(k, _)| *k == s).flat_map(|(_, b)| b).filter(|b| !b.is_empty()).collect();
        if bullets.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = writeln!(out, "## {}", s.heading());
        for b in bullets {
            let _ = writeln!(out, "- {b}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_parses_back_into_its_sections() {
        let text = render(&[
            (Section::Files, vec!["Root: /p".into(), "a.rs: edited".into()]),
            (Section::Requests, vec!["fix it".into()]),
        ]);
        assert!(text.starts_with("## User requests\n- fix it\n\n## Files\n- Root: /p\n"), "{text}");
        assert_eq!(
            parse(&text),
            vec![
                (Section::Requests, vec!["fix it".to_string()]),
                (Section::Files, vec!["Root: /p".to_string(), "a.rs: edited".to_string()])
            ]
        );
        // The earlier extractive headings and window's snapshot tags are understood.
        let old = "Errors seen:\n- boom\n<overall_goal>\nx\n";
        assert_eq!(parse(old), vec![(Section::Errors, vec!["boom".to_string(), "x".to_string()])]);
        assert!(instructions().contains("## Next step: "));
    }
}
