// Shared by the reliability tests: fast-check runs with a printed, replayable seed;
// ContextfoldError checks; a hang guard.
import assert from "node:assert/strict";
import fc from "fast-check";

/**
 * Runs `property` with a seed printed as a test diagnostic. Replay a failure with
 * `FC_SEED=<seed> [FC_PATH=<path>] node --test tests/reliability/<file>`; `FC_RUNS`
 * overrides the number of runs.
 */
export async function assertProperty(t, property, numRuns) {
  const seed = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
  const path = process.env.FC_PATH;
  const runs = Number(process.env.FC_RUNS ?? numRuns);
  t.diagnostic(`fast-check seed ${seed}, ${runs} runs (replay: FC_SEED=${seed} node --test ${process.argv[1] ?? ""})`);
  try {
    await fc.assert(property, { numRuns: runs, seed, ...(path ? { path, endOnFailure: true } : {}) });
  } catch (error) {
    const where = /path: "([^"]*)"/.exec(String(error.message))?.[1];
    error.message = `replay with FC_SEED=${seed}${where ? ` FC_PATH=${where}` : ""}\n${error.message}`;
    throw error;
  }
}

/**
 * Asserts `error` is a ContextfoldError with a code; with `requirePath`, also a string
 * `path` (except for `invalid_json`, whose position is a line and column).
 */
export function assertContextfoldError(error, context = "", { requirePath = false } = {}) {
  assert.ok(error instanceof Error, `${context}: not an Error: ${String(error)}`);
  assert.equal(error.name, "ContextfoldError", `${context}: ${error.name}: ${error.message}`);
  assert.equal(typeof error.code, "string", `${context}: no code`);
  assert.match(error.code, /^[a-z][a-z_]*$/, `${context}: code ${error.code}`);
  if (requirePath && error.code !== "invalid_json") assert.equal(typeof error.path, "string", `${context}: code ${error.code} without a path`);
}

/** Rejects after `ms` when `promise` has not settled: a hang guard, not a performance bound. */
export function within(promise, ms, what) {
  let timer;
  const guard = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hang: ${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

/** Every (text, signature) of thinking in a chain of any format, as "text\u0000signature". */
export function signedThinking(chain) {
  const out = new Set();
  const walk = (v) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      if (typeof v.signature === "string" && (v.type === "thinking" || v.type === "reasoning")) {
        out.add(`${v.thinking ?? v.text}\u0000${v.signature}`);
      }
      Object.values(v).forEach(walk);
    }
  };
  walk(chain);
  return out;
}
