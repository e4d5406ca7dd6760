// `contextfold/ai-sdk` with the real `ai` package (issue 19 item 1): the middleware
// compacts the prompt of every call, generate and stream, to the budget; images go through
// as their bytes; `compactStep` does the same as an agent's `prepareStep`.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateText, stepCountIs, streamText, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { measureChain } from "contextfold";
import { compactStep, contextfoldMiddleware } from "contextfold/ai-sdk";
import { z } from "zod";
import { generated, usage } from "../shared/ai-mock.mjs";

const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3, 4]);

/** A long AI SDK conversation whose first request carries an image. */
function conversation(turns) {
  const messages = [
    {
      role: "user",
      content: [
        { type: "text", text: "Port every module; start with this diagram." },
        { type: "image", image: png, mediaType: "image/png" },
      ],
    },
  ];
  for (let i = 0; i < turns; i++) {
    messages.push({
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: `c${i}`, toolName: "read_file", input: { path: `src/m${i}.ts` } }],
    });
    messages.push({
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: `c${i}`,
          toolName: "read_file",
          output: { type: "text", value: `export function m${i}() {}\n${"// code\n".repeat(200)}` },
        },
      ],
    });
    messages.push({ role: "assistant", content: [{ type: "text", text: `Ported src/m${i}.ts.` }] });
    messages.push({ role: "user", content: [{ type: "text", text: `Next: module ${i + 1}.` }] });
  }
  return messages;
}

/** Tokens of a prompt as the model got it (the SDK's LanguageModelV4 prompt). */
const tokensOf = (prompt) => measureChain(prompt, { format: "aisdk" }).total.tokens;
const files = (prompt) =>
  prompt.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.type === "file");

describe("contextfold/ai-sdk: the wrapLanguageModel middleware", () => {
  const messages = conversation(20);
  const maxTokens = 3000;

  it("generateText: the model gets the prompt within the budget, the image as its bytes", async () => {
    let seen;
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({
        doGenerate: async (options) => {
          seen = options.prompt;
          return generated;
        },
      }),
      middleware: contextfoldMiddleware({ maxTokens }),
    });
    const { text } = await generateText({ model, messages });
    assert.equal(text, "ok");
    assert.ok(tokensOf(seen) <= maxTokens, `${tokensOf(seen)} tokens`);
    assert.ok(tokensOf(seen) < measureChain(messages).total.tokens / 2);
    const image = files(seen)[0];
    assert.deepEqual(image?.data?.data ?? image?.data, png, "the image's bytes");
    // The latest request is there as it was.
    assert.ok(JSON.stringify(seen).includes("Next: module 20."));
  });

  it("the call's abortSignal cancels its summary calls", async () => {
    const controller = new AbortController();
    const signals = [];
    // A summarizer that waits for its signal (a paid call the user no longer wants).
    const summarizer = (request, { signal }) =>
      new Promise((resolve, reject) => {
        signals.push(signal);
        controller.abort();
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        setTimeout(() => resolve("late summary"), 5000).unref();
      });
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({ doGenerate: async () => generated }),
      middleware: contextfoldMiddleware({ maxTokens, summarizer, cache: false }),
    });
    const started = Date.now();
    // (The mock model itself ignores the abort: what matters is the summary calls.)
    await generateText({ model, messages, abortSignal: controller.signal }).catch(() => {});
    assert.ok(signals.length > 0 && signals.every((s) => s.aborted), "every summary call saw the abort");
    assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms: the summary calls ran on`);
  });

  it("an agent loop keeps a long request verbatim while the budget holds it", async () => {
    // A pasted contract and its question (~2.4k tokens), then policy pages read by a tool
    // (~1.6k each), at 4,500 tokens: from the third call on the request was folded into the
    // summary, and the model no longer saw what it was asked.
    const words = (tag, n) => `${tag}: ${Array.from({ length: n }, (_, i) => `w${i % 97} x${i}`).join(" ")}`;
    const question = "Q: which clauses of the contract above conflict with our policy?";
    const prompts = [];
    const model = new MockLanguageModelV4({
      doGenerate: async (options) => {
        prompts.push(options.prompt);
        if (prompts.length > 4) return generated;
        const input = JSON.stringify({ page: prompts.length });
        const content = [{ type: "tool-call", toolCallId: `c${prompts.length}`, toolName: "policy", input }];
        return { content, finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] };
      },
    });
    const policy = tool({
      inputSchema: z.object({ page: z.number() }),
      execute: async ({ page }) => words(`policy page ${page}`, 400),
    });
    const summarizer = async () => "The user pasted a contract. Policy pages were read.";
    const wrapped = wrapLanguageModel({ model, middleware: contextfoldMiddleware({ maxTokens: 4500, summarizer }) });
    const messages = [
      { role: "user", content: "Hi, I will send you a contract." },
      { role: "assistant", content: "Sure, send it." },
      { role: "user", content: `${words("contract text", 600)}\n\n${question}` },
    ];
    await generateText({ model: wrapped, messages, tools: { policy }, stopWhen: stepCountIs(10) });
    assert.equal(prompts.length, 5);
    for (const [k, prompt] of prompts.entries()) {
      assert.ok(tokensOf(prompt) <= 4500, `call ${k}: ${tokensOf(prompt)} tokens`);
      assert.ok(JSON.stringify(prompt).includes(question), `call ${k}: the request was folded`);
    }
  });

  it("streamText: the same, streaming", async () => {
    let seen;
    const model = wrapLanguageModel({
      model: new MockLanguageModelV4({
        doStream: async (options) => {
          seen = options.prompt;
          return {
            stream: convertArrayToReadableStream([
              { type: "text-start", id: "t" },
              { type: "text-delta", id: "t", delta: "ok" },
              { type: "text-end", id: "t" },
              { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
            ]),
          };
        },
      }),
      middleware: contextfoldMiddleware({ maxTokens }),
    });
    const result = streamText({ model, messages });
    assert.equal(await result.text, "ok");
    assert.ok(tokensOf(seen) <= maxTokens, `${tokensOf(seen)} tokens`);
  });

  it("every user, assistant and tool message of the prompt holds an array of parts", async () => {
    // LanguageModelV4Prompt has no string content: @ai-sdk/anthropic threw
    // `message.content.filter is not a function` on a summary or on an answer left with one
    // text once its reasoning was dropped; @ai-sdk/openai sent it without that text.
    const chat = [{ role: "assistant", content: [{ type: "text", text: "Hello! How can I help?" }] }];
    for (let i = 0; i < 12; i++) {
      chat.push({ role: "user", content: [{ type: "text", text: `Question ${i}: ${"why ".repeat(120)}` }] });
      chat.push({
        role: "assistant",
        content: [
          { type: "reasoning", text: `thinking ${i}`, providerOptions: { anthropic: { signature: `sig${i}` } } },
          { type: "text", text: `Answer ${i}. ${"because ".repeat(100)}` },
        ],
      });
    }
    chat.push({ role: "user", content: [{ type: "text", text: "And now?" }] });
    for (const strategy of [undefined, "sections", "window", "budget"]) {
      const prompts = [];
      const inner = new MockLanguageModelV4({
        doGenerate: async (options) => (prompts.push(options.prompt), generated),
      });
      const middleware = contextfoldMiddleware({ maxTokens: 1500, ...(strategy ? { strategy } : {}) });
      await generateText({ model: wrapLanguageModel({ model: inner, middleware }), messages: chat });
      const seen = prompts[0];
      assert.ok(tokensOf(seen) < measureChain(chat, { format: "aisdk" }).total.tokens, `${strategy}: compacted`);
      for (const [i, m] of seen.entries()) {
        if (m.role !== "system") assert.ok(Array.isArray(m.content), `${strategy}: prompt[${i}] ${JSON.stringify(m)}`);
      }
    }
  });

  it("a misspelt budget is named as such", () => {
    for (const make of [contextfoldMiddleware, compactStep]) {
      assert.throws(
        () => make({ maxToken: 1000 }),
        (e) => e.code === "invalid_option" && e.path === "options.maxToken" && /did you mean maxTokens/.test(e.message),
      );
      assert.throws(
        () => make({}),
        (e) => e.code === "invalid_option" && e.path === "options.maxTokens",
      );
    }
  });

  it("a prompt within the budget goes on as it was", async () => {
    let seen;
    const inner = new MockLanguageModelV4({
      doGenerate: async (options) => {
        seen = options.prompt;
        return generated;
      },
    });
    const small = conversation(1);
    await generateText({
      model: wrapLanguageModel({ model: inner, middleware: contextfoldMiddleware({ maxTokens }) }),
      messages: small,
    });
    const plain = seen;
    await generateText({ model: inner, messages: small });
    assert.deepEqual(plain, seen);
  });

  it("a growing chat summarizes each fold once and keeps the prefix between folds", async () => {
    // Every call compacts the whole conversation again: without a summary cache each fold
    // was summarized again on every call, and an LLM (here: a new text every call) then
    // changed the prefix the model saw on every call.
    const filler = (n) => "lorem ipsum dolor sit amet ".repeat(Math.ceil(n / 27)).slice(0, n);
    const run = async (options) => {
      let calls = 0;
      const summarizer = async () => `## User requests\nsummary written by call ${++calls}`;
      let prompt;
      const model = wrapLanguageModel({
        model: new MockLanguageModelV4({
          doGenerate: async (o) => {
            prompt = o.prompt;
            return generated;
          },
        }),
        middleware: contextfoldMiddleware({ maxTokens: 3000, summarizer, ...options }),
      });
      const chat = [];
      let before;
      let changed = 0;
      let folds = 0;
      for (let i = 0; i < 30; i++) {
        chat.push({ role: "user", content: `Request ${i}: ${filler(400)}` });
        const made = calls;
        await generateText({ model, messages: chat });
        assert.ok(tokensOf(prompt) <= 3000, `${tokensOf(prompt)} tokens`);
        const text = JSON.stringify(prompt);
        // A new summary (a fold) may change the prefix; nothing else may.
        if (calls > made) folds++;
        else if (before && !text.startsWith(before.slice(0, -1))) changed++;
        before = text;
        chat.push({ role: "assistant", content: `Answer ${i}: ${filler(1200)}` });
      }
      return { calls, changed, folds };
    };
    const cached = await run({});
    assert.ok(cached.calls > 0 && cached.calls === cached.folds, JSON.stringify(cached));
    assert.ok(cached.calls <= 12, `${cached.calls} summarizer calls for 30 requests`);
    assert.equal(cached.changed, 0, "the prefix changed without a fold");
    // A store of the caller's own is used the same way; false turns the cache off.
    const store = new Map();
    const shared = { get: async (k) => store.get(k), put: async (k, v) => void store.set(k, v) };
    const own = await run({ cache: shared, namespace: "test-model" });
    assert.equal(own.calls, cached.calls);
    assert.equal(store.size, own.calls);
    const off = await run({ cache: false });
    assert.ok(off.calls > 3 * cached.calls, `${off.calls} calls without a cache`);
  });

  it("bad options are typed errors with their path, when the middleware is made", () => {
    const summarizer = async () => "S";
    assert.throws(() => contextfoldMiddleware({ maxTokens: 1000, summarizer, cache: 5 }), {
      code: "invalid_option",
      path: "options.cache",
    });
    // A store given may be shared: it needs the summarizer's identity.
    const store = { get: async () => undefined, put: async () => {} };
    assert.throws(() => compactStep({ maxTokens: 1000, summarizer, cache: store }), {
      code: "invalid_option",
      path: "options.namespace",
    });
    assert.throws(() => contextfoldMiddleware({}), { code: "invalid_option", path: "options.maxTokens" });
    assert.throws(() => contextfoldMiddleware({ maxTokens: 1000, maxToken: 5 }), {
      code: "invalid_option",
      path: "options.maxToken",
    });
    assert.throws(() => compactStep({ maxTokens: 1000, strategy: "nope" }), {
      code: "invalid_option",
      path: "options.strategy",
    });
  });
});

describe("contextfold/ai-sdk: compactStep as an agent's prepareStep", () => {
  it("each step's messages are compacted to the budget", async () => {
    const prompts = [];
    let step = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async (options) => {
        prompts.push(options.prompt);
        step++;
        if (step <= 12) {
          return {
            ...generated,
            content: [
              { type: "tool-call", toolCallId: `t${step}`, toolName: "read", input: JSON.stringify({ n: step }) },
            ],
            finishReason: { unified: "tool-calls", raw: undefined },
          };
        }
        return generated;
      },
    });
    const maxTokens = 2500;
    const result = await generateText({
      model,
      messages: [{ role: "user", content: "Read every part." }],
      tools: {
        read: tool({
          inputSchema: z.object({ n: z.number() }),
          execute: async ({ n }) => `part ${n}\n${"data line\n".repeat(150)}`,
        }),
      },
      stopWhen: stepCountIs(20),
      prepareStep: compactStep({ maxTokens }),
    });
    assert.equal(result.text, "ok");
    assert.equal(prompts.length, 13);
    for (const p of prompts) assert.ok(tokensOf(p) <= maxTokens, `${tokensOf(p)} tokens`);
    assert.ok(JSON.stringify(prompts.at(-1)).includes("Read every part."), "the request stays");
  });
});

describe("README recipe: a useChat route handler", () => {
  it("compacts the UIMessages the client posts, streams the answer, within the budget", async () => {
    const { convertToModelMessages, streamText } = await import("ai");
    const { compact, convert } = await import("contextfold");
    let seen;
    const model = new MockLanguageModelV4({
      doStream: async (options) => {
        seen = options.prompt;
        return {
          stream: convertArrayToReadableStream([
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "Done." },
            { type: "text-end", id: "t" },
            { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
          ]),
        };
      },
    });
    // The handler as the README shows it (app/api/chat/route.ts, its POST), with the mock model.
    async function handlePost(req) {
      const { messages } = await req.json();
      const { messages: compacted } = await compact(messages, { maxTokens: 3000 }); // UIMessages in, UIMessages out
      const result = streamText({ model, messages: await convertToModelMessages(compacted) });
      return result.toUIMessageStreamResponse();
    }
    // What useChat posts: the conversation as UIMessages.
    const uiMessages = convert(conversation(20), { to: "aisdk-ui" }).messages;
    const response = await handlePost(
      new Request("http://localhost/api/chat", { method: "POST", body: JSON.stringify({ messages: uiMessages }) }),
    );
    assert.equal(response.status, 200);
    assert.match(await response.text(), /Done\./);
    assert.ok(tokensOf(seen) <= 3000, `${tokensOf(seen)} tokens`);
  });
});
