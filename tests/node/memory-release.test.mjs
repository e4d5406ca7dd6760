// Wasm memory only grows: after a very large call an instance would keep hundreds of MiB
// for good. An instance grown past 64 MiB is replaced by a fresh one once no call came for
// a while (crates/contextfold-wasm/src/memory.rs), and everything made before keeps
// working: summarizers, History, later calls.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import init, { compact, extractiveSummarizer, History, measureChain } from "contextfold";
import { RELEASE_AFTER_IDLE_MS } from "../../pkg/src/api.js"; // a constant: this copy is never instantiated
import { __wasmMemoryBytes } from "../../pkg/dist/internal.node.js";

const MiB = 1 << 20;
const LIMIT = 64 * MiB;
/** MB of JSON whose compaction grows the instance past `LIMIT` (a call peaks at a few times its input). */
const LARGE_MB = 32;
const idle = () => new Promise((resolve) => setTimeout(resolve, RELEASE_AFTER_IDLE_MS + 200));

/** A tool-heavy chain of about `mb` MB of JSON. */
function bigChain(mb) {
  const chain = [{ role: "system", content: "You are a coding agent." }];
  const output = "let value = compute(input, options); // a line of a large file\n".repeat(30);
  // Each step is one output and about 250 bytes besides.
  for (let i = 0, bytes = 0; bytes < mb * 1e6; i++, bytes += output.length + 250) {
    chain.push({ role: "user", content: `Step ${i}: fix src/mod_${i}.rs` });
    chain.push({
      role: "assistant",
      content: null,
      tool_calls: [
        { id: `c${i}`, type: "function", function: { name: "read", arguments: `{"path":"src/mod_${i}.rs"}` } },
      ],
    });
    chain.push({ role: "tool", tool_call_id: `c${i}`, content: output });
    chain.push({ role: "assistant", content: `Fixed src/mod_${i}.rs.` });
  }
  return chain;
}

describe("memory of a very large call", () => {
  it("goes back once the call is over, and what was made before keeps working", async () => {
    const summarize = extractiveSummarizer({ maxBytes: 2048 });
    const history = new History({ messages: bigChain(0.05), auto: false, options: { maxTokens: 2000 } });
    assert.ok(history.needsCompaction());
    assert.ok(__wasmMemoryBytes() < LIMIT, `starts small: ${__wasmMemoryBytes() / MiB} MiB`);

    let during = 0;
    const result = await compact(bigChain(LARGE_MB), {
      maxTokens: 8000,
      summarizer: async (request) => {
        during = Math.max(during, __wasmMemoryBytes());
        return summarize(request);
      },
    });
    assert.ok(result.changed && measureChain(result.messages).total.tokens <= 8000);
    // Wasm memory only grows: after the call it is the call's high-water mark.
    during = Math.max(during, __wasmMemoryBytes());
    assert.ok(during > LIMIT, `the call grew the instance past the limit: ${during / MiB} MiB`);
    // Calls back to back keep it: growing again would cost each of them.
    assert.ok(__wasmMemoryBytes() > LIMIT, "kept while calls keep coming");
    await idle();
    const after = __wasmMemoryBytes();
    assert.ok(after < LIMIT, `the large call's memory was kept: ${after / MiB} MiB`);
    // `init()` resolves to the current instance, not the first one.
    const { memory } = /** @type {any} */ (await init());
    assert.equal(memory.buffer.byteLength, after);

    // Made before the new instance, used after it.
    const transcript = '<tasks>\n<task id="0">\n<content>Port the parser.</content>\n</task>\n</tasks>';
    const text = await summarize({ transcript, targetBytes: 500 });
    assert.match(text, /Port the parser\./);
    const again = await compact(bigChain(0.2), { maxTokens: 3000, summarizer: summarize });
    assert.ok(again.changed && again.report.errors.length === 0, JSON.stringify(again.report.errors));
    await history.push({ role: "user", content: "One more step." });
    assert.ok(history.needsCompaction());
    const folded = await history.compact();
    assert.ok(folded.changed && measureChain(history.messages()).total.tokens <= 2000);
  });

  it("never while a call is in flight", async () => {
    let release;
    const gate = new Promise((resolve) => {
      release = resolve;
    });
    // An async call waits on its summarizer while a large call runs and ends beside it.
    const slow = compact(bigChain(0.3), {
      maxTokens: 3000,
      summarizer: async () => {
        await gate;
        return "## Current state\n- Latest: steps done.";
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    // A JS summarizer: its requests carry transcripts, so the call grows the instance past
    // the limit (the built-in one, reading the messages, needs less).
    const summarize = extractiveSummarizer({ maxBytes: 2048 });
    const large = await compact(bigChain(LARGE_MB), { maxTokens: 8000, summarizer: (r) => summarize(r) });
    assert.ok(large.changed);
    const grown = __wasmMemoryBytes();
    assert.ok(grown > LIMIT, `the large call grew the instance past the limit: ${grown / MiB} MiB`);
    await idle();
    assert.ok(__wasmMemoryBytes() > LIMIT, "the instance the pending call runs in is still there");
    release();
    const result = await slow;
    assert.ok(result.changed && result.report.errors.length === 0, JSON.stringify(result.report.errors));
    assert.match(JSON.stringify(result.messages), /steps done/);
    await idle();
    assert.ok(__wasmMemoryBytes() < LIMIT, "released once nothing is in flight");
  });
});
