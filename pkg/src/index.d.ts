// Types of every entry point: the generated ones, plus `init`, which the browser entry
// needs and the Node and workerd entries provide as a no-op for portable code.
export * from "../glue/contextfold_wasm.js";
export { default } from "../glue/contextfold_wasm.js";
export * from "./cache.js";
import type { CompactOptions, CompactResult } from "../glue/contextfold_wasm.js";

/** What `History.toJSON()` gives: plain JSON, for localStorage, IndexedDB or KV. */
export interface StoredHistory<M = unknown> {
    version: 1;
    auto: boolean;
    /** The options without functions or signals (those cannot be stored). */
    options: Omit<CompactOptions, "summarizer" | "signal" | "tokenCounter" | "onProgress">;
    messages: M[];
}

/**
 * A conversation session for chat UIs: `push` checks the trigger and compacts
 * automatically (unless `auto: false`); `compact()` compacts on demand. A failed
 * compaction leaves the history untouched; messages pushed during a compaction are kept.
 */
export declare class History<M = unknown> {
    constructor(init?: { messages?: M[]; auto?: boolean; options?: CompactOptions });
    /** A copy of the messages, in the format they were pushed in. */
    messages(): M[];
    readonly length: number;
    needsCompaction(): boolean;
    /** Resolves to the compaction's result when one ran, else `null`. */
    push(message: M): Promise<CompactResult | null>;
    compact(): Promise<CompactResult>;
    toJSON(): StoredHistory<M>;
    /** Functions and signals are not stored: pass them again in `options`. */
    static fromJSON<M = unknown>(data: StoredHistory<M> | string, options?: CompactOptions): History<M>;
}
