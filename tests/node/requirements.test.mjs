// CI never skips: tests/shared/requirements.mjs skips a test whose requirement is missing
// with a notice in a user's clone, and fails it under CI=true. Checked in child processes,
// one per setting of CI, so this process's own environment does not decide the outcome.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";

const probe = `
import { skipUnless } from "./tests/shared/requirements.mjs";
console.log(JSON.stringify({ present: skipUnless(true, "x"), missing: skipUnless(false, "chromium not found") }));
`;

function run(ci) {
  const env = { ...process.env };
  delete env.CI;
  if (ci !== undefined) env.CI = ci;
  return spawnSync(process.execPath, ["--input-type=module", "-e", probe], { cwd: new URL("../..", import.meta.url), env, encoding: "utf8" });
}

describe("missing requirements (Chromium, the real transcripts)", () => {
  it("skip with a notice outside CI", () => {
    for (const ci of [undefined, "false", "1"]) {
      const result = run(ci);
      assert.equal(result.status, 0, result.stderr);
      assert.deepEqual(JSON.parse(result.stdout), { present: false, missing: "chromium not found: skipped" });
    }
  });

  it("fail under CI=true, naming what is missing", () => {
    const result = run("true");
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, /CI=true and chromium not found: CI never skips/);
  });
});
