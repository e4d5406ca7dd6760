// LangChain content blocks judged by @langchain/anthropic's payload converter: a tool call
// held twice (a `tool_use` / v1 `tool_call` block beside `tool_calls`) is one call, v1
// standard blocks are the media and reasoning they stand for, and a signature keeps its
// owner through LangChain, so Anthropic is never sent one it did not issue.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { convert, normalizeToolCallIds } from "contextfold";
import { AIMessage, HumanMessage, ToolMessage, mapStoredMessagesToChatMessages } from "@langchain/core/messages";
import { ChatPromptValue } from "@langchain/core/prompt_values";
import { convertPromptToAnthropic } from "@langchain/anthropic";

const payload = (messages) => convertPromptToAnthropic(new ChatPromptValue(messages)).messages;
const toolUses = (messages) =>
  messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === "tool_use");
const toolResultIds = (messages) =>
  messages
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b) => b.type === "tool_result")
    .map((b) => b.tool_use_id);

/** What @langchain/anthropic returns for a tool call: a `tool_use` block and `tool_calls`. */
const anthropicCall = () => [
  new HumanMessage("weather in Paris?"),
  new AIMessage({
    content: [
      { type: "text", text: "Let me check." },
      { type: "tool_use", id: "toolu_01ABCDEFGHIJKLMNOPQRSTUV", name: "get_weather", input: { city: "Paris" } },
    ],
    tool_calls: [{ id: "toolu_01ABCDEFGHIJKLMNOPQRSTUV", name: "get_weather", args: { city: "Paris" } }],
  }),
  new ToolMessage({ content: "sunny", tool_call_id: "toolu_01ABCDEFGHIJKLMNOPQRSTUV" }),
  new AIMessage("Sunny."),
];

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
/** A chain built with LangChain 1.x `contentBlocks`. */
const v1Chain = () => [
  new HumanMessage({
    contentBlocks: [
      { type: "text", text: "what is in the picture?" },
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "image", url: "https://example.com/cat.png" },
    ],
  }),
  new AIMessage({
    contentBlocks: [
      { type: "reasoning", reasoning: "PRIVATE_THOUGHT" },
      { type: "text", text: "Let me look it up." },
      { type: "tool_call", id: "c1", name: "lookup", args: { q: "cat" } },
    ],
  }),
  new ToolMessage({ content: "a cat", tool_call_id: "c1" }),
  new AIMessage("A cat."),
];

describe("LangChain blocks", () => {
  it("a tool_use block beside tool_calls converts as the one call LangChain sends", () => {
    const chain = anthropicCall();
    const langchainOwn = payload(chain)[1];
    const converted = convert(chain, { from: "langchain", to: "anthropic" });
    const assistant = converted.messages.find((m) => m.role === "assistant");
    assert.deepEqual(assistant, langchainOwn);
    for (const to of ["openai", "openai-responses", "gemini", "aisdk"]) {
      const text = JSON.stringify(convert(chain, { from: "langchain", to }).messages);
      assert.ok(!text.includes("[tool_use"), `${to}: the call written as text too: ${text}`);
    }
  });

  it("renamed call ids rename the call's block too", () => {
    for (const chain of [anthropicCall(), v1Chain()]) {
      const renamed = normalizeToolCallIds(chain, "call_{r:24:x}");
      assert.equal(renamed.changed, true);
      const sent = payload(renamed.messages);
      assert.equal(toolUses(sent).length, 1, JSON.stringify(sent));
      assert.deepEqual(
        toolUses(sent).map((b) => b.id),
        toolResultIds(sent),
      );
    }
  });

  it("v1 standard blocks convert as the media and reasoning they are", () => {
    for (const to of ["anthropic", "openai", "gemini", "aisdk"]) {
      const text = JSON.stringify(convert(v1Chain(), { from: "langchain", to }).messages);
      assert.ok(text.includes(PNG), `${to}: the inline image is gone`);
      assert.ok(text.includes("cat.png"), `${to}: the image URL is gone`);
      assert.ok(!/\[(reasoning|image|tool_call)/.test(text), `${to}: a block written as text: ${text}`);
      assert.ok(!text.includes("PRIVATE_THOUGHT") || to === "aisdk", `${to}: unsigned reasoning sent`);
    }
    // What Anthropic is sent for the converted chain has the pictures LangChain sends.
    const sent = convert(v1Chain(), { from: "langchain", to: "anthropic" }).messages[0].content;
    const own = payload(v1Chain())[0].content;
    assert.deepEqual(
      sent.filter((b) => b.type === "image"),
      own.filter((b) => b.type === "image"),
    );
  });

  it("media given as a data: URL converts as the inline data @langchain/anthropic sends", () => {
    const png =
      "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    const pdf = "data:application/pdf;base64,JVBERi0xLjQK";
    const chain = [
      new HumanMessage({
        content: [
          { type: "text", text: "what are these" },
          { type: "image_url", image_url: { url: png } },
          { type: "file", url: pdf, mimeType: "application/pdf" },
        ],
      }),
    ];
    const ours = convert(chain, { from: "langchain", to: "anthropic" }).messages[0].content;
    assert.deepEqual(ours[1].source, payload(chain)[0].content[1].source);
    assert.deepEqual(ours[2].source, { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQK" });
    const responses = convert(chain, { from: "langchain", to: "openai-responses" }).messages[0].content[2];
    assert.equal(responses.file_data, pdf);
    assert.equal(responses.file_url, undefined);
  });

  it("a Gemini signature through LangChain is never sent to Anthropic", () => {
    const gemini = {
      contents: [
        { role: "user", parts: [{ text: "weather in Paris?" }] },
        {
          role: "model",
          parts: [
            { text: "I should call the tool.", thought: true, thoughtSignature: "GEMINI_SIGNATURE" },
            { functionCall: { id: "c1", name: "get_weather", args: { city: "Paris" } } },
          ],
        },
        {
          role: "user",
          parts: [{ functionResponse: { id: "c1", name: "get_weather", response: { output: "sunny" } } }],
        },
        { role: "model", parts: [{ text: "Sunny." }] },
      ],
    };
    const stored = convert(gemini, { to: "langchain" }).messages;
    assert.ok(!JSON.stringify(payload(mapStoredMessagesToChatMessages(stored))).includes("GEMINI_SIGNATURE"));
    const toAnthropic = convert(stored, { from: "langchain", to: "anthropic" });
    assert.ok(!JSON.stringify(toAnthropic.messages).includes("GEMINI_SIGNATURE"));
    assert.ok(toAnthropic.changes.some((c) => c.change === "droppedSignature"));
    // Back to Gemini it keeps its signature.
    assert.ok(
      JSON.stringify(convert(stored, { from: "langchain", to: "gemini" }).messages).includes("GEMINI_SIGNATURE"),
    );
  });

  it("an Anthropic signature through LangChain goes back to Anthropic, and not to Gemini", () => {
    const anthropic = [
      { role: "user", content: "weather in Paris?" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "call the tool", signature: "ANTHROPIC_SIGNATURE" },
          { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "sunny" }] },
    ];
    const stored = convert(anthropic, { from: "anthropic", to: "langchain" }).messages;
    const sent = payload(mapStoredMessagesToChatMessages(stored));
    assert.deepEqual(sent[1].content[0], {
      type: "thinking",
      thinking: "call the tool",
      signature: "ANTHROPIC_SIGNATURE",
    });
    const toGemini = convert(stored, { from: "langchain", to: "gemini" });
    assert.ok(!JSON.stringify(toGemini.messages).includes("ANTHROPIC_SIGNATURE"));
    assert.ok(toGemini.changes.some((c) => c.change === "droppedSignature"));
  });
});
