// Types of `contextfold/summarizers`: ready-made summarizers over `fetch`.
import type { Summarizer } from "../glue/contextfold_wasm.js";
export { isContextfoldError, type ContextfoldError, type ContextfoldErrorCode } from "./contextfold-error.js";

/** A summarizer made by an adapter: `identity` names it, for `cachedSummarizer`. */
export type AdapterSummarizer = Summarizer & { readonly identity: string };

/** A summary call that failed. `message` carries the HTTP status (`HTTP 429 ...`), never the API key. */
export declare class SummarizerError extends Error {
    constructor(
        message: string,
        details?: {
            status?: number;
            code?: SummarizerError["code"];
            retryable?: boolean;
            attempts?: number;
            provider?: string;
        },
    );
    name: "SummarizerError";
    /** HTTP status of the last attempt, if there was one. */
    status: number | undefined;
    code: "http" | "network" | "empty" | "invalid_response" | "timeout" | "model" | undefined;
    /** Whether the failure was transient (and retried while attempts were left). */
    retryable: boolean;
    /** Attempts made. */
    attempts: number;
    provider: string | undefined;
}

/** Retries of transient failures (429, 5xx, 408, network errors); other 4xx are never retried. */
export interface RetryOptions {
    /** Retries after the first attempt [2]. */
    retries?: number;
    /** Backoff base: waits about retryDelayMs * 2^attempt (with jitter) unless `retry-after` says otherwise [500]. */
    retryDelayMs?: number;
    /** Longest wait between attempts; a `retry-after` asking more ends the retries [20000]. */
    maxRetryDelayMs?: number;
}

export interface HttpAdapterOptions extends RetryOptions {
    model: string;
    /** Extra request headers (e.g. an organization or gateway header). */
    headers?: Record<string, string>;
    /**
     * Output token limit. Default: derived from each request's `targetBytes` (256 to 8192).
     * `null` (OpenAI-compatible and Workers AI only) sends none.
     */
    maxTokens?: number | null;
    temperature?: number;
    /** Extra top-level fields of the request body (model, messages and limits win). */
    body?: Record<string, unknown>;
    /** The fetch to use [globalThis.fetch]. */
    fetch?: (input: string, init: RequestInit) => Promise<Response>;
}

export interface OpenAICompatibleOptions extends HttpAdapterOptions {
    /**
     * The API's base, e.g. `https://api.openai.com/v1`; `/chat/completions` is appended. No
     * `user:password@` (fetch refuses it): an `invalid_option` error.
     */
    baseURL: string;
    /** Sent as `Authorization: Bearer ...`; omit for servers that need none. */
    apiKey?: string;
    /** Name of the output limit field [`"max_tokens"`]; e.g. `"max_completion_tokens"` for OpenAI reasoning models. */
    maxTokensField?: string;
}

export interface AnthropicOptions extends HttpAdapterOptions {
    apiKey: string;
    /** [`https://api.anthropic.com`]; `/v1/messages` is appended. */
    baseURL?: string;
    /** The `anthropic-version` header [`"2023-06-01"`]. */
    version?: string;
    maxTokens?: number;
}

/** The part of the Workers AI binding (`env.AI`) the adapter uses. */
export interface WorkersAIBinding {
    // Method syntax: checked bivariantly, so the real `Ai` binding type is accepted.
    run(model: string, inputs: Record<string, unknown>, options?: Record<string, unknown>): Promise<unknown>;
}

export interface WorkersAIOptions extends RetryOptions {
    binding: WorkersAIBinding;
    /** A text generation model, e.g. `"@cf/meta/llama-3.1-8b-instruct"`. */
    model: string;
    maxTokens?: number | null;
    temperature?: number;
    /** Third argument of `env.AI.run` (e.g. `{ gateway: { id } }`). An abort ends the wait, not the inference. */
    runOptions?: Record<string, unknown>;
}

/** What the adapter passes to `generateText`. */
export interface GenerateTextCall {
    model: AiSdkOptions["model"];
    system: string;
    prompt: string;
    abortSignal?: AbortSignal;
    maxRetries?: number;
    maxOutputTokens?: number;
    temperature?: number;
    providerOptions?: Record<string, Record<string, unknown>>;
}

export interface AiSdkOptions {
    /** A Vercel AI SDK `LanguageModel` (e.g. `openai("gpt-4o-mini")`), or a gateway model id. */
    model: string | { readonly modelId: string; readonly provider: string };
    /**
     * `generateText` from `ai`. `contextfold/summarizers/ai-sdk` passes it; without it
     * `contextfold/summarizers` imports it from the optional peer dependency `ai` in Node
     * and throws `invalid_option` elsewhere (a bundle cannot import what it was not given).
     * Method syntax: checked bivariantly, so the real (generic) `generateText` is accepted.
     */
    generateText?(options: GenerateTextCall): PromiseLike<{ text: string }>;
    /** The AI SDK's `maxRetries` [2]: it retries transient failures itself. */
    retries?: number;
    /** Default: derived from each request's `targetBytes`; `null` sends none. */
    maxOutputTokens?: number | null;
    /** Another name of `maxOutputTokens` (the HTTP adapters' name); `maxOutputTokens` wins. */
    maxTokens?: number | null;
    temperature?: number;
    providerOptions?: Record<string, Record<string, unknown>>;
}

/** An OpenAI-compatible chat completions API (OpenAI, OpenRouter, Groq, vLLM, Ollama...). */
export declare function openAICompatible(options: OpenAICompatibleOptions): AdapterSummarizer;
/** Anthropic's Messages API. */
export declare function anthropic(options: AnthropicOptions): AdapterSummarizer;
/** Cloudflare Workers AI through its binding. */
export declare function workersAI(options: WorkersAIOptions): AdapterSummarizer;
/**
 * A Vercel AI SDK model through `generateText`. Bundled code (Workers, browsers, Next.js)
 * imports it from `contextfold/summarizers/ai-sdk`, which imports `generateText` from `ai`.
 * Its `identity` holds the model's endpoint only where the model shows one (the
 * `config.baseURL` / `config.url` of the `@ai-sdk/*` providers' models): give
 * `cachedSummarizer` a `namespace` for a wrapped or custom model.
 */
export declare function aiSdk(options: AiSdkOptions): AdapterSummarizer;
/** Milliseconds a response asks to wait before retrying (`retry-after-ms` or `retry-after`). */
export declare function retryAfterMs(headers: Headers): number | undefined;

/**
 * The version of how the adapters turn a summary request into an API call; part of
 * every adapter's `identity` (with its endpoint, model and generation parameters), so
 * cached summaries never cross endpoints, parameters or prompt versions.
 */
export declare const PROMPT_VERSION: number;
