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

  it("is not sent again when the harder compaction fails: the original is larger still", async () => {
    // The first summary works, the retry's fails (a rate-limited summarizer): its rollback
    // would resend the uncompacted original, twice what the provider just refused.
    let calls = 0;
    const summarizer = async () => {
      if (++calls > 1) throw new Error("429 rate limited");
      return "## Current state\n- earlier tasks done";
    };
    const always = upstream(0, () => ({ error: { code: "context_length_exceeded" } }));
    const response = await compactionMiddleware({ maxTokens: budget, summarizer, namespace: "t" })(always.fetch)(
      post({ model: "m", messages }),
    );
    assert.equal(response.status, 400);
    assert.equal(always.seen.length, 1, "sent once, compacted");
    assert.ok(calls >= 2, "the retry's compaction was tried");
  });

  it("is not sent again when compacting harder changes nothing", async () => {
    // The chain is far under the budget (under the retry's share of it): a retry would
    // send the same bytes for the same answer.
    const always = upstream(0, () => ({ error: { code: "context_length_exceeded" } }));
    const roomy = compactionMiddleware({ maxTokens: total * 2, namespace: "t" })(always.fetch);
    const response = await roomy(post({ model: "m", messages }));
    assert.equal(response.status, 400);
    assert.equal(always.seen.length, 1, "sent once");
    assert.equal(response.headers.get("x-contextfold-retried"), null);
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

  it("keeps the provider's count through toJSON / fromJSON, as a chat route restores it", async () => {
    const { History } = await import("contextfold");
    const maxTokens = 3000;
    const provider = (messages) => Math.ceil(measureChain(messages, { format: "openai" }).total.tokens * 2);
    const summarizer = async () => "## User requests\n- asked";
    const filler = (n) => "lorem ipsum dolor sit amet ".repeat(Math.ceil(n / 27)).slice(0, n);
    let stored = new History({ options: { maxTokens } }).toJSON();
    let over = 0;
    for (let i = 0; i < 40; i++) {
      const history = History.fromJSON(JSON.parse(JSON.stringify(stored)), { summarizer });
      await history.push({ role: "user", content: `Request ${i}: ${filler(300)}` });
      const sent = history.messages();
      if (provider(sent) > maxTokens) over++;
      await history.reportUsage(provider(sent));
      await history.push({ role: "assistant", content: `Answer ${i}: ${filler(900)}` });
      stored = history.toJSON();
    }
    assert.ok(over <= 1, `${over} of 40 requests over the budget by the provider's count`);
    assert.ok(stored.usage && stored.usage.provider > stored.usage.counted, JSON.stringify(stored.usage));
    assert.throws(
      () => History.fromJSON({ ...stored, usage: { provider: "x" } }),
      (e) => e.code === "invalid_history" && e.path === "usage",
    );
  });

  it("keeps the provider's count within the budget on the pushes that follow, not just once", async () => {
    // The scaled budget served one compaction: the chain then grew back to maxTokens by the
    // estimate, over it by the provider's count, until the next report.
    const { History } = await import("contextfold");
    const maxTokens = 3000;
    const provider = (messages) => Math.ceil(measureChain(messages, { format: "openai" }).total.tokens * 1.3);
    const history = new History({ options: { maxTokens, summarizer: async () => "## User requests\n- asked" } });
    const filler = (n) => "lorem ipsum dolor sit amet ".repeat(Math.ceil(n / 27)).slice(0, n);
    let over = 0;
    for (let i = 0; i < 40; i++) {
      await history.push({ role: "user", content: `Request ${i}: ${filler(300)}` });
      const sent = history.messages();
      if (provider(sent) > maxTokens) over++;
      // The answer's usage: the input tokens of the call.
      await history.reportUsage(provider(sent));
      await history.push({ role: "assistant", content: `Answer ${i}: ${filler(900)}` });
    }
    // At most the first crossing, before any report told the provider's way of counting.
    assert.ok(over <= 1, `${over} of 40 requests over the budget by the provider's count`);
  });

  it("a scaled budget the chain cannot fit says it was scaled, and a lower report undoes it", async () => {
    // The error named a budget the caller never gave (240 of 3000), at every later push.
    const { History } = await import("contextfold");
    const messages = [{ role: "system", content: "You are a careful assistant. ".repeat(80) }, ...openaiSections(6)];
    const counted = measureChain(messages, { format: "openai" }).total.tokens;
    const maxTokens = counted + 500;
    const history = new History({ messages, options: { maxTokens } });
    const reported = counted * 10;
    const culprit = (e) =>
      e.code === "budget_exceeded" &&
      e.path === "options.maxTokens" &&
      e.message.includes(`maxTokens ${maxTokens} scaled to`) &&
      e.message.includes(`provider counted ${reported} tokens`);
    await assert.rejects(history.reportUsage(reported), culprit);
    await assert.rejects(history.push({ role: "user", content: "and now?" }), culprit);
    // The provider's next count (about ours): the scale goes, pushes compact as before.
    assert.equal(await history.reportUsage(counted), null);
    assert.equal(await history.push({ role: "assistant", content: "fine" }), null);
    assert.equal(history.toJSON().usage, undefined);
  });

  it("counts the history with the options' tokenCounter, as the compaction does", async () => {
    // A counter counting more than the built-in estimate: the budget is scaled by the
    // provider's count against the counter's, not against the estimate (which left about
    // half the room unused).
    const { History, compact, needsCompaction } = await import("contextfold");
    const tokenCounter = (texts) => texts.map((t) => Math.ceil(t.length / 2.5));
    const messages = openaiSections(12);
    // The counter's total: the least budget the trigger finds the chain within.
    let [lo, hi] = [0, 10 * measureChain(messages).total.tokens];
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (needsCompaction(messages, { strategy: "budget", maxTokens: mid, tokenCounter })) lo = mid + 1;
      else hi = mid;
    }
    const counted = lo;
    assert.ok(counted > measureChain(messages).total.tokens * 1.2, "the counter counts more than the estimate");
    const maxTokens = Math.floor(counted * 0.8);
    const history = new History({ messages, options: { maxTokens, tokenCounter } });
    const provider = Math.ceil(counted * 1.25);
    const reported = await history.reportUsage(provider);
    assert.ok(reported?.changed);
    const scaled = Math.max(1, Math.floor((maxTokens * counted) / provider));
    const expected = await compact(messages, { maxTokens: scaled, tokenCounter });
    assert.deepEqual(history.messages(), expected.messages);
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

describe("the middleware's default (auto, stable): a stateless gateway keeps the prefix", () => {
  it("two requests sharing a raw prefix are forwarded with byte-identical compacted prefixes", async () => {
    const { memoryCache } = await import("contextfold/worker");
    const bodies = [];
    const upstream = async (request) => {
      bodies.push(await request.json());
      return Response.json({ ok: true });
    };
    let calls = 0;
    const summarizer = async () => {
      calls++;
      return "## Summary\n- the work so far.";
    };
    const gateway = compactionMiddleware({ maxTokens: 3000, summarizer, cache: memoryCache(), namespace: "t" })(
      upstream,
    );
    // The client sends the whole raw history every time, two messages longer each time.
    const raw = openaiSections(14);
    for (let n = raw.length - 24; n <= raw.length; n += 2)
      await gateway(post({ model: "m", messages: raw.slice(0, n) }));
    const sent = bodies.map((b) => b.messages);
    assert.ok(sent.every((m) => measureChain(m, { format: "openai" }).total.tokens <= 3000));
    const prefix = (a, b) => JSON.stringify(b.slice(0, a.length)) === JSON.stringify(a);
    // Each request's messages start with what the one before sent, byte for byte, unless a
    // fold came between (fewer messages than the two added), and folds are the exception.
    let folds = 0;
    for (let i = 1; i < sent.length; i++) {
      if (prefix(sent[i - 1], sent[i])) continue;
      assert.ok(sent[i].length < sent[i - 1].length + 2, `request ${i}: the prefix changed without a fold`);
      folds++;
    }
    assert.ok(folds >= 1 && folds * 3 <= sent.length - 1, `${folds} folds in ${sent.length - 1} requests`);
    // The same raw history again: the very same body, and no new summary.
    const before = calls;
    await gateway(post({ model: "m", messages: raw }));
    assert.deepEqual(bodies.at(-1).messages, sent.at(-1));
    assert.equal(calls, before, "the summary cache answered");
  });
});

describe("the middleware's prefix cache (a cache store and the stable default)", () => {
  const raw = openaiSections(16);
  const summarizer = async () => "## Summary\n- the work so far.";

  /** A gateway over `upstream`, and what it forwarded, with the prefix-cache header of each answer. */
  async function replay(options, requests) {
    const bodies = [];
    const upstream = async (request) => {
      bodies.push(await request.json());
      return Response.json({ ok: true });
    };
    const gateway = compactionMiddleware({ maxTokens: 3000, summarizer, namespace: "t", ...options })(upstream);
    const headers = [];
    for (const messages of requests) {
      const response = await gateway(post({ model: "m", messages }));
      headers.push(response.headers.get("x-contextfold-prefix-cache"));
    }
    return { sent: bodies.map((b) => b.messages), headers };
  }

  it("answers a growing history from the stored prefix, with what compacting it again gives", async () => {
    const { memoryCache } = await import("contextfold/worker");
    const requests = [];
    for (let n = 20; n <= raw.length; n += 2) requests.push(raw.slice(0, n));
    const cached = await replay({ cache: memoryCache() }, requests);
    const fresh = await replay({}, requests);
    assert.deepEqual(cached.sent, fresh.sent, "the prefix cache changed what goes upstream");
    const hits = cached.headers.filter((h) => h === "hit").length;
    assert.ok(hits * 2 >= requests.length, `${hits} hits in ${requests.length} requests: ${cached.headers}`);
    assert.ok(
      fresh.headers.every((h) => h === null),
      "no prefix cache without a cache store",
    );
  });

  it("a store that fails is a miss: the request is still compacted", async () => {
    const broken = {
      get: async () => {
        throw new Error("store down");
      },
      put: async () => {
        throw new Error("store down");
      },
    };
    const { sent, headers } = await replay({ cache: broken }, [raw.slice(0, 40), raw.slice(0, 42)]);
    assert.deepEqual(headers, ["miss", "miss"]);
    assert.ok(
      sent.every((m) => m.length < 40),
      "compacted all the same",
    );
  });

  it("another summarizer on the same store is never answered with the old one's stored prefix", async () => {
    // The prefix cache's key had `options.namespace ?? null`, not the summarizer's identity:
    // after switching the model (or a PROMPT_VERSION bump), every conversation kept getting
    // the old model's summaries from the store, and the new one was never asked.
    const { memoryCache } = await import("contextfold/worker");
    const cache = memoryCache();
    const calls = { a: 0, b: 0 };
    const model = (name) =>
      Object.assign(
        async () => {
          calls[name] += 1;
          return `## Summary\n- SUMMARY BY MODEL ${name.toUpperCase()}.`;
        },
        { identity: `test:${name}` },
      );
    const requests = [];
    for (let n = 20; n <= 40; n += 2) requests.push(raw.slice(0, n));
    const a = await replay({ cache, namespace: undefined, summarizer: model("a") }, requests);
    assert.ok(a.headers.includes("hit"), `model a's prefix is stored and served: ${a.headers}`);
    const b = await replay({ cache, namespace: undefined, summarizer: undefined, createSummarizer: () => model("b") }, [
      raw.slice(0, 42),
    ]);
    assert.deepEqual(b.headers, ["miss"]);
    assert.ok(calls.b > 0, "model b was asked");
    const sent = JSON.stringify(b.sent);
    assert.ok(sent.includes("MODEL B") && !sent.includes("MODEL A"), sent);
    // Model a again: its own stored prefix still answers.
    const again = await replay({ cache, namespace: undefined, summarizer: model("a") }, [raw.slice(0, 42)]);
    assert.deepEqual(again.headers, ["hit"]);
  });

  it("an edited history, or another conversation, is never answered from a stored prefix", async () => {
    const { memoryCache } = await import("contextfold/worker");
    const cache = memoryCache();
    const edited = structuredClone(raw);
    edited[10].content = "Done with task 2, differently.";
    const other = structuredClone(raw);
    other[0].content = "You are a different assistant.";
    const { sent, headers } = await replay({ cache }, [raw.slice(0, 40), edited.slice(0, 42), other.slice(0, 42)]);
    assert.deepEqual(headers, ["miss", "miss", "miss"]);
    assert.ok(JSON.stringify(sent[1]).includes("differently") || sent[1].length < 42, "the edit reached upstream");
    assert.equal(sent[2][0].content, "You are a different assistant.");
  });
});

describe("stable mode with Anthropic thinking: the prefix holds between folds", () => {
  // A fold rewrote history, so the provider pass dropped the thinking of every turn before
  // the current tool cycle, including the one the previous request had just sent with it:
  // the prefix changed on nearly every request (12 of 40 with no new fold), and the
  // middleware's prefix cache (which keeps what it sent) answered 22 requests with bodies
  // other than compacting them again gives. Thinking the provider saw after the same
  // prefix now stays.
  const filler = (n) => "lorem ipsum dolor sit amet ".repeat(Math.ceil(n / 27)).slice(0, n);
  const turn = (i) => {
    const id = `toolu_${String(i).padStart(24, "0")}`;
    return [
      { role: "user", content: `Request ${i}: ${filler(300)}` },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: `thinking ${i} ${filler(200)}`, signature: `sig${i}AAAAAAAAAAAAAAAA==` },
          { type: "tool_use", id, name: "read_file", input: { path: `f${i}.rs` } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: `out ${i} ${filler(1500)}` }] },
      { role: "assistant", content: [{ type: "text", text: `done ${i}` }] },
    ];
  };
  const raw = Array.from({ length: 20 }, (_, i) => turn(i)).flat();
  // The requests of the conversation: the history before each assistant message.
  const requests = raw.flatMap((m, i) => (m.role === "assistant" ? [raw.slice(0, i)] : []));
  const summarizer = async (r) => `## User requests\n(${r.range.start}-${r.range.end})`;
  const postAnthropic = (messages) =>
    new Request("https://gateway.test/v1/messages", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "claude-sonnet-4", max_tokens: 1000, messages }),
    });

  async function through(options) {
    const sent = [];
    const gateway = compactionMiddleware({ maxTokens: 3000, summarizer, namespace: "t", ...options })(
      async (request) => {
        sent.push((await request.json()).messages);
        return Response.json({ ok: true });
      },
    );
    for (const messages of requests) await gateway(postAnthropic(messages));
    return { sent };
  }

  it("keeps each request's prefix, fresh or from the prefix cache alike, within the rules", async () => {
    const { memoryCache } = await import("contextfold/worker");
    const { validateChain } = await import("contextfold");
    const fresh = await through({});
    const cached = await through({ cache: memoryCache() });
    assert.deepEqual(cached.sent, fresh.sent, "the prefix cache changed what goes upstream");
    let breaks = 0;
    let compacted = 0;
    for (let i = 1; i < fresh.sent.length; i++) {
      const [before, now] = [fresh.sent[i - 1], fresh.sent[i]];
      if (now.length < requests[i].length) compacted++;
      const kept = JSON.stringify(now.slice(0, before.length)) === JSON.stringify(before);
      if (!kept && now.length >= before.length) breaks++;
    }
    assert.ok(compacted > 10, `${compacted} compacted requests`);
    assert.equal(breaks, 0, "the prefix changed without a fold");
    for (const [i, messages] of fresh.sent.entries()) {
      assert.deepEqual(validateChain(messages, { format: "anthropic" }), [], `request ${i}`);
      assert.ok(measureChain(messages, { format: "anthropic" }).total.tokens <= 3000, `request ${i}`);
      // The current tool cycle keeps its signed thinking.
      const last = messages.at(-1);
      if (Array.isArray(last.content) && last.content[0]?.type === "tool_result") {
        assert.equal(messages.at(-2).content[0].type, "thinking", `request ${i}`);
      }
    }
  });
});
