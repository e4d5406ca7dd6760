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
  const seed =
    process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
  const path = process.env.FC_PATH;
  const runs = Number(process.env.FC_RUNS ?? numRuns);
  t.diagnostic(`fast-check seed ${seed}, ${runs} runs (replay: FC_SEED=${seed} node --test ${process.argv[1] ?? ""})`);
  try {
    await fc.assert(property, { numRuns: runs, seed, ...(path ? { path, endOnFailure: true } : {}) });
  } catch (error) {
    const where = /path: "([^"]*)"/.exec(String(error.message))?.[1];
    error.message = `replay with FC_SEED=${seed}${where ? ` FC_PATH=${where}` : ""}\n${error.message}`;
    // fast-check keeps the failing assertion as `cause`, which the test reporter omits.
    if (error.cause instanceof Error && !error.message.includes(error.cause.message)) {
      error.message += `\nFailure: ${error.cause.message}`;
    }
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
  if (requirePath && error.code !== "invalid_json")
    assert.equal(typeof error.path, "string", `${context}: code ${error.code} without a path`);
}

/** Rejects after `ms` when `promise` has not settled: a hang guard, not a performance bound. */
export function within(promise, ms, what) {
  let timer;
  const guard = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hang: ${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

/** The message array of a chain value: the array itself, or the list a wrapper holds. */
export function messageList(chain) {
  if (Array.isArray(chain)) return chain;
  if (chain && typeof chain === "object") {
    for (const key of ["messages", "contents"]) if (Array.isArray(chain[key])) return chain[key];
  }
  return [];
}

/** JSON text with object keys sorted at every level: equal for deep-equal values. */
export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

const THINKING_TYPES = new Set(["thinking", "redacted_thinking", "reasoning"]);
const SIGNATURE_KEYS = ["signature", "thoughtSignature"];

/**
 * Every piece of thinking a chain of any format carries, each as a string: whole thinking
 * blocks (Anthropic / LangChain `thinking` and `redacted_thinking`, native and AI SDK
 * `reasoning`, Gemini `thought` parts) with all their fields, OpenAI `reasoning_content`,
 * and every signature field wherever it sits (a Gemini call's `thoughtSignature` too).
 */
export function thinkingPieces(chain) {
  const out = new Set();
  const walk = (v) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      if (THINKING_TYPES.has(v.type) || v.thought === true) out.add(`block ${canonical(v)}`);
      if (typeof v.reasoning_content === "string") out.add(`reasoning_content ${v.reasoning_content}`);
      for (const key of SIGNATURE_KEYS) if (typeof v[key] === "string") out.add(`signature ${v[key]}`);
      Object.values(v).forEach(walk);
    }
  };
  walk(chain);
  return out;
}
