// AI SDK agents whose tools need the user's approval, or run at the provider: the history
// is made by `ai`'s own generateText (a mock model, real tools with `needsApproval`), then
// compacted, then judged and carried on by `ai` itself.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact, convert, needsCompaction } from "contextfold";
import { compactStep, contextfoldMiddleware } from "contextfold/ai-sdk";
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { aiSdkModel, aiSdkUi } from "./judges.mjs";

/** A strategy by name, as it folded with `maxTokens` before QA folding (`sections`) and the
 * on-demand re-tiering (`tiers`) had to be asked for: these chats need both to fold. */
const folding = (name) => ({ sections: { name, useQA: true }, tiers: { name, auto: false } })[name] ?? name;

const usage = { inputTokens: { total: 1 }, outputTokens: { total: 1 } };
const STRATEGIES = ["auto", "sections", "window", "tiers", "budget", "mask"];
const summarizer = async (request) => `Summary ${request.id}: files were removed, one removal was refused.`;

/**
 * A model that asks to remove the file a user names (`rm <path>`), searches the web on
 * the provider's side (`search <query>`: a provider-executed call and its result in its
 * own message), and answers anything else.
 */
function agentModel() {
  let n = 0;
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      n++;
      const last = prompt.at(-1);
      const said = last.role === "user" ? last.content.map((p) => p.text ?? "").join("") : "";
      if (said.startsWith("rm ")) {
        const input = JSON.stringify({ path: said.slice(3) });
        return {
          content: [{ type: "tool-call", toolCallId: `call_${n}`, toolName: "rm", input }],
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage,
          warnings: [],
        };
      }
      if (said.startsWith("search ")) {
        const query = said.slice(7);
        return {
          content: [
            {
              type: "tool-call",
              toolCallId: `srv_${n}`,
              toolName: "web_search",
              input: JSON.stringify({ query }),
              providerExecuted: true,
            },
            {
              type: "tool-result",
              toolCallId: `srv_${n}`,
              toolName: "web_search",
              result: [{ url: `https://example.com/${query}`, title: `About ${query} `.repeat(30) }],
            },
            { type: "text", text: `Found a page on ${query}.` },
          ],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: [],
        };
      }
      return {
        content: [{ type: "text", text: `Step ${n} done. ${"The log says what was done. ".repeat(25)}` }],
        finishReason: { unified: "stop", raw: "stop" },
        usage,
        warnings: [],
      };
    },
  });
}

/** The agent's model, and the prompts it was given, in order. */
function watchedModel() {
  const model = agentModel();
  const prompts = [];
  const inner = model.doGenerate;
  model.doGenerate = async (options) => {
    prompts.push(options.prompt);
    return inner(options);
  };
  return { model, prompts };
}

function rmTool(removed) {
  return tool({
    description: "Removes a file",
    inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string" } }, required: ["path"] }),
    needsApproval: true,
    execute: async ({ path }) => {
      removed.push(path);
      return `removed ${path}\n${"rm: removed a directory entry\n".repeat(40)}`;
    },
  });
}

/**
 * `rounds` turns made by generateText as an app makes them (its `responseMessages` kept):
 * removals approved and refused (with a reason), provider-side searches between them.
 * `end`: "done" (every turn answered), "asked" (the last removal waits for the user's
 * answer) or "answered" (the user's answer is the last message).
 */
async function agentHistory(rounds, end = "done") {
  const model = agentModel();
  const tools = { rm: rmTool([]) };
  const messages = [];
  for (let i = 0; i < rounds; i++) {
    const last = i === rounds - 1;
    messages.push({ role: "user", content: i % 3 === 1 ? `search topic${i}` : `rm /tmp/f${i}` });
    let r = await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
    messages.push(...r.responseMessages);
    const asked = r.responseMessages.at(-1).content.find?.((p) => p.type === "tool-approval-request");
    if (!asked) continue;
    if (last && end === "asked") break;
    const approved = i % 3 !== 2;
    messages.push({
      role: "tool",
      content: [
        {
          type: "tool-approval-response",
          approvalId: asked.approvalId,
          approved,
          ...(approved ? {} : { reason: "keep that one" }),
        },
      ],
    });
    if (last && end === "answered") break;
    r = await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
    messages.push(...r.responseMessages);
  }
  return messages;
}

const bytes = (messages) => Buffer.byteLength(JSON.stringify(messages));
const partsOf = (messages, type) =>
  messages.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((p) => p.type === type) : []));

describe("AI SDK tool approvals and provider-executed tools (made by `ai`, judged by `ai`)", () => {
  it("the history `ai` writes is read: approvals, refusals and provider-side calls", async () => {
    const history = await agentHistory(6);
    // The SDK's own shapes are all there.
    assert.ok(partsOf(history, "tool-approval-request").length >= 3);
    assert.ok(partsOf(history, "tool-approval-response").some((p) => p.approved === false));
    assert.ok(partsOf(history, "tool-result").some((p) => p.output.type === "execution-denied"));
    assert.ok(partsOf(history, "tool-call").some((p) => p.providerExecuted));
    assert.deepEqual(await aiSdkModel(history, { systemInInput: false }), []);
    assert.equal(needsCompaction(history, { maxTokens: 1_000_000 }), false);
    assert.equal(needsCompaction(history, { maxTokens: 500 }), true);
    // As UIMessages (what useChat holds): the approvals, which the SDK never sends a
    // model, are dropped and listed; the rest passes `ai`'s own UIMessage checks.
    const ui = convert(history, { from: "aisdk", to: "aisdk-ui" });
    assert.ok(ui.changes.some((c) => c.change === "droppedSdkPart" && c.kind === "tool-approval-request"));
    assert.deepEqual(await aiSdkUi(ui.messages, { systemInInput: false }), []);
  });

  for (const strategy of STRATEGIES) {
    it(`${strategy}: the compacted history passes \`ai\` and keeps each kept call's approval`, async () => {
      const history = await agentHistory(9);
      const maxTokens = Math.floor(bytes(history) / 4 / 3);
      const result = await compact(history, { format: "aisdk", strategy: folding(strategy), maxTokens, summarizer });
      assert.equal(result.changed, true);
      assert.deepEqual(await aiSdkModel(result.messages, { systemInInput: false }), []);
      // An approval request stays beside its call: the SDK finds the call by it.
      for (const m of result.messages) {
        if (!Array.isArray(m.content)) continue;
        const calls = new Set(m.content.filter((p) => p.type === "tool-call").map((p) => p.toolCallId));
        for (const asked of m.content.filter((p) => p.type === "tool-approval-request")) {
          assert.ok(calls.has(asked.toolCallId), `approval ${asked.approvalId} without its call`);
        }
      }
      // What is kept is the caller's own: every part of the last turns as it came.
      assert.deepEqual(result.messages.at(-1), history.at(-1));
      const refused = partsOf(result.messages, "tool-result").filter((p) => p.output.type === "execution-denied");
      for (const p of refused) assert.deepEqual(p.output, { type: "execution-denied", reason: "keep that one" });
    });
  }

  for (const [label, extra] of [
    ["two user messages in a row", { role: "user", content: "(and empty the trash)" }],
    ["a system note mid-chat", { role: "system", content: "Note: the user is an admin." }],
  ]) {
    for (const strategy of ["auto", "mask"]) {
      it(`${strategy}, a chain that needs a repair (${label}): each approval kept keeps the user's answer`, async () => {
        const history = await agentHistory(6);
        // Before the last removal's request, where a budget keeps it verbatim.
        const at = history.findLastIndex((m) => partsOf([m], "tool-approval-request").length > 0);
        const chain = [...history.slice(0, at), extra, ...history.slice(at)];
        const maxTokens = Math.floor(bytes(chain) / 4 / 2);
        const result = await compact(chain, { format: "aisdk", strategy, maxTokens, summarizer });
        const asked = partsOf(result.messages, "tool-approval-request");
        const answered = new Map(partsOf(chain, "tool-approval-response").map((p) => [p.approvalId, p]));
        const kept = new Map(partsOf(result.messages, "tool-approval-response").map((p) => [p.approvalId, p]));
        assert.ok(asked.length > 0);
        for (const { approvalId } of asked) assert.deepEqual(kept.get(approvalId), answered.get(approvalId));
        assert.deepEqual(await aiSdkModel(result.messages, { systemInInput: false }), []);
      });
    }
  }

  it("a removal waiting for approval stays asked: after compaction the user's yes runs the tool", async () => {
    const history = await agentHistory(7, "asked");
    const asked = partsOf([history.at(-1)], "tool-approval-request")[0];
    assert.ok(asked);
    const maxTokens = Math.floor(bytes(history) / 4 / 3);
    const result = await compact(history, { format: "aisdk", maxTokens, summarizer });
    assert.equal(result.changed, true);
    assert.deepEqual(result.messages.at(-1), history.at(-1));
    const removed = [];
    const messages = [
      ...result.messages,
      { role: "tool", content: [{ type: "tool-approval-response", approvalId: asked.approvalId, approved: true }] },
    ];
    const r = await generateText({ model: agentModel(), tools: { rm: rmTool(removed) }, messages });
    assert.deepEqual(removed, ["/tmp/f6"]);
    assert.ok(r.responseMessages.some((m) => m.role === "tool"));
  });

  it("the user's answer as the last message: compaction keeps it with its call, and `ai` runs the tool", async () => {
    const history = await agentHistory(7, "answered");
    assert.equal(history.at(-1).content[0].type, "tool-approval-response");
    // The user answered: the request that runs the tool is being made (`ai` runs it
    // first), so the trigger fires as `compact` would act; still waiting for the user's
    // answer it does not (the request is the previous test's).
    assert.equal(needsCompaction(history, { maxTokens: 200 }), true);
    assert.equal(needsCompaction(history.slice(0, -1), { maxTokens: 200 }), false);
    const maxTokens = Math.floor(bytes(history) / 4 / 3);
    const result = await compact(history, { format: "aisdk", maxTokens, summarizer });
    assert.deepEqual(result.messages.slice(-2), history.slice(-2));
    const removed = [];
    await generateText({ model: agentModel(), tools: { rm: rmTool(removed) }, messages: result.messages });
    assert.deepEqual(removed, ["/tmp/f6"]);
  });

  it("compactStep runs in an agent loop whose history holds approvals and provider-side calls", async () => {
    const history = await agentHistory(9);
    const maxTokens = Math.floor(bytes(history) / 4 / 3);
    const { model, prompts } = watchedModel();
    const step = compactStep({ maxTokens, summarizer });
    await generateText({
      model,
      tools: { rm: rmTool([]) },
      messages: [...history, { role: "user", content: "thanks" }],
      prepareStep: step,
    });
    assert.ok(bytes(prompts.at(-1)) < bytes(history) / 2, "the model got the compacted history");
  });

  it("the middleware compacts the model's prompt, provider-side calls and results included", async () => {
    const history = await agentHistory(9);
    const maxTokens = Math.floor(bytes(history) / 4 / 3);
    const { model: inner, prompts } = watchedModel();
    const model = wrapLanguageModel({ model: inner, middleware: contextfoldMiddleware({ maxTokens, summarizer }) });
    await generateText({
      model,
      tools: { rm: rmTool([]) },
      messages: [...history, { role: "user", content: "thanks" }],
    });
    assert.ok(bytes(prompts.at(-1)) < bytes(history) / 2, "the model got the compacted prompt");
    assert.equal(prompts.at(-1).at(-1).role, "user");
  });
});
