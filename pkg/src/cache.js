// Summary cache. Clients resend the whole history every turn, so without a cache the
// same old span is summarized again on every request. `cachedSummarizer` keys each
// summary request by a SHA-256 of the summarizer's identity (`namespace`: for the
// adapters of `contextfold/summarizers`, their endpoint, model, generation parameters
// and prompt version), the request's kind and size hint, and its prompt (instructions
// and transcript), which contextfold renders deterministically from the exact span: the
// same span for the same summarizer gives the same key, any change to either a new one.
//
// A cache is anything with `get(key) => Promise<string | undefined>` and
// `put(key, value) => Promise<void>`; three are provided: an in-memory LRU, Workers KV,
// and the Cache API. A failing cache never fails a summary: a read error counts as a
// miss, a write error is ignored (both are counted in `stats.errors`).

import { contextfoldError } from "./errors.js";
import { check, checkArgument, checkOptions, is, required } from "./options.js";

const KEY_VERSION = "contextfold-summary-v2";

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The cache key of a summary request: 64 hex digits.
 * @type {typeof import("./cache.js").summaryCacheKey}
 */
export async function summaryCacheKey(namespace, request) {
  const material = JSON.stringify([
    KEY_VERSION,
    String(namespace),
    String(request?.kind),
    Number(request?.targetBytes) || 0,
    String(request?.prompt),
    String(request?.instructions),
    String(request?.transcript),
  ]);
  return hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(material)));
}

/** Whether `value` is an object with these methods. */
function hasMethods(value, ...names) {
  return value !== null && typeof value === "object" && names.every((name) => typeof value[name] === "function");
}

/** A summary store: an object with get(key) and put(key, value). */
const isCache = check((v) => hasMethods(v, "get", "put"), "a cache with get(key) and put(key, value) methods");

// The options of each constructor, the one list of its keys (`checkOptions` rejects any
// other, naming the nearest); the type check fails when a list and cache.d.ts disagree.

/** @type {import("./options.js").Spec<import("./cache.js").CachedSummarizerOptions>} */
const CACHED_SUMMARIZER_OPTIONS = { cache: required(isCache), namespace: is.string };
/** @type {import("./options.js").Spec<import("./cache.js").MemoryCacheOptions>} */
const MEMORY_CACHE_OPTIONS = { maxEntries: is.wholeNumber };
/** @type {import("./options.js").Spec<import("./cache.js").KVCacheOptions>} */
const KV_CACHE_OPTIONS = { ttlSeconds: is.positive, prefix: is.string };
/** @type {import("./options.js").Spec<import("./cache.js").CacheApiCacheOptions>} */
const CACHE_API_CACHE_OPTIONS = { prefix: is.url, ttlSeconds: is.positive };

/** Summaries being made right now, per cache: concurrent identical requests share one call. */
const inFlight = new WeakMap();

function inFlightOf(cache) {
  let map = inFlight.get(cache);
  if (map === undefined) {
    map = new Map();
    inFlight.set(cache, map);
  }
  return map;
}

function usable(value) {
  return typeof value === "string" && value.trim() !== "";
}

/**
 * Wraps a summarizer with a cache. `namespace` names the summarizer (e.g. its model),
 * so that two summarizers never share entries; it defaults to the summarizer's
 * `identity` (which the adapters of `contextfold/summarizers` carry). The returned
 * summarizer's `stats` counts `hits` (answered from the cache, or by an identical call
 * already in flight), `misses` (calls made), and `errors` (cache reads or writes that
 * failed).
 * @type {typeof import("./cache.js").cachedSummarizer}
 */
export function cachedSummarizer(summarizer, options) {
  const where = "cachedSummarizer";
  checkArgument(where, summarizer, is.function, "summarizer");
  const { cache, namespace: given } = checkOptions(where, options, CACHED_SUMMARIZER_OPTIONS);
  const namespace = given ?? /** @type {any} */ (summarizer).identity;
  if (typeof namespace !== "string" || namespace === "") {
    const message = "the summarizer's identity (e.g. its model name) is required: the summarizer has none";
    throw contextfoldError("invalid_option", `${where}: options.namespace: ${message}`, "options.namespace");
  }
  const stats = { hits: 0, misses: 0, errors: 0 };
  const pending = inFlightOf(cache);

  async function cached(request, context) {
    const key = await summaryCacheKey(namespace, request);
    let value;
    try {
      value = await cache.get(key);
    } catch {
      stats.errors += 1;
    }
    if (usable(value)) {
      stats.hits += 1;
      return value;
    }
    const shared = pending.get(key);
    if (shared !== undefined) {
      try {
        const summary = await shared;
        stats.hits += 1;
        return summary;
      } catch {
        // the other call failed (or was cancelled): make our own
      }
    }
    stats.misses += 1;
    const call = (async () => {
      const summary = await summarizer(request, context);
      if (usable(summary)) {
        try {
          await cache.put(key, summary);
        } catch {
          stats.errors += 1;
        }
      }
      return summary;
    })();
    pending.set(key, call);
    try {
      return await call;
    } finally {
      if (pending.get(key) === call) pending.delete(key);
    }
  }

  Object.defineProperty(cached, "stats", { value: stats, enumerable: true });
  Object.defineProperty(cached, "identity", { value: namespace, enumerable: true });
  return cached;
}

/**
 * An in-memory LRU cache of at most `maxEntries` summaries (per isolate / process).
 * @type {typeof import("./cache.js").memoryCache}
 */
export function memoryCache(options) {
  const maxEntries = checkOptions("memoryCache", options, MEMORY_CACHE_OPTIONS).maxEntries ?? 1000;
  const entries = new Map();
  return {
    async get(key) {
      if (!entries.has(key)) return undefined;
      const value = entries.get(key);
      entries.delete(key); // most recently used goes last
      entries.set(key, value);
      return value;
    },
    async put(key, value) {
      entries.delete(key);
      entries.set(key, value);
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value);
    },
    get size() {
      return entries.size;
    },
    clear() {
      entries.clear();
    },
  };
}

/**
 * Workers KV (a KV namespace binding, e.g. `env.SUMMARIES`). `ttlSeconds` lets entries
 * expire (KV's minimum is 60 s); keys are `prefix` + the hash.
 * @type {typeof import("./cache.js").kvCache}
 */
export function kvCache(namespace, options) {
  checkArgument(
    "kvCache",
    namespace,
    check((v) => hasMethods(v, "get", "put"), "a Workers KV namespace binding"),
    "namespace",
  );
  const { ttlSeconds, prefix = "contextfold:summary:" } = checkOptions("kvCache", options, KV_CACHE_OPTIONS);
  const putOptions = ttlSeconds === undefined ? undefined : { expirationTtl: Math.max(60, Math.ceil(ttlSeconds)) };
  return {
    async get(key) {
      const value = await namespace.get(prefix + key, "text");
      return value ?? undefined;
    },
    async put(key, value) {
      await namespace.put(prefix + key, value, putOptions);
    },
  };
}

/**
 * The Cache API (`caches.default` or `await caches.open(name)` in a Worker, or a browser
 * `Cache`). Entries live `ttlSeconds` [7 days]; keys are URLs: `prefix` + the hash.
 * @type {typeof import("./cache.js").cacheApiCache}
 */
export function cacheApiCache(cache, options) {
  const where = "cacheApiCache";
  checkArgument(
    where,
    cache,
    check((v) => hasMethods(v, "match", "put"), "a Cache (caches.default or await caches.open(name))"),
    "cache",
  );
  const o = checkOptions(where, options, CACHE_API_CACHE_OPTIONS);
  const prefix = o.prefix ?? "https://contextfold.invalid/summary/";
  const ttlSeconds = o.ttlSeconds ?? 7 * 24 * 3600;
  return {
    async get(key) {
      const response = await cache.match(prefix + key);
      return response === undefined || response === null ? undefined : await response.text();
    },
    async put(key, value) {
      await cache.put(
        prefix + key,
        new Response(value, {
          headers: {
            "content-type": "text/plain; charset=utf-8",
            "cache-control": `max-age=${Math.ceil(ttlSeconds)}`,
          },
        }),
      );
    },
  };
}
