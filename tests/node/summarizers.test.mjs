// The summarizer adapters of `contextfold/summarizers` and the summary cache, against a
// mock LLM API served by this test on loopback (node:http on 127.0.0.1, random port):
// real fetch, real sockets. Delays are small so every retry test stays well under a second
// (except the one honouring a 1 s `retry-after`).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { after, before, beforeEach, describe, it } from "node:test";
import { APICallError } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { cachedSummarizer, compact, memoryCache, summaryCacheKey } from "contextfold";
import {
  PROMPT_VERSION,
  SummarizerError,
  aiSdk,
  anthropic,
  openAICompatible,
  retryAfterMs,
  workersAI,
} from "contextfold/summarizers";
import { aiSdk as bundledAiSdk } from "contextfold/summarizers/ai-sdk";
import { cacheApiCache, compactionMiddleware, kvCache, proxy } from "contextfold/worker";
import * as internal from "../../pkg/dist/internal.node.js"; // the core's key check, not part of the API
import { nearest } from "../../pkg/src/options.js";
import { aiSdk as defaultAiSdk } from "../../pkg/src/summarizers.js"; // what bundles get (not Node's twin)
import { openaiSections } from "../shared/chains.mjs";

const KEY = "sk-test-7f3a9c2e1b8d4f60a5e2";

/** A `ContextfoldError` with code `invalid_option` at `path`, whose message matches `message`. */
const invalidOption =
  (path, message = /./) =>
  (e) =>
    e instanceof Error &&
    e.name === "ContextfoldError" &&
    e.code === "invalid_option" &&
    e.path === path &&
    message.test(e.message);

/** A summary request as contextfold makes them. */
const request = (overrides = {}) => ({
  id: 0,
  kind: "section",
  prompt: "INSTRUCTIONS\n<transcript>user: hello</transcript>",
  instructions: "Summarize the transcript.",
  transcript: "<transcript>user: hello</transcript>",
  range: { start: 1, end: 3 },
  section: 0,
  targetBytes: 1000,
  wave: 0,
  ...overrides,
});

// --- the mock API -------------------------------------------------------------------------
let server;
let base;
/** Every request received: { method, url, headers, body, closedEarly }. */
let received;
/** Answers in order, each `(req, res, body) => void`; the last one repeats. */
let script;
/** Sockets of requests still open, so `after` can close them. */
const sockets = new Set();

function reply(status, json, headers = {}) {
  return (req, res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(typeof json === "string" ? json : JSON.stringify(json));
  };
}
const openAIAnswer = (text) => reply(200, { choices: [{ index: 0, message: { role: "assistant", content: text } }] });

before(async () => {
  server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const record = {
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: text ? JSON.parse(text) : null,
        closedEarly: false,
      };
      received.push(record);
      res.on("close", () => {
        if (!res.writableFinished) record.closedEarly = true;
      });
      const step = script[Math.min(received.length - 1, script.length - 1)];
      step(req, res, record);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});

after(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received = [];
  script = [openAIAnswer("A summary.")];
});

const fast = { retryDelayMs: 5, maxRetryDelayMs: 2000 };

/** The error a promise rejects with. */
async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("expected a rejection");
}

function assertNoKey(error) {
  for (const text of [error.message, String(error.stack), JSON.stringify(error), String(error)]) {
    assert.ok(!text.includes(KEY), `the API key leaked: ${text}`);
  }
}

describe("openAICompatible", () => {
  it("sends instructions as the system message and the transcript as the user message", async () => {
    const summarize = openAICompatible({
      baseURL: `${base}/v1/`,
      apiKey: KEY,
      model: "gpt-test",
      headers: { "x-extra": "yes" },
      temperature: 0.2,
    });
    assert.equal(
      summarize.identity,
      `openai-compatible:{"prompt":${PROMPT_VERSION},"url":"${base}/v1/chat/completions","model":"gpt-test","maxTokensField":"max_tokens","temperature":0.2,"body":{}}`,
    );
    assert.equal(await summarize(request(), {}), "A summary.");
    assert.equal(received.length, 1);
    const [r] = received;
    assert.equal(r.method, "POST");
    assert.equal(r.url, "/v1/chat/completions");
    assert.equal(r.headers.authorization, `Bearer ${KEY}`);
    assert.equal(r.headers["content-type"], "application/json");
    assert.equal(r.headers["x-extra"], "yes");
    assert.equal(r.body.model, "gpt-test");
    assert.deepEqual(r.body.messages, [
      { role: "system", content: "Summarize the transcript." },
      { role: "user", content: "<transcript>user: hello</transcript>" },
    ]);
    assert.equal(r.body.temperature, 0.2);
    assert.equal(r.body.max_tokens, 500, "derived from targetBytes");
  });

  it("sends no Authorization header without a key, and honours maxTokens / maxTokensField", async () => {
    const summarize = openAICompatible({
      baseURL: `${base}/v1`,
      model: "local",
      maxTokens: 77,
      maxTokensField: "max_completion_tokens",
    });
    await summarize(request(), {});
    assert.equal(received[0].headers.authorization, undefined);
    assert.equal(received[0].body.max_completion_tokens, 77);
    assert.equal(received[0].body.max_tokens, undefined);
  });

  it("retries 429 and 503 with backoff, honouring retry-after", async () => {
    script = [
      reply(429, { error: { message: "Rate limit reached" } }, { "retry-after": "1" }),
      reply(503, { error: { message: "overloaded" } }),
      openAIAnswer("Third time lucky."),
    ];
    const summarize = openAICompatible({ baseURL: `${base}/v1`, apiKey: KEY, model: "m", retries: 3, ...fast });
    const started = Date.now();
    assert.equal(await summarize(request(), {}), "Third time lucky.");
    const elapsed = Date.now() - started;
    assert.equal(received.length, 3);
    assert.ok(elapsed >= 950, `waited what retry-after asked (${elapsed} ms)`);
    assert.ok(elapsed < 3000, `and not much more (${elapsed} ms)`);
  });

  it("waits longer after each failure (exponential backoff)", async () => {
    const times = [];
    script = [
      (req, res) => {
        times.push(Date.now());
        reply(503, { error: { message: "busy" } })(req, res);
      },
    ];
    const summarize = openAICompatible({
      baseURL: `${base}/v1`,
      apiKey: KEY,
      model: "m",
      retries: 3,
      retryDelayMs: 40,
      maxRetryDelayMs: 1000,
    });
    const error = await rejection(summarize(request(), {}));
    assert.equal(received.length, 4, "1 attempt + 3 retries");
    assert.ok(error instanceof SummarizerError);
    assert.equal(error.status, 503);
    assert.match(error.message, /^HTTP 503 /);
    assert.match(error.message, /after 4 attempts/);
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    // Jittered between half and all of 40, 80, 160 ms.
    assert.ok(gaps[0] >= 15, `first gap ${gaps[0]}`);
    assert.ok(gaps[2] >= 70, `third gap ${gaps[2]}`);
    assert.ok(gaps[2] > gaps[0], `gaps grow: ${gaps}`);
  });

  it("never retries another 4xx", async () => {
    script = [reply(400, { error: { message: "messages: invalid" } })];
    const summarize = openAICompatible({ baseURL: `${base}/v1`, apiKey: KEY, model: "m", retries: 5, ...fast });
    const error = await rejection(summarize(request(), {}));
    assert.equal(received.length, 1);
    assert.equal(error.name, "SummarizerError");
    assert.equal(error.status, 400);
    assert.equal(error.retryable, false);
    assert.match(error.message, /^HTTP 400 Bad Request .*messages: invalid/);
  });

  it("gives up at once when retry-after asks more than maxRetryDelayMs", async () => {
    script = [reply(429, { error: { message: "slow down" } }, { "retry-after": "120" })];
    const summarize = openAICompatible({ baseURL: `${base}/v1`, apiKey: KEY, model: "m", retries: 3, ...fast });
    const error = await rejection(summarize(request(), {}));
    assert.equal(received.length, 1);
    assert.match(error.message, /HTTP 429 .*retry-after 120 s exceeds maxRetryDelayMs/);
  });

  it("never puts the API key in an error, even when the API echoes it", async () => {
    script = [reply(401, { error: { message: `Incorrect API key provided: ${KEY}. Header was Bearer ${KEY}` } })];
    const summarize = openAICompatible({ baseURL: `${base}/v1`, apiKey: KEY, model: "m", ...fast });
    const error = await rejection(summarize(request(), {}));
    assert.match(error.message, /^HTTP 401 /);
    assert.match(error.message, /\[redacted\]/);
    assertNoKey(error);

    // A network error (nothing listens on the port) is retried, then reported without the key.
    const closed = createServer();
    await new Promise((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = closed.address().port;
    await new Promise((resolve) => closed.close(resolve));
    const offline = openAICompatible({
      baseURL: `http://127.0.0.1:${port}/v1`,
      apiKey: KEY,
      model: "m",
      retries: 1,
      ...fast,
    });
    const networkError = await rejection(offline(request(), {}));
    assert.equal(networkError.code, "network");
    assert.equal(networkError.attempts, 2);
    assertNoKey(networkError);
  });

  it("forwards the abort signal: the HTTP request is cancelled", async () => {
    script = [() => {}]; // never answers
    const summarize = openAICompatible({ baseURL: `${base}/v1`, apiKey: KEY, model: "m", ...fast });
    const controller = new AbortController();
    const started = Date.now();
    const pending = summarize(request(), { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const error = await rejection(pending);
    assert.equal(error.name, "AbortError");
    assert.ok(Date.now() - started < 1000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(received.length, 1);
    assert.equal(received[0].closedEarly, true, "the server saw the request cancelled");
  });

  it("an already aborted signal makes no request; an abort during backoff stops the retries", async () => {
    const summarize = openAICompatible({
      baseURL: `${base}/v1`,
      apiKey: KEY,
      model: "m",
      retries: 5,
      retryDelayMs: 10_000,
      maxRetryDelayMs: 10_000,
    });
    const error = await rejection(summarize(request(), { signal: AbortSignal.abort() }));
    assert.equal(error.name, "AbortError");
    assert.equal(received.length, 0);

    script = [reply(503, { error: { message: "busy" } })];
    const controller = new AbortController();
    const pending = summarize(request(), { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    assert.equal((await rejection(pending)).name, "AbortError");
    assert.ok(Date.now() - started < 2000);
    assert.equal(received.length, 1);
  });

  it("bounds a call by request.timeoutMs", async () => {
    script = [() => {}];
    const summarize = openAICompatible({ baseURL: `${base}/v1`, apiKey: KEY, model: "m", ...fast });
    const error = await rejection(summarize(request({ timeoutMs: 80 }), {}));
    assert.equal(error.code, "timeout");
    assert.match(error.message, /timed out after 80 ms/);
  });

  it("an empty answer is an error", async () => {
    script = [openAIAnswer("  \n")];
    const summarize = openAICompatible({ baseURL: `${base}/v1`, apiKey: KEY, model: "m", ...fast });
    const error = await rejection(summarize(request(), {}));
    assert.equal(error.code, "empty");
    assert.equal(received.length, 1);
    script = [reply(200, "not json")];
    assert.equal((await rejection(summarize(request(), {}))).code, "invalid_response");
  });

  it("an answer the model did not finish or refused is an error, never a summary", async () => {
    // Taken for a summary, half a sentence replaced the history it stood for.
    const summarize = openAICompatible({ baseURL: `${base}/v1`, apiKey: KEY, model: "m", ...fast });
    for (const finish_reason of ["length", "content_filter"]) {
      script = [
        reply(200, { choices: [{ index: 0, message: { role: "assistant", content: "## User requ" }, finish_reason }] }),
      ];
      const error = await rejection(summarize(request(), {}));
      assert.equal(error.code, "model", finish_reason);
      assert.match(error.message, new RegExp(finish_reason));
    }
    script = [
      reply(200, { choices: [{ index: 0, message: { role: "assistant", content: "Done." }, finish_reason: "stop" }] }),
    ];
    assert.equal(await summarize(request(), {}), "Done.");
  });

  it("an answer that stopped to call a tool, or spent its output limit thinking, is an error", async () => {
    // A tool call's preamble ("Let me look that up.") was taken for the summary; a
    // reasoning model that thought until its limit was reported "empty", hiding the limit.
    const summarize = openAICompatible({ baseURL: `${base}/v1`, apiKey: KEY, model: "m", ...fast });
    const call = { id: "call_1", type: "function", function: { name: "search", arguments: "{}" } };
    const cases = [
      [{ role: "assistant", content: "Let me look that up.", tool_calls: [call] }, "tool_calls", /call a tool/],
      [{ role: "assistant", content: "Let me look.", function_call: call.function }, "function_call", /call a tool/],
      [{ role: "assistant", content: "" }, "length", /raise maxTokens/],
      [{ role: "assistant", content: null, reasoning_content: "long thoughts" }, "length", /raise maxTokens/],
    ];
    for (const [message, finish_reason, hint] of cases) {
      script = [reply(200, { choices: [{ index: 0, message, finish_reason }] })];
      const error = await rejection(summarize(request(), {}));
      assert.equal(error.code, "model", finish_reason);
      assert.match(error.message, new RegExp(`stopped before the summary was done \\(${finish_reason}\\)`));
      assert.match(error.message, hint);
    }
  });

  it("a reasoning model's inline <think> block is never the summary", async () => {
    // vLLM, Ollama, llama.cpp and LM Studio put Qwen3's or DeepSeek-R1's reasoning inline
    // before the answer: it was returned, then cut to the target, and the summary lost.
    const summarize = openAICompatible({ baseURL: `${base}/v1`, model: "qwen3-8b", ...fast });
    const answer = (content, finish_reason = "stop") =>
      reply(200, { choices: [{ index: 0, message: { role: "assistant", content }, finish_reason }] });
    const kept = (text) => [text, text];
    const cases = [
      ["<think>\nThe user wants a summary.\n</think>\n\n## Summary\n- done", "## Summary\n- done"],
      ["\n <thinking>hmm</thinking>## Summary", "## Summary"],
      // DeepSeek-R1's chat template opens the block: the answer has only its closing tag.
      ["Okay, so the user wants a summary.\n</think>\n\n## Summary\n- done", "## Summary\n- done"],
      // A summary that only mentions the tags is the summary.
      kept("## Summary\n- strips `<think>` ... `</think>` from answers"),
      kept("## Summary\n- the parser stops at\n`</think>`"),
      kept("## Summary\n- <think>\n</think>\n was parsed"),
    ];
    for (const [content, summary] of cases) {
      script = [answer(content)];
      assert.equal(await summarize(request(), {}), summary, content);
    }
    for (const content of ["<think>\nonly thoughts\n</think>\n", "<think>\nthoughts, never closed"]) {
      script = [answer(content)];
      const error = await rejection(summarize(request(), {}));
      assert.equal(error.code, "empty", content);
      assert.match(error.message, /only its reasoning/);
    }
    script = [answer("<think>\nthoughts cut at the limit", "length")];
    assert.equal((await rejection(summarize(request(), {}))).code, "model");
  });

  it("a 200 whose body is an error reports the provider's message", async () => {
    // It was "answered without choices". OpenRouter sends the upstream's status in `code`.
    const summarize = openAICompatible({ baseURL: `${base}/v1`, apiKey: KEY, model: "m", retries: 1, ...fast });
    script = [reply(200, { error: { message: "Upstream model crashed", code: 502 } }), openAIAnswer("Recovered.")];
    assert.equal(await summarize(request(), {}), "Recovered.", "a 5xx in the body is retried");
    assert.equal(received.length, 2);
    received = [];
    script = [reply(200, { error: { message: `No endpoints found (key ${KEY})`, code: 404 } })];
    let error = await rejection(summarize(request(), {}));
    assert.equal(received.length, 1, "a 4xx in the body is not retried");
    assert.equal(error.code, "http");
    assert.equal(error.status, 404);
    assert.match(error.message, /answered HTTP 200 with an error \(404\): No endpoints found/);
    assertNoKey(error);
    script = [reply(200, { error: { message: "The model failed", type: "server_error" } })];
    error = await rejection(summarize(request(), {}));
    assert.equal(error.code, "model");
    assert.match(error.message, /with an error: The model failed/);
    const claude = anthropic({ apiKey: KEY, model: "c", baseURL: base, ...fast });
    script = [reply(200, { type: "error", error: { type: "api_error", message: "Internal trouble" } })];
    error = await rejection(claude(request(), {}));
    assert.equal(error.code, "model");
    assert.match(error.message, /with an error: Internal trouble/);
  });

  it("keeps the key out of the status text, and a base URL's query after the path", async () => {
    script = [
      (req, res) => {
        res.writeHead(401, `Invalid key ${KEY}`, { "content-type": "application/json" });
        res.end("{}");
      },
    ];
    const summarize = openAICompatible({ baseURL: `${base}/v1`, apiKey: KEY, model: "m", ...fast });
    const error = await rejection(summarize(request(), {}));
    assert.equal(error.status, 401);
    assertNoKey(error);
    // An Azure deployment: /chat/completions before ?api-version=.
    script = [openAIAnswer("A summary.")];
    const azure = openAICompatible({
      baseURL: `${base}/openai/deployments/gpt?api-version=2024-10-21`,
      apiKey: KEY,
      model: "m",
    });
    assert.equal(await azure(request(), {}), "A summary.");
    assert.equal(received.at(-1).url, "/openai/deployments/gpt/chat/completions?api-version=2024-10-21");
  });

  it("rejects bad options when created", () => {
    assert.throws(() => openAICompatible({ apiKey: KEY, model: "m" }), invalidOption("options.baseURL", /required/));
    assert.throws(() => openAICompatible({ baseURL: "not a url", model: "m" }), invalidOption("options.baseURL"));
    assert.throws(() => openAICompatible({ baseURL: base, apiKey: KEY }), invalidOption("options.model"));
    assert.throws(() => openAICompatible({ baseURL: base, model: "m", retries: -1 }), invalidOption("options.retries"));
    // fetch refuses a URL with credentials: every call failed, printing the password.
    const withPassword = base.replace("http://", "http://user:S3cret@");
    for (const make of [openAICompatible, anthropic]) {
      assert.throws(
        () => make({ baseURL: withPassword, apiKey: KEY, model: "m" }),
        invalidOption("options.baseURL", /^(?!.*S3cret).*without user:password@/),
      );
    }
  });

  it("compacts a chain through compact()", async () => {
    script = [
      (req, res, record) => {
        openAIAnswer(`Summary of ${record.body.messages[1].content.length} bytes.`)(req, res);
      },
    ];
    const summarize = openAICompatible({ baseURL: `${base}/v1`, apiKey: KEY, model: "m", ...fast });
    const result = await compact(openaiSections(4), { strategy: "sections", summarizer: summarize, concurrency: 2 });
    assert.equal(result.changed, true);
    assert.deepEqual(result.report.errors, []);
    assert.equal(received.length, result.report.calls);
    assert.ok(result.report.after.bytes < result.report.before.bytes);
  });
});

describe("anthropic", () => {
  const anthropicAnswer = (blocks) => reply(200, { type: "message", role: "assistant", content: blocks });

  it("calls the Messages API with the system prompt, version and key headers", async () => {
    script = [
      anthropicAnswer([
        { type: "thinking", thinking: "hmm" },
        { type: "text", text: "Part one. " },
        { type: "text", text: "Part two." },
      ]),
    ];
    const summarize = anthropic({ apiKey: KEY, model: "claude-test", baseURL: base, maxTokens: 300 });
    assert.equal(
      summarize.identity,
      `anthropic:{"prompt":${PROMPT_VERSION},"url":"${base}/v1/messages","model":"claude-test","version":"2023-06-01","maxTokens":300,"body":{}}`,
    );
    assert.equal(await summarize(request(), {}), "Part one. Part two.");
    const [r] = received;
    assert.equal(r.url, "/v1/messages");
    assert.equal(r.headers["x-api-key"], KEY);
    assert.equal(r.headers["anthropic-version"], "2023-06-01");
    assert.equal(r.headers.authorization, undefined);
    assert.deepEqual(r.body, {
      model: "claude-test",
      max_tokens: 300,
      system: "Summarize the transcript.",
      messages: [{ role: "user", content: "<transcript>user: hello</transcript>" }],
    });
  });

  it("retries 529 (overloaded) and maps the final error with its status", async () => {
    script = [reply(529, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } })];
    const summarize = anthropic({ apiKey: KEY, model: "c", baseURL: base, retries: 2, ...fast });
    const error = await rejection(summarize(request(), {}));
    assert.equal(received.length, 3);
    assert.equal(error.status, 529);
    assert.match(error.message, /^HTTP 529 .*Overloaded .*after 3 attempts/);
    assertNoKey(error);
  });

  it("does not retry 401 and never shows the key", async () => {
    script = [
      reply(401, { type: "error", error: { type: "authentication_error", message: `invalid x-api-key ${KEY}` } }),
    ];
    const summarize = anthropic({ apiKey: KEY, model: "c", baseURL: base, ...fast });
    const error = await rejection(summarize(request(), {}));
    assert.equal(received.length, 1);
    assert.match(error.message, /^HTTP 401 /);
    assertNoKey(error);
  });

  it("an answer without text is an error", async () => {
    script = [anthropicAnswer([])];
    const summarize = anthropic({ apiKey: KEY, model: "c", baseURL: base, ...fast });
    assert.equal((await rejection(summarize(request(), {}))).code, "empty");
  });

  it("an answer cut at max_tokens or refused is an error", async () => {
    const summarize = anthropic({ apiKey: KEY, model: "c", baseURL: base, ...fast });
    for (const stop_reason of ["max_tokens", "refusal"]) {
      script = [
        reply(200, {
          role: "assistant",
          content: [{ type: "text", text: "## User requ" }],
          stop_reason,
          type: "message",
        }),
      ];
      assert.equal((await rejection(summarize(request(), {}))).code, "model", stop_reason);
    }
  });

  it("an answer that stopped to use a tool, paused, or thought until max_tokens is an error", async () => {
    const summarize = anthropic({ apiKey: KEY, model: "c", baseURL: base, ...fast });
    const preamble = { type: "text", text: "Let me look that up first." };
    const cases = [
      [[preamble, { type: "tool_use", id: "toolu_1", name: "search", input: {} }], "tool_use", /call a tool/],
      [
        [preamble, { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} }],
        "pause_turn",
        /paused/,
      ],
      [[{ type: "thinking", thinking: "long thoughts", signature: "sig" }], "max_tokens", /raise maxTokens/],
    ];
    for (const [content, stop_reason, hint] of cases) {
      script = [reply(200, { type: "message", role: "assistant", content, stop_reason })];
      const error = await rejection(summarize(request(), {}));
      assert.equal(error.code, "model", stop_reason);
      assert.match(error.message, hint);
    }
  });
});

describe("workersAI", () => {
  it("runs the model with system and user messages, and retries capacity errors", async () => {
    const calls = [];
    const binding = {
      async run(model, inputs, options) {
        calls.push({ model, inputs, options });
        if (calls.length === 1) throw new Error("3040: Capacity temporarily exceeded, please try again.");
        return { response: "A Workers AI summary." };
      },
    };
    const summarize = workersAI({ binding, model: "@cf/meta/llama-3.1-8b-instruct", ...fast });
    assert.equal(
      summarize.identity,
      `workers-ai:{"prompt":${PROMPT_VERSION},"model":"@cf/meta/llama-3.1-8b-instruct","runOptions":{}}`,
    );
    const controller = new AbortController();
    assert.equal(await summarize(request(), { signal: controller.signal }), "A Workers AI summary.");
    assert.equal(calls.length, 2);
    assert.equal(calls[0].model, "@cf/meta/llama-3.1-8b-instruct");
    assert.deepEqual(calls[0].inputs.messages, [
      { role: "system", content: "Summarize the transcript." },
      { role: "user", content: "<transcript>user: hello</transcript>" },
    ]);
    assert.deepEqual(calls[0].options, {}, "no signal in the options: the binding sends them upstream");
  });

  it("does not retry a bad request, and an abort wins over a slow binding", async () => {
    let count = 0;
    const failing = workersAI({
      binding: {
        run: async () => {
          count++;
          throw Object.assign(new Error("5006: bad input"), { status: 400 });
        },
      },
      model: "m",
      ...fast,
    });
    const error = await rejection(failing(request(), {}));
    assert.equal(count, 1);
    assert.match(error.message, /^HTTP 400 /);

    const slow = workersAI({ binding: { run: () => new Promise(() => {}) }, model: "m" });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    assert.equal((await rejection(slow(request(), { signal: controller.signal }))).name, "AbortError");
  });
});

describe("aiSdk", () => {
  const generated = (text) => ({
    content: [{ type: "text", text }],
    finishReason: { unified: "stop", raw: undefined },
    usage: {
      inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 5, text: 5, reasoning: undefined },
    },
    warnings: [],
  });

  it("calls generateText (imported from `ai`) with the system prompt and the transcript", async () => {
    const model = new MockLanguageModelV4({
      provider: "mock",
      modelId: "mock-1",
      doGenerate: async () => generated("An SDK summary."),
    });
    const summarize = aiSdk({ model, maxOutputTokens: 123 });
    assert.equal(
      summarize.identity,
      `ai-sdk:{"prompt":${PROMPT_VERSION},"provider":"mock","model":"mock-1","maxOutputTokens":123}`,
    );
    const controller = new AbortController();
    assert.equal(await summarize(request(), { signal: controller.signal }), "An SDK summary.");
    assert.equal(model.doGenerateCalls.length, 1);
    const call = model.doGenerateCalls[0];
    assert.equal(call.maxOutputTokens, 123);
    assert.ok(call.abortSignal instanceof AbortSignal);
    const system = call.prompt.find((m) => m.role === "system");
    const user = call.prompt.find((m) => m.role === "user");
    assert.equal(system.content, "Summarize the transcript.");
    assert.deepEqual(user.content, [{ type: "text", text: "<transcript>user: hello</transcript>" }]);
  });

  it("maps an API error to its status; the signal aborts the call", async () => {
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        throw new APICallError({
          message: "Too Many Requests",
          url: "http://127.0.0.1/x",
          requestBodyValues: {},
          statusCode: 429,
          isRetryable: false,
        });
      },
    });
    const error = await rejection(aiSdk({ model, retries: 0 })(request(), {}));
    assert.equal(error.name, "SummarizerError");
    assert.equal(error.status, 429);
    assert.match(error.message, /^HTTP 429 /);

    const hanging = new MockLanguageModelV4({
      doGenerate: ({ abortSignal }) =>
        new Promise((resolve, reject) => abortSignal.addEventListener("abort", () => reject(abortSignal.reason))),
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    assert.equal(
      (await rejection(aiSdk({ model: hanging })(request(), { signal: controller.signal }))).name,
      "AbortError",
    );
  });

  it("takes generateText as an option; an empty text is an error", async () => {
    let seen;
    const summarize = aiSdk({
      model: { provider: "p", modelId: "x" },
      generateText: async (options) => {
        seen = options;
        return { text: "" };
      },
    });
    assert.equal((await rejection(summarize(request(), {}))).code, "empty");
    assert.equal(seen.system, "Summarize the transcript.");
    assert.equal(seen.prompt, "<transcript>user: hello</transcript>");
  });

  it("a text left for a tool call, or none at the output limit, is an error; inline reasoning is dropped", async () => {
    const model = { provider: "openai.responses", modelId: "gpt-5-mini" };
    const answering = (result) => aiSdk({ model, generateText: async () => result });
    for (const [result, hint] of [
      [{ text: "Let me look that up.", finishReason: "tool-calls" }, /call a tool/],
      [{ text: "", finishReason: "length" }, /raise maxTokens \(aiSdk: maxOutputTokens\)/],
      [{ text: "", finishReason: { unified: "length", raw: "max_tokens" } }, /raise maxTokens/],
    ]) {
      const error = await rejection(answering(result)(request(), {}));
      assert.equal(error.code, "model", JSON.stringify(result));
      assert.match(error.message, hint);
    }
    const text = "<think>\nreasoning\n</think>\n\n## Summary";
    assert.equal(await answering({ text, finishReason: "stop" })(request(), {}), "## Summary");
  });

  it("the identity holds the endpoint the AI SDK model shows, so caches never cross endpoints", async () => {
    // It was only provider and model id: two `createOpenAI({ baseURL })` models of one model
    // id shared cached summaries. `ai`'s own gateway models keep it in `config.baseURL`;
    // @ai-sdk/openai's chat models in a `config.url({ path })` function.
    const { createGateway } = await import("ai");
    const gateway = (baseURL) => createGateway({ baseURL, apiKey: "k" })("openai/gpt-4o-mini");
    const chat = (baseURL) => ({
      provider: "openai.chat",
      modelId: "gpt-4o-mini",
      config: { provider: "openai.chat", url: ({ path }) => `${baseURL}${path}` },
    });
    const made = [];
    const generateText = async ({ model }) => {
      const where = model.config.baseURL ?? model.config.url({ path: "" });
      made.push(where);
      return { text: `from ${where}`, finishReason: "stop" };
    };
    const cache = memoryCache();
    for (const model of [gateway("https://a.example"), gateway("https://b.example"), chat("https://a.example/v1")]) {
      const summarize = cachedSummarizer(aiSdk({ model, generateText }), { cache });
      assert.equal(await summarize(request(), {}), `from ${made.at(-1)}`);
      assert.equal(summarize.stats.misses, 1, `${summarize.identity} got another endpoint's summary`);
    }
    assert.deepEqual(made, ["https://a.example", "https://b.example", "https://a.example/v1"]);
    assert.match(
      aiSdk({ model: chat("https://c.example/v1"), generateText }).identity,
      /"endpoint":"https:\/\/c\.example\/v1"/,
    );
    assert.equal(
      aiSdk({ model: gateway("https://a.example"), generateText }).identity,
      aiSdk({ model: gateway("https://a.example"), generateText }).identity,
      "the same endpoint: one identity",
    );
    // A model that shows no endpoint (or whose config throws) has none in its identity.
    const hidden = {
      provider: "p",
      modelId: "x",
      get config() {
        throw new Error("private");
      },
    };
    assert.doesNotMatch(aiSdk({ model: hidden, generateText }).identity, /endpoint/);
  });

  it("contextfold/summarizers/ai-sdk imports generateText from `ai` by name: the adapter, cached alike", async () => {
    const model = new MockLanguageModelV4({ provider: "mock", modelId: "m", doGenerate: async () => generated("S.") });
    const summarize = bundledAiSdk({ model, maxOutputTokens: 50 });
    assert.equal(summarize.identity, aiSdk({ model, maxOutputTokens: 50 }).identity, "one identity, one cache");
    assert.equal(await summarize(request(), {}), "S.");
    assert.equal(model.doGenerateCalls.length, 1);
    const error = await rejection(
      bundledAiSdk({ model: { provider: "p", modelId: "x" }, generateText: async () => ({ text: "" }) })(request(), {}),
    );
    assert.ok(error instanceof SummarizerError, "the same SummarizerError class as contextfold/summarizers");
    assert.throws(
      () => bundledAiSdk({ model, maxRetries: 1 }),
      invalidOption("options.maxRetries", /did you mean retries\?/),
    );
    const source = readFileSync(new URL("../../pkg/src/summarizers-ai-sdk.js", import.meta.url), "utf8");
    assert.match(source, /^import \{ generateText \} from "ai";$/m, "a static import a bundler follows");
  });

  it("outside Node, contextfold/summarizers has no import() and points to .../summarizers/ai-sdk", () => {
    // Every runtime but Node gets pkg/src/summarizers.js: an import() of a computed name
    // there is what no bundler can include and what makes workerd refuse the bundle.
    const source = readFileSync(new URL("../../pkg/src/summarizers.js", import.meta.url), "utf8");
    const code = source
      .split("\n")
      .filter((line) => !/^\s*(\/\/|\/?\*)/.test(line)) // comments: JSDoc's `import("./x.js").T` types
      .join("\n");
    assert.doesNotMatch(code, /\bimport\s*\(/);
    assert.throws(
      () => defaultAiSdk({ model: { provider: "p", modelId: "x" } }),
      invalidOption("options.generateText", /import \{ aiSdk \} from "contextfold\/summarizers\/ai-sdk"/),
    );
    // Given generateText, the default build's adapter works as the Node one does.
    assert.equal(typeof defaultAiSdk({ model: "m", generateText: async () => ({ text: "x" }) }), "function");
  });
});

describe("retryAfterMs", () => {
  it("reads retry-after-ms, seconds and HTTP dates", () => {
    assert.equal(retryAfterMs(new Headers({ "retry-after-ms": "250" })), 250);
    assert.equal(retryAfterMs(new Headers({ "retry-after": "2" })), 2000);
    const date = retryAfterMs(new Headers({ "retry-after": new Date(Date.now() + 5000).toUTCString() }));
    assert.ok(date > 3000 && date <= 5000, String(date));
    assert.equal(retryAfterMs(new Headers({ "retry-after": "soon" })), undefined);
    assert.equal(retryAfterMs(new Headers()), undefined);
  });
});

describe("cachedSummarizer", () => {
  it("calls the summarizer once per distinct request and counts hits and misses", async () => {
    let calls = 0;
    const inner = async (r) => {
      calls++;
      return `summary of ${r.prompt.length}`;
    };
    const summarize = cachedSummarizer(inner, { cache: memoryCache(), namespace: "m1" });
    assert.equal(await summarize(request(), {}), await summarize(request({ id: 7, wave: 2 }), {}));
    assert.equal(calls, 1, "id and wave are not part of the key");
    await summarize(request({ prompt: "other" }), {});
    await summarize(request({ kind: "pair" }), {});
    await summarize(request({ targetBytes: 10 }), {});
    assert.equal(calls, 4);
    assert.deepEqual({ ...summarize.stats }, { hits: 1, misses: 4, errors: 0 });
  });

  it("keys by namespace, kind, targetBytes and prompt (SHA-256)", async () => {
    const key = await summaryCacheKey("m1", request());
    assert.match(key, /^[0-9a-f]{64}$/);
    assert.equal(key, await summaryCacheKey("m1", request({ id: 3 })));
    assert.notEqual(key, await summaryCacheKey("m2", request()));
    assert.notEqual(key, await summaryCacheKey("m1", request({ kind: "pair" })));
    assert.notEqual(key, await summaryCacheKey("m1", request({ prompt: "x" })));
  });

  it("shares one call between identical concurrent requests", async () => {
    let calls = 0;
    const inner = async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 30));
      return "shared";
    };
    const cache = memoryCache();
    const a = cachedSummarizer(inner, { cache, namespace: "n" });
    const b = cachedSummarizer(inner, { cache, namespace: "n" });
    const results = await Promise.all([a(request(), {}), b(request(), {}), a(request(), {})]);
    assert.deepEqual(results, ["shared", "shared", "shared"]);
    assert.equal(calls, 1);
    assert.equal(a.stats.misses + b.stats.misses, 1);
  });

  it("does not cache failures or empty answers, and survives a broken cache", async () => {
    let answer = "";
    const summarize = cachedSummarizer(async () => answer, { cache: memoryCache(), namespace: "n" });
    assert.equal(await summarize(request(), {}), "");
    answer = "now";
    assert.equal(await summarize(request(), {}), "now");
    const broken = {
      get: async () => {
        throw new Error("down");
      },
      put: async () => {
        throw new Error("down");
      },
    };
    const resilient = cachedSummarizer(async () => "ok", { cache: broken, namespace: "n" });
    assert.equal(await resilient(request(), {}), "ok");
    assert.equal(resilient.stats.errors, 2);
  });

  it("uses the adapter's identity as namespace and requires one otherwise", async () => {
    const summarize = openAICompatible({ baseURL: `${base}/v1`, model: "m" });
    assert.equal(cachedSummarizer(summarize, { cache: memoryCache() }).identity, summarize.identity);
    assert.throws(
      () => cachedSummarizer(async () => "x", { cache: memoryCache() }),
      invalidOption("options.namespace"),
    );
    assert.throws(() => cachedSummarizer(async () => "x", { namespace: "n" }), invalidOption("options.cache"));
  });

  // Issue 14: the identity ignored baseURL and generation parameters, so a summary made
  // by one endpoint was served for another with the same model name.
  it("a summary made by one endpoint or with other parameters is not served for another", async () => {
    const cache = memoryCache();
    const made = [];
    const answering = (tag) => async (url, init) => {
      made.push(tag);
      return new Response(JSON.stringify({ choices: [{ message: { role: "assistant", content: `from ${tag}` } }] }));
    };
    const adapters = [
      ["a", { baseURL: "https://a.example/v1" }],
      ["b", { baseURL: "https://b.example/v1" }],
      ["a-hot", { baseURL: "https://a.example/v1", temperature: 1.5 }],
      ["a-long", { baseURL: "https://a.example/v1", maxTokens: 4000 }],
      ["a-body", { baseURL: "https://a.example/v1", body: { top_p: 0.1 } }],
    ];
    for (const [tag, options] of adapters) {
      const summarize = cachedSummarizer(openAICompatible({ model: "same-model", fetch: answering(tag), ...options }), {
        cache,
      });
      assert.equal(await summarize(request(), {}), `from ${tag}`, `${tag} got another endpoint's summary`);
      assert.equal(summarize.stats.misses, 1);
    }
    assert.deepEqual(
      made,
      adapters.map(([tag]) => tag),
    );
    // The same endpoint and parameters again: answered from the cache.
    const again = cachedSummarizer(
      openAICompatible({ model: "same-model", fetch: answering("b2"), baseURL: "https://b.example/v1" }),
      { cache },
    );
    assert.equal(await again(request(), {}), "from b");
    assert.equal(again.stats.hits, 1);
    const claude = (baseURL) => anthropic({ apiKey: KEY, model: "c", baseURL }).identity;
    assert.notEqual(claude("https://x.example"), claude("https://y.example"));
    assert.match(claude("https://x.example"), new RegExp(`"prompt":${PROMPT_VERSION}`));
  });

  it("memoryCache evicts the least recently used entry", async () => {
    const cache = memoryCache({ maxEntries: 2 });
    await cache.put("a", "1");
    await cache.put("b", "2");
    await cache.get("a");
    await cache.put("c", "3");
    assert.equal(await cache.get("b"), undefined);
    assert.equal(await cache.get("a"), "1");
    assert.equal(await cache.get("c"), "3");
    assert.equal(cache.size, 2);
  });

  it("replaying a growing conversation makes each summary call once", async () => {
    const prompts = new Map();
    const summarize = cachedSummarizer(
      async (r) => {
        prompts.set(r.prompt, (prompts.get(r.prompt) ?? 0) + 1);
        return `Summary ${prompts.size}.`;
      },
      { cache: memoryCache(), namespace: "n" },
    );
    let calls = 0;
    for (let turn = 3; turn <= 12; turn++) {
      calls += (await compact(openaiSections(turn), { strategy: "sections", summarizer: summarize })).report.calls;
    }
    assert.ok(prompts.size > 0);
    assert.deepEqual(
      [...prompts.values()].filter((n) => n !== 1),
      [],
      "every distinct prompt summarized once",
    );
    assert.equal(summarize.stats.misses, prompts.size);
    assert.equal(summarize.stats.hits, calls - prompts.size);
    assert.ok(summarize.stats.hits > summarize.stats.misses);
  });
});

describe("contextfold/worker in Node (a fetch-style server)", () => {
  it("wraps a plain (request) => Response handler; onReport gets figures, never headers", async () => {
    const reports = [];
    let forwarded;
    const handler = compactionMiddleware({
      maxTokens: 1500,
      summarizer: openAICompatible({ baseURL: `${base}/v1`, apiKey: KEY, model: "m", ...fast }),
      cache: memoryCache(),
      onReport: (r) => reports.push(r),
    })(async (incoming) => {
      forwarded = await incoming.json();
      return new Response("upstream answer", { status: 201 });
    });
    const body = { model: "gpt", messages: openaiSections(10), temperature: 0 };
    const response = await handler(
      new Request("http://localhost/v1/chat/completions", {
        method: "POST",
        headers: { authorization: "Bearer sk-client-secret-123456" },
        body: JSON.stringify(body),
      }),
    );
    assert.equal(response.status, 201);
    assert.equal(await response.text(), "upstream answer");
    assert.equal(reports.length, 1);
    const [r] = reports;
    assert.equal(r.compacted, true);
    assert.equal(r.model, "gpt");
    assert.equal(String(r.afterTokens), response.headers.get("x-contextfold-after-tokens"));
    assert.ok(r.afterTokens <= 1500);
    assert.equal(r.cacheMisses, received.length, "each miss was one summarizer call");
    assert.ok(!JSON.stringify(r).includes("sk-client-secret-123456"));
    assert.ok(
      !JSON.stringify(received).includes("sk-client-secret-123456"),
      "the client's key never reaches the summarizer",
    );
    assert.equal(forwarded.temperature, 0);
    assert.ok(forwarded.messages.length < body.messages.length);
  });

  it("rejects bad options when created", () => {
    assert.throws(() => compactionMiddleware({}), /maxTokens or options.contextWindows/);
    // Issue 14: bad options are ContextfoldErrors with a path (they were TypeErrors).
    assert.throws(
      () => compactionMiddleware({ maxTokens: 100, onMalformed: "drop" }),
      (e) => e.name === "ContextfoldError" && e.code === "invalid_option" && e.path === "options.onMalformed",
    );
    assert.throws(
      () => compactionMiddleware({ maxTokens: 100, cache: memoryCache(), summarizer: async () => "x" }),
      /namespace/,
    );
    assert.throws(() => compactionMiddleware({ maxTokens: 100 })(42), invalidOption("handler", /fetch handler/));
    assert.throws(() => proxy({ upstream: "nope" }), invalidOption("options.upstream"));
  });

  // Issue 14: an unknown option was silently ignored (a misspelt maxTokens meant no budget).
  it("rejects an unknown option, naming the nearest known one; every declared option is known", () => {
    assert.throws(
      () => compactionMiddleware({ maxToken: 100 }),
      (e) =>
        e.name === "ContextfoldError" &&
        e.code === "invalid_option" &&
        e.path === "options.maxToken" &&
        /did you mean maxTokens\?/.test(e.message),
    );
    let listed;
    try {
      compactionMiddleware({ maxTokens: 100, somethingElse: 1 });
    } catch (e) {
      assert.equal(e.path, "options.somethingElse");
      listed = /known options: (.*)$/.exec(e.message)[1].split(", ");
    }
    // Strategy settings are checked when the middleware is made, by compact's reader.
    assert.throws(
      () => compactionMiddleware({ maxTokens: 100, strategy: { name: "budget", keepRecnt: 2 } }),
      (e) =>
        e.code === "invalid_option" &&
        e.path === "options.strategy.keepRecnt" &&
        /did you mean keepRecent\?/.test(e.message),
    );
    assert.throws(
      () => compactionMiddleware({ maxTokens: 100, strategy: "nope" }),
      (e) => e.path === "options.strategy",
    );
    compactionMiddleware({ contextWindows: { m: 1000 }, strategy: { name: "budget", keepRecent: 2 } });
    const declaration = readFileSync(new URL("../../pkg/src/worker.d.ts", import.meta.url), "utf8");
    const block = /export interface CompactionMiddlewareOptions<Env = unknown> \{([\s\S]*?)\n\}/.exec(declaration)[1];
    const declared = [...block.matchAll(/^ {4}(\w+)\?:/gm)].map((m) => m[1]);
    assert.deepEqual([...listed].sort(), [...declared].sort());
  });

  it("proxy forwards path, query, body and headers (minus the client's hop headers) upstream", async () => {
    script = [reply(200, { ok: true }, { "x-answer": "1" })];
    const forward = proxy({ upstream: `${base}/base/`, headers: (env) => ({ "x-injected": env.VALUE }) });
    const response = await forward(
      new Request("http://client.example/v1/chat/completions?x=1", {
        method: "POST",
        headers: {
          authorization: `Bearer ${KEY}`,
          "cf-connecting-ip": "203.0.113.1",
          "x-forwarded-for": "203.0.113.1",
          "content-type": "application/json",
        },
        body: JSON.stringify({ model: "m", messages: [] }),
      }),
      { VALUE: "from-env" },
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-answer"), "1");
    const [r] = received;
    assert.equal(r.url, "/base/v1/chat/completions?x=1");
    assert.equal(r.headers.authorization, `Bearer ${KEY}`);
    assert.equal(r.headers["x-injected"], "from-env");
    assert.equal(r.headers["cf-connecting-ip"], undefined);
    assert.equal(r.headers["x-forwarded-for"], undefined);
    assert.equal(r.headers.host, `127.0.0.1:${server.address().port}`);
    assert.deepEqual(r.body, { model: "m", messages: [] });
  });
});

// Issue: the JS-only constructors threw bare TypeErrors (no code, no path) and ignored
// unknown keys: `openAICompatible({ apikey })` sent no key, `maxRetries: 0` was ignored.
describe("options of the JS-only constructors", () => {
  const binding = { run: async () => ({ response: "ok" }) };
  const kv = { get: async () => null, put: async () => {} };
  const cacheApi = { match: async () => undefined, put: async () => {} };
  const constructors = {
    openAICompatible: (o) => openAICompatible({ baseURL: "https://api.example/v1", model: "m", ...o }),
    anthropic: (o) => anthropic({ apiKey: KEY, model: "m", ...o }),
    workersAI: (o) => workersAI({ binding, model: "m", ...o }),
    aiSdk: (o) => aiSdk({ model: "gateway/model", ...o }),
    cachedSummarizer: (o) => cachedSummarizer(async () => "x", { cache: memoryCache(), namespace: "n", ...o }),
    memoryCache: (o) => memoryCache(o),
    kvCache: (o) => kvCache(kv, o),
    cacheApiCache: (o) => cacheApiCache(cacheApi, o),
    proxy: (o) => proxy({ upstream: "https://api.example", ...o }),
  };

  it("an unknown key is an invalid_option at its path, naming the nearest known one", () => {
    const typos = [
      ["openAICompatible", { apikey: "sk-1" }, "options.apikey", /did you mean apiKey\?/],
      ["openAICompatible", { maxRetries: 0 }, "options.maxRetries", /did you mean retries\?/],
      ["anthropic", { temprature: 0 }, "options.temprature", /did you mean temperature\?/],
      ["workersAI", { maxToken: 10 }, "options.maxToken", /did you mean maxTokens\?/],
      ["aiSdk", { maxRetries: 1 }, "options.maxRetries", /did you mean retries\?/],
      ["cachedSummarizer", { namspace: "x" }, "options.namspace", /did you mean namespace\?/],
      ["memoryCache", { maxEntry: 10 }, "options.maxEntry", /known options: maxEntries/],
      ["kvCache", { ttl: 60 }, "options.ttl", /known options: ttlSeconds, prefix/],
      ["cacheApiCache", { prefx: "https://x.example/" }, "options.prefx", /did you mean prefix\?/],
      ["proxy", { header: { a: "b" } }, "options.header", /did you mean headers\?/],
    ];
    for (const [name, options, path, message] of typos) {
      assert.throws(() => constructors[name](options), invalidOption(path, message), `${name} ${path}`);
      assert.throws(
        () => constructors[name](options),
        new RegExp(`^ContextfoldError: ${name}: ${path.replace(".", "\\.")}: `),
      );
    }
    // Every constructor takes its declared options, and no options at all where they are optional.
    for (const make of Object.values(constructors)) make({});
    memoryCache();
    kvCache(kv);
    cacheApiCache(cacheApi);
  });

  it("a value of the wrong kind, or a missing required one, is an invalid_option at its path", () => {
    const wrong = [
      ["openAICompatible", { temperature: "hot" }, "options.temperature", /must be a number >= 0, not a string/],
      ["openAICompatible", { fetch: 1 }, "options.fetch", /must be a function/],
      ["anthropic", { baseURL: "ftp://x" }, "options.baseURL", /http\(s\) URL/],
      ["workersAI", { binding: {} }, "options.binding", /Workers AI binding/],
      ["aiSdk", { generateText: "no" }, "options.generateText", /function/],
      ["memoryCache", { maxEntries: 0 }, "options.maxEntries", /integer >= 1/],
      ["kvCache", { ttlSeconds: -5 }, "options.ttlSeconds", /positive number/],
      ["proxy", { fetch: "x" }, "options.fetch", /function/],
    ];
    for (const [name, options, path, message] of wrong) {
      assert.throws(() => constructors[name](options), invalidOption(path, message), `${name} ${path}`);
    }
    // Never a text value in the message: it may be a key.
    assert.throws(
      () => anthropic({ apiKey: KEY, model: "m", headers: KEY }),
      (e) => invalidOption("options.headers", /must be an object, not a string/)(e) && !e.message.includes(KEY),
    );
    assert.throws(() => openAICompatible("https://api.example/v1"), invalidOption("options", /expected an object/));
    assert.throws(() => anthropic({ model: "m" }), invalidOption("options.apiKey", /required/));
    assert.throws(() => kvCache(null), invalidOption("namespace", /KV namespace/));
    assert.throws(() => cacheApiCache({}), invalidOption("cache"));
    assert.throws(() => cachedSummarizer("x", { cache: memoryCache(), namespace: "n" }), invalidOption("summarizer"));
    assert.throws(() => proxy(), invalidOption("options.upstream", /required/));
    assert.throws(() => compactionMiddleware({ maxTokens: 100 })({ fetsh() {} }), invalidOption("handler"));
    // `null` counts as absent, as in the core's options (maxTokens: null sends no limit).
    openAICompatible({ baseURL: "https://api.example/v1", model: "m", maxTokens: null, temperature: null });
  });

  it("suggests the same names as the core's check", () => {
    const known = ["apiKey", "baseURL", "model", "maxTokens", "maxTokensField", "retries", "temperature", "__reuse"];
    for (const typo of [
      "apikey",
      "APIKEY",
      "baseUrl",
      "modle",
      "maxToken",
      "maxTokensFeild",
      "retry",
      "reuse",
      "x",
      "tmp",
    ]) {
      let core;
      try {
        internal.__checkOptionKeys([typo], known);
      } catch (e) {
        core = /did you mean (\w+)\?/.exec(e.message)?.[1];
      }
      assert.equal(nearest(typo, known), core, typo);
    }
  });
});
