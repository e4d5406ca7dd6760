// The middleware retries once, compacted harder, when upstream answers that the request
// is over the model's context (issue 17 item 3): providers count tokens their own way.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { measureChain } from "contextfold";
import { compactionMiddleware } from "contextfold/worker";
import { openaiSections } from "../shared/chains.mjs";

const post = (body) =>
  new Request("https://gateway.test/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

/** An upstream that rejects requests over `limit` tokens the way a provider does. */
function upstream(limit, answer) {
  const seen = [];
  const fetch = async (request) => {
    const body = await request.json();
    const tokens = measureChain(body.messages, { format: "openai" }).total.tokens;
    seen.push(tokens);
    if (tokens > limit) return new Response(JSON.stringify(answer(tokens)), { status: 400 });
    return Response.json({ ok: true, tokens });
  };
  return { fetch, seen };
}

describe("a context-overflow answer from upstream", () => {
  const messages = openaiSections(12);
  const total = measureChain(messages, { format: "openai" }).total.tokens;
  const budget = Math.floor(total * 0.6);
  for (const [provider, answer] of [
    [
      "OpenAI",
      (t) => ({ error: { code: "context_length_exceeded", message: `maximum context length; you asked ${t}` } }),
    ],
    [
      "Anthropic",
      (t) => ({ type: "error", error: { type: "invalid_request_error", message: `prompt is too long: ${t} tokens` } }),
    ],
  ]) {
    it(`${provider}: compacted harder and retried once`, async () => {
      // Upstream's own count is stricter than the budget the middleware was given.
      const up = upstream(Math.floor(budget * 0.8), answer);
      const handler = compactionMiddleware({ maxTokens: budget, namespace: "t" })(up.fetch);
      const response = await handler(post({ model: "m", messages }));
      assert.equal(response.status, 200, await response.clone().text());
      assert.equal(response.headers.get("x-contextfold-retried"), "context_overflow");
      assert.equal(up.seen.length, 2, "one retry");
      assert.ok(up.seen[1] < up.seen[0], `${up.seen}`);
    });
  }

  it("other errors, and a second overflow, are passed on as they came", async () => {
    const other = async () => new Response(JSON.stringify({ error: { message: "invalid model" } }), { status: 400 });
    const r = await compactionMiddleware({ maxTokens: budget, namespace: "t" })(other)(post({ model: "m", messages }));
    assert.equal(r.status, 400);
    assert.equal(r.headers.get("x-contextfold-retried"), null);
    const always = upstream(0, () => ({ error: { code: "context_length_exceeded" } }));
    const again = await compactionMiddleware({ maxTokens: budget, namespace: "t" })(always.fetch)(
      post({ model: "m", messages }),
    );
    assert.equal(again.status, 400);
    assert.equal(always.seen.length, 2, "retried once, not more");
    assert.equal(again.headers.get("x-contextfold-retried"), "context_overflow");
  });
});

describe("History.reportUsage: the provider's count as the trigger", () => {
  it("compacts when the provider counted more than the budget, to a budget scaled by its count", async () => {
    const { History } = await import("contextfold");
    const messages = openaiSections(12);
    const estimate = measureChain(messages, { format: "openai" }).total.tokens;
    const maxTokens = estimate + 100; // within the budget by contextfold's estimate
    const h = new History({ messages, options: { maxTokens } });
    assert.equal(h.needsCompaction(), false);
    assert.equal(await h.reportUsage(maxTokens - 1), null, "under the budget: nothing");
    // The provider counted half again as many tokens.
    const result = await h.reportUsage(Math.ceil(estimate * 1.5));
    assert.ok(result?.changed, "compacted");
    const after = measureChain(h.messages(), { format: "openai" }).total.tokens;
    assert.ok(after * 1.5 <= maxTokens, `${after} tokens, x1.5 by the provider's count, within ${maxTokens}`);
    await assert.rejects(h.reportUsage(-1), { code: "invalid_option", path: "inputTokens" });
  });
});

describe("History.push: a cheap check, the same trigger", () => {
  it("compacts on exactly the push that takes the chain over the budget", async () => {
    const { History } = await import("contextfold");
    const messages = openaiSections(16);
    const maxTokens = Math.floor(measureChain(messages, { format: "openai" }).total.tokens / 3);
    const h = new History({ options: { maxTokens, summarizer: async () => "## Summary\n- the work so far." } });
    let compactions = 0;
    for (const m of messages) {
      const before = measureChain([...h.messages(), m], { format: "openai" }).total.tokens;
      const result = await h.push(m);
      // Over the budget with this message: compacted now; within it: left alone.
      assert.equal(result !== null, before > maxTokens, `at ${before} tokens of ${maxTokens}`);
      if (result !== null) compactions++;
      assert.ok(measureChain(h.messages(), { format: "openai" }).total.tokens <= maxTokens);
    }
    assert.ok(compactions >= 1);
  });
});
