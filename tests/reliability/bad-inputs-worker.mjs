// Runs the bad-input corpus inside a Worker (so that the test can stop a hang and name
// the case) and posts one message per call: { name, fn, outcome, ms, error } where
// `outcome` is the observed result in the vocabulary of bad-inputs.mjs.
import { parentPort, workerData } from "node:worker_threads";
import * as cf from "contextfold";
import { cases, FUNCTIONS, longChain } from "./bad-inputs.mjs";

const CALL_BOUND_MS = workerData?.callBoundMs ?? 5000;

function within(promise, ms) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms} ms`), { hang: true })), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Whether a returned chain keeps its provider's rules. */
function valid(messages, format, provider) {
  return cf.validateChain(messages, provider ? { format, provider } : { format }).length === 0;
}

async function observe(fn, input, options, bound) {
  switch (fn) {
    case "compact": {
      const r = await within(cf.compact(input, options), bound);
      if (typeof r?.changed !== "boolean") return "!bad result";
      if (r.changed && !valid(r.messages, r.format)) return "!invalid output";
      return r.changed ? "changed" : "unchanged";
    }
    case "parseChain": {
      const r = cf.parseChain(input, options);
      return typeof r?.format === "string" ? "ok" : "!bad result";
    }
    case "validateChain": {
      const r = cf.validateChain(input, options);
      return Array.isArray(r) ? `diag:${r.length ? r[0].code : 0}` : "!bad result";
    }
    case "repairChain": {
      const r = cf.repairChain(input, options);
      if (typeof r?.changed !== "boolean") return "!bad result";
      if (!valid(r.messages, r.format, r.provider)) return "!invalid output";
      return r.changed ? "changed" : "unchanged";
    }
    case "needsCompaction": {
      const r = cf.needsCompaction(input, options);
      return typeof r === "boolean" ? String(r) : "!bad result";
    }
  }
  return "!unknown function";
}

const only = workerData?.only ? new Set(workerData.only) : null;
for (const c of cases()) {
  if (only && !only.has(c.name)) continue;
  for (const fn of FUNCTIONS) {
    parentPort.postMessage({ type: "start", name: c.name, fn });
    const input = c.input();
    const options = c.options ? c.options() : undefined;
    const t0 = performance.now();
    let outcome;
    let error = null;
    try {
      outcome = await observe(fn, input, options, c.boundMs ?? CALL_BOUND_MS);
    } catch (e) {
      if (e?.hang) outcome = "!hang";
      else if (e instanceof Error && e.name === "ContextfoldError" && typeof e.code === "string") outcome = e.code;
      else outcome = "!not a ContextfoldError";
      error = {
        name: e?.name,
        code: e?.code,
        path: e?.path,
        message: String(e?.message ?? e).slice(0, 300),
        isError: e instanceof Error,
      };
    }
    const ms = performance.now() - t0;
    const polluted = Object.keys(Object.prototype).length > 0 || {}.polluted !== undefined;
    parentPort.postMessage({ type: "result", name: c.name, fn, outcome, ms, error, polluted });
  }
}

// The module still works after the whole corpus, in the same instance.
const after = await cf.compact(longChain(), { strategy: "sections", summarizer: async (r) => `Summary ${r.id}.` });
parentPort.postMessage({
  type: "done",
  afterCorpus: { changed: after.changed, valid: valid(after.messages, after.format), calls: after.report.calls },
});
