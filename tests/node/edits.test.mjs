// normalizeToolCallIds and clearReasoning through the BUILT package, imported by its name.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clearReasoning, normalizeToolCallIds, validateChain } from "contextfold";
import { openaiChain, orphanResultChain } from "./helpers.mjs";

/** Runs `fn`, asserts it throws, and returns what it threw. */
function thrown(fn) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail("expected an error");
}

function assertContextfoldError(error, code, path) {
  assert.ok(error instanceof Error, "an Error instance");
  assert.equal(error.name, "ContextfoldError");
  assert.equal(error.code, code);
  assert.equal(error.path, path);
}

/** Two calls in one assistant message, one result each, then a second round. */
const twoRounds = () => [
  { role: "user", content: "List and read." },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "A1", type: "function", function: { name: "ls", arguments: "{}" } },
      { id: "B2", type: "function", function: { name: "cat", arguments: '{"f":"a"}' } },
    ],
  },
  { role: "tool", tool_call_id: "B2", content: "fn main() {}" },
  { role: "tool", tool_call_id: "A1", content: "a.rs" },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "C3", type: "function", function: { name: "ls", arguments: '{"d":"src"}' } }],
  },
  { role: "tool", tool_call_id: "C3", content: "lib.rs" },
  { role: "assistant", content: "Done." },
];

const ANTHROPIC_ID = /^toolu_[0-9A-Za-z]{24}$/;

describe("normalizeToolCallIds", () => {
  it("rewrites ids to the template, in the calls and their results alike", () => {
    const input = twoRounds();
    const before = structuredClone(input);
    const { messages, changed, format, renamed } = normalizeToolCallIds(input, "toolu_{r:24:b}");
    assert.equal(changed, true);
    assert.equal(format, "openai");
    assert.deepEqual(
      renamed.map((r) => r.old),
      ["A1", "B2", "C3"],
    );
    const ids = new Map(renamed.map((r) => [r.old, r.new]));
    assert.equal(new Set(ids.values()).size, 3, "unique new ids");
    for (const id of ids.values()) assert.match(id, ANTHROPIC_ID);
    // Calls and the results answering them carry the same new id.
    assert.equal(messages[1].tool_calls[0].id, ids.get("A1"));
    assert.equal(messages[1].tool_calls[1].id, ids.get("B2"));
    assert.equal(messages[2].tool_call_id, ids.get("B2"));
    assert.equal(messages[3].tool_call_id, ids.get("A1"));
    assert.equal(messages[4].tool_calls[0].id, ids.get("C3"));
    assert.equal(messages[5].tool_call_id, ids.get("C3"));
    // Everything else is as it was; the input was not touched.
    assert.equal(messages[2].content, "fn main() {}");
    assert.equal(messages[1].tool_calls[1].function.arguments, '{"f":"a"}');
    assert.deepEqual(input, before);
    assert.deepEqual(validateChain(messages), []);
  });

  it("is deterministic, keeps ids that fit, and gives back an unchanged chain as the same array", () => {
    const first = normalizeToolCallIds(twoRounds(), "call_{r:24:x}");
    const second = normalizeToolCallIds(twoRounds(), "call_{r:24:x}");
    assert.deepEqual(first, second);
    const again = normalizeToolCallIds(first.messages, "call_{r:24:x}");
    assert.equal(again.changed, false);
    assert.deepEqual(again.renamed, []);
    assert.equal(again.messages, first.messages);
  });

  it("accepts JSON text and an explicit format", () => {
    const text = JSON.stringify(twoRounds());
    const { messages, format } = normalizeToolCallIds(text, "id_{f}_{r:6:d}", { format: "openai" });
    assert.equal(format, "openai");
    assert.match(messages[1].tool_calls[0].id, /^id_ls_\d{6}$/);
  });

  it("writes the format read: Anthropic in, Anthropic out", () => {
    const input = {
      system: "Be brief.",
      messages: [
        { role: "user", content: "ls" },
        { role: "assistant", content: [{ type: "tool_use", id: "x", name: "ls", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "x", content: "a.rs" }] },
      ],
    };
    const { messages, format, renamed } = normalizeToolCallIds(input, "toolu_{r:24:b}");
    assert.equal(format, "anthropic");
    assert.equal(messages.system, "Be brief.");
    const [{ new: id }] = renamed;
    assert.match(id, ANTHROPIC_ID);
    assert.equal(messages.messages[1].content[0].id, id);
    assert.equal(messages.messages[2].content[0].tool_use_id, id);
  });

  it("a bad template is a ContextfoldError with code and path", () => {
    for (const template of ["call_{r:24:q}", "call_{x}", "call_{r:24:x", "", 42, undefined]) {
      assertContextfoldError(
        thrown(() => normalizeToolCallIds(twoRounds(), template)),
        "invalid_template",
        "template",
      );
    }
  });

  it("bad options and a broken chain are ContextfoldErrors with paths", () => {
    assertContextfoldError(
      thrown(() => normalizeToolCallIds(twoRounds(), "call_{r:24:x}", { format: "yaml" })),
      "invalid_option",
      "options.format",
    );
    assertContextfoldError(
      thrown(() => normalizeToolCallIds(twoRounds(), "call_{r:24:x}", "openai")),
      "invalid_option",
      "options",
    );
    const error = thrown(() => normalizeToolCallIds(orphanResultChain(), "call_{r:24:x}"));
    assert.equal(error.name, "ContextfoldError");
    assert.equal(error.path, "[2]");
  });
});

describe("clearReasoning", () => {
  const anthropicThinking = () => [
    { role: "user", content: "What is in a.txt?" },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "I should read it.", signature: "sigA" },
        { type: "text", text: "Reading." },
        { type: "tool_use", id: "toolu_1", name: "read", input: { path: "a.txt" } },
      ],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "hello" }] },
    {
      role: "assistant",
      content: [
        { type: "redacted_thinking", data: "opaque" },
        { type: "text", text: "It says hello." },
      ],
    },
  ];

  it("removes thinking parts and leaves the rest", () => {
    const input = anthropicThinking();
    const before = structuredClone(input);
    const { messages, changed, format, removed } = clearReasoning(input);
    assert.equal(format, "anthropic");
    assert.equal(changed, true);
    assert.equal(removed, 2);
    const types = messages.flatMap((m) => (Array.isArray(m.content) ? m.content.map((p) => p.type) : ["string"]));
    assert.ok(!types.includes("thinking") && !types.includes("redacted_thinking"), types.join(","));
    assert.deepEqual(messages[1].content, [
      { type: "text", text: "Reading." },
      { type: "tool_use", id: "toolu_1", name: "read", input: { path: "a.txt" } },
    ]);
    assert.deepEqual(messages[2], input[2]);
    assert.equal(JSON.stringify(messages[3].content).includes("It says hello."), true);
    assert.deepEqual(input, before, "input not mutated");
    assert.deepEqual(validateChain(messages), []);
  });

  it("drops Gemini thought parts and signatures, a placeholder on each step's first call", () => {
    const input = {
      contents: [
        { role: "user", parts: [{ text: "List files" }] },
        {
          role: "model",
          parts: [
            { text: "Thinking", thought: true, thoughtSignature: "t1" },
            { functionCall: { name: "ls", args: {} }, thoughtSignature: "t2" },
          ],
        },
        { role: "user", parts: [{ functionResponse: { name: "ls", response: { output: "a.rs" } } }] },
        { role: "model", parts: [{ text: "One file." }] },
      ],
    };
    const { messages, removed, format } = clearReasoning(input);
    assert.equal(format, "gemini");
    assert.equal(removed, 2);
    assert.ok(!JSON.stringify(messages).includes('"t1"') && !JSON.stringify(messages).includes('"t2"'));
    assert.ok(!JSON.stringify(messages).includes('"thought"'));
    // A request object stays one, without a system instruction too (issue 14); the call
    // keeps a signature Gemini accepts (it rejects a model step's first call without one).
    assert.ok(!Array.isArray(messages));
    assert.deepEqual(messages.contents[1].parts, [
      { functionCall: { name: "ls", args: {} }, thoughtSignature: "skip_thought_signature_validator" },
    ]);
  });

  it("gives back a chain without reasoning as the same array", () => {
    const input = openaiChain();
    const result = clearReasoning(input, { format: "auto" });
    assert.deepEqual(result, { messages: input, changed: false, format: "openai", removed: 0, droppedIds: [] });
    assert.equal(result.messages, input);
  });

  it("bad input is a ContextfoldError with code and path", () => {
    assertContextfoldError(
      thrown(() => clearReasoning(openaiChain(), { format: 1 })),
      "invalid_option",
      "options.format",
    );
    const error = thrown(() => clearReasoning([{ role: "robot" }]));
    assert.ok(error instanceof Error);
    assert.equal(error.name, "ContextfoldError");
    assert.equal(error.path, "[0]");
  });
});
