// The judges: each output is handed to the third-party code a user calls next with it. Where
// a package has a runtime validator or converter, it runs here; the official `openai`,
// `@anthropic-ai/sdk` and `@google/genai` types are checked by tsc over every output
// (`TypeCollector`). The provider rules no SDK checks at runtime (Anthropic's unique
// tool_use ids and result placement, Gemini's turn alternation and response names) are
// written out below from the providers' API references, independently of contextfold.
import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { modelMessageSchema, validateUIMessages, convertToModelMessages, generateText } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { load } from "@langchain/core/load";
import { mapStoredMessagesToChatMessages } from "@langchain/core/messages";
import { ChatPromptValue } from "@langchain/core/prompt_values";
import { convertMessagesToCompletionsMessageParams } from "@langchain/openai";
import { convertPromptToAnthropic } from "@langchain/anthropic";
import { GoogleGenAI } from "@google/genai";
import { root } from "../node/helpers.mjs";

const problem = (where, text) => `${where}: ${text}`;

/** JSON with object keys sorted: the SDK rebuilds each object and may reorder its keys. */
const canonical = (value) =>
  JSON.stringify(value, (_, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );

// ---------------------------------------------------------------- Anthropic wire rules

/** Rules of the Messages API (docs: "Messages", "Tool use", "Extended thinking"). */
export function anthropicRules(container, { alternation = true, thinking = true } = {}) {
  const messages = Array.isArray(container) ? container : container.messages;
  const out = [];
  const ids = new Map();
  const turns = messages.filter((m) => m.role !== "system");
  if (turns.length > 0 && turns[0].role !== "user") out.push(problem("messages[0]", "first turn is not the user's"));
  messages.forEach((m, i) => {
    const at = `messages[${i}]`;
    const prev = messages[i - 1];
    if (m.role === "system") return;
    if (alternation && prev && prev.role === m.role) out.push(problem(at, `two ${m.role} messages in a row`));
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    if (blocks.length === 0 && i !== messages.length - 1) out.push(problem(at, "empty content"));
    blocks.forEach((b, j) => {
      if (b.type === "text" && b.text === "") out.push(problem(`${at}.content[${j}]`, "empty text block"));
      if (thinking && b.type === "thinking" && !(typeof b.signature === "string" && b.signature.length > 0))
        out.push(problem(`${at}.content[${j}]`, "thinking block without a signature"));
      if (b.type === "tool_use") {
        if (ids.has(b.id))
          out.push(problem(`${at}.content[${j}]`, `tool_use id ${b.id} used twice (first at ${ids.get(b.id)})`));
        ids.set(b.id, at);
      }
    });
    // Every tool_use is answered by a tool_result at the start of the next user message.
    const calls = blocks.filter((b) => b.type === "tool_use").map((b) => b.id);
    const next = messages[i + 1];
    if (m.role === "assistant" && calls.length > 0 && next) {
      const nextBlocks = typeof next.content === "string" ? [] : next.content;
      const lead = [];
      for (const b of nextBlocks) {
        if (b.type !== "tool_result") break;
        lead.push(b.tool_use_id);
      }
      const rest = nextBlocks.slice(lead.length).filter((b) => b.type === "tool_result");
      if (rest.length > 0) out.push(problem(`messages[${i + 1}]`, "tool_result after other content"));
      for (const id of calls)
        if (!lead.includes(id)) out.push(problem(`messages[${i + 1}]`, `no tool_result right after tool_use ${id}`));
    }
    if (m.role === "user") {
      const results = blocks.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id);
      const asked =
        prev && prev.role === "assistant" && typeof prev.content !== "string"
          ? prev.content.filter((b) => b.type === "tool_use").map((b) => b.id)
          : [];
      for (const id of results)
        if (!asked.includes(id)) out.push(problem(at, `tool_result ${id} answers no tool_use of the previous message`));
    }
  });
  out.push(...anthropicBlockRules(container, messages, { thinking }));
  return out;
}

/** The block-level rules of the Messages API (docs: "Prompt caching", "Extended thinking",
 * "Server tools", "Programmatic tool calling"). */
function anthropicBlockRules(container, messages, { thinking }) {
  const out = [];
  const blocksOf = (m) => (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content);
  // "A maximum of 4 blocks with cache_control may be provided": tools, system and messages.
  let breakpoints = 0;
  const count = (b) => {
    if (b && typeof b === "object" && b.cache_control) breakpoints++;
    if (b?.type === "tool_result" && Array.isArray(b.content)) b.content.forEach(count);
  };
  if (!Array.isArray(container)) {
    (container.tools ?? []).forEach(count);
    if (Array.isArray(container.system)) container.system.forEach(count);
  }
  const serverCalls = new Set();
  messages.forEach((m, i) => {
    if (m.role === "system") return;
    const at = `messages[${i}]`;
    const blocks = blocksOf(m);
    blocks.forEach((b, j) => {
      count(b);
      const where = `${at}.content[${j}]`;
      if ((b.type === "thinking" || b.type === "redacted_thinking") && b.cache_control)
        out.push(problem(where, "cache_control on a thinking block"));
      if (b.type === "tool_result" && Array.isArray(b.content))
        b.content.forEach((c, k) => {
          if (c.type === "text" && c.text === "") out.push(problem(`${where}.content[${k}]`, "empty text block"));
        });
      if (b.type === "server_tool_use" || b.type === "mcp_tool_use") serverCalls.add(b.id);
      if (b.type !== "tool_result" && /_tool_result$/.test(b.type) && !serverCalls.has(b.tool_use_id))
        out.push(problem(where, `${b.type} ${b.tool_use_id} answers no earlier server_tool_use`));
    });
    const last = blocks.at(-1);
    if (m.role === "assistant" && (last?.type === "thinking" || last?.type === "redacted_thinking"))
      out.push(problem(at, "the final block of an assistant message is thinking"));
  });
  if (breakpoints > 4) out.push(problem("request", `${breakpoints} cache_control breakpoints, at most 4`));
  // With thinking on, the assistant message whose tool results end the request starts with thinking.
  const last = messages.at(-1);
  const lastAssistant = messages.findLast((m) => m.role === "assistant");
  if (
    thinking &&
    !Array.isArray(container) &&
    container.thinking?.type === "enabled" &&
    last?.role === "user" &&
    blocksOf(last).some((b) => b.type === "tool_result") &&
    lastAssistant &&
    !["thinking", "redacted_thinking"].includes(blocksOf(lastAssistant)[0]?.type)
  )
    out.push(problem("messages", "thinking enabled: the final assistant message does not start with a thinking block"));
  return out;
}

// ---------------------------------------------------------------- Gemini

/** Rules of `generateContent` (docs: "Function calling", "Multi-turn conversations"). */
export function geminiRules(container) {
  const contents = Array.isArray(container) ? container : container.contents;
  const out = [];
  contents.forEach((c, i) => {
    const at = `contents[${i}]`;
    if (i > 0 && contents[i - 1].role === c.role) out.push(problem(at, `two ${c.role} contents in a row`));
    if (!Array.isArray(c.parts) || c.parts.length === 0) out.push(problem(at, "no parts"));
    const calls = (c.parts ?? []).filter((p) => p.functionCall).map((p) => p.functionCall);
    const next = contents[i + 1];
    if (c.role === "model" && calls.length > 0 && next) {
      const responses = next.parts.filter((p) => p.functionResponse).map((p) => p.functionResponse);
      if (responses.length !== calls.length)
        out.push(problem(`contents[${i + 1}]`, `${calls.length} function calls, ${responses.length} responses`));
      calls.forEach((call, k) => {
        const answer = responses.find((r) => (call.id ? r.id === call.id : true) && r.name === call.name) ?? null;
        if (answer === null) out.push(problem(`contents[${i + 1}]`, `no response named ${call.name} for call ${k}`));
      });
    }
  });
  if (contents.length > 0 && contents[0].role !== "user")
    out.push(problem("contents[0]", "first content is not the user's"));
  return out;
}

/**
 * Sends `container` through the real `@google/genai` client: `chats.create` validates the
 * history, and `models.generateContent` builds the request (its converters throw on what the
 * Gemini API does not take) to a loopback server that records the body.
 */
export async function geminiSdk(container) {
  const contents = Array.isArray(container) ? container : container.contents;
  const system = Array.isArray(container) ? undefined : container.systemInstruction;
  const bodies = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      bodies.push(JSON.parse(body));
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({ candidates: [{ content: { role: "model", parts: [{ text: "ok" }] }, finishReason: "STOP" }] }),
      );
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const client = new GoogleGenAI({
      apiKey: "test",
      httpOptions: { baseUrl: `http://127.0.0.1:${server.address().port}` },
    });
    const chat = client.chats.create({ model: "gemini-2.5-flash", history: contents });
    const curated = chat.getHistory(true);
    if (curated.length !== contents.length)
      return [`the SDK's curated history keeps ${curated.length} of ${contents.length} contents`];
    await client.models.generateContent({
      model: "gemini-2.5-flash",
      contents,
      config: system === undefined ? undefined : { systemInstruction: system },
    });
    const sent = bodies[0]?.contents;
    if (canonical(sent) !== canonical(contents)) return ["the SDK rewrote the contents it sent"];
    return [];
  } catch (error) {
    return [`@google/genai: ${error.message}`];
  } finally {
    server.close();
  }
}

// ---------------------------------------------------------------- AI SDK

// Declares image URLs supported, as the OpenAI and Anthropic providers do (else `ai` downloads
// them, and the tests make no request beyond 127.0.0.1).
const mockModel = () =>
  new MockLanguageModelV4({
    supportedUrls: { "image/*": [/^https?:\/\/.*$/] },
    doGenerate: async () => ({
      content: [{ type: "text", text: "ok" }],
      finishReason: { unified: "stop", raw: "stop" },
      usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } },
      warnings: [],
    }),
  });

/**
 * `modelMessageSchema` on each message, tool results named as their calls, then `generateText`
 * (`ai` 7 takes system messages in `messages` only with `allowSystemInMessages`: a user whose
 * own list had them sets it, one whose list had none does not).
 */
export async function aiSdkModel(container, { systemInInput, inProgress }) {
  const messages = Array.isArray(container) ? container : container.messages;
  const out = [];
  for (const [i, m] of messages.entries()) {
    const result = await modelMessageSchema["~standard"].validate(m);
    if (result.issues)
      out.push(problem(`[${i}]`, `modelMessageSchema: ${JSON.stringify(result.issues).slice(0, 400)}`));
  }
  const names = new Map();
  messages.forEach((m, i) => {
    if (!Array.isArray(m.content)) return;
    for (const p of m.content) {
      if (p.type === "tool-call") names.set(p.toolCallId, p.toolName);
      if (p.type === "tool-result" && names.get(p.toolCallId) !== p.toolName)
        out.push(
          problem(`[${i}]`, `result for ${p.toolCallId} named ${p.toolName}, its call ${names.get(p.toolCallId)}`),
        );
    }
  });
  // A turn in progress (a call still running) is state to keep, not a request to send.
  if (out.length > 0 || inProgress) return out;
  try {
    await generateText({ model: mockModel(), messages, allowSystemInMessages: systemInInput });
  } catch (error) {
    out.push(`generateText: ${error.message}`);
  }
  return out;
}

/** `validateUIMessages`, then `convertToModelMessages`, then the ModelMessage judge. */
export async function aiSdkUi(messages, options) {
  try {
    await validateUIMessages({ messages });
    const model = await convertToModelMessages(messages);
    return await aiSdkModel(model, options);
  } catch (error) {
    return [`ai (UIMessage): ${error.message}`];
  }
}

// ---------------------------------------------------------------- LangChain

/** Revives the messages (`load` for `lc: 1`, `mapStoredMessagesToChatMessages` for `{ type, data }`). */
export async function langchain(messages) {
  try {
    const revived = messages.every((m) => m.lc === 1)
      ? await load(JSON.stringify(messages))
      : mapStoredMessagesToChatMessages(messages);
    convertMessagesToCompletionsMessageParams({ messages: revived, model: "gpt-4o" });
    const payload = convertPromptToAnthropic(new ChatPromptValue(revived));
    // LangChain keeps a ToolMessage and the HumanMessage after it apart (the Messages API joins
    // consecutive user turns), and reasoning without a signature comes from the input's own
    // OpenAI-compatible source: ids and result placement are what compaction must keep.
    return anthropicRules(payload.messages, { alternation: false, thinking: false }).map(
      (p) => `@langchain/anthropic payload: ${p}`,
    );
  } catch (error) {
    return [`langchain: ${error.message}`];
  }
}

/** Whether `messages` is LangChain's JS `toJSON()` form throughout. */
export const isLangchainJs = (messages) =>
  Array.isArray(messages) && messages.length > 0 && messages.every((m) => m.lc === 1);

// ---------------------------------------------------------------- tsc over the official types

const TYPES = {
  openai: {
    import:
      'import type { ChatCompletionMessageParam, ChatCompletionToolMessageParam, ChatCompletionAssistantMessageParam, ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";',
    array: "ChatCompletionMessageParam[]",
    object: "ChatCompletionCreateParamsNonStreaming",
  },
  "openai-responses": {
    import:
      'import type { ResponseInputItem, ResponseCreateParamsNonStreaming } from "openai/resources/responses/responses";',
    array: "ResponseInputItem[]",
    object: 'Pick<ResponseCreateParamsNonStreaming, "instructions" | "input">',
  },
  anthropic: {
    import: 'import type { MessageParam, MessageCreateParams } from "@anthropic-ai/sdk/resources/messages";',
    array: "MessageParam[]",
    object: 'Pick<MessageCreateParams, "system" | "messages">',
  },
  gemini: {
    import: 'import type { Content, ContentUnion } from "@google/genai";',
    array: "Content[]",
    object: "{ systemInstruction?: ContentUnion; contents: Content[] }",
  },
};

/** Collects outputs as typed TypeScript constants and type-checks them all in one tsc run. */
export class TypeCollector {
  constructor(name) {
    this.dir = join(root, "tests/artifacts", name);
    rmSync(this.dir, { recursive: true, force: true });
    mkdirSync(this.dir, { recursive: true });
    this.files = new Map();
  }

  /**
   * Adds `value` (in `format`) under `label`; formats without official types are ignored.
   * `reference`, an OpenAI chain the user gave, lets through the OpenAI-compatible fields it
   * already carried (legacy `name` on tool messages, `reasoning_content`): kept user data, but
   * never something contextfold may add on its own.
   */
  add(format, label, value, reference = []) {
    const types = TYPES[format];
    if (types === undefined) return;
    let type = Array.isArray(value) ? types.array : types.object;
    if (format === "openai" && Array.isArray(value)) {
      const has = (role, key) => Array.isArray(reference) && reference.some((m) => m.role === role && key in m);
      const extra = [
        has("tool", "name") ? "(ChatCompletionToolMessageParam & { name?: string })" : null,
        has("assistant", "reasoning_content")
          ? "(ChatCompletionAssistantMessageParam & { reasoning_content?: string | null })"
          : null,
      ].filter(Boolean);
      type = `Array<${["ChatCompletionMessageParam", ...extra].join(" | ")}>`;
    }
    const file = `f${this.files.size}.ts`;
    writeFileSync(
      join(this.dir, file),
      `${types.import}\n// ${label}\nexport const value: ${type} = ${JSON.stringify(value)};\n`,
    );
    this.files.set(file, label);
  }

  /** Runs tsc; returns one line per error, with the label of the output it is about. */
  check() {
    writeFileSync(
      join(this.dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          skipLibCheck: true,
          types: [],
        },
        include: ["*.ts"],
      }),
    );
    const tsc = join(root, "node_modules/typescript/bin/tsc");
    const result = spawnSync(process.execPath, [tsc, "-p", this.dir], {
      cwd: this.dir,
      encoding: "utf8",
      maxBuffer: 1 << 28,
    });
    const lines = `${result.stdout}${result.stderr}`.split("\n").filter((l) => /error TS/.test(l));
    return lines.map((line) => {
      const file = line.split("(")[0];
      return `${this.files.get(file) ?? file}: ${line.slice(line.indexOf("error")).slice(0, 500)}`;
    });
  }
}
