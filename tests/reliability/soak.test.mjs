// Soak: 10,000 sequential compactions (small chains, instant summarizer, every strategy
// in turn) in one wasm instance. The wasm memory (read through the instance the Node
// entry exposes) must stop growing after a warm-up, and so must the process heap: a
// leak of even a few hundred bytes per call would show as megabytes here.
//
// Both are read right after a full garbage collection, so that what is measured is what
// is still reachable (and wasm memory that JS finalizers free is freed). `npm test` runs
// this file without --expose-gc, so the collector is reached through V8's flag at run
// time; the test first proves that collection really happens.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import v8 from "node:v8";
import vm from "node:vm";
import init, { compact, validateChain } from "contextfold";

/** A function that runs a full garbage collection, with or without --expose-gc. */
function collector() {
  if (typeof globalThis.gc === "function") return globalThis.gc;
  v8.setFlagsFromString("--expose-gc");
  return vm.runInNewContext("gc");
}
const gc = collector();

/** Settles pending jobs, then collects: WeakRef targets are held until the job ends. */
async function collect() {
  await new Promise((resolve) => setImmediate(resolve));
  gc();
}

const RUNS = Number(process.env.SOAK_RUNS ?? 10_000);
const WARMUP = Math.min(1000, RUNS / 10);

function chain(i) {
  const out = [{ role: "system", content: "You are terse." }];
  for (let s = 0; s < 4; s++) {
    out.push({ role: "user", content: `Task ${i}.${s}: check file ${s}.` });
    out.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id: `c${s}`, type: "function", function: { name: "read", arguments: `{"f":${s}}` } }],
    });
    out.push({ role: "tool", tool_call_id: `c${s}`, content: `line ${i} `.repeat(40 + (i % 7) * 10) });
    out.push({ role: "assistant", content: `Done ${s}. ${"words ".repeat(60)}` });
  }
  return out;
}

const STRATEGIES = [
  "sections",
  { name: "window", window: 6, thresholdBytes: 1500 },
  { name: "tiers", recent: 4, condensed: 4 },
  "budget",
];

describe("soak", () => {
  it("garbage collection is really available to the soak", async () => {
    assert.equal(typeof gc, "function");
    const ref = (() => new WeakRef({ payload: new Array(1000).fill(0) }))();
    await collect();
    assert.equal(ref.deref(), undefined, "gc() ran but collected nothing: the heap figures below would be noise");
  });

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
        await collect();
        atWarmup = { wasm: memory(), heap: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss };
      }
    }
    await collect();
    const end = { wasm: memory(), heap: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss };
    t.diagnostic(
      `summary calls ${calls}; wasm memory ${atWarmup.wasm} -> ${end.wasm} bytes; heap ${atWarmup.heap} -> ${end.heap}; rss ${atWarmup.rss} -> ${end.rss}`,
    );
    assert.ok(calls > RUNS, "the compactions made summary calls");
    // Loose bounds: wasm memory grows in 64 KiB pages and never shrinks; allow 1 MiB.
    assert.ok(
      end.wasm - atWarmup.wasm <= 1 << 20,
      `wasm memory grew by ${end.wasm - atWarmup.wasm} bytes after warm-up`,
    );
    // After a full collection the heap holds only what is reachable: 9,000 compactions that
    // each kept a few hundred bytes alive would add megabytes.
    assert.ok(end.heap - atWarmup.heap <= 4 << 20, `heap grew by ${end.heap - atWarmup.heap} bytes after warm-up`);
    assert.ok(end.rss - atWarmup.rss <= 64 << 20, `rss grew by ${end.rss - atWarmup.rss} bytes after warm-up`);
  });
});
