// A TypeScript consumer of the package, type-checked (never run) by types.test.mjs under
// `moduleResolution: "nodenext"` and `"bundler"`. Every `@ts-expect-error` line must be
// an error: tsc fails on an unused one, so these lines prove that wrong options are
// rejected, not just that right ones are accepted.
import init, {
  compact,
  extractiveSummarizer,
  History,
  isContextfoldError,
  needsCompaction,
  parseChain,
  repairChain,
  normalizeToolCallIds,
  clearReasoning,
  validateChain,
  type Diagnostic,
  type RepairResult,
  type StoredHistory,
  type ChainFormat,
  type CompactOptions,
  type CompactResult,
  type ContextfoldError,
  type ContextfoldErrorCode,
  type DiagnosticCode,
  type ParsedChain,
  type SummarizeErrorKind,
  type Summarizer,
  type SummaryRequest,
} from "contextfold";
import initWeb, { compact as compactWeb } from "contextfold/web";

/** Compile-time equality of two types. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | void {}

declare const messages: unknown[];

// init is the same function on every entry.
expectType<Equal<typeof init, typeof initWeb>>();
expectType<Equal<typeof compact, typeof compactWeb>>();
await init();

// parseChain
const parsed = parseChain(messages, { format: "openai", repair: true });
expectType<Equal<typeof parsed, ParsedChain>>();
expectType<Equal<typeof parsed.format, ChainFormat>>();
expectType<Equal<typeof parsed.outline.sections, number>>();
parseChain(JSON.stringify(messages), { format: "auto" });
parseChain(messages, {});
parseChain(messages);
// @ts-expect-error: no such format
parseChain(messages, { format: "yaml" });
// @ts-expect-error: repair is a boolean
parseChain(messages, { repair: "yes" });

// A summarizer as a user writes one: typed request, the signal passed on to fetch.
const summarizer: Summarizer = async (request, { signal }) => {
  expectType<Equal<typeof request, SummaryRequest>>();
  expectType<Equal<typeof request.prompt, string>>();
  expectType<Equal<typeof request.range, { start: number; end: number }>>();
  expectType<Equal<typeof signal, AbortSignal>>();
  const response = await fetch("https://example.invalid/summarize", {
    method: "POST",
    body: JSON.stringify({ prompt: request.prompt, maxBytes: request.targetBytes }),
    signal,
  });
  return response.text();
};

// compact
const controller = new AbortController();
const options: CompactOptions = {
  summarizer,
  format: "anthropic",
  strategy: { name: "sections", keepQASections: 2, useQA: true },
  concurrency: 4,
  timeoutMs: 30_000,
  signal: controller.signal,
  onError: "partial",
};
const result = await compact(messages, options);
expectType<Equal<typeof result, CompactResult<unknown[]>>>();
expectType<Equal<typeof result.format, ChainFormat>>();
expectType<Equal<typeof result.changed, boolean>>();
expectType<Equal<(typeof result.report.errors)[number]["kind"], SummarizeErrorKind>>();
expectType<Equal<typeof result.report.format, ChainFormat>>();
await compact(messages, {
  onProgress: (event) => {
    if (event.phase === "call") expectType<Equal<typeof event.ok, boolean>>();
    if (event.phase === "done") expectType<Equal<typeof event.calls, number>>();
    // @ts-expect-error: a wave event has no request
    if (event.phase === "wave") void event.request;
  },
});
// The messages come back in the caller's own format and container, typed as given.
expectType<Equal<typeof result.messages, unknown[]>>();
await compact(messages, { summarizer: async (request) => request.transcript.slice(0, 100) });
await compact("[]", { summarizer, strategy: "sections", onError: "throw" });

// Options and the summarizer are optional: the built-in extractive summarizer is the default.
await compact(messages, {});
await compact(messages);
await compact(messages, { summarizer: extractiveSummarizer({ maxBytes: 2048 }) });
// @ts-expect-error: maxBytes is a number
extractiveSummarizer({ maxBytes: "2k" });
// @ts-expect-error: a number is no summarizer
await compact(messages, { summarizer: 42 });
// @ts-expect-error: a summarizer resolves to a string
await compact(messages, { summarizer: async () => 42 });
// @ts-expect-error: no such onError policy
await compact(messages, { summarizer, onError: "explode" });
// @ts-expect-error: no such strategy
await compact(messages, { summarizer, strategy: "sliding" });
await compact(messages, { summarizer, strategy: { name: "window", window: 40, thresholdTokens: 8000 } });
await compact(messages, { strategy: { name: "tiers", recent: 10 } });
await compact(messages, { strategy: "budget", maxTokens: 8000, tokenCounter: (texts) => texts.map((t) => t.length) });
// @ts-expect-error: a token counter returns one number per text
await compact(messages, { strategy: "budget", maxTokens: 8000, tokenCounter: (texts: string[]) => texts.join("") });
// @ts-expect-error: window settings are typed
await compact(messages, { strategy: { name: "window", window: "40" } });
const needed: boolean = needsCompaction(messages, { strategy: "budget", maxBytes: 100_000 });
const diagnostics: Diagnostic[] = validateChain(messages, { provider: "anthropic" });
// @ts-expect-error: no such provider
validateChain(messages, { provider: "cohere" });
const repaired: RepairResult = repairChain(messages, { orphanResults: "answer" });
const normalized = normalizeToolCallIds(messages, "toolu_{r:24:b}", { format: "anthropic" });
expectType<Equal<typeof normalized.renamed, { old: string; new: string }[]>>();
expectType<Equal<typeof normalized.format, ChainFormat>>();
const cleared = clearReasoning(messages);
expectType<Equal<typeof cleared.removed, number>>();
// @ts-expect-error: the template is a string
normalizeToolCallIds(messages, 24);
// @ts-expect-error: no such format
clearReasoning(messages, { format: "yaml" });
const history = new History<{ role: string; content: string }>({ options: { strategy: "tiers" } });
await history.push({ role: "user", content: "hi" });
const stored: StoredHistory<{ role: string; content: string }> = history.toJSON();
History.fromJSON(stored, { summarizer });
// @ts-expect-error: History holds the message type it was given
await history.push(42);
// One run's options: a budget in either unit, any option of compact.
await history.compact({ maxBytes: 4000, signal: controller.signal });
await history.compact();
// @ts-expect-error: the override is compact's options, typed
await history.compact({ maxTokens: "8000" });

// The error type: narrowed by the guard, its code a known one (or a later one's string).
try {
  await compact(messages, options);
} catch (e) {
  if (isContextfoldError(e)) {
    expectType<Equal<typeof e, ContextfoldError>>();
    expectType<Equal<typeof e.path, string | undefined>>();
    const code: ContextfoldErrorCode = e.code;
    if (code === "summarizer_failed") void e.errors?.[0]?.kind;
  }
}
const known: ContextfoldErrorCode = "invalid_option";
const diagnosticCode: DiagnosticCode = "unsigned_thinking";
expectType<Equal<Diagnostic["code"], DiagnosticCode>>();
void [known, diagnosticCode];
void [needed, diagnostics, repaired];
// @ts-expect-error: strategy settings are typed
await compact(messages, { summarizer, strategy: { name: "sections", useQA: "yes" } });
// @ts-expect-error: concurrency is a number
await compact(messages, { summarizer, concurrency: "4" });
// @ts-expect-error: no such format
await compact(messages, { summarizer, format: "yaml" });
// @ts-expect-error: signal is an AbortSignal
await compact(messages, { summarizer, signal: controller });
// @ts-expect-error: the report has no such field
void result.report.tokensSaved;

// contextfold/summarizers, contextfold/worker and the summary cache (exported from both).
import {
  aiSdk,
  anthropic,
  openAICompatible,
  workersAI,
  SummarizerError,
  isContextfoldError as isContextfoldErrorOfSummarizers,
  type AdapterSummarizer,
} from "contextfold/summarizers";
import { aiSdk as bundledAiSdk } from "contextfold/summarizers/ai-sdk";
import {
  compactionMiddleware,
  proxy,
  kvCache as kvCacheFromWorker,
  isContextfoldError as isContextfoldErrorOfWorker,
  type CompactionMiddlewareOptions,
  type MiddlewareReport,
} from "contextfold/worker";
import {
  cachedSummarizer,
  cacheApiCache,
  kvCache,
  memoryCache,
  type CachedSummarizer,
  type SummaryCache,
} from "contextfold";
// The AI SDK's own types need @types/node; stand-ins of the same shape.
declare const generateText: (options: {
  model: unknown;
  system?: string;
  prompt: string;
}) => Promise<{ text: string; usage: object }>;
declare const languageModel: {
  readonly specificationVersion: "v4";
  readonly provider: string;
  readonly modelId: string;
};

const openaiSummarizer: AdapterSummarizer = openAICompatible({
  baseURL: "http://127.0.0.1:1/v1",
  apiKey: "k",
  model: "m",
  retries: 3,
});
await compact(messages, { summarizer: openaiSummarizer });
const claude: Summarizer = anthropic({ apiKey: "k", model: "claude", maxTokens: 512, fetch });
expectType<Equal<typeof openaiSummarizer.identity, string>>();
// @ts-expect-error: the Anthropic adapter needs a key
anthropic({ model: "claude" });
// @ts-expect-error: retries is a number
openAICompatible({ baseURL: "http://127.0.0.1:1", model: "m", retries: "3" });
declare const env: {
  AI: { run(model: string, inputs: object): Promise<unknown> };
  KV: {
    get(key: string, type: "text"): Promise<string | null>;
    put(key: string, value: string, options?: { expirationTtl?: number }): Promise<void>;
  };
};
workersAI({ binding: env.AI, model: "@cf/meta/llama-3.1-8b-instruct" });
aiSdk({ model: languageModel, generateText });
aiSdk({ model: languageModel, maxOutputTokens: 1024 });
// contextfold/summarizers/ai-sdk: the same adapter, generateText imported from "ai".
expectType<Equal<typeof bundledAiSdk, typeof aiSdk>>();
bundledAiSdk({ model: languageModel, maxOutputTokens: 1024 });
// @ts-expect-error: the model is required
bundledAiSdk({ maxOutputTokens: 1024 });
// @ts-expect-error: generateText resolves to { text }
aiSdk({ model: languageModel, generateText: async () => "text" });
const error = new Error() as SummarizerError;
void (error.status satisfies number | undefined);

const cache: SummaryCache = memoryCache({ maxEntries: 100 });
const cached: CachedSummarizer = cachedSummarizer(claude, { cache, namespace: "claude" });
expectType<Equal<typeof cached.stats, { hits: number; misses: number; errors: number }>>();
await compact(messages, { summarizer: cached });
kvCache(env.KV, { ttlSeconds: 3600 });
kvCacheFromWorker(env.KV, { prefix: "s:" });
declare const cacheStorage: { default: Cache };
cacheApiCache(cacheStorage.default);
// @ts-expect-error: a cache has get and put
cachedSummarizer(claude, { cache: {}, namespace: "x" });

const middlewareOptions: CompactionMiddlewareOptions<typeof env> = {
  strategy: { name: "budget", keepRecent: 4 },
  contextWindows: { "gpt-4o": 128_000 },
  reserveTokens: 4096,
  createSummarizer: (e) => workersAI({ binding: e.AI, model: "@cf/meta/llama-3.1-8b-instruct" }),
  cache: (e) => kvCache(e.KV),
  onMalformed: "reject",
  onReport: (report: MiddlewareReport) => void report.afterTokens,
};
const handler = compactionMiddleware(middlewareOptions)(proxy({ upstream: "https://api.openai.com" }));
const response: Response = await handler(new Request("http://localhost/v1/chat/completions"), env, {});
compactionMiddleware({ maxTokens: 8000 })((request: Request) => new Response(request.body));
// @ts-expect-error: onMalformed is "forward" or "reject"
compactionMiddleware({ maxTokens: 8000, onMalformed: "drop" });
void response;
// Every entry that throws a ContextfoldError exports its guard.
expectType<Equal<typeof isContextfoldErrorOfSummarizers, typeof isContextfoldError>>();
expectType<Equal<typeof isContextfoldErrorOfWorker, typeof isContextfoldError>>();
