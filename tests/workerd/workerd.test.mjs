// The shared core cases in real workerd (the binary npm miniflare brings in
// @cloudflare/workerd-linux-64), through the package's workerd entry: the Worker imports
// the .wasm as a CompiledWasm module, as a bundler such as wrangler would.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Log, LogLevel, Miniflare } from "miniflare";
import { root } from "../node/helpers.mjs";
import { caseTests } from "../shared/node-report.mjs";

let miniflare;
after(() => miniflare?.dispose());

let run;
function outcome() {
  run ??= (async () => {
    miniflare = new Miniflare({
      modules: true,
      scriptPath: join(root, "tests/workerd/worker.mjs"),
      // Module names are paths relative to the repository, so the Worker can reach pkg/.
      modulesRoot: root,
      modulesRules: [
        { type: "ESModule", include: ["**/*.js", "**/*.mjs"] },
        { type: "CompiledWasm", include: ["**/*.wasm"] },
      ],
      compatibilityDate: "2026-04-01",
      cf: false, // no fetch of the Request.cf placeholder from workers.cloudflare.com
      log: new Log(LogLevel.WARN),
    });
    const response = await miniflare.dispatchFetch("http://localhost/");
    const text = await response.text();
    assert.equal(response.status, 200, text);
    return JSON.parse(text);
  })();
  return run;
}

describe("core cases in workerd", () => {
  it("the Worker loads the workerd entry and answers", async (t) => {
    const manifest = JSON.parse(readFileSync(join(root, "pkg/package.json"), "utf8"));
    assert.equal(manifest.exports["."].workerd, "./src/workerd.js", "the Worker imports what `workerd` names");
    const { userAgent, results } = await outcome();
    assert.equal(userAgent, "Cloudflare-Workers");
    assert.ok(Array.isArray(results));
    t.diagnostic(`workerd ${(await import("workerd")).version}`);
  });

  caseTests(async () => (await outcome()).results);
});
