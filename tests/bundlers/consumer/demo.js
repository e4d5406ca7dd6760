// What every consumer build of tests/bundlers/ runs: the installed package imported by
// name, as an app would (its main entry, `contextfold/worker`, `contextfold/summarizers`,
// `contextfold/summarizers/ai-sdk`), called once before `init()` and then used for real:
// a compaction by the built-in summarizer, one through an HTTP summarizer adapter, one
// through an AI SDK model (`generateText` of the bundled `ai`), and one by the middleware.
import init, { compact, estimateTokens, extractiveSummarizer, History, validateChain } from "contextfold";
import { openAICompatible } from "contextfold/summarizers";
import { aiSdk } from "contextfold/summarizers/ai-sdk";
import { compactionMiddleware } from "contextfold/worker";
import { chain } from "./chain.js";

/** The error a call gives (`name/code: message`), or null when it succeeds. */
async function failure(call) {
  try {
    await call();
    return null;
  } catch (error) {
    return `${error?.name}/${error?.code}: ${error?.message}`;
  }
}

/** An OpenAI-compatible endpoint answered in-process: the adapter's `fetch` option. */
async function endpoint(url, request) {
  const { model } = JSON.parse(request.body);
  const message = { role: "assistant", content: `Summary by ${model} at ${new URL(url).host}.` };
  return Response.json({ choices: [{ index: 0, message, finish_reason: "stop" }] });
}

/** An AI SDK language model (the `LanguageModelV4` shape `ai`'s mock models have) answering in-process. */
const model = {
  specificationVersion: "v4",
  provider: "bundled",
  modelId: "mock",
  supportedUrls: {},
  async doGenerate() {
    return {
      content: [{ type: "text", text: "Summary by the AI SDK model." }],
      finishReason: { unified: "stop", raw: "stop" },
      usage: { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } },
      warnings: [],
    };
  },
  async doStream() {
    throw new Error("not used");
  },
};

/** Runs the checks; `initialize` is how this build initializes (most call a bare `init()`). */
export async function run(initialize = () => init()) {
  const beforeInit = {
    estimateTokens: await failure(() => estimateTokens("x")),
    compact: await failure(() => compact(chain())),
    History: await failure(() => new History()),
  };
  await initialize();
  const input = chain();

  const extractive = await compact(input, { maxTokens: 1000, summarizer: extractiveSummarizer() });
  const summarizer = openAICompatible({ baseURL: "https://summaries.test/v1", model: "bundled", fetch: endpoint });
  const adapted = await compact(input, { maxTokens: 1000, summarizer });
  const viaAiSdk = await compact(input, { maxTokens: 1000, summarizer: aiSdk({ model }) });

  const echo = async (request) => Response.json(await request.json());
  const middleware = compactionMiddleware({ strategy: "budget", maxTokens: 1500 })(echo);
  const response = await middleware(
    new Request("https://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: input }),
    }),
  );
  const forwarded = await response.json();

  const history = new History({ messages: input.slice(0, 3) });
  return {
    beforeInit,
    input: input.length,
    tokens: estimateTokens("hello world"),
    extractive: {
      output: extractive.messages.length,
      calls: extractive.report.calls,
      errors: extractive.report.errors.length,
      problems: validateChain(extractive.messages, { provider: "openai" }).length,
    },
    adapted: {
      output: adapted.messages.length,
      calls: adapted.report.calls,
      summaries: JSON.stringify(adapted.messages).split("Summary by bundled at summaries.test.").length - 1,
    },
    aiSdk: {
      calls: viaAiSdk.report.calls,
      errors: viaAiSdk.report.errors.map((e) => e.message),
      summaries: JSON.stringify(viaAiSdk.messages).split("Summary by the AI SDK model.").length - 1,
    },
    middleware: {
      status: response.status,
      error: response.headers.get("x-contextfold-error"),
      output: forwarded.messages.length,
      problems: validateChain(forwarded.messages, { provider: "openai" }).length,
    },
    history: history.length,
  };
}
