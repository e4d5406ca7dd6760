// Types of every entry point. The public names of the generated glue (types generated
// from Rust by tsify and wasm-bindgen), listed one by one rather than `export *`: the
// glue also declares wasm-bindgen's internals (`InitOutput`, the raw wasm exports typed
// with `any`), which are not part of the API. tests/types/types.test.mjs checks that
// every other name of the glue is here and that no `any` is reachable from this file.
export type {
    AutoStrategy,
    BudgetStrategy,
    ChainFormat,
    ChainMeasure,
    ChainOutline,
    ClearReasoningResult,
    CompactOptions,
    CompactReport,
    CompactResult,
    CompactStrategy,
    DefaultSettings,
    ConvertChange,
    ConvertOptions,
    ConvertResult,
    Diagnostic,
    DiagnosticCode,
    EditOptions,
    ExtractiveOptions,
    FormatInfo,
    InitInput,
    MaskStrategy,
    MeasureOptions,
    MessageMeasure,
    MessageRange,
    NativeMessage,
    NeedsCompactionOptions,
    NormalizeResult,
    OnError,
    PairKind,
    PairOutline,
    ParseChainOptions,
    ParsedChain,
    PartRule,
    ProgressEvent,
    ProviderName,
    RenamedId,
    RepairAction,
    RepairOptions,
    RepairResult,
    RepairStep,
    Role,
    SectionAction,
    SectionOutline,
    SectionReport,
    SectionsStrategy,
    StrategyName,
    StrategyOptions,
    SummarizeError,
    SummarizeErrorKind,
    Summarizer,
    SummarizerContext,
    SummaryRequest,
    SummaryRequestFields,
    SummaryRequestKind,
    SyncInitInput,
    TiersStrategy,
    TokenCounter,
    Totals,
    ValidateOptions,
    WindowStrategy,
} from "../glue/contextfold_wasm.js";
export {
    defaultSettings,
    estimateTokens,
    formats,
    measureChain,
    needsCompaction,
    parseChain,
    providerOf,
    validateChain,
} from "../glue/contextfold_wasm.js";
// The format types, and the exports that take a chain typed by it (`compact`,
// `repairChain`, `convert`, `normalizeToolCallIds`, `clearReasoning`).
export * from "./formats.js";
export * from "./cache.js";
export { isContextfoldError, type ContextfoldError, type ContextfoldErrorCode } from "./contextfold-error.js";
import type {
    CompactOptions,
    CompactResult,
    ExtractiveOptions,
    InitInput,
    Summarizer,
    SyncInitInput,
} from "../glue/contextfold_wasm.js";

/**
 * The built-in extractive summarizer: deterministic, offline, no API key. It fills the
 * summary schema from the chain's structure (requests, tasks, files with what was done to
 * each, commands with their outcome, errors with their fixes, decisions, the next step)
 * within each request's target size. It is the default when `compact` gets no summarizer;
 * `compact` runs it inside wasm without crossing into JS for every call.
 *
 * @example
 * ```js
 * const result = await compact(chain, { summarizer: extractiveSummarizer({ maxBytes: 2048 }) });
 * ```
 */
export declare function extractiveSummarizer(options?: ExtractiveOptions): Summarizer;

/**
 * Instantiates the wasm module: the browser entry needs `await init()` once before
 * anything else (it fetches the `.wasm` next to the glue, or takes `{ module_or_path }`:
 * a URL, Response, bytes or a compiled Module). The Node and workerd entries instantiate
 * on import (Node compiles in the background: `init()` resolves once that is done, and a
 * synchronous call made before then compiles on the spot), so portable code can always
 * call it. What it resolves to is the raw module, not part of the API.
 */
export default function init(
    module_or_path?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>,
): Promise<unknown>;

/**
 * Instantiates the wasm module synchronously from its bytes or a compiled Module (the
 * `contextfold/wasm` export), for runtimes that forbid fetching or compiling at run time.
 * Returns the raw module, not part of the API.
 */
export declare function initSync(module: { module: SyncInitInput } | SyncInitInput): unknown;

/**
 * What `History.toJSON()` gives: plain JSON, for localStorage, IndexedDB or KV. Binary file
 * and image data (`Uint8Array`, `ArrayBuffer`, ...) is stored as base64 text, a `URL` as its href.
 */
export interface StoredHistory<M = unknown> {
    version: 1;
    auto: boolean;
    /** The options without functions or signals (those cannot be stored). */
    options: Omit<CompactOptions, "summarizer" | "signal" | "tokenCounter" | "onProgress">;
    messages: M[];
    /** The provider's token count against contextfold's at the last `reportUsage` that found it higher. */
    usage?: { provider: number; counted: number };
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
    push(message: M): Promise<CompactResult<M[]> | null>;
    /**
     * The input tokens the provider reported for the last call (`usage.prompt_tokens`,
     * `usage.input_tokens`), as the trigger: over `maxTokens`, the history compacts now;
     * from then on every trigger and compaction takes `maxTokens` scaled by how much the
     * provider's count exceeds contextfold's (report before pushing the call's answer).
     * Resolves to the result when it compacted, else `null`.
     */
    reportUsage(inputTokens: number): Promise<CompactResult<M[]> | null>;
    /**
     * Compacts now. `override`: options of `compact` for this run only, over the history's
     * (`undefined` and `null` count as absent; a budget, `maxTokens` or `maxBytes`, replaces
     * the history's whichever unit it is in). Concurrent calls share one run; one with an
     * override runs after the run under way.
     */
    compact(override?: CompactOptions): Promise<CompactResult<M[]>>;
    toJSON(): StoredHistory<M>;
    /** Functions and signals are not stored: pass them again in `options`. */
    static fromJSON<M = unknown>(data: StoredHistory<M> | string, options?: CompactOptions): History<M>;
}
