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
// simulated tools. Everything is deterministic (a
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
// Simulated tools

const ROOT = "/home/dev/tallyho";

function linesOf(text) {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function numbered(text, from = 1, count = Infinity) {
  return linesOf(text)
    .map((line, i) => [i + 1, line])
    .filter(([n]) => n >= from && n < from + count)
    .map(([n, line]) => `${String(n).padStart(6)}\t${line}`)
    .join("\n");
}

/** Line edits turning `a` into `b` (LCS): [' ' | '-' | '+', line]. */
function lineDiff(a, b) {
  const n = a.length;
  const m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const ops = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push([" ", a[i++]]);
      j++;
    } else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      ops.push(["-", a[i++]]);
    } else {
      ops.push(["+", b[j++]]);
    }
  }
  return ops;
}

function listDir({ path }) {
  const prefix = path === "." || path === "" ? "" : path.replace(/\/$/, "") + "/";
  const dirs = new Map();
  const entries = [];
  for (const [file, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    if (!file.startsWith(prefix)) continue;
    const rest = file.slice(prefix.length);
    const slash = rest.indexOf("/");
    if (slash >= 0) {
      const dir = rest.slice(0, slash + 1);
      dirs.set(dir, (dirs.get(dir) ?? 0) + 1);
    } else {
      entries.push(`${rest.padEnd(24)}${String(Buffer.byteLength(text)).padStart(7)} B`);
    }
  }
  if (prefix === "") {
    dirs.set(".git/", null);
    dirs.set("node_modules/", null);
  }
  const dirLines = [...dirs]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([dir, count]) => `${dir.padEnd(24)}${count === null ? "      (ignored)" : `${String(count).padStart(7)} files`}`,
    );
  return `${ROOT}/${prefix}\n${[...dirLines, ...entries].join("\n")}`;
}

function readFile({ path, offset, limit }) {
  const text = files.get(path);
  if (text === undefined) throw new Error(`read_file: no such file ${path}`);
  return numbered(text, offset ?? 1, limit ?? Infinity);
}

function grep({ pattern, path = "." }) {
  const regex = new RegExp(pattern);
  const prefix = path === "." ? "" : path.replace(/\/$/, "");
  const hits = [];
  for (const [file, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    if (prefix && file !== prefix && !file.startsWith(prefix + "/")) continue;
    linesOf(text).forEach((line, i) => {
      if (regex.test(line)) hits.push(`${file}:${i + 1}:${line}`);
    });
  }
  return hits.length ? hits.join("\n") : "No matches found.";
}

function editFile({ path, old_string: oldText, new_string: newText }) {
  const text = files.get(path);
  if (text === undefined) throw new Error(`edit_file: no such file ${path}`);
  const at = text.indexOf(oldText);
  if (at < 0 || text.indexOf(oldText, at + 1) >= 0) {
    throw new Error(`edit_file: old_string must occur exactly once in ${path}:\n${oldText}`);
  }
  files.set(path, text.slice(0, at) + newText + text.slice(at + oldText.length));
  const first = text.slice(0, at).split("\n").length;
  const removed = oldText.split("\n").length;
  const added = newText.split("\n").length;
  return `Edited ${path}: replaced lines ${first}-${first + removed - 1} (${removed} -> ${added} lines).`;
}

const TOOLS = { list_dir: listDir, read_file: readFile, grep, edit_file: editFile };

/** 1-based line and column of `needle` in a project file. */
function locate(path, needle, columnOf = needle) {
  const lines = linesOf(files.get(path));
  const index = lines.findIndex((line) => line.includes(needle));
  if (index < 0) throw new Error(`locate: ${needle} not in ${path}`);
  return { line: index + 1, column: lines[index].indexOf(columnOf) + 1, lines };
}

// ---------------------------------------------------------------------------
// Tool outputs that come from running things: vitest, tsc, eslint, git, node

let clock = 10 * 3600 + 42 * 60 + 17;
function startTime() {
  clock += between(40, 240);
  const h = Math.floor(clock / 3600);
  const m = Math.floor((clock % 3600) / 60);
  const s = clock % 60;
  return [h, m, s].map((x) => String(x).padStart(2, "0")).join(":");
}

/** Short value repr of chai's messages (`{ year: 2024, week: 11 }`, truncated). */
function inspect(value) {
  if (typeof value === "string") return `'${value}'`;
  if (Array.isArray(value)) return `[ ${value.map(inspect).join(", ")} ]`;
  if (value && typeof value === "object") {
    const parts = Object.entries(value).map(([k, v]) => `${/^[a-z_]\w*$/i.test(k) ? k : `'${k}'`}: ${inspect(v)}`);
    const full = `{ ${parts.join(", ")} }`;
    return full.length <= 40 || parts.length < 2 ? full : `{ ${parts[0]}, …(${parts.length - 1}) }`;
  }
  return String(value);
}

/** pretty-format's multi-line form (keys sorted), as vitest diffs show it. */
function pretty(value, indent = "") {
  const inner = indent + "  ";
  if (Array.isArray(value)) {
    return `Array [\n${value.map((v) => `${inner}${pretty(v, inner)},`).join("\n")}\n${indent}]`;
  }
  if (value && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `Object {\n${keys.map((k) => `${inner}"${k}": ${pretty(value[k], inner)},`).join("\n")}\n${indent}}`;
  }
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

function valueDiff(expected, received) {
  const [a, b] =
    typeof expected === "string"
      ? [[expected], [received]]
      : [pretty(expected).split("\n"), pretty(received).split("\n")];
  const body = lineDiff(a, b).map(([op, line]) => `${op} ${line}`);
  return ["- Expected", "+ Received", "", ...body].join("\n");
}

/** vitest's code frame: two lines around the failing matcher, cut at 80 columns. */
function codeFrame(path, needle) {
  const { line, column, lines } = locate(path, needle, ".to");
  const out = [` ❯ ${path}:${line}:${column + 1}`];
  for (let n = Math.max(1, line - 2); n <= Math.min(lines.length, line + 2); n++) {
    const text = `${String(n).padStart(7)}| ${lines[n - 1]}`;
    out.push(text.length > 80 ? `${text.slice(0, 79)}…` : text);
    if (n === line) out.push(`${" ".repeat(7)}|${" ".repeat(column + 1)}^`);
  }
  return out.join("\n");
}

/** The describe/it tree of a test file (top-level describes holding its). */
function testTree(path) {
  const suites = [];
  for (const line of linesOf(files.get(path))) {
    const suite = /^describe\('((?:[^'\\]|\\.)*)'/.exec(line);
    if (suite) suites.push({ name: suite[1], tests: [] });
    const test = /^\s+it\('((?:[^'\\]|\\.)*)'/.exec(line);
    if (test && suites.length) suites[suites.length - 1].tests.push(test[1]);
  }
  return suites;
}

// With --project DIR, the project is also written as it is at every test run
// (DIR/run-NN, with the expected result in expected.json) to compare with real vitest.
let snapshotDir = null;
let testRuns = 0;
function snapshotProject(name, expected) {
  if (!snapshotDir) return;
  writeProject(join(snapshotDir, name), files);
  writeFileSync(join(snapshotDir, name, "expected.json"), JSON.stringify(expected) + "\n");
}

/** `npm test` output; `failures` are { file, title, error, diff?, needle }. */
function vitest({ filter, failures = [] } = {}) {
  const testFiles = [...files.keys()]
    .filter((p) => /^test\/.*\.test\.ts$/.test(p) && (!filter || p.includes(filter)))
    .sort();
  snapshotProject(`run-${String(++testRuns).padStart(2, "0")}`, { filter, failures: failures.length });
  const out = [`$ npx vitest run --reporter=verbose${filter ? ` ${filter}` : ""}`, "", ` RUN  v1.6.1 ${ROOT}`, ""];
  let total = 0;
  for (const path of testFiles) {
    for (const suite of testTree(path)) {
      for (const test of suite.tests) {
        total += 1;
        const failure = failures.find((f) => f.file === path && f.title === `${suite.name} > ${test}`);
        out.push(` ${failure ? "×" : "✓"} ${path} > ${suite.name} > ${test}`);
        if (failure) out.push(`   → ${failure.error.replace(/^AssertionError: /, "").split("\n")[0]}`);
      }
    }
  }
  if (failures.length) {
    out.push("", `⎯⎯⎯⎯⎯⎯⎯ Failed Tests ${failures.length} ⎯⎯⎯⎯⎯⎯⎯`, "");
    failures.forEach((f, i) => {
      out.push(` FAIL  ${f.file} > ${f.title}`, f.error);
      if (f.diff) out.push("", f.diff);
      out.push("", codeFrame(f.file, f.needle), "", `${"⎯".repeat(24)}[${i + 1}/${failures.length}]⎯`, "");
    });
  }
  const failedFiles = new Set(failures.map((f) => f.file)).size;
  const [transform, collect, tests, prepare] = [
    between(180, 420),
    between(300, 700),
    between(20, 90),
    between(400, 900),
  ];
  if (!failures.length) out.push("");
  out.push(
    ` Test Files  ${counts(failedFiles, testFiles.length)}`,
    `      Tests  ${counts(failures.length, total)}`,
    `   Start at  ${startTime()}`,
    `   Duration  ${((transform + collect + prepare) / 1000 + 0.11).toFixed(2)}s (transform ${transform}ms, setup 0ms, collect ${collect}ms, tests ${tests}ms, environment 0ms, prepare ${prepare}ms)`,
    "",
  );
  out.push(`(exit code ${failures.length ? 1 : 0})`);
  return out.join("\n");
}

function counts(failed, all) {
  const parts = [];
  if (failed) parts.push(`${failed} failed`);
  if (all > failed) parts.push(`${all - failed} passed`);
  return `${parts.join(" | ")} (${all})`;
}

/** Failures of the shipped isoWeek, computed with its JS twin. */
function weekFailures() {
  const failures = [];
  for (const c of ISO_CASES) {
    const got = isoWeek(c.day, true);
    const want = { year: c.year, week: c.week };
    if (got.year === want.year && got.week === want.week) continue;
    failures.push({
      file: "test/week.test.ts",
      title: `isoWeek > ${c.name}`,
      error: `AssertionError: expected ${inspect(got)} to deeply equal ${inspect(want)}`,
      diff: valueDiff(want, got),
      needle: `isoWeek(parseDay('${c.day}'))`,
    });
  }
  const wrong = REFERENCE.find(([day, label]) => weekLabel(isoWeek(day, true)) !== label);
  if (wrong) {
    const got = weekLabel(isoWeek(wrong[0], true));
    failures.push({
      file: "test/week.test.ts",
      title: "isoWeek > matches the reference table",
      error: `AssertionError: ${wrong[0]}: expected '${got}' to be '${wrong[1]}' // Object.is equality`,
      diff: valueDiff(wrong[1], got),
      needle: "expect(formatWeek(isoWeek(parseDay(day))), day)",
    });
  }
  const want = WEEKS_IN_YEARS.map((y) => weeksInYear(y));
  const got = WEEKS_IN_YEARS.map((y) => weeksInYear(y, true));
  if (want.join() !== got.join()) {
    failures.push({
      file: "test/week.test.ts",
      title: "weeksInYear > counts 53 weeks in 2020 and 2026, 52 in 2021 and 2024",
      error: `AssertionError: expected ${inspect(got)} to deeply equal ${inspect(want)}`,
      diff: valueDiff(want, got),
      needle: ".map(weeksInYear)",
    });
  }
  return failures;
}

const CSV_FAILURES = [
  {
    file: "test/csv.test.ts",
    title: "parseCsv > unescapes doubled quotes inside quoted fields",
    error: `AssertionError: expected [ [ 'say ""hi""', 'x' ] ] to deeply equal [ [ 'say "hi"', 'x' ] ]`,
    diff: valueDiff([['say "hi"', "x"]], [['say ""hi""', "x"]]),
    needle: `expect(parseCsv('"say ""hi""",x'))`,
  },
  {
    file: "test/csv.test.ts",
    title: "toRecords > reads a Harvest export",
    error: `AssertionError: expected 'Pairing on ""retry"" backoff, see PR …' to be 'Pairing on "retry" backoff, see PR #4…' // Object.is equality`,
    diff: valueDiff('Pairing on "retry" backoff, see PR #412', 'Pairing on ""retry"" backoff, see PR #412'),
    needle: "expect(records[2]?.notes)",
  },
];

const AGGREGATE_FAILURE = {
  file: "test/aggregate.test.ts",
  title: "totalsByWeek > totals minutes per ISO week for the fixture export",
  error: `AssertionError: expected ${inspect(TOTALS_FIXED)} to deeply equal ${inspect(TOTALS_BUGGY)}`,
  diff: valueDiff(TOTALS_BUGGY, TOTALS_FIXED),
  needle: "expect(totalsByWeek(entries))",
};

const SINCE_FAILURE = {
  file: "test/cli.test.ts",
  title: "parseArgs > rejects an invalid --since date",
  error: "AssertionError: expected error to be instance of UsageError",
  diff: [
    "- Expected: ",
    "[Function UsageError]",
    "",
    "+ Received: ",
    "[RangeError: invalid day '2024-13-01': no such date]",
  ].join("\n"),
  needle: "parseArgs(['--since', '2024-13-01', 'a.csv'])",
};

function npmScript(name, command, body, code) {
  return ["", `> tallyho@0.4.2 ${name}`, `> ${command}`, "", body, code ? "" : null, `(exit code ${code})`]
    .filter((l) => l !== null)
    .join("\n");
}

function typecheck() {
  snapshotProject("typecheck", { typecheck: "TS2345" });
  const since = locate("src/cli.ts", "args.since = parseDay(value)", "value)");
  const body = [
    `src/cli.ts(${since.line},${since.column}): error TS2345: Argument of type 'string | undefined' is not assignable to parameter of type 'string'.`,
    "  Type 'undefined' is not assignable to type 'string'.",
  ].join("\n");
  return npmScript("typecheck", "tsc --noEmit", body, 2);
}

function lint() {
  const unused = locate("src/aggregate.ts", "import { formatWeek", "formatWeek");
  const mutable = locate("src/cli.ts", "let value = argv[++i];", "value");
  const body = [
    "",
    `${ROOT}/src/aggregate.ts`,
    `  ${unused.line}:${unused.column}  warning  'formatWeek' is defined but never used  @typescript-eslint/no-unused-vars`,
    "",
    `${ROOT}/src/cli.ts`,
    `  ${mutable.line}:${mutable.column}  error  'value' is never reassigned. Use 'const' instead  prefer-const`,
    "",
    "✖ 2 problems (1 error, 1 warning)",
    "  1 error and 0 warnings potentially fixable with the `--fix` option.",
  ].join("\n");
  return npmScript("lint", "eslint src test", body, 1);
}

function diffStat() {
  const rows = [];
  for (const [path, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    const before = original.get(path);
    if (before === text) continue;
    const ops = lineDiff(linesOf(before), linesOf(text));
    rows.push([path, ops.filter(([op]) => op === "+").length, ops.filter(([op]) => op === "-").length]);
  }
  return statLines(rows);
}

const toHours = (minutes) => Math.round((minutes / 60) * 10) / 10;

/** The table `tallyho --by week+project` prints (the fixed version of src/report.ts). */
function reportTable(entries) {
  const groups = new Map();
  for (const e of entries) {
    const week = weekLabel(isoWeek(e.day));
    const key = `${week}/${e.project}`;
    const g = groups.get(key) ?? { week, project: e.project, entries: 0, minutes: 0, days: new Set() };
    g.entries += 1;
    g.minutes += e.minutes;
    g.days.add(e.day);
    groups.set(key, g);
  }
  const rows = [...groups.values()].sort((a, b) => a.week.localeCompare(b.week) || a.project.localeCompare(b.project));
  const header = ["Week", "Project", "Entries", "Days", "Hours"];
  const right = [false, false, true, true, true];
  const total = [
    "Total",
    "",
    String(entries.length),
    String(new Set(entries.map((e) => e.day)).size),
    toHours(entries.reduce((n, e) => n + e.minutes, 0)).toFixed(1),
  ];
  const body = rows.map((r) => [
    r.week,
    r.project,
    String(r.entries),
    String(r.days.size),
    toHours(r.minutes).toFixed(1),
  ]);
  const all = [header, ...body, total];
  const widths = header.map((_, i) => Math.max(...all.map((row) => row[i].length)));
  const line = (cells) =>
    cells
      .map((c, i) => (right[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  return [line(header), rule, ...body.map(line), rule, line(total)].join("\n");
}

const STANDUPS = ["2024-03-04", "2024-03-05", "2024-03-06"].map((day) => ({
  day,
  project: "acme-portal",
  minutes: 20,
}));

/** Before the fix every 20-minute entry counted as 0.3h. */
function standupReport(fixed) {
  const table = reportTable(STANDUPS);
  return `${fixed ? table : table.replace(/1\.0$/gm, "0.9")}\n(exit code 0)`;
}

/** Unified diff of two versions of a file, 3 lines of context, as git prints it. */
function unifiedDiff(path, before, after, index) {
  let o = 1;
  let n = 1;
  const rows = lineDiff(linesOf(before), linesOf(after)).map(([op, line]) => {
    const row = { op, line, o, n };
    if (op !== "+") o++;
    if (op !== "-") n++;
    return row;
  });
  const hunks = [];
  rows.forEach((row, i) => {
    if (row.op === " ") return;
    const start = Math.max(0, i - 3);
    const end = Math.min(rows.length, i + 4);
    const last = hunks[hunks.length - 1];
    if (last && start <= last.end) last.end = end;
    else hunks.push({ start, end });
  });
  const out = [`diff --git a/${path} b/${path}`, `index ${index} 100644`, `--- a/${path}`, `+++ b/${path}`];
  for (const { start, end } of hunks) {
    const slice = rows.slice(start, end);
    const oldCount = slice.filter((r) => r.op !== "+").length;
    const newCount = slice.filter((r) => r.op !== "-").length;
    out.push(`@@ -${slice[0].o},${oldCount} +${slice[0].n},${newCount} @@`);
    out.push(...slice.map((r) => `${r.op}${r.line}`));
  }
  return out.join("\n");
}

const DATE_FNS_COMMIT = [
  "commit 3f8d2a1c6e0b9d47a2f5e8c1b3d6a9f0e4c7b2d5",
  "Author: Alex Moreau <alex@tallyho.dev>",
  "Date:   Tue Feb 27 16:12:09 2024 +0100",
  "",
  "    Replace date-fns with our own ISO week helpers (#51)",
  "",
  "    date-fns was 1.9 MB of our 2 MB install size for two functions. src/week.ts",
  "    implements ISO 8601 week dates in UTC, so results no longer depend on TZ.",
  "",
  "    Fixture totals in aggregate.test.ts re-recorded with the new helpers.",
].join("\n");

/** `git diff --stat` lines; bars scaled to 40 columns like git does for wide changes. */
function statLines(rows) {
  const width = Math.max(...rows.map(([p]) => p.length));
  const most = Math.max(...rows.map(([, plus, minus]) => plus + minus));
  const digits = String(most).length;
  const scale = most > 40 ? 40 / most : 1;
  const bar = (n) => (n === 0 ? 0 : Math.max(1, Math.round(n * scale)));
  const insertions = rows.reduce((n, [, plus]) => n + plus, 0);
  const deletions = rows.reduce((n, [, , minus]) => n + minus, 0);
  return [
    ...rows.map(
      ([p, plus, minus]) =>
        ` ${p.padEnd(width)} | ${String(plus + minus).padStart(digits)} ${"+".repeat(bar(plus))}${"-".repeat(bar(minus))}`,
    ),
    ` ${rows.length} files changed, ${insertions} insertions(+), ${deletions} deletions(-)`,
  ].join("\n");
}

function dateFnsCommitStat() {
  const after = original.get("test/aggregate.test.ts");
  const ops = lineDiff(linesOf(after.replace(AGGREGATE_SNAPSHOT_OLD, AGGREGATE_SNAPSHOT_NEW)), linesOf(after));
  const count = (op) => ops.filter(([o]) => o === op).length;
  return [
    DATE_FNS_COMMIT,
    "",
    statLines([
      ["package.json", 0, 3],
      ["src/aggregate.ts", 6, 6],
      ["src/week.ts", linesOf(original.get("src/week.ts")).length, 0],
      ["test/aggregate.test.ts", count("+"), count("-")],
      ["test/week.test.ts", 61, 0],
    ]),
  ].join("\n");
}

function dateFnsCommitTestDiff() {
  const after = original.get("test/aggregate.test.ts");
  const before = after.replace(AGGREGATE_SNAPSHOT_OLD, AGGREGATE_SNAPSHOT_NEW);
  return `${DATE_FNS_COMMIT}\n\n${unifiedDiff("test/aggregate.test.ts", before, after, "5c0e2d1..b81f4a9")}`;
}

// ---------------------------------------------------------------------------
// The conversation: examples/demo-conversation.json, replayed. A step is a message
// (`say`: its role, `text`) or an assistant turn (`act`: `text`, `reasoning`, `calls`).
// A call runs its tool against the project as it stands, unless it gives its `output`;
// `simulate` names a computed command output, `failures` the failures a test run reports.

if (process.argv[2] === "--project") snapshotDir = process.argv[3];

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
