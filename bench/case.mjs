// One benchmark job, run by bench/run.mjs in a fresh Node process (so that peak memory
// and the wasm heap belong to one input): `node --expose-gc bench/case.mjs '<job JSON>'`.
// Prints the figures as one JSON line on stdout.
//
// Jobs:
//   { job: "overhead", input, iterations, langchainTrim }  engine overhead side by side
//   { job: "waves", input, latencyMs }                     waves and wall time per strategy,
//                                                          at concurrency 1, the default and unbounded
//   { job: "crossing", messages, iterations }              a chain into wasm: JSON text vs objects
//   { job: "memory", input, contender, release }           peak memory of one compaction
//   { job: "waveBudgets", input }                          most waves per strategy, budgets 50 tokens up
// `input` is "synthetic:<messages>" (bench/generate.mjs, seed 42), "synthetic-json:<messages>"
// (the same with JSON tool outputs) or a file path.

import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import init, { compact, estimateTokens, measureChain, needsCompaction, parseChain } from "contextfold";
import { RELEASE_AFTER_IDLE_MS } from "../pkg/src/api.js"; // a constant: this copy is never instantiated
import { openaiChain } from "./generate.mjs";

export const STRATEGIES = ["auto", "sections", "window", "tiers", "budget", "mask"];
/** What the memory job measures: every strategy with the instant mock, and the default. */
export const MEMORY_CONTENDERS = [...STRATEGIES, "auto+builtin"];
export const SEED = 42;

const instant = async (request) => `Summary ${request.id}: the work so far.`;

export function loadInput(input) {
  if (input.startsWith("synthetic:")) {
    const n = Number(input.slice("synthetic:".length));
    return { name: `synthetic ${n.toLocaleString("en-US")}`, chain: openaiChain(n, SEED) };
  }
  if (input.startsWith("synthetic-json:")) {
    const n = Number(input.slice("synthetic-json:".length));
    return {
      name: `synthetic ${n.toLocaleString("en-US")}, JSON tool outputs`,
      chain: openaiChain(n, SEED, { jsonOutputs: true }),
    };
  }
  return { name: basename(input).replace(/\.json$/, ""), chain: JSON.parse(readFileSync(input, "utf8")) };
}

/**
 * The budget every contender is asked to fit: a quarter of the chain, at about 4 bytes
 * a token (computed in JS, so that the wasm heap is untouched before the memory figure).
 */
export function budgetOf(bytes) {
  return Math.max(1000, Math.floor(bytes / 16));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function time(f) {
  const t = performance.now();
  const out = await f();
  return [performance.now() - t, out];
}

// ---- LangChain contenders, on the same chain converted to LangChain messages --------

async function langchain() {
  const [{ summarizationMiddleware, trimMessages }, { FakeListChatModel }, { coerceMessageLikeToMessage }] =
    await Promise.all([
      import("langchain"),
      import("@langchain/core/utils/testing"),
      import("@langchain/core/messages"),
    ]);
  // A per-message token count (about 4 characters a token), memoized as a user would.
  const cache = new WeakMap();
  const tokens = (m) => {
    let v = cache.get(m);
    if (v === undefined) {
      const text = typeof m.content === "string" ? m.content : JSON.stringify(m.content);
      v =
        3 +
        Math.ceil(text.length / 4) +
        (m.tool_calls?.length ? Math.ceil(JSON.stringify(m.tool_calls).length / 4) : 0);
      cache.set(m, v);
    }
    return v;
  };
  const tokenCounter = (messages) => messages.reduce((n, m) => n + tokens(m), 0);
  return {
    convert: (chain) => chain.map((m) => coerceMessageLikeToMessage(m)),
    trim: (messages, maxTokens) =>
      trimMessages(messages, { maxTokens, strategy: "last", tokenCounter, startOn: "human", includeSystem: true }),
    summarize: async (messages, maxTokens) => {
      const model = new FakeListChatModel({ responses: ["Summary: the work so far."] });
      const middleware = summarizationMiddleware({
        model,
        trigger: { tokens: maxTokens },
        keep: { tokens: Math.floor(maxTokens / 2) },
        tokenCounter,
      });
      // The middleware assigns ids to the messages it sees: give it fresh copies.
      return middleware.beforeModel({ messages: messages.slice() }, { context: {} });
    },
  };
}

async function overhead({ input, iterations, langchainTrim, langchainSummarize = true }) {
  const { name, chain } = loadInput(input);
  const bytes = Buffer.byteLength(JSON.stringify(chain));
  const maxTokens = budgetOf(bytes);
  await init();
  // A warm-up: the wasm heap grows once, not in the first timed call (memory has its
  // own job, in a process of its own).
  await compact(chain, { summarizer: instant, strategy: "sections", maxTokens });

  const format = parseChain(chain, { repair: true }).format;
  const lc = format === "openai" && (langchainTrim || langchainSummarize) ? await langchain() : null;
  const samples = { floor: [], autoBuiltin: [], needs: [], measure: [], lcConvert: [], lcTrim: [], lcSummarize: [] };
  const results = {};
  for (const s of STRATEGIES) samples[s] = [];
  for (let i = 0; i < iterations; i++) {
    samples.floor.push((await time(() => JSON.parse(JSON.stringify(chain))))[0]);
    for (const s of STRATEGIES) {
      try {
        const [ms, r] = await time(() => compact(chain, { summarizer: instant, strategy: s, maxTokens }));
        samples[s].push(ms);
        results[s] = {
          changed: r.changed,
          calls: r.report.calls,
          waves: r.report.waves,
          afterBytes: r.report.after.bytes,
          afterMessages: r.report.after.messages,
        };
      } catch (e) {
        // `budget` throws budget_exceeded when the kept part alone is over the budget.
        results[s] = { error: e.code ?? String(e) };
      }
    }
    // The default as users run it: `auto` with the built-in offline summarizer.
    try {
      const [ms, r] = await time(() => compact(chain, { maxTokens }));
      samples.autoBuiltin.push(ms);
      results.autoBuiltin = { calls: r.report.calls, afterMessages: r.report.after.messages };
    } catch (e) {
      results.autoBuiltin = { error: e.code ?? String(e) };
    }
    samples.needs.push((await time(() => needsCompaction(chain, { maxTokens })))[0]);
    samples.measure.push((await time(() => measureChain(chain)))[0]);
    if (lc) {
      const [convertMs, messages] = await time(() => lc.convert(chain));
      samples.lcConvert.push(convertMs);
      if (langchainTrim) {
        const [ms, out] = await time(() => lc.trim(messages, maxTokens));
        samples.lcTrim.push(ms);
        results.lcTrim = { afterMessages: out.length };
      }
      if (langchainSummarize) {
        const [ms, out] = await time(() => lc.summarize(lc.convert(chain), maxTokens));
        samples.lcSummarize.push(ms);
        results.lcSummarize = { afterMessages: out ? out.messages.length - 1 : chain.length };
      }
    }
  }
  const medians = {};
  for (const [k, xs] of Object.entries(samples)) medians[k] = xs.length ? median(xs) : null;
  return {
    name,
    input,
    messages: Array.isArray(chain) ? chain.length : chain.messages.length + (chain.system ? 1 : 0),
    bytes,
    format,
    maxTokens,
    iterations,
    medians,
    results,
  };
}

async function waves({ input, latencyMs }) {
  const { name, chain } = loadInput(input);
  const maxTokens = budgetOf(Buffer.byteLength(JSON.stringify(chain)));
  const slow = (request, { signal } = {}) =>
    new Promise((resolve) => {
      const t = setTimeout(() => resolve(`Summary ${request.id}: the work so far.`), latencyMs);
      signal?.addEventListener?.("abort", () => clearTimeout(t), { once: true });
    });
  const rows = [];
  for (const strategy of STRATEGIES) {
    const row = { strategy };
    // c1: one call at a time, phase after phase (the seed's sequential order);
    // default: 4 in flight; all: a whole wave at once (wall time ~ waves x latency).
    for (const [label, concurrency] of [
      ["c1", 1],
      ["default", undefined],
      ["all", 100_000],
    ]) {
      const options = { summarizer: slow, strategy, maxTokens };
      if (concurrency !== undefined) options.concurrency = concurrency;
      try {
        const [ms, r] = await time(() => compact(chain, options));
        row[label] = { ms, calls: r.report.calls, waves: r.report.waves, changed: r.changed };
      } catch (e) {
        row[label] = { error: e.code ?? String(e) };
      }
    }
    rows.push(row);
  }
  return { name, input, maxTokens, latencyMs, rows };
}

/**
 * Crossing a chain into wasm, the two ways the exports accept it: JSON text (what the JS
 * layer sends: `JSON.stringify` in JS, then serde_json in wasm) or the object graph itself
 * (serde-wasm-bindgen walks it field by field). Measured through `parseChain` of the raw
 * wasm-bindgen exports (pkg/glue, the module the package itself calls), whose answer is a
 * small outline, so the time is reading the chain plus a parse both ways share.
 */
async function crossing({ messages, iterations }) {
  await init();
  const glue = await import(new URL("../pkg/glue/contextfold_wasm.js", import.meta.url).href);
  const chain = openaiChain(messages, SEED);
  const bytes = Buffer.byteLength(JSON.stringify(chain));
  const ways = {
    stringify: () => JSON.stringify(chain),
    jsonText: () => glue.parseChain(JSON.stringify(chain), { format: "openai" }),
    objects: () => glue.parseChain(chain, { format: "openai" }),
  };
  // Both ways must read the same chain; one warm-up each (wasm memory grows once).
  const a = ways.jsonText();
  const b = ways.objects();
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error("JSON text and objects read different chains");
  const samples = { stringify: [], jsonText: [], objects: [] };
  for (let i = 0; i < iterations; i++) {
    // Alternate the order so that neither way always runs on a fresher heap.
    const order = i % 2 ? ["objects", "jsonText", "stringify"] : ["jsonText", "objects", "stringify"];
    for (const way of order) {
      globalThis.gc?.();
      samples[way].push((await time(ways[way]))[0]);
    }
  }
  const medians = Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, median(xs)]));
  return { messages: chain.length, bytes, iterations, medians, samples };
}

/**
 * Resets the process's peak RSS (`maxRSS`, Linux's `VmHWM`) to its current RSS, where
 * the kernel allows it (`/proc/self/clear_refs`, Linux 4.0 on); whether it did.
 */
function resetPeakRss() {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}

/**
 * Peak memory of one compaction in this fresh process: the wasm heap's growth (its
 * high-water mark) and the process's peak RSS over RSS with the chain loaded (JS heap,
 * wasm and all). With `release`, the wasm heap once no call came for the release delay.
 * With `warm`, two compactions of a small chain come first: the RSS the engine's code
 * takes once compiled (the same for any input) is then in the RSS before.
 */
async function memory({ input, contender, release, warm }) {
  const { name, chain } = loadInput(input);
  const bytes = Buffer.byteLength(JSON.stringify(chain));
  const wasm = await init();
  const [strategy, builtin] = contender.split("+");
  const optionsFor = (maxTokens) => (builtin ? { strategy, maxTokens } : { strategy, maxTokens, summarizer: instant });
  if (warm) {
    const small = openaiChain(300, SEED);
    const smallTokens = budgetOf(Buffer.byteLength(JSON.stringify(small)));
    for (let i = 0; i < 2; i++) await compact(small, optionsFor(smallTokens));
  }
  globalThis.gc?.();
  // The process's peak so far (loading or generating the chain reaches one of its own)
  // is reset to its RSS now, so that the peak read after the call is the call's.
  const peakReset = resetPeakRss();
  const rssBefore = process.memoryUsage().rss;
  const wasmBefore = wasm.memory.buffer.byteLength;
  const options = optionsFor(budgetOf(bytes));
  let error;
  try {
    await compact(chain, options);
  } catch (e) {
    error = e.code ?? String(e);
  }
  const out = {
    name,
    input,
    contender,
    warm: Boolean(warm),
    bytes,
    error,
    rssBefore,
    peakRss: process.resourceUsage().maxRSS * 1024,
    peakReset,
    wasmBefore,
    wasmAfter: wasm.memory.buffer.byteLength,
  };
  if (release) {
    await new Promise((resolve) => setTimeout(resolve, RELEASE_AFTER_IDLE_MS + 200));
    // The fresh instance takes over at the next call; the old one's memory is then
    // garbage.
    estimateTokens("");
    out.wasmReleased = (await init()).memory.buffer.byteLength;
  }
  return out;
}

/** Budgets from 50 tokens to a quarter of the chain: the most waves each strategy took. */
async function waveBudgets({ input }) {
  const { name, chain } = loadInput(input);
  await init();
  const quarter = budgetOf(Buffer.byteLength(JSON.stringify(chain)));
  const budgets = [...new Set([50, 100, 200, 500, 1000, 3000, 10000, quarter])].sort((a, b) => a - b);
  const rows = {};
  for (const strategy of [...STRATEGIES, "auto+builtin"]) {
    const [s, builtin] = strategy.split("+");
    let most = { waves: 0 };
    for (const maxTokens of budgets) {
      const options = builtin ? { strategy: s, maxTokens } : { strategy: s, maxTokens, summarizer: instant };
      try {
        const r = await compact(chain, options);
        if (r.report.waves > most.waves) most = { waves: r.report.waves, maxTokens, calls: r.report.calls };
      } catch {
        // budget_exceeded below what the chain's fixed part needs: no waves.
      }
    }
    rows[strategy] = most;
  }
  return { name, input, budgets, rows };
}

// Run as a job (not when run.mjs imports the lists above).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const job = JSON.parse(process.argv[2] ?? "{}");
  const run = { overhead, waves, crossing, memory, waveBudgets }[job.job];
  if (!run) {
    console.error(`unknown job ${JSON.stringify(job)}`);
    process.exit(2);
  }
  console.log(JSON.stringify(await run(job)));
}
