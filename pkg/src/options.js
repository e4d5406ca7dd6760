// Checking the options of the JS-only constructors (summarizer adapters, caches, the
// Worker's `proxy`): the one helper they share. An unknown key is an error naming the
// nearest known one, and a value of the wrong kind an error naming what it must be, both
// a `ContextfoldError` with code `invalid_option` and the path of the culprit
// (`options.apikey`), as the core answers for the options it reads.
//
// Each constructor lists its keys once, as a `Spec` of its options type: the type check
// (`npm run check:types`) fails when the list and the declaration disagree.
//
// The nearest-name rule is the core's (`contextfold::names`), written again here because
// `contextfold/summarizers` loads no wasm; tests/node/summarizers.test.mjs checks that both
// give the same message.
import { contextfoldError } from "./errors.js";

/**
 * What a value must be: a test of a present value (`undefined` and `null` are absent, and
 * pass unless `required`) and what it says when the test fails.
 * @typedef {{ test: (value: any) => boolean, must: string, required?: boolean }} Check
 */
/**
 * Every key of an options type `T`, each with its check: no more, no fewer.
 * @template T
 * @typedef {{ [K in keyof Required<T>]: Check }} Spec
 */

/**
 * A check: `test` of a present value, `must` what the error says it must be.
 * @param {(value: any) => boolean} test
 * @param {string} must
 * @returns {Check}
 */
export const check = (test, must) => ({ test, must });

/**
 * The same check, failing on an absent value too.
 * @param {Check} check
 * @returns {Check}
 */
export const required = (check) => ({ ...check, required: true });

/** @param {unknown} v */
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
/**
 * An http(s) URL without credentials: `fetch` (and `Request`) refuse `user:password@`,
 * so every call would fail, with the password in the error.
 * @param {unknown} v
 */
function isHttpUrl(v) {
  if (typeof v !== "string") return false;
  try {
    const { protocol, username, password } = new URL(v);
    return (protocol === "http:" || protocol === "https:") && username === "" && password === "";
  } catch {
    return false;
  }
}
/** @param {unknown} v */
const isNumber = (v) => typeof v === "number" && Number.isFinite(v);

/** Checks of the kinds of value options take. */
export const is = {
  string: check((v) => typeof v === "string" && v.trim() !== "", "a non-empty string"),
  function: check((v) => typeof v === "function", "a function"),
  object: check(isObject, "an object"),
  url: check(isHttpUrl, "an http(s) URL without user:password@ (fetch refuses those)"),
  /** A number >= 0. */
  number: check((v) => isNumber(v) && v >= 0, "a number >= 0"),
  /** A number > 0. */
  positive: check((v) => isNumber(v) && v > 0, "a positive number"),
  /** An integer >= 0. */
  count: check((v) => Number.isInteger(v) && v >= 0, "an integer >= 0"),
  /** An integer >= 1. */
  wholeNumber: check((v) => Number.isInteger(v) && v >= 1, "an integer >= 1"),
  /**
   * One of several checks.
   * @param {...Check} checks
   * @returns {Check}
   */
  oneOf: (...checks) => check((v) => checks.some((c) => c.test(v)), checks.map((c) => c.must).join(" or ")),
};

/**
 * Checks `options` of `where` (the constructor's name, for the message) against `spec`:
 * an object (`undefined` counts as `{}`), every own key known (`__proto__` aside), every
 * present value passing its check (`null` counts as absent, as in the core's options). Throws a `ContextfoldError` (`invalid_option`) at
 * `path.<key>`; returns `options` (or `{}`).
 * @template T
 * @param {string} where
 * @param {unknown} options
 * @param {Spec<T>} spec
 * @param {string} [path]
 * @returns {Record<string, any>}
 */
export function checkOptions(where, options, spec, path = "options") {
  const fail = (/** @type {string} */ at, /** @type {string} */ message) => {
    throw contextfoldError("invalid_option", `${where}: ${at}: ${message}`, at);
  };
  if (options === undefined) options = {};
  if (!isObject(options)) fail(path, `expected an object, not ${kindOf(options)}`);
  const values = /** @type {Record<string, unknown>} */ (options);
  /** @type {Record<string, Check>} */
  const checks = spec;
  const known = Object.keys(checks);
  for (const key of Object.keys(values)) {
    if (key === "__proto__" || Object.hasOwn(checks, key)) continue;
    const near = nearest(key, known);
    const hint = near === undefined ? `known options: ${known.join(", ")}` : `did you mean ${near}?`;
    fail(`${path}.${key}`, `unknown option ${JSON.stringify(key)}; ${hint}`);
  }
  for (const [key, { test, must, required }] of Object.entries(checks)) {
    const value = values[key];
    if (value === undefined || value === null) {
      if (required) fail(`${path}.${key}`, `is required (${must})`);
    } else if (!test(value)) {
      fail(`${path}.${key}`, `must be ${must}, not ${kindOf(value)}`);
    }
  }
  return values;
}

/**
 * Checks one argument that is not an options object (a handler, a binding): a
 * `ContextfoldError` (`invalid_option`) at `path` unless `test` passes.
 * @param {string} where
 * @param {unknown} value
 * @param {Check} check
 * @param {string} path
 */
export function checkArgument(where, value, { test, must }, path) {
  if (!test(value))
    throw contextfoldError("invalid_option", `${where}: ${path} must be ${must}, not ${kindOf(value)}`, path);
}

/** A short description of a wrong value, for messages: never the value itself (it may be a key). */
function kindOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return Number.isFinite(value) ? `the number ${value}` : String(value);
  if (typeof value === "string") return value.trim() === "" ? "an empty string" : "a string";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

/**
 * The known name closest to `name` (case-insensitive edit distance, adjacent swaps one
 * edit), if close enough to be a slip: at most a third of its length, never more than
 * 3 edits. `contextfold::names::nearest` in the core.
 * @param {string} name
 * @param {string[]} known
 * @returns {string | undefined}
 */
export function nearest(name, known) {
  const wanted = name.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor([...wanted].length / 3)));
  let best;
  let bestDistance = Infinity;
  for (const key of known) {
    if (key.startsWith("__")) continue;
    const d = distance(wanted, key.toLowerCase());
    if (d <= limit && d < bestDistance) {
      best = key;
      bestDistance = d;
    }
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
function distance(left, right) {
  const a = [...left];
  const b = [...right];
  /** @type {number[][]} */
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}
