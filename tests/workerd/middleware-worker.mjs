// A Cloudflare Worker in front of an LLM API, built from the package as a user would write
// it: `contextfold/worker` (its `workerd` condition, pkg/src/worker.workerd.js) wraps the
// `proxy` helper, the summaries come from an OpenAI-compatible endpoint through
// `contextfold/summarizers`, and they are cached in Workers KV.
//
// The upstream API and the summarizer endpoint are the test's loopback servers
// (env.UPSTREAM_URL, env.SUMMARIZER_URL). The test picks one of several middleware
// configurations with the `x-test-profile` request header (the only thing the Worker
// adds to a real deployment).
import { cacheApiCache, compactionMiddleware, kvCache, proxy } from "../../pkg/src/worker.workerd.js";
import { openAICompatible } from "../../pkg/src/summarizers.js";

const upstream = proxy({ upstream: (env) => env.UPSTREAM_URL });

/** What `onReport` was told, per profile; the test reads it at GET /__reports. */
const reports = [];
const onReport = (profile) => (report) => reports.push({ profile, ...report, report: undefined });

/** A secret the leaky summarizer's error echoes (as an API's error body may echo a key). */
const LEAKED = "sk-leaked-secret-5e6f7a8b9c0d";

const summarizer = (env) =>
  openAICompatible({
    baseURL: env.SUMMARIZER_URL,
    apiKey: env.SUMMARIZER_KEY,
    model: "mock-summarizer",
    retries: 2,
    retryDelayMs: 20,
  });

const profiles = {
  // A hard budget per model: window minus 1000 tokens for the answer (and the tools).
  budget: compactionMiddleware({
    strategy: "budget",
    contextWindows: { "gpt-test": 8000, "claude-test": 10000 },
    reserveTokens: 1000,
    createSummarizer: summarizer,
    cache: (env) => kvCache(env.SUMMARIES, { prefix: "budget:" }),
    maxBodyBytes: 512 * 1024,
    concurrency: 4,
  })(upstream),
  // The sections strategy, whose section summaries are stable as a conversation grows.
  sections: compactionMiddleware({
    strategy: "sections",
    maxTokens: 100_000,
    createSummarizer: summarizer,
    cache: (env) => kvCache(env.SUMMARIES, { prefix: "sections:", ttlSeconds: 3600 }),
  })(upstream),
  // The same with the Cache API (caches.default) as the summary cache.
  cacheapi: compactionMiddleware({
    strategy: "sections",
    maxTokens: 100_000,
    createSummarizer: summarizer,
    cache: () => cacheApiCache(caches.default),
  })(upstream),
  // Malformed bodies rejected with 400 instead of forwarded.
  reject: compactionMiddleware({ maxTokens: 4000, onMalformed: "reject", maxBodyBytes: 512 * 1024 })(upstream),
  // A custom summarizer whose errors quote a key: the header carries a code only.
  leaky: compactionMiddleware({
    maxTokens: 4000,
    summarizer: async () => {
      throw new Error(`401 from the model API: invalid api key ${LEAKED}`);
    },
    onReport: onReport("leaky"),
  })(upstream),
};

export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname === "/__reports") return Response.json({ reports, leaked: LEAKED });
    const handler = profiles[request.headers.get("x-test-profile") ?? "budget"];
    if (handler === undefined) return new Response("unknown profile", { status: 404 });
    return handler(request, env, ctx);
  },
};
