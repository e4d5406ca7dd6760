// Types of `contextfold/langchain`.
import type { AgentMiddleware } from "langchain";
import type { CompactOptions } from "./index.js";
export { isContextfoldError, type ContextfoldError, type ContextfoldErrorCode } from "./contextfold-error.js";

/**
 * A LangChain v1 agent middleware (`createAgent({ model, tools, middleware: [...] })`):
 * before each model call, when the agent's messages are over the budget (`maxTokens` or
 * `maxBytes`, required), they are compacted with `compact`'s options (strategy `"auto"`
 * by default) and the agent's state is replaced by the result. The agent's system prompt,
 * as it reaches this middleware's `wrapModelCall`, counts in the budget.
 */
export declare function contextfoldMiddleware(options: Omit<CompactOptions, "format">): AgentMiddleware;
