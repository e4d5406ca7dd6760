#!/usr/bin/env node
// Generates examples/demo-session.openai.json: a realistic coding-agent session in
// OpenAI Chat Completions format, used by demos, the playground and tests.
//
// The session: an agent debugging "tallyho", a small TypeScript CLI that turns CSV
// time-tracking exports into weekly reports. It lists, reads, greps and edits files
// and runs tests; several turns make parallel tool calls, two carry reasoning_content.
//
// The project is real files, examples/demo-project/ (as the session finds it); this
// script holds the conversation and the simulated tools. Everything is deterministic (a
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

// Source text as written: backslashes are kept (raw), "\`" and "\${" stand for a
// backtick and a template placeholder of the TypeScript code; common indentation
// and the leading newline are removed.
function code(strings, ...values) {
  let text = strings.raw[0];
  values.forEach((value, i) => {
    text += value + strings.raw[i + 1];
  });
  text = text.replace(/\\`/g, "`").replace(/\\\$\{/g, "${");
  const lines = text.replace(/^\n/, "").split("\n");
  const indents = lines.filter((l) => l.trim() !== "").map((l) => l.match(/^ */)[0].length);
  const cut = Math.min(...indents);
  return (
    lines
      .map((l) => l.slice(cut).replace(/[ \t]+$/, ""))
      .join("\n")
      .replace(/\s+$/, "") + "\n"
  );
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
const PROJECT_DIR = join(dirname(fileURLToPath(import.meta.url)), "demo-project");
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

// Like `code`, without dedenting: for edit strings, whose indentation is exact.
function snippet(strings, ...values) {
  let text = strings.raw[0];
  values.forEach((value, i) => {
    text += value + strings.raw[i + 1];
  });
  return text
    .replace(/\\`/g, "`")
    .replace(/\\\$\{/g, "${")
    .replace(/^\n/, "")
    .replace(/\n$/, "");
}

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

const GIT_LOG = [
  "a41c9e2 (HEAD -> main, origin/main) Add ISO week reference tests and a Harvest fixture with quoted notes (#58)",
  "5be7d10 Release 0.4.2",
  '7d03b18 Accept Harvest\'s "Hours Rounded" column (#57)',
  "c29e6f0 Match --project case-insensitively (#56)",
  "e5b2c40 Release 0.4.1",
  "91ad7c3 Round seconds in hh:mm:ss durations (#54)",
  "b7f4e18 Release 0.4.0",
  "3f8d2a1 Replace date-fns with our own ISO week helpers (#51)",
  "0c5e9b7 Add --format json (#49)",
  "6a2f4d8 Sort report rows by week, then project (#48)",
].join("\n");

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

const SUNDAY_COMMAND =
  "node -e \"const fs=require('fs');for(const l of fs.readFileSync('fixtures/entries.csv','utf8').split('\\n').slice(1)){const d=l.split(',')[0];if(d&&new Date(d+'T00:00:00Z').getUTCDay()===0)console.log(l)}\"";

// ---------------------------------------------------------------------------
// The conversation

if (process.argv[2] === "--project") snapshotDir = process.argv[3];

const messages = [];

function say(role, content) {
  messages.push({ role, content });
}

/** An assistant turn; its tool calls are run (or answered by `result`) in order. */
function act({ text = null, reasoning, calls = [] }) {
  const message = { role: "assistant", content: text };
  if (reasoning) message.reasoning_content = reasoning;
  const made = calls.map((c) => ({ ...c, id: callId() }));
  if (made.length) {
    message.tool_calls = made.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: JSON.stringify(c.args) },
    }));
  }
  messages.push(message);
  for (const c of made) {
    const content = c.result ? c.result() : TOOLS[c.name](c.args);
    messages.push({ role: "tool", tool_call_id: c.id, content });
  }
}

const call = (name, args, result) => ({ name, args, result });
const read = (path, more = {}) => call("read_file", { path, ...more });
const edit = (path, oldText, newText) => call("edit_file", { path, old_string: oldText, new_string: newText });
const command = (cmd, result) => call("run_command", { command: cmd }, result);
const tests = (filter, failures) => call("run_tests", filter ? { filter } : {}, () => vitest({ filter, failures }));

say(
  "system",
  code`
  You are Forge, a coding agent working in the user's repository at ${ROOT} (a TypeScript
  project, Node 20, npm). You can inspect and change the repository only through your tools:

  - list_dir(path): list a directory.
  - read_file(path, offset?, limit?): read a file, with line numbers.
  - grep(pattern, path?): search file contents with a regular expression.
  - edit_file(path, old_string, new_string): replace one exact, unique occurrence of old_string.
  - run_tests(filter?): run the test suite (vitest), optionally only files matching filter.
  - run_command(command): run a shell command in the repository root and return its output.

  How to work:
  - Reproduce a problem before fixing it, and read code before editing it.
  - Keep changes small and in the style of the surrounding code; do not reformat files.
  - Never change a test's expectation just to make it pass. If an expectation is wrong,
    show why before changing it.
  - Run the tests after every change. Do not commit, push or install packages.
  - When several independent reads or checks are needed, make the calls in parallel.
  - Answer concisely: what was wrong, what you changed, how you verified it.
  `,
);

// Turn 1: CI is red -----------------------------------------------------------

say(
  "user",
  "CI has been red on main since yesterday: `npm test` fails in the week and CSV tests. I think it started with the date-fns removal in 0.4.0 but I'm not sure. Can you find out what's going on and fix it? Please don't change the public API.",
);

act({
  text: "I'll look at the project layout and scripts first, then reproduce the failure.",
  calls: [
    call("list_dir", { path: "." }),
    read("package.json"),
    command("git log --oneline -10", () => `${GIT_LOG}\n(exit code 0)`),
  ],
});

act({
  calls: [
    tests(
      undefined,
      [...CSV_FAILURES, ...weekFailures()].sort((a, b) => a.file.localeCompare(b.file)),
    ),
  ],
});

const weekFailureCount = weekFailures().length;
act({
  reasoning: code`
  ${weekFailureCount} failures in week.test.ts and 2 in csv.test.ts; everything else passes, so the
  aggregation and report code is probably fine.

  Week failures:
  - 2024-03-10 is a Sunday and comes out as week 11 instead of 10. Classic: getUTCDay()
    returns 0 for Sunday, so "move to this week's Thursday" with 4 - weekday jumps four
    days forward into the next week.
  - 2021-01-03 (also a Sunday) comes out as 2021-W02 instead of 2020-W53: same Sunday bug.
  - 2021-01-07 is a Thursday and comes out as week 2. That is not the Sunday bug. The
    Thursday is 6 days after January 1st: 6/7 = 0.86. If the week number uses
    Math.round, that rounds up to 1, +1 = week 2. It has to be Math.floor.
  - weeksInYear(2021) = 53 fits the rounding theory too: December 30th 2021 is 363 days
    after January 1st, 363/7 = 51.86, rounded 52, +1 = 53.

  CSV failures: 'say ""hi""' instead of 'say "hi"'. The parser appends both quotes of
  an escaped quote.

  Why red only since yesterday? The last commit (#58) added ISO week reference tests
  and a Harvest fixture with quoted notes: the bugs may be older (date-fns removal,
  #51, in 0.4.0) and only now covered by tests.

  Read week.ts and its tests, csv.ts, and index.ts (the user wants the public API
  unchanged) in parallel.
  `.trim(),
  text: "Two separate problems: ISO week numbers are off (Sundays and some early-January days), and escaped quotes in CSV fields come out doubled. The last commit (#58) added tests for exactly these cases, which would explain why CI only turned red yesterday. Let me read the code.",
  calls: [read("src/week.ts"), read("test/week.test.ts"), read("src/csv.ts"), read("src/index.ts")],
});

act({
  text: "Before changing `isoWeek`, let me see everything that depends on it and every place that computes weekdays by hand.",
  calls: [call("grep", { pattern: "isoWeek|formatWeek|getUTCDay\\(|getDay\\(", path: "." })],
});

act({
  text: code`
  Both week bugs are in \`isoWeek\`:

  1. \`getUTCDay()\` returns 0 for Sunday, so \`4 - weekday\` moves a Sunday forward to the *next* week's Thursday. \`weekStart\` already handles this with \`|| 7\`; \`isoWeek\` doesn't.
  2. The week number uses \`Math.round\`. The Thursday of week 1 can fall up to 6 days after January 1st, and 6/7 rounds up to a whole extra week. It must be \`Math.floor\`.

  Fixing both:
  `.trim(),
  calls: [
    edit(
      "src/week.ts",
      snippet`
  // The ISO year of a week is the calendar year of its Thursday.
  const weekday = date.getUTCDay();
  const thursday = addDays(date, 4 - weekday);
  const year = thursday.getUTCFullYear();
  const firstOfYear = Date.UTC(year, 0, 1);
  const week = Math.round((thursday.getTime() - firstOfYear) / DAY_MS / 7) + 1;
`,
      snippet`
  // The ISO year of a week is the calendar year of its Thursday. getUTCDay() counts
  // Sunday as 0; ISO counts it as 7, the last day of the week.
  const weekday = date.getUTCDay() || 7;
  const thursday = addDays(date, 4 - weekday);
  const year = thursday.getUTCFullYear();
  const firstOfYear = Date.UTC(year, 0, 1);
  // Whole weeks since January 1st: week 1's Thursday lies 0 to 6 days after it.
  const week = Math.floor((thursday.getTime() - firstOfYear) / DAY_MS / 7) + 1;
`,
    ),
  ],
});

act({ calls: [tests("week")] });

act({
  text: "All week tests pass now. On to the CSV failures: the test and the Harvest fixture it reads.",
  calls: [read("test/csv.test.ts"), read("fixtures/harvest-export.csv")],
});

act({
  text: 'The parser appends `""` for an escaped quote instead of a single `"`, which is exactly the `say ""hi""` in the failure. One-character fix:',
  calls: [
    edit(
      "src/csv.ts",
      snippet`
          // "" inside a quoted field is an escaped quote
          field += '""';
`,
      snippet`
          // "" inside a quoted field is one escaped quote
          field += '"';
`,
    ),
  ],
});

act({ calls: [tests(undefined, [AGGREGATE_FAILURE])] });

const sundayWeeks = SUNDAY_ROWS.map((row) => {
  const day = row.split(",")[0];
  return { day, before: weekLabel(isoWeek(day, true)), after: weekLabel(isoWeek(day)) };
});
const sundayDays = [...new Set(sundayWeeks.map((s) => s.day))];

act({
  text: code`
  The CSV tests pass. The new failure in \`aggregate.test.ts\` comes from the week fix: the expected totals include a \`2024-W15\` key, but the fixture export ends on Sunday 2024-04-07, which is in W14. The expectation looks like it was recorded with the buggy \`isoWeek\`. I'll check that against the fixture before touching the test.
  `.trim(),
  calls: [
    read("test/aggregate.test.ts"),
    read("fixtures/entries.csv"),
    command("git log --oneline -- test/aggregate.test.ts", () =>
      [
        "3f8d2a1 Replace date-fns with our own ISO week helpers (#51)",
        "6a2f4d8 Sort report rows by week, then project (#48)",
        "2d91b0e Add totalsByWeek (#31)",
        "(exit code 0)",
      ].join("\n"),
    ),
  ],
});

act({
  text: "The expectation was last changed by the date-fns removal itself. Let me see that change, and list the Sunday entries in the fixture, since only those can have moved.",
  calls: [
    command("git show --stat 3f8d2a1", () => `${dateFnsCommitStat()}\n(exit code 0)`),
    command("git show 3f8d2a1 -- test/aggregate.test.ts", () => `${dateFnsCommitTestDiff()}\n(exit code 0)`),
    command(SUNDAY_COMMAND, () => `${SUNDAY_ROWS.join("\n")}\n(exit code 0)`),
  ],
});

act({
  text: code`
  Confirmed on two counts. Commit 3f8d2a1, the one that introduced the buggy \`isoWeek\`, also "re-recorded" these totals, so the test was adjusted to the bug; the values it replaced are exactly what the fixed code computes now. And the fixture has Sunday entries on ${sundayDays.join(", ")}. The old \`isoWeek\` put each of them in the following week (${sundayWeeks
    .filter((s, i, all) => all.findIndex((t) => t.day === s.day) === i)
    .map((s) => `${s.day} in ${s.before} instead of ${s.after}`)
    .join(
      "; ",
    )}), and the differences between expected and received totals are exactly those entries' minutes. The expectation encoded the bug, so I'm updating it to the correct ISO weeks:
  `.trim(),
  calls: [edit("test/aggregate.test.ts", AGGREGATE_SNAPSHOT_OLD, AGGREGATE_SNAPSHOT_NEW)],
});

act({ calls: [tests()] });

act({
  text: code`
  CI should be green again. All ${[...files.keys()].filter((p) => p.endsWith(".test.ts")).length} test files pass.

  **What was wrong**
  - \`isoWeek\` (\`src/week.ts\`), both bugs from the date-fns replacement in 0.4.0:
    - Sundays were counted as day 0, so they landed in the *next* ISO week (2024-03-10 gave W11 instead of W10).
    - The week number used \`Math.round\` instead of \`Math.floor\`, so days whose Thursday falls 4 to 6 days into January got week 2 instead of week 1 (2021-01-07). The same bug made \`weeksInYear(2021)\` return 53.
  - \`parseCsv\` (\`src/csv.ts\`) turned an escaped quote \`""\` into two quotes instead of one, which broke notes like \`Pairing on "retry" backoff\` in Harvest exports.

  **What I changed**
  - \`src/week.ts\`: \`getUTCDay() || 7\` and \`Math.floor\` in \`isoWeek\`.
  - \`src/csv.ts\`: append a single \`"\` for \`""\`.
  - \`test/aggregate.test.ts\`: the fixture totals had been recorded with the buggy \`isoWeek\` (the \`2024-W15\` key came from the last Sunday). I checked the Sunday entries in \`fixtures/entries.csv\` and updated the totals to the correct weeks.

  No public API changed. Why CI only turned red yesterday: both bugs shipped in 0.4.0 (#51), but nothing tested Sundays, early January or escaped quotes until #58 added those tests. So weekly totals since 0.4.0 were wrong for anyone who logged time on a Sunday, which is worth a line in the changelog.
  `.trim(),
});

// Turn 2: rounding ------------------------------------------------------------

say(
  "user",
  "Thanks! Different issue, reported by Priya: her weekly report shows 0.9h for three 20-minute standups. That should obviously be 1.0h.",
);

const STANDUPS_COMMAND =
  "printf 'date,project,task,duration\\n2024-03-04,acme-portal,standup,20m\\n2024-03-05,acme-portal,standup,20m\\n2024-03-06,acme-portal,standup,20m\\n' > /tmp/standups.csv && npx tsx src/cli.ts /tmp/standups.csv";

act({
  text: "Let me reproduce it with a three-line export.",
  calls: [command(STANDUPS_COMMAND, () => standupReport(false))],
});

act({
  text: "Reproduced. Let me find where minutes become hours.",
  calls: [call("grep", { pattern: "toHours|formatHours|hours \\+=", path: "src" })],
});

act({ calls: [read("src/aggregate.ts"), read("src/duration.ts"), read("src/report.ts"), read("test/report.test.ts")] });

act({
  reasoning: code`
  add() converts each entry to hours with toHours, which rounds to one decimal, and then
  sums: 20 min = 0.333h, rounded 0.3; three of them make 0.9. Rounding before summing
  accumulates the error; it can be off by up to 0.05h per entry.

  Fix: keep the exact minutes on the group and derive hours from the sum. Group is an
  exported type. Adding a field is additive, so nothing that reads groups breaks, and
  hours keeps its meaning (one decimal), now computed from the exact total.

  report.ts has the same problem one level up: totalOf sums the rows' rounded hours for
  the Total line. With minutes on each group it can sum minutes and round once.
  `.trim(),
  text: "`add()` in `src/aggregate.ts` rounds every entry to one decimal *before* summing: 20 minutes is 0.33h, rounded to 0.3, and three of those make 0.9. I'll keep the exact minutes on each group and round once, from the sum. `Group` only gains a `minutes` field, so this is backwards compatible.",
  calls: [
    edit(
      "src/aggregate.ts",
      snippet`
  /** Number of entries in the group. */
  entries: number;
  /** Decimal hours, rounded to one decimal. */
  hours: number;
`,
      snippet`
  /** Number of entries in the group. */
  entries: number;
  /** Exact total in minutes: sums are taken on this, never on rounded hours. */
  minutes: number;
  /** \`minutes\` as decimal hours, rounded to one decimal. */
  hours: number;
`,
    ),
    edit(
      "src/aggregate.ts",
      snippet`
    entries: 0,
    hours: 0,
`,
      snippet`
    entries: 0,
    minutes: 0,
    hours: 0,
`,
    ),
    edit(
      "src/aggregate.ts",
      snippet`
  group.entries += 1;
  group.hours += toHours(entry.minutes);
`,
      snippet`
  group.entries += 1;
  group.minutes += entry.minutes;
  // Round once, from the exact sum: rounding each entry first adds up the errors
  // (three 20-minute entries would make 3 x 0.3 = 0.9h).
  group.hours = toHours(group.minutes);
`,
    ),
  ],
});

act({
  text: "The Total line in `src/report.ts` sums the rows' already rounded hours, the same mistake one level up. It can now sum minutes too:",
  calls: [
    edit(
      "src/report.ts",
      "import { formatHours } from './duration.js';",
      "import { formatHours, toHours } from './duration.js';",
    ),
    edit(
      "src/report.ts",
      snippet`
  let entries = 0;
  let hours = 0;
  for (const group of groups) {
    entries += group.entries;
    hours += group.hours;
    group.days.forEach((day) => days.add(day));
  }
  return { entries, days: days.size, hours };
`,
      snippet`
  let entries = 0;
  let minutes = 0;
  for (const group of groups) {
    entries += group.entries;
    minutes += group.minutes;
    group.days.forEach((day) => days.add(day));
  }
  return { entries, days: days.size, hours: toHours(minutes) };
`,
    ),
  ],
});

act({
  text: "And a regression test with Priya's case:",
  calls: [
    edit(
      "test/aggregate.test.ts",
      snippet`
    expect(groups.map((g) => g.week && formatWeek(g.week))).toEqual(['2024-W01', '2025-W01']);
  });
});
`,
      snippet`
    expect(groups.map((g) => g.week && formatWeek(g.week))).toEqual(['2024-W01', '2025-W01']);
  });

  it('rounds the total, not each entry', () => {
    const standups = ['2024-03-04', '2024-03-05', '2024-03-06'].map((day) =>
      entry(day, 'acme-portal', 20),
    );
    const [group] = groupEntries(standups, 'week+project');
    expect(group?.minutes).toBe(60);
    expect(group?.hours).toBe(1);
  });
});
`,
    ),
  ],
});

act({ calls: [tests()] });

act({
  text: "Tests pass. Checking the original reproduction again:",
  calls: [command("npx tsx src/cli.ts /tmp/standups.csv", () => standupReport(true))],
});

act({
  text: code`
  Fixed: the standups now add up to 1.0h.

  **Cause:** \`groupEntries\` converted every entry to hours rounded to one decimal and summed the rounded values, so the rounding error grew with the number of entries (up to 0.05h per entry). Three 20-minute entries became 3 × 0.3 = 0.9h.

  **Change:**
  - \`Group\` has a new \`minutes\` field with the exact total; \`hours\` is computed once from it (\`src/aggregate.ts\`).
  - The Total line of the table sums minutes as well (\`src/report.ts\`); it had the same problem across rows.
  - New test \`rounds the total, not each entry\` in \`test/aggregate.test.ts\`.

  \`hours\` keeps its meaning (decimal hours, one decimal), and JSON output is unchanged apart from the corrected values.
  `.trim(),
});

// Turn 3: --since --------------------------------------------------------------

say(
  "user",
  "Nice. Could you add a `--since YYYY-MM-DD` option? Most of the time I want 'everything since the last invoice'. It should combine with --project and --week.",
);

act({
  text: "I'll read the CLI, its tests, the entry type it filters, and the README's option table.",
  calls: [read("src/cli.ts"), read("test/cli.test.ts"), read("src/entries.ts"), read("README.md")],
});

act({
  text: "I'll add `--since` next to `--week`: parse the day with `parseDay`, keep it in `CliArgs`, and filter in `selectEntries`, so it combines with the other filters.",
  calls: [
    edit(
      "src/cli.ts",
      "import { compareWeeks, isoWeek, parseWeek, type IsoWeek } from './week.js';",
      "import { compareWeeks, isoWeek, parseDay, parseWeek, type IsoWeek } from './week.js';",
    ),
    edit(
      "src/cli.ts",
      snippet`
  --week <YYYY-Www>                 only entries of this ISO week
`,
      snippet`
  --week <YYYY-Www>                 only entries of this ISO week
  --since <YYYY-MM-DD>              only entries on or after this day
`,
    ),
    edit(
      "src/cli.ts",
      snippet`
  week?: IsoWeek;
  help?: boolean;
`,
      snippet`
  week?: IsoWeek;
  /** Only entries on or after this day (UTC midnight). */
  since?: Date;
  help?: boolean;
`,
    ),
    edit(
      "src/cli.ts",
      snippet`
      default:
        if (arg.startsWith('-')) throw new UsageError(\`unknown option \${arg}\`);
`,
      snippet`
      case '--since': {
        let value = argv[++i];
        args.since = parseDay(value);
        break;
      }
      default:
        if (arg.startsWith('-')) throw new UsageError(\`unknown option \${arg}\`);
`,
    ),
  ],
});

act({
  calls: [
    edit(
      "src/cli.ts",
      snippet`
  if (week) selected = selected.filter((e) => compareWeeks(isoWeek(e.day), week) === 0);
  return selected;
`,
      snippet`
  if (week) selected = selected.filter((e) => compareWeeks(isoWeek(e.day), week) === 0);
  const since = args.since;
  if (since) selected = selected.filter((e) => e.day >= since);
  return selected;
`,
    ),
  ],
});

act({
  text: "Tests for parsing, for bad input, and for the filter itself:",
  calls: [
    edit(
      "test/cli.test.ts",
      snippet`
    expect(parseArgs(['--week', '2024-W10', 'a.csv']).week).toEqual({ year: 2024, week: 10 });
  });
`,
      snippet`
    expect(parseArgs(['--week', '2024-W10', 'a.csv']).week).toEqual({ year: 2024, week: 10 });
  });

  it('parses --since as a UTC day', () => {
    const args = parseArgs(['--since', '2024-03-05', 'a.csv']);
    expect(args.since?.toISOString()).toBe('2024-03-05T00:00:00.000Z');
  });

  it('rejects an invalid --since date', () => {
    expect(() => parseArgs(['--since', '2024-13-01', 'a.csv'])).toThrow(UsageError);
  });
`,
    ),
    edit(
      "test/cli.test.ts",
      snippet`
    expect(out.join('')).toBe('week,project,entries,days,hours\n2024-W11,globex-billing,1,1,1.5\n');
  });
`,
      snippet`
    expect(out.join('')).toBe('week,project,entries,days,hours\n2024-W11,globex-billing,1,1,1.5\n');
  });

  it('keeps only the entries on or after --since', () => {
    const { io, out } = fakeIo({ 'a.csv': CSV });
    expect(run(['--since', '2024-03-05', '--by', 'week', '--format', 'csv', 'a.csv'], io)).toBe(0);
    expect(out.join('')).toBe('week,entries,days,hours\n2024-W10,1,1,2.0\n2024-W11,1,1,1.5\n');
  });
`,
    ),
  ],
});

act({ calls: [tests("cli", [SINCE_FAILURE])] });

act({
  text: "`parseDay` throws a `RangeError`, but bad arguments must surface as `UsageError` so that `run` prints the usage and exits with 2. Wrapping it the way `--week` does:",
  calls: [
    edit(
      "src/cli.ts",
      snippet`
        let value = argv[++i];
        args.since = parseDay(value);
        break;
`,
      snippet`
        let value = argv[++i];
        try {
          args.since = parseDay(value);
        } catch (error) {
          throw new UsageError(\`--since: \${(error as Error).message}\`);
        }
        break;
`,
    ),
  ],
});

act({ calls: [tests()] });

act({
  text: "All green. A quick run against the fixture export, combined with `--project`:",
  calls: [
    command(
      "npx tsx src/cli.ts --since 2024-03-25 fixtures/entries.csv",
      () => `${reportTable(ENTRIES.filter((e) => e.day >= "2024-03-25"))}\n(exit code 0)`,
    ),
    command(
      "npx tsx src/cli.ts --since 2024-03-25 --project initech-api fixtures/entries.csv",
      () =>
        `${reportTable(ENTRIES.filter((e) => e.day >= "2024-03-25" && e.project === "initech-api"))}\n(exit code 0)`,
    ),
  ],
});

act({
  text: "Both look right: only weeks 13 and 14, and the project filter applies on top. Documenting the option in the README:",
  calls: [
    edit(
      "README.md",
      "| `--week <YYYY-Www>` | only entries of this ISO week, e.g. `2024-W10` |",
      "| `--week <YYYY-Www>` | only entries of this ISO week, e.g. `2024-W10` |\n| `--since <YYYY-MM-DD>` | only entries on or after this day, e.g. since the last invoice |",
    ),
  ],
});

act({
  text: code`
  \`--since\` is in:

  \`\`\`console
  $ tallyho --since 2024-03-01 --project acme-portal export.csv
  \`\`\`

  - \`src/cli.ts\`: new \`since?: Date\` in \`CliArgs\`, parsed with \`parseDay\` (invalid days are a usage error, exit code 2), applied in \`selectEntries\` after \`--project\` and \`--week\`, so all three combine. The day is inclusive.
  - \`test/cli.test.ts\`: three tests (parsing, an invalid date, filtering).
  - README and \`--help\` list the option.
  `.trim(),
});

// Turn 4: typecheck and lint ------------------------------------------------------

say("user", "CI also runs the typecheck and the linter. Can you run both?");

act({
  calls: [command("npm run typecheck", typecheck), command("npm run lint", lint)],
});

const sinceCase = locate("src/cli.ts", "case '--since': {");
act({
  text: "Let me look at the `--since` code the errors point at.",
  calls: [read("src/cli.ts", { offset: sinceCase.line - 12, limit: 30 })],
});

act({
  text: code`
  Two findings in my \`--since\` code, and one older warning:

  - \`argv[++i]\` is \`string | undefined\` (the project uses \`noUncheckedIndexedAccess\`), so a trailing \`--since\` with no value would reach \`parseDay(undefined)\`. The other options use \`requireValue\` for exactly this; so should \`--since\`. That also makes the \`let\` a \`const\`.
  - \`src/aggregate.ts\` imports \`formatWeek\` but has its own copy of it, \`label()\`. That warning predates today and doesn't fail CI (only errors do), but using \`formatWeek\` and deleting the copy is a two-line cleanup, so I'll include it.
  `.trim(),
  calls: [
    edit(
      "src/cli.ts",
      snippet`
      case '--since': {
        let value = argv[++i];
`,
      snippet`
      case '--since': {
        const value = requireValue(argv, ++i, '--since');
`,
    ),
    edit(
      "src/aggregate.ts",
      "  return Object.fromEntries(ordered.map((t) => [label(t.week), t.minutes]));",
      "  return Object.fromEntries(ordered.map((t) => [formatWeek(t.week), t.minutes]));",
    ),
    edit(
      "src/aggregate.ts",
      snippet`
}

function label(week: IsoWeek): string {
  return \`\${week.year}-W\${String(week.week).padStart(2, '0')}\`;
}
`,
      "}",
    ),
  ],
});

act({
  text: "Re-reading the option parsing as a whole to make sure it is consistent now:",
  calls: [read("src/cli.ts", { offset: locate("src/cli.ts", "export function parseArgs").line, limit: 70 })],
});

act({
  calls: [
    command("npm run typecheck", () => npmScript("typecheck", "tsc --noEmit", "", 0)),
    command("npm run lint", () => npmScript("lint", "eslint src test", "", 0)),
    tests(),
  ],
});

act({
  text: code`
  Typecheck, lint and tests are all clean now.

  - \`src/cli.ts\`: \`--since\` reads its value with \`requireValue\`, like the other options, so \`tallyho a.csv --since\` reports "--since needs a value" instead of crashing. This fixed both the type error and the \`prefer-const\` error.
  - \`src/aggregate.ts\`: removed \`label()\`, a copy of \`formatWeek\`, and used the imported \`formatWeek\` instead. That was the unused-import warning, left over from the date-fns removal.
  `.trim(),
});

// Turn 5: changelog and PR ---------------------------------------------------------

say("user", "Perfect. Please add CHANGELOG entries and draft a PR description I can paste.");

act({
  calls: [read("CHANGELOG.md"), command("git diff --stat", () => `${diffStat()}\n(exit code 0)`)],
});

act({
  calls: [
    edit(
      "CHANGELOG.md",
      "## [Unreleased]\n",
      code`
      ## [Unreleased]

      ### Added
      - \`--since <YYYY-MM-DD>\` to report only entries on or after a day.
      - \`Group.minutes\`: the exact total of a report row, in minutes.

      ### Fixed
      - ISO weeks: Sundays were counted in the following week, and days early in January
        could get week 2 instead of week 1 (regressions from the date-fns removal in 0.4.0).
        Weekly totals since 0.4.0 were wrong for anyone who logged time on a Sunday.
      - CSV: a doubled quote inside a quoted field (\`""\`) now reads as one quote.
      - Hours are rounded once per row and once for the total, not per entry: three
        20-minute entries now add up to 1.0h instead of 0.9h.
      `,
    ),
  ],
});

act({
  text: code`
  CHANGELOG updated under \`[Unreleased]\`. Here is a PR description:

  ---

  **Fix ISO week numbers, CSV quote unescaping and hour rounding; add \`--since\`**

  CI has been failing since #58 added tests for Sundays, early January and quoted CSV notes. They exposed bugs that shipped with the date-fns removal in 0.4.0 (#51) and that also affected users' reports. This PR fixes them and adds a \`--since\` option.

  ### Fixes
  - **ISO weeks** (\`src/week.ts\`): \`isoWeek\` treated Sunday as day 0, which moved Sundays into the following week, and used \`Math.round\` instead of \`Math.floor\` for the week number, which gave some early-January days week 2 instead of week 1. \`weeksInYear\` inherited the second bug (2021 came out with 53 weeks).
  - **CSV** (\`src/csv.ts\`): an escaped quote \`""\` in a quoted field was read as two quotes.
  - **Rounding** (\`src/aggregate.ts\`, \`src/report.ts\`): hours were rounded per entry before summing, so rows and totals drifted (three 20-minute entries showed 0.9h). Groups now keep exact \`minutes\` and round once.
  - **Lint**: removed a duplicate of \`formatWeek\` in \`src/aggregate.ts\` (unused-import warning).

  ### Added
  - \`--since <YYYY-MM-DD>\`: only entries on or after the given day; combines with \`--project\` and \`--week\`.

  ### Tests
  - The fixture totals in \`test/aggregate.test.ts\` had been recorded with the buggy week function (they contained a \`2024-W15\` key for an export that ends on Sunday 2024-04-07). They were corrected after checking every Sunday entry in \`fixtures/entries.csv\`.
  - New tests: rounding of totals, \`--since\` parsing, an invalid date, and filtering.

  ### Compatibility
  No breaking changes. \`Group\` gains a \`minutes\` field. Weekly numbers change for data with Sunday entries, which is the fix.

  \`npm test\`, \`npm run typecheck\` and \`npm run lint\` pass locally.
  `.trim(),
});

// Turn 6: a last check -------------------------------------------------------------

say(
  "user",
  "One more thing before I open it: is there any other hand-rolled weekday math in the repo that could have the same Sunday problem?",
);

act({
  calls: [call("grep", { pattern: "getUTCDay|getDay\\(|DAY_MS|\\* 7", path: "." })],
});

act({
  text: code`
  No. All weekday arithmetic is in \`src/week.ts\`:

  - \`isoWeek\`: fixed in this PR (\`getUTCDay() || 7\`).
  - \`weekStart\`: already used \`|| 7\`, which is why Monday-of-week results were right all along.
  - \`daysOfWeek\` and \`weeksInYear\` build on \`weekStart\` and \`isoWeek\`, with no weekday math of their own.

  The other hits are \`addDays\` and the week-number division, both fine. Everything else (\`aggregate.ts\`, \`cli.ts\`, \`report.ts\`) goes through these helpers, so the fix covers them. The reference table that #58 added to \`test/week.test.ts\` includes Sundays at year boundaries (2022-01-02, 2023-01-01, 2027-01-03), so a regression would be caught.
  `.trim(),
});

// ---------------------------------------------------------------------------
// Output

const here = dirname(fileURLToPath(import.meta.url));
let target = process.argv[2] ?? join(here, "demo-session.openai.json");
if (process.argv[2] === "--project") {
  writeProject(join(process.argv[3], "before"), original);
  writeProject(join(process.argv[3], "after"), files);
  target = join(here, "demo-session.openai.json");
}
const json = JSON.stringify(messages, null, 2) + "\n";
writeFileSync(target, json);
const calls = messages.reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0);
console.log(
  `${target}: ${messages.length} messages, ${calls} tool calls, ${(Buffer.byteLength(json) / 1024).toFixed(1)} KB`,
);
