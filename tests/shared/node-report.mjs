// Node side of the shared core cases (Node only, unlike the rest of tests/shared/): one
// `node:test` test per case, fed by results produced wherever the cases ran.
import assert from "node:assert/strict";
import { it } from "node:test";
import { caseNames } from "./core-cases.mjs";

/**
 * Declares one test per core case. `produce` runs once, lazily, and resolves to the
 * array `runCases` returned, or to `{ skip: "reason" }` to skip every case.
 */
export function caseTests(produce) {
  let results;
  const get = () => (results ??= produce());
  for (const name of caseNames) {
    it(name, async (t) => {
      const outcome = await get();
      if (!Array.isArray(outcome)) {
        t.skip(outcome.skip);
        return;
      }
      const result = outcome.find((r) => r.name === name);
      assert.ok(result, `case "${name}" reported no result`);
      assert.ok(result.ok, result.error);
    });
  }
}
