// `contextfold/langchain`: a LangChain v1 agent middleware (`createAgent({ middleware })`).
// Before each model call, when the agent's messages are over the budget, they are
// compacted and the agent's state is replaced by the result (as LangChain's own
// summarizationMiddleware does), so later calls start from the compacted thread.
import { load } from "@langchain/core/load";
import { RemoveMessage, SystemMessage, isBaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { compact, needsCompaction } from "./api.js";
import { contextfoldError } from "./errors.js";

/** @type {typeof import("./langchain.js").contextfoldMiddleware} */
export function contextfoldMiddleware(options) {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw contextfoldError("invalid_option", "contextfoldMiddleware: options: expected an object", "options");
  }
  if (options.maxTokens === undefined && options.maxBytes === undefined) {
    throw contextfoldError(
      "invalid_option",
      "contextfoldMiddleware: options.maxTokens: the budget is required",
      "options.maxTokens",
    );
  }
  const settings = { strategy: "auto", ...options, format: "langchain" };
  // Checked now, by compact's own reader (unknown keys, wrong values), not at the first call.
  needsCompaction([], settings);
  // The agent's system prompt (`createAgent`'s `systemPrompt`, or what a middleware made
  // of it) goes to the model beside the state's messages, and only `wrapModelCall` sees
  // it: the last one seen is counted in the budget of the next state compaction.
  let system;
  /** `messages` compacted with `prompt` counted (kept first by every strategy, then taken off). */
  const fit = async (messages, prompt) => {
    const chain = prompt ? [prompt, ...messages] : messages;
    if (!needsCompaction(chain, settings)) return undefined;
    const result = await compact(chain, settings);
    if (!result.changed) return undefined;
    // Kept messages are the agent's own objects; new ones (summaries) come as LangChain's
    // serialized form, revived here.
    const revived = await Promise.all(result.messages.map((m) => (isBaseMessage(m) ? m : load(JSON.stringify(m)))));
    return revived.filter((m) => m !== prompt);
  };
  return createMiddleware({
    name: "ContextfoldMiddleware",
    beforeModel: async (state) => {
      const { messages } = state;
      if (!Array.isArray(messages)) return undefined;
      const compacted = await fit(messages, system);
      if (!compacted) return undefined;
      return { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...compacted] };
    },
    // The first call, or a system prompt grown since: this call's messages fit with it
    // (the state is compacted with it counted at the next call).
    wrapModelCall: async (request, handler) => {
      system = promptOf(request);
      const compacted = system && Array.isArray(request.messages) ? await fit(request.messages, system) : undefined;
      return handler(compacted ? { ...request, messages: compacted } : request);
    },
  });
}

/** The system message a model request carries; `undefined` when it is empty. */
function promptOf(request) {
  const message =
    request.systemMessage ??
    (typeof request.systemPrompt === "string" ? new SystemMessage(request.systemPrompt) : undefined);
  if (!isBaseMessage(message)) return undefined;
  const { content } = message;
  return content === "" || content == null || (Array.isArray(content) && content.length === 0) ? undefined : message;
}
