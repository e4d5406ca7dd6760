// The shared core cases in real headless Chromium, through the package's browser entry
// (pkg/src/web.js with `await init()`). Skipped, with a notice, when /usr/bin/chromium is
// missing (scripts/setup.sh installs it; CONTEXTFOLD_SKIP_BROWSER=1 opts out there); fails under CI=true.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { root } from "../node/helpers.mjs";
import { caseTests } from "../shared/node-report.mjs";
import { CHROMIUM_HOW, missing } from "../shared/requirements.mjs";
import { chromiumPath, runInChromium } from "./runner.mjs";

const available = existsSync(chromiumPath);
let run;
const outcome = () =>
  (run ??= available
    ? runInChromium()
    : Promise.resolve({ skip: missing(`Chromium (${chromiumPath})`, CHROMIUM_HOW) }));

describe("core cases in headless Chromium", () => {
  it("the page loads the browser entry and fetches the wasm over HTTP", async (t) => {
    const result = await outcome();
    if (result.skip) {
      t.diagnostic(result.skip);
      t.skip(result.skip);
      return;
    }
    const manifest = JSON.parse(readFileSync(join(root, "pkg/package.json"), "utf8"));
    assert.equal(manifest.exports["."].default, "./src/web.js", "the page imports what `default` names");
    assert.ok(result.requests.includes("/pkg/src/web.js"));
    assert.ok(result.requests.includes("/pkg/glue/contextfold_wasm_bg.wasm"), "init() fetched the .wasm");
    // The panic hook logs the two deliberate panics of the reinit case, and the async one
    // also surfaces as the page's uncaught `unreachable` (the wasm task queue rethrows
    // it; the call itself was rejected); nothing else may.
    const logged = (line) => line.startsWith("console.error") && line.includes("deliberate panic for the reinit test");
    const deliberate = (line) => logged(line) || line === "pageerror: unreachable";
    assert.equal(result.log.filter(logged).length, 2, "the two deliberate panics are logged once each");
    assert.equal(result.log.filter((l) => l === "pageerror: unreachable").length, 1, "one uncaught abort");
    assert.deepEqual(
      result.log.filter(
        (line) => !line.startsWith("console.log") && !line.startsWith("console.info") && !deliberate(line),
      ),
      [],
      "no page error, failed request or console error",
    );
    t.diagnostic(`Chromium ${result.browserVersion}; init() took ${Math.round(result.initMs)} ms`);
  });

  caseTests(async () => {
    const result = await outcome();
    return result.skip ? result : result.results;
  });
});
