// Types of `contextfold/worker`: compaction middleware for Workers and fetch-style servers.
import type {
    CompactReport,
    CompactStrategy,
    OnError,
    ProviderName,
    Summarizer,
    TokenCounter,
} from "../glue/contextfold_wasm.js";
import type { SummaryCache } from "./cache.js";
export { isContextfoldError, type ContextfoldError, type ContextfoldErrorCode } from "./contextfold-error.js";

export * from "./cache.js";

/** The API a request is for, or `null` to pass it through untouched. */
export type RouteFormat = "openai" | "openai-responses" | "anthropic" | null;

/** What `onReport` is told about each request the middleware handled. */
export interface MiddlewareReport {
    format: "openai" | "openai-responses" | "anthropic";
    model: string | undefined;
    strategy: string;
    beforeTokens: number | undefined;
    afterTokens: number | undefined;
    /** Summary requests the strategy made (cache hits included). */
    calls: number;
    cacheHits: number | undefined;
    cacheMisses: number | undefined;
    /** Whether the request went upstream with compacted messages. */
    compacted: boolean;
    /**
     * Why the request went upstream unchanged, as the code also sent in
     * `x-contextfold-error`: `malformed_body`, `budget_too_small`, `summarizer_failed`,
     * `cancelled`, a `ContextfoldError` code, or `internal`.
     */
    error: string | undefined;
    /** The details of `error` (a summarizer's own error text among them): here only, never in a header. */
    detail: string | undefined;
    /**
     * Why compaction was not attempted (e.g. no context window for the model, or a
     * Responses request continuing a stored response: `previous_response_id`).
     */
    skipped: string | undefined;
    /** The full report of `compact`, when it ran. */
    report: CompactReport | undefined;
}

export interface CompactionMiddlewareOptions<Env = unknown> {
    /**
     * Default `{ name: "auto", stable: true }`: within the budget (hard), folding as the
     * conversation's requests would have, so the compacted prefix stays the same from one
     * request to the next.
     */
    strategy?: CompactStrategy;
    /** The token budget of the messages (system prompt included); used for models not in `contextWindows`. */
    maxTokens?: number;
    /**
     * Context windows per model, in tokens: an exact name, else the longest name that
     * prefixes the request's model. The budget is the window minus the answer's reserve
     * and the tokens of tool definitions.
     */
    contextWindows?: Record<string, number>;
    /** Tokens kept for the answer [reserveRatio of the window]; at least the request's own `max_tokens`. */
    reserveTokens?: number;
    /** Share of the window kept for the answer when `reserveTokens` is not set [0.25]. */
    reserveRatio?: number;
    /** The summarizer of every request [the built-in extractive one]. */
    summarizer?: Summarizer;
    /** Or one made per request, e.g. from a binding or a secret: `(env) => workersAI({ binding: env.AI, model })`. */
    createSummarizer?: (env: Env, request: Request) => Summarizer;
    /**
     * Summary cache, or a function making it from `env` (called once per `env`). With the
     * default strategy it also stores each request's compacted messages, so a request that
     * only appends to a stored raw history is answered without compacting
     * (`x-contextfold-prefix-cache: hit`).
     */
    cache?: SummaryCache | ((env: Env) => SummaryCache);
    /**
     * The summarizer's identity in the keys of the summary and prefix caches [its `identity`]:
     * another summarizer on the same store never gets this one's summaries. Required to cache
     * a custom `summarizer` (without one, a `createSummarizer`'s gets no prefix cache).
     */
    namespace?: string;
    /** Largest request body read, in bytes; larger gets 413 [10 MiB]. */
    maxBodyBytes?: number;
    /** A body that is not a chat request: forwarded untouched (default) or rejected with 400. */
    onMalformed?: "forward" | "reject";
    /** Which requests are chat requests [POST to a path ending in `/chat/completions` or `/v1/messages`]. */
    route?: (url: URL, request: Request) => RouteFormat;
    tokenCounter?: TokenCounter;
    provider?: ProviderName;
    /** Summary calls in flight per request [4]. */
    concurrency?: number;
    /** Time limit of each summary call [30000]. */
    timeoutMs?: number;
    /** Default `"rollback"`: a failed summary forwards the request unchanged, with `x-contextfold-error`. */
    onError?: OnError;
    /** Told about every chat request (no headers, no key); for logs and metrics. */
    onReport?: (report: MiddlewareReport) => void;
}

/** What the middleware wraps: a Worker `fetch`, a plain `(request) => Response`, or an object with `fetch`. */
export type FetchHandler<Env = unknown, Ctx = unknown> = (
    request: Request,
    env: Env,
    ctx: Ctx,
) => Response | Promise<Response>;

/**
 * Wraps a fetch handler so that chat requests are compacted before it sees them. The
 * response gets `x-contextfold-before-tokens`, `-after-tokens`, `-calls`, `-cache-hits`,
 * `-cache-misses` (with a cache), `-strategy`, and `x-contextfold-error` (a code; the
 * details go to `onReport`) when compaction failed and the request went on unchanged
 * (or `-skipped` when it was not attempted). A compacted body is the original bytes with
 * the new messages spliced in; everything else in it goes upstream as sent. When upstream
 * answers that the request is over the model's context (OpenAI `context_length_exceeded`,
 * Anthropic "prompt is too long", ...), the request is compacted again to 70% of its
 * budget and sent once more, with `x-contextfold-retried: context_overflow`.
 * Errors: 413 for a body over `maxBodyBytes`, 400 for a malformed one with
 * `onMalformed: "reject"`, both as JSON `{ error: { type, code, message } }`.
 */
export declare function compactionMiddleware<Env = unknown>(
    options: CompactionMiddlewareOptions<Env>,
): <Ctx = unknown>(
    handler: FetchHandler<Env, Ctx> | { fetch: FetchHandler<Env, Ctx> },
) => (request: Request, env?: Env, ctx?: Ctx) => Promise<Response>;

export interface ProxyOptions<Env = unknown> {
    /** Base URL the request's path and query are appended to, e.g. `https://api.openai.com`. */
    upstream: string | ((env: Env) => string);
    /** Headers to add or replace upstream, e.g. the API key from a secret. */
    headers?: Record<string, string> | ((env: Env, request: Request) => Record<string, string>);
    /** The fetch to use [globalThis.fetch]. */
    fetch?: (input: string, init: RequestInit) => Promise<Response>;
}

/** A handler forwarding every request to `upstream`; the response comes back as is. */
export declare function proxy<Env = unknown>(
    options: ProxyOptions<Env>,
): (request: Request, env?: Env) => Promise<Response>;

/** The default `route`. */
export declare function defaultRoute(url: URL): RouteFormat;
