// What the declarations promise of errors and returned values: the error guard, the
// FormatInfo fields in camelCase, the Diagnostic codes.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact, formats, isContextfoldError, validateChain } from "contextfold";
import { outcome } from "../shared/outcome.mjs";

const chain = [{ role: "user", content: "hi" }];

describe("errors and declared shapes", () => {
  it("isContextfoldError tells the package's errors from others", async () => {
    const error = await outcome(compact(chain, /** @type {any} */ ({ maxToken: 1 })));
    assert.equal(isContextfoldError(error), true);
    for (const other of [new Error("x"), { name: "ContextfoldError", code: "x" }, "ContextfoldError", null]) {
      assert.equal(isContextfoldError(other), false, String(other));
    }
  });

  it("formats() names the request fields in camelCase, as FormatInfo declares them", () => {
    const gemini = formats().find((f) => f.name === "gemini");
    assert.equal(gemini?.request?.systemIn, "config");
    for (const f of formats()) {
      for (const key of Object.keys(f.request ?? {})) assert.ok(["system", "messages", "systemIn"].includes(key), key);
    }
  });

  it("validateChain reports the codes the Diagnostic type declares", () => {
    const codes = validateChain(
      [
        { role: "user", content: "q" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "hmm", signature: "" },
            { type: "text", text: "a" },
          ],
        },
      ],
      { provider: "anthropic" },
    ).map((d) => d.code);
    assert.ok(codes.includes("unsigned_thinking"), codes.join());
  });
});
