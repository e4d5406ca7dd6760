// What the AI SDK's mock language models (`ai/test`) answer in the tests: a finished
// generation of "ok" and its usage, in the LanguageModelV4 shapes.

export const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A `doGenerate` result: the text "ok". */
export const generated = {
  content: [{ type: "text", text: "ok" }],
  finishReason: { unified: "stop", raw: undefined },
  usage,
  warnings: [],
};
