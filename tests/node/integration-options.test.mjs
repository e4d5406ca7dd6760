// The JS layers' own option handling: the integrations (`contextfold/ai-sdk`,
// `contextfold/langchain`, `contextfold/openai-agents`) read options in one order, keys
// before the budget, and what is declared async rejects rather than throws;
// `History.compact(override)` takes a budget in either unit over the history's own.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { History, isContextfoldError } from "contextfold";
import { compactStep, contextfoldMiddleware as aiSdkMiddleware } from "contextfold/ai-sdk";
import { contextfoldMiddleware as langchainMiddleware } from "contextfold/langchain";
import { compactAgentItems, contextfoldSession } from "contextfold/openai-agents";
import { openaiSections } from "../shared/chains.mjs";
import { outcome } from "../shared/outcome.mjs";

function assertInvalid(error, path, what) {
  assert.ok(isContextfoldError(error), `${what}: ${error}`);
  assert.equal(error.code, "invalid_option", `${what}: ${error.message}`);
  assert.equal(error.path, path, `${what}: ${error.message}`);
  assert.doesNotMatch(error.message, /JsValue\(/, what);
}

describe("the integrations' options", () => {
  const session = {
    getSessionId: async () => "s",
    getItems: async () => [],
    addItems: async () => {},
    popItem: async () => undefined,
    clearSession: async () => {},
  };
  const makers = {
    "ai-sdk contextfoldMiddleware": (o) => aiSdkMiddleware(o),
    "ai-sdk compactStep": (o) => compactStep(o),
    "langchain contextfoldMiddleware": (o) => langchainMiddleware(o),
    "openai-agents contextfoldSession": (o) => contextfoldSession(session, o),
    "openai-agents compactAgentItems": (o) => compactAgentItems([], o),
  };

  it("a misspelt budget is named as the typo it is, everywhere", async () => {
    for (const [name, make] of Object.entries(makers)) {
      const error = await outcome((async () => make({ maxToken: 100_000 }))());
      assertInvalid(error, "options.maxToken", name);
      assert.match(error.message, /did you mean maxTokens\?/, name);
    }
  });

  it("a missing budget, a format and a non-object are invalid_option", async () => {
    for (const [name, make] of Object.entries(makers)) {
      for (const [options, path] of [
        [{}, "options.maxTokens"],
        [{ maxTokens: null }, "options.maxTokens"],
        [{ maxTokens: 1000, format: "openai" }, "options.format"],
        [null, "options"],
      ]) {
        assertInvalid(await outcome((async () => make(options))()), path, `${name} ${JSON.stringify(options)}`);
      }
    }
  });

  it("compactAgentItems rejects, never throws synchronously", async () => {
    for (const options of [{}, { maxTokens: 1000, strategyy: "auto" }, null]) {
      let promise;
      assert.doesNotThrow(() => {
        promise = compactAgentItems([{ role: "user", content: "hi" }], /** @type {any} */ (options));
      });
      assert.ok(isContextfoldError(await outcome(promise)));
    }
    assert.ok(isContextfoldError(await outcome(compactAgentItems(/** @type {any} */ ("no"), { maxTokens: 1000 }))));
  });
});

describe("History.compact(override)", () => {
  it("a budget in either unit replaces the history's own for that run", async () => {
    const history = new History({ messages: openaiSections(6), options: { maxBytes: 4000 } });
    const result = await history.compact({ maxTokens: 300 });
    assert.ok(result.report.after.tokens <= 300, `${result.report.after.tokens} tokens`);
    const tokens = new History({ messages: openaiSections(6), options: { maxTokens: 100_000 } });
    const bytes = await tokens.compact({ maxBytes: 1500 });
    assert.ok(bytes.report.after.bytes <= 1500, `${bytes.report.after.bytes} bytes`);
  });

  it("undefined and null are absent: the history's budget stays", async () => {
    const plain = await new History({ messages: openaiSections(6), options: { maxTokens: 1000 } }).compact();
    for (const override of [{ maxTokens: undefined }, { maxTokens: null }, {}]) {
      const result = await new History({ messages: openaiSections(6), options: { maxTokens: 1000 } }).compact(
        /** @type {any} */ (override),
      );
      assert.equal(result.changed, plain.changed, JSON.stringify(override));
      assert.equal(result.report.after.tokens, plain.report.after.tokens, JSON.stringify(override));
    }
  });

  it("a wrong override rejects with invalid_option", async () => {
    const history = new History({ messages: openaiSections(2), options: { maxTokens: 1000 } });
    assertInvalid(await outcome(history.compact(/** @type {any} */ (5))), "override", "a number");
    assertInvalid(await outcome(history.compact(/** @type {any} */ ({ maxToken: 5 }))), "options.maxToken", "a typo");
  });
});
