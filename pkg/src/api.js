// Thin wrappers over the wasm exports that take a chain, for speed on large inputs and
// to hand kept messages back as the caller's own objects.
//
// Crossing into wasm as JSON text is faster than converting the object graph field by
// field (measured on a 12 MB, 48k-message chain: 240 vs 362 ms to read and measure it),
// so object input is stringified here. `compact` then asks for a reuse plan: every
// output message that equals an input message comes back as that input's index, and
// the very same object is put in its place; an unchanged chain comes back as the same
// array. Only new messages (summaries) are converted from Rust.
import { BinaryValues, restoreBinary, stringifyChain } from "./binary.js";
import * as wasm from "./glue.js"; // guarded: not_initialized before the wasm exists
import { contextfoldError } from "./errors.js";
import { instanceReviver } from "./instances.js";
import { assertReady, isReady, whenStarted } from "./ready.js";

// A panic aborts the wasm call; inside an async export its Promise would never settle.
// The panic hook calls the function registered under this symbol, which rejects every
// pending call of this module (the next call gets a fresh instance).
const PANIC = Symbol.for("contextfold.panic");
const pending = new Set();
/** @type {Set<{ alive: boolean }>} the compactions in flight (see `gated`) */
const lives = new Set();
globalThis[PANIC] ??= Object.assign(
  (message) => {
    for (const handler of handlers.handlers) handler(message);
  },
  { handlers: new Set() },
);
/** The registry, shared by every copy of this module (the first one made it). */
const handlers = globalThis[PANIC];
handlers.handlers.add((message) => {
  const error = contextfoldError(
    "internal",
    `the wasm module panicked (a bug: please report it); the call was abandoned and the module reset: ${message}`,
    undefined,
  );
  for (const reject of pending) reject(error);
  pending.clear();
  for (const life of lives) life.alive = false;
  lives.clear();
});

/** Idle time after which an instance grown very large is replaced, in milliseconds. */
export const RELEASE_AFTER_IDLE_MS = 1000;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let releaseTimer;

/**
 * After a call, with none in flight: an instance grown very large is replaced by a fresh
 * one (crates/contextfold-wasm/src/memory.rs) once no call came for RELEASE_AFTER_IDLE_MS,
 * so its memory goes back; every call in the meantime starts the wait again.
 */
function releaseWhenIdle() {
  if (releaseTimer !== undefined) clearTimeout(releaseTimer);
  releaseTimer = undefined;
  if (pending.size !== 0 || !isReady() || !wasm.__isLarge()) return;
  releaseTimer = setTimeout(() => {
    releaseTimer = undefined;
    if (pending.size === 0) wasm.__releaseIfLarge();
  }, RELEASE_AFTER_IDLE_MS);
  // Never what keeps a Node process alive.
  /** @type {any} */ (releaseTimer).unref?.();
}

/**
 * `promise`, rejected if the module panics before it settles.
 * @template T
 * @param {Promise<T>} promise
 * @returns {Promise<T>}
 */
function guarded(promise) {
  return new Promise((resolve, reject) => {
    pending.add(reject);
    promise.then(
      (value) => {
        pending.delete(reject);
        releaseWhenIdle();
        resolve(value);
      },
      (error) => {
        pending.delete(reject);
        releaseWhenIdle();
        reject(error);
      },
    );
  });
}

const describe = (e) => (e instanceof Error ? e.message : String(e));

/**
 * JSON text for object input; anything else goes to wasm as it is (and fails there).
 * Binary values become text the core reads, recorded in `found` (when given) to be put back.
 * @param {unknown} messages
 * @param {BinaryValues} [found]
 */
function crossing(messages, found) {
  if (messages === null || typeof messages !== "object") return messages;
  try {
    return stringifyChain(messages, found);
  } catch (e) {
    // Cycles, BigInt, throwing toJSON: no JSON value to read.
    throw contextfoldError("invalid_shape", `messages are not JSON data: ${describe(e)}`, "");
  }
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Path of the first string (or key) holding a lone surrogate, as `[3].content`. */
function loneSurrogatePath(value, path = "", seen = new Set()) {
  if (typeof value === "string") return LONE_SURROGATE.test(value) ? path : undefined;
  if (value === null || typeof value !== "object" || seen.has(value)) return undefined;
  seen.add(value);
  for (const [key, item] of Object.entries(value)) {
    const at = Array.isArray(value) ? `${path}[${key}]` : `${path}${path ? "." : ""}${key}`;
    if (!Array.isArray(value) && LONE_SURROGATE.test(key)) return at;
    const found = loneSurrogatePath(item, at, seen);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * A lone surrogate is no Unicode text: JSON text cannot carry it and the reader rejects
 * it. Say where it is in the caller's own value, not where it fell in JSON text the
 * caller never saw.
 */
function located(error, messages) {
  if (error?.code !== "invalid_json" || messages === null || typeof messages !== "object") return error;
  const path = loneSurrogatePath(messages);
  if (path === undefined) return error;
  return contextfoldError("invalid_text", `${path}: a lone surrogate (half a UTF-16 pair) is not valid text`, path);
}

/**
 * Runs `fn`, translating a lone-surrogate failure into its located error.
 * @template T
 * @param {unknown} messages
 * @param {() => T} fn
 * @returns {T}
 */
function reading(messages, fn) {
  try {
    return fn();
  } catch (e) {
    throw located(e, messages);
  } finally {
    releaseWhenIdle();
  }
}

function isOptionsObject(options) {
  return options !== null && typeof options === "object" && !Array.isArray(options);
}

/**
 * A copy of the caller's options (own enumerable keys, as a spread would take). A
 * throwing getter or proxy trap is an invalid option with its path, not an escaped
 * exception; keys such as `__proto__` are copied as plain data.
 * @param {object} options
 * @returns {Record<string, any>}
 */
export function copyOptions(options) {
  let keys;
  try {
    keys = Object.keys(options);
  } catch (e) {
    throw contextfoldError("invalid_option", `options: ${describe(e)}`, "options");
  }
  const copy = {};
  for (const key of keys) {
    let value;
    try {
      value = options[key];
    } catch (e) {
      throw contextfoldError("invalid_option", `options.${key}: ${describe(e)}`, `options.${key}`);
    }
    Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

// The options of the integrations (`contextfold/ai-sdk`, `contextfold/langchain`,
// `contextfold/openai-agents`): `compact`'s, a budget required, the integration's own
// message format. One reader, so that every integration checks in the same order: the
// keys first (a misspelt budget, `maxToken`, is named as the typo it is, "did you mean
// maxTokens?"), then the budget. (Here, not in a module of its own: the Node entries
// share one bundled module, and a module only the integrations import would be a second.)

/**
 * `settings` with a run's abort `signal` (an agent run's, a model call's) beside the
 * caller's own: either cancels the summary calls.
 * @param {Record<string, any>} settings
 * @param {AbortSignal | undefined} signal
 */
export function withSignal(settings, signal) {
  if (!signal) return settings;
  const own = settings.signal;
  if (!own) return { ...settings, signal };
  // Either cancels; a runtime without `AbortSignal.any` keeps the caller's own.
  return typeof AbortSignal.any === "function" ? { ...settings, signal: AbortSignal.any([own, signal]) } : settings;
}

/**
 * The compact settings of an integration named `who`, from the caller's `options`: a copy
 * (a throwing getter is an `invalid_option` at its key), with `strategy` as the default,
 * `format` the integration's. Keys of the integration's own (`own`) are taken out and
 * returned apart. Checked now by `compact`'s own reader, not at the first call. Throws a
 * `ContextfoldError` (`invalid_option`).
 * @param {string} who
 * @param {unknown} options
 * @param {{ format: import("./index.js").ChainFormat, strategy: import("./index.js").CompactOptions["strategy"], own?: string[] }} spec
 * @returns {{ settings: Record<string, any>, own: Record<string, any> }}
 */
export function integrationSettings(who, options, { format, strategy, own = [] }) {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw contextfoldError("invalid_option", `${who}: options: expected an object`, "options");
  }
  const copy = copyOptions(options);
  const taken = /** @type {Record<string, any>} */ ({});
  for (const key of own) {
    taken[key] = copy[key];
    delete copy[key];
  }
  // The integration reads its own framework's messages: a format given is a mistake
  // (the declarations have no such option), not something to override in silence.
  if (copy.format !== undefined) {
    throw contextfoldError(
      "invalid_option",
      `${who}: options.format: not an option here; ${who} reads ${format} messages`,
      "options.format",
    );
  }
  const settings = { strategy, ...copy, format };
  // Unknown keys and wrong values first: a misspelt budget is named as such.
  try {
    needsCompaction([], settings);
  } catch (error) {
    if (error?.name === "ContextfoldError" && typeof error.message === "string")
      error.message = `${who}: ${error.message}`;
    throw error;
  }
  if (copy.maxTokens == null && copy.maxBytes == null) {
    throw contextfoldError("invalid_option", `${who}: options.maxTokens: the budget is required`, "options.maxTokens");
  }
  return { settings, own: taken };
}

/** @type {Map<string, string> | undefined} format -> the message-list field of its request object */
let listFields;

/**
 * The message-list field of a request object in `format` (Anthropic `messages`, Gemini
 * `contents`): the core's `formats()`, read once.
 * @param {string} format
 */
function listField(format) {
  listFields ??= new Map(wasm.formats().flatMap((f) => (f.request ? [[f.name, f.request.messages]] : [])));
  return listFields.get(format) ?? "messages";
}

/**
 * The lists of `messages` as they are now: a copy of a bare list, or of every list field
 * of a request object (which one holds the messages is known only once the core read
 * it). The reuse plan indexes these, not the caller's live arrays, which a chat UI may
 * change while the summarizer runs.
 * @param {object} messages
 * @returns {unknown[] | Record<string, unknown[]>}
 */
function snapshotLists(messages) {
  if (Array.isArray(messages)) return messages.slice();
  const lists = /** @type {Record<string, unknown[]>} */ ({});
  for (const [key, value] of Object.entries(messages)) if (Array.isArray(value)) lists[key] = value.slice();
  return lists;
}

/**
 * `summarizer` for one compaction: its answers reach the wasm only while `life` lasts.
 * After a panic the instance that asked is gone, and an answer coming later would run its
 * promise reactions (an unhandled rejection in the caller's process); it is dropped. A
 * throw or a plain (non-Promise) answer goes through as the bridge takes it.
 * @param {(request: unknown, context: unknown) => unknown} summarizer
 * @param {{ alive: boolean }} life
 */
function gated(summarizer, life) {
  return (/** @type {unknown} */ request, /** @type {unknown} */ context) => {
    const answer = summarizer.call(undefined, request, context);
    /** @type {Promise<unknown>} */
    let settled;
    try {
      settled = Promise.resolve(answer); // reads `then` / `constructor`, which may throw
    } catch (e) {
      settled = Promise.reject(e);
    }
    return new Promise((resolve, reject) =>
      settled.then(
        (value) => life.alive && resolve(value),
        (error) => life.alive && reject(error),
      ),
    );
  };
}

/** Whether `f` is the built-in summarizer (run inside wasm, never gated); a hostile `f` is left to the core. */
function isExtractive(f) {
  try {
    return EXTRACTIVE in f;
  } catch {
    return true;
  }
}

export async function compact(messages, options) {
  const given = messages === null || typeof messages !== "object" ? undefined : messages;
  // Read once, at the call: the JSON text the core compacts and the element references
  // the result reuses come from the same moment.
  const found = new BinaryValues();
  let settings;
  let text;
  let lists;
  if (given !== undefined && (options === undefined || isOptionsObject(options))) {
    // `__reuse` (internal, not in CompactOptions) asks the core for the reuse plan.
    settings = /** @type {import("./index.js").CompactOptions} */ ({
      ...(options === undefined ? {} : copyOptions(options)),
      __reuse: true,
    });
    text = crossing(given, found);
    try {
      lists = snapshotLists(given);
    } catch (e) {
      throw contextfoldError("invalid_shape", `messages could not be read: ${describe(e)}`, "");
    }
  }
  await whenStarted();
  if (lists === undefined) return guarded(wasm.compact(messages, options));
  /** @type {any} the result with its internal `reuse` plan, made the caller's below */
  let result;
  const life = { alive: true };
  const summarizer = settings.summarizer;
  if (typeof summarizer === "function" && !isExtractive(summarizer)) settings.summarizer = gated(summarizer, life);
  lives.add(life);
  try {
    result = await guarded(wasm.compact(text, settings));
  } catch (e) {
    throw located(e, messages);
  } finally {
    lives.delete(life);
  }
  if (!result.changed) {
    result.messages = messages;
  } else if (result.reuse) {
    // The plan indexes the input's message list; the output has the input's container:
    // a bare list (null shell) or a request object whose list is to be filled.
    const field = listField(result.format);
    const input = Array.isArray(lists) ? lists : (lists[field] ?? []);
    const revive = instanceReviver(input) ?? ((m) => m);
    // In output order: a kept message tells `found` which occurrences are past.
    const list = result.reuse.map((item) => {
      if (typeof item !== "number") return revive(restoreBinary(item, found));
      found.keep(item);
      return input[item];
    });
    const shell = restoreBinary(result.messages, found);
    result.messages = shell === null ? list : { ...shell, [field]: list };
  } else {
    restoreBinary(result.messages, found);
    result.messages = asInstances(lists, result.messages);
  }
  delete result.reuse;
  return result;
}

/** @type {typeof import("./index.js").needsCompaction} */
export function needsCompaction(messages, options) {
  return reading(messages, () => wasm.needsCompaction(crossing(messages), options));
}

/** @type {typeof import("./index.js").parseChain} */
export function parseChain(messages, options) {
  return reading(messages, () => wasm.parseChain(crossing(messages), options));
}

/** @type {typeof import("./index.js").validateChain} */
export function validateChain(messages, options) {
  return reading(messages, () => wasm.validateChain(crossing(messages), options));
}

/** @type {typeof import("./index.js").measureChain} */
export function measureChain(messages, options) {
  return reading(messages, () => wasm.measureChain(crossing(messages), options));
}

/** The one format whose file and image fields take binary values (`Uint8Array`, `URL`). */
const BINARY_FORMAT = "aisdk";

/** @type {typeof import("./index.js").convert} */
export function convert(messages, options) {
  // The declaration types the result by `options.to`, which the core's writer guarantees.
  const found = new BinaryValues();
  const result = /** @type {any} */ (reading(messages, () => wasm.convert(crossing(messages, found), options)));
  // The caller's binary values go back only where the target format takes them: the AI
  // SDK's model messages. Every other format (the AI SDK's UI messages too) holds file
  // and image data as base64 or URL text, which is what the core wrote.
  if (result.to === BINARY_FORMAT) restoreBinary(result.messages, found);
  if (result.to === "langchain") result.messages = asInstances(messages, result.messages);
  return result;
}

/**
 * `written`, a list the core wrote, with its serialized LangChain messages made instances
 * of the classes of the caller's instances in `given` (`written` as it is when `given`
 * holds none).
 * @param {unknown} given
 * @param {unknown} written
 */
function asInstances(given, written) {
  const revive = instanceReviver(given);
  return revive !== null && Array.isArray(written) ? written.map(revive) : written;
}

/**
 * An unchanged result holds the caller's own chain, not a copy; a changed one holds
 * LangChain instances where the caller gave them.
 * @template {{ changed: boolean, messages: unknown }} R
 * @param {unknown} messages
 * @param {R} result
 * @returns {R}
 */
function unchangedAsGiven(messages, result) {
  if (!result.changed && messages !== null && typeof messages === "object") result.messages = messages;
  else result.messages = /** @type {R["messages"]} */ (asInstances(messages, result.messages));
  return result;
}

export function repairChain(messages, options) {
  return unchangedAsGiven(
    messages,
    reading(messages, () => wasm.repairChain(crossing(messages), options)),
  );
}

export function normalizeToolCallIds(messages, template, options) {
  return unchangedAsGiven(
    messages,
    reading(messages, () => wasm.normalizeToolCallIds(crossing(messages), template, options)),
  );
}

export function clearReasoning(messages, options) {
  return unchangedAsGiven(
    messages,
    reading(messages, () => wasm.clearReasoning(crossing(messages), options)),
  );
}

/** Marks a function made by `extractiveSummarizer`: `compact` runs it inside wasm. */
const EXTRACTIVE = "__contextfoldExtractive";

/**
 * The built-in summarizer as a function of this layer, not a Rust closure: it calls
 * whichever wasm instance is current, so it keeps working after one was replaced.
 * @type {typeof import("./index.js").extractiveSummarizer}
 */
export function extractiveSummarizer(options) {
  assertReady("extractiveSummarizer");
  const settings = wasm.__extractiveSettings(options);
  const summarize = async (/** @type {import("./index.js").SummaryRequest} */ request) => {
    const transcript = request?.transcript;
    if (typeof transcript !== "string") throw new TypeError("extractiveSummarizer: the request has no transcript");
    const target = request.targetBytes;
    const bytes = Number.isFinite(target) && target > 0 ? Math.floor(target) : settings.maxBytes;
    return wasm.__extractiveSummarize(transcript, bytes, settings.maxBytes);
  };
  Object.defineProperty(summarize, EXTRACTIVE, { value: settings });
  return summarize;
}

/**
 * Test hook: an async export that panics; must reject, not hang. Not part of the API
 * (internal.js).
 * @returns {Promise<void>}
 */
export function __contextfoldAsyncPanicForTests() {
  return guarded(wasm.__contextfoldAsyncPanicForTests());
}

/**
 * The overloaded declarations (formats.d.ts) of the functions above, which a `@type` tag on
 * a function cannot carry: checked by assignment, so a mismatch in arity or result fails
 * `npm run check:types`.
 * @type {Pick<typeof import("./index.js"), "compact" | "repairChain" | "normalizeToolCallIds" | "clearReasoning">}
 */
const _declaredOverloads = { compact, repairChain, normalizeToolCallIds, clearReasoning };
