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

export interface MemoryCacheOptions {
    /** Entries kept; the least recently used goes first [1000]. */
    maxEntries?: number;
}

/** An in-memory LRU of at most `maxEntries` summaries [1000]. */
export declare function memoryCache(
    options?: MemoryCacheOptions,
): SummaryCache & { readonly size: number; clear(): void };

/** The part of a Workers KV namespace binding the cache uses. */
export interface KVNamespaceLike {
    get(key: string, type: "text"): Promise<string | null>;
    put(key: string, value: string, options?: { expirationTtl?: number }): Promise<void>;
}

export interface KVCacheOptions {
    /** Entries expire after this long (KV's minimum, 60, at least) [never]. */
    ttlSeconds?: number;
    /** Prefix of every key [`"contextfold:summary:"`]. */
    prefix?: string;
}

/** Workers KV: keys are `prefix` [`"contextfold:summary:"`] + hash; `ttlSeconds` at least 60. */
export declare function kvCache(namespace: KVNamespaceLike, options?: KVCacheOptions): SummaryCache;

/** The part of a Cache API `Cache` the cache uses. */
export interface CacheLike {
    match(request: string): Promise<Response | undefined>;
    put(request: string, response: Response): Promise<void>;
}

export interface CacheApiCacheOptions {
    /** An absolute URL prefix of every key [`"https://contextfold.invalid/summary/"`]. */
    prefix?: string;
    /** Entries live this long [7 days]. */
    ttlSeconds?: number;
}

/** The Cache API (`caches.default`, `await caches.open(name)`): keys are URLs `prefix` + hash. */
export declare function cacheApiCache(cache: CacheLike, options?: CacheApiCacheOptions): SummaryCache;
