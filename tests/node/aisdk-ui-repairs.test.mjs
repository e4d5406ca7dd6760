// AI SDK UIMessages that the repair pass and compaction must hand back as `ai` itself
// accepts and reads: a call left pending before a new user message, messages of data
// and source parts only, a turn partly folded into a summary, a refused approval. Judged
// by `ai`'s validateUIMessages, convertToModelMessages and streamText (a mock model).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { convertToModelMessages, streamText, validateUIMessages } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { compact, convert, needsCompaction, repairChain, validateChain } from "contextfold";

globalThis.AI_SDK_LOG_WARNINGS = false;

function mockModel() {
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream({
        start(c) {
          c.enqueue({ type: "text-start", id: "1" });
          c.enqueue({ type: "text-delta", id: "1", delta: "ok" });
          c.enqueue({ type: "text-end", id: "1" });
          c.enqueue({
            type: "finish",
            finishReason: { unified: "stop", raw: "stop" },
            usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } },
          });
          c.close();
        },
      }),
    }),
  });
}

/** Throws what `ai` throws when it cannot send `messages`. */
async function streamsWith(messages) {
  await validateUIMessages({ messages });
  let error = null;
  const r = streamText({
    model: mockModel(),
    messages: await convertToModelMessages(messages),
    onError: (e) => {
      error = e.error;
    },
  });
  await r.consumeStream();
  if (error) throw error;
}

const userText = (id, text) => ({ id, role: "user", parts: [{ type: "text", text }] });

describe("aisdk-ui: what repair and compaction hand back, judged by ai", () => {
  it("answers a call left pending before a new user message in its part", async () => {
    for (const pending of [
      { state: "input-available" },
      { state: "approval-responded", approval: { id: "ap1", approved: true } },
    ]) {
      const chain = [
        userText("u0", "what is 1+1?"),
        {
          id: "a0",
          role: "assistant",
          parts: [{ type: "step-start" }, { type: "tool-calc", toolCallId: "c1", input: { a: 1 }, ...pending }],
        },
        userText("u1", "never mind, something else"),
      ];
      await assert.rejects(streamsWith(chain), /AI_MissingToolResultsError|tool result/i);
      const { messages, report } = await compact(chain, { maxTokens: 100_000 });
      assert.deepEqual(
        report.providerRepairs.map((r) => r.step),
        ["answeredPendingCall"],
      );
      for (const out of [messages, repairChain(chain).messages]) {
        const part = out[1].parts[1];
        assert.equal(part.state, "output-error", JSON.stringify(part));
        assert.equal(typeof part.errorText, "string");
        assert.deepEqual(part.approval, pending.approval);
        assert.deepEqual(validateChain(out), []);
        await streamsWith(out);
      }
    }
  });

  it("keeps messages and steps of data and source parts only", async () => {
    const chain = [
      { id: "u1", role: "user", parts: [{ type: "data-context", data: { page: "/billing", plan: "pro" } }] },
      userText("u2", "Why was I charged twice?"),
      {
        id: "a1",
        role: "assistant",
        parts: [
          { type: "step-start" },
          { type: "tool-search", toolCallId: "c", state: "output-available", input: { q: "x" }, output: "found" },
          { type: "step-start" },
          { type: "source-url", sourceId: "s1", url: "https://example.com" },
          { type: "data-invoice-card", id: "inv", data: { invoice: "INV-7", amount: 42 } },
        ],
      },
      userText("u3", "thanks"),
    ];
    const { messages, changed } = await compact(chain, { maxTokens: 100_000 });
    assert.equal(changed, false);
    assert.deepEqual(messages, chain);
    const convertDataPart = (p) => ({ type: "text", text: JSON.stringify(p.data) });
    assert.deepEqual(
      await convertToModelMessages(messages, { convertDataPart }),
      await convertToModelMessages(chain, { convertDataPart }),
    );
  });

  it("keeps the id and metadata of a turn whose earlier steps are folded", async () => {
    const output = Array.from({ length: 60 }, (_, i) => `line ${i}: some log output from build step ${i}`).join("\n");
    const chain = [
      userText("u1", "fix the build"),
      {
        id: "a1",
        role: "assistant",
        metadata: { model: "gpt-x", createdAt: 1700000000 },
        parts: [
          { type: "step-start" },
          { type: "tool-run", toolCallId: "c1", state: "output-available", input: { cmd: "build" }, output },
          { type: "step-start" },
          { type: "tool-run", toolCallId: "c2", state: "output-available", input: { cmd: "test" }, output },
          { type: "step-start" },
          { type: "text", text: "The build is fixed: the missing import was added." },
        ],
      },
    ];
    for (const strategy of ["sections", "budget", "auto", "window"]) {
      const r = await compact(chain, { maxTokens: 600, strategy, onError: "partial" });
      assert.equal(r.changed, true, strategy);
      const holder = r.messages.find((m) => m.parts.some((p) => p.text?.startsWith("The build is fixed")));
      assert.equal(holder?.id, "a1", `${strategy}: ${JSON.stringify(r.messages.map((m) => m.id))}`);
      assert.deepEqual(holder.metadata, chain[1].metadata, strategy);
      await validateUIMessages({ messages: r.messages });
    }
  });

  it("reads a refused approval-responded part as the refusal ai sends", async () => {
    const reason = "do not delete anything";
    const chain = [
      userText("u1", "clean up my home directory"),
      {
        id: "a1",
        role: "assistant",
        parts: [
          { type: "step-start" },
          {
            type: "tool-deleteFiles",
            toolCallId: "c1",
            state: "approval-responded",
            input: { path: "~" },
            approval: { id: "ap1", approved: false, reason },
          },
        ],
      },
      userText("u2", "just list them instead"),
    ];
    const model = await convertToModelMessages(chain);
    assert.ok(JSON.stringify(model).includes("execution-denied"));
    const repaired = repairChain(chain);
    assert.deepEqual(repaired.messages, chain);
    assert.deepEqual(validateChain(chain), []);
    await streamsWith(repaired.messages);
    for (const to of ["aisdk", "anthropic", "openai"]) {
      const text = JSON.stringify(convert(chain, { from: "aisdk-ui", to }).messages);
      assert.ok(text.includes(reason), `${to}: ${text}`);
      assert.ok(!text.includes("try again"), `${to}: ${text}`);
    }
  });

  it("a chat ending with the user's approval answer triggers as compact acts: the request is being made", async () => {
    const filler = "the quick brown fox jumps over the lazy dog ".repeat(200);
    const chain = [];
    for (let i = 0; i < 20; i++) {
      chain.push({ id: `u${i}`, role: "user", parts: [{ type: "text", text: `question ${i}` }] });
      chain.push({
        id: `a${i}`,
        role: "assistant",
        parts: [{ type: "step-start" }, { type: "text", text: `answer ${i} ${filler}` }],
      });
    }
    chain.push({ id: "u20", role: "user", parts: [{ type: "text", text: "delete the temp files" }] });
    const tool = (state, approval) => ({
      id: "a20",
      role: "assistant",
      parts: [
        { type: "step-start" },
        { type: "tool-deleteFiles", toolCallId: "c1", state, input: { glob: "/tmp/*" }, approval },
      ],
    });
    const options = { maxTokens: 4000 };
    for (const approved of [true, false]) {
      const messages = [...chain, tool("approval-responded", { id: "ap1", approved })];
      assert.equal(needsCompaction(messages, options), true, `approved: ${approved}`);
      const result = await compact(messages, options);
      assert.ok(result.report.after.tokens <= options.maxTokens);
      assert.deepEqual(result.messages.at(-1), messages.at(-1), "the turn is kept whole");
    }
    // Still asking the user: no request can be made yet.
    assert.equal(needsCompaction([...chain, tool("approval-requested", { id: "ap1" })], options), false);
  });
});
