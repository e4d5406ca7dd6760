// LangChain message instances given to the chain functions come back as instances of the
// caller's classes (summaries and changed messages included), judged by LangChain's own
// payload converters, which call the messages' methods.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clearReasoning, compact, convert, normalizeToolCallIds, repairChain } from "contextfold";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, isBaseMessage } from "@langchain/core/messages";
import { ChatPromptValue } from "@langchain/core/prompt_values";
import { convertPromptToAnthropic } from "@langchain/anthropic";
import { convertMessagesToCompletionsMessageParams } from "@langchain/openai";

/** A strategy by name, as it folded with `maxTokens` before QA folding (`sections`) and the
 * on-demand re-tiering (`tiers`) had to be asked for: these chats need both to fold. */
const folding = (name) => ({ sections: { name, useQA: true }, tiers: { name, auto: false } })[name] ?? name;

const STRATEGIES = ["auto", "sections", "window", "tiers", "budget", "mask"];
const log = (i) => `step ${i}: ${"the build printed the same warning again ".repeat(50)}`;
const summarizer = async (request) => `Summary ${request.id}: the files were read.`;

/** An agent thread: a system prompt, tool calls with thinking (as @langchain/anthropic returns them). */
function thread(turns) {
  const messages = [new SystemMessage("You are a careful agent.")];
  for (let i = 0; i < turns; i++) {
    messages.push(new HumanMessage(`task ${i}`));
    messages.push(
      new AIMessage({
        content: [
          { type: "thinking", thinking: `plan ${i}`, signature: `sig${i}` },
          { type: "tool_use", id: `toolu_${i}`, name: "read", input: { path: `f${i}` } },
        ],
        tool_calls: [{ id: `toolu_${i}`, name: "read", args: { path: `f${i}` }, type: "tool_call" }],
      }),
    );
    messages.push(new ToolMessage({ tool_call_id: `toolu_${i}`, content: log(i) }));
    messages.push(new AIMessage(`Read f${i}.`));
  }
  messages.push(new HumanMessage("what next?"));
  return messages;
}

/** What LangChain's Anthropic and OpenAI payload converters make of `messages`. */
function judged(messages) {
  assert.ok(
    messages.every((m) => isBaseMessage(m)),
    "every message is an instance",
  );
  convertPromptToAnthropic(new ChatPromptValue(messages));
  convertMessagesToCompletionsMessageParams({ messages, model: "gpt-4o" });
}

describe("LangChain message instances in, instances out", () => {
  for (const strategy of STRATEGIES) {
    it(`compact (${strategy}): summaries and changed messages are instances of the caller's classes`, async () => {
      const messages = thread(10);
      const result = await compact(messages, { strategy: folding(strategy), maxTokens: 1500, summarizer });
      assert.equal(result.changed, true);
      judged(result.messages);
      const kept = result.messages.filter((m) => messages.includes(m));
      assert.ok(kept.length > 0 && kept.length < result.messages.length, "some kept as given, some made");
    });
  }

  it("repairChain, normalizeToolCallIds, clearReasoning and convert give instances", () => {
    const messages = thread(3);
    // An orphan result and a pending call: repair changes the chain.
    const broken = [...messages.slice(0, 3), new ToolMessage({ tool_call_id: "nobody", content: "x" })];
    judged(repairChain(broken).messages);
    const renamed = normalizeToolCallIds(messages, "call_{r:24:x}");
    assert.equal(renamed.changed, true);
    judged(renamed.messages);
    const cleared = clearReasoning(messages);
    assert.equal(cleared.changed, true);
    judged(cleared.messages);
    judged(convert(messages, { to: "langchain" }).messages);
  });
});
