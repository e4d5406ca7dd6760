// Bugs the reliability suite found, each as its minimal reproducer: fixed, and kept here
// so that they stay fixed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact, needsCompaction } from "contextfold";

describe("regressions", () => {
  it(
    "sections: a pair whose kept thinking makes every summary as large as itself is sent to the summarizer on every run",
    async () => {
      const chain = [
        { role: "user", content: "t" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "x".repeat(300), signature: "xxxxxxxx" },
            { type: "tool_use", id: "call_0", name: "xxxxxxxxx", input: { path: "xx", n: 0 } },
            { type: "tool_use", id: "call_1", name: "xxxxxxxxx", input: { path: "xxxx", n: 0 } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: "x".repeat(76) },
            { type: "tool_result", tool_use_id: "call_0", content: "x".repeat(42) },
          ],
        },
        { role: "assistant", content: [{ type: "text", text: "t" }] },
      ];
      const options = { strategy: "sections", maxTokens: 202 };
      let calls = 0;
      const result = await compact(chain, { ...options, summarizer: async () => (calls++, "Summary 0 (pair).") });
      // Every call ends in noGain and nothing changes, so a caller compacting again (or a
      // History with auto on) pays for the same discarded calls forever.
      assert.equal(result.changed, false);
      assert.equal(calls, 0, `made ${calls} summary call(s) whose answers were all discarded`);
      assert.equal(needsCompaction(chain, options), false);
    },
  );

  it(
    "sections / tiers: consecutive user messages of a valid chain are merged although there is nothing to compact",
    async () => {
      // Valid for OpenAI (validateChain says so): a user may send two messages in a row.
      const chain = [
        { role: "user", content: "first question" },
        { role: "assistant", content: "answer" },
        { role: "user", content: "second" },
        { role: "user", content: "third" },
        { role: "assistant", content: "answer 2" },
      ];
      for (const strategy of ["sections", "tiers"]) {
        let calls = 0;
        const result = await compact(chain, { strategy, maxTokens: 100000, summarizer: async () => (calls++, "S.") });
        assert.equal(calls, 0);
        assert.equal(result.changed, false, `${strategy}: merged the user messages: ${JSON.stringify(result.messages[2])}`);
        assert.equal(result.messages, chain);
      }
    },
  );
});
