// The bad-input corpus (bad-inputs.mjs, more than 100 cases): every call of compact,
// parseChain, validateChain, repairChain and needsCompaction gives exactly the outcome
// the case expects (a ContextfoldError with its code and path, or a valid result),
// within a generous per-call bound (a hang guard, not a performance assertion), without
// polluting Object.prototype; afterwards the module still compacts normally.
// The corpus runs in a Worker: a call that never returns is stopped and named.
import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";
import { before, describe, it } from "node:test";
import { compact, validateChain } from "contextfold";
import { cases, FUNCTIONS, longChain } from "./bad-inputs.mjs";

const CALL_BOUND_MS = 5000;
const STALL_MS = 30_000;
const corpus = cases();
const results = new Map();
let hang = null;
let done = null;

function runCorpus() {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./bad-inputs-worker.mjs", import.meta.url), {
      workerData: { callBoundMs: CALL_BOUND_MS },
      resourceLimits: { maxOldGenerationSizeMb: 4096 },
    });
    let current = null;
    let watchdog;
    const arm = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        hang = current;
        worker.terminate();
      }, STALL_MS);
    };
    arm();
    worker.on("message", (m) => {
      arm();
      if (m.type === "start") current = m;
      else if (m.type === "result") results.set(`${m.name}\u0000${m.fn}`, m);
      else if (m.type === "done") done = m;
    });
    worker.on("error", reject);
    worker.on("exit", () => {
      clearTimeout(watchdog);
      resolve();
    });
  });
}

function expected(c, fn) {
  if (typeof c.expect === "string") return c.expect;
  return c.expect[fn] ?? c.expect.default;
}

function matches(want, got) {
  if (want === "ok")
    return (
      !got.startsWith("!") &&
      (got === "ok" ||
        got === "changed" ||
        got === "unchanged" ||
        got.startsWith("diag:") ||
        got === "true" ||
        got === "false")
    );
  return want === got;
}

describe(`bad-input corpus (${corpus.length} cases x ${FUNCTIONS.length} functions)`, () => {
  before(runCorpus, { timeout: 300_000 });

  it("has at least 100 cases with unique names", () => {
    assert.ok(corpus.length >= 100, `${corpus.length} cases`);
    assert.equal(new Set(corpus.map((c) => c.name)).size, corpus.length);
  });

  for (const c of corpus) {
    it(c.name, c.todo ? { todo: c.todo } : {}, () => {
      for (const fn of FUNCTIONS) {
        const r = results.get(`${c.name}\u0000${fn}`);
        if (!r) {
          if (hang && hang.name === c.name) assert.fail(`${fn} hung (no answer within ${STALL_MS} ms): BUG`);
          assert.fail(
            `${fn} did not run${hang ? ` (the corpus stopped at a hang in "${hang.name}" / ${hang.fn})` : ""}`,
          );
        }
        const want = expected(c, fn);
        const detail = r.error
          ? ` (${r.error.name} ${r.error.code ?? ""} at ${JSON.stringify(r.error.path)}: ${r.error.message})`
          : "";
        assert.ok(matches(want, r.outcome), `${fn}: expected ${want}, got ${r.outcome}${detail}`);
        const bound = c.boundMs ?? CALL_BOUND_MS;
        assert.ok(r.ms < bound, `${fn} took ${r.ms.toFixed(0)} ms (hang guard: ${bound} ms)`);
        assert.equal(r.polluted, false, `${fn} polluted Object.prototype`);
        if (r.error) {
          assert.ok(r.error.isError, `${fn}: threw a non-Error`);
          // Every error has a path: in the input, or the option at fault (a failed
          // summarizer, an impossible budget). Invalid JSON text has one (the value being
          // read), and its line, column and byte offset in the message (issue 14).
          assert.equal(typeof r.error.path, "string", `${fn}: ${r.outcome} without a path`);
          const path = typeof c.path === "object" ? (c.path[fn] ?? c.path.default) : c.path;
          if (path !== undefined) assert.equal(r.error.path, path, `${fn}: path`);
          if (r.outcome === "invalid_json") assert.match(r.error.message, /at line \d+, column \d+ \(byte \d+\)/);
        }
      }
    });
  }

  it("the module keeps working after the corpus (same instance, and here)", async () => {
    assert.ok(done, hang ? `the corpus stopped at a hang in "${hang.name}" / ${hang.fn}` : "the worker did not finish");
    assert.deepEqual(done.afterCorpus, { changed: true, valid: true, calls: done.afterCorpus.calls });
    assert.ok(done.afterCorpus.calls > 0);
    const result = await compact(longChain(), { strategy: "sections", summarizer: async () => "Summary." });
    assert.equal(result.changed, true);
    assert.deepEqual(validateChain(result.messages, { format: result.format }), []);
  });
});
