// JSON text crosses into wasm through TextEncoder.encodeInto in 1 MiB chunks
// (crates/contextfold-wasm/src/convert.rs `js_text`): every character must arrive whole,
// wherever a chunk ends.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { convert, estimateTokens, measureChain } from "contextfold";

const CHUNK = 1 << 20;
const PATTERN = "a é 中 😀 ";

/** Text over three chunks whose 1-, 2-, 3- and 4-byte characters fall on every chunk end. */
function mixedText(lead) {
  return "x".repeat(lead) + PATTERN.repeat(Math.ceil((3 * CHUNK) / PATTERN.length));
}

describe("JSON text into wasm", () => {
  for (const lead of [0, 1, 2, 3]) {
    it(`keeps every character of a ${lead}-byte-offset multi-chunk text`, () => {
      const text = mixedText(lead);
      const chain = [
        { role: "user", content: text },
        { role: "assistant", content: "ok" },
      ];
      const json = JSON.stringify(chain);
      assert.ok(Buffer.byteLength(json) > 3 * CHUNK);
      const { messages } = convert(json, { from: "openai", to: "openai" });
      assert.equal(messages[0].content, text);
      const measured = measureChain(json);
      assert.equal(measured.messages[0].tokens, measureChain(chain).messages[0].tokens);
      // Cut between two patterns (each a whole number of tokens), both halves over a chunk.
      const cut = lead + PATTERN.length * Math.ceil(CHUNK / PATTERN.length);
      assert.equal(estimateTokens(text), estimateTokens(text.slice(0, cut)) + estimateTokens(text.slice(cut)));
    });
  }

  it("reads an empty string as JSON text (and fails as JSON)", () => {
    assert.throws(() => measureChain(""), { code: "invalid_json" });
  });
});
