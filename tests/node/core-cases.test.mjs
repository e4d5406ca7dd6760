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
