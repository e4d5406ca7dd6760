// `contextfold/worker`: compaction middleware for a Worker (or any fetch-style server) in
// front of an LLM API. For POST bodies of OpenAI `/chat/completions`, OpenAI `/responses`
// and Anthropic `/messages` shape it compacts the history (`messages`; `instructions` and
// `input` for the Responses API) to the configured budget, rebuilds the request
// with everything else in the body untouched, and calls the wrapped handler (which
// forwards upstream). Responses, streaming or not, pass through with their body never
// read; `x-contextfold-*` headers carry the figures.
//
// Failure policy: the request always goes on. A body too large gets 413, a malformed one
// is forwarded untouched (or rejected with 400, per `onMalformed`), and a compaction that
// fails forwards the original bytes with `x-contextfold-error`: a code only (errors may
// quote a summarizer's error text, which may echo a key), the details go to `onReport`.
// A compacted body is the original bytes with the new messages spliced in: every other
// byte goes upstream as the client sent it (`"seed": 9007199254740993` stays exact).
// Request headers (and so the client's API key) are never read beyond routing, never
// logged, never echoed and never given to the summarizer, which sees only the summary
// requests.
//
// This module expects the wasm to be initialized: the `workerd` and `node` conditions of
// `contextfold/worker` load entry files that do so (and hand their API in, so that a bundler
// that drops modules it thinks unused still keeps them); elsewhere `await init()` from
// `contextfold` first.
import * as packageApi from "./index.js";
import { __checkOptionKeys, __requestBodySpans } from "./glue.js"; // internal: not part of the API
import { cachedSummarizer } from "./cache.js";
import { prefixCache } from "./prefix-cache.js";
import { contextfoldError } from "./errors.js";
import { check, checkArgument, checkOptions, is, required } from "./options.js";
export { isContextfoldError } from "./errors.js";

export { cachedSummarizer, cacheApiCache, kvCache, memoryCache, summaryCacheKey } from "./cache.js";

const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
const DEFAULT_RESERVE_RATIO = 0.25;
const DEFAULT_TIMEOUT_MS = 30_000;
const HEADER = "x-contextfold-";

function jsonError(status, code, message, type) {
  return new Response(JSON.stringify({ error: { type, code, message } }), {
    status,
    headers: { "content-type": "application/json", [`${HEADER}error`]: code },
  });
}

/** A header value from any text: printable ASCII, one line, bounded. */
function headerValue(text) {
  const flat = String(text)
    .replace(/[^\x20-\x7e]+/g, " ")
    .trim();
  return flat.length > 240 ? `${flat.slice(0, 240)}...` : flat;
}

/** The code of a thrown error (for the header) and its text (for `onReport`). */
function describeError(error) {
  const code = error?.name === "ContextfoldError" && typeof error.code === "string" ? error.code : "internal";
  return { code, detail: `${error?.name ?? "Error"}: ${error?.message ?? error}` };
}

/**
 * The default routing: OpenAI's `.../chat/completions` and `.../v1/responses`, and
 * Anthropic's `.../v1/messages` (behind any prefix). Other POSTs, such as
 * `/v1/threads/{id}/messages` or `/v1/responses/{id}/cancel`, are no chat requests and
 * pass through untouched.
 * @type {typeof import("./worker.js").defaultRoute}
 */
export function defaultRoute(url) {
  const path = url.pathname.replace(/\/+$/, "");
  if (/(^|\/)chat\/completions$/.test(path)) return "openai";
  if (/(^|\/)v1\/responses$/.test(path) || path === "/responses") return "openai-responses";
  if (/(^|\/)v1\/messages$/.test(path) || path === "/messages") return "anthropic";
  return null;
}

/** Beyond the limit, at most this much more is read (and dropped) before giving up on a body. */
const DRAIN_BYTES = 64 * 1024 * 1024;

/**
 * Reads and drops the rest of a body that is too large, so the client, still sending,
 * gets the 413 rather than a reset connection; past `DRAIN_BYTES` the upload is cancelled.
 */
async function drain(reader) {
  let dropped = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      dropped += value.byteLength;
      if (dropped > DRAIN_BYTES) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // the client went away: nothing left to drain
  }
}

/** The body as bytes, or `null` when it is larger than `limit`. */
async function readLimited(request, limit) {
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) {
    await drain(reader);
    return null;
  }
  const chunks = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await drain(reader);
      return null;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** `parts` (byte arrays) as one. */
function concatBytes(parts) {
  const bytes = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return bytes;
}

/**
 * The body `bytes` with the top-level fields of `replace` (name -> value) spliced in as
 * JSON, every other byte as sent; a field the body lacks is added before its closing
 * brace. The spans come from the core (`__requestBodySpans`); a repeated key's last
 * occurrence is the one `JSON.parse` read, so it is the one replaced.
 */
function splice(bytes, replace, spansOf) {
  const spans = spansOf(bytes);
  if (spans === null) throw new Error("the request body is not one JSON object");
  const at = new Map(spans.fields.map(([key, start, end]) => [key, [start, end]]));
  const edits = [];
  const added = [];
  for (const [name, value] of Object.entries(replace)) {
    const json = value instanceof RawJson ? value.text : JSON.stringify(value);
    const span = at.get(name);
    if (span !== undefined) edits.push([span[0], span[1], json]);
    else added.push(`${JSON.stringify(name)}:${json}`);
  }
  if (added.length > 0) {
    edits.push([spans.close, spans.close, `${spans.fields.length > 0 ? "," : ""}${added.join(",")}`]);
  }
  edits.sort((a, b) => a[0] - b[0]);
  const encoder = new TextEncoder();
  const parts = [];
  let offset = 0;
  for (const [start, end, text] of edits) {
    parts.push(bytes.subarray(offset, start), encoder.encode(text));
    offset = end;
  }
  parts.push(bytes.subarray(offset));
  return concatBytes(parts);
}

function isPlainObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Why a parsed body is not one we can compact, or `null` when it is fine. */
function shapeProblem(body, format) {
  if (!isPlainObject(body)) return "the body is not a JSON object";
  if (body.model !== undefined && typeof body.model !== "string") return "`model` is not a string";
  if (format === "openai-responses") return responsesProblem(body);
  if (!Array.isArray(body.messages)) return "`messages` is not an array";
  if (body.messages.some((m) => !isPlainObject(m) || typeof m.role !== "string")) {
    return "`messages` holds an item without a string `role`";
  }
  const system = body.system;
  if (format === "anthropic" && system !== undefined && typeof system !== "string" && !Array.isArray(system)) {
    return "`system` is neither a string nor an array of blocks";
  }
  return null;
}

/** `shapeProblem` of a Responses API body: `input` a string or items, `instructions` a string. */
function responsesProblem(body) {
  const { input, instructions } = body;
  if (typeof input !== "string" && !Array.isArray(input)) return "`input` is neither a string nor an array";
  if (Array.isArray(input) && input.some((item) => !isPlainObject(item)))
    return "`input` holds an item that is not an object";
  if (instructions !== undefined && instructions !== null && typeof instructions !== "string") {
    return "`instructions` is not a string";
  }
  return null;
}

/**
 * Why a well-formed request's history cannot be compacted here, or `undefined`: a
 * Responses request that continues a stored response or conversation sends only its new
 * items, the history is upstream's.
 */
function heldUpstream(body, format) {
  if (format !== "openai-responses") return undefined;
  for (const field of ["previous_response_id", "conversation"]) {
    if (body[field] !== undefined && body[field] !== null) return `the history is held upstream (\`${field}\`)`;
  }
  return undefined;
}

/** The entry of `table` for `model`: an exact key, else the longest key that prefixes it. */
function lookupWindow(table, model) {
  if (!table || typeof model !== "string") return undefined;
  if (Object.hasOwn(table, model)) return table[model];
  let best;
  for (const key of Object.keys(table)) {
    if (model.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table[best];
}

function positive(value) {
  return typeof value === "number" && Number.isFinite(value) && value > 0;
}

/** The options of `compactionMiddleware` (as worker.d.ts declares them). */
const MIDDLEWARE_KEYS = [
  "strategy",
  "maxTokens",
  "contextWindows",
  "reserveTokens",
  "reserveRatio",
  "summarizer",
  "createSummarizer",
  "cache",
  "namespace",
  "maxBodyBytes",
  "onMalformed",
  "route",
  "tokenCounter",
  "provider",
  "concurrency",
  "timeoutMs",
  "onError",
  "onReport",
];

/**
 * Checks the options when the middleware is made: a `ContextfoldError` (`invalid_option`)
 * with the path of the culprit; an unknown key names the nearest known one (the core's
 * check, through `__checkOptionKeys`). Strategy settings are checked by `compact`'s reader.
 */
function validateOptions(options, checkKeys) {
  const fail = (path, message) => {
    throw contextfoldError("invalid_option", `compactionMiddleware: ${path}: ${message}`, path);
  };
  if (!isPlainObject(options)) fail("options", "expected an object");
  if (typeof checkKeys === "function") {
    try {
      checkKeys(Object.keys(options), MIDDLEWARE_KEYS);
    } catch (e) {
      // Made before `init()` on the browser entry: that, not the options, is what is wrong.
      if (e?.code === "not_initialized") throw e;
      fail(e?.path ?? "options", String(e?.message ?? e).replace(/^[\w.]+: /, ""));
    }
  }
  const o = options;
  if (o.maxTokens !== undefined && !positive(o.maxTokens)) fail("options.maxTokens", "must be a positive number");
  if (o.contextWindows !== undefined) {
    if (!isPlainObject(o.contextWindows)) fail("options.contextWindows", "must map model names to token counts");
    for (const [model, tokens] of Object.entries(o.contextWindows)) {
      if (!positive(tokens)) fail(`options.contextWindows["${model}"]`, "must be a positive number");
    }
  }
  if (o.maxTokens === undefined && o.contextWindows === undefined) {
    fail("options.maxTokens", "give options.maxTokens or options.contextWindows");
  }
  if (o.reserveTokens !== undefined && !(typeof o.reserveTokens === "number" && o.reserveTokens >= 0)) {
    fail("options.reserveTokens", "must be a number >= 0");
  }
  const ratio = o.reserveRatio;
  if (ratio !== undefined && !(typeof ratio === "number" && ratio >= 0 && ratio < 1)) {
    fail("options.reserveRatio", "must be a number in [0, 1)");
  }
  if (o.maxBodyBytes !== undefined && !positive(o.maxBodyBytes))
    fail("options.maxBodyBytes", "must be a positive number");
  if (o.onMalformed !== undefined && o.onMalformed !== "forward" && o.onMalformed !== "reject") {
    fail("options.onMalformed", 'must be "forward" or "reject"');
  }
  if (o.summarizer !== undefined && typeof o.summarizer !== "function")
    fail("options.summarizer", "must be a function");
  if (o.createSummarizer !== undefined && typeof o.createSummarizer !== "function") {
    fail("options.createSummarizer", "must be a function (env, request) => summarizer");
  }
  if (o.summarizer !== undefined && o.createSummarizer !== undefined) {
    fail("options.createSummarizer", "give options.summarizer or options.createSummarizer, not both");
  }
  const cache = o.cache;
  const isCache =
    cache !== null && typeof cache === "object" && typeof cache.get === "function" && typeof cache.put === "function";
  if (cache !== undefined && typeof cache !== "function" && !isCache) {
    fail("options.cache", "must be a cache ({ get, put }) or a function (env) => cache");
  }
  if (
    o.cache !== undefined &&
    o.namespace === undefined &&
    o.summarizer !== undefined &&
    typeof o.summarizer.identity !== "string"
  ) {
    fail("options.namespace", "the summarizer's identity (e.g. its model) is required to cache a custom summarizer");
  }
  if (o.route !== undefined && typeof o.route !== "function") fail("options.route", "must be a function");
  if (o.onReport !== undefined && typeof o.onReport !== "function") fail("options.onReport", "must be a function");
}

/**
 * The strategy settings, checked when the middleware is made by `compact`'s own reader
 * (unknown settings, wrong values), not found wrong on every request. Only its verdict
 * on the strategy counts: the budget given here is a stand-in.
 */
function checkStrategy(strategy, needsCompaction) {
  try {
    needsCompaction([], { strategy, maxTokens: 1000 });
  } catch (e) {
    if (e?.code === "invalid_option" && String(e.path).startsWith("options.strategy")) throw e;
  }
}

function strategyName(strategy) {
  if (typeof strategy === "string") return strategy;
  if (isPlainObject(strategy) && typeof strategy.name === "string") return strategy.name;
  return DEFAULT_STRATEGY.name;
}

/** Tokens the request spends outside the messages: tool definitions and similar. */
function overheadTokens(body, estimateTokens) {
  let tokens = 0;
  for (const field of ["tools", "functions", "response_format", "tool_choice", "text"]) {
    if (body[field] !== undefined) tokens += estimateTokens(JSON.stringify(body[field]));
  }
  return tokens;
}

/** The token budget of this request's messages, or a reason why there is none. */
function budgetOf(options, body, estimateTokens) {
  const window = lookupWindow(options.contextWindows, body.model);
  if (window === undefined) {
    if (options.maxTokens !== undefined) return { tokens: options.maxTokens };
    return { skip: `no context window configured for model ${JSON.stringify(body.model ?? null)}` };
  }
  const asked = [body.max_tokens, body.max_completion_tokens, body.max_output_tokens].find(positive) ?? 0;
  const ratio = options.reserveRatio ?? DEFAULT_RESERVE_RATIO;
  const reserve = Math.max(asked, options.reserveTokens ?? Math.ceil(window * ratio));
  const tokens = Math.floor(window - reserve - overheadTokens(body, estimateTokens));
  if (tokens <= 0) {
    return { error: `the ${window}-token window leaves no room after a ${reserve}-token reserve` };
  }
  return { tokens };
}

/**
 * Wraps a fetch handler with compaction. `handler` is a Worker `fetch(request, env, ctx)`
 * function, a plain `(request) => Response` function, or an object with a `fetch` method.
 * `api` is the package API of the entry that loaded this module (see worker.node.js): not
 * part of the declared signature.
 * @type {typeof import("./worker.js").compactionMiddleware}
 */
export function compactionMiddleware(options = {}, api = packageApi) {
  validateOptions(options, __checkOptionKeys);
  if (options.strategy !== undefined) checkStrategy(options.strategy, api.needsCompaction);
  const middleware = middlewareOf(options, api);
  return function wrap(handler) {
    const next = fetchOf(handler);
    return async function compactingFetch(request, env, ctx) {
      return handle(middleware, next, request, env, ctx);
    };
  };
}

/**
 * The middleware's settings with their defaults, and the per-`env` state: the cache a
 * factory made for each `env` and the default summarizer, made once.
 */
/**
 * The middleware's strategy when none is given: `auto` in stable mode. The middleware gets
 * the whole raw history on every request; stable mode folds as the conversation's requests
 * would have, so the compacted prefix is the same from one request to the next (a
 * provider's prompt cache keeps paying) and, with a summary cache, no summary is asked for
 * twice.
 */
const DEFAULT_STRATEGY = Object.freeze({ name: "auto", stable: true });

function middlewareOf(options, api) {
  const strategy = options.strategy ?? DEFAULT_STRATEGY;
  const caches = new WeakMap(); // env -> the cache a factory made for it
  let defaultSummarizer;
  return {
    options,
    api,
    strategy,
    name: strategyName(strategy),
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    onMalformed: options.onMalformed ?? "forward",
    route: options.route ?? defaultRoute,
    cacheFor(env) {
      if (typeof options.cache !== "function") return options.cache;
      const key = env !== null && typeof env === "object" ? env : caches;
      if (!caches.has(key)) caches.set(key, options.cache(env));
      return caches.get(key);
    },
    summarizerFor(env, request) {
      if (options.createSummarizer) return options.createSummarizer(env, request);
      if (options.summarizer) return options.summarizer;
      defaultSummarizer ??= Object.defineProperty(api.extractiveSummarizer(), "identity", {
        value: "contextfold:extractive",
      });
      return defaultSummarizer;
    },
    report(info) {
      if (!options.onReport) return;
      try {
        options.onReport(info);
      } catch {
        // a logging hook never breaks a request
      }
    },
  };
}

/** What the middleware wraps. */
const IS_HANDLER = check(
  (v) => typeof v === "function" || (v !== null && typeof v === "object" && typeof v.fetch === "function"),
  "a fetch handler: a function (request, env, ctx) => Response, or an object with a fetch method",
);

/** The handler as a `fetch(request, env, ctx)` function. */
function fetchOf(handler) {
  checkArgument("compactionMiddleware", handler, IS_HANDLER, "handler");
  return typeof handler === "function" ? handler : (request, env, ctx) => handler.fetch(request, env, ctx);
}

/** The request fields of a format's request object (the core's `formats()` names them). */
function requestFields(format, api) {
  return api.formats().find((f) => f.name === format)?.request ?? { system: undefined, messages: "messages" };
}

/**
 * The chain in a request body: its list (`messages`, Responses `input`), or, where the
 * body uses the format's system field (Anthropic `system`, Responses `instructions`) or
 * the list is no list (a Responses string `input`), the request's system and list fields.
 */
function chainOf(body, format, api) {
  const fields = requestFields(format, api);
  const list = body[fields.messages];
  if (fields.system === undefined || (body[fields.system] === undefined && Array.isArray(list))) return list;
  const chain = { [fields.messages]: list };
  if (body[fields.system] !== undefined) chain[fields.system] = body[fields.system];
  return chain;
}

/** The formats the middleware handles. */
const CHAT_FORMATS = new Set(["openai", "openai-responses", "anthropic"]);

/** The API a request is for (`"openai"`, `"openai-responses"` or `"anthropic"`), or `null` to pass it through. */
function chatFormat(route, request) {
  let url;
  try {
    url = new URL(request.url);
  } catch {
    return null;
  }
  const format = request.method === "POST" ? route(url, request) : null;
  return CHAT_FORMATS.has(format) ? format : null;
}

/** One request: routed, read, checked, compacted when needed, and passed on. */
async function handle(middleware, next, request, env, ctx) {
  const format = chatFormat(middleware.route, request);
  if (format === null) return next(request, env, ctx);
  const { maxBodyBytes } = middleware;
  const bytes = await readLimited(request, maxBodyBytes).catch(() => undefined);
  if (bytes === null) {
    const message = `the request body exceeds ${maxBodyBytes} bytes`;
    return jsonError(413, "contextfold_body_too_large", message, "request_too_large");
  }
  if (bytes === undefined) {
    const message = "the request body could not be read";
    return jsonError(400, "contextfold_body_unreadable", message, "invalid_request_error");
  }
  /** Forwards `bytes` (the body as received) with the request's own headers. */
  const forwardOriginal = () => next(new Request(request, { body: bytes }), env, ctx);

  const { body, problem } = parseBody(bytes, format);
  if (problem !== null) {
    if (middleware.onMalformed === "reject") {
      const message = `malformed ${format} request: ${problem}`;
      return jsonError(400, "contextfold_malformed_body", message, "invalid_request_error");
    }
    const figures = { strategy: middleware.name, error: "malformed_body", detail: problem };
    middleware.report(reportOf(format, undefined, figures, false, undefined));
    return withHeaders(await forwardOriginal(), { error: "malformed_body" });
  }

  const model = typeof body.model === "string" ? body.model : undefined;
  const headers = new Headers(request.headers);
  headers.delete("content-length");
  /** Compacts at `scale` of the budget and reports it: the body to send (`null`: the original). */
  const prepare = async (scale) => {
    const { figures, outgoing, info } = await compactBody(middleware, format, body, bytes, request, env, scale);
    middleware.report(reportOf(format, model, figures, outgoing !== null, info));
    return { figures, outgoing };
  };
  /** Forwards the body prepared (the original when nothing changed). */
  const send = (outgoing) =>
    outgoing === null ? forwardOriginal() : next(new Request(request, { body: outgoing, headers }), env, ctx);
  const first = await prepare(1);
  const response = await send(first.outgoing);
  // Upstream counts tokens its own way: a context-overflow answer gets one retry, compacted
  // harder; not when compacting harder changes nothing (a chain already far under the
  // budget): the same body would get the same answer.
  if (!(await isOverflow(response))) return withHeaders(response, first.figures);
  const second = await prepare(OVERFLOW_RETRY_SCALE);
  // Not either when the harder compaction failed and would send the original, larger than
  // the body the provider just found too long.
  const larger = second.outgoing === null && first.outgoing !== null;
  if (larger || sameBody(first.outgoing, second.outgoing)) return withHeaders(response, first.figures);
  return withHeaders(await send(second.outgoing), { ...second.figures, retried: "context_overflow" });
}

/** Whether two prepared bodies (`null`: the original) are the same bytes. */
function sameBody(a, b) {
  if (a === null || b === null) return a === b;
  const [x, y] = [a, b].map((v) => (typeof v === "string" ? new TextEncoder().encode(v) : new Uint8Array(v)));
  return x.length === y.length && x.every((byte, i) => byte === y[i]);
}

/** The share of the budget a retry after a context-overflow answer compacts to. */
const OVERFLOW_RETRY_SCALE = 0.7;

/**
 * What providers answer when a request is over the model's context: OpenAI
 * `context_length_exceeded` ("maximum context length"), Anthropic "prompt is too long",
 * Gemini "input token count ... exceeds the maximum number of tokens", and the like.
 */
const OVERFLOW =
  /context_length_exceeded|prompt is too long|maximum context length|context window|too many (?:input )?tokens|exceeds the maximum number of tokens/i;

/** Whether `response` is a context-overflow error (its body read from a clone). */
async function isOverflow(response) {
  if (!(response instanceof Response) || (response.status !== 400 && response.status !== 413)) return false;
  try {
    return OVERFLOW.test((await response.clone().text()).slice(0, 65_536));
  } catch {
    return false;
  }
}

/** The parsed body and why it is not one we can compact (`null` when it is fine). */
function parseBody(bytes, format) {
  try {
    const body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    return { body, problem: shapeProblem(body, format) };
  } catch (error) {
    return { body: undefined, problem: `the body is not JSON (${error?.message ?? error})` };
  }
}

/** What `onReport` is told about a request. */
function reportOf(format, model, figures, compacted, info) {
  return {
    format,
    model,
    strategy: figures.strategy,
    beforeTokens: figures.before,
    afterTokens: figures.after,
    calls: figures.calls ?? 0,
    cacheHits: figures.hits,
    cacheMisses: figures.misses,
    compacted,
    error: figures.error,
    detail: figures.detail,
    skipped: figures.skipped,
    report: info,
  };
}

/**
 * Compacts a well-formed body when it is over budget: the figures for the headers and
 * the report, the compacted body (`outgoing`, or `null` to forward the original) and the
 * report of `compact` when it ran. Never throws: a failure is a figure.
 */
async function compactBody(middleware, format, body, bytes, request, env, scale = 1) {
  const { options, api } = middleware;
  const figures = { strategy: middleware.name };
  try {
    const budget = budgetOf(options, body, api.estimateTokens);
    if (budget.tokens !== undefined) budget.tokens = Math.max(1, Math.floor(budget.tokens * scale));
    if (budget.skip !== undefined) {
      figures.skipped = budget.skip;
      return { figures, outgoing: null, info: undefined };
    }
    if (budget.error !== undefined) {
      Object.assign(figures, { error: "budget_too_small", detail: budget.error });
      return { figures, outgoing: null, info: undefined };
    }
    const upstream = heldUpstream(body, format);
    if (upstream !== undefined) {
      figures.skipped = upstream;
      return { figures, outgoing: null, info: undefined };
    }
    const input = chainOf(body, format, api);
    const settings = {
      format,
      strategy: middleware.strategy,
      maxTokens: budget.tokens,
      tokenCounter: options.tokenCounter,
    };
    const listKey = requestFields(format, api).messages;
    // Made once: its identity keys the prefix cache, and it makes the summaries.
    let base;
    const summarizerOf = () => (base ??= middleware.summarizerFor(env, request));
    const scope = { format, tokens: budget.tokens, body, bytes, listKey, summarizerOf };
    const prefix = prefixCacheOf(middleware, env, scope);
    if (prefix !== null) {
      const list = body[listKey];
      const hit = await prefix.lookup((tokens, from) => {
        const more = from === list.length ? 0 : api.measureChain(list.slice(from), { format }).total.tokens;
        return tokens + more <= budget.tokens ? more : null;
      });
      if (hit !== null) {
        Object.assign(figures, { before: hit.before, after: hit.after, calls: 0, prefix: "hit" });
        if (hit.stale) await prefix.store(hit.before, hit.after, hit.listText);
        const outgoing = splice(bytes, { [listKey]: new RawJson(hit.listText) }, () => prefix.spans);
        return { figures, outgoing, info: undefined };
      }
      figures.prefix = "miss";
    }
    if (!api.needsCompaction(input, settings)) {
      const tokens = api.measureChain(input, { format }).total.tokens;
      Object.assign(figures, { before: tokens, after: tokens, calls: 0 });
      return { figures, outgoing: null, info: undefined };
    }
    const { result, summarizer } = await runCompaction(middleware, input, settings, request, env, summarizerOf());
    const outgoing = applyResult(figures, result, summarizer, bytes, listKey);
    const compacted = Array.isArray(result.messages) ? result.messages : result.messages?.[listKey];
    const sameHead = Array.isArray(result.messages) || sameSystem(result.messages, body, format, api);
    if (prefix !== null && outgoing !== null && Array.isArray(compacted) && sameHead) {
      const { before, after } = result.report;
      await prefix.store(before.tokens, after.tokens, JSON.stringify(compacted));
    }
    return { figures, outgoing, info: result.report };
  } catch (error) {
    const { code, detail } = describeError(error);
    Object.assign(figures, { error: code, detail });
    if (figures.before !== undefined) figures.after = figures.before;
    return { figures, outgoing: null, info: undefined };
  }
}

/**
 * The prefix cache for this request: with a cache store and the stable strategy (the
 * default), whose compacted prefix is the same from one request to the next; else `null`.
 * Its scope holds the summarizer's identity, as the summary cache's keys do: compacted
 * messages hold summaries, and another summarizer (another model or endpoint, a
 * `PROMPT_VERSION` bump) must not be answered with the old one's. No identity, no prefix
 * cache (the summary cache then fails the compaction with `invalid_option`).
 */
function prefixCacheOf(middleware, env, { format, tokens, body, bytes, listKey, summarizerOf }) {
  const { options, strategy, api } = middleware;
  const stable = isPlainObject(strategy) && strategy.name === "auto" && strategy.stable === true;
  if (options.cache === undefined || !stable || options.tokenCounter !== undefined) return null;
  if (!Array.isArray(body[listKey])) return null;
  const spans = __requestBodySpans(bytes, listKey);
  const list = spans?.fields.filter(([key]) => key === listKey).at(-1);
  const elements = spans?.elements;
  if (list === undefined || !Array.isArray(elements) || elements.length !== 2 * body[listKey].length) return null;
  const system = requestFields(format, api).system;
  const head = system === undefined ? null : (body[system] ?? null);
  const namespace = namespaceOf(options, summarizerOf());
  if (typeof namespace !== "string" || namespace === "") return null;
  const scope = { format, strategy, tokens, namespace };
  const cache = prefixCache(middleware.cacheFor(env), { bytes, list: [list[1], list[2]], elements, head, scope });
  return cache.usable ? Object.assign(cache, { spans }) : null;
}

/** Whether a compacted request object kept the body's system field as it was. */
function sameSystem(chain, body, format, api) {
  const system = requestFields(format, api).system;
  return system === undefined || JSON.stringify(chain?.[system] ?? null) === JSON.stringify(body[system] ?? null);
}

/** JSON text spliced into a body as it is (`splice` serializes any other value). */
class RawJson {
  constructor(text) {
    this.text = text;
  }
}

/** The summarizer's name in cache keys: `options.namespace`, else its `identity`. */
function namespaceOf(options, summarizer) {
  return options.namespace ?? summarizer?.identity;
}

/** `compact` over the input with the request's summarizer (cached when a cache is set). */
async function runCompaction(middleware, input, settings, request, env, base) {
  const { options } = middleware;
  const cache = options.cache === undefined ? undefined : middleware.cacheFor(env);
  const summarizer =
    cache === undefined ? base : cachedSummarizer(base, { cache, namespace: namespaceOf(options, base) });
  const signal = request.signal instanceof AbortSignal ? request.signal : undefined;
  const result = await middleware.api.compact(input, {
    ...settings,
    summarizer,
    provider: options.provider,
    concurrency: options.concurrency,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    onError: options.onError,
    signal,
  });
  return { result, summarizer };
}

/**
 * Records a compaction's figures; returns the compacted body, or `null` when the request
 * is to go on unchanged (nothing changed, rolled back or cancelled).
 */
function applyResult(figures, result, summarizer, bytes, listKey) {
  const { report: r } = result;
  Object.assign(figures, { before: r.before.tokens, after: r.after.tokens, calls: r.calls });
  if (summarizer.stats) {
    figures.hits = summarizer.stats.hits;
    figures.misses = summarizer.stats.misses;
  }
  if (r.rolledBack || r.cancelled) {
    const first = r.errors[0];
    figures.error = r.cancelled ? "cancelled" : "summarizer_failed";
    if (!r.cancelled) {
      figures.detail = `${r.errors.length} call(s) failed${first ? `; first: ${first.message}` : ""}`;
    }
    figures.after = figures.before;
    return null;
  }
  if (!result.changed) return null;
  // A bare list replaces the body's list (`messages`, `input`); a request object
  // (Anthropic with its system prompt, Responses with its instructions) its own fields.
  const replace = Array.isArray(result.messages) ? { [listKey]: result.messages } : result.messages;
  return splice(bytes, replace, __requestBodySpans);
}

/** The response with the figures as headers; its body is passed on, never read. */
function withHeaders(response, figures) {
  if (!(response instanceof Response) || response.status === 101 || /** @type {any} */ (response).webSocket)
    return response;
  const out = new Response(response.body, response);
  const set = (name, value) => {
    if (value !== undefined) out.headers.set(HEADER + name, headerValue(value));
  };
  set("before-tokens", figures.before);
  set("after-tokens", figures.after);
  set("calls", figures.calls);
  set("cache-hits", figures.hits);
  set("cache-misses", figures.misses);
  set("strategy", figures.strategy);
  set("skipped", figures.skipped);
  set("error", figures.error);
  set("retried", figures.retried);
  set("prefix-cache", figures.prefix);
  return out;
}

/**
 * The options of `proxy`, the one list of its keys (`checkOptions` rejects any other,
 * naming the nearest); the type check fails when it and worker.d.ts disagree.
 * @type {import("./options.js").Spec<import("./worker.js").ProxyOptions>}
 */
const PROXY_OPTIONS = {
  upstream: required(is.oneOf(is.url, is.function)),
  headers: is.oneOf(is.object, is.function),
  fetch: is.function,
};

const DROPPED_HEADERS = new Set([
  "host",
  "content-length",
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "x-real-ip",
]);

/**
 * A handler that forwards every request to `upstream` (a base URL, or `(env) => URL`):
 * the request's path and query are appended to it; method, body and headers go along
 * (client-specific ones such as `host`, `cf-*` and `x-forwarded-*` are dropped, and
 * `headers` can add or replace some, e.g. the API key from a secret). The response
 * comes back as is.
 * @type {typeof import("./worker.js").proxy}
 */
export function proxy(options) {
  const { upstream, headers: extra, fetch: fetchOption } = checkOptions("proxy", options, PROXY_OPTIONS);
  const send = fetchOption ?? ((input, init) => globalThis.fetch(input, init));

  // `env` is undefined when the handler is called with a request only; the functions get it as is.
  return async function proxyFetch(request, /** @type {any} */ env) {
    const base = new URL(typeof upstream === "function" ? upstream(env) : upstream);
    const incoming = new URL(request.url);
    const target = new URL(base);
    target.pathname = base.pathname.replace(/\/+$/, "") + incoming.pathname;
    target.search = incoming.search;
    const headers = new Headers();
    for (const [name, value] of request.headers) {
      if (DROPPED_HEADERS.has(name) || name.startsWith("cf-") || name.startsWith("x-forwarded-")) continue;
      headers.set(name, value);
    }
    const added = typeof extra === "function" ? extra(env, request) : extra;
    if (added) for (const [name, value] of new Headers(added)) headers.set(name, value);
    const hasBody = request.method !== "GET" && request.method !== "HEAD" && request.body !== null;
    // `duplex` (streaming a request body) is missing from the DOM typings of RequestInit.
    return send(
      target.toString(),
      /** @type {RequestInit} */ ({
        method: request.method,
        headers,
        body: hasBody ? request.body : undefined,
        duplex: hasBody ? "half" : undefined,
        redirect: "manual",
        signal: request.signal instanceof AbortSignal ? request.signal : undefined,
      }),
    );
  };
}
