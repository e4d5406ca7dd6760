// contextfold's results passed straight, with no cast, to the official SDKs' own types
// (openai, @anthropic-ai/sdk, @google/genai, ai): type-checked (never run) by
// types.test.mjs. The SDK clients are only constructed for their method types; no
// request is sent. Every `@ts-expect-error` must be an error (tsc fails on an unused
// one): the results are typed, not `any`.
import OpenAI from "openai";
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import Anthropic from "@anthropic-ai/sdk";
import type { MessageCreateParamsNonStreaming, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { GoogleGenAI, type Content } from "@google/genai";
import { generateText, type ModelMessage, type UIMessage } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import {
  clearReasoning,
  compact,
  convert,
  History,
  normalizeToolCallIds,
  repairChain,
  type AiSdkModelMessage,
  type AiSdkUIMessage,
  type AnthropicMessage,
  type AnthropicRequest,
  type Chain,
  type GeminiContent,
  type OpenAIChatMessage,
  type OpenAIChatRequest,
  type OpenAIResponsesItem,
  type OpenAIResponsesRequest,
} from "contextfold";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | void {}

declare const openaiMessages: ChatCompletionMessageParam[];
declare const responsesItems: ResponseInputItem[];
declare const anthropicMessages: MessageParam[];
declare const anthropicRequest: MessageCreateParamsNonStreaming;
declare const geminiContents: Content[];
declare const modelMessages: ModelMessage[];
declare const uiMessages: UIMessage[];

const openai = new OpenAI({ apiKey: "k" });
const anthropic = new Anthropic({ apiKey: "k" });
const gemini = new GoogleGenAI({ apiKey: "k" });
const model = new MockLanguageModelV4();

// compact gives back the input's own type, for every SDK.
{
  const { messages } = await compact(openaiMessages, { strategy: "tiers" });
  expectType<Equal<typeof messages, ChatCompletionMessageParam[]>>();
  await openai.chat.completions.create({ model: "gpt-4o", messages });
}
{
  const { messages } = await compact(anthropicMessages, { strategy: "budget", maxTokens: 8000 });
  await anthropic.messages.create({ model: "claude", max_tokens: 1024, messages });
  // @ts-expect-error: Anthropic messages are not OpenAI messages
  await openai.chat.completions.create({ model: "gpt-4o", messages });
}
{
  const { messages: request } = await compact(anthropicRequest, { strategy: "tiers" });
  expectType<Equal<typeof request, MessageCreateParamsNonStreaming>>();
  await anthropic.messages.create(request);
}
{
  const { messages: contents } = await compact(geminiContents, { strategy: "window" });
  await gemini.models.generateContent({ model: "gemini-2.5-flash", contents });
  // @ts-expect-error: Gemini contents are not Anthropic messages
  await anthropic.messages.create({ model: "claude", max_tokens: 1024, messages: contents });
}
{
  const { messages } = await compact(modelMessages, { strategy: "tiers" });
  await generateText({ model, messages });
  const { messages: ui } = await compact(uiMessages);
  expectType<Equal<typeof ui, UIMessage[]>>();
  // @ts-expect-error: UIMessages are not ModelMessages
  await generateText({ model, messages: ui });
}

// History holds the SDK's own messages and gives them back as such.
{
  const history = new History<ModelMessage>({ messages: modelMessages, options: { strategy: "tiers" } });
  const { messages } = await history.compact();
  await generateText({ model, messages });
  await generateText({ model, messages: history.messages() });
  // @ts-expect-error: a History of ModelMessages takes no Anthropic message
  await history.push(anthropicMessages[0]!);
}

// The edits too.
await openai.chat.completions.create({ model: "m", messages: repairChain(openaiMessages).messages });
await anthropic.messages.create({ model: "m", max_tokens: 1, messages: clearReasoning(anthropicMessages).messages });
await gemini.models.generateContent({
  model: "m",
  contents: normalizeToolCallIds(geminiContents, "call_{r:24:x}").messages,
});

// convert is typed by `to`, and its outputs are accepted by the SDKs.
const toOpenAI = convert(anthropicMessages, { to: "openai" }).messages;
expectType<Equal<typeof toOpenAI, OpenAIChatMessage[]>>();
await openai.chat.completions.create({ model: "gpt-4o", messages: toOpenAI });
const toAnthropic = convert(openaiMessages, { to: "anthropic" }).messages;
expectType<Equal<typeof toAnthropic, AnthropicMessage[] | AnthropicRequest>>();
if (Array.isArray(toAnthropic)) {
  await anthropic.messages.create({ model: "claude", max_tokens: 1024, messages: toAnthropic });
} else {
  await anthropic.messages.create({ model: "claude", max_tokens: 1024, ...toAnthropic });
}
const toGemini = convert(openaiMessages, { to: "gemini" }).messages;
if (Array.isArray(toGemini)) {
  const contents: Content[] = toGemini;
  await gemini.models.generateContent({ model: "gemini-2.5-flash", contents });
  const back: GeminiContent[] = geminiContents.map((c) => ({
    parts: (c.parts ?? []).map((p) => (p.text === undefined ? {} : { text: p.text })),
  }));
  void back;
}
const toModel = convert(openaiMessages, { to: "aisdk" }).messages;
expectType<Equal<typeof toModel, AiSdkModelMessage[]>>();
await generateText({ model, messages: toModel });
const toResponses = convert(anthropicMessages, { to: "openai-responses" }).messages;
expectType<Equal<typeof toResponses, OpenAIResponsesItem[] | OpenAIResponsesRequest>>();
if (Array.isArray(toResponses)) {
  const input: ResponseInputItem[] = toResponses;
  await openai.responses.create({ model: "gpt-5", input });
} else {
  await openai.responses.create({ model: "gpt-5", ...toResponses });
}
{
  const { messages: input } = await compact(responsesItems);
  expectType<Equal<typeof input, ResponseInputItem[]>>();
  await openai.responses.create({ model: "gpt-5", input, store: false });
}
const toUI = convert(openaiMessages, { to: "aisdk-ui" }).messages;
expectType<Equal<typeof toUI, AiSdkUIMessage[]>>();
const ui: UIMessage[] = toUI;
void ui;
// @ts-expect-error: ModelMessages are not UIMessages
const notUI: UIMessage[] = toModel;
void notUI;

// JSON text comes back parsed, typed by the `format` option.
const fromText = await compact(JSON.stringify(openaiMessages), { format: "openai" });
expectType<Equal<typeof fromText.messages, OpenAIChatMessage[] | OpenAIChatRequest>>();
if (Array.isArray(fromText.messages)) {
  await openai.chat.completions.create({ model: "gpt-4o", messages: fromText.messages });
}
// A request body stays a body: its messages go back where they came from.
{
  const body: ChatCompletionCreateParamsNonStreaming = { model: "gpt-4o", messages: openaiMessages, temperature: 0 };
  const { messages: compacted } = await compact(body, { maxTokens: 8000 });
  expectType<Equal<typeof compacted, ChatCompletionCreateParamsNonStreaming>>();
  await openai.chat.completions.create(compacted);
}
const autoText = await compact("[]");
expectType<Equal<typeof autoText.messages, Chain<string>>>();
// @ts-expect-error: an auto-detected chain could be any format
await openai.chat.completions.create({ model: "gpt-4o", messages: autoText.messages });
