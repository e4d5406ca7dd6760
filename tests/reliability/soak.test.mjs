// Soak: 10,000 sequential compactions (small chains, instant summarizer, every strategy
// in turn) in one wasm instance. The wasm memory (read through the instance the Node
// entry exposes) must stop growing after a warm-up, and so must the process heap: a
// leak of even a few hundred bytes per call would show as megabytes here.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import init, { compact, validateChain } from "contextfold";

const RUNS = Number(process.env.SOAK_RUNS ?? 10_000);
const WARMUP = Math.min(1000, RUNS / 10);

function chain(i) {
  const out = [{ role: "system", content: "You are terse." }];
  for (let s = 0; s < 4; s++) {
    out.push({ role: "user", content: `Task ${i}.${s}: check file ${s}.` });
    out.push({ role: "assistant", content: null, tool_calls: [{ id: `c${s}`, type: "function", function: { name: "read", arguments: `{"f":${s}}` } }] });
    out.push({ role: "tool", tool_call_id: `c${s}`, content: `line ${i} `.repeat(40 + (i % 7) * 10) });
    out.push({ role: "assistant", content: `Done ${s}. ${"words ".repeat(60)}` });
  }
  return out;
}

const STRATEGIES = ["sections", { name: "window", window: 6, thresholdBytes: 1500 }, { name: "tiers", recent: 4, condensed: 4 }, "budget"];

describe("soak", () => {
  it(`${RUNS} sequential compactions keep the wasm memory and the heap flat`, { timeout: 120_000 }, async (t) => {
    const wasm = await init();
    const memory = () => wasm.memory.buffer.byteLength;
    const summarizer = async (request) => `Summary ${request.id}.`;
    let calls = 0;
    let atWarmup = null;
    for (let i = 0; i < RUNS; i++) {
      const strategy = STRATEGIES[i % STRATEGIES.length];
      const r = await compact(chain(i), { strategy, maxTokens: 600, summarizer });
      calls += r.report.calls;
      if (i % 997 === 0) assert.deepEqual(validateChain(r.messages, { format: r.format }), [], `run ${i}`);
      if (i + 1 === WARMUP) {
        globalThis.gc?.();
        atWarmup = { wasm: memory(), heap: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss };
      }
    }
    globalThis.gc?.();
    const end = { wasm: memory(), heap: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss };
    t.diagnostic(`summary calls ${calls}; wasm memory ${atWarmup.wasm} -> ${end.wasm} bytes; heap ${atWarmup.heap} -> ${end.heap}; rss ${atWarmup.rss} -> ${end.rss}`);
    assert.ok(calls > RUNS, "the compactions made summary calls");
    // Loose bounds: wasm memory grows in 64 KiB pages and never shrinks; allow 1 MiB.
    assert.ok(end.wasm - atWarmup.wasm <= 1 << 20, `wasm memory grew by ${end.wasm - atWarmup.wasm} bytes after warm-up`);
    assert.ok(end.rss - atWarmup.rss <= 64 << 20, `rss grew by ${end.rss - atWarmup.rss} bytes after warm-up`);
  });
});
