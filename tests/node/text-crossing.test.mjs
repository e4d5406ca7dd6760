// JSON text crosses into wasm through TextEncoder.encodeInto in 1 MiB chunks
// (crates/contextfold-wasm/src/convert.rs `js_text`), and `compact` reads it again in
// 16 KiB pieces (`JsTextPieces`: the messages, then the reuse plan): every character must
// arrive whole, wherever a chunk or a piece ends.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact, convert, estimateTokens, measureChain } from "contextfold";

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

  it("compacts a multi-piece text as it compacts its tree, keeping the caller's objects", async () => {
    // Messages of 1-, 2-, 3- and 4-byte characters, of lengths that put piece ends
    // everywhere; tool results for `mask` to replace, the rest kept.
    const chain = [{ role: "system", content: "You code." }];
    for (let i = 0; i < 120; i++) {
      const id = `call_${i}`;
      chain.push({ role: "user", content: `${"é".repeat(i % 7)}${PATTERN.repeat(80 + 2 * i)}` });
      chain.push({
        role: "assistant",
        content: null,
        tool_calls: [{ id, type: "function", function: { name: "read", arguments: `{"path":"src/${i}.rs"}` } }],
      });
      chain.push({ role: "tool", tool_call_id: id, content: `${"中".repeat(i % 5)}${PATTERN.repeat(160)}` });
      chain.push({ role: "assistant", content: `${"😀".repeat(i % 3)} done ${i}` });
    }
    const json = JSON.stringify(chain);
    assert.ok(Buffer.byteLength(json) > 8 * 65536);
    const options = { strategy: "mask", maxTokens: Math.floor(Buffer.byteLength(json) / 8) };
    const fromObjects = await compact(chain, options);
    const fromText = await compact(json, options);
    assert.ok(fromObjects.changed);
    assert.deepEqual(fromObjects.messages, fromText.messages);
    const kept = fromObjects.messages.filter((m) => chain.includes(m));
    assert.ok(kept.length > chain.length / 2, `kept ${kept.length} of ${chain.length} as the caller's objects`);
    // What was not kept is new, and every kept object is one the output would have.
    for (const [i, m] of fromObjects.messages.entries()) {
      if (chain.includes(m)) assert.deepEqual(m, fromText.messages[i]);
    }
  });

  it("hands a summarizer a transcript of many pieces whole, and the prompt made of it", async () => {
    // The transcript leaves wasm in 64 KiB pieces joined in JS: a message of 1- to 4-byte
    // characters must arrive whole wherever a piece ends, and `prompt` must read as the
    // envelope and that very transcript.
    const chain = [];
    for (let i = 0; i < 60; i++) {
      chain.push({ role: "user", content: `${i}: ${"é".repeat(i % 7)}${PATTERN.repeat(300 + i)}` });
      chain.push({ role: "assistant", content: `${"😀".repeat(i % 3)} done ${i}` });
    }
    const requests = [];
    const summarizer = async (request) => {
      requests.push(request);
      return "Summary: the work so far.";
    };
    const bytes = Buffer.byteLength(JSON.stringify(chain));
    await compact(chain, { strategy: "auto", summarizer, maxTokens: Math.floor(bytes / 40) });
    const [request] = requests;
    assert.ok(request, "a summary was asked for");
    assert.ok(Buffer.byteLength(request.transcript) > 4 * 65536, `${request.transcript.length} characters`);
    assert.equal(request.prompt, `<instructions>${request.instructions}</instructions>\n\n${request.transcript}`);
    assert.ok(!request.transcript.includes("\uFFFD"), "no character was cut");
    const whole = chain.filter((m) => request.transcript.includes(m.content));
    assert.ok(whole.length > chain.length / 2, `${whole.length} of ${chain.length} messages whole in the transcript`);
  });

  it("reads an empty string as JSON text (and fails as JSON)", () => {
    assert.throws(() => measureChain(""), { code: "invalid_json" });
  });
});
