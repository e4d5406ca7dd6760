// Ready-made summarizers (`contextfold/summarizers`): each turns a `SummaryRequest` into
// one chat call of an LLM API and resolves to the answer's text. They use `fetch` only
// (no SDK), so they run in Node, browsers and Workers alike.
//
// Every adapter sends `request.instructions` as the system message and
// `request.transcript` as the user message, passes the `signal` of the call on, and
// bounds the call by `request.timeoutMs` when the compaction has one. Failures become a
// `SummarizerError` whose message carries the HTTP status (`HTTP 429 ...`); transient
// ones (429, 5xx, 408, network errors) are retried `retries` times with exponential
// backoff, waiting what `retry-after` asks when the API says so. Other 4xx are never
// retried. The API key is never part of an error message: any echo of it in an error
// body is redacted.

import { contextfoldError } from "./errors.js";
import { check, checkOptions, is, required } from "./options.js";
export { isContextfoldError } from "./errors.js";

const DEFAULT_RETRIES = 2;
const DEFAULT_RETRY_DELAY_MS = 500;
const DEFAULT_MAX_RETRY_DELAY_MS = 20_000;
/** How much of an error body goes into a message. */
const DETAIL_CHARS = 300;

/** A summary call that failed: `status` is the HTTP status when there was one. */
export class SummarizerError extends Error {
  /**
   * @param {string} message
   * @param {{ status?: number, code?: SummarizerError["code"], retryable?: boolean, attempts?: number, provider?: string }} [details]
   */
  constructor(message, { status, code, retryable = false, attempts = 1, provider } = {}) {
    super(message);
    /** @type {"SummarizerError"} */
    this.name = "SummarizerError";
    /** HTTP status of the last attempt, if any. */
    this.status = status;
    /** @type {"http" | "network" | "empty" | "invalid_response" | "timeout" | "model" | undefined} */
    this.code = code;
    this.retryable = retryable;
    this.attempts = attempts;
    this.provider = provider;
  }
}

// ---------------------------------------------------------------------------------------
// Shared machinery

/** The retry settings, with their defaults (checked by `checkOptions`). */
function retrySettings(options) {
  return {
    retries: options.retries ?? DEFAULT_RETRIES,
    retryDelayMs: options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS,
    maxRetryDelayMs: options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS,
  };
}

/** Replaces every secret (and bearer tokens in general) in a text by `[redacted]`. */
function redact(text, secrets) {
  let out = String(text);
  for (const secret of secrets) {
    if (typeof secret === "string" && secret.length >= 4) out = out.split(secret).join("[redacted]");
  }
  return out.replace(/\b(Bearer|Basic)\s+[^\s"',;]+/gi, "$1 [redacted]");
}

function oneLine(text, max = DETAIL_CHARS) {
  const flat = String(text).replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}...` : flat;
}

/** The readable part of an API's error body (OpenAI, Anthropic, Cloudflare shapes). */
function errorDetail(text) {
  try {
    const body = JSON.parse(text);
    const candidates = [
      body?.error?.message,
      typeof body?.error === "string" ? body.error : undefined,
      body?.message,
      body?.errors?.[0]?.message,
      body?.detail,
    ];
    const found = candidates.find((c) => typeof c === "string" && c.trim() !== "");
    if (found !== undefined) return found;
  } catch {
    // not JSON: the raw text
  }
  return text;
}

/**
 * Milliseconds a response asks us to wait (`retry-after-ms`, `retry-after`), if any.
 * @type {typeof import("./summarizers.js").retryAfterMs}
 */
export function retryAfterMs(headers) {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function isRetryableStatus(status) {
  return status === 408 || status === 409 || status === 425 || status === 429 || status >= 500;
}

function abortReason(signal) {
  return signal.reason ?? Object.assign(new Error("This operation was aborted"), { name: "AbortError" });
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(undefined);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * One signal for one summary call: aborted when the caller's signal aborts, or when
 * `timeoutMs` (the compaction's per-call limit) has passed. `done()` releases it.
 */
function callScope(outer, timeoutMs, provider) {
  const controller = new AbortController();
  const onAbort = () => controller.abort(abortReason(outer));
  if (outer) {
    if (outer.aborted) controller.abort(abortReason(outer));
    else outer.addEventListener("abort", onAbort, { once: true });
  }
  let timer;
  const deadline = typeof timeoutMs === "number" && timeoutMs > 0 ? Date.now() + timeoutMs : Infinity;
  if (deadline !== Infinity) {
    timer = setTimeout(() => {
      controller.abort(
        new SummarizerError(`${provider}: the summary call timed out after ${timeoutMs} ms`, {
          code: "timeout",
          provider,
        }),
      );
    }, timeoutMs);
  }
  return {
    signal: controller.signal,
    deadline,
    done() {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onAbort);
    },
  };
}

/** Exponential backoff with jitter: base * 2^attempt, between half and all of it, capped. */
function backoffMs(attempt, { retryDelayMs, maxRetryDelayMs }) {
  const full = Math.min(maxRetryDelayMs, retryDelayMs * 2 ** attempt);
  return full / 2 + Math.random() * (full / 2);
}

/**
 * Runs `attempt(n)` (n = 0, 1, ...) until it gives a value: `{ value }` ends, `{ failure }`
 * (a retryable `{ error, waitMs? }`) is tried again after a wait, while attempts and time
 * are left; a thrown error ends at once. The one retry loop of the HTTP adapters and
 * Workers AI.
 * @template T
 * @param {(n: number) => Promise<{ value: T } | { failure: { error: SummarizerError, waitMs?: number } }>} attempt
 * @param {{ retries: number, retryDelayMs: number, maxRetryDelayMs: number }} settings
 * @param {AbortSignal} signal
 * @param {number} deadline
 * @returns {Promise<T>}
 */
async function withRetries(attempt, settings, signal, deadline) {
  for (let n = 0; ; n += 1) {
    const outcome = await attempt(n);
    if ("value" in outcome) return outcome.value;
    await sleep(retryWait(outcome.failure, n, settings, deadline), signal);
  }
}

/**
 * How long to wait after failed attempt `n`; throws the failure's error when no retry is left.
 * @param {{ error: SummarizerError, waitMs?: number }} failure
 * @param {number} n
 * @param {{ retries: number, retryDelayMs: number, maxRetryDelayMs: number }} settings
 * @param {number} deadline
 */
function retryWait({ error, waitMs }, n, settings, deadline) {
  if (n >= settings.retries) {
    if (n > 0) error.message += ` (after ${n + 1} attempts)`;
    throw error;
  }
  if (waitMs !== undefined && waitMs > settings.maxRetryDelayMs) {
    error.message += ` (retry-after ${Math.ceil(waitMs / 1000)} s exceeds maxRetryDelayMs)`;
    throw error;
  }
  const wait = Math.max(0, waitMs ?? backoffMs(n, settings));
  if (Date.now() + wait >= deadline) {
    error.message += " (no time left to retry)";
    throw error;
  }
  return wait;
}

/**
 * POSTs JSON and returns the parsed JSON answer, retrying transient failures. Errors are
 * `SummarizerError`s whose messages never contain `secrets`.
 */
async function postJson({ fetchImpl, url, headers, body, signal, deadline, settings, provider, model, secrets }) {
  const where = `${provider} summarizer (model "${model}")`;
  const payload = JSON.stringify(body);
  const call = { where, provider, secrets, signal };
  return withRetries(
    async (n) => {
      let response;
      try {
        response = await fetchImpl(url, { method: "POST", headers, body: payload, signal });
      } catch (error) {
        if (signal.aborted) throw abortReason(signal);
        return { failure: { error: networkError(call, error, n) } };
      }
      if (!response.ok) return { failure: await httpFailure(call, response, n) };
      const answer = await readAnswer(call, response, n);
      const failure = errorAnswer(call, answer, response.status, n);
      return failure === undefined ? { value: answer } : { failure };
    },
    settings,
    signal,
    deadline,
  );
}

/** A fetch that failed without a response (DNS, connection reset...): retryable. */
function networkError({ where, provider, secrets }, error, n) {
  const cause = error?.cause?.code ?? error?.cause?.message ?? "";
  const message = redact(`${oneLine(error?.message ?? error)}${cause ? ` (${oneLine(cause, 80)})` : ""}`, secrets);
  return new SummarizerError(`network error calling ${where}: ${message}`, {
    code: "network",
    retryable: true,
    attempts: n + 1,
    provider,
  });
}

/** The parsed JSON of a successful response; an unreadable or non-JSON answer is final. */
async function readAnswer({ where, provider, secrets, signal }, response, n) {
  let text;
  try {
    text = await response.text();
  } catch (error) {
    if (signal.aborted) throw abortReason(signal);
    const detail = redact(oneLine(error?.message ?? error), secrets);
    throw new SummarizerError(`${where}: reading the answer failed: ${detail}`, {
      code: "network",
      status: response.status,
      attempts: n + 1,
      provider,
    });
  }
  try {
    return JSON.parse(text);
  } catch {
    const start = redact(oneLine(text, 120), secrets);
    throw new SummarizerError(`${where}: HTTP ${response.status} with an answer that is not JSON: ${start}`, {
      code: "invalid_response",
      status: response.status,
      attempts: n + 1,
      provider,
    });
  }
}

/**
 * The failure of an HTTP error status, with the wait its `retry-after` asks; thrown at
 * once when the status is not worth another try.
 */
async function httpFailure({ where, provider, secrets }, response, n) {
  let text = "";
  try {
    text = await response.text();
  } catch {
    // the status says enough
  }
  const detail = redact(oneLine(errorDetail(text)), secrets);
  // A gateway may echo the key in its status text too.
  const statusText = response.statusText ? ` ${redact(oneLine(response.statusText, 60), secrets)}` : "";
  const retryable = isRetryableStatus(response.status);
  const error = new SummarizerError(
    `HTTP ${response.status}${statusText} from ${where}${detail ? `: ${detail}` : ""}`,
    {
      code: "http",
      status: response.status,
      retryable,
      attempts: n + 1,
      provider,
    },
  );
  if (!retryable) throw error;
  return { error, waitMs: retryAfterMs(response.headers) };
}

/**
 * A successful status whose body is an error and no answer (`{ "error": { ... } }`: OpenRouter
 * and other gateways when the upstream model fails after the headers were sent): the
 * provider's message, not "answered without choices". A status in the error (OpenRouter's
 * `error.code`) decides as an HTTP status would; without one it is the model's failure.
 * `undefined` for an answer.
 */
function errorAnswer({ where, provider, secrets }, answer, status, n) {
  if (answer === null || typeof answer !== "object") return undefined;
  const { error: body } = answer;
  if (body === undefined || body === null || answer.choices !== undefined || answer.content !== undefined) {
    return undefined;
  }
  const detail = redact(oneLine(errorDetail(JSON.stringify(answer))), secrets);
  const code = Number(body?.code ?? body?.status);
  const coded = Number.isInteger(code) && code >= 400 && code <= 599;
  const retryable = coded && isRetryableStatus(code);
  const error = new SummarizerError(
    `${where} answered HTTP ${status} with an error${coded ? ` (${code})` : ""}: ${detail}`,
    { code: coded ? "http" : "model", status: coded ? code : status, retryable, attempts: n + 1, provider },
  );
  if (!retryable) throw error;
  return { error };
}

/** No summary in the answer: nothing, or only the model's reasoning (`reasoning`). */
function emptyError(where, provider, reasoning = false) {
  const what = reasoning ? "only its reasoning (a <think> block), no summary" : "an empty summary";
  return new SummarizerError(`${where} returned ${what}`, { code: "empty", provider });
}

const OUTPUT_LIMIT =
  "it spent its output limit (a reasoning model's thinking counts): raise maxTokens (aiSdk: maxOutputTokens)";
const TOOL_TURN = "it ended its turn to call a tool: give the summary call no tools";

/**
 * The stop reasons of an answer the model did not finish, with what to change. Checked
 * before the text: a reasoning model that spent its limit thinking answers with no text,
 * and "empty" would hide the limit to raise.
 * @type {Record<string, string>}
 */
const UNFINISHED = {
  length: OUTPUT_LIMIT, // OpenAI-compatible, AI SDK
  max_tokens: OUTPUT_LIMIT, // Anthropic
  model_context_window_exceeded: "the transcript and the output limit exceed the model's context window",
  content_filter: "a content filter stopped it",
  "content-filter": "a content filter stopped it",
  refusal: "the model refused",
  tool_calls: TOOL_TURN,
  function_call: TOOL_TURN,
  tool_use: TOOL_TURN,
  "tool-calls": TOOL_TURN,
  pause_turn: "the API paused a long server-tool turn: give the summary call no server tools",
  error: "the API reported an error mid-answer",
};

/**
 * An answer the model did not finish (its output limit), would not give (a refusal, a
 * content filter) or left for later (a tool call, a paused turn): what text it has is no
 * summary, and taken for one it would replace the history with half a sentence or a
 * preamble. `undefined` for a finished answer.
 * @param {string} where @param {string} provider @param {unknown} reason
 */
function unfinished(where, provider, reason) {
  if (typeof reason !== "string" || !Object.hasOwn(UNFINISHED, reason)) return undefined;
  return new SummarizerError(`${where} stopped before the summary was done (${reason}): ${UNFINISHED[reason]}`, {
    code: "model",
    provider,
  });
}

/**
 * The answer without the reasoning a model may put inline before it (Qwen3, DeepSeek-R1
 * and its distills served by vLLM, Ollama, llama.cpp, LM Studio or Workers AI): a leading
 * `<think>` or `<thinking>` block, as the AI SDK's `extractReasoningMiddleware` takes it
 * out; or, when the chat template opened the block (DeepSeek-R1's does), everything
 * before a closing tag on a line of its own with no opening tag before it. An unclosed
 * block is all reasoning. Kept, the reasoning would be the summary, cut to its target.
 * @param {string} text
 */
function withoutReasoning(text) {
  const open = /^\s*<(think|thinking)>/.exec(text);
  if (open !== null) {
    const close = text.indexOf(`</${open[1]}>`, open[0].length);
    return close < 0 ? "" : text.slice(close + open[1].length + 3).trimStart();
  }
  const close = /(?:^|\n)[ \t]*<\/(think|thinking)>[ \t]*(?:\n|$)/.exec(text);
  if (close === null || text.slice(0, close.index).includes(`<${close[1]}>`)) return text;
  return text.slice(close.index + close[0].length).trimStart();
}

/**
 * The summary in an answer's text: without inline reasoning, and never empty.
 * @param {string} where @param {string} provider @param {string} text
 */
function summaryOf(where, provider, text) {
  const summary = withoutReasoning(text);
  if (summary.trim() === "") throw emptyError(where, provider, text.trim() !== "");
  return summary;
}

function invalidAnswer(where, provider, what) {
  return new SummarizerError(`${where} answered without ${what}`, { code: "invalid_response", provider });
}

/** Text of an OpenAI-style `content`: a string, or an array of text parts. */
function contentText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === "string" ? part : typeof part?.text === "string" ? part.text : ""))
      .join("");
  }
  return undefined;
}

function resolveFetch(option) {
  // Called through a wrapper so that a global fetch replaced later (tests, polyfills) is used.
  return option ?? ((url, init) => globalThis.fetch(url, init));
}

function headerObject(extra) {
  return extra === undefined || extra === null ? {} : Object.fromEntries(new Headers(extra).entries());
}

/** What error messages must never contain: the key, and header values long enough to be credentials. */
function secretsOf(apiKey, headers) {
  return [apiKey, ...Object.values(headers).filter((value) => value.length >= 8)].filter(Boolean);
}

/**
 * The version of how the adapters turn a request into a call (instructions as the
 * system message, the transcript as the user message, the output limit from the size
 * hint) and an answer into a summary. Bump it when that changes: it is part of every
 * identity, so summaries made the old way are not served from a cache for the new.
 * 3: inline `<think>` reasoning is no longer part of a summary, and a tool call's
 * preamble is no summary (both were cached as summaries before).
 */
/** @type {typeof import("./summarizers.js").PROMPT_VERSION} */
export const PROMPT_VERSION = 3;

/**
 * A summarizer's identity, the namespace of its cached summaries: the adapter, the
 * prompt version, and everything that shapes an answer (endpoint, model, generation
 * parameters, extra body fields). Never headers: they hold credentials, not behaviour.
 */
function identityOf(provider, settings) {
  return `${provider}:${JSON.stringify({ prompt: PROMPT_VERSION, ...settings })}`;
}

function withIdentity(fn, identity) {
  Object.defineProperty(fn, "identity", { value: identity, enumerable: true });
  return fn;
}

/** A default output budget in tokens from the request's size hint (about 4 bytes a token, doubled). */
function defaultMaxTokens(request) {
  const target = Number(request?.targetBytes);
  if (!Number.isFinite(target) || target <= 0) return 1024;
  return Math.min(8192, Math.max(256, Math.ceil(target / 2)));
}

function outputTokens(option, request) {
  if (option === null) return undefined;
  return option ?? defaultMaxTokens(request);
}

function trimmedBase(url) {
  return url.replace(/\/+$/, "");
}

/**
 * `base` with `path` added unless its path already ends with it (`tail`), before its
 * query (an Azure deployment URL's `?api-version=`).
 * @param {string} base @param {RegExp} tail @param {string} path
 */
function endpoint(base, tail, path) {
  const at = base.indexOf("?");
  const [head, query] = at < 0 ? [base, ""] : [trimmedBase(base.slice(0, at)), base.slice(at)];
  return `${tail.test(head) ? head : `${head}${path}`}${query}`;
}

// ---------------------------------------------------------------------------------------
// Adapters

// The options of each adapter, the one list of its keys: `checkOptions` rejects any other
// key (naming the nearest known one) and values of the wrong kind, and the type check
// fails when a list and its declaration in summarizers.d.ts disagree.

/** @type {import("./options.js").Spec<import("./summarizers.js").RetryOptions>} */
const RETRY_OPTIONS = { retries: is.count, retryDelayMs: is.number, maxRetryDelayMs: is.number };

/** @type {import("./options.js").Spec<import("./summarizers.js").HttpAdapterOptions>} */
const HTTP_OPTIONS = {
  ...RETRY_OPTIONS,
  model: required(is.string),
  headers: is.object,
  maxTokens: is.wholeNumber,
  temperature: is.number,
  body: is.object,
  fetch: is.function,
};

/** @type {import("./options.js").Spec<import("./summarizers.js").OpenAICompatibleOptions>} */
const OPENAI_COMPATIBLE_OPTIONS = {
  ...HTTP_OPTIONS,
  baseURL: required(is.url),
  apiKey: check((v) => typeof v === "string", "a string"),
  maxTokensField: is.string,
};

/** @type {import("./options.js").Spec<import("./summarizers.js").AnthropicOptions>} */
const ANTHROPIC_OPTIONS = { ...HTTP_OPTIONS, apiKey: required(is.string), baseURL: is.url, version: is.string };

/** @type {import("./options.js").Spec<import("./summarizers.js").WorkersAIOptions>} */
const WORKERS_AI_OPTIONS = {
  ...RETRY_OPTIONS,
  binding: required(
    check((v) => v !== null && typeof v === "object" && typeof v.run === "function", "the Workers AI binding (env.AI)"),
  ),
  model: required(is.string),
  maxTokens: is.wholeNumber,
  temperature: is.number,
  runOptions: is.object,
};

/** @type {import("./options.js").Spec<import("./summarizers.js").AiSdkOptions>} */
const AI_SDK_OPTIONS = {
  model: required(
    check(
      (v) => (typeof v === "string" && v.trim() !== "") || (v !== null && typeof v === "object" && !Array.isArray(v)),
      "an AI SDK LanguageModel (or a model id string)",
    ),
  ),
  generateText: is.function,
  retries: is.count,
  maxOutputTokens: is.wholeNumber,
  maxTokens: is.wholeNumber,
  temperature: is.number,
  providerOptions: is.object,
};

/** The settings every HTTP adapter reads the same way (checked by `checkOptions`). */
function httpSettings(options, provider, model, apiKey) {
  const extraHeaders = headerObject(options.headers);
  return {
    temperature: options.temperature ?? undefined,
    settings: retrySettings(options),
    fetchImpl: resolveFetch(options.fetch),
    extraHeaders,
    extraBody: options.body ?? {},
    secrets: secretsOf(apiKey, extraHeaders),
    where: `${provider} summarizer (model "${model}")`,
  };
}

/**
 * Any OpenAI-compatible chat completions API (OpenAI, Azure-style gateways, OpenRouter,
 * Groq, Together, vLLM, Ollama, llama.cpp...): POST `${baseURL}/chat/completions`.
 * @type {typeof import("./summarizers.js").openAICompatible}
 */
export function openAICompatible(options) {
  const adapter = "openAICompatible";
  const o = checkOptions(adapter, options, OPENAI_COMPATIBLE_OPTIONS);
  const base = trimmedBase(o.baseURL);
  const url = endpoint(base, /\/chat\/completions$/, "/chat/completions");
  const model = o.model;
  const apiKey = o.apiKey ?? undefined;
  // `null`: send no output limit.
  const maxTokens = o.maxTokens;
  const maxTokensField = o.maxTokensField ?? "max_tokens";
  const provider = "openai-compatible";
  const { temperature, settings, fetchImpl, extraHeaders, extraBody, secrets, where } = httpSettings(
    o,
    provider,
    model,
    apiKey,
  );

  return withIdentity(
    async function openAICompatibleSummarizer(request, context = {}) {
      const scope = callScope(context?.signal, request?.timeoutMs, provider);
      try {
        const body = {
          ...extraBody,
          model,
          messages: [
            { role: "system", content: request.instructions },
            { role: "user", content: request.transcript },
          ],
        };
        const limit = outputTokens(maxTokens, request);
        if (limit !== undefined) body[maxTokensField] = limit;
        if (temperature !== undefined) body.temperature = temperature;
        /** @type {Record<string, string>} */
        const headers = { "content-type": "application/json", accept: "application/json", ...extraHeaders };
        if (apiKey) headers.authorization = `Bearer ${apiKey}`;
        const answer = await postJson({
          fetchImpl,
          url,
          headers,
          body,
          signal: scope.signal,
          deadline: scope.deadline,
          settings,
          provider,
          model,
          secrets,
        });
        const choice = answer?.choices?.[0];
        if (choice === undefined) throw invalidAnswer(where, provider, "choices");
        const text = contentText(choice?.message?.content);
        if (text === undefined && choice?.message?.refusal) {
          throw new SummarizerError(`${where} refused: ${redact(oneLine(choice.message.refusal), secrets)}`, {
            code: "model",
            provider,
          });
        }
        const stopped = unfinished(where, provider, choice?.finish_reason);
        if (stopped) throw stopped;
        return summaryOf(where, provider, text ?? "");
      } finally {
        scope.done();
      }
    },
    identityOf(provider, { url, model, maxTokens, maxTokensField, temperature, body: extraBody }),
  );
}

/**
 * Anthropic's Messages API: POST `${baseURL}/v1/messages`.
 * @type {typeof import("./summarizers.js").anthropic}
 */
export function anthropic(options) {
  const o = checkOptions("anthropic", options, ANTHROPIC_OPTIONS);
  const apiKey = o.apiKey;
  const model = o.model;
  const base = trimmedBase(o.baseURL ?? "https://api.anthropic.com");
  const url = endpoint(base, /\/messages$/, /\/v1$/.test(base.split("?")[0]) ? "/messages" : "/v1/messages");
  const version = o.version ?? "2023-06-01";
  const maxTokens = o.maxTokens ?? undefined;
  const provider = "anthropic";
  const { temperature, settings, fetchImpl, extraHeaders, extraBody, secrets, where } = httpSettings(
    o,
    provider,
    model,
    apiKey,
  );

  return withIdentity(
    async function anthropicSummarizer(request, context = {}) {
      const scope = callScope(context?.signal, request?.timeoutMs, provider);
      try {
        const body = {
          ...extraBody,
          model,
          // Anthropic requires max_tokens.
          max_tokens: maxTokens ?? defaultMaxTokens(request),
          system: request.instructions,
          messages: [{ role: "user", content: request.transcript }],
        };
        if (temperature !== undefined) body.temperature = temperature;
        const headers = {
          "content-type": "application/json",
          accept: "application/json",
          "anthropic-version": version,
          ...extraHeaders,
          "x-api-key": apiKey,
        };
        const answer = await postJson({
          fetchImpl,
          url,
          headers,
          body,
          signal: scope.signal,
          deadline: scope.deadline,
          settings,
          provider,
          model,
          secrets,
        });
        if (!Array.isArray(answer?.content)) throw invalidAnswer(where, provider, "content");
        const text = answer.content
          .filter((block) => block?.type === "text" && typeof block.text === "string")
          .map((block) => block.text)
          .join("");
        const stopped = unfinished(where, provider, answer.stop_reason);
        if (stopped) throw stopped;
        return summaryOf(where, provider, text);
      } finally {
        scope.done();
      }
    },
    identityOf(provider, { url, model, version, maxTokens, temperature, body: extraBody }),
  );
}

/** Workers AI errors worth another try: capacity, overload, timeouts, 429 / 5xx. */
function workersAIRetryable(error) {
  const status = Number(error?.status ?? error?.statusCode);
  if (Number.isFinite(status) && status > 0) return isRetryableStatus(status);
  const text = String(error?.message ?? error);
  return /\b(3040|3043|3007|429|5\d\d)\b|capacity|overloaded|temporar|timed? ?out|internal server error|network/i.test(
    text,
  );
}

/**
 * `run()`, raced against `signal`: the Workers AI binding takes no signal (its options go
 * into the request body), so an abort takes effect at once all the same.
 */
function raced(run, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve()
      .then(run)
      .then(resolve, reject)
      .finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** A failed Workers AI call as a `SummarizerError`; thrown at once when not worth another try. */
function workersAIFailure(error, where, provider, n) {
  const status = Number(error?.status ?? error?.statusCode);
  const hasStatus = Number.isFinite(status) && status > 0;
  const retryable = workersAIRetryable(error);
  const failure = new SummarizerError(
    `${hasStatus ? `HTTP ${status} from ` : ""}${where}: ${oneLine(error?.message ?? error)}`,
    {
      code: hasStatus ? "http" : "model",
      status: hasStatus ? status : undefined,
      retryable,
      attempts: n + 1,
      provider,
    },
  );
  if (!retryable) throw failure;
  return failure;
}

/** The text of a Workers AI answer (a string, `response`, chat `choices`, or `result.response`). */
function workersAIText(answer) {
  if (typeof answer === "string") return answer;
  if (typeof answer?.response === "string") return answer.response;
  const content = contentText(answer?.choices?.[0]?.message?.content);
  if (content !== undefined) return content;
  return typeof answer?.result?.response === "string" ? answer.result.response : undefined;
}

/**
 * Cloudflare Workers AI through its binding (`env.AI`), for text generation models.
 * @type {typeof import("./summarizers.js").workersAI}
 */
export function workersAI(options) {
  const o = checkOptions("workersAI", options, WORKERS_AI_OPTIONS);
  const binding = o.binding;
  const model = o.model;
  // `null`: send no output limit.
  const maxTokens = o.maxTokens;
  const temperature = o.temperature ?? undefined;
  const settings = retrySettings(o);
  const runOptions = o.runOptions ?? {};
  const provider = "workers-ai";
  const where = `${provider} summarizer (model "${model}")`;

  return withIdentity(
    async function workersAISummarizer(request, context = {}) {
      const scope = callScope(context?.signal, request?.timeoutMs, provider);
      const { signal } = scope;
      try {
        const inputs = {
          messages: [
            { role: "system", content: request.instructions },
            { role: "user", content: request.transcript },
          ],
        };
        const limit = outputTokens(maxTokens, request);
        if (limit !== undefined) inputs.max_tokens = limit;
        if (temperature !== undefined) inputs.temperature = temperature;
        const run = () => binding.run(model, inputs, runOptions);
        const answer = await withRetries(
          async (n) => {
            try {
              return { value: await raced(run, signal) };
            } catch (error) {
              if (signal.aborted) throw abortReason(signal);
              return { failure: { error: workersAIFailure(error, where, provider, n) } };
            }
          },
          settings,
          signal,
          scope.deadline,
        );
        const text = workersAIText(answer);
        if (text === undefined) throw invalidAnswer(where, provider, "a response text");
        return summaryOf(where, provider, text);
      } finally {
        scope.done();
      }
    },
    identityOf(provider, { model, maxTokens, temperature, runOptions }),
  );
}

/** The first HTTP status found on an AI SDK error (APICallError, RetryError, causes). */
function aiSdkStatus(error) {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    const status = Number(e.statusCode ?? e.status);
    if (Number.isFinite(status) && status > 0) return status;
    e = e.lastError ?? e.cause;
  }
  return undefined;
}

/**
 * Where an AI SDK model sends its calls, as far as the model shows it: the `config` of the
 * `@ai-sdk/*` providers' models holds a `baseURL` (Responses, Anthropic, Google, the
 * gateway) or a `url({ path, modelId })` function (OpenAI and OpenAI-compatible chat,
 * Azure). Neither is part of the `LanguageModel` interface, so both are read defensively;
 * `undefined` when the model does not tell (a wrapped model, a custom provider), and the
 * README says to give `cachedSummarizer` a `namespace` then.
 * @param {unknown} model
 * @returns {string | undefined}
 */
function aiSdkEndpoint(model) {
  try {
    const config = /** @type {any} */ (model)?.config;
    if (config === null || typeof config !== "object") return undefined;
    if (typeof config.baseURL === "string" && config.baseURL !== "") return config.baseURL;
    const url = config.url;
    if (typeof url === "string" && url !== "") return url;
    if (typeof url === "function") {
      // The path is left out: the endpoint, not one route of it.
      const found = url({ path: "", modelId: /** @type {any} */ (model).modelId });
      if ((typeof found === "string" && found !== "") || found instanceof URL) return String(found);
    }
  } catch {
    // a getter or url() that throws: the endpoint cannot be told
  }
  return undefined;
}

/**
 * A Vercel AI SDK `LanguageModel` through `generateText`, given as `options.generateText`.
 * Without it this entry cannot load `ai`: a bundler includes only what is imported by
 * name, and a computed `import()` makes a Worker bundle unloadable, so the error points
 * to `contextfold/summarizers/ai-sdk`, which imports `generateText` from `ai` (the Node
 * twin, summarizers.node.js, still imports `ai` itself). The AI SDK retries transient
 * failures itself: `retries` is its `maxRetries`.
 * @type {typeof import("./summarizers.js").aiSdk}
 */
export function aiSdk(options) {
  const adapter = "aiSdk";
  const o = checkOptions(adapter, options, AI_SDK_OPTIONS);
  const model = o.model;
  const maxOutputTokens = o.maxOutputTokens ?? o.maxTokens;
  const temperature = o.temperature ?? undefined;
  const retries = o.retries ?? DEFAULT_RETRIES;
  const providerOptions = o.providerOptions ?? undefined;
  const modelId = typeof model === "string" ? model : (model.modelId ?? "unknown");
  const providerName = typeof model === "string" ? "gateway" : (model.provider ?? "unknown");
  const provider = "ai-sdk";
  const where = `${provider} summarizer (model "${providerName}:${modelId}")`;
  const generateText = o.generateText;
  if (generateText === undefined) {
    throw contextfoldError(
      "invalid_option",
      `${adapter}: options.generateText is required here: import { aiSdk } from "contextfold/summarizers/ai-sdk" ` +
        `(it imports generateText from "ai", so a bundler includes it), or pass generateText from "ai"`,
      "options.generateText",
    );
  }

  return withIdentity(
    async function aiSdkSummarizer(request, context = {}) {
      const scope = callScope(context?.signal, request?.timeoutMs, provider);
      try {
        const call = {
          model,
          system: request.instructions,
          prompt: request.transcript,
          abortSignal: scope.signal,
          maxRetries: retries,
        };
        const limit = outputTokens(maxOutputTokens, request);
        if (limit !== undefined) call.maxOutputTokens = limit;
        if (temperature !== undefined) call.temperature = temperature;
        if (providerOptions !== undefined) call.providerOptions = providerOptions;
        let result;
        try {
          result = await generateText(call);
        } catch (error) {
          if (scope.signal.aborted) throw abortReason(scope.signal);
          const status = aiSdkStatus(error);
          throw new SummarizerError(
            `${status !== undefined ? `HTTP ${status} from ` : ""}${where}: ${oneLine(error?.message ?? error)}`,
            { code: status !== undefined ? "http" : "model", status, retryable: false, provider },
          );
        }
        const reason = typeof result?.finishReason === "string" ? result.finishReason : result?.finishReason?.unified;
        const stopped = unfinished(where, provider, reason);
        if (stopped) throw stopped;
        const text = result?.text;
        if (typeof text !== "string") throw invalidAnswer(where, provider, "text");
        return summaryOf(where, provider, text);
      } finally {
        scope.done();
      }
    },
    identityOf(provider, {
      provider: providerName,
      model: modelId,
      endpoint: aiSdkEndpoint(model),
      maxOutputTokens,
      temperature,
      providerOptions,
    }),
  );
}

/** The class as summarizers.d.ts declares it: a mismatch fails `npm run check:types`. */
/** @type {typeof import("./summarizers.js").SummarizerError} */
const _declaredSummarizerError = SummarizerError;
