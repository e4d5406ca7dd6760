// Types of `contextfold/ai-sdk`.
import type { LanguageModelMiddleware, ModelMessage } from "ai";
import type { SummaryCache } from "./cache.js";
import type { CompactOptions } from "./index.js";
export { isContextfoldError, type ContextfoldError, type ContextfoldErrorCode } from "./contextfold-error.js";

/**
 * The options of `compact` (a budget, `maxTokens` or `maxBytes`, is required); the
 * messages are the AI SDK's. The strategy defaults to `{ name: "auto", stable: true }`.
 */
export type AiSdkCompactOptions = Omit<CompactOptions, "format"> & {
    /**
     * Where the summaries of a JS `summarizer` are kept, so that the folds of a
     * conversation are summarized once, not on every call (each call compacts the whole
     * conversation again); `false`: none. Default: an in-memory LRU of this middleware's
     * own. A store given here may be shared: it takes `namespace`.
     */
    cache?: SummaryCache | false;
    /** The summarizer's identity in a `cache` given (default: its `identity`). */
    namespace?: string;
};

/**
 * A language model middleware for `wrapLanguageModel`: before every call, generate or
 * stream, the prompt is compacted to the budget (AI SDK 6 and 7). Binary data (Uint8Array,
 * ArrayBuffer, base64, URL) goes through untouched.
 *
 * @example
 * ```ts
 * const model = wrapLanguageModel({ model: openai("gpt-4o"), middleware: contextfoldMiddleware({ maxTokens: 100_000 }) });
 * ```
 */
export declare function contextfoldMiddleware(options: AiSdkCompactOptions): LanguageModelMiddleware;

/**
 * A `prepareStep` for agents (`generateText`, `streamText`, `ToolLoopAgent`): each step's
 * messages are compacted to the budget; the compacted messages carry forward.
 */
export declare function compactStep(
    options: AiSdkCompactOptions,
): (step: { messages: ModelMessage[] }) => Promise<{ messages?: ModelMessage[] }>;
