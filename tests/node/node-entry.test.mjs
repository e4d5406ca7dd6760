// The Node entry (pkg/dist/node.js, bundled from pkg/src/node.js) reads and compiles the
// wasm in the background on import: a synchronous call made before that finished must
// instantiate on the spot, async calls wait for it, and the background compile must not
// then replace the instance in use. Each case runs in a fresh process, where the import
// is the first thing that happens.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { root } from "./helpers.mjs";

const internalUrl = new URL("../../pkg/dist/internal.node.js", import.meta.url).href;

/** Runs `body` as an ES module in a fresh Node process; its last line of output, parsed. */
function fresh(body) {
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", body], { cwd: root, encoding: "utf8" });
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout.trim().split("\n").pop());
}

describe("the Node entry's background compile", () => {
  it("a synchronous call right after the import works, and keeps its instance", () => {
    const out = fresh(`
      import * as api from "contextfold";
      // Same tick as the import: the background compile cannot have finished.
      const tokens = api.estimateTokens("hello world, hello wasm");
      const history = new api.History({ messages: [{ role: "user", content: "hi" }] });
      const first = await api.default();
      // Let the background compile settle well past its end.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const second = await api.default();
      // The History's session lives in the instance it was made in.
      await history.push({ role: "assistant", content: "hello" });
      console.log(JSON.stringify({
        tokens,
        sameInstance: first.memory === second.memory,
        length: history.length,
        needs: history.needsCompaction(),
      }));
    `);
    assert.ok(out.tokens > 0, `estimateTokens answered ${out.tokens}`);
    assert.equal(out.sameInstance, true, "the background compile replaced the instance in use");
    assert.equal(out.length, 2);
    assert.equal(out.needs, false);
  });

  it("async calls and init() wait for the background compile", () => {
    const out = fresh(`
      import init, { compact } from "contextfold";
      const [exports, result] = await Promise.all([
        init(),
        compact([{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }], { maxTokens: 100_000 }),
      ]);
      console.log(JSON.stringify({ memory: exports.memory instanceof WebAssembly.Memory, changed: result.changed }));
    `);
    assert.deepEqual(out, { memory: true, changed: false });
  });

  it("a Node without process.getBuiltinModule (before 20.16) is told so on import", () => {
    const out = fresh(`
      delete process.getBuiltinModule;
      const error = await import("contextfold").then(() => null, (e) => e);
      console.log(JSON.stringify({ name: error?.name, code: error?.code, message: error?.message }));
    `);
    assert.equal(out.name, "ContextfoldError");
    assert.equal(out.code, "unsupported_runtime");
    assert.match(out.message, /Node 20\.16 or later/);
  });

  it("the Node entries and the test hooks share one instance", () => {
    const out = fresh(`
      import * as api from "contextfold";
      import { compactionMiddleware } from "contextfold/worker";
      import * as internal from ${JSON.stringify(internalUrl)};
      const exports = await api.default();
      const before = internal.__wasmMemoryBytes();
      // Grow the instance through the public entry; the hooks see the same memory.
      api.measureChain(Array.from({ length: 4000 }, (_, i) => ({ role: "user", content: "x".repeat(2000) + i })));
      console.log(JSON.stringify({
        middleware: typeof compactionMiddleware,
        same: internal.__wasmMemoryBytes() === exports.memory.buffer.byteLength,
        grew: exports.memory.buffer.byteLength > before,
      }));
    `);
    assert.deepEqual(out, { middleware: "function", same: true, grew: true });
  });
});
