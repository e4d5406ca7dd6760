// Binary data as the AI SDK holds it (Uint8Array, ArrayBuffer, URL objects in image and
// file parts) goes through every function, and comes back as the caller's very values,
// in messages kept and rewritten alike (issue 19 item 1). Judged by the real `ai`.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateText, modelMessageSchema } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { History, compact, convert, measureChain, parseChain, validateChain } from "contextfold";
import { generated } from "../shared/ai-mock.mjs";

const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, ...Array.from({ length: 300 }, (_, i) => i % 251)]);
const pdf = new Uint8Array([37, 80, 68, 70, 45, 49, 46, 55]).buffer; // an ArrayBuffer
const remote = new URL("https://example.com/chart.png");

/** The prompt a mock model gets for `messages` through `generateText` (remote example.com images by URL). */
async function promptSent(messages) {
  let seen;
  const model = new MockLanguageModelV4({
    supportedUrls: { "image/*": [/^https:\/\/example\.com\//] },
    doGenerate: async (options) => {
      seen = options.prompt;
      return generated;
    },
  });
  await generateText({ model, messages });
  return seen;
}

/** An AI SDK conversation whose first request carries three kinds of binary data. */
function conversation(turns) {
  const messages = [
    {
      role: "user",
      content: [
        { type: "text", text: "Describe these, then keep working through the list." },
        { type: "image", image: png, mediaType: "image/png" },
        { type: "file", data: pdf, mediaType: "application/pdf", filename: "spec.pdf" },
        { type: "image", image: remote },
      ],
    },
  ];
  for (let i = 0; i < turns; i++) {
    messages.push({
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: `c${i}`, toolName: "read_file", input: { path: `src/f${i}.ts` } }],
    });
    messages.push({
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: `c${i}`,
          toolName: "read_file",
          output: { type: "text", value: `export const f${i} = 1;\n${"// line\n".repeat(300)}` },
        },
      ],
    });
    messages.push({ role: "assistant", content: [{ type: "text", text: `Read src/f${i}.ts.` }] });
    messages.push({ role: "user", content: [{ type: "text", text: `Next: item ${i + 1}.` }] });
  }
  return messages;
}

describe("binary data in AI SDK messages", () => {
  it("is read by every function (no invalid_shape)", () => {
    const messages = conversation(2);
    assert.equal(parseChain(messages).format, "aisdk");
    assert.deepEqual(validateChain(messages), []);
    assert.ok(measureChain(messages).total.tokens > 0);
  });

  for (const strategy of ["auto", "sections", "window", "budget"]) {
    it(`${strategy}: comes back as the caller's very values, and the SDK takes the output`, async () => {
      const messages = conversation(12);
      const maxTokens = Math.floor(measureChain(messages).total.tokens / 3);
      const result = await compact(messages, {
        strategy: strategy === "window" ? { name: "window", window: 8, thresholdTokens: maxTokens } : strategy,
        maxTokens,
      });
      assert.equal(result.changed, true);
      const parts = result.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
      const media = parts.filter((p) => p.type === "image" || p.type === "file").map((p) => p.image ?? p.data);
      // Every image or file in the output is one of the caller's own values, never a copy.
      for (const value of media) assert.ok([png, pdf, remote].includes(value), `a copy: ${String(value).slice(0, 40)}`);
      // `budget` condenses the first request with the rest; the others keep it verbatim.
      if (strategy !== "budget") assert.equal(media.length, 3, "the three of them");
      for (const m of result.messages) modelMessageSchema.parse(m);
      const seen = await promptSent(result.messages);
      const files = seen.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.type === "file");
      assert.equal(files.length, media.length, "the model got every file");
    });
  }

  it("convert keeps them too", () => {
    const out = convert(conversation(1), { to: "aisdk" }).messages;
    assert.equal(out[0].content[1].image, png);
    assert.equal(out[0].content[3].image, remote);
  });

  it("convert to any other format writes them as the text that format holds", () => {
    // Only the AI SDK's model messages take a Uint8Array or a URL object: elsewhere
    // (Anthropic's and Gemini's base64, the UI messages' url) the caller's value would
    // be sent as an object of indices.
    for (const to of ["anthropic", "gemini", "openai", "openai-responses", "aisdk-ui", "langchain"]) {
      const out = convert(conversation(1), { to }).messages;
      const objects = [];
      const walk = (v) => {
        if (v instanceof Uint8Array || v instanceof ArrayBuffer || v instanceof URL) objects.push(v);
        else if (v && typeof v === "object") Object.values(v).forEach(walk);
      };
      walk(out);
      assert.deepEqual(objects, [], to);
      assert.ok(JSON.stringify(out).includes(Buffer.from(png).toString("base64")), `${to}: the image's base64`);
    }
  });

  // Values were mapped back by their base64 text alone: the same bytes as a Uint8Array,
  // a base64 string and an ArrayBuffer all came back as the last one, and the caller's
  // string became a binary object.
  it("the same bytes held as different values come back as each one's own", async () => {
    // A 1×1 PNG's header: the images cost little, and the first request stays.
    const dot = new Uint8Array([
      137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0,
    ]);
    const bytes = dot.slice(); // another Uint8Array
    const buffer = dot.slice().buffer;
    const text = Buffer.from(dot).toString("base64");
    const media = (m) =>
      (Array.isArray(m.content) ? m.content : [])
        .filter((p) => p.type === "image" || p.type === "file")
        .map((p) => p.image ?? p.data);
    const first = {
      role: "user",
      content: [
        { type: "text", text: "Compare these." },
        { type: "image", image: dot, mediaType: "image/png" },
        { type: "image", image: text, mediaType: "image/png" },
        { type: "file", data: buffer, mediaType: "image/png" },
        { type: "image", image: bytes, mediaType: "image/png" },
        { type: "image", image: dot, mediaType: "image/png" },
      ],
    };
    const filler = "lorem ipsum dolor sit amet ".repeat(40);
    const messages = [{ role: "system", content: "You are helpful." }, first];
    for (let i = 0; i < 6; i++) {
      messages.push({ role: "assistant", content: `answer ${i} ${filler}` });
      messages.push({ role: "user", content: `question ${i + 1} ${filler}` });
    }
    const expected = [dot, text, buffer, bytes, dot];
    // `auto` keeps the first request, rewritten (a snapshot of what follows appended).
    const result = await compact(messages, { maxTokens: 1500, summarizer: async () => "summary" });
    assert.equal(result.changed, true);
    assert.notEqual(result.messages[1], first, "rewritten");
    const got = media(result.messages[1]);
    assert.equal(got.length, expected.length);
    for (const [i, value] of expected.entries()) assert.equal(got[i], value, `part ${i}`);
    const converted = convert([first, { role: "user", content: [{ type: "image", image: text }] }], { to: "aisdk" });
    assert.deepEqual(
      converted.messages.flatMap(media).map((v, i) => v === [...expected, text][i]),
      Array(expected.length + 1).fill(true),
    );
  });

  // `JSON.stringify(history)` stored a Uint8Array as `{"0":137,"1":80,...}`: restored,
  // the SDK sent it to the model as a provider file reference instead of the image.
  it("History stores them as plain JSON, and the SDK sends the restored chain the same", async () => {
    const messages = conversation(1);
    const buffer = Buffer.from(png.subarray(0, 40));
    const words = new Int16Array([1, 2, 3]);
    messages[0].content.push(
      { type: "file", data: buffer, mediaType: "image/png" },
      { type: "file", data: words, mediaType: "application/octet-stream" },
    );
    const history = new History({ messages, auto: false });
    const text = JSON.stringify(history);
    assert.deepEqual(JSON.parse(text), history.toJSON(), "plain JSON: the same read back");
    const restored = History.fromJSON(text).messages();
    const base64 = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
    const stored = restored[0].content.slice(1).map((p) => p.image ?? p.data);
    assert.deepEqual(stored, [base64(png), base64(new Uint8Array(pdf)), remote.href, base64(buffer), base64(words)]);
    assert.equal(history.messages()[0].content[1].image, png, "the history keeps the caller's values");
    // What the model gets: the same bytes and URL from the live and the restored chain.
    const sent = async (chain) => {
      const seen = await promptSent(chain);
      return seen[0].content
        .filter((p) => p.type === "file")
        .map((p) => {
          const data = p.data?.type === "data" ? p.data.data : p.data?.type === "url" ? p.data.url : p.data;
          if (data instanceof Uint8Array) return base64(data);
          if (data instanceof URL) return data.href;
          return data;
        });
    };
    // The SDK takes no other typed array (it would send one as a file reference).
    const sdkOnly = (chain) => [{ ...chain[0], content: chain[0].content.slice(0, -1) }, ...chain.slice(1)];
    const live = await sent(sdkOnly(history.messages()));
    assert.deepEqual(live, stored.slice(0, 4));
    assert.deepEqual(await sent(sdkOnly(restored)), live);
  });

  it("is found however deep a tool result holds it (a screenshot tool's output)", async () => {
    // output.value[0].data.data: seven levels below the message.
    const shot = {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "s1",
          toolName: "screenshot",
          output: {
            type: "content",
            value: [{ type: "file", data: { type: "data", data: png }, mediaType: "image/png" }],
          },
        },
      ],
    };
    const messages = [
      { role: "user", content: "Take a screenshot." },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "s1", toolName: "screenshot", input: {} }] },
      shot,
      { role: "assistant", content: "Done." },
    ];
    for (const m of messages) modelMessageSchema.parse(m);
    assert.deepEqual(validateChain(messages), []);
    assert.ok(measureChain(messages).total.tokens > 0);
    const same = await compact(messages, { maxTokens: 100_000 });
    assert.equal(same.messages[2], shot);
    const copy = convert(messages, { to: "aisdk" }).messages;
    assert.equal(copy[2].content[0].output.value[0].data.data, png, "the caller's very value");
  });
});
