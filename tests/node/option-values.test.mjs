// Option values as the core reads them: a value that throws when read (a getter, a revoked
// Proxy such as an immer draft), NaN, a Set or a function anywhere in the options is an
// `invalid_option` at its own path, never an escaped exception, a Promise that never
// settles, or the default applied in silence; `extractiveSummarizer` checks its keys too.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact, convert, extractiveSummarizer, measureChain, needsCompaction, validateChain } from "contextfold";
import { openaiSections } from "../shared/chains.mjs";
import { outcome } from "../shared/outcome.mjs";

const chain = [{ role: "user", content: "hi" }];

function assertInvalid(error, path, what) {
  assert.equal(error?.name, "ContextfoldError", `${what}: ${error}`);
  assert.equal(error.code, "invalid_option", `${what}: ${error.message}`);
  assert.equal(error.path, path, `${what}: ${error.message}`);
  assert.doesNotMatch(error.message, /JsValue\(/, what);
}

describe("option values are read with every JS exception caught", () => {
  it("a throwing getter or a revoked Proxy inside strategy rejects with its path, and the module goes on", async () => {
    const uncaught = [];
    const onUncaught = (e) => uncaught.push(e);
    process.on("uncaughtException", onUncaught);
    try {
      const { proxy: revoked, revoke } = Proxy.revocable({ name: "mask" }, {});
      revoke();
      const getter = {
        name: "tiers",
        get recent() {
          throw new Error("getter");
        },
      };
      const cases = [
        [{ strategy: getter }, "options.strategy.recent"],
        [{ strategy: revoked }, "options.strategy"],
        [{ strategy: { name: "mask", excludeTools: [revoked] } }, "options.strategy.excludeTools[0]"],
      ];
      for (const [options, path] of cases) {
        assertInvalid(await outcome(compact(chain, options)), path, `compact ${path}`);
        let thrown;
        try {
          needsCompaction(chain, options);
        } catch (e) {
          thrown = e;
        }
        assertInvalid(thrown, path, `needsCompaction ${path}`);
      }
      assert.equal(await outcome(compact(chain)), "resolved", "a plain compact afterwards");
    } finally {
      process.off("uncaughtException", onUncaught);
    }
    assert.deepEqual(uncaught, []);
  });

  it("NaN and the infinities are invalid at their setting, not the default", async () => {
    for (const [options, path] of [
      [{ maxTokens: Number.NaN }, "options.maxTokens"],
      [{ strategy: { name: "auto", keepLast: Number.NaN } }, "options.strategy.keepLast"],
      [{ strategy: { name: "mask", keepLast: Number.POSITIVE_INFINITY } }, "options.strategy.keepLast"],
      [{ strategy: { name: "window", thresholdTokens: Number.NaN } }, "options.strategy.thresholdTokens"],
      [{ strategy: { name: "auto", stable: Number.NaN } }, "options.strategy.stable"],
      [
        { strategy: { name: "budget", keepRecent: Number.NEGATIVE_INFINITY }, maxTokens: 1000 },
        "options.strategy.keepRecent",
      ],
    ]) {
      const error = await outcome(compact(chain, options));
      assertInvalid(error, path, JSON.stringify(options));
      assert.match(error.message, /finite number, not (NaN|-?Infinity)/, error.message);
    }
  });

  it("a Set, a Map or a function in a setting is named at the setting, in plain words", async () => {
    for (const [strategy, key, what] of [
      [{ name: "mask", excludeTools: new Set(["read_file"]) }, "excludeTools", "a Set"],
      [{ name: "tiers", recent: () => 20 }, "recent", "a function"],
      [{ name: "auto", excludeTools: new Map() }, "excludeTools", "a Map"],
    ]) {
      const error = await outcome(compact(chain, { strategy }));
      assertInvalid(error, `options.strategy.${key}`, key);
      assert.match(error.message, new RegExp(`not ${what}$`), error.message);
    }
  });

  it("still reads what JSON holds: integers, strings, arrays, null as absent", async () => {
    const result = await compact(openaiSections(3), {
      strategy: { name: "mask", keepLast: 1, excludeTools: ["read_file"], minBytes: null },
      maxTokens: 100_000,
      timeoutMs: undefined,
    });
    assert.equal(typeof result.changed, "boolean");
    // -0 is 0, an integer-valued double is an integer.
    await compact(chain, { strategy: { name: "auto", keepLast: -0 }, maxTokens: 1e5 });
  });
});

describe("extractiveSummarizer options", () => {
  it("an unknown key is invalid_option naming the nearest known one", () => {
    for (const [options, path] of [
      [{ maxByte: 2048 }, "options.maxByte"],
      [{ maxBytes: 2048, extra: true }, "options.extra"],
    ]) {
      assert.throws(
        () => extractiveSummarizer(options),
        (e) => e.code === "invalid_option" && e.path === path,
      );
    }
    assert.throws(() => extractiveSummarizer({ maxByte: 2048 }), /did you mean maxBytes\?/);
  });

  it("options that are not an object are reported at options", () => {
    for (const options of [5, "big", [2048], () => 1]) {
      assert.throws(
        () => extractiveSummarizer(/** @type {any} */ (options)),
        (e) => e.code === "invalid_option" && e.path === "options" && /expected an object/.test(e.message),
      );
    }
    assert.equal(typeof extractiveSummarizer({ maxBytes: 2048 }), "function");
  });
});

describe("what a wrong value's message says", () => {
  it("the provider and format hints list every accepted name, and only those", () => {
    const catching = (f) => {
      try {
        f();
      } catch (e) {
        return e;
      }
      return undefined;
    };
    const provider = catching(() => validateChain(chain, { provider: "cohere" }));
    assert.match(provider.message, /"openai-responses"/, provider.message);
    const format = catching(() => measureChain(chain, { format: "klingon" }));
    assert.match(format.message, /"auto", .*"openai-responses"/, format.message);
    const to = catching(() => convert(chain, { to: "klingon" }));
    assert.equal(to.path, "options.to");
    assert.match(to.message, /"openai-responses"/, to.message);
    assert.doesNotMatch(to.message, /"auto"/, to.message);
  });

  it("a token counter's wrong count names its index and value; a rejection with no value says undefined", async () => {
    const counted = await outcome(
      compact(openaiSections(2), { maxTokens: 100, tokenCounter: (texts) => texts.map((_, i) => (i === 0 ? 1.5 : 1)) }),
    );
    assert.equal(counted.code, "token_counter_failed");
    assert.match(counted.message, /the count at index 0 is 1\.5, not a whole number 0 or more/, counted.message);
    const result = await compact(openaiSections(6), {
      maxTokens: 300,
      summarizer: () => Promise.reject(undefined),
    });
    const messages = result.report.errors.map((e) => e.message);
    assert.ok(messages.length > 0);
    for (const m of messages) assert.doesNotMatch(m, /JsValue\(/, m);
  });
});

describe("one reader for compact and what checks its options early", () => {
  // Options only a compaction uses: `needsCompaction`, `new History()` and the AI SDK
  // factories check them when called (with compact's own reader), not at the first
  // compaction, which in a chat UI or an agent comes much later.
  const bad = [
    [{ onError: "ignore" }, "options.onError"],
    [{ concurrency: 0 }, "options.concurrency"],
    [{ timeoutMs: -5 }, "options.timeoutMs"],
    [{ summarizer: "gpt-4o-mini" }, "options.summarizer"],
    [{ signal: {} }, "options.signal"],
    [{ provider: "claude" }, "options.provider"],
    [{ instructions: 42 }, "options.instructions"],
    [{ onProgress: true }, "options.onProgress"],
  ];
  const thrown = (f) => {
    try {
      f();
    } catch (e) {
      return e;
    }
    return undefined;
  };

  it("a wrong value of a compact-only option is refused at once, as compact refuses it", async () => {
    const { History } = await import("contextfold");
    const { compactStep, contextfoldMiddleware } = await import("contextfold/ai-sdk");
    for (const [value, path] of bad) {
      const options = { maxTokens: 1000, ...value };
      const what = JSON.stringify(value);
      assertInvalid(await outcome(compact(chain, options)), path, `compact ${what}`);
      assertInvalid(
        thrown(() => needsCompaction(chain, options)),
        path,
        `needsCompaction ${what}`,
      );
      assertInvalid(
        thrown(() => new History({ options })),
        path.replace(/^options/, "options.options"),
        `new History ${what}`,
      );
      assertInvalid(
        thrown(() => contextfoldMiddleware(options)),
        path,
        `contextfoldMiddleware ${what}`,
      );
      assertInvalid(
        thrown(() => compactStep(options)),
        path,
        `compactStep ${what}`,
      );
    }
  });

  it("both read the own enumerable keys a spread copies, never inherited ones", async () => {
    const long = [
      { role: "system", content: "You are helpful." },
      { role: "user", content: "hello ".repeat(400) },
      { role: "assistant", content: "world ".repeat(400) },
      { role: "user", content: "again" },
    ];
    const inherited = Object.create({ maxTokens: 300 });
    const hidden = Object.defineProperty({}, "maxTokens", { value: 300, enumerable: false });
    for (const options of [inherited, hidden]) {
      const needed = needsCompaction(long, options);
      const result = await compact(long, options);
      assert.equal(needed, false, "the 100,000-token default budget, as compact reads it");
      assert.equal(result.changed, needed);
      // What a spread copies is read.
      assert.equal(needsCompaction(long, { ...options, maxTokens: 300 }), true);
    }
  });

  it("an array is no options object: invalid_option at options", async () => {
    assertInvalid(await outcome(compact(chain, [])), "options", "compact []");
    assertInvalid(
      thrown(() => needsCompaction(chain, [])),
      "options",
      "needsCompaction []",
    );
  });
});
