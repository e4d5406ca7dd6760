// `contextfold/ai-sdk`: compaction where Vercel AI SDK apps call their model. A language
// model middleware for `wrapLanguageModel` compacts the prompt of every call (generate
// and stream alike); `compactStep` does the same as an agent's `prepareStep`. Binary data
// of every kind the SDK accepts goes through as the caller's own values (./binary.js).
import { compact, integrationSettings, needsCompaction, withSignal } from "./api.js";
import { cachedSummarizer, memoryCache } from "./cache.js";
import { contextfoldError } from "./errors.js";
export { isContextfoldError } from "./errors.js";

/**
 * The compact options both take: AI SDK messages, a budget required, and `auto` in stable
 * mode by default (a model call gets the whole prompt every time: stable mode keeps the
 * compacted prefix the same from call to call, so a provider's prompt cache keeps paying).
 * @param {unknown} options
 * @param {string} who
 */
function settingsOf(options, who) {
  const { settings, own } = integrationSettings(who, options, {
    format: "aisdk",
    strategy: { name: "auto", stable: true },
    own: ["cache", "namespace"],
  });
  return withCache(settings, own.cache, own.namespace, who);
}

/**
 * `settings` with its summarizer behind a summary cache. Every call gets the whole
 * conversation again and compacts it again: without a cache each fold of the
 * conversation so far was summarized again on every call (calls growing with the
 * conversation), and an LLM never answers twice byte for byte, so the prefix the model
 * saw changed on every call. The default is a memory cache of this middleware's own
 * (any namespace will do: no other summarizer uses it); a store given (`cache`) may be
 * shared, so it takes the summarizer's identity. `cache: false` turns it off; the
 * built-in summarizer answers alike every time and is not cached.
 */
function withCache(settings, cache, namespace, who) {
  const { summarizer } = settings;
  if (cache === false || typeof summarizer !== "function") return settings;
  if (cache === undefined) {
    const own = summarizer.identity ?? "contextfold/ai-sdk";
    return { ...settings, summarizer: cachedSummarizer(summarizer, { cache: memoryCache(), namespace: own }) };
  }
  if (
    cache === null ||
    typeof cache !== "object" ||
    typeof cache.get !== "function" ||
    typeof cache.put !== "function"
  ) {
    throw contextfoldError(
      "invalid_option",
      `${who}: options.cache: must be a cache ({ get, put }) or false`,
      "options.cache",
    );
  }
  try {
    return { ...settings, summarizer: cachedSummarizer(summarizer, { cache, namespace }) };
  } catch (error) {
    throw contextfoldError("invalid_option", `${who}: ${error.message.replace(/^cachedSummarizer: /, "")}`, error.path);
  }
}

/** The compacted messages, or `messages` itself when nothing was to be done. */
async function compacted(messages, settings) {
  if (!Array.isArray(messages) || !needsCompaction(messages, settings)) return messages;
  const result = await compact(messages, settings);
  return result.changed ? result.messages : messages;
}

/**
 * `messages` as a language model prompt: a user, assistant or tool message's content is
 * an array of parts there (`LanguageModelV4Prompt`), where a `ModelMessage`, which the
 * core writes, may hold a lone text as a string (a summary, or a message left with one
 * text); providers read the string as parts and fail or send nothing.
 * @param {any[]} messages
 */
function asPrompt(messages) {
  return messages.map((m) =>
    m.role !== "system" && typeof m.content === "string" ? { ...m, content: [{ type: "text", text: m.content }] } : m,
  );
}

/** @type {typeof import("./ai-sdk.js").contextfoldMiddleware} */
export function contextfoldMiddleware(options) {
  const settings = settingsOf(options, "contextfoldMiddleware");
  return {
    specificationVersion: "v4",
    transformParams: async ({ params }) => {
      // The call's abort (a stop button, a closed request) cancels its summary calls too.
      const prompt = await compacted(params.prompt, withSignal(settings, params.abortSignal));
      return prompt === params.prompt ? params : { ...params, prompt: asPrompt(prompt) };
    },
  };
}

/** @type {typeof import("./ai-sdk.js").compactStep} */
export function compactStep(options) {
  const settings = settingsOf(options, "compactStep");
  return async ({ messages }) => {
    const out = await compacted(messages, settings);
    return out === messages ? {} : { messages: out };
  };
}
