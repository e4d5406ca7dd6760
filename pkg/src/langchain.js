// `contextfold/langchain`: a LangChain v1 agent middleware (`createAgent({ middleware })`).
// Before each model call, when the agent's messages are over the budget, they are
// compacted and the agent's state is replaced by the result (as LangChain's own
// summarizationMiddleware does), so later calls start from the compacted thread.
import { load } from "@langchain/core/load";
import { RemoveMessage, SystemMessage, isBaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { compact, integrationSettings, needsCompaction, withSignal } from "./api.js";
export { isContextfoldError } from "./errors.js";

/** @type {typeof import("./langchain.js").contextfoldMiddleware} */
export function contextfoldMiddleware(options) {
  const { settings } = integrationSettings("contextfoldMiddleware", options, { format: "langchain", strategy: "auto" });
  // The agent's system prompt (`createAgent`'s `systemPrompt`, or what a middleware made
  // of it: one per user, say) goes to the model beside the state's messages, and only
  // `wrapModelCall` sees it: the last one seen in a conversation is counted in the budget
  // of its next state compaction. A conversation is its thread (`thread_id`), or without
  // a checkpointer its first message's id (the same through one run's steps).
  const prompts = new Map();
  const conversation = (runtime, messages) => runtime?.configurable?.thread_id ?? messages?.[0]?.id;
  const remember = (key, prompt) => {
    if (key === undefined) return;
    prompts.delete(key);
    prompts.set(key, prompt);
    if (prompts.size > MAX_CONVERSATIONS) prompts.delete(prompts.keys().next().value);
  };
  /**
   * `messages` compacted with `prompt` counted (kept first by every strategy, then taken
   * off); `signal`: the run's, which cancels the summary calls with the run.
   */
  const fit = async (messages, prompt, signal) => {
    const chain = prompt ? [prompt, ...messages] : messages;
    const own = withSignal(settings, signal);
    let result;
    try {
      if (!needsCompaction(chain, own)) return undefined;
      result = await compact(chain, own);
    } catch (error) {
      throw prompt ? inMessages(error) : error;
    }
    if (!result.changed) return undefined;
    // Kept messages are the agent's own objects; new ones (summaries) come as LangChain's
    // serialized form, revived here.
    const revived = await Promise.all(result.messages.map((m) => (isBaseMessage(m) ? m : load(JSON.stringify(m)))));
    // The prompt leads the result, as it came or repaired (an empty text block dropped):
    // either way it is the agent's, never the state's.
    const [first, ...rest] = revived;
    const isPrompt =
      prompt !== undefined && (first === prompt || (SystemMessage.isInstance(first) && !messages.includes(first)));
    return isPrompt ? rest : revived;
  };
  return createMiddleware({
    name: "ContextfoldMiddleware",
    beforeModel: async (state, runtime) => {
      const { messages } = state;
      if (!Array.isArray(messages)) return undefined;
      const compacted = await fit(messages, prompts.get(conversation(runtime, messages)), runtime?.signal);
      if (!compacted) return undefined;
      return { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...compacted] };
    },
    // The first call, or a system prompt grown since: this call's messages fit with it
    // (the state is compacted with it counted at the next call).
    wrapModelCall: async (request, handler) => {
      const prompt = promptOf(request);
      remember(conversation(request.runtime, request.state?.messages ?? request.messages), prompt);
      const signal = request.runtime?.signal;
      const compacted =
        prompt && Array.isArray(request.messages) ? await fit(request.messages, prompt, signal) : undefined;
      return handler(compacted ? { ...request, messages: compacted } : request);
    },
  });
}

/**
 * An error of the chain `[prompt, ...messages]` with its path in `messages` (the agent's
 * state), where the prompt is `systemMessage`.
 * @param {any} error
 */
function inMessages(error) {
  const match = typeof error?.path === "string" ? /^\[(\d+)\]/.exec(error.path) : null;
  if (!match) return error;
  const index = Number(match[1]);
  const rest = error.path.slice(match[0].length);
  const path = index === 0 ? `systemMessage${rest}` : `[${index - 1}]${rest}`;
  error.message = error.message.split(error.path).join(path);
  error.path = path;
  return error;
}

/** Conversations whose last system prompt is remembered (the least recent goes first). */
const MAX_CONVERSATIONS = 1000;

/** The system message a model request carries; `undefined` when it is empty. */
function promptOf(request) {
  const message =
    request.systemMessage ??
    (typeof request.systemPrompt === "string" ? new SystemMessage(request.systemPrompt) : undefined);
  if (!isBaseMessage(message)) return undefined;
  const { content } = message;
  return content === "" || content == null || (Array.isArray(content) && content.length === 0) ? undefined : message;
}
