// Gemini rejections found by the `@google/genai` probe, reproduced through the public API of
// the built package and judged by the SDK (`chats.create`, `generateContent`'s converters)
// and the rules of the Gemini API reference (judges.mjs).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clearReasoning, compact, convert, needsCompaction, repairChain, validateChain } from "contextfold";
import { geminiRules, geminiSdk } from "./judges.mjs";

const lines = (n, tag) => Array.from({ length: n }, (_, i) => `${tag} line ${i}: some output ${i}`).join("\n");

/** Every functionResponse id is that of a functionCall of the content before it. */
function responseIdsMatch(contents) {
  const out = [];
  contents.forEach((c, i) => {
    const ids = new Set((contents[i - 1]?.parts ?? []).filter((p) => p.functionCall).map((p) => p.functionCall.id));
    for (const p of c.parts) {
      if (p.functionResponse?.id !== undefined && !ids.has(p.functionResponse.id))
        out.push(`contents[${i}]: response id ${p.functionResponse.id} matches no call`);
    }
  });
  return out;
}

describe("Gemini: every response to a call turn in one content", () => {
  // Agent loops often store one content per function response.
  const chain = [];
  for (let t = 0; t < 4; t++) {
    chain.push({ role: "user", parts: [{ text: `request ${t}` }] });
    chain.push({
      role: "model",
      parts: [
        { functionCall: { name: "get_weather", args: { city: `c${t}` } }, thoughtSignature: `SIG${t}` },
        { functionCall: { name: "read_file", args: { path: `f${t}` } } },
      ],
    });
    chain.push({
      role: "user",
      parts: [{ functionResponse: { name: "get_weather", response: { output: lines(40, `w${t}`) } } }],
    });
    chain.push({
      role: "user",
      parts: [{ functionResponse: { name: "read_file", response: { output: lines(40, `r${t}`) } } }],
    });
    if (t === 3) chain.push({ role: "user", parts: [{ text: "and the rest?" }] });
    chain.push({ role: "model", parts: [{ text: `answer ${t}` }] });
  }

  it("is flagged by validateChain with its path", () => {
    assert.notDeepEqual(geminiRules(chain), []);
    const found = validateChain(chain).map((d) => [d.code, d.path]);
    assert.deepEqual(found.slice(0, 1), [["split_function_responses", "[3]"]]);
    assert.ok(
      found.some(([code, path]) => code === "consecutive_same_role" && path === "[19]"),
      JSON.stringify(found),
    );
  });

  it("is joined by repairChain and compact, and the SDK takes the result", async () => {
    const repaired = repairChain(chain);
    assert.ok(repaired.steps.some((s) => s.step === "joinedResultTurn"));
    assert.deepEqual(geminiRules(repaired.messages), []);
    assert.deepEqual(await geminiSdk(repaired.messages), []);
    assert.deepEqual(validateChain(repaired.messages), []);
    const { messages } = await compact(chain, { strategy: "mask", maxTokens: 1500 });
    assert.deepEqual(geminiRules(messages), []);
    assert.deepEqual(await geminiSdk(messages), []);
  });
});

describe("Gemini: function calls without ids", () => {
  it("get placeholder responses without a made-up id", async () => {
    const chain = [
      { role: "user", parts: [{ text: "weather in Paris and Rome?" }] },
      {
        role: "model",
        parts: [
          { functionCall: { name: "weather", args: { city: "Paris" } }, thoughtSignature: "SIG" },
          { functionCall: { name: "weather", args: { city: "Rome" } } },
        ],
      },
      { role: "user", parts: [{ functionResponse: { name: "weather", response: { output: "sunny" } } }] },
      { role: "user", parts: [{ text: "never mind Rome, what about Paris tomorrow?" }] },
      { role: "model", parts: [{ text: "Sunny again." }] },
    ];
    for (const out of [repairChain(chain).messages, (await compact(chain, { maxTokens: 100000 })).messages]) {
      assert.deepEqual(responseIdsMatch(out), []);
      assert.deepEqual(geminiRules(out), []);
      assert.deepEqual(await geminiSdk(out), []);
    }
  });
});

describe("Gemini: the SDK's systemInstruction forms", () => {
  const contents = [
    { role: "user", parts: [{ text: "hi" }] },
    { role: "model", parts: [{ text: "hello" }] },
    { role: "user", parts: [{ text: "how are you?" }] },
  ];
  const forms = {
    part: { text: "You are terse." },
    strings: ["You are terse.", "Answer in French."],
    parts: [{ text: "You are terse." }, { text: "Answer in French." }],
  };
  for (const [name, systemInstruction] of Object.entries(forms)) {
    it(`reads ${name} and writes it back in a form the SDK takes`, async () => {
      const params = { model: "gemini-2.5-flash", contents, config: { systemInstruction } };
      assert.equal(needsCompaction(params, { maxTokens: 1000 }), false);
      const same = await compact(params, { maxTokens: 1000 });
      assert.deepEqual(same.messages.config.systemInstruction, systemInstruction);
      // `budget` appends its condensed chunks to the system instruction.
      const long = [];
      for (let i = 0; i < 12; i++) {
        long.push({ role: "user", parts: [{ text: `question ${i}: ${lines(20, `q${i}`)}` }] });
        long.push({ role: "model", parts: [{ text: `answer ${i}: ${lines(20, `a${i}`)}` }] });
      }
      long.push({ role: "user", parts: [{ text: "last" }] });
      const { messages } = await compact(
        { model: "gemini-2.5-flash", contents: long, config: { systemInstruction } },
        { strategy: "budget", maxTokens: 1500 },
      );
      const sent = { systemInstruction: messages.config.systemInstruction, contents: messages.contents };
      assert.deepEqual(geminiRules(sent), []);
      assert.deepEqual(await geminiSdk(sent), []);
    });
  }
});

describe("Gemini: clearReasoning in a tool loop", () => {
  it("leaves each model step's first call a signature Gemini accepts", async () => {
    const chain = [
      { role: "user", parts: [{ text: "Fix the build" }] },
      {
        role: "model",
        parts: [
          { text: "Let me look", thought: true, thoughtSignature: "T0" },
          { functionCall: { name: "run", args: { cmd: "npm test" } }, thoughtSignature: "S1" },
          { functionCall: { name: "read", args: { path: "a.js" } } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "run", response: { output: "1 failing" } } },
          { functionResponse: { name: "read", response: { output: "code" } } },
        ],
      },
      { role: "model", parts: [{ functionCall: { name: "edit", args: { path: "a.js" } }, thoughtSignature: "S2" }] },
      { role: "user", parts: [{ functionResponse: { name: "edit", response: { output: "ok" } } }] },
    ];
    const { messages, removed } = clearReasoning(chain);
    assert.ok(removed >= 3);
    const firstCalls = messages.filter((c) => c.role === "model").map((c) => c.parts.find((p) => p.functionCall));
    assert.deepEqual(
      firstCalls.map((p) => p.thoughtSignature),
      ["skip_thought_signature_validator", "skip_thought_signature_validator"],
    );
    assert.ok(!JSON.stringify(messages).includes('"thought":true'));
    assert.deepEqual(await geminiSdk(messages), []);
  });
});

describe("Gemini: thought signatures through the AI SDK", () => {
  const gemini = [
    { role: "user", parts: [{ text: "Weather in Paris?" }] },
    {
      role: "model",
      parts: [
        { text: "Checking.", thoughtSignature: "SIG_TEXT" },
        { functionCall: { name: "weather", args: { city: "Paris" } }, thoughtSignature: "SIG_CALL" },
      ],
    },
    { role: "user", parts: [{ functionResponse: { name: "weather", response: { output: "sunny" } } }] },
  ];
  it("go to @ai-sdk/google's providerOptions and back onto their parts", async () => {
    const aisdk = convert(gemini, { from: "gemini", to: "aisdk" }).messages;
    const assistant = aisdk.find((m) => m.role === "assistant").content;
    assert.equal(assistant.find((p) => p.type === "text").providerOptions.google.thoughtSignature, "SIG_TEXT");
    assert.equal(assistant.find((p) => p.type === "tool-call").providerOptions.google.thoughtSignature, "SIG_CALL");
    const back = convert(aisdk, { from: "aisdk", to: "gemini" });
    const model = back.messages.find((c) => c.role === "model").parts;
    assert.deepEqual(
      model.map((p) => p.thoughtSignature),
      ["SIG_TEXT", "SIG_CALL"],
    );
    assert.ok(!back.changes.some((c) => c.change === "addedSignature"), JSON.stringify(back.changes));
    assert.deepEqual(await geminiSdk(back.messages), []);
  });
});

describe("Gemini: the built-in summarizer on output without facts", () => {
  it("keeps the output's first and last lines, never nothing", async () => {
    const hits = (t) =>
      Array.from({ length: 80 }, (_, i) => `city${t} result ${i}: Hotel Nr ${i}, 4 stars, 120 EUR`).join("\n");
    const contents = [];
    for (let t = 0; t < 4; t++) {
      contents.push({ role: "user", parts: [{ text: `Find hotels in city ${t}` }] });
      contents.push({
        role: "model",
        parts: [{ functionCall: { name: "search_hotels", args: { city: `city${t}` } }, thoughtSignature: `S${t}` }],
      });
      contents.push({
        role: "user",
        parts: [{ functionResponse: { name: "search_hotels", response: { output: hits(t) } } }],
      });
      contents.push({ role: "model", parts: [{ text: `Here are hotels in city ${t}.` }] });
    }
    const { messages } = await compact(contents, { strategy: "window", maxTokens: 2500 });
    const outputs = messages.flatMap((c) =>
      c.parts.filter((p) => p.functionResponse).map((p) => p.functionResponse.response.output),
    );
    assert.ok(outputs.length > 0);
    for (const output of outputs) {
      assert.ok(!output.includes("(nothing to keep)"), output);
      assert.match(output, /Hotel Nr 0,/);
    }
    assert.deepEqual(geminiRules(messages), []);
  });
});

describe("Gemini: a body in the REST API's proto spelling", () => {
  it("is refused with the field named", async () => {
    const body = {
      system_instruction: { parts: [{ text: "You are terse." }] },
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
    };
    await assert.rejects(
      compact(body, { maxTokens: 1000 }),
      (e) => e.code === "invalid_shape" && e.path === "system_instruction",
    );
    const contents = [
      { role: "user", parts: [{ text: "read" }] },
      { role: "model", parts: [{ function_call: { name: "read", args: {} } }] },
    ];
    assert.throws(
      () => validateChain(contents),
      (e) => e.code === "invalid_shape" && e.path === "[1].parts[0].function_call",
    );
  });
});
