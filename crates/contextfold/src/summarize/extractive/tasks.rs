//! Tasks of an issue tracker driven from the shell (`bd close app-a0y.1`, `jira issue move
//! PROJ-12 Done`): their ids (a dash and a digit, so not GitHub's bare `12`) come from the
//! commands, their titles from the lines of command output that name them (`○ app-a0y.1 ·
//! Add the registry [● P1 · OPEN]`), their status from the latest command or listing that
//! set it.

/// One task: its id, title and latest status, and the step it was first seen at.
#[derive(Debug)]
pub(super) struct Task {
    pub id: String,
    pub title: Option<String>,
    pub status: Option<String>,
    /// Step of the latest status (a later one wins).
    status_step: usize,
}

#[derive(Debug, Default)]
pub(super) struct Tasks {
    /// Ids a command acted on, in the order first seen.
    tasks: Vec<Task>,
    /// Titles (and listed statuses) of ids named in command output, first seen wins.
    listed: Vec<(String, String, Option<String>)>,
}

/// Words of a command that set a task's status, and the status they set. Not `start` or
/// `block`: `docker start web-1` starts no task. A status may also come from a flag
/// (`--status in_progress`) or from a listing.
const STATUS_VERBS: [(&str, &str); 8] = [
    ("close", "done"),
    ("closed", "done"),
    ("done", "done"),
    ("complete", "done"),
    ("completed", "done"),
    ("resolve", "done"),
    ("finish", "done"),
    ("reopen", "open"),
];

/// Status words a listing shows (`[● P1 · OPEN]`), lowercased.
const LISTED_STATUS: [&str; 7] = ["open", "closed", "in_progress", "in progress", "done", "blocked", "todo"];

/// Whether `token` looks like a tracker id: letters first, dashed, with a digit
/// (`app-a0y.1`, `PROJ-123`), not a flag, path or version.
fn is_task_id(token: &str) -> bool {
    let mut parts = token.split('-');
    let head = parts.next().unwrap_or_default();
    let rest: Vec<&str> = parts.collect();
    !rest.is_empty()
        && head.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && head.chars().all(|c| c.is_ascii_alphanumeric())
        && rest.iter().all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '.'))
        && rest.iter().any(|p| p.chars().any(|c| c.is_ascii_digit()))
        && !token.ends_with('.')
        && token.len() <= 40
}

/// The words of a command up to its first quoted or `--x=` argument (a reason or a message
/// names ids it does not act on).
fn command_words(command: &str) -> impl Iterator<Item = &str> {
    command
        .split_whitespace()
        .take_while(|w| !w.contains(['"', '\'', '=']) && !w.starts_with("$("))
        .map(|w| w.trim_matches(|c: char| matches!(c, ',' | ';' | ')' | '(')))
}

impl Tasks {
    /// A command: the ids it acts on, with the status it sets, if any.
    pub fn command(&mut self, command: &str, step: usize) {
        let words: Vec<String> = command_words(command).map(str::to_lowercase).collect();
        let flagged = words
            .iter()
            .position(|w| w == "--status" || w == "--state" || w == "-s")
            .and_then(|i| words.get(i.saturating_add(1)))
            .map(|s| s.replace('_', " "));
        let verb = words.iter().find_map(|w| STATUS_VERBS.iter().find(|(v, _)| v == w).map(|(_, s)| s.to_string()));
        let status = flagged.or(verb);
        for id in command_words(command).filter(|w| is_task_id(w)) {
            let at = match self.tasks.iter().position(|t| t.id == id) {
                Some(at) => at,
                None => {
                    self.tasks.push(Task { id: id.to_string(), title: None, status: None, status_step: 0 });
                    self.tasks.len().saturating_sub(1)
                }
            };
            if let (Some(task), Some(status)) = (self.tasks.get_mut(at), &status) {
                if step >= task.status_step {
                    task.status = Some(status.clone());
                    task.status_step = step;
                }
            }
        }
    }

    /// A command's output: every line that names an id and gives a title after it.
    pub fn output(&mut self, text: &str) {
        for line in text.lines().take(2_000) {
            let Some((id, after)) = line
                .split_whitespace()
                .map(|w| w.trim_end_matches(':'))
                .find(|w| is_task_id(w))
                .and_then(|id| Some((id, line.get(line.find(id)?.saturating_add(id.len())..)?)))
            else {
                continue;
            };
            if self.listed.iter().any(|(l, _, _)| l == id) {
                continue;
            }
            let (title, status) = title_of(after);
            if title.split_whitespace().count() >= 2 {
                self.listed.push((id.to_string(), title, status));
            }
        }
    }

    /// The tasks a command acted on that have a status, with the title and status a listing
    /// gave when no command set one.
    pub fn into_list(self) -> Vec<Task> {
        let Tasks { mut tasks, listed } = self;
        for task in &mut tasks {
            if let Some((_, title, status)) = listed.iter().find(|(id, _, _)| *id == task.id) {
                task.title = Some(title.clone());
                if task.status.is_none() {
                    task.status.clone_from(status);
                }
            }
        }
        // An id no command or listing gave a status is no tracker's (`utf-8`, `gpt-4o`).
        tasks.retain(|t| t.status.is_some());
        tasks
    }
}

/// The title after an id (`: x`, ` · x`, ` [EPIC] · x`), up to the first mark that is not
/// prose (`[● P1 · OPEN]`, `● P1`), and the status word shown after it.
fn title_of(after: &str) -> (String, Option<String>) {
    let separators = [':', ' ', '·', '-', '—', '\t'];
    let mut rest = after.trim_start_matches(separators);
    while let Some((_, tail)) = rest.strip_prefix('[').and_then(|r| r.split_once(']')) {
        rest = tail.trim_start_matches(separators);
    }
    let prose = |c: char| c.is_alphanumeric() || c.is_whitespace() || ".,:;!?'\"()/&+-_#@%`—".contains(c);
    let end = rest.find(|c: char| !prose(c)).unwrap_or(rest.len());
    let (title, shown) = rest.split_at(end);
    let shown = shown.to_lowercase();
    let status = LISTED_STATUS.iter().find(|s| shown.contains(*s)).map(|s| s.replace('_', " "));
    (super::text::cut_words(title.trim(), 160), status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_a_tracker_from_its_commands_and_listings() {
        let mut t = Tasks::default();
        t.command("bd show app-a0y", 1);
        t.output(
            "○ app-a0y [EPIC] · Bootstrap sync + live tail   [● P1 · OPEN]\n← ○ app-a0y.2: Wire the dashboard ● P1",
        );
        t.command("bd update app-a0y.1 --status in_progress", 2);
        t.output("✓ Updated issue: app-a0y.1");
        t.command("bd show app-a0y.1", 3);
        t.output("○ app-a0y.1 · Add lifecycle hooks   [● P1 · OPEN]");
        t.command("bd close app-a0y.1 --reason=\"done with app-a0y.2 too\"", 4);
        t.command("bd update app-a0y.2 --status in_progress", 5);
        t.command("apt-get install python3-dev", 6);
        t.command("git push origin HEAD", 7);
        // Ids with no status are no tracker's.
        t.command("docker start web-1", 8);
        t.command("iconv -f utf-8 -t ascii notes.txt", 9);
        t.output("utf-8 is not supported here");
        t.command("jira issue move PROJ-12 Done", 10);
        let got: Vec<(String, Option<String>, Option<String>)> =
            t.into_list().into_iter().map(|x| (x.id, x.title, x.status)).collect();
        let s = |x: &str| Some(x.to_string());
        assert_eq!(
            got,
            [
                ("app-a0y".into(), s("Bootstrap sync + live tail"), s("open")),
                ("app-a0y.1".into(), s("Add lifecycle hooks"), s("done")),
                ("app-a0y.2".into(), s("Wire the dashboard"), s("in progress")),
                ("PROJ-12".into(), None, s("done")),
            ]
        );
    }
}
