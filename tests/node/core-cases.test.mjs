// The core cases shared with the browser and workerd tests, run here in Node through the
// "node" export of the built package, so that a case failing elsewhere but passing here
// points at the runtime, not at the case.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import * as api from "contextfold";
import * as internal from "../../pkg/dist/internal.node.js"; // the test hooks, not part of the API
import { runCases } from "../shared/core-cases.mjs";
import { caseTests } from "../shared/node-report.mjs";

const internalUrl = new URL("../../pkg/dist/internal.node.js", import.meta.url).href;

describe("core cases in Node", () => caseTests(() => runCases({ ...api, ...internal, skipAsyncPanic: true })));

describe("a panic inside an async export (child process)", () => {
  it("rejects the call with code internal and the module keeps working", () => {
    const script = `
      import * as api from "contextfold";
      import * as internal from ${JSON.stringify(internalUrl)};
      process.on("uncaughtException", (e) => console.log("uncaught " + e.message));
      try { await internal.__contextfoldAsyncPanicForTests(); console.log("resolved"); }
      catch (e) { console.log("rejected " + e.name + " " + e.code); }
      console.log("after " + api.parseChain([{ role: "user", content: "x" }]).outline.messages);
    `;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 20_000,
    });
    const lines = child.stdout.trim().split("\n");
    assert.deepEqual(lines, ["uncaught unreachable", "rejected ContextfoldError internal", "after 1"], child.stderr);
  });
});

describe("a panic while another compaction waits on its summarizer (child process)", () => {
  it("nothing of the abandoned compaction fires into the dead instance later", () => {
    // The panic (here the sync test hook, standing for one in any export) aborts the
    // instance: the compaction in flight is rejected, and its summarizer's answer, the
    // caller's abort and its timeoutMs timer, all coming later, must not reach it (each
    // threw an uncaught exception or an unhandled rejection, which crash Node).
    const script = `
      import * as api from "contextfold";
      import * as internal from ${JSON.stringify(internalUrl)};
      const late = [];
      process.on("uncaughtException", (e) => late.push("uncaught " + e.message));
      process.on("unhandledRejection", (e) => late.push("unhandled " + (e?.message ?? e)));
      const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
      await api.compact([{ role: "user", content: "warm up" }]);
      const chain = [];
      for (let i = 0; i < 10; i++) {
        chain.push({ role: "user", content: "question " + i + " " + "word ".repeat(80) });
        chain.push({ role: "assistant", content: "answer " + i + " " + "word ".repeat(80) });
      }
      const controller = new AbortController();
      const inFlight = api
        .compact(chain, {
          maxTokens: 1500,
          timeoutMs: 300,
          signal: controller.signal,
          summarizer: async () => { await sleep(150); return "a summary"; },
        })
        .then(() => "resolved", (e) => "rejected " + e.code);
      await sleep(20);
      try { internal.__contextfoldPanicForTests(); } catch {}
      console.log(await inFlight);
      await sleep(250); // the summarizer answers
      controller.abort(); // the caller stops later on
      await sleep(700); // the timeout and its grace would have fired
      console.log("late " + JSON.stringify(late));
      console.log("after " + api.parseChain([{ role: "user", content: "x" }]).outline.messages);
    `;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 20_000,
    });
    const lines = child.stdout.trim().split("\n");
    assert.deepEqual(lines, ["rejected internal", "late []", "after 1"], child.stderr);
  });
});
