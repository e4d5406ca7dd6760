#!/usr/bin/env node
// Generates examples/demo-session.openai.json: a realistic coding-agent session in
// OpenAI Chat Completions format, used by demos, the playground and tests.
//
// The session: an agent debugging "tallyho", a small TypeScript CLI that turns CSV
// time-tracking exports into weekly reports. It lists, reads, greps and edits files
// and runs tests; several turns make parallel tool calls, two carry reasoning_content.
//
// The project is real files, examples/demo-project/ (as the session finds it), and the
// conversation is data, examples/demo-conversation.json; this script replays it with
// the simulated tools of examples/demo-simulation.mjs. Everything is deterministic (a
// seeded PRNG, no clock, no randomness from the machine): tests/node/demo-session.test.mjs
// regenerates the session and compares it byte for byte with the committed one. The
// tools are simulated against an in-memory copy of the project, so file reads show the
// edits made earlier, grep and `git diff --stat` reflect the real contents, and test
// counts and code frames in test logs match the test files.
//
// Usage: node examples/make-demo-session.mjs [output path]
//        node examples/make-demo-session.mjs --project DIR
// The second form also writes the simulated project as the session finds it
// (DIR/before) and leaves it (DIR/after), to check the simulated tool outputs against
// the real tools (npm install; npx vitest run; npx tsc --noEmit; npx eslint src test).

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { simulation } from "./demo-simulation.mjs";

// ---------------------------------------------------------------------------
// Deterministic helpers

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = mulberry32(20240311);
const pick = (items) => items[Math.floor(random() * items.length)];
const between = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
function callId() {
  let id = "call_";
  for (let i = 0; i < 24; i++) id += ALNUM[Math.floor(random() * ALNUM.length)];
  return id;
}

function writeProject(dir, contents) {
  for (const [path, text] of contents) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

// ---------------------------------------------------------------------------
// Dates and ISO weeks, as the project computes them (with and without its bug)

const DAY_MS = 86_400_000;

function utcDay(text) {
  const [y, m, d] = text.split("-").map(Number);
  return Date.UTC(y, m - 1, d);
}

function dayText(ms) {
  return new Date(ms).toISOString().slice(0, 10);
}

/** ISO week of a `YYYY-MM-DD` day; `buggy` reproduces the shipped implementation. */
function isoWeek(text, buggy = false) {
  const t = utcDay(text);
  let weekday = new Date(t).getUTCDay();
  if (!buggy && weekday === 0) weekday = 7;
  const thursday = t + (4 - weekday) * DAY_MS;
  const year = new Date(thursday).getUTCFullYear();
  const weeks = (thursday - Date.UTC(year, 0, 1)) / DAY_MS / 7;
  const week = (buggy ? Math.round(weeks) : Math.floor(weeks)) + 1;
  return { year, week };
}

const weekLabel = ({ year, week }) => `${year}-W${String(week).padStart(2, "0")}`;

function weeksInYear(year, buggy = false) {
  return isoWeek(`${year}-12-28`, buggy).week;
}

// ---------------------------------------------------------------------------
// The fixture export: six weeks of entries, some on weekends

const PROJECTS = {
  "acme-portal": ["frontend", "code review", "bugfix", "standup", "planning"],
  "globex-billing": ["invoicing api", "migration", "code review", "support"],
  "initech-api": ["rate limiter", "on-call", "docs", "load testing"],
  internal: ["hiring", "tooling", "1:1s", "learning"],
};

const NOTES = [
  "Paired with Dana on the session refresh flow",
  "Fixed flaky e2e test in checkout",
  "Reviewed PR #388, mostly naming",
  "Sprint planning, estimates for Q2 epics",
  "Investigated timeout spikes, see incident notes",
  "Wrote migration for invoice_lines.currency",
  "Customer call about duplicate charges",
  "Updated runbook for the token bucket limiter",
  "Load test at 2k rps, p99 ok",
  "Interview: backend candidate",
  "Upgraded vitest and eslint config",
  "Read up on ISO week dates",
  "Triage of support queue",
  "Refactored pricing rules, no behaviour change",
  "Docs for the /v2/limits endpoint",
  "",
  "",
  "",
];

const QUOTED_NOTES = [
  'Reviewed "retry" logic, left comments',
  'Demo for Acme, they asked about "export to PDF"',
  "Standup, blockers: staging, VPN",
  'Fixed rounding in totals, see "billing edge cases" doc',
];

const MINUTES = [15, 20, 30, 30, 45, 45, 60, 60, 75, 90, 90, 120, 150, 180, 240];

function durationText(minutes) {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  switch (between(0, 4)) {
    case 0:
      return h ? `${h}h${m ? `${m}m` : ""}` : `${m}m`;
    case 1:
      return `${h}:${String(m).padStart(2, "0")}`;
    case 2:
      return m % 15 === 0 ? `${minutes / 60}h` : `${minutes}m`;
    case 3:
      return `${minutes}m`;
    default:
      return `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:00`;
  }
}

function csvField(text) {
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function makeEntries() {
  const entries = [];
  const first = utcDay("2024-02-05");
  for (let d = 0; d < 63; d++) {
    const day = dayText(first + d * DAY_MS);
    const weekday = new Date(first + d * DAY_MS).getUTCDay();
    let count = between(3, 5);
    if (weekday === 6) count = random() < 0.3 ? 1 : 0;
    // Weekend work on some Sundays, always on the last one of the export.
    if (weekday === 0) count = d === 62 ? 2 : random() < 0.5 ? between(1, 2) : 0;
    for (let i = 0; i < count; i++) {
      const project = pick(Object.keys(PROJECTS));
      const task = pick(PROJECTS[project]);
      const minutes = weekday === 0 || weekday === 6 ? pick([30, 45, 60, 90]) : pick(MINUTES);
      const notes = random() < 0.12 ? pick(QUOTED_NOTES) : pick(NOTES);
      entries.push({ day, project, task, minutes, notes, duration: durationText(minutes) });
    }
  }
  return entries;
}

const ENTRIES = makeEntries();

const ENTRIES_CSV =
  "date,project,task,duration,notes\n" +
  ENTRIES.map((e) => [e.day, e.project, csvField(e.task), e.duration, csvField(e.notes)].join(",")).join("\n") +
  "\n";

function totalsByWeek(buggy) {
  const totals = {};
  for (const e of ENTRIES) {
    const key = weekLabel(isoWeek(e.day, buggy));
    totals[key] = (totals[key] ?? 0) + e.minutes;
  }
  return Object.fromEntries(Object.entries(totals).sort(([a], [b]) => a.localeCompare(b)));
}

const TOTALS_BUGGY = totalsByWeek(true);
const TOTALS_FIXED = totalsByWeek(false);

function totalsLiteral(totals, indent) {
  const pad = " ".repeat(indent);
  return `{\n${Object.entries(totals)
    .map(([week, minutes]) => `${pad}  '${week}': ${minutes},`)
    .join("\n")}\n${pad}}`;
}

const SUNDAY_ROWS = ENTRIES_CSV.split("\n")
  .slice(1)
  .filter((line) => line && new Date(utcDay(line.split(",")[0])).getUTCDay() === 0);

// ---------------------------------------------------------------------------
// The project

const files = new Map();
const original = new Map();
function addFile(path, text) {
  files.set(path, text);
  original.set(path, text);
}

// The project as the session finds it: real files in examples/demo-project/, read in the
// order the session's tools meet them (`run_tests` walks the files in this order).
const HERE = dirname(fileURLToPath(import.meta.url));
const PROJECT_DIR = join(HERE, "demo-project");
const PROJECT_FILES = [
  "package.json",
  "tsconfig.json",
  "tsconfig.build.json",
  ".eslintrc.cjs",
  "vitest.config.ts",
  "src/csv.ts",
  "src/duration.ts",
  "src/week.ts",
  "src/entries.ts",
  "src/aggregate.ts",
  "src/report.ts",
  "src/cli.ts",
  "src/index.ts",
  "test/helpers.ts",
  "test/csv.test.ts",
  "test/duration.test.ts",
  "test/week.test.ts",
  "test/entries.test.ts",
  "test/aggregate.test.ts",
  "test/report.test.ts",
  "test/cli.test.ts",
  "fixtures/entries.csv",
  "fixtures/harvest-export.csv",
  "README.md",
  "CHANGELOG.md",
];
for (const path of PROJECT_FILES) addFile(path, readFileSync(join(PROJECT_DIR, path), "utf8"));

// The cases of test/week.test.ts, as data: the failures in the test logs below are the
// ones the shipped isoWeek really produces for them.
const ISO_CASES = [
  { name: "returns week 10 for a Wednesday in March", day: "2024-03-06", year: 2024, week: 10 },
  { name: "treats Sunday as the last day of the ISO week", day: "2024-03-10", year: 2024, week: 10 },
  { name: "puts 2024-12-30 in week 1 of 2025", day: "2024-12-30", year: 2025, week: 1 },
  { name: "puts 2021-01-03 in week 53 of 2020", day: "2021-01-03", year: 2020, week: 53 },
  { name: "week 1 holds the first Thursday of the year", day: "2021-01-07", year: 2021, week: 1 },
];

const REFERENCE_DAYS = [
  "2024-01-01",
  "2024-02-29",
  "2024-06-15",
  "2024-12-29",
  "2022-01-01",
  "2022-01-02",
  "2023-01-01",
  "2023-01-02",
  "2025-12-28",
  "2025-12-29",
  "2026-01-04",
  "2026-12-31",
  "2027-01-03",
  "2019-12-30",
];
const REFERENCE = REFERENCE_DAYS.map((day) => [day, weekLabel(isoWeek(day))]);
const WEEKS_IN_YEARS = [2020, 2021, 2024, 2026];

// The fixed implementation must agree with known ISO weeks.
for (const [day, label] of [
  ["2021-01-03", "2020-W53"],
  ["2024-12-30", "2025-W01"],
  ["2023-01-01", "2022-W52"],
  ["2026-12-31", "2026-W53"],
]) {
  if (weekLabel(isoWeek(day)) !== label) throw new Error(`isoWeek(${day}) is not ${label}`);
}

// The expectation was recorded with the buggy isoWeek (placed after dedenting).
const AGGREGATE_SNAPSHOT_OLD = `    expect(totalsByWeek(entries)).toEqual(${totalsLiteral(TOTALS_BUGGY, 4)});`;
const AGGREGATE_SNAPSHOT_NEW = `    expect(totalsByWeek(entries)).toEqual(${totalsLiteral(TOTALS_FIXED, 4)});`;

// The project's files must say what the simulation computes of them.
for (const [path, needles] of [
  ["test/week.test.ts", [...ISO_CASES.map((c) => c.name), ...REFERENCE.map(([day]) => day)]],
  ["test/aggregate.test.ts", [AGGREGATE_SNAPSHOT_OLD]],
]) {
  const missing = needles.find((needle) => !files.get(path)?.includes(needle));
  if (missing !== undefined) throw new Error(`examples/demo-project/${path} does not hold ${JSON.stringify(missing)}`);
}

// ---------------------------------------------------------------------------
// The conversation: examples/demo-conversation.json, replayed. A step is a message
// (`say`: its role, `text`) or an assistant turn (`act`: `text`, `reasoning`, `calls`).
// A call runs its tool against the project as it stands, unless it gives its `output`;
// `simulate` names a computed command output, `failures` the failures a test run reports.

const {
  TOOLS,
  vitest,
  weekFailures,
  CSV_FAILURES,
  AGGREGATE_FAILURE,
  SINCE_FAILURE,
  typecheck,
  lint,
  diffStat,
  reportTable,
  standupReport,
  dateFnsCommitStat,
  dateFnsCommitTestDiff,
} = simulation({
  files,
  original,
  between,
  isoWeek,
  weekLabel,
  weeksInYear,
  writeProject,
  ISO_CASES,
  REFERENCE,
  WEEKS_IN_YEARS,
  TOTALS_BUGGY,
  TOTALS_FIXED,
  AGGREGATE_SNAPSHOT_OLD,
  AGGREGATE_SNAPSHOT_NEW,
  snapshotDir: process.argv[2] === "--project" ? process.argv[3] : null,
});

/** The failures each test run reports, by the name the conversation gives them. */
const FAILURES = {
  none: () => [],
  "csv and week": () => [...CSV_FAILURES, ...weekFailures()].sort((a, b) => a.file.localeCompare(b.file)),
  aggregate: () => [AGGREGATE_FAILURE],
  since: () => [SINCE_FAILURE],
};

/** Command outputs computed from the project and the fixture, by name. */
const SIMULATED = {
  "date-fns commit stat": () => `${dateFnsCommitStat()}\n(exit code 0)`,
  "date-fns commit test diff": () => `${dateFnsCommitTestDiff()}\n(exit code 0)`,
  "sunday rows": () => `${SUNDAY_ROWS.join("\n")}\n(exit code 0)`,
  "standup report": () => standupReport(false),
  "standup report, fixed": () => standupReport(true),
  "report since 2024-03-25": () => `${reportTable(ENTRIES.filter((e) => e.day >= "2024-03-25"))}\n(exit code 0)`,
  "report since 2024-03-25, initech-api": () =>
    `${reportTable(ENTRIES.filter((e) => e.day >= "2024-03-25" && e.project === "initech-api"))}\n(exit code 0)`,
  typecheck,
  lint,
  "diff stat": () => `${diffStat()}\n(exit code 0)`,
};

/** What a tool call answers. */
function answer(call) {
  if (call.output !== undefined) return call.output;
  if (call.simulate !== undefined) return SIMULATED[call.simulate]();
  if (call.tool === "run_tests") return vitest({ filter: call.args.filter, failures: FAILURES[call.failures]() });
  return TOOLS[call.tool](call.args);
}

const messages = [];
const conversation = JSON.parse(readFileSync(join(HERE, "demo-conversation.json"), "utf8"));
for (const step of conversation) {
  if (step.say) {
    messages.push({ role: step.say, content: step.text });
    continue;
  }
  // An assistant turn: its calls get their ids, then run in order.
  const { text = null, reasoning, calls = [] } = step.act;
  const message = { role: "assistant", content: text };
  if (reasoning) message.reasoning_content = reasoning;
  const made = calls.map((c) => ({ ...c, id: callId() }));
  if (made.length) {
    message.tool_calls = made.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.tool, arguments: JSON.stringify(c.args) },
    }));
  }
  messages.push(message);
  for (const c of made) messages.push({ role: "tool", tool_call_id: c.id, content: answer(c) });
}

// ---------------------------------------------------------------------------
// Output

let target = process.argv[2] ?? join(HERE, "demo-session.openai.json");
if (process.argv[2] === "--project") {
  writeProject(join(process.argv[3], "before"), original);
  writeProject(join(process.argv[3], "after"), files);
  target = join(HERE, "demo-session.openai.json");
}
const json = JSON.stringify(messages, null, 2) + "\n";
writeFileSync(target, json);
const calls = messages.reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0);
console.log(
  `${target}: ${messages.length} messages, ${calls} tool calls, ${(Buffer.byteLength(json) / 1024).toFixed(1)} KB`,
);
