// Inputs of the third-party validation suite: every real transcript beside the repository
// and generated chains covering what the transcripts may lack (parallel calls, thinking with
// signatures, redacted thinking, images in tool results, tool errors, a turn in progress).
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { fixtureFiles, fixturesDir } from "../node/helpers.mjs";

/** Real transcripts `{ name, format, input }`; absent locally: [] (CI: a failure, see the test). */
export function realInputs() {
  return fixtureFiles()
    .filter((file) => !file.includes("reference_summary"))
    .map((file) => {
      const name = basename(file, ".json");
      return { name, format: name.split(".").pop(), input: JSON.parse(readFileSync(file, "utf8")) };
    });
}

export { fixturesDir };

const words = (i, n = 30) => `step ${i}: ${"the build log shows the same warning again and again ".repeat(n)}`;
// A real 1x1 PNG, so SDKs that decode base64 media accept it.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const SIG = (i) => `EqQBCkgIBxABGAIiQL${"x".repeat(40)}${i}sig==`;

/** Anthropic Messages with every feature in each turn: several sections worth folding. */
function anthropicFeatures({ inProgress }) {
  const messages = [];
  for (let i = 0; i < 6; i++) {
    messages.push({ role: "user", content: `Task ${i}: inspect the logs. ${words(i, 5)}` });
    messages.push({
      role: "assistant",
      content: [
        { type: "thinking", thinking: `I should read both logs for task ${i}.`, signature: SIG(i) },
        { type: "redacted_thinking", data: `EmwKAhgBEgy${"r".repeat(30)}${i}` },
        { type: "text", text: "Reading both logs." },
        { type: "tool_use", id: `toolu_${i}a`, name: "read_log", input: { path: `a${i}.log` } },
        { type: "tool_use", id: `toolu_${i}b`, name: "screenshot", input: { page: i } },
      ],
    });
    messages.push({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: `toolu_${i}a`, content: words(i), is_error: i % 2 === 1 },
        {
          type: "tool_result",
          tool_use_id: `toolu_${i}b`,
          content: [
            { type: "text", text: `screenshot ${i}` },
            { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
          ],
        },
        { type: "text", text: `Also note ${i}.` },
      ],
    });
    messages.push({ role: "assistant", content: [{ type: "text", text: `Task ${i} done. ${words(i, 10)}` }] });
  }
  messages.push({ role: "user", content: "Now check the last log." });
  if (inProgress) {
    messages.push({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "One more read.", signature: SIG(99) },
        { type: "tool_use", id: "toolu_live", name: "read_log", input: { path: "last.log" } },
      ],
    });
  }
  return messages;
}

/** OpenAI chat with parallel calls, a tool error text, an image from the user, reasoning_content. */
function openaiFeatures() {
  const messages = [{ role: "system", content: "You are a careful agent." }];
  for (let i = 0; i < 6; i++) {
    messages.push({
      role: "user",
      content: [
        { type: "text", text: `Task ${i}. ${words(i, 5)}` },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      ],
    });
    messages.push({
      role: "assistant",
      content: null,
      reasoning_content: `Two reads for ${i}.`,
      tool_calls: [
        { id: `call_${i}a`, type: "function", function: { name: "read", arguments: `{"path":"a${i}"}` } },
        { id: `call_${i}b`, type: "function", function: { name: "read", arguments: `{"path":"b${i}"}` } },
      ],
    });
    messages.push({ role: "tool", tool_call_id: `call_${i}a`, content: words(i) });
    messages.push({ role: "tool", tool_call_id: `call_${i}b`, content: `Error: file b${i} not found` });
    messages.push({ role: "assistant", content: `Done ${i}. ${words(i, 10)}` });
  }
  messages.push({ role: "user", content: "And the last one?" });
  return messages;
}

/** AI SDK `ModelMessage`s as `ai` 7 writes them: tagged file data, `image-data` tool output. */
function aiSdk7Features() {
  const messages = [{ role: "system", content: "You are a careful agent." }];
  for (let i = 0; i < 6; i++) {
    messages.push({
      role: "user",
      content: [
        { type: "text", text: `Task ${i}. ${words(i, 5)}` },
        { type: "file", mediaType: "image/png", data: { type: "data", data: PNG } },
      ],
    });
    messages.push({
      role: "assistant",
      content: [
        { type: "reasoning", text: `Two tools for ${i}.` },
        { type: "tool-call", toolCallId: `c${i}a`, toolName: "read", input: { path: `a${i}` } },
        { type: "tool-call", toolCallId: `c${i}b`, toolName: "shot", input: { page: i } },
      ],
    });
    messages.push({
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: `c${i}a`,
          toolName: "read",
          output: { type: "error-text", value: `Error: ${words(i)}` },
        },
        {
          type: "tool-result",
          toolCallId: `c${i}b`,
          toolName: "shot",
          output: {
            type: "content",
            value: [
              { type: "text", text: `page ${i}` },
              { type: "image-data", data: PNG, mediaType: "image/png" },
            ],
          },
        },
      ],
    });
    messages.push({ role: "assistant", content: `Done ${i}. ${words(i, 10)}` });
  }
  messages.push({ role: "user", content: "And now?" });
  return messages;
}

/** Generated chains `{ name, format, input }`. */
export function generatedInputs() {
  return [
    { name: "generated_features.anthropic", format: "anthropic", input: anthropicFeatures({ inProgress: false }) },
    { name: "generated_in_progress.anthropic", format: "anthropic", input: anthropicFeatures({ inProgress: true }) },
    {
      name: "generated_request.anthropic",
      format: "anthropic",
      input: { system: "You are a careful agent.", messages: anthropicFeatures({ inProgress: false }) },
    },
    { name: "generated_features.openai", format: "openai", input: openaiFeatures() },
    { name: "generated_ai7_features.aisdk", format: "aisdk", input: aiSdk7Features() },
  ];
}
