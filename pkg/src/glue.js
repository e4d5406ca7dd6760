// The generated glue's functions, each guarded: before the wasm is instantiated they
// throw `not_initialized` (see ready.js). api.js and index.js use these, never the glue
// itself, so no export reaches an uninitialized instance. tests/node/init.test.mjs checks
// that this list holds every function the glue exports.
import * as glue from "../glue/contextfold_wasm.js";
import { contextfoldError } from "./errors.js";
import { assertReady, markReady } from "./ready.js";

/**
 * The glue's internal exports, which its declarations leave out (`skip_typescript` in the
 * binding): internal.js and the Worker middleware use them.
 * @typedef {{
 *   __checkOptionKeys(keys: string[], known: readonly string[]): void,
 *   __contextfoldAsyncPanicForTests(): Promise<void>,
 *   __contextfoldPanicForTests(): void,
 *   __extractiveSettings(options: unknown): { maxBytes: number },
 *   __extractiveSummarize(transcript: string, targetBytes: number, maxBytes: number): string,
 *   __isLarge(): boolean,
 *   __releaseIfLarge(): boolean,
 *   __wasmMemoryBytes(): number,
 *   __requestBodySpans(bytes: Uint8Array, list?: string): { fields: [string, number, number][], close: number, elements?: number[] | null } | null,
 *   __Session: new (options?: import("./index.js").CompactOptions) => Session,
 * }} Internals
 */
/**
 * The conversation `History` keeps in wasm (see crates/contextfold-wasm/src/session.rs).
 * @typedef {{
 *   push(messages: unknown): boolean,
 *   reset(messages: unknown): void,
 *   needsCompaction(): boolean,
 *   readonly total: number,
 *   free(): void,
 * }} Session
 */
/** @typedef {typeof glue & Internals} Glue */

/**
 * `glue[name]`, checking readiness first; keeps the function's name for stack traces.
 * @template {keyof Glue} K
 * @param {K} name
 * @returns {Glue[K]}
 */
function guarded(name) {
  const target = /** @type {(...args: unknown[]) => unknown} */ (/** @type {Glue} */ (glue)[name]);
  return /** @type {any} */ (
    {
      [name](/** @type {unknown[]} */ ...args) {
        assertReady(name);
        return target(...args);
      },
    }[name]
  );
}

/**
 * `glue[name]`, a class, checking readiness before its constructor runs.
 * @param {"__Session"} name
 * @returns {Glue["__Session"]}
 */
function guardedClass(name) {
  const Target = /** @type {new (...args: unknown[]) => object} */ (/** @type {Glue} */ (glue)[name]);
  return /** @type {any} */ (
    {
      [name]: class extends Target {
        constructor(/** @type {unknown[]} */ ...args) {
          assertReady(`new ${name}()`);
          super(...args);
        }
      },
    }[name]
  );
}

export const __Session = guardedClass("__Session");
export const __checkOptionKeys = guarded("__checkOptionKeys");
export const __contextfoldAsyncPanicForTests = guarded("__contextfoldAsyncPanicForTests");
export const __contextfoldPanicForTests = guarded("__contextfoldPanicForTests");
export const __extractiveSettings = guarded("__extractiveSettings");
export const __extractiveSummarize = guarded("__extractiveSummarize");
export const __isLarge = guarded("__isLarge");
export const __releaseIfLarge = guarded("__releaseIfLarge");
export const __requestBodySpans = guarded("__requestBodySpans");
export const __wasmMemoryBytes = guarded("__wasmMemoryBytes");
export const clearReasoning = guarded("clearReasoning");
export const compact = guarded("compact");
export const convert = guarded("convert");
export const defaultSettings = guarded("defaultSettings");
export const estimateTokens = guarded("estimateTokens");
export const formats = guarded("formats");
export const measureChain = guarded("measureChain");
export const needsCompaction = guarded("needsCompaction");
export const normalizeToolCallIds = guarded("normalizeToolCallIds");
export const parseChain = guarded("parseChain");
export const providerOf = guarded("providerOf");
export const repairChain = guarded("repairChain");
export const start = guarded("start");
export const validateChain = guarded("validateChain");

/**
 * The glue's synchronous instantiation (bytes or a compiled Module), marking readiness.
 * @type {typeof import("./index.js").initSync}
 */
export function initSync(module) {
  const output = glue.initSync(module);
  markReady();
  return output;
}

/**
 * The current instance's raw exports, once instantiated: what the entries' `init()`
 * resolves to. Never kept by them: a fresh instance replaces the first after a panic or
 * a very large call, and holding the first would keep its memory.
 * @returns {unknown}
 */
export function instanceExports() {
  assertReady("init");
  // Once instantiated, the glue's initSync returns the current exports and nothing else.
  return glue.initSync(/** @type {any} */ (undefined));
}

/**
 * The glue's asynchronous instantiation (fetches the .wasm by default), marking readiness.
 * A failure (the .wasm cannot be fetched, is not wasm, or may not be compiled here) is a
 * ContextfoldError `init_failed`, never the runtime's bare `TypeError: fetch failed`.
 * @type {typeof import("./index.js").default}
 */
export async function init(moduleOrPath) {
  let output;
  try {
    output = await glue.default(moduleOrPath);
  } catch (error) {
    const failure = contextfoldError(
      "init_failed",
      `contextfold could not instantiate its WebAssembly module: ${error?.message ?? error} ` +
        "(give `init({ module_or_path })` the .wasm's URL, bytes or a compiled Module: see Bundlers in the README)",
      undefined,
    );
    failure.cause = error;
    throw failure;
  }
  markReady();
  return output;
}
