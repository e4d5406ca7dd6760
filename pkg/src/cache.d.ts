// Types of the summary cache (exported from `contextfold` and `contextfold/worker`).
import type { Summarizer, SummaryRequest } from "../glue/contextfold_wasm.js";

/** Where summaries are kept: any store with these two methods. */
export interface SummaryCache {
    get(key: string): Promise<string | undefined>;
    put(key: string, value: string): Promise<void>;
}

export interface CacheStats {
    /** Requests answered from the cache (or by an identical call already in flight). */
    hits: number;
    /** Requests passed on to the summarizer. */
    misses: number;
    /** Cache reads or writes that failed (a failed read counts as a miss too). */
    errors: number;
}

export interface CachedSummarizerOptions {
    cache: SummaryCache;
    /**
     * The summarizer's identity (e.g. its model name), part of every key; default: the
     * summarizer's `identity` (the adapters of `contextfold/summarizers` have one).
     */
    namespace?: string;
}

/** A summarizer with live cache statistics. */
export type CachedSummarizer = Summarizer & { readonly stats: CacheStats; readonly identity: string };

/**
 * Wraps a summarizer with a cache keyed by SHA-256 of namespace, kind, targetBytes and
 * prompt: the same span summarized again is answered from the cache.
 */
export declare function cachedSummarizer(summarizer: Summarizer, options: CachedSummarizerOptions): CachedSummarizer;

/** The cache key of a summary request (64 hex digits). */
export declare function summaryCacheKey(namespace: string, request: SummaryRequest): Promise<string>;

/** An in-memory LRU of at most `maxEntries` summaries [1000]. */
export declare function memoryCache(options?: {
    maxEntries?: number;
}): SummaryCache & { readonly size: number; clear(): void };

/** The part of a Workers KV namespace binding the cache uses. */
export interface KVNamespaceLike {
    get(key: string, type: "text"): Promise<string | null>;
    put(key: string, value: string, options?: { expirationTtl?: number }): Promise<void>;
}

/** Workers KV: keys are `prefix` [`"contextfold:summary:"`] + hash; `ttlSeconds` at least 60. */
export declare function kvCache(
    namespace: KVNamespaceLike,
    options?: { ttlSeconds?: number; prefix?: string },
): SummaryCache;

/** The part of a Cache API `Cache` the cache uses. */
export interface CacheLike {
    match(request: string): Promise<Response | undefined>;
    put(request: string, response: Response): Promise<void>;
}

/** The Cache API (`caches.default`, `await caches.open(name)`): keys are URLs `prefix` + hash. */
export declare function cacheApiCache(
    cache: CacheLike,
    options?: { prefix?: string; ttlSeconds?: number },
): SummaryCache;
