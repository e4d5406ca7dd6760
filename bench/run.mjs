// `npm run bench`: every figure of bench/RESULTS.md, measured in one run, side by side,
// on the same inputs. Each measurement job runs in a fresh Node process (bench/case.mjs)
// so that timings, peak memory and the wasm heap belong to one input. About 3-5 minutes
// on 2 cores (the waves at 10k messages alone take about 30 s: 801 calls of 20 ms).
//
//   node bench/run.mjs            full run, writes bench/RESULTS.md
//   node bench/run.mjs --quick    1k synthetic + demo only, prints, writes nothing
//   node bench/run.mjs --out FILE write elsewhere
//
// Inputs: synthetic OpenAI chains of 1k, 10k and 100k messages with tool calls
// (bench/generate.mjs, seed 42), the shipped demo session, and the real transcripts of
// ../shared/fixtures/real when present (skipped with a notice when absent).

import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, release, tmpdir, type, totalmem } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import * as accuracy from "./token-accuracy.mjs";
import * as quality from "./quality.mjs";
import * as replay from "./replay.mjs";
import { MEMORY_CONTENDERS, STRATEGIES } from "./case.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const outFile = args.includes("--out") ? args[args.indexOf("--out") + 1] : join(here, "RESULTS.md");
const LATENCY_MS = 20;
const started = Date.now();

const log = (...xs) => console.error(`[bench ${((Date.now() - started) / 1000).toFixed(0)}s]`, ...xs);

// ---- inputs ---------------------------------------------------------------------------

const demo = join(root, "examples", "demo-session.openai.json");
const realDir = join(root, "..", "shared", "fixtures", "real");
const realFiles = existsSync(realDir)
  ? readdirSync(realDir)
      .filter((f) => /\.(openai|anthropic)\.json$/.test(f) && !f.includes("reference_summary"))
      .sort()
      .map((f) => join(realDir, f))
  : [];
const notices = [];
if (!existsSync(realDir)) notices.push(`${relative(root, realDir)} not found: the real transcripts were skipped.`);

const synthetic = quick ? [1000] : [1000, 10000, 100000];
// Five at 10k: `trimMessages` alone moved by 1.6x between runs, and the median of three with
// it. Three at 100k: one run moved a strategy by 1.3x between two runs of the bench.
const iterationsFor = (n) => (n >= 100000 ? 3 : n >= 10000 ? 5 : 7);

function job(spec) {
  const r = spawnSync(
    process.execPath,
    ["--expose-gc", "--max-old-space-size=8192", join(here, "case.mjs"), JSON.stringify(spec)],
    {
      cwd: root,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (r.status !== 0) throw new Error(`bench job ${JSON.stringify(spec)} failed:\n${r.stderr}`);
  const lines = r.stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]);
}

// ---- measurements ---------------------------------------------------------------------

const overhead = [];
for (const n of synthetic) {
  log(`overhead: synthetic ${n}`);
  // trimMessages is quadratic in the number of messages (one token-counter call per
  // candidate suffix), and summarizationMiddleware calls it on everything it summarizes:
  // both run up to 10k messages only (100k would take many minutes).
  const lc = n <= 10000;
  overhead.push(
    job({
      job: "overhead",
      input: `synthetic:${n}`,
      iterations: iterationsFor(n),
      langchainTrim: lc,
      langchainSummarize: lc,
    }),
  );
}
for (const file of quick ? [demo] : [demo, ...realFiles]) {
  log(`overhead: ${relative(root, file)}`);
  overhead.push(job({ job: "overhead", input: file, iterations: 7, langchainTrim: true }));
}

// The 10k chain again with two tools in five answering in JSON, as API tools do (the
// synthetic chains' outputs are plain text): every strategy, no LangChain.
const jsonOverhead = [];
if (!quick) {
  log("overhead: synthetic 10000, JSON tool outputs");
  jsonOverhead.push(
    job({
      job: "overhead",
      input: "synthetic-json:10000",
      iterations: iterationsFor(10000),
      langchainSummarize: false,
    }),
  );
}

const waves = [];
const waveInputs = quick
  ? [demo]
  : [
      "synthetic:1000",
      "synthetic:10000",
      demo,
      ...realFiles.filter((f) => /precompact|thinking_signatures|swe_agent|tau_bench_gpt4o_airline_tools/.test(f)),
    ];
for (const input of waveInputs) {
  log(`waves: ${input.startsWith("synthetic") ? input : relative(root, input)}`);
  waves.push(job({ job: "waves", input, latencyMs: LATENCY_MS }));
}

// Peak memory: one fresh process per input and contender (the wasm heap is a high-water
// mark), and once more after a 100k call, to see the memory given back.
const memory = [];
for (const input of [...synthetic.map((n) => `synthetic:${n}`), demo, ...(quick ? [] : realFiles)]) {
  log(`memory: ${input.startsWith("synthetic") ? input : relative(root, input)}`);
  for (const contender of MEMORY_CONTENDERS) memory.push(job({ job: "memory", input, contender }));
}
// Again after a warm-up, on the synthetic chains: RSS without the compiled code.
const warmMemory = [];
for (const input of synthetic.map((n) => `synthetic:${n}`)) {
  log(`memory after a warm-up: ${input}`);
  for (const contender of MEMORY_CONTENDERS) warmMemory.push(job({ job: "memory", input, contender, warm: true }));
}
const releaseInput = `synthetic:${synthetic[synthetic.length - 1]}`;
log(`memory given back: ${releaseInput}`);
const released = job({ job: "memory", input: releaseInput, contender: "auto", release: true });

const waveBudgets = [];
for (const input of ["synthetic:1000", demo, ...(quick ? [] : realFiles)]) {
  log(`waves at every budget: ${input.startsWith("synthetic") ? input : relative(root, input)}`);
  waveBudgets.push(job({ job: "waveBudgets", input }));
}

// About 10 MB of JSON (18,000 synthetic messages), as the JS layer's choice was made on.
const CROSSING = quick ? { messages: 2000, iterations: 3 } : { messages: 18000, iterations: 7 };
log(`crossing: synthetic ${CROSSING.messages}`);
const crossing = job({ job: "crossing", ...CROSSING });

log("sizes");
const gz = (file) => gzipSync(readFileSync(file), { level: 9 }).length;
function dirSizes(dir, filter = () => true) {
  let raw = 0;
  let gzip = 0;
  let files = 0;
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (filter(p)) {
        raw += statSync(p).size;
        gzip += gz(p);
        files++;
      }
    }
  };
  walk(dir);
  return { raw, gzip, files };
}
const fileSizes = (file) => ({ raw: statSync(file).size, gzip: gz(file), files: 1 });
const nm = (p) => join(root, "node_modules", p);
const version = (p) => JSON.parse(readFileSync(nm(`${p}/package.json`), "utf8")).version;
const sizes = [
  { what: "contextfold `.wasm`", ...fileSizes(join(root, "pkg/glue/contextfold_wasm_bg.wasm")) },
  {
    what: "contextfold JS glue + entry files",
    ...sumSizes([
      fileSizes(join(root, "pkg/glue/contextfold_wasm.js")),
      dirSizes(join(root, "pkg/src"), (p) => p.endsWith(".js")),
    ]),
  },
  {
    what: `tiktoken ${version("tiktoken")} lite \`.wasm\` (tiktoken/lite)`,
    ...fileSizes(nm("tiktoken/lite/tiktoken_bg.wasm")),
  },
  {
    what: `tiktoken ${version("tiktoken")} full \`.wasm\` (with its encodings)`,
    ...fileSizes(nm("tiktoken/tiktoken_bg.wasm")),
  },
  {
    what: `@langchain/core ${version("@langchain/core")} dist, \`.js\` only (ESM)`,
    ...dirSizes(nm("@langchain/core/dist"), (p) => p.endsWith(".js")),
  },
  {
    what: `@langchain/core ${version("@langchain/core")} dist as shipped (all files)`,
    ...dirSizes(nm("@langchain/core/dist")),
  },
  {
    what: `langchain ${version("langchain")} dist, \`.js\` only (ESM)`,
    ...dirSizes(nm("langchain/dist"), (p) => p.endsWith(".js")),
  },
];
function sumSizes(list) {
  return list.reduce((a, b) => ({ raw: a.raw + b.raw, gzip: a.gzip + b.gzip, files: a.files + b.files }), {
    raw: 0,
    gzip: 0,
    files: 0,
  });
}

log("node init");
const INIT_RUNS = quick ? 3 : 15;
// A trivial module: an ES module file with one export, imported by its URL; and the same
// as an installed package with an exports map, imported by name as contextfold is (Node's
// package resolution, about 1.5 ms, is in both).
const trivialModule = join(tmpdir(), `contextfold-bench-trivial-${process.pid}.mjs`);
writeFileSync(trivialModule, "export const one = 1;\n");
const trivialProject = join(tmpdir(), `contextfold-bench-trivial-${process.pid}`);
const trivialPackage = join(trivialProject, "node_modules", "trivial-package");
mkdirSync(trivialPackage, { recursive: true });
writeFileSync(
  join(trivialPackage, "package.json"),
  JSON.stringify({ name: "trivial-package", type: "module", exports: { ".": "./index.js" } }),
);
writeFileSync(join(trivialPackage, "index.js"), "export const one = 1;\n");
const initTargets = [
  {
    what: "a trivial ES module (one export), by its file URL",
    code: `await import(${JSON.stringify(pathToFileURL(trivialModule).href)})`,
  },
  {
    what: "a trivial package (one export, an exports map), by its name",
    code: `await import("trivial-package")`,
    cwd: trivialProject,
  },
  {
    what: "contextfold (import: reads the wasm, its compile starts in the background)",
    code: `await import("contextfold")`,
  },
  {
    what: "contextfold, import + `await init()` (the background compile done: ready)",
    code: `const m = await import("contextfold"); await m.default()`,
  },
  {
    what: "contextfold, import + a synchronous call at once (`estimateTokens`: compiles on the spot)",
    code: `const m = await import("contextfold"); m.estimateTokens("hello world")`,
  },
  { what: "tiktoken lite (import: instantiates its wasm)", code: `await import("tiktoken/lite")` },
  {
    what: "tiktoken lite + o200k_base ranks (ready to count)",
    code: `const { Tiktoken } = await import("tiktoken/lite"); const { default: r } = await import("tiktoken/encoders/o200k_base.json", { with: { type: "json" } }); new Tiktoken(r.bpe_ranks, r.special_tokens, r.pat_str).free()`,
  },
  { what: "gpt-tokenizer o200k_base (pure JS)", code: `await import("gpt-tokenizer/encoding/o200k_base")` },
  { what: "@langchain/core/messages", code: `await import("@langchain/core/messages")` },
  { what: "langchain (trimMessages, summarizationMiddleware)", code: `await import("langchain")` },
];
// Round by round, every target once a round: a slow spell of the machine weighs on all
// targets alike instead of on the one measured then.
const initRuns = initTargets.map(() => []);
for (let i = 0; i < INIT_RUNS; i++) {
  initTargets.forEach((t, k) => {
    const script = `const t0 = performance.now(); ${t.code}; console.log(performance.now() - t0)`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: t.cwd ?? root,
      encoding: "utf8",
    });
    initRuns[k].push(Number(out.trim().split("\n").pop()));
  });
}
// Whole process, start to exit, for the first target only adds nothing: keep import time.
const init = initTargets.map((t, k) => {
  const runs = initRuns[k];
  return { ...t, median: median(runs), min: Math.min(...runs), max: Math.max(...runs) };
});
rmSync(trivialModule, { force: true });
rmSync(trivialProject, { recursive: true, force: true });
const cfInit = init.find((t) => t.what.startsWith("contextfold"));
const cfReady = init.find((t) => t.what.includes("await init()"));

log("token accuracy");
const accuracyTable = accuracy.table(accuracy.summarize(accuracy.sources().flatMap(accuracy.measureFile)));

// ---- report ---------------------------------------------------------------------------

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
const ms = (x) =>
  x == null ? "n/a" : x >= 100 ? `${x.toFixed(0)} ms` : x >= 10 ? `${x.toFixed(1)} ms` : `${x.toFixed(2)} ms`;
const ratio = (a, b) =>
  a == null || b == null || b === 0 ? "n/a" : `${(a / b).toFixed(a / b >= 10 ? 0 : a / b < 0.1 ? 2 : 1)}x`;
const kb = (b) =>
  b >= 10 * 1024 * 1024
    ? `${(b / 1024 / 1024).toFixed(0)} MiB`
    : b >= 1024 * 1024
      ? `${(b / 1024 / 1024).toFixed(1)} MiB`
      : `${(b / 1024).toFixed(1)} KiB`;
const num = (n) => n.toLocaleString("en-US");
const us = (x) => (x == null ? "n/a" : `${x.toFixed(1)} µs`);

const cpu = cpus();
const machine = [
  `- date: ${new Date().toISOString().replace(/\.\d+Z$/, "Z")}`,
  `- CPU: ${cpu[0]?.model ?? "unknown"}, ${cpu.length} cores; RAM ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
  `- Node ${process.version}; ${type()} ${release()}`,
  `- contextfold ${JSON.parse(readFileSync(join(root, "pkg/package.json"), "utf8")).version} (this checkout, release wasm), langchain ${version("langchain")}, @langchain/core ${version("@langchain/core")}, tiktoken ${version("tiktoken")}, gpt-tokenizer ${version("gpt-tokenizer")}`,
];

const md = [];
md.push("# Benchmarks", "");
md.push("Written by `npm run bench` (`node bench/run.mjs`); every figure below comes from one run on one machine:", "");
md.push(...machine, "");
for (const n of notices) md.push(`> notice: ${n}`, "");
md.push(
  "Inputs: synthetic OpenAI chains with tool calls (`bench/generate.mjs`, seed 42: 1-6 steps per user turn, 1-3 parallel calls per step, tool outputs of 60 B-2.5 KB; at 10k also with JSON tool outputs), the shipped demo session and the real transcripts of `../shared/fixtures/real`. " +
    "Every contender gets the same chain and the same budget: a quarter of the chain, at 4 bytes a token (`maxTokens` = JSON bytes / 16). " +
    "Summarizers are instant mocks unless stated (contextfold: an async function; LangChain: `FakeListChatModel`). " +
    "Times are medians over the iterations shown; each input runs in a fresh Node process.",
  "",
);

md.push("## Issue 18's goals: this run next to the figures the issue was filed with", "");
md.push(
  "The issue's figures were measured on main at 446fa25 (ratios within one run, as here). Details of each figure are in the sections below.",
  "",
);
{
  const bySize = synthetic.map((n) => overhead.find((r) => r.input === `synthetic:${n}`));
  const range = (xs) => {
    const v = xs.filter((x) => x != null && Number.isFinite(x));
    if (!v.length) return "n/a";
    const [lo, hi] = [Math.min(...v).toFixed(1), Math.max(...v).toFixed(1)];
    return lo === hi ? `${lo}x` : `${lo}-${hi}x`;
  };
  const perSize = (f) => bySize.map((r) => `${r.name.replace("synthetic ", "")}: ${f(r)}`).join("; ");
  const instantRatios = perSize((r) => range(STRATEGIES.map((k) => r.medians[k] / r.medians.floor)));
  const builtinRatios = perSize((r) => range([r.medians.autoBuiltin / r.medians.floor]));
  const at10k = overhead.find((r) => r.input === "synthetic:10000");
  const trimVsBudget =
    at10k?.medians.lcTrim == null ? "n/a" : ratio(at10k.medians.lcTrim + at10k.medians.lcConvert, at10k.medians.budget);
  const needsVsMeasure = at10k
    ? `${ratio(at10k.medians.needs, at10k.medians.measure)} (${ms(at10k.medians.needs)} vs ${ms(at10k.medians.measure)})`
    : "n/a";
  // Per synthetic size, the range over contenders (small inputs are dominated by fixed costs).
  const memoryRange = (f, of = memory) =>
    perSize((r) => range(of.filter((m) => m.name === r.name && !m.error).map((m) => f(m) / m.bytes)));
  const trivial = init.find((t) => t.what.startsWith("a trivial ES module"));
  const trivialByName = init.find((t) => t.what.startsWith("a trivial package"));
  const mostWaves = waveBudgets.flatMap((w) => Object.entries(w.rows).map(([k, r]) => ({ ...r, k, name: w.name })));
  const topWaves = mostWaves.reduce((a, r) => (r.waves > a.waves ? r : a), { waves: 0 });
  md.push("| goal | at filing (446fa25) | this run |", "|---|---|---|");
  md.push(`| \`compact\` at most 2x the floor, instant summarizer, every strategy | 4.6-8.3x | ${instantRatios} |`);
  md.push(`| \`compact\` at most 3x the floor with the built-in summarizer (\`auto\`) | 8-13x | ${builtinRatios} |`);
  md.push(`| \`budget\` at least 7x faster than \`trimMessages\` at 10k | 2.6x faster | ${trimVsBudget} faster |`);
  md.push(`| \`needsCompaction\` at most one \`measureChain\` (10k) | 120-269 ms | ${needsVsMeasure} |`);
  md.push(
    `| peak memory at most 3x the input, every strategy: wasm growth | 8.7-16.4x | ${memoryRange((m) => m.wasmAfter - m.wasmBefore)} |`,
  );
  md.push(
    `| ... peak RSS growth (JS heap, JSON text and wasm together) | not measured | ${memoryRange((m) => Math.max(0, m.peakRss - m.rssBefore))} |`,
  );
  md.push(
    `| ... peak RSS growth after a warm-up call (the compiled code already there) | not measured | ${memoryRange((m) => Math.max(0, m.peakRss - m.rssBefore), warmMemory)} |`,
  );
  md.push(
    `| memory given back after a very large call | 612 MiB kept after 100k messages | ${kb(released.wasmAfter)} during \`auto\` on ${released.name}, ${kb(released.wasmReleased)} after |`,
  );
  md.push(`| wasm at most 250 KiB gzipped, every format | 357 KiB | ${kb(sizes[0].gzip)} |`);
  md.push(
    `| init at most 5 ms above a trivial module import | about 19 ms above | import: ${ms(cfInit.median - trivialByName.median)} above a trivial package imported by name (${ms(cfInit.median)} vs ${ms(trivialByName.median)}), ${ms(cfInit.median - trivial.median)} above a trivial file by URL (${ms(trivial.median)}); until ready (\`await init()\`): ${ms(cfReady.median - trivialByName.median)} above the package |`,
  );
  md.push(
    `| at most 3 summarizer waves, every strategy and budget | \`window\` 4-5 (13 at 100 tokens) | at most ${topWaves.waves} (\`${topWaves.k}\`, ${topWaves.name}) |`,
  );
  md.push("");
}

md.push("## Engine overhead, side by side", "");
md.push(
  "The floor is a `JSON.parse(JSON.stringify(chain))` round trip of the same chain: what any JS -> wasm -> JS pass must at least pay. " +
    "`compact` times include reading the JS chain into wasm, compaction, the provider-validity pass and writing the result back. " +
    "LangChain times include converting the OpenAI messages to LangChain messages (`coerceMessageLikeToMessage`, its own column); `trimMessages` (strategy `last`, a memoized 4-characters-a-token counter) only drops messages, it makes no summary; " +
    "`summarizationMiddleware` (trigger at the budget, keep half of it) makes one summary of everything older.",
  "",
);
md.push(
  "| input | msgs | bytes | iter | floor | compact `auto` (default) | `auto`, built-in summarizer | compact `sections` | compact `budget` | LangChain convert | `trimMessages` | `summarizationMiddleware` | `budget` / `trimMessages` | `sections` / `summarizationMiddleware` |",
  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
);
const cell = (r, s) =>
  r.results[s]?.error
    ? `error \`${r.results[s].error}\``
    : `${ms(r.medians[s])} (${ratio(r.medians[s], r.medians.floor)})`;
for (const r of overhead) {
  const m = r.medians;
  const lcTrim = m.lcTrim == null ? null : m.lcTrim + m.lcConvert;
  const lcSum = m.lcSummarize == null ? null : m.lcSummarize + m.lcConvert;
  md.push(
    `| ${r.name} | ${num(r.messages)} | ${kb(r.bytes)} | ${r.iterations} | ${ms(m.floor)} | ${cell(r, "auto")} | ${cell(r, "autoBuiltin")} | ${cell(r, "sections")} | ${cell(r, "budget")} | ` +
      `${r.format === "openai" ? ms(m.lcConvert) : "n/a (OpenAI only)"} | ${lcTrim == null ? (r.format === "openai" ? "not run (quadratic)" : "n/a") : `${ms(lcTrim)} (${ratio(lcTrim, m.floor)})`} | ` +
      `${lcSum == null ? (r.format === "openai" ? "not run (quadratic)" : "n/a") : `${ms(lcSum)} (${ratio(lcSum, m.floor)})`} | ${ratio(m.budget, lcTrim)} | ${ratio(m.sections, lcSum)} |`,
  );
}
md.push(
  "",
  "(x) = times the floor of the same input. The built-in summarizer is the offline one `compact` uses when given none (its summary is written in wasm). The last two columns: below 1x, contextfold is faster.",
  "",
);
md.push(
  "`needsCompaction` (the check a caller makes before every request) against one `measureChain` of the same chain:",
  "",
);
md.push("| input | `measureChain` | `needsCompaction` | ratio |", "|---|---:|---:|---:|");
for (const r of overhead.filter((r) => r.input.startsWith("synthetic:")))
  md.push(
    `| ${r.name} | ${ms(r.medians.measure)} | ${ms(r.medians.needs)} | ${ratio(r.medians.needs, r.medians.measure)} |`,
  );
md.push("");
md.push("What each contender produced (messages after; contextfold: summary calls made):", "");
md.push(
  "| input | `auto` | `sections` | `window` | `tiers` | `budget` | `trimMessages` | `summarizationMiddleware` |",
  "|---|---|---|---|---|---|---|---|",
);
for (const r of overhead) {
  const c = (s) =>
    r.results[s]?.error
      ? `error \`${r.results[s].error}\``
      : r.results[s]
        ? `${num(r.results[s].afterMessages)} msgs, ${r.results[s].calls} calls`
        : "n/a";
  md.push(
    `| ${r.name} | ${c("auto")} | ${c("sections")} | ${c("window")} | ${c("tiers")} | ${c("budget")} | ${r.results.lcTrim ? `${num(r.results.lcTrim.afterMessages)} msgs` : "n/a"} | ${r.results.lcSummarize ? `${num(r.results.lcSummarize.afterMessages)} msgs, 1 call` : "n/a"} |`,
  );
}
md.push("");

md.push("## Scaling: time per message", "");
md.push("The synthetic chains above; per-message time should stay flat from 1k to 100k messages.", "");
const syn = overhead.filter((r) => r.input.startsWith("synthetic:"));
md.push(
  `| contender | ${syn.map((r) => r.name.replace("synthetic ", "") + " msgs").join(" | ")} | ${syn.length > 1 ? `${syn[syn.length - 1].name.replace("synthetic ", "")} / ${syn[0].name.replace("synthetic ", "")} per message |` : ""}`,
);
md.push(`|---|${syn.map(() => "---:").join("|")}|${syn.length > 1 ? "---:|" : ""}`);
const perMsg = (r, key) => {
  const m = r.medians;
  const v =
    key === "lcTrim"
      ? m.lcTrim == null
        ? null
        : m.lcTrim + m.lcConvert
      : key === "lcSummarize"
        ? m.lcSummarize == null
          ? null
          : m.lcSummarize + m.lcConvert
        : m[key];
  return v == null ? null : (v * 1000) / r.messages;
};
for (const [key, label] of [
  ["floor", "floor (JSON round trip)"],
  ...STRATEGIES.map((s) => [s, `compact \`${s}\``]),
  ["lcTrim", "LangChain `trimMessages`"],
  ["lcSummarize", "LangChain `summarizationMiddleware`"],
]) {
  const vals = syn.map((r) => perMsg(r, key));
  md.push(
    `| ${label} | ${vals.map(us).join(" | ")} | ${syn.length > 1 ? `${ratio(vals[vals.length - 1], vals[0])} |` : ""}`,
  );
}
md.push("");

if (jsonOverhead.length) {
  md.push("## Tool outputs in JSON", "");
  md.push(
    "The synthetic 10,000 chain as above, and the same chain (seed 42) whose `search` and `list_dir` calls, two in five, answer with a JSON object (matches or directory entries, pretty-printed half the time) instead of text. " +
      "Each compaction against its own chain's floor.",
    "",
  );
  const plain = overhead.find((r) => r.input === "synthetic:10000");
  const rows = [plain, ...jsonOverhead].filter(Boolean);
  md.push(
    `| contender | ${rows.map((r) => `${r.name} (${kb(r.bytes)})`).join(" | ")} |`,
    `|---|${rows.map(() => "---:").join("|")}|`,
  );
  for (const [key, label] of [
    ["floor", "floor (JSON round trip)"],
    ...STRATEGIES.map((k) => [k, `compact \`${k}\``]),
    ["autoBuiltin", "`auto`, built-in summarizer"],
  ]) {
    md.push(`| ${label} | ${rows.map((r) => (key === "floor" ? ms(r.medians.floor) : cell(r, key))).join(" | ")} |`);
  }
  md.push("");
}

md.push(`## Waves: summary calls with a ${LATENCY_MS} ms summarizer`, "");
md.push(
  `Every summary call takes ${LATENCY_MS} ms (a timer mock). Waves are the sequential rounds of calls contextfold made. ` +
    "Each strategy ran three times on the same chain in the same process, all measured: `concurrency: 1` makes the same calls one at a time, " +
    "phase after phase (the seed's sequential phase order, with no overlap at all), the default keeps 4 calls in flight, and unbounded issues each wave whole " +
    `(its wall time tends to waves x ${LATENCY_MS} ms). Wall times include the compaction itself.`,
  "",
);
md.push(
  "| input | strategy | calls | waves | concurrency 1 (seed order) | default (4 in flight) | unbounded | default vs concurrency 1 | unbounded vs concurrency 1 |",
  "|---|---|---:|---:|---:|---:|---:|---:|---:|",
);
for (const w of waves) {
  for (const r of w.rows) {
    const failed = [r.c1, r.default, r.all].find((x) => x.error);
    if (failed) {
      md.push(`| ${w.name} | ${r.strategy} | error \`${failed.error}\` | | | | | | |`);
      continue;
    }
    // The same calls whatever the concurrency; say so if a run made others.
    const calls =
      new Set([r.c1.calls, r.default.calls, r.all.calls]).size === 1
        ? `${r.default.calls}`
        : `${r.c1.calls} / ${r.default.calls} / ${r.all.calls}`;
    md.push(
      `| ${w.name} | ${r.strategy} | ${calls} | ${r.default.waves} | ${ms(r.c1.ms)} | ${ms(r.default.ms)} | ${ms(r.all.ms)} | ` +
        `${r.default.calls ? ratio(r.default.ms, r.c1.ms) : "n/a"} | ${r.default.calls ? ratio(r.all.ms, r.c1.ms) : "n/a"} |`,
    );
  }
}
md.push("", "Below 1x: faster than one call at a time. Strategies that made no call show n/a.", "");

md.push("## Crossing a chain into wasm: JSON text vs objects", "");
md.push(
  `The synthetic chain of ${num(crossing.messages)} messages (${kb(crossing.bytes)} of JSON), read by \`parseChain\` of the raw wasm-bindgen exports (\`pkg/glue\`, what the package calls) ` +
    "in the two forms they accept: JSON text (`JSON.stringify` in JS, then serde_json in wasm: what `contextfold` sends) or the object graph (serde-wasm-bindgen reads it field by field). " +
    `Both include the same parse into sections and a small outline back. Median of ${crossing.iterations}, alternating the order, after a warm-up.`,
  "",
);
md.push(
  "| messages | JSON bytes | `JSON.stringify` alone | JSON text (stringify + read) | objects (serde-wasm-bindgen) | objects / JSON text |",
  "|---:|---:|---:|---:|---:|---:|",
);
md.push(
  `| ${num(crossing.messages)} | ${kb(crossing.bytes)} | ${ms(crossing.medians.stringify)} | ${ms(crossing.medians.jsonText)} | ${ms(crossing.medians.objects)} | ${ratio(crossing.medians.objects, crossing.medians.jsonText)} |`,
);
md.push(
  "",
  "For comparison, the figure that made the choice (commit ad9954f, a different machine and chain: 12 MB, 48k messages, read and measured): 240 ms as JSON text vs 362 ms through serde-wasm-bindgen.",
  "",
);

md.push("## Peak memory vs input size, per strategy", "");
md.push(
  "One fresh process per input and contender: the chain is loaded (as JS objects), then one compaction at the budget (instant mock summarizer; `auto+builtin`: the built-in one). " +
    "Wasm growth: the `memory.buffer` size after the call less before it (a high-water mark). Peak RSS growth: the process's peak (`maxRSS`) less its RSS with the chain loaded, which holds the JS heap, the JSON text and the wasm heap together. Both as a multiple of the input's JSON bytes. " +
    peakResetNote(memory),
  "",
);
/** How the peak was taken: reset to the RSS just before the call where the kernel allows. */
function peakResetNote(runs) {
  const reset = runs.filter((m) => m.peakReset).length;
  if (reset === runs.length)
    return "The peak was reset to the RSS just before each call (`/proc/self/clear_refs`), so it is the call's own, not that of loading or generating the chain.";
  return `The peak could be reset just before the call in ${reset} of ${runs.length} runs (\`/proc/self/clear_refs\` is Linux's); in the others it may be that of loading or generating the chain.`;
}
const memoryInputs = [...new Set(memory.map((m) => m.name))];
const memoryOf = (name, contender) => memory.find((m) => m.name === name && m.contender === contender);
const growth = (m) => (m.error ? `error \`${m.error}\`` : ratio(m.wasmAfter - m.wasmBefore, m.bytes));
const peakGrowth = (m) => (m.error ? `error \`${m.error}\`` : ratio(Math.max(0, m.peakRss - m.rssBefore), m.bytes));
for (const [title, f] of [
  ["Wasm growth / input", growth],
  ["Peak RSS growth / input", peakGrowth],
]) {
  md.push(`${title}:`, "");
  md.push(`| input | JSON bytes | ${MEMORY_CONTENDERS.map((c) => `\`${c}\``).join(" | ")} |`);
  md.push(`|---|---:|${MEMORY_CONTENDERS.map(() => "---:").join("|")}|`);
  for (const name of memoryInputs) {
    const row = MEMORY_CONTENDERS.map((c) => memoryOf(name, c));
    md.push(`| ${name} | ${kb(row[0].bytes)} | ${row.map(f).join(" | ")} |`);
  }
  md.push("");
}
// What the first call costs beyond a warm one, in MB, on the smallest synthetic chain.
const firstCallExtra = (() => {
  const name = warmMemory[0]?.name;
  const extra = MEMORY_CONTENDERS.map((c) => {
    const cold = memoryOf(name, c);
    const warm = warmMemory.find((m) => m.name === name && m.contender === c);
    return cold && warm && !cold.error && !warm.error
      ? (cold.peakRss - cold.rssBefore - (warm.peakRss - warm.rssBefore)) / 2 ** 20
      : null;
  }).filter((x) => x !== null);
  return `${Math.min(...extra).toFixed(1)}-${Math.max(...extra).toFixed(1)} MB on ${name}`;
})();
md.push(
  "Peak RSS growth / input after a warm-up (two compactions of a 300-message chain with the same contender first, in the same process): what the first calls compile (the engine's code, whatever the input) is then in the RSS before. " +
    `The first call's RSS growth less a warm one's: ${firstCallExtra}.`,
  "",
);
md.push(`| input | JSON bytes | ${MEMORY_CONTENDERS.map((c) => `\`${c}\``).join(" | ")} |`);
md.push(`|---|---:|${MEMORY_CONTENDERS.map(() => "---:").join("|")}|`);
for (const name of [...new Set(warmMemory.map((m) => m.name))]) {
  const row = MEMORY_CONTENDERS.map((c) => warmMemory.find((m) => m.name === name && m.contender === c));
  md.push(`| ${name} | ${kb(row[0].bytes)} | ${row.map(peakGrowth).join(" | ")} |`);
}
md.push("");
md.push(
  `Memory given back: after \`auto\` on ${released.name} the wasm heap was ${kb(released.wasmAfter)}; once no call came for the release delay, ${kb(released.wasmReleased)}.`,
  "",
);

md.push("## Waves at every budget", "");
md.push(
  "Each strategy at budgets of 50, 100, 200, 500, 1,000, 3,000 and 10,000 tokens and a quarter of the chain (instant mock; `auto+builtin`: the built-in summarizer): the most sequential waves of summarizer calls it took, and at which budget. Budgets below what a chain's fixed part needs end in `budget_exceeded` (no waves).",
  "",
);
const waveColumns = [...STRATEGIES, "auto+builtin"];
md.push(
  `| input | ${waveColumns.map((c) => `\`${c}\``).join(" | ")} |`,
  `|---|${waveColumns.map(() => "---:").join("|")}|`,
);
for (const w of waveBudgets) {
  const c = (k) => {
    const r = w.rows[k];
    return r.waves ? `${r.waves} (at ${num(r.maxTokens)})` : "0";
  };
  md.push(`| ${w.name} | ${waveColumns.map(c).join(" | ")} |`);
}
md.push("");

md.push("## Download size", "");
const cf = sizes[0];
md.push("| artifact | files | raw | gzip -9 | gzip vs contextfold `.wasm` |", "|---|---:|---:|---:|---:|");
for (const s of sizes) md.push(`| ${s.what} | ${s.files} | ${kb(s.raw)} | ${kb(s.gzip)} | ${ratio(s.gzip, cf.gzip)} |`);
md.push("", "Directory sizes sum the gzip size of each file (what a CDN serves one by one).", "");

md.push("## Node init time", "");
md.push(
  `A fresh \`node -e\` per run: time from before the first \`import()\` to after it resolves (and the extra step shown); median of ${INIT_RUNS} runs, taken round by round (every module once a round).`,
  "",
);
md.push("| module | median | min - max | vs contextfold |", "|---|---:|---:|---:|");
for (const t of init)
  md.push(`| ${t.what} | ${ms(t.median)} | ${ms(t.min)} - ${ms(t.max)} | ${ratio(t.median, cfInit.median)} |`);
md.push("");

md.push("## Token estimate accuracy vs gpt-tokenizer (o200k_base)", "");
md.push(
  "`bench/token-accuracy.mjs` (also runnable alone): contextfold's built-in estimate against `gpt-tokenizer` on the texts of every message of the demo session and the real transcripts; relative error = (estimate - real) / real, messages of at least 8 tokens.",
  "",
);
md.push(accuracyTable, "");
if (!quick) md.push((await quality.section()).markdown, "");
if (!quick) md.push((await replay.section()).markdown, "");
md.push(`Total bench time: ${((Date.now() - started) / 1000).toFixed(0)} s.`, "");

const text = md.join("\n");
if (quick) {
  console.log(text);
} else {
  writeFileSync(outFile, text);
  log(`wrote ${relative(root, outFile)}`);
}
