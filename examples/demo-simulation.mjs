// The simulated tools of the demo session (examples/make-demo-session.mjs): reads,
// greps and edits of the project as it stands, and the outputs of running things
// (vitest, tsc, eslint, git, node), computed from the project so that test counts, code
// frames and line numbers match its files.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The tools and command outputs, over `world`: the project (`files`, edited in place,
 * and `original`), the seeded PRNG's `between`, the project's own date logic and the
 * data its tests are built from; with `snapshotDir`, every test run also writes the
 * project as it stands there (to check the simulation against the real tools).
 */
export function simulation(world) {
  const {
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
    snapshotDir,
  } = world;

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
        ([dir, count]) =>
          `${dir.padEnd(24)}${count === null ? "      (ignored)" : `${String(count).padStart(7)} files`}`,
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
    const rows = [...groups.values()].sort(
      (a, b) => a.week.localeCompare(b.week) || a.project.localeCompare(b.project),
    );
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

  return {
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
  };
}
