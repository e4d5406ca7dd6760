// Calls before initialization: the browser entry (pkg/src/web.js), imported here in Node
// and not initialized, answers every export that needs the wasm with a ContextfoldError
// `not_initialized` telling to call `await init()`, never a TypeError from the glue.
// This process never imports the Node entry, which would instantiate on import.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import * as glue from "../../pkg/glue/contextfold_wasm.js";
import * as guarded from "../../pkg/src/glue.js";
import * as internal from "../../pkg/src/internal.js";
import * as web from "../../pkg/src/web.js";
import * as worker from "../../pkg/src/worker.js";
import { root } from "./helpers.mjs";

/** Exports that work without the wasm: instantiation itself and the summary cache helpers. */
const WITHOUT_WASM = new Set([
  "default",
  "initSync",
  "cachedSummarizer",
  "cacheApiCache",
  "kvCache",
  "memoryCache",
  "summaryCacheKey",
  "isContextfoldError",
]);

/** Each export that needs the wasm, called with arguments it would accept once initialized. */
const calls = {
  compact: (f) => f([{ role: "user", content: "hi" }]),
  needsCompaction: (f) => f([{ role: "user", content: "hi" }]),
  parseChain: (f) => f([{ role: "user", content: "hi" }]),
  validateChain: (f) => f([{ role: "user", content: "hi" }]),
  measureChain: (f) => f([{ role: "user", content: "hi" }]),
  repairChain: (f) => f([{ role: "user", content: "hi" }]),
  convert: (f) => f([{ role: "user", content: "hi" }], { to: "anthropic" }),
  normalizeToolCallIds: (f) => f([{ role: "user", content: "hi" }], "call_{r:8:hex}"),
  clearReasoning: (f) => f([{ role: "user", content: "hi" }]),
  estimateTokens: (f) => f("hello world"),
  extractiveSummarizer: (f) => f(),
  formats: (f) => f(),
  defaultSettings: (f) => f(),
  providerOf: (f) => f("openai"),
  History: (C) => new C(),
};

async function outcome(call) {
  try {
    await call();
    return null;
  } catch (error) {
    return error;
  }
}

describe("calls before `await init()` (browser entry)", () => {
  it("the guarded glue wraps every function the generated glue exports", () => {
    const functions = (module) =>
      Object.keys(module)
        .filter((name) => typeof module[name] === "function" && name !== "default")
        .sort();
    assert.deepEqual(
      functions(guarded).filter((n) => n !== "init" && n !== "instanceExports"),
      functions(glue),
    );
  });

  it("every export that needs the wasm throws not_initialized, naming itself", async () => {
    const needing = Object.keys(web).filter((name) => !WITHOUT_WASM.has(name));
    assert.deepEqual(needing.sort(), Object.keys(calls).sort(), "every such export has a call here");
    for (const name of needing) {
      const call = calls[name] ?? ((f) => f());
      const error = await outcome(() => call(web[name]));
      assert.ok(error, `${name} did not throw before init()`);
      assert.equal(error.name, "ContextfoldError", `${name}: ${error.stack}`);
      assert.equal(error.code, "not_initialized", name);
      assert.match(error.message, /call `await init\(\)` first/, name);
      assert.ok(error.message.includes(name === "History" ? "new History()" : name), `${name}: ${error.message}`);
    }
  });

  it("test hooks and the middleware's internals are guarded too, and not exported by the entry", async () => {
    const names = Object.keys(internal).sort();
    assert.deepEqual(names, [
      "__checkOptionKeys",
      "__contextfoldAsyncPanicForTests",
      "__contextfoldPanicForTests",
      "__requestBodySpans",
      "__wasmMemoryBytes",
    ]);
    for (const name of names) {
      assert.equal(web[name], undefined, `${name} is exported by the public entry`);
      // Only the guard is checked: once initialized the hooks would panic.
      const error = await outcome(() => internal[name]());
      assert.equal(error?.code, "not_initialized", `${name}: ${error?.stack}`);
      assert.ok(error.message.includes(name), `${name}: ${error.message}`);
    }
  });

  it("the integrations' factories made before init() throw not_initialized too, not invalid_option", async () => {
    const error = await outcome(() => worker.compactionMiddleware({ maxTokens: 1000 }));
    assert.equal(`${error?.name}/${error?.code}`, "ContextfoldError/not_initialized", error?.stack);
  });

  it("an init() that cannot get the .wasm rejects with a ContextfoldError init_failed, not a bare TypeError", async () => {
    // What an edge runtime saw: the glue fetches the .wasm by a URL it cannot reach.
    const unreachable = "http://127.0.0.1:9/contextfold_wasm_bg.wasm"; // the discard port: refused
    const failed = async (source) => {
      const error = await outcome(() => web.default({ module_or_path: source }));
      return `${error?.name}/${error?.code}: ${error?.message}`;
    };
    assert.match(await failed(unreachable), /^ContextfoldError\/init_failed: contextfold could not instantiate/);
    assert.match(await failed(new Uint8Array([1, 2, 3])), /^ContextfoldError\/init_failed: /);
    assert.equal((await outcome(() => web.estimateTokens("x")))?.code, "not_initialized", "still not initialized");
  });

  it("after `await init({ module_or_path })` the same calls work", async () => {
    await web.default({ module_or_path: readFileSync(join(root, "pkg/glue/contextfold_wasm_bg.wasm")) });
    for (const [name, call] of Object.entries(calls)) {
      if (call === null) continue;
      assert.equal(await outcome(() => call(web[name])), null, `${name} after init()`);
    }
    assert.ok(web.estimateTokens("hello world") > 0);
    assert.equal(new web.History({ messages: [{ role: "user", content: "hi" }] }).length, 1);
  });
});
