// The JS API while the caller's program keeps running: inputs changed while a compaction
// runs, messages pushed into a History meanwhile, a token counter that fails, a
// compaction aborted with calls in flight, hostile values handed back by the caller's
// callbacks, and summarizers that ignore their signal.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact, History, measureChain, needsCompaction, validateChain } from "contextfold";
import { openaiSections } from "../shared/chains.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** `window` at 1,500 tokens with a summarizer slow enough to change the input meanwhile. */
const slowWindow = {
  strategy: "window",
  maxTokens: 1500,
  summarizer: async () => {
    await sleep(30);
    return "Summary of the earlier work.";
  },
};

describe("compact reads its input once, at the call", () => {
  it("a message deleted from the caller's array while the summarizer runs does not reach the result", async () => {
    const messages = openaiSections(8);
    const original = messages.slice();
    const compaction = compact(messages, slowWindow);
    await sleep(5);
    messages.splice(1, 1); // the user deletes a message in the UI meanwhile
    messages.pop(); // and regenerates the last answer
    const result = await compaction;
    assert.equal(result.changed, true);
    assert.ok(
      result.messages.every((m) => m !== undefined),
      "no undefined entry",
    );
    assert.deepEqual(validateChain(result.messages), []);
    // Every kept message is one of those compacted: the last one is still there.
    assert.ok(result.messages.every((m) => original.includes(m) || !messages.includes(m)));
    assert.equal(result.messages.at(-1), original.at(-1));
  });

  it("a request object's list changed meanwhile does not change the result either", async () => {
    const request = { model: "m", messages: openaiSections(8) };
    const last = request.messages.at(-1);
    const compaction = compact(request, slowWindow);
    await sleep(5);
    request.messages.length = 2;
    const result = await compaction;
    assert.equal(result.changed, true);
    assert.equal(result.messages.model, "m");
    assert.ok(result.messages.messages.every((m) => m !== undefined));
    assert.equal(result.messages.messages.at(-1), last);
  });
});

describe("History: messages pushed while a compaction runs", () => {
  for (const start of ["compact()", "reportUsage()"]) {
    it(`are compacted in turn after a run started by ${start} when they took the history over`, async () => {
      const summarizer = async (request) => {
        await sleep(40);
        return `Summary ${request.id}.`;
      };
      const history = new History({ messages: openaiSections(8), options: { maxTokens: 1500, summarizer } });
      // The provider counts as contextfold does: the budget is not scaled.
      const counted = measureChain(history.messages()).total.tokens;
      assert.ok(counted > 1500);
      const running = start === "compact()" ? history.compact() : history.reportUsage(counted);
      await sleep(5);
      const pushed = openaiSections(8).slice(1);
      const results = await Promise.all(pushed.map((m) => history.push(m)));
      assert.ok(
        results.every((r) => r === null),
        "each push during the run resolves to null",
      );
      await running;
      assert.equal(history.needsCompaction(), false);
      assert.ok(measureChain(history.messages()).total.tokens <= 1500);
      // Nothing pushed was lost: the last message is the last pushed.
      assert.deepEqual(history.messages().at(-1), pushed.at(-1));
    });
  }
});

describe("a failing tokenCounter stops the compaction", () => {
  for (const strategy of ["window", "budget", "auto"]) {
    it(`${strategy}: no summary call starts once the counter failed`, async () => {
      let calls = 0;
      const error = await compact(openaiSections(8), {
        strategy,
        maxTokens: 1500,
        tokenCounter: () => {
          throw new Error("tokenizer not loaded");
        },
        summarizer: async () => {
          calls += 1;
          return "Summary.";
        },
      }).then(
        () => undefined,
        (e) => e,
      );
      assert.equal(error?.code, "token_counter_failed");
      assert.equal(calls, 0, "summary calls made after the counter failed");
    });
  }
});

describe("hostile values handed back by the caller's callbacks", () => {
  const uncaught = [];
  const onUncaught = (e) => uncaught.push(e);
  const within = (promise, ms) =>
    Promise.race([promise, sleep(ms).then(() => Promise.reject(new Error(`no answer within ${ms} ms`)))]);

  it("a summarizer error whose message and name getters throw fails its call, never the compaction", async () => {
    process.on("uncaughtException", onUncaught);
    try {
      class Hostile extends Error {
        get message() {
          throw new Error("message getter failed");
        }
        get name() {
          throw new Error("name getter failed");
        }
      }
      const result = await within(
        compact(openaiSections(4), {
          strategy: "sections",
          summarizer: async () => {
            throw new Hostile();
          },
        }),
        3000,
      );
      assert.equal(result.report.rolledBack, true);
      assert.ok(result.report.errors.length > 0);
      assert.ok(result.report.errors.every((e) => e.kind === "failed" && typeof e.message === "string"));
      await sleep(10);
      assert.deepEqual(uncaught, []);
    } finally {
      process.off("uncaughtException", onUncaught);
    }
  });

  it("a tokenCounter answer whose element read throws is token_counter_failed, with its path", async () => {
    process.on("uncaughtException", onUncaught);
    try {
      const tokenCounter = (texts) =>
        new Proxy(
          texts.map((t) => t.length),
          {
            get(target, key) {
              if (key === "0") throw new Error("tokenizer proxy failed");
              return Reflect.get(target, key);
            },
          },
        );
      assert.throws(
        () => needsCompaction(openaiSections(4), { maxTokens: 500, tokenCounter }),
        (e) => e.code === "token_counter_failed" && e.path === "options.tokenCounter",
      );
      const error = await within(compact(openaiSections(4), { maxTokens: 500, tokenCounter }), 3000).then(
        () => undefined,
        (e) => e,
      );
      assert.equal(error?.code, "token_counter_failed");
      assert.match(error.message, /tokenizer proxy failed/);
      await sleep(10);
      assert.deepEqual(uncaught, []);
    } finally {
      process.off("uncaughtException", onUncaught);
    }
  });
});
