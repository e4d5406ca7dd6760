// Conversations SDK users really hold that contextfold refused or mangled, each found by
// running the real package on them and judged here by that package (or the provider's
// written rules in judges.mjs).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact, convert, measureChain, needsCompaction, repairChain, validateChain } from "contextfold";
import { compactAgentItems } from "contextfold/openai-agents";
import { compactStep, contextfoldMiddleware } from "contextfold/ai-sdk";
import { protocol } from "@openai/agents-core";
import { AIMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import {
  convertToModelMessages,
  generateText,
  jsonSchema,
  modelMessageSchema,
  stepCountIs,
  tool,
  validateUIMessages,
  wrapLanguageModel,
} from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { anthropicRules, geminiRules, geminiSdk, TypeCollector } from "./judges.mjs";

/** A strategy by name, as it folded with `maxTokens` before QA folding (`sections`) and the
 * on-demand re-tiering (`tiers`) had to be asked for: these chats need both to fold. */
const folding = (name) => ({ sections: { name, useQA: true }, tiers: { name, auto: false } })[name] ?? name;

const STRATEGIES = ["auto", "sections", "window", "tiers", "budget", "mask"];
const same = async () => "Summary: the earlier questions were answered.";
const filler = (i) => `answer ${i}: ${"the details of the answer go on for a while ".repeat(12)}`;

/** Whether `part` is a subsequence of `whole` (by deep equality): kept messages in order. */
function inOrder(part, whole) {
  let at = 0;
  for (const m of part) {
    const found = whole.findIndex((w, i) => i >= at && JSON.stringify(w) === JSON.stringify(m));
    if (found >= 0) at = found + 1;
  }
  return at;
}

describe("a chat that opens with the assistant's greeting", () => {
  const openai = [{ role: "assistant", content: "Hi! How can I help you today?" }];
  for (let i = 0; i < 12; i++)
    openai.push({ role: "user", content: `question ${i}` }, { role: "assistant", content: filler(i) });

  it("compacts with every strategy in every format, the greeting before the first question", async () => {
    const types = new TypeCollector("sdk-greeting");
    for (const format of ["openai", "openai-responses", "anthropic", "gemini"]) {
      const chain = format === "openai" ? openai : convert(openai, { to: format }).messages;
      // Under budget: nothing to do, the chain as it came.
      const kept = await compact(chain, { format, maxTokens: 100_000 });
      assert.equal(kept.changed, false, format);
      for (const strategy of STRATEGIES) {
        const label = `${format} ${strategy}`;
        const result = await compact(chain, { format, strategy: folding(strategy), maxTokens: 700, summarizer: same });
        assert.deepEqual(validateChain(result.messages, { format }), [], label);
        if (format === "anthropic") assert.deepEqual(anthropicRules(result.messages), [], label);
        if (format === "gemini") assert.deepEqual(geminiRules(result.messages), [], label);
        types.add(format, label, result.messages);
        const texts = JSON.stringify(result.messages);
        // Never reordered: where the greeting is kept, it is before the first question kept.
        const greeting = texts.indexOf("How can I help");
        const question = texts.search(/question \d+/);
        if (greeting >= 0 && question >= 0) assert.ok(greeting < question, label);
        if (strategy !== "mask") assert.ok(result.changed, label);
      }
    }
    assert.deepEqual(types.check(), []);
  });
});

describe("Anthropic: the last user turn holds tool results and text", () => {
  // Extended thinking with tools: the assistant message whose calls the last user turn
  // answers must keep its signed thinking, even when the user wrote text after the results.
  const chain = [{ role: "user", content: "Fix the failing test." }];
  for (let i = 0; i < 6; i++) {
    chain.push({
      role: "assistant",
      content: [
        { type: "thinking", thinking: `I should look at file ${i}.`, signature: `SIG_${i}` },
        { type: "tool_use", id: `toolu_0${i}`, name: "bash", input: { cmd: `cat f${i}` } },
      ],
    });
    const result = { type: "tool_result", tool_use_id: `toolu_0${i}`, content: filler(i).repeat(3) };
    chain.push({
      role: "user",
      content: i === 5 ? [result, { type: "text", text: "Also check the tests." }] : [result],
    });
  }

  it("keeps the thinking of that assistant message with every strategy", async () => {
    const last = chain.at(-2);
    for (const strategy of STRATEGIES) {
      const result = await compact(chain, { strategy, maxTokens: 1500, summarizer: same });
      assert.deepEqual(anthropicRules(result.messages), [], strategy);
      // "A final assistant message must start with a thinking block": the one the last
      // user turn's results answer is kept as it was (not folded, not summarized).
      const assistants = result.messages.filter((m) => m.role === "assistant");
      assert.deepEqual(assistants.at(-1), last, strategy);
    }
  });
});

describe("OpenAI Agents SDK items", () => {
  const message = (id, turn, text) => ({
    type: "message",
    id,
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text }],
    providerData: { turn },
  });
  it("gives back each kept item as its own object when two say the same", async () => {
    const items = [
      { role: "user", content: `first request ${"context ".repeat(300)}` },
      message("msg_OLD", "old", "OK"),
    ];
    for (let i = 0; i < 6; i++)
      items.push({ role: "user", content: `step ${i} ${"more ".repeat(80)}` }, message(`m${i}`, i, filler(i)));
    items.push({ role: "user", content: "go on" }, message("msg_NEW", "new", "OK"), {
      role: "user",
      content: "and now?",
    });
    for (const strategy of ["auto", "window", "sections", "budget"]) {
      const { items: out, changed } = await compactAgentItems(items, {
        strategy: folding(strategy),
        maxTokens: 800,
        summarizer: same,
      });
      assert.ok(changed, strategy);
      assert.ok(!out.includes(items[1]), `${strategy}: the folded early item is not given back`);
      assert.ok(out.includes(items.at(-2)), `${strategy}: the kept one is`);
      for (const item of out) protocol.ModelItem.parse(item);
      assert.ok(
        inOrder(
          out.filter((o) => items.includes(o)),
          items,
        ) > 0,
      );
    }
  });

  it("measures images and files in tool outputs as media, not as their base64 text", async () => {
    const png = `data:image/png;base64,${"iVBORw0KGgo".repeat(20_000)}`;
    const items = [{ role: "system", content: "You test web pages." }];
    for (let i = 0; i < 5; i++) {
      const output =
        i % 2 === 0
          ? { type: "image", image: png }
          : [
              { type: "input_text", text: "the page" },
              { type: "input_image", image: png },
              { type: "input_file", file: `data:application/pdf;base64,${"JVBERi0x".repeat(100)}`, filename: "p.pdf" },
            ];
      items.push(
        { role: "user", content: `take screenshot ${i}` },
        { type: "function_call", callId: `call_${i}`, name: "screenshot", arguments: "{}", status: "completed" },
        { type: "function_call_result", callId: `call_${i}`, name: "screenshot", status: "completed", output },
        {
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "I see it." }],
        },
      );
    }
    for (const item of items) protocol.ModelItem.parse(item);
    const fits = await compactAgentItems(items, { maxTokens: 20_000 });
    assert.equal(fits.changed, false);
    assert.equal(fits.items, items);
    // Masked, an output goes back as the SDK's own output type.
    const masked = await compactAgentItems(items, { strategy: "mask", maxTokens: 200, summarizer: same });
    for (const item of masked.items) protocol.ModelItem.parse(item);
  });

  it("shows the summarizer an attachment's name and a hosted call's query, and keeps the parts as given", async () => {
    // They went as opaque placeholders ("[agents_part]", "[agents_hosted_tool_call: ...]"):
    // after a fold the file's name and the search were gone.
    const big = (t) => `${t} ${"lorem ipsum dolor sit amet ".repeat(80)}`;
    const file = { type: "input_file", file: { id: "file-123" }, filename: "Q3_REVENUE_REPORT.pdf" };
    const image = { type: "input_image", image: { id: "file-456" }, detail: "high" };
    const ask = {
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "Summarize these" }, file, image],
    };
    const items = [
      { type: "message", role: "user", content: "hello" },
      { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "hi" }] },
      ask,
      {
        type: "hosted_tool_call",
        id: "ws_1",
        name: "web_search_call",
        status: "completed",
        arguments: JSON.stringify({ query: "ACME_Q3_GUIDANCE" }),
        output: "found 3 pages",
      },
      { type: "function_call", callId: "c1", name: "read", arguments: "{}", status: "completed" },
      {
        type: "function_call_result",
        callId: "c1",
        name: "read",
        status: "completed",
        output: { type: "text", text: big("d") },
      },
      { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done" }] },
      { type: "message", role: "user", content: "next question" },
      { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "ok" }] },
    ];
    for (const item of items) protocol.ModelItem.parse(item);
    const prompts = [];
    const summarizer = async (r) => {
      prompts.push(r.prompt);
      return "S";
    };
    const folded = await compactAgentItems(items, { maxTokens: 200, summarizer });
    const seen = prompts.join("\n");
    for (const said of ["Q3_REVENUE_REPORT.pdf", "web_search_call", "ACME_Q3_GUIDANCE"])
      assert.ok(seen.includes(said), said);
    assert.ok(!seen.includes("agents_part"));
    for (const item of folded.items) protocol.ModelItem.parse(item);
    // Kept, the message is the caller's, parts and all; under the budget, everything is.
    const roomy = await compactAgentItems(items, { maxTokens: 100_000 });
    assert.equal(roomy.changed, false);
    const masked = await compactAgentItems(items, { strategy: "mask", maxTokens: 300, summarizer });
    const kept = masked.items.find((i) => i.content?.[1]?.type === "input_file");
    assert.equal(kept, ask);
  });
});

describe("AI SDK: files the provider stores, and ai 7's new parts", () => {
  const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };
  /** A model calling `screenshot` `calls` times, then answering; every prompt it got recorded. */
  const scripted = (calls, prompts) => {
    let n = 0;
    return new MockLanguageModelV4({
      doGenerate: async ({ prompt }) => {
        prompts.push(prompt);
        n += 1;
        const content =
          n <= calls
            ? [{ type: "tool-call", toolCallId: `c${n}`, toolName: "screenshot", input: "{}" }]
            : [{ type: "text", text: "I see the page." }];
        return { content, finishReason: { unified: n <= calls ? "tool-calls" : "stop" }, usage, warnings: [] };
      },
    });
  };
  // Each `toModelOutput` shape ai 7 writes into the history as it is.
  const items = [
    (id) => ({ type: "file", mediaType: "image/png", data: { type: "reference", reference: { openai: id } } }),
    (id) => ({ type: "image-file-id", fileId: id }),
    (id) => ({ type: "file-id", fileId: { openai: id } }),
    (id) => ({ type: "image-file-reference", providerReference: { openai: id } }),
    (id) => ({ type: "file-reference", providerReference: { openai: id } }),
    () => ({ type: "custom", providerOptions: { openai: { kind: "x" } } }),
  ];
  const screenshot = tool({
    inputSchema: jsonSchema({ type: "object" }),
    execute: async () => ({ at: Date.now() }),
    toModelOutput: ({ toolCallId }) => ({
      type: "content",
      value: [
        { type: "text", text: `Screenshot ${toolCallId} uploaded. ${"The page shows a long table. ".repeat(30)}` },
        items[Number(toolCallId.slice(1)) % items.length](`file-${toolCallId}`),
      ],
    }),
  });

  it("runs an agent loop with compactStep and the middleware over tool outputs that reference files", async () => {
    for (const how of ["compactStep", "middleware"]) {
      const prompts = [];
      const model = scripted(8, prompts);
      const options = { maxTokens: 900, summarizer: same };
      const run = await generateText({
        model: how === "middleware" ? wrapLanguageModel({ model, middleware: contextfoldMiddleware(options) }) : model,
        tools: { screenshot },
        messages: [{ role: "user", content: "Check every page." }],
        stopWhen: stepCountIs(10),
        ...(how === "compactStep" ? { prepareStep: compactStep(options) } : {}),
      });
      assert.equal(run.text, "I see the page.", how);
      // The loop compacted (the last prompt is shorter than the history) and each item the
      // model was last sent is one the tool wrote, as it wrote it.
      const history = run.response.messages;
      for (const m of history) modelMessageSchema.parse(m);
      const tools = (list) => list.filter((m) => m.role === "tool").length;
      assert.ok(tools(prompts.at(-1)) < 8, `${how}: the loop compacted (8 tool results made)`);
      assert.ok(JSON.stringify(prompts.at(-1)).includes("file-c8"), `${how}: the latest output is sent as it was`);
    }
  });

  it("compacts histories holding bare provider references and every stored-file item", async () => {
    const history = [
      {
        role: "user",
        content: [
          { type: "text", text: "Read these." },
          { type: "file", data: { openai: "file-pdf" }, mediaType: "application/pdf" },
          { type: "image", image: { openai: "file-img" } },
        ],
      },
    ];
    for (let i = 0; i < items.length; i++) {
      history.push(
        { role: "assistant", content: [{ type: "tool-call", toolCallId: `c${i}`, toolName: "screenshot", input: {} }] },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: `c${i}`,
              toolName: "screenshot",
              output: { type: "content", value: [{ type: "text", text: filler(i) }, items[i](`file-${i}`)] },
            },
          ],
        },
        { role: "assistant", content: filler(i) },
        { role: "user", content: `next ${i}` },
      );
    }
    for (const m of history) modelMessageSchema.parse(m);
    for (const strategy of STRATEGIES) {
      const result = await compact(history, { strategy, maxTokens: 600, summarizer: same });
      for (const m of result.messages) modelMessageSchema.parse(m);
      // Whatever is kept of a tool output is kept whole.
      const ours = (m) => m.role === "tool" && m.content.some((p) => /^c\d$/.test(p.toolCallId));
      for (const m of result.messages.filter(ours)) {
        assert.ok(history.some((h) => JSON.stringify(h) === JSON.stringify(m)) || strategy === "mask", strategy);
      }
    }
    const fits = await compact(history, { maxTokens: 100_000 });
    assert.equal(fits.changed, false);
  });

  it("reads UIMessages with reasoning-file, custom and steering-message parts", async () => {
    const ui = [{ id: "u1", role: "user", parts: [{ type: "text", text: "Plan the trip." }] }];
    for (let i = 0; i < 6; i++) {
      ui.push(
        {
          id: `a${i}`,
          role: "assistant",
          parts: [
            { type: "step-start" },
            { type: "reasoning", text: `thinking ${i}`, state: "done" },
            { type: "reasoning-file", mediaType: "image/png", url: "data:image/png;base64,iVBORw0KGgo=" },
            { type: "custom", kind: "openai.compaction", providerMetadata: { openai: { enc: `x${i}` } } },
            { type: "text", text: filler(i), state: "done" },
          ],
        },
        {
          id: `u${i + 2}`,
          role: "user",
          parts: [
            { type: "steering-message", id: `s${i}`, parts: [{ type: "text", text: `and day ${i}` }] },
            { type: "text", text: `day ${i}?` },
          ],
        },
      );
    }
    await validateUIMessages({ messages: ui });
    for (const strategy of STRATEGIES) {
      const result = await compact(ui, { strategy, maxTokens: 500, summarizer: same });
      await validateUIMessages({ messages: result.messages });
      await convertToModelMessages(result.messages);
      assert.deepEqual(result.messages.at(-1), ui.at(-1), strategy);
    }
  });

  it("convert from UIMessages carries reasoning-file and custom parts as convertToModelMessages does", async () => {
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    const ui = [
      { id: "u", role: "user", parts: [{ type: "text", text: "hi" }] },
      {
        id: "a",
        role: "assistant",
        parts: [
          { type: "step-start" },
          { type: "reasoning-file", mediaType: "image/png", url: `data:image/png;base64,${png}` },
          { type: "custom", kind: "openai.compaction", providerMetadata: { openai: { encrypted: "ENC-COMPACTED" } } },
          { type: "text", text: "answer", state: "done" },
        ],
      },
      { id: "u2", role: "user", parts: [{ type: "text", text: "next" }] },
    ];
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    };
    // What a model is given: `ai`'s own conversion and contextfold's, through generateText.
    const prompt = async (messages) => {
      let seen;
      const model = new MockLanguageModelV4({
        doGenerate: async (options) => {
          seen = options.prompt;
          return { content: [{ type: "text", text: "ok" }], finishReason: { unified: "stop" }, usage, warnings: [] };
        },
      });
      await generateText({ model, messages });
      // As JSON: a string content's part has no `providerOptions: undefined`.
      return JSON.parse(JSON.stringify(seen));
    };
    const out = convert(ui, { from: "aisdk-ui", to: "aisdk" });
    // Only the UI's own fields (`id`, `state`) go.
    assert.deepEqual(
      out.changes.filter((c) => c.change !== "droppedFields"),
      [],
    );
    for (const message of out.messages)
      assert.ok(modelMessageSchema.safeParse(message).success, JSON.stringify(message));
    assert.deepEqual(
      out.messages[1].content.map((p) => p.type),
      ["reasoning-file", "custom", "text"],
    );
    assert.deepEqual(await prompt(out.messages), await prompt(await convertToModelMessages(ui)));
    // Another format gets their rendering, listed as the AI SDK's own parts are.
    for (const to of ["openai", "openai-responses", "anthropic", "gemini", "langchain"]) {
      const other = convert(ui, { from: "aisdk-ui", to });
      const kinds = other.changes.filter((c) => c.change === "replacedNativeBlock" && c.index === 1).map((c) => c.kind);
      assert.deepEqual(kinds, ["reasoning-file", "custom"], `${to}: ${JSON.stringify(other.changes)}`);
    }
  });
});

describe("a system or developer message in the middle of the chat", () => {
  const openai = [{ role: "system", content: "Be brief." }];
  for (let i = 0; i < 12; i++) {
    openai.push({ role: "user", content: `question ${i}` }, { role: "assistant", content: filler(i) });
    if (i === 3) openai.push({ role: "developer", content: "Answer in French now." });
    if (i === 9) openai.push({ role: "system", content: "Now be verbose." });
  }
  const instructions = ["Answer in French now.", "Now be verbose."];

  it("stays where it was said (OpenAI, Responses, Anthropic), kept or summarized, never lost", async () => {
    const types = new TypeCollector("sdk-mid-system");
    for (const format of ["openai", "openai-responses", "anthropic"]) {
      const chain = format === "openai" ? openai : convert(openai, { to: format }).messages;
      assert.equal((await compact(chain, { format, maxTokens: 100_000 })).changed, false, format);
      assert.equal(repairChain(chain, { format }).changed, false, format);
      for (const strategy of STRATEGIES) {
        for (const maxTokens of [600, 1200, 2500]) {
          const label = `${format} ${strategy} ${maxTokens}`;
          const asked = [];
          const summarizer = async (request) => {
            asked.push(JSON.stringify(request));
            return "Summary: the earlier questions were answered.";
          };
          const result = await compact(chain, { format, strategy, maxTokens, summarizer });
          assert.deepEqual(validateChain(result.messages, { format }), [], label);
          if (format === "anthropic") assert.deepEqual(anthropicRules(result.messages), [], label);
          types.add(format, label, result.messages);
          const out = JSON.stringify(result.messages);
          for (const text of instructions) {
            // Kept as the system message it was, or sent to be summarized.
            const kept = new RegExp(`"role":"(system|developer)","content":"${text}"`).test(out);
            assert.ok(kept || asked.some((a) => a.includes(text)), `${label}: ${text}`);
          }
        }
      }
    }
    assert.deepEqual(types.check(), []);
  });

  it("reads Anthropic's SystemMessageParam with clear_at in a request and writes it back", async () => {
    const mid = {
      role: "system",
      content: "Be terse from now on.",
      clear_at: "next_user_message",
      output_config: { effort: "low" },
    };
    const request = {
      model: "claude-opus-4-5",
      max_tokens: 512,
      system: "sys",
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello" },
        mid,
        { role: "user", content: "go on" },
      ],
    };
    const kept = await compact(request, { maxTokens: 100_000 });
    assert.equal(kept.changed, false);
    assert.deepEqual(repairChain(request).messages, request);
    const long = structuredClone(request);
    for (let i = 0; i < 10; i++)
      long.messages.push({ role: "assistant", content: filler(i) }, { role: "user", content: `more ${i}` });
    long.messages.splice(2, 1);
    long.messages.splice(-1, 0, mid);
    const result = await compact(long, { maxTokens: 600, summarizer: same });
    assert.ok(result.changed);
    assert.ok(result.messages.messages.some((m) => JSON.stringify(m) === JSON.stringify(mid)));
  });
});

describe("AI SDK UIMessages: a tool approval left unanswered, then a new user message", () => {
  const PLACEHOLDER = "the call was not handled, please try again";
  it("keeps the waiting call as the SDK holds it, with every strategy", async () => {
    const pending = (i, state) => ({
      id: `a${i}`,
      role: "assistant",
      parts: [
        { type: "step-start" },
        {
          type: "tool-dropDb",
          toolCallId: `t${i}`,
          state,
          input: { db: `staging${i}` },
          ...(state === "approval-requested" ? { approval: { id: `ap${i}` } } : {}),
        },
      ],
    });
    const ui = [{ id: "u0", role: "user", parts: [{ type: "text", text: "Drop the staging databases." }] }];
    for (let i = 0; i < 6; i++) {
      ui.push(pending(i, i % 2 ? "input-available" : "approval-requested"));
      ui.push({ id: `u${i + 1}`, role: "user", parts: [{ type: "text", text: `Never mind. ${filler(i)}` }] });
    }
    await validateUIMessages({ messages: ui });
    const repaired = repairChain(ui);
    await validateUIMessages({ messages: repaired.messages });
    assert.deepEqual(
      repaired.messages.filter((m) => m.id === "a0"),
      [ui[1]],
    );
    for (const strategy of STRATEGIES) {
      const result = await compact(ui, { strategy, maxTokens: 400, summarizer: same });
      await validateUIMessages({ messages: result.messages });
      await convertToModelMessages(result.messages);
      for (const m of result.messages.filter((m) => /^a\d$/.test(m.id))) {
        // A call awaiting approval is the part it was (the SDK leaves it out): no output
        // the tool never gave, no approval claimed. One that was to run gets the repair's
        // answer as an error, the SDK needs a result for it before the next user message.
        const before = ui.find((u) => u.id === m.id);
        const [, part] = before.parts;
        const expected =
          part.state === "input-available"
            ? { ...before, parts: [before.parts[0], { ...part, state: "output-error", errorText: PLACEHOLDER }] }
            : before;
        assert.deepEqual(m, expected, strategy);
      }
    }
  });
});

describe("@google/genai: GenerateContentParameters keep the system prompt in config", () => {
  const contents = [];
  for (let i = 0; i < 8; i++) {
    contents.push(
      { role: "user", parts: [{ text: `question ${i}` }] },
      { role: "model", parts: [{ text: filler(i) }] },
    );
  }
  contents.push({ role: "user", parts: [{ text: "and now?" }] });
  const long = "You are a careful coding assistant. ".repeat(200);

  it("counts it, keeps it there, and the SDK sends it", async () => {
    for (const systemInstruction of [long, { parts: [{ text: long }] }]) {
      const request = { model: "gemini-2.5-flash", contents, config: { temperature: 0, systemInstruction } };
      // The budget counts it: 1,800 tokens of system prompt do not fit 1,000.
      assert.equal(needsCompaction(request, { maxTokens: 1000 }), true);
      await assert.rejects(compact(request, { maxTokens: 1000, summarizer: same }), { code: "budget_exceeded" });
      for (const strategy of STRATEGIES) {
        const result = await compact(request, { strategy, maxTokens: 2400, summarizer: same });
        assert.deepEqual(Object.keys(result.messages).sort(), ["config", "contents", "model"], strategy);
        assert.equal(result.messages.config.temperature, 0);
        assert.ok(JSON.stringify(result.messages.config.systemInstruction).includes("careful coding"), strategy);
        assert.deepEqual(geminiRules(result.messages.contents), [], strategy);
        assert.deepEqual(
          await geminiSdk({
            contents: result.messages.contents,
            systemInstruction: result.messages.config.systemInstruction,
          }),
          [],
          strategy,
        );
      }
    }
  });
});

describe("LangChain messages alike but for a number", () => {
  it("come back as the caller's own objects when kept, with every strategy", async () => {
    // "Continue 1" / id h1 and "Continue 2" / id h2: their fingerprints once collided, and
    // the whole result came back as copies.
    const history = [new SystemMessage({ content: "You are careful.", id: "sys1" })];
    for (let t = 0; t < 6; t++) {
      history.push(
        new HumanMessage({ id: `h${t}`, content: `Continue ${t}` }),
        new AIMessage({ id: `a${t}`, content: filler(t) }),
      );
    }
    for (const form of ["instances", "toJSON"]) {
      const input = form === "instances" ? history : history.map((m) => m.toJSON());
      for (const strategy of ["auto", "budget", "sections", "window"]) {
        const result = await compact(input, { strategy: folding(strategy), maxTokens: 400, summarizer: same });
        assert.ok(result.changed, `${form} ${strategy}`);
        const kept = result.messages.filter((m) => input.includes(m));
        // Whatever equals an input message is that very object.
        const copies = result.messages.filter(
          (m) => !input.includes(m) && input.some((i) => JSON.stringify(i) === JSON.stringify(m)),
        );
        assert.deepEqual(copies, [], `${form} ${strategy}`);
        assert.ok(kept.length > 0, `${form} ${strategy}`);
      }
    }
  });
});

describe("UIMessages: the last step of an agent turn kept without its first", () => {
  it("keeps the UIMessage's id and metadata", async () => {
    const big = "line of code ".repeat(400);
    const turn = (n, file) => ({
      id: `msg-${n}`,
      role: "assistant",
      metadata: { model: "gpt-x", createdAt: n },
      parts: [
        { type: "step-start" },
        { type: "tool-read", toolCallId: `r${n}`, state: "output-available", input: { path: file }, output: big },
        { type: "step-start" },
        { type: "text", text: `Fixed ${file}.`, state: "done" },
      ],
    });
    const ui = [
      { id: "msg-0", role: "user", parts: [{ type: "text", text: "Fix the bug." }] },
      turn(1, "a.ts"),
      { id: "msg-2", role: "user", parts: [{ type: "text", text: "Now b.ts." }] },
      turn(3, "b.ts"),
      { id: "msg-4", role: "user", parts: [{ type: "text", text: "Thanks, and c.ts?" }] },
    ];
    for (const strategy of ["auto", "window"]) {
      const result = await compact(ui, { strategy, maxTokens: 600, summarizer: same });
      await validateUIMessages({ messages: result.messages });
      const ids = result.messages.map((m) => m.id);
      assert.equal(new Set(ids).size, ids.length, `${strategy}: ids unique`);
      const fixed = result.messages.find((m) => JSON.stringify(m).includes("Fixed b.ts."));
      assert.equal(fixed.id, "msg-3", strategy);
      assert.deepEqual(fixed.metadata, { model: "gpt-x", createdAt: 3 }, strategy);
    }
  });
});

describe("Responses: a request continuing a stored response (previous_response_id)", () => {
  const output = { type: "function_call_output", call_id: "call_abc", output: "Sunny, 21C" };
  it("keeps the results it opens with, which answer calls the provider stores", async () => {
    const short = { model: "gpt-5", previous_response_id: "resp_123", input: [output] };
    assert.deepEqual(validateChain(short), []);
    const repaired = repairChain(short);
    assert.equal(repaired.changed, false);
    assert.equal((await compact(short, { maxTokens: 100_000 })).changed, false);
    // A long input after them compacts; the results stay first, as they were.
    const long = { model: "gpt-5", conversation: "conv_1", input: [output] };
    for (let i = 0; i < 10; i++) {
      long.input.push({ role: "user", content: `question ${i}` }, { role: "assistant", content: filler(i) });
    }
    for (const strategy of STRATEGIES) {
      const result = await compact(long, { strategy, maxTokens: 700, summarizer: same });
      assert.equal(result.messages.input[0], output, strategy);
      assert.equal(result.messages.conversation, "conv_1");
      assert.deepEqual(validateChain(result.messages), [], strategy);
    }
    // Without previous_response_id or conversation a leading result answers nothing.
    assert.equal(repairChain({ model: "gpt-5", input: [output, { role: "user", content: "hi" }] }).changed, true);
  });

  it("keeps them after the request's instructions too", async () => {
    // With `instructions` (read as a system message first) they were orphans: repairChain
    // dropped them and compact changed the request under its budget.
    const request = {
      model: "gpt-5",
      previous_response_id: "resp_1",
      instructions: "be brief",
      input: [output, { role: "user", content: "hi" }],
    };
    assert.deepEqual(validateChain(request), []);
    assert.equal(repairChain(request).changed, false);
    assert.equal((await compact(request, { maxTokens: 100_000 })).changed, false);
  });
});

describe("Responses: the provider's compaction item", () => {
  // The earlier conversation, encrypted by responses.compact: folded, it was gone (budget
  // in the Responses format, auto and budget through compactAgentItems), and no summarizer
  // could read it.
  const filler = (t) => `${t} ${"lorem ipsum dolor sit amet ".repeat(80)}`;
  const compaction = { type: "compaction", id: "cmp_1", encrypted_content: "OLD_HISTORY_ENC" };
  const responses = [compaction];
  const agents = [{ type: "compaction", id: "cmp_1", encrypted_content: "OLD_HISTORY_ENC" }];
  for (let t = 1; t < 5; t++) {
    responses.push(
      { role: "user", content: `q${t}` },
      { type: "function_call", call_id: `c${t}`, name: "read", arguments: "{}" },
      { type: "function_call_output", call_id: `c${t}`, output: filler(`o${t}`) },
      { role: "assistant", content: [{ type: "output_text", text: `a${t}` }] },
    );
    agents.push(
      { type: "message", role: "user", content: `q${t}` },
      { type: "function_call", callId: `c${t}`, name: "read", arguments: "{}", status: "completed" },
      { type: "function_call_result", callId: `c${t}`, name: "read", status: "completed", output: filler(`o${t}`) },
      { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: `a${t}` }] },
    );
  }

  it("stays first, as it is, with every strategy", async () => {
    for (const strategy of STRATEGIES) {
      const result = await compact(responses, {
        format: "openai-responses",
        strategy,
        maxTokens: 400,
        summarizer: same,
      });
      // tiers counts messages: these are few.
      assert.equal(result.changed, strategy !== "tiers", strategy);
      assert.deepEqual(result.messages[0], compaction, strategy);
      assert.deepEqual(validateChain(result.messages, { format: "openai-responses" }), [], strategy);
      const viaAgents = await compactAgentItems(agents, { strategy, maxTokens: 400, summarizer: same });
      assert.equal(viaAgents.items[0], agents[0], `${strategy}: the agents item itself`);
      for (const item of viaAgents.items) protocol.ModelItem.parse(item);
      // A result compaction made is named by its own call.
      const names = new Map(viaAgents.items.filter((i) => i.type === "function_call").map((i) => [i.callId, i.name]));
      for (const item of viaAgents.items.filter((i) => i.type === "function_call_result")) {
        assert.equal(item.name, names.get(item.callId), `${strategy}: ${item.callId}`);
      }
    }
    // It counts in the budget: alone over it, a typed error.
    await assert.rejects(
      compact([{ ...compaction, encrypted_content: "x".repeat(4000) }, ...responses.slice(1)], {
        format: "openai-responses",
        maxTokens: 300,
        summarizer: same,
      }),
      { code: "budget_exceeded" },
    );
  });
});

describe("Anthropic plain-text documents across formats", () => {
  it("go to others as base64 of their text and come back as a PlainTextSource", () => {
    const doc = {
      type: "document",
      source: { type: "text", media_type: "text/plain", data: "hello world é" },
      title: "notes",
    };
    const chain = [{ role: "user", content: [doc, { type: "text", text: "Summarize it." }] }];
    const base64 = Buffer.from("hello world é").toString("base64");
    const types = new TypeCollector("sdk-text-documents");
    for (const via of ["native", "openai", "openai-responses", "aisdk", "gemini"]) {
      const there = convert(chain, { from: "anthropic", to: via }).messages;
      if (via !== "native") assert.ok(JSON.stringify(there).includes(base64), via);
      const back = convert(there, { from: via, to: "anthropic" }).messages;
      const block = back[0].content.find((b) => b.type === "document");
      assert.deepEqual(block.source, doc.source, via);
      types.add("anthropic", via, back);
    }
    assert.deepEqual(types.check(), []);
  });
});

describe("convert between the two OpenAI APIs", () => {
  it("keeps what both carry: custom tool calls, developer messages, image detail", () => {
    const chat = [
      { role: "developer", content: "Be brief." },
      {
        role: "user",
        content: [
          { type: "text", text: "see" },
          { type: "image_url", image_url: { url: "https://e.com/a.png", detail: "high" } },
        ],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_abcdefghijklmnopqrstuvwx", type: "custom", custom: { name: "sql", input: "SELECT 1" } },
        ],
      },
      { role: "tool", tool_call_id: "call_abcdefghijklmnopqrstuvwx", content: "1 row" },
      { role: "assistant", content: "One row." },
    ];
    const responses = convert(chat, { from: "openai", to: "openai-responses" });
    assert.deepEqual(responses.changes, []);
    const items = responses.messages;
    assert.equal(items[0].role, "developer");
    assert.equal(items[1].content[1].detail, "high");
    assert.deepEqual(items[2], {
      type: "custom_tool_call",
      call_id: "call_abcdefghijklmnopqrstuvwx",
      name: "sql",
      input: "SELECT 1",
    });
    assert.equal(items[3].type, "custom_tool_call_output");
    const back = convert(items, { from: "openai-responses", to: "openai" });
    assert.deepEqual(back.changes, []);
    assert.deepEqual(back.messages, chat);
    const types = new TypeCollector("sdk-openai-convert");
    types.add("openai", "back", back.messages);
    assert.deepEqual(types.check(), []);
  });

  it("keeps a Responses refusal a refusal in Chat", () => {
    const items = [
      { role: "user", content: "q" },
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [{ type: "refusal", refusal: "No." }],
      },
    ];
    const chat = convert(items, { from: "openai-responses", to: "openai" }).messages;
    assert.deepEqual(chat[1].content, [{ type: "refusal", refusal: "No." }]);
    const types = new TypeCollector("sdk-openai-refusal");
    types.add("openai", "refusal", chat);
    assert.deepEqual(types.check(), []);
  });

  it("drops a model-made image from an assistant turn, and says so", () => {
    // `generateText`'s response messages when the model returned a file.
    const history = [
      { role: "user", content: "Draw a logo." },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Here is the logo." },
          { type: "file", data: "iVBORw0KGgo=", mediaType: "image/png" },
        ],
      },
      { role: "user", content: "Make it blue." },
    ];
    for (const to of ["openai", "openai-responses"]) {
      const out = convert(history, { from: "aisdk", to });
      assert.ok(
        out.changes.some((c) => c.change === "droppedMedia" && c.index === 1),
        to,
      );
      assert.deepEqual(validateChain(out.messages, { format: to }), [], to);
      assert.ok(!JSON.stringify(out.messages).includes("iVBORw0KGgo="), to);
    }
  });
});

describe("Responses: tool outputs after an item_reference", () => {
  it("answer the stored item it stands for: kept with it, no call made up", async () => {
    const short = [
      { role: "user", content: "weather?" },
      { type: "item_reference", id: "fc_1" },
      { type: "function_call_output", call_id: "call_abc", output: "Sunny" },
    ];
    assert.deepEqual(validateChain(short), []);
    assert.equal(repairChain(short).changed, false);
    assert.equal((await compact(short, { maxTokens: 100_000 })).changed, false);
    const long = [{ role: "user", content: "start" }];
    for (let i = 0; i < 8; i++) {
      long.push(
        { role: "user", content: `q${i} ${"more ".repeat(100)}` },
        { type: "item_reference", id: `fc_${i}` },
        { type: "function_call_output", call_id: `call_${i}`, output: "result ".repeat(150) },
        { role: "assistant", content: filler(i) },
      );
    }
    for (const strategy of STRATEGIES) {
      const result = await compact(long, { strategy, maxTokens: 600, summarizer: same });
      assert.deepEqual(validateChain(result.messages), [], strategy);
      const count = (type) => result.messages.filter((m) => m.type === type).length;
      assert.equal(count("function_call"), 0, strategy);
      assert.equal(count("item_reference"), count("function_call_output"), strategy);
    }
  });
});

describe("@google/genai: contents as one content, one part or a string", () => {
  it("is read as the SDK reads it (ContentListUnion), and anything else is a typed error", async () => {
    for (const contents of ["hello", { role: "user", parts: [{ text: "hi" }] }, { text: "a part" }]) {
      const request = { model: "gemini-2.5-flash", contents, config: { systemInstruction: "be brief" } };
      assert.deepEqual(validateChain(request), [], JSON.stringify(contents));
      assert.equal(repairChain(request).changed, false);
      const kept = await compact(request, { maxTokens: 100_000 });
      assert.equal(kept.changed, false);
      assert.equal(kept.messages, request);
      // Counted: the system prompt and the content.
      assert.equal(needsCompaction(request, { maxTokens: 3 }), true);
    }
    assert.throws(() => validateChain({ model: "m", contents: 5 }), { code: "unknown_format", path: "contents" });
  });

  it("reads a list of parts and strings as the one user content the SDK sends, and refuses what the SDK refuses", async () => {
    const image = { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } };
    for (const contents of [["hello"], [{ text: "a part" }], ["look at this", image, { text: "and this" }]]) {
      const request = { model: "gemini-2.5-flash", contents, config: { systemInstruction: "be brief" } };
      const label = JSON.stringify(contents);
      assert.deepEqual(validateChain(request), [], label);
      assert.equal(repairChain(request).changed, false, label);
      const kept = await compact(request, { maxTokens: 100_000 });
      assert.equal(kept.changed, false, label);
      assert.equal(kept.messages, request, label);
      // The parts are one user message: converted, the SDK's own reading of the request.
      const { messages } = convert(request, { to: "gemini" });
      const parts = contents.map((p) => (typeof p === "string" ? { text: p } : p));
      assert.deepEqual(messages.contents, [{ role: "user", parts }], label);
      assert.deepEqual(await geminiSdk(messages), [], label);
    }
    // Counted in full: a list of large parts is over a small budget, and read in one pass
    // or from the tree alike (JSON text goes the streaming way).
    const big = ["first " + "word ".repeat(400), { text: "second " + "word ".repeat(400) }];
    const request = { model: "gemini-2.5-flash", contents: big };
    assert.equal(needsCompaction(request, { maxTokens: 500 }), true);
    assert.equal(needsCompaction(JSON.stringify(request), { maxTokens: 500 }), true);
    assert.equal((await compact(JSON.stringify(request), { maxTokens: 100_000 })).changed, false);
    // Where the SDK throws (contents and parts mixed, a function call outside a content),
    // a typed error at `contents`.
    const call = { functionCall: { name: "f", args: {} } };
    for (const contents of [["hi", { role: "user", parts: [{ text: "x" }] }], ["hi", call], [call]]) {
      for (const input of [{ model: "m", contents }, JSON.stringify({ model: "m", contents })]) {
        await assert.rejects(compact(input, { maxTokens: 100_000 }), { code: "invalid_shape", path: "contents" });
      }
    }
  });
});

describe("AI SDK uploads as data URLs, and media sources by URL for Anthropic", () => {
  const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
  const PDF = Buffer.from("%PDF-1.4 a small document").toString("base64");

  it("are inline data in every other format, and the same URLs again in the AI SDK's", async () => {
    // convertToModelMessages gives a useChat upload as {type: "url", url: "data:..."}: it
    // was taken for a link (an Anthropic url source no provider fetches, dropped for
    // OpenAI Chat, an input_file by URL for Responses).
    const ui = [
      {
        id: "u1",
        role: "user",
        parts: [
          { type: "text", text: "see" },
          { type: "file", mediaType: "image/png", url: `data:image/png;base64,${PNG}` },
          { type: "file", mediaType: "application/pdf", filename: "a.pdf", url: `data:application/pdf;base64,${PDF}` },
        ],
      },
      { id: "a1", role: "assistant", parts: [{ type: "text", text: "ok" }] },
    ];
    const legacy = [
      {
        role: "user",
        content: [
          { type: "text", text: "see" },
          { type: "image", image: `data:image/png;base64,${PNG}` },
        ],
      },
      { role: "assistant", content: "ok" },
    ];
    const types = new TypeCollector("sdk-data-urls");
    // As the route handler holds them (JSON: no `filename: undefined`).
    const model = JSON.parse(JSON.stringify(await convertToModelMessages(ui)));
    for (const [label, messages] of [
      ["convertToModelMessages", model],
      ["legacy", legacy],
    ]) {
      modelMessageSchema.array().parse(messages);
      // The AI SDK's own again, byte for byte.
      assert.deepEqual(convert(messages, { from: "aisdk", to: "aisdk" }).messages, messages, label);
      assert.equal((await compact(messages, { maxTokens: 100_000 })).messages, messages, label);
      const anthropic = convert(messages, { from: "aisdk", to: "anthropic" });
      const blocks = anthropic.messages[0].content.slice(1);
      assert.ok(
        blocks.length > 0 && blocks.every((b) => b.source.type === "base64" && b.source.data.length > 0),
        label,
      );
      assert.deepEqual(anthropicRules(anthropic.messages), [], label);
      types.add("anthropic", `${label} anthropic`, anthropic.messages);
      const openai = convert(messages, { from: "aisdk", to: "openai" });
      assert.deepEqual(openai.changes, [], `${label}: nothing dropped for OpenAI`);
      assert.ok(openai.messages[0].content[1].image_url.url.startsWith("data:image/png;base64,"), label);
      types.add("openai", `${label} openai`, openai.messages);
      const responses = convert(messages, { from: "aisdk", to: "openai-responses" });
      assert.equal(responses.messages[0].content[1].type, "input_image", label);
      const gemini = convert(messages, { from: "aisdk", to: "gemini" });
      assert.equal(gemini.messages[0].parts[1].inlineData.data, PNG, label);
    }
    assert.deepEqual(types.check(), []);
  });

  it("a URL source for Anthropic is {type: url, url} alone", () => {
    const cases = {
      gemini: {
        contents: [
          {
            role: "user",
            parts: [
              { text: "read" },
              { fileData: { mimeType: "application/pdf", fileUri: "https://example.com/spec.pdf" } },
              { fileData: { mimeType: "image/png", fileUri: "https://example.com/a.png" } },
            ],
          },
          { role: "model", parts: [{ text: "ok" }] },
        ],
      },
      aisdk: [
        {
          role: "user",
          content: [
            { type: "text", text: "see" },
            { type: "image", image: "https://example.com/a.png", mediaType: "image/png" },
            { type: "file", data: "https://example.com/spec.pdf", mediaType: "application/pdf" },
          ],
        },
        { role: "assistant", content: "ok" },
      ],
    };
    const types = new TypeCollector("sdk-url-sources");
    for (const [from, chain] of Object.entries(cases)) {
      const { messages } = convert(chain, { from, to: "anthropic" });
      const list = Array.isArray(messages) ? messages : messages.messages;
      const sources = list[0].content.slice(1).map((b) => b.source);
      assert.deepEqual(
        sources.map((s) => Object.keys(s).sort()),
        sources.map(() => ["type", "url"]),
        from,
      );
      types.add("anthropic", from, messages);
    }
    assert.deepEqual(types.check(), []);
  });
});

describe("reasoning signatures in the AI SDK's provider fields", () => {
  const id = "toolu_01A09q90qw90lq917835lqAB";
  const anthropic = {
    system: "sys",
    messages: [
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "THINK1", signature: "SIG_ONE" },
          { type: "redacted_thinking", data: "REDACTED_BLOB" },
          { type: "tool_use", id, name: "f", input: {} },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "r" }] },
    ],
  };

  it("go where @ai-sdk/anthropic, google and openai keep them, and come back from there", async () => {
    // They were dropped with no change listed, so anthropic -> aisdk -> anthropic lost
    // the thinking; and a reasoning part signed as @ai-sdk/anthropic gives it was
    // dropped as unsigned on the way to Anthropic.
    const model = convert(anthropic, { from: "anthropic", to: "aisdk" });
    modelMessageSchema.array().parse(model.messages);
    const parts = model.messages.find((m) => m.role === "assistant").content;
    assert.deepEqual(parts[0].providerOptions, { anthropic: { signature: "SIG_ONE" } });
    assert.deepEqual(parts[1].providerOptions, { anthropic: { redactedData: "REDACTED_BLOB" } });
    const back = convert(model.messages, { from: "aisdk", to: "anthropic" });
    assert.deepEqual(back.messages.messages[1].content, anthropic.messages[1].content);
    assert.ok(!back.changes.some((c) => /Signature|Reasoning/.test(c.change)), JSON.stringify(back.changes));
    // As a UIMessage: providerMetadata.
    const ui = convert(anthropic, { from: "anthropic", to: "aisdk-ui" });
    await validateUIMessages({ messages: ui.messages });
    const reasoning = ui.messages.find((m) => m.role === "assistant").parts.filter((p) => p.type === "reasoning");
    assert.deepEqual(reasoning[0].providerMetadata, { anthropic: { signature: "SIG_ONE" } });
    assert.deepEqual(
      convert(ui.messages, { from: "aisdk-ui", to: "anthropic" }).messages.messages[1].content.slice(0, 2),
      anthropic.messages[1].content.slice(0, 2),
    );
    // Gemini's thought signature, a Responses reasoning item's id and encrypted content.
    const gemini = convert(
      {
        contents: [
          { role: "user", parts: [{ text: "q" }] },
          { role: "model", parts: [{ text: "GTHINK", thought: true, thoughtSignature: "GSIG" }, { text: "a" }] },
        ],
      },
      { from: "gemini", to: "aisdk" },
    );
    assert.deepEqual(gemini.messages[1].content[0].providerOptions, { google: { thoughtSignature: "GSIG" } });
    const responses = convert(
      [
        { role: "user", content: "q" },
        { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "R" }], encrypted_content: "ENC" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "a" }] },
      ],
      { from: "openai-responses", to: "aisdk" },
    );
    modelMessageSchema.array().parse(responses.messages);
    assert.deepEqual(responses.messages[1].content[0].providerOptions, {
      openai: { itemId: "rs_1", reasoningEncryptedContent: "ENC" },
    });
    // Signed by @ai-sdk/anthropic: thinking for Anthropic; never a Gemini signature.
    const signed = [
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "AITHINK", providerOptions: { anthropic: { signature: "SIG_AI" } } },
          { type: "text", text: "a" },
        ],
      },
    ];
    assert.deepEqual(convert(signed, { from: "aisdk", to: "anthropic" }).messages[1].content[0], {
      type: "thinking",
      thinking: "AITHINK",
      signature: "SIG_AI",
    });
    const toGemini = convert(signed, { from: "aisdk", to: "gemini" });
    assert.ok(!JSON.stringify(toGemini.messages).includes("SIG_AI"));
    assert.ok(toGemini.changes.some((c) => c.change === "droppedSignature"));
  });
});

describe("images and documents counted as providers bill them", () => {
  /** A PNG's bytes up to its header: what the size is read from. */
  const png = (w, h) => {
    const head = Buffer.alloc(33);
    Buffer.from("89504e470d0a1a0a0000000d49484452", "hex").copy(head);
    head.writeUInt32BE(w, 16);
    head.writeUInt32BE(h, 20);
    return head.toString("base64");
  };

  it("a screenshot by its area, a PDF by its pages", async () => {
    // An image was 85 tokens whatever its size (a screenshot agent went over the window
    // unseen); a file was its base64 text over 4 (a 0.7 MB PDF: 240k tokens, folded away
    // whole under any budget, the question about it left without it).
    const image = (data) => [
      { role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data } }] },
    ];
    const tokens = (chain) => measureChain(chain, { format: "anthropic" }).total.tokens;
    const shot = tokens(image(png(1280, 800)));
    assert.ok(shot > 1300 && shot < 1450, `${shot} tokens for 1280x800 (Anthropic bills 1366)`);
    assert.ok(tokens(image(png(4000, 3000))) <= 1700, "scaled down as the provider does");
    assert.ok(tokens(image(png(16, 16))) < 100);
    const pages = (n) => {
      const objects = Array.from({ length: n }, (_, i) => `${i + 3} 0 obj << /Type /Page /Parent 2 0 R >> endobj`);
      return Buffer.from(
        `%PDF-1.7\n2 0 obj << /Type /Pages /Count ${n} >> endobj\n${objects.join("\n")}\n%%EOF`,
      ).toString("base64");
    };
    const doc = (data) => [
      {
        role: "user",
        content: [{ type: "document", source: { type: "base64", media_type: "application/pdf", data } }],
      },
    ];
    const ten = tokens(doc(pages(10)));
    assert.ok(ten >= 15_000 && ten < 16_000, `${ten} tokens for 10 pages`);
    // Filler bytes do not make pages.
    const padded = Buffer.concat([Buffer.from(pages(3), "base64"), Buffer.alloc(700 * 1024, 0x41)]).toString("base64");
    assert.ok(tokens(doc(padded)) < 5000);
    // The document stays with its question when the chat goes on, far under the window.
    const chain = [
      { role: "user", content: [doc(padded)[0].content[0], { type: "text", text: "What is the termination clause?" }] },
      { role: "assistant", content: "Either party may terminate with 30 days notice." },
      { role: "user", content: "And for the supplier?" },
    ];
    const result = await compact(chain, { format: "anthropic", maxTokens: 192_000 });
    assert.equal(result.changed, false);
  });
});
