// Bad arguments to the functions the chain corpus (bad-inputs.mjs) does not cover:
// `estimateTokens`, `measureChain`'s options, `History` and `History.fromJSON`, and the
// position of invalid JSON. Each is a ContextfoldError with a code and a path, never a
// wasm RuntimeError, a TypeError, or silent acceptance (issue 14, section 5).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  clearReasoning,
  compact,
  convert,
  estimateTokens,
  History,
  measureChain,
  needsCompaction,
  normalizeToolCallIds,
  parseChain,
  repairChain,
  validateChain,
} from "contextfold";

const chain = [
  { role: "user", content: "hi" },
  { role: "assistant", content: "hello" },
];

/** Asserts `fn` throws a ContextfoldError with `code` and `path` (and a message matching `message`). */
function throwsContextfold(fn, code, path, message) {
  let caught;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof Error, "throws an Error");
  assert.equal(caught.name, "ContextfoldError", `${caught.name}: ${caught.message}`);
  assert.equal(caught.code, code, caught.message);
  assert.equal(caught.path, path, caught.message);
  if (message) assert.match(caught.message, message);
  return caught;
}

describe("bad arguments are ContextfoldErrors with a code and a path", () => {
  it("estimateTokens of anything but a string (was a wasm RuntimeError or a TypeError)", () => {
    for (const value of [5, {}, true, 3.7, null, undefined, [], 10n, Symbol("s")]) {
      throwsContextfold(() => estimateTokens(value), "invalid_shape", "", /estimateTokens: expected a string/);
    }
    assert.equal(estimateTokens(""), 0);
    assert.ok(estimateTokens("hello world") > 0);
    // The module still works after the rejected calls.
    assert.equal(estimateTokens("hello world"), estimateTokens("hello world"));
  });

  it("the chain functions reject a key no function reads, and accept compact's options", () => {
    const cases = {
      parseChain: (o) => parseChain(chain, o),
      validateChain: (o) => validateChain(chain, o),
      repairChain: (o) => repairChain(chain, o),
      normalizeToolCallIds: (o) => normalizeToolCallIds(chain, "call_{r:8:hex}", o),
      clearReasoning: (o) => clearReasoning(chain, o),
    };
    for (const [name, call] of Object.entries(cases)) {
      const e = throwsContextfold(
        () => call({ formt: "openai" }),
        "invalid_option",
        "options.formt",
        /did you mean format\?/,
      );
      assert.ok(e.message, name);
      throwsContextfold(
        () => call({ provder: "anthropic" }),
        "invalid_option",
        "options.provder",
        /did you mean provider\?/,
      );
      // One options object serves every function: compact's keys are accepted here too.
      call({ format: "openai", maxTokens: 1000, strategy: "budget", repair: true, provider: "openai" });
    }
    throwsContextfold(
      () => convert(chain, { to: "anthropic", form: "openai" }),
      "invalid_option",
      "options.form",
      /did you mean from\?/,
    );
    assert.ok(Array.isArray(convert(chain, { from: "openai", to: "anthropic" }).messages));
  });

  it("measureChain with options that are not an object, or an unknown option", () => {
    for (const options of [5, "openai", true]) {
      throwsContextfold(() => measureChain(chain, options), "invalid_option", "options", /expected an object/);
    }
    throwsContextfold(
      () => measureChain(chain, { formt: "openai" }),
      "invalid_option",
      "options.formt",
      /did you mean format\?/,
    );
    assert.equal(measureChain(chain, { format: "openai" }).messages.length, 2);
    assert.equal(measureChain(chain, null).messages.length, 2);
  });

  it("an unknown option names the nearest known one (compact, needsCompaction, strategy settings)", async () => {
    await assert.rejects(compact(chain, { maxToken: 100 }), (e) => {
      assert.equal(e.name, "ContextfoldError");
      assert.equal(e.code, "invalid_option");
      assert.equal(e.path, "options.maxToken");
      assert.match(e.message, /did you mean maxTokens\?/);
      return true;
    });
    throwsContextfold(
      () => needsCompaction(chain, { maxToken: 100 }),
      "invalid_option",
      "options.maxToken",
      /did you mean maxTokens\?/,
    );
    throwsContextfold(
      () => needsCompaction(chain, { strategy: { name: "window", windw: 3 } }),
      "invalid_option",
      "options.strategy.windw",
      /did you mean window\?/,
    );
    // Far from every known name: the known ones are listed instead.
    throwsContextfold(
      () => needsCompaction(chain, { temperature: 1 }),
      "invalid_option",
      "options.temperature",
      /known options: format, strategy, maxTokens/,
    );
    // Every documented option is accepted, by both.
    const all = {
      format: "openai",
      strategy: "budget",
      maxTokens: 1000,
      tokenCounter: undefined,
      summarizer: async () => "S.",
      provider: "openai",
      concurrency: 2,
      timeoutMs: 1000,
      signal: new AbortController().signal,
      onError: "rollback",
      onProgress: () => {},
    };
    assert.equal(needsCompaction(chain, all), false);
    assert.equal((await compact(chain, all)).changed, false);
  });

  it("History(null | 5 | 'x') and a History with options that are not an object", () => {
    for (const init of [null, 5, "x", true, []]) {
      throwsContextfold(() => new History(init), "invalid_option", "options", /expected an object/);
    }
    throwsContextfold(() => new History({ options: 5 }), "invalid_option", "options.options");
    throwsContextfold(() => new History({ options: "abc" }), "invalid_option", "options.options");
    // The options are checked when the history is made, by compact's own reader.
    throwsContextfold(
      () => new History({ options: { maxToken: 100 } }),
      "invalid_option",
      "options.options.maxToken",
      /did you mean maxTokens\?/,
    );
    throwsContextfold(
      () => new History({ options: { strategy: "budget" } }),
      "invalid_option",
      "options.options.maxTokens",
    );
    assert.equal(new History().length, 0);
    assert.equal(new History(undefined).length, 0);
    // A misspelt key would start an empty history, the saved one silently gone.
    throwsContextfold(
      () => new History({ message: chain }),
      "invalid_option",
      "options.message",
      /did you mean messages\?/,
    );
    throwsContextfold(() => new History({ auto: "no" }), "invalid_option", "options.auto");
    throwsContextfold(() => new History({ messages: "abc" }), "invalid_option", "options.messages");
  });

  it("History.fromJSON with options 5 or 'abc' (the argument, or stored)", () => {
    const stored = { version: 1, auto: true, options: {}, messages: chain };
    // A stored `auto` that is not a boolean, or a message that is no object, is no history.
    throwsContextfold(() => History.fromJSON({ ...stored, auto: "no" }), "invalid_history", "auto");
    throwsContextfold(() => History.fromJSON({ ...stored, messages: [42, "x"] }), "invalid_history", "messages[0]");
    for (const options of [5, "abc", null, true]) {
      throwsContextfold(() => History.fromJSON(stored, options), "invalid_option", "options");
    }
    for (const options of [5, "abc", [1]]) {
      throwsContextfold(() => History.fromJSON({ ...stored, options }), "invalid_history", "options");
      throwsContextfold(() => History.fromJSON(JSON.stringify({ ...stored, options })), "invalid_history", "options");
    }
    assert.equal(History.fromJSON(stored).length, 2);
    assert.equal(History.fromJSON({ ...stored, options: null }).length, 2);
  });

  it("History.toJSON().messages is a copy, not the live list", async () => {
    const history = new History({ messages: chain, auto: false });
    const stored = history.toJSON();
    stored.messages.push({ role: "user", content: "injected" });
    stored.messages.length = 0;
    assert.equal(history.length, 2);
    await history.push({ role: "user", content: "more" });
    assert.equal(stored.messages.length, 0, "a later push does not reach an earlier snapshot");
    assert.equal(history.toJSON().messages.length, 3);
  });

  it("invalid JSON says where: line, column, byte offset and the path of the value being read", () => {
    const text = '[{"role":"user","content":"hi"},\n {"role":"assistant","content": tru}]';
    const e = throwsContextfold(() => parseChain(text), "invalid_json", "[1].content");
    assert.match(e.message, /^invalid JSON at line 2, column \d+ \(byte (\d+)\), in \[1\]\.content: /);
    const offset = Number(/\(byte (\d+)\)/.exec(e.message)[1]);
    assert.equal(text.slice(offset - 3, offset), "tru");
    throwsContextfold(() => parseChain("[{"), "invalid_json", "[0]", /line 1, column 2 \(byte \d+\)/);
    throwsContextfold(() => parseChain("not json"), "invalid_json", "", /line 1, column 2 \(byte 1\)/);
    // And a stored History's text.
    const stored = '{"version": 1, "messages": [{"role": "user", "content": }]}';
    throwsContextfold(
      () => History.fromJSON(stored),
      "invalid_json",
      "messages[0].content",
      /not a stored History: invalid JSON at line 1, column \d+ \(byte \d+\)/,
    );
  });
});
