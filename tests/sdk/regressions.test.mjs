// Issue 14, section 3: each rejection a real SDK or provider gave, reproduced through the
// public API of the built package, judged by the SDK that rejected it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isDeepStrictEqual } from "node:util";
import { compact, convert, parseChain, repairChain, validateChain } from "contextfold";
import { modelMessageSchema } from "ai";
import { load } from "@langchain/core/load";
import { mapStoredMessagesToChatMessages } from "@langchain/core/messages";
import { convertMessagesToCompletionsMessageParams } from "@langchain/openai";
import { anthropicRules, geminiRules, TypeCollector } from "./judges.mjs";

/** A strategy by name, as it folded with `maxTokens` before QA folding (`sections`) and the
 * on-demand re-tiering (`tiers`) had to be asked for: these chats need both to fold. */
const folding = (name) => ({ sections: { name, useQA: true }, tiers: { name, auto: false } })[name] ?? name;

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const long = (i) => `step ${i}: ${"the build log repeats the same warning again and again ".repeat(40)}`;
const same = async () => "Summary: the earlier steps are done.";

/** Anthropic: sections of a tool round trip (results, then a user text) and a long answer. */
function anthropicSections(n) {
  const messages = [];
  for (let i = 0; i < n; i++) {
    messages.push({ role: "user", content: `task ${i}` });
    messages.push({ role: "assistant", content: [{ type: "tool_use", id: `toolu_${i}`, name: "read", input: { i } }] });
    messages.push({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: `toolu_${i}`, content: long(i) },
        { type: "text", text: `and ${i}` },
      ],
    });
    messages.push({ role: "assistant", content: `done ${i}. ${long(i)}` });
  }
  messages.push({ role: "user", content: "next" });
  return messages;
}

/** SWE-agent's shape: the second call reuses the first call's id. */
const reusedIds = () => [
  { role: "user", content: "find it" },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_x", type: "function", function: { name: "find_file", arguments: "{}" } }],
  },
  { role: "tool", tool_call_id: "call_x", content: "a.py" },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_x", type: "function", function: { name: "open", arguments: "{}" } }],
  },
  { role: "tool", tool_call_id: "call_x", content: "print(1)" },
  { role: "assistant", content: "done" },
];

const image = { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } };
const imageInResult = () => [
  { role: "user", content: "look" },
  { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "shot", input: {} }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [image] }] },
  { role: "assistant", content: "a cat" },
];

const codes = (diagnostics) => diagnostics.map((d) => [d.code, d.path]);

describe("issue 14 §3 regressions", () => {
  it("equal summaries get distinct tool_use ids, and validateChain flags an id used twice", async () => {
    const { messages } = await compact(anthropicSections(8), { strategy: "sections", summarizer: same });
    const ids = messages
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b) => b.type === "tool_use")
      .map((b) => b.id);
    assert.ok(ids.length >= 3, `${ids}`);
    assert.equal(new Set(ids).size, ids.length, `ids used twice: ${ids}`);
    const twice = [
      { role: "user", content: "q" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "a", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "1" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "b", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "2" }] },
    ];
    assert.deepEqual(codes(validateChain(twice, { provider: "anthropic" })), [["duplicate_call_id", "[3]"]]);
    assert.deepEqual(anthropicRules(repairChain(twice, { provider: "anthropic" }).messages), []);
  });

  it("sections keeps Anthropic turns alternating; convert to Gemini keeps [tool_result, text, text] in one content", async () => {
    const { messages, changed } = await compact(anthropicSections(8), { strategy: "sections", summarizer: same });
    assert.ok(changed);
    assert.deepEqual(anthropicRules(messages), []);
    const input = [
      { role: "user", content: "q" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "read", input: {} }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "1" },
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      },
    ];
    const gemini = convert(input, { to: "gemini" }).messages;
    assert.deepEqual(
      gemini.map((c) => c.role),
      ["user", "model", "user"],
    );
    assert.deepEqual(geminiRules(gemini), []);
  });

  it("OpenAI: no image_url in a tool message and no name on a summary's tool message (official types)", async () => {
    const openai = convert(imageInResult(), { to: "openai" }).messages;
    assert.deepEqual(
      openai.map((m) => m.role),
      ["user", "assistant", "tool", "user", "assistant"],
    );
    assert.equal(openai[3].content[0].image_url.url, `data:image/png;base64,${PNG}`);
    const chain = convert(anthropicSections(8), { to: "openai" }).messages;
    const summarized = (await compact(chain, { strategy: "sections", summarizer: same })).messages;
    assert.ok(summarized.some((m) => m.role === "tool" && m.content === "Summary: the earlier steps are done."));
    assert.ok(summarized.every((m) => m.role !== "tool" || !("name" in m)));
    const types = new TypeCollector("sdk-regressions");
    types.add("openai", "convert from anthropic", openai);
    types.add("openai", "sections summary", summarized);
    assert.deepEqual(types.check(), []);
  });

  it("AI SDK: tool-result images are written as image-data, and ai 7's image-data and tagged file parts are read", async () => {
    const aisdk = convert(imageInResult(), { to: "aisdk" }).messages;
    assert.equal(aisdk[2].content[0].output.value[0].type, "image-data");
    for (const m of aisdk) assert.equal((await modelMessageSchema["~standard"].validate(m)).issues, undefined);
    const v7 = [
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "file", mediaType: "image/png", data: { type: "data", data: PNG } },
        ],
      },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "shot", input: {} }] },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c1",
            toolName: "shot",
            output: { type: "content", value: [{ type: "image-data", data: PNG, mediaType: "image/png" }] },
          },
        ],
      },
    ];
    for (const m of v7)
      assert.equal((await modelMessageSchema["~standard"].validate(m)).issues, undefined, "valid ai 7 input");
    assert.deepEqual(convert(v7, { from: "aisdk", to: "aisdk" }).messages, v7);
  });

  it("AI SDK: a chat of text parts only, one with providerOptions, is read as the AI SDK's and compacted in its form", async () => {
    // Anthropic prompt caching as the AI SDK docs set it: on a text part's providerOptions.
    const cache = { anthropic: { cacheControl: { type: "ephemeral" } } };
    const chat = [{ role: "user", content: [{ type: "text", text: "Read me the logs.", providerOptions: cache }] }];
    for (let i = 0; i < 8; i++) {
      chat.push({ role: "assistant", content: [{ type: "text", text: long(i) }] });
      chat.push({ role: "user", content: [{ type: "text", text: `and ${i}?` }] });
    }
    assert.equal(parseChain(chat).format, "aisdk");
    for (const strategy of ["auto", folding("sections")]) {
      const result = await compact(chat, { strategy, maxTokens: 1500, summarizer: same });
      assert.equal(result.changed, true);
      for (const m of result.messages)
        assert.equal((await modelMessageSchema["~standard"].validate(m)).issues, undefined, JSON.stringify(m));
      const parts = result.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
      assert.ok(
        parts.some((p) => isDeepStrictEqual(p, chat[0].content[0])),
        "the cached part is kept as it came",
      );
    }
  });

  it("LangChain: a toJSON() chain gets its summaries in the toJSON() form, which load and the OpenAI converter take", async () => {
    const python = convert(anthropicSections(8), { to: "langchain" }).messages;
    const js = mapStoredMessagesToChatMessages(python).map((m) => m.toJSON());
    const { messages, changed } = await compact(js, { strategy: "sections", summarizer: same });
    assert.ok(changed);
    assert.ok(
      messages.every((m) => m.lc === 1),
      "every message in the toJSON() form",
    );
    const revived = await load(JSON.stringify(messages));
    assert.ok(convertMessagesToCompletionsMessageParams({ messages: revived, model: "gpt-4o" }).length > 0);
  });

  it("a tool-call id used twice: convert to Gemini and AI SDK names each result after its own call", () => {
    const gemini = convert(reusedIds(), { to: "gemini" }).messages;
    const names = gemini
      .flatMap((c) => c.parts)
      .filter((p) => p.functionResponse)
      .map((p) => p.functionResponse.name);
    assert.deepEqual(names, ["find_file", "open"]);
    assert.deepEqual(geminiRules(gemini), []);
    const aisdk = convert(reusedIds(), { to: "aisdk" }).messages;
    const results = aisdk.filter((m) => m.role === "tool").map((m) => m.content[0]);
    assert.deepEqual(
      results.map((r) => r.toolName),
      ["find_file", "open"],
    );
    assert.notEqual(results[0].toolCallId, results[1].toolCallId);
  });

  it("validateChain and repairChain with provider anthropic drop thinking without a signature", () => {
    const chain = [
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hmm" },
          { type: "text", text: "a" },
        ],
      },
    ];
    assert.deepEqual(codes(validateChain(chain, { provider: "anthropic" })), [["unsigned_thinking", "[1]"]]);
    const repaired = repairChain(chain, { provider: "anthropic" }).messages;
    assert.deepEqual([repaired[1].content].flat(), ["a"], "the text stays, the thinking goes");
    assert.deepEqual(anthropicRules(repaired), []);
  });

  it("files the provider stores (OpenAI file_id, Anthropic file source) are kept, not refused as sourceless", async () => {
    const log = (i) => `step ${i}: ${"the report says the same thing again ".repeat(60)}`;
    const anthropic = [
      {
        role: "user",
        content: [
          { type: "document", source: { type: "file", file_id: "file_011CNha8iCJcU1wXNR6q4V8w" } },
          { type: "text", text: `read the spec. ${log(0)}` },
        ],
      },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "shot", input: {} }] },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_1",
            content: [{ type: "image", source: { type: "file", file_id: "file_2" } }],
          },
        ],
      },
      { role: "assistant", content: log(1) },
      {
        role: "user",
        content: [
          { type: "image", source: { type: "file", file_id: "file_3" } },
          { type: "text", text: "and this one?" },
        ],
      },
    ];
    assert.deepEqual(validateChain(anthropic, { provider: "anthropic" }), []);
    const a = await compact(anthropic, { maxTokens: 300, summarizer: same });
    assert.ok(a.changed);
    assert.deepEqual(a.messages.at(-1).content.slice(-2), anthropic.at(-1).content, "the last file stays, by its id");
    assert.deepEqual(anthropicRules(a.messages), []);
    const openai = [
      {
        role: "user",
        content: [
          { type: "file", file: { file_id: "file-abc" } },
          { type: "text", text: log(0) },
        ],
      },
      { role: "assistant", content: log(1) },
      {
        role: "user",
        content: [
          { type: "file", file: { file_id: "file-def", filename: "b.pdf" } },
          { type: "text", text: "q" },
        ],
      },
    ];
    const o = await compact(openai, { maxTokens: 300, summarizer: same });
    assert.ok(o.changed);
    assert.deepEqual(o.messages.at(-1).content.slice(-2), openai.at(-1).content);
    const types = new TypeCollector("sdk-regressions-files");
    types.add("openai", "file by id", o.messages);
    types.add("anthropic", "files by id", a.messages);
    assert.deepEqual(types.check(), []);
    // Another provider cannot read the id: conversion drops the file and says so.
    const converted = convert(openai, { to: "anthropic" });
    assert.ok(converted.changes.some((c) => c.change === "droppedMedia" && c.reason.includes("file id")));
  });

  it("OpenAI custom tools: a call with free-text input is read and written back as the SDK types it", async () => {
    const chain = [];
    for (let i = 0; i < 6; i++) {
      chain.push({ role: "user", content: `count the rows of t${i}` });
      chain.push({
        role: "assistant",
        content: null,
        tool_calls: [{ id: `call_${i}`, type: "custom", custom: { name: "sql", input: `SELECT count(*) FROM t${i}` } }],
      });
      chain.push({ role: "tool", tool_call_id: `call_${i}`, content: `${i}\n${long(i)}` });
      chain.push({ role: "assistant", content: `t${i} has ${i} rows.` });
    }
    assert.deepEqual(validateChain(chain), []);
    for (const strategy of ["auto", "mask", "tiers"]) {
      const { messages, changed } = await compact(chain, {
        strategy: folding(strategy),
        maxTokens: 800,
        summarizer: same,
      });
      assert.ok(changed, strategy);
      const calls = messages.flatMap((m) => m.tool_calls ?? []);
      if (strategy === "mask") assert.equal(calls.length, 6);
      for (const call of calls) {
        assert.deepEqual(
          call,
          chain.flatMap((m) => m.tool_calls ?? []).find((c) => c.id === call.id),
          strategy,
        );
      }
      const types = new TypeCollector(`sdk-regressions-custom-${strategy}`);
      types.add("openai", strategy, messages);
      assert.deepEqual(types.check(), []);
    }
    // An API that takes arguments as a JSON object gets the free text as `input`, not `{}`.
    const anthropic = convert(chain, { to: "anthropic" });
    assert.deepEqual(anthropic.messages[1].content[0].input, { input: "SELECT count(*) FROM t0" });
    assert.deepEqual(anthropicRules(anthropic.messages), []);
  });

  it("OpenAI Chat request bodies ({model, messages, tools}) are compacted in place, as OpenAI bodies", async () => {
    const messages = [{ role: "system", content: "You are terse." }];
    for (let i = 0; i < 6; i++) {
      messages.push({ role: "user", content: `check build ${i}` });
      messages.push({
        role: "assistant",
        content: null,
        tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "read_log", arguments: `{"n":${i}}` } }],
      });
      messages.push({ role: "tool", tool_call_id: `call_${i}`, content: long(i) });
      messages.push({ role: "assistant", content: `build ${i} is green.` });
    }
    messages.push({ role: "user", content: "and now?" });
    const tools = [{ type: "function", function: { name: "read_log", parameters: { type: "object" } } }];
    const types = new TypeCollector("sdk-regressions-openai-bodies");
    for (const [label, body] of [
      ["with a system message", { model: "gpt-4o", temperature: 0, tools, messages }],
      ["without one", { model: "gpt-4o-mini", max_tokens: 256, tools, messages: messages.slice(1) }],
    ]) {
      for (const strategy of ["auto", "sections", "tiers", "budget", "mask"]) {
        const result = await compact(body, { strategy: folding(strategy), maxTokens: 900, summarizer: same });
        assert.equal(result.report.format, "openai", `${label}, ${strategy}`);
        assert.ok(result.changed, `${label}, ${strategy}`);
        // The body's own fields stay, and nothing OpenAI does not take is added (no `system`).
        assert.deepEqual(Object.keys(result.messages).sort(), Object.keys(body).sort(), `${label}, ${strategy}`);
        assert.deepEqual(result.messages.tools, tools);
        assert.deepEqual(validateChain(result.messages), [], `${label}, ${strategy}`);
        types.add("openai", `${label}, ${strategy}`, result.messages);
      }
    }
    assert.deepEqual(types.check(), []);
    // An Anthropic body stays one: its model (or a field only Anthropic has) tells.
    const anthropic = { model: "claude-sonnet-4-5", max_tokens: 256, messages: anthropicSections(4) };
    assert.equal((await compact(anthropic, { strategy: "sections", summarizer: same })).report.format, "anthropic");
  });
});
