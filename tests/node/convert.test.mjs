// convert through the BUILT package, imported by its name.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { describe, it } from "node:test";
import { convertToModelMessages } from "ai";
import { convert, validateChain } from "contextfold";
import { REAL_FIXTURES, REAL_FIXTURES_HOW, missing } from "../shared/requirements.mjs";
import { fixtureFiles, openaiChain } from "./helpers.mjs";

/** Runs `fn`, asserts it throws, and returns what it threw. */
function thrown(fn) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail("expected an error");
}

const TARGETS = ["native", "openai", "anthropic", "gemini", "aisdk", "langchain"];

const geminiRequest = () => ({
  systemInstruction: { parts: [{ text: "Be brief." }] },
  contents: [
    { role: "user", parts: [{ text: "List files" }] },
    {
      role: "model",
      parts: [
        { text: "Thinking", thought: true, thoughtSignature: "gemThought" },
        { functionCall: { name: "ls", args: { dir: "." } }, thoughtSignature: "gemCall" },
      ],
    },
    { role: "user", parts: [{ functionResponse: { name: "ls", response: { output: "a.rs" } } }] },
    { role: "model", parts: [{ text: "One file." }] },
  ],
});

describe("convert", () => {
  it("converts OpenAI to every format, each valid for its provider", () => {
    for (const to of TARGETS) {
      const { messages, from, to: written, changes } = convert(openaiChain(), { to });
      assert.equal(from, "openai");
      assert.equal(written, to);
      assert.ok(Array.isArray(changes));
      assert.deepEqual(validateChain(messages, { format: to }), [], to);
    }
  });

  it("keeps a Gemini chain exactly when staying Gemini", () => {
    const input = geminiRequest();
    const { messages, from, changes } = convert(input, { to: "gemini" });
    assert.equal(from, "gemini");
    assert.deepEqual(changes, []);
    assert.deepEqual(messages, input);
  });

  it("drops Gemini signatures and renames ids for Anthropic", () => {
    const { messages, changes } = convert(geminiRequest(), { from: "gemini", to: "anthropic" });
    assert.equal(messages.system, "Be brief.");
    const call = messages.messages[1].content[0];
    assert.equal(call.type, "tool_use");
    assert.match(call.id, /^toolu_[0-9A-Za-z]{24}$/);
    assert.equal(messages.messages[2].content[0].tool_use_id, call.id);
    assert.ok(!JSON.stringify(messages).includes("gem"));
    assert.ok(changes.some((c) => c.change === "droppedSignature"));
    assert.ok(changes.some((c) => c.change === "renamedToolCallId"));
  });

  it("reports repair steps as changes", () => {
    const chain = [
      { role: "user", content: "a" },
      { role: "user", content: "b" },
      { role: "assistant", content: "c" },
    ];
    const { messages, changes } = convert(chain, { to: "anthropic" });
    assert.equal(messages.length, 2);
    assert.ok(changes.some((c) => c.change === "repaired" && c.step === "mergedSameRole"));
  });

  it("accepts JSON text", () => {
    assert.deepEqual(
      convert(JSON.stringify(openaiChain()), { to: "gemini" }),
      convert(openaiChain(), { to: "gemini" }),
    );
  });

  it("converts every real transcript to every format and back", {
    skip: fixtureFiles().length === 0 && missing(REAL_FIXTURES, REAL_FIXTURES_HOW),
  }, () => {
    for (const file of fixtureFiles()) {
      const input = JSON.parse(readFileSync(file, "utf8"));
      for (const to of TARGETS) {
        const { messages, from } = convert(input, { to });
        assert.deepEqual(validateChain(messages, { format: to }), [], `${basename(file)} -> ${to}`);
        const back = convert(messages, { from: to, to: from });
        assert.deepEqual(validateChain(back.messages, { format: from }), [], `${basename(file)} -> ${to} -> ${from}`);
      }
    }
  });

  it("throws ContextfoldErrors with codes and paths", () => {
    let error = thrown(() => convert(openaiChain(), {}));
    assert.ok(error instanceof Error);
    assert.equal(error.name, "ContextfoldError");
    assert.equal(error.code, "invalid_option");
    assert.equal(error.path, "options.to");
    error = thrown(() => convert(openaiChain(), { from: "nope", to: "openai" }));
    assert.equal(error.path, "options.from");
    error = thrown(() =>
      convert(
        [
          { role: "user", content: "a" },
          { role: "model", parts: [{ text: "b" }] },
        ],
        { to: "openai" },
      ),
    );
    assert.equal(error.code, "unknown_format");
    assert.equal(error.path, "[1]");
  });

  it("lists what the target cannot carry: a result's error flag, native blocks", () => {
    const failed = {
      messages: [
        { role: "user", content: "run ls" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "sh", input: { cmd: "ls" } }] },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_1", is_error: true, content: "permission denied" }],
        },
        { role: "assistant", content: "It failed." },
      ],
    };
    for (const to of ["openai", "openai-responses"]) {
      const { changes } = convert(failed, { to });
      assert.ok(
        changes.some((c) => c.change === "droppedFields" && c.index === 2 && c.fields.includes("is_error")),
        `${to}: ${JSON.stringify(changes)}`,
      );
    }
    const search = [
      { role: "user", content: "search" },
      {
        role: "assistant",
        content: [
          { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } },
          { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
          { type: "text", text: "Found A" },
        ],
      },
    ];
    const kinds = convert(search, { from: "anthropic", to: "openai" })
      .changes.filter((c) => c.change === "replacedNativeBlock")
      .map((c) => [c.index, c.part, c.kind]);
    assert.deepEqual(kinds, [
      [1, 0, "server_tool_use"],
      [1, 1, "web_search_tool_result"],
    ]);
    const generated = [
      { role: "user", content: "draw a cat" },
      { type: "image_generation_call", id: "ig_1", status: "completed", result: "iVBORw0KGgo=" },
    ];
    const { changes } = convert(generated, { from: "openai-responses", to: "openai" });
    assert.ok(
      changes.some((c) => c.change === "replacedNativeBlock" && c.index === 1 && c.kind === "image_generation_call"),
    );
  });

  it("carries between the AI SDK's two shapes what convertToModelMessages carries", async () => {
    const ui = [
      { id: "u", role: "user", parts: [{ type: "text", text: "weather?" }] },
      {
        id: "a",
        role: "assistant",
        parts: [
          { type: "step-start" },
          { type: "reasoning", text: "call it", providerMetadata: { anthropic: { signature: "SIG" } } },
          {
            type: "tool-weather",
            toolCallId: "c1",
            state: "output-available",
            input: { city: "Paris" },
            output: "sunny",
            callProviderMetadata: { google: { thoughtSignature: "CSIG" } },
          },
          { type: "step-start" },
          {
            type: "tool-web_search",
            toolCallId: "ws1",
            state: "output-available",
            input: { q: "x" },
            output: { hits: 1 },
            providerExecuted: true,
          },
          { type: "text", text: "sunny, says the web" },
        ],
      },
    ];
    const ref = JSON.parse(JSON.stringify(await convertToModelMessages(ui)));
    const { messages, changes } = convert(ui, { from: "aisdk-ui", to: "aisdk" });
    assert.deepEqual(messages.slice(1), ref.slice(1));
    assert.deepEqual(
      changes.filter((c) => c.part !== undefined),
      [],
    );
    const back = convert(messages, { from: "aisdk", to: "aisdk-ui" }).messages;
    const parts = back[1].parts;
    assert.deepEqual(parts.find((p) => p.type === "reasoning").providerMetadata, { anthropic: { signature: "SIG" } });
    assert.deepEqual(parts.find((p) => p.type === "tool-weather").callProviderMetadata, {
      google: { thoughtSignature: "CSIG" },
    });
  });

  it("keeps Responses item ids through the AI SDK, and lists a call id nothing else holds", () => {
    const items = [
      { role: "user", content: "hi" },
      { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "think" }], encrypted_content: "ENC" },
      { type: "function_call", id: "fc_1", call_id: "c1", name: "f", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "ok" },
      { role: "assistant", content: "done" },
    ];
    for (const via of ["aisdk", "aisdk-ui"]) {
      const mid = convert(items, { from: "openai-responses", to: via }).messages;
      const back = convert(mid, { from: via, to: "openai-responses" });
      const reasoning = back.messages.find((i) => i.type === "reasoning");
      assert.equal(reasoning?.id, "rs_1", via);
      assert.equal(reasoning?.encrypted_content, "ENC", via);
      assert.equal(back.messages.find((i) => i.type === "function_call")?.id, "fc_1", via);
      assert.ok(!back.changes.some((c) => c.change === "droppedReasoning"), via);
    }
    const { changes } = convert(items, { from: "openai-responses", to: "anthropic" });
    assert.ok(changes.some((c) => c.change === "droppedFields" && c.fields.includes("id")));
  });
});

describe("convert: call signatures", () => {
  it("a Gemini call's signature a target has no place for is listed", () => {
    const gemini = {
      contents: [
        { role: "user", parts: [{ text: "weather?" }] },
        {
          role: "model",
          parts: [{ functionCall: { id: "c1", name: "get_weather", args: {} }, thoughtSignature: "CALL_SIG" }],
        },
        {
          role: "user",
          parts: [{ functionResponse: { id: "c1", name: "get_weather", response: { output: "sunny" } } }],
        },
        { role: "model", parts: [{ text: "Sunny." }] },
      ],
    };
    for (const to of ["langchain", "anthropic"]) {
      const out = convert(gemini, { from: "gemini", to });
      assert.ok(!JSON.stringify(out.messages).includes("CALL_SIG"), to);
      assert.ok(
        out.changes.some((c) => c.change === "droppedSignature" && c.index === 1 && c.part === 0),
        `${to}: ${JSON.stringify(out.changes)}`,
      );
    }
  });
});
