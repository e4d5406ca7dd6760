// The output has the input's container, for every strategy in every format (issue 14,
// section 2): an array stays an array, a request object stays a request object with its
// other fields (`model`, `max_tokens`, `generationConfig`), and a list with no place for a
// system prompt (Anthropic, Gemini) or that must not gain one (AI SDK) gets the summaries
// as user messages. Before, `tiers` and `budget` returned `{ system, messages }` for an
// Anthropic array and added system messages that `ai`'s `generateText` rejects: the AI SDK
// outputs are judged here by the real `generateText` (with its mock model).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { convertToModelMessages, generateText, validateUIMessages } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { compact, convert, extractiveSummarizer, parseChain, validateChain } from "contextfold";
import { root } from "./helpers.mjs";
import { generated } from "../shared/ai-mock.mjs";

const demo = JSON.parse(readFileSync(join(root, "examples/demo-session.openai.json"), "utf8"));
const withoutSystem = demo.filter((m) => m.role !== "system");

/** Settings that make each strategy fold part of the demo session. */
const STRATEGIES = [
  { name: "auto" },
  { name: "mask", keepLast: 2 },
  { name: "sections", lastSecBytes: 8192, maxBpBytes: 2048 },
  { name: "window", window: 12, thresholdTokens: 6000, messageThresholdTokens: 1500 },
  { name: "tiers", recent: 8, condensed: 12, auto: false }, // re-tiered whenever called
  { name: "budget" },
];
const MAX_TOKENS = { budget: 12_000, auto: 8_000 };

const to = (chain, format) => convert(chain, { to: format }).messages;
/** The demo session in every format and container users hold. */
const INPUTS = [
  ["openai", "openai", demo],
  ["anthropic array", "anthropic", to(withoutSystem, "anthropic")],
  ["anthropic object", "anthropic", { model: "claude", max_tokens: 1024, ...to(demo, "anthropic") }],
  ["gemini array", "gemini", to(withoutSystem, "gemini")],
  ["gemini object", "gemini", { generationConfig: { temperature: 0 }, ...to(demo, "gemini") }],
  ["aisdk", "aisdk", to(withoutSystem, "aisdk")],
  ["aisdk-ui", "aisdk-ui", to(withoutSystem, "aisdk-ui")],
  ["langchain", "langchain", to(demo, "langchain")],
];

/** The keys of a request other than its messages and system prompt. */
const requestFields = (value) =>
  Object.fromEntries(
    Object.entries(value).filter(([k]) => !["system", "messages", "systemInstruction", "contents"].includes(k)),
  );

describe("the output keeps the input's container, every strategy x every format", () => {
  it("the inputs are in the containers they claim", () => {
    for (const [name, , input] of INPUTS) assert.equal(Array.isArray(input), !name.endsWith("object"), name);
  });

  for (const [name, format, input] of INPUTS) {
    for (const strategy of STRATEGIES) {
      it(`${name} / ${strategy.name}`, async () => {
        const maxTokens = MAX_TOKENS[strategy.name];
        const result = await compact(input, { strategy, maxTokens });
        assert.equal(result.changed, true, "the strategy folded something");
        assert.equal(result.format, format);
        const out = result.messages;
        assert.equal(
          Array.isArray(out),
          Array.isArray(input),
          `container changed: ${JSON.stringify(out).slice(0, 200)}`,
        );
        if (!Array.isArray(input)) assert.deepEqual(requestFields(out), requestFields(input));
        assert.deepEqual(validateChain(out, { format }), []);
        parseChain(out, { format }); // strict: no two user messages in a row
        assert.ok(!JSON.stringify(out).includes('"contextfold":'), "tier metadata in provider JSON");
        if (format === "anthropic" || format === "gemini") {
          if (Array.isArray(out))
            assert.ok(
              out.every((m) => m.role !== "system"),
              "a system message in the list",
            );
        }
        if (format === "aisdk") {
          assert.ok(
            out.every((m) => m.role !== "system"),
            "an AI SDK list gained a system message",
          );
          const model = new MockLanguageModelV4({ doGenerate: generated });
          const { text } = await generateText({ model, messages: out });
          assert.equal(text, "ok");
        }
        if (format === "aisdk-ui") {
          assert.ok(
            out.every((m) => m.role !== "system"),
            "a UIMessage list gained a system message",
          );
          await validateUIMessages({ messages: out });
          const model = new MockLanguageModelV4({ doGenerate: generated });
          await generateText({ model, messages: await convertToModelMessages(out) });
        }
        // Summaries are recognized in whatever role the container gave them: a second run
        // with nothing new asks for nothing and changes nothing.
        const builtin = extractiveSummarizer();
        let calls = 0;
        const again = await compact(out, { strategy, maxTokens, summarizer: (r, c) => (calls++, builtin(r, c)) });
        assert.deepEqual([calls, again.changed], [0, false], "the second run asked for summaries or changed");
      });
    }
  }

  it("JSON text comes back parsed, in the container of the text", async () => {
    const text = JSON.stringify(to(withoutSystem, "anthropic"));
    const { messages, format } = await compact(text, { strategy: "tiers" });
    assert.equal(format, "anthropic");
    assert.ok(Array.isArray(messages));
  });
});

describe("Gemini requests: the summaries go where Gemini and the genai SDK take them", () => {
  const contents = to(withoutSystem, "gemini");
  const folding = [{ name: "budget" }, { name: "tiers", recent: 8, condensed: 12, auto: false }];

  it("a request with a context cache gains no systemInstruction (Gemini refuses one beside it)", async () => {
    const cachedContent = "cachedContents/abc123";
    const requests = [
      ["REST body", { cachedContent, contents }],
      ["genai SDK parameters", { model: "gemini-2.5-pro", contents, config: { cachedContent } }],
    ];
    for (const [name, input] of requests) {
      for (const strategy of folding) {
        const what = `${name} / ${strategy.name}`;
        const { messages: out, changed } = await compact(input, { strategy, maxTokens: MAX_TOKENS[strategy.name] });
        assert.equal(changed, true, what);
        assert.ok(!("systemInstruction" in out) && !("systemInstruction" in (out.config ?? {})), what);
        assert.deepEqual(requestFields(out), requestFields(input), what);
        assert.ok(JSON.stringify(out.contents).includes("CONDENSED CONTEXT") || strategy.name !== "budget", what);
      }
    }
  });

  it("genai SDK parameters without config gain config.systemInstruction, which the SDK sends", async (t) => {
    const input = { model: "gemini-2.5-pro", contents };
    const { messages: params } = await compact(input, { strategy: "budget", maxTokens: MAX_TOKENS.budget });
    assert.deepEqual(Object.keys(params).sort(), ["config", "contents", "model"]);
    let sent;
    t.mock.method(globalThis, "fetch", async (_url, init) => {
      sent = JSON.parse(init.body);
      const content = { role: "model", parts: [{ text: "hi" }] };
      return Response.json({ candidates: [{ content, finishReason: "STOP" }] });
    });
    await new GoogleGenAI({ apiKey: "test" }).models.generateContent(params);
    assert.ok(JSON.stringify(sent.systemInstruction).includes("CONDENSED CONTEXT"), "the SDK sent no summary");
    // A REST body keeps it at the top level.
    const { messages: rest } = await compact({ contents }, { strategy: "budget", maxTokens: MAX_TOKENS.budget });
    assert.ok(JSON.stringify(rest.systemInstruction).includes("CONDENSED CONTEXT"));
    assert.ok(!("config" in rest));
  });
});
