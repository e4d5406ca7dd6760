// Summary calls under `timeoutMs` and `concurrency` (issue 14): a timed-out call was
// abandoned without being aborted (no signal reached the summarizer), and its slot was
// given to a new call while it still ran, so more than `concurrency` calls were in
// flight. Now each call gets its own signal, aborted on timeout, and the slot is freed
// only once the call has settled. The calls in flight are counted, not timed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact } from "contextfold";
import { openaiSections } from "../shared/chains.mjs";

/**
 * A summarizer that counts its calls in flight. `behave(signal, settle)` decides when a
 * call settles: it gets the call's signal and `settle(error?)`.
 */
function counting(behave) {
  const state = { inFlight: 0, most: 0, calls: 0, signals: [] };
  const summarizer = (request, { signal } = {}) => {
    state.calls += 1;
    state.inFlight += 1;
    state.most = Math.max(state.most, state.inFlight);
    state.signals.push(signal);
    return new Promise((resolve, reject) => {
      let done = false;
      const settle = (error) => {
        if (done) return;
        done = true;
        state.inFlight -= 1;
        if (error) reject(error);
        else resolve(`Summary of call ${request.id}.`);
      };
      behave(signal, settle);
    });
  };
  return { summarizer, state };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

describe("timeoutMs aborts the call, and concurrency bounds the calls really in flight", () => {
  it("a summarizer that stops when its signal aborts (20 ms after, like fetch) never exceeds concurrency", async () => {
    const { summarizer, state } = counting((signal, settle) => {
      // Never answers on its own; on abort it takes 20 ms to wind down.
      signal?.addEventListener("abort", () => setTimeout(() => settle(signal.reason), 20), { once: true });
    });
    const result = await compact(openaiSections(8), {
      strategy: "sections",
      summarizer,
      concurrency: 2,
      timeoutMs: 40,
    });
    assert.ok(state.calls >= 4, `${state.calls} calls`);
    assert.equal(state.inFlight, 0, "every call settled before compact returned");
    assert.ok(state.most <= 2, `${state.most} calls in flight with concurrency 2`);
    assert.ok(
      state.signals.every((s) => s instanceof AbortSignal),
      "each call got a signal",
    );
    assert.ok(
      state.signals.every((s) => s.aborted && s.reason?.name === "TimeoutError"),
      "each timed-out call was aborted",
    );
    assert.equal(result.changed, false);
    assert.ok(result.report.errors.length > 0 && result.report.errors.every((e) => e.kind === "timeout"));
  });

  it("a summarizer that ignores its signal but settles late keeps its slot until it settles", async () => {
    const { summarizer, state } = counting((signal, settle) => {
      setTimeout(() => settle(), 60); // after the 40 ms timeout, within its grace
    });
    await compact(openaiSections(8), { strategy: "sections", summarizer, concurrency: 3, timeoutMs: 40 });
    assert.ok(state.calls >= 4, `${state.calls} calls`);
    assert.ok(state.most <= 3, `${state.most} calls in flight with concurrency 3`);
    await sleep(0);
    assert.equal(state.inFlight, 0);
  });

  it("calls that answer in time are not aborted, and the bound holds for them too", async () => {
    const { summarizer, state } = counting((signal, settle) => setTimeout(() => settle(), 5));
    const result = await compact(openaiSections(8), {
      strategy: "sections",
      summarizer,
      concurrency: 2,
      timeoutMs: 5000,
    });
    assert.equal(result.changed, true);
    assert.ok(state.most <= 2 && state.most >= 1, `${state.most} in flight`);
    assert.ok(
      state.signals.every((s) => s instanceof AbortSignal && !s.aborted),
      "no call was aborted",
    );
  });

  it("a summarizer that never settles and ignores its signal cannot hang the compaction", async () => {
    const { summarizer, state } = counting(() => {});
    const result = await compact(openaiSections(4), {
      strategy: "sections",
      summarizer,
      concurrency: 1,
      timeoutMs: 30,
    });
    assert.equal(result.changed, false);
    assert.ok(result.report.errors.every((e) => e.kind === "timeout"));
    assert.ok(
      state.signals.every((s) => s.aborted),
      "each was told to stop",
    );
  });

  it("aborting the caller's signal aborts the signal of every call in flight", async () => {
    const controller = new AbortController();
    const { summarizer, state } = counting((signal, settle) => {
      signal.addEventListener("abort", () => settle(signal.reason), { once: true });
    });
    setTimeout(() => controller.abort(), 30);
    const result = await compact(openaiSections(6), {
      strategy: "sections",
      summarizer,
      concurrency: 2,
      signal: controller.signal,
    });
    assert.equal(result.report.cancelled, true);
    assert.equal(state.calls, 2, "no call started after the abort");
    assert.ok(state.signals.every((s) => s.aborted));
    assert.ok(
      state.signals.every((s) => s !== controller.signal),
      "each call has its own signal",
    );
  });
});
