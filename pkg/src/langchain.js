// `contextfold/langchain`: a LangChain v1 agent middleware (`createAgent({ middleware })`).
// Before each model call, when the agent's messages are over the budget, they are
// compacted and the agent's state is replaced by the result (as LangChain's own
// summarizationMiddleware does), so later calls start from the compacted thread.
import { load } from "@langchain/core/load";
import { RemoveMessage, isBaseMessage } from "@langchain/core/messages";
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
  return createMiddleware({
    name: "ContextfoldMiddleware",
    beforeModel: async (state) => {
      const { messages } = state;
      if (!Array.isArray(messages) || !needsCompaction(messages, settings)) return undefined;
      const result = await compact(messages, settings);
      if (!result.changed) return undefined;
      // Kept messages are the agent's own objects; new ones (summaries) come as LangChain's
      // serialized form, revived here.
      const revived = await Promise.all(result.messages.map((m) => (isBaseMessage(m) ? m : load(JSON.stringify(m)))));
      return { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...revived] };
    },
  });
}
