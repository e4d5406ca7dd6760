// `contextfold/langchain` in a real LangChain v1 agent (issue 19 item 2): before the model
// call the agent's messages are compacted to the budget, the state is replaced by the
// result, and the model is called with it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  AIMessage,
  ChatMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  isBaseMessage,
} from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { measureChain } from "contextfold";
import { contextfoldMiddleware } from "contextfold/langchain";
import { createAgent, createMiddleware, dynamicSystemPromptMiddleware } from "langchain";
import { MemorySaver } from "@langchain/langgraph";

/** A strategy by name, as it folded with `maxTokens` before QA folding (`sections`) and the
 * on-demand re-tiering (`tiers`) had to be asked for: these chats need both to fold. */
const folding = (name) => ({ sections: { name, useQA: true }, tiers: { name, auto: false } })[name] ?? name;

/** A long thread of tool work, as LangChain messages. */
function thread(turns) {
  const messages = [new HumanMessage("Port every module to Rust. Never touch the tests.")];
  for (let i = 0; i < turns; i++) {
    messages.push(
      new AIMessage({ content: "", tool_calls: [{ id: `c${i}`, name: "read_file", args: { path: `src/m${i}.py` } }] }),
      new ToolMessage({ content: `def m${i}():\n${"    pass  # code\n".repeat(120)}`, tool_call_id: `c${i}` }),
      new AIMessage(`Ported src/m${i}.py.`),
      new HumanMessage(`Next: module ${i + 1}.`),
    );
  }
  return messages;
}

const tokensOf = (messages) => measureChain(messages, { format: "langchain" }).total.tokens;

describe("contextfold/langchain: the createAgent middleware", () => {
  it("compacts the agent's messages before the model call and keeps the result in the state", async () => {
    const maxTokens = 3000;
    let seen;
    const spy = createMiddleware({
      name: "Spy",
      wrapModelCall: async (request, handler) => {
        seen = request.messages;
        return handler(request);
      },
    });
    const agent = createAgent({
      model: new FakeListChatModel({ responses: ["On it."] }),
      tools: [],
      middleware: [contextfoldMiddleware({ maxTokens }), spy],
    });
    const input = thread(20);
    const result = await agent.invoke({ messages: input });
    assert.ok(tokensOf(seen) <= maxTokens, `the model got ${tokensOf(seen)} tokens`);
    assert.ok(
      seen.every((m) => isBaseMessage(m)),
      "LangChain messages, summaries revived",
    );
    assert.ok(JSON.stringify(seen).includes("Automated Context Restoration"), "the summary");
    assert.ok(JSON.stringify(seen).includes("Port every module to Rust."), "the first request");
    // The state holds the compacted thread plus the answer.
    assert.ok(result.messages.length < input.length, `${result.messages.length} messages`);
    assert.equal(result.messages.at(-1).content, "On it.");
  });

  it("reads the blocks provider integrations return: ChatAnthropic's tool_use, redacted thinking", async () => {
    // @langchain/anthropic returns a tool call as a `tool_use` block beside `tool_calls`:
    // every function rejected it (invalid_shape), so an Anthropic agent failed at step 2.
    const anthropicTurn = (i) =>
      new AIMessage({
        content: [
          { type: "redacted_thinking", data: `EmwKAhgB${i}` },
          { type: "text", text: `Reading src/m${i}.py.` },
          { type: "tool_use", id: `toolu_${i}`, name: "read_file", input: { path: `src/m${i}.py` } },
        ],
        tool_calls: [{ id: `toolu_${i}`, name: "read_file", args: { path: `src/m${i}.py` } }],
      });
    const messages = [new HumanMessage("Port every module to Rust.")];
    for (let i = 0; i < 12; i++) {
      messages.push(
        anthropicTurn(i),
        new ToolMessage({ content: `def m${i}():\n${"    pass  # code\n".repeat(120)}`, tool_call_id: `toolu_${i}` }),
        new AIMessage(`Ported src/m${i}.py.`),
        new HumanMessage(`Next: module ${i + 1}.`),
      );
    }
    const { validateChain, compact } = await import("contextfold");
    assert.deepEqual(validateChain(messages, { format: "langchain" }), []);
    const roomy = await compact(messages, { maxTokens: 1_000_000, format: "langchain" });
    assert.equal(roomy.changed, false);
    const maxTokens = Math.floor(tokensOf(messages) / 3);
    const tight = await compact(messages, { maxTokens, format: "langchain" });
    assert.ok(tight.changed && tokensOf(tight.messages) <= maxTokens);
    assert.deepEqual(validateChain(tight.messages, { format: "langchain" }), []);
    // What is kept is the caller's own.
    assert.ok(tight.messages.slice(-2).every((m, i) => m === messages[messages.length - 2 + i]));
  });

  it("counts the agent's system prompt in the budget, from the first call on", async () => {
    const maxTokens = 4000;
    const systemPrompt = `You port Python to Rust. House rules:\n${"- keep every public name as it is\n".repeat(330)}`;
    const system = tokensOf([new SystemMessage(systemPrompt)]);
    assert.ok(system > 2900, `${system} tokens of system prompt`);
    const seen = [];
    const spy = createMiddleware({
      name: "Spy",
      wrapModelCall: async (request, handler) => {
        seen.push(tokensOf([request.systemMessage, ...request.messages]));
        return handler(request);
      },
    });
    const agent = createAgent({
      model: new FakeListChatModel({ responses: ["On it."] }),
      tools: [],
      systemPrompt,
      middleware: [contextfoldMiddleware({ maxTokens }), spy],
    });
    const first = await agent.invoke({ messages: thread(20) });
    // The second run of the thread: the state compaction counts the prompt too.
    const second = await agent.invoke({ messages: [...first.messages, new HumanMessage("And the tests?")] });
    assert.equal(seen.length, 2);
    for (const tokens of seen) assert.ok(tokens <= maxTokens, `the model got ${tokens} tokens with the system prompt`);
    assert.ok(AIMessage.isInstance(second.messages.at(-1)));
    // The prompt is the agent's: never in the state.
    assert.ok(second.messages.every((m) => !SystemMessage.isInstance(m)));
  });

  it("kept neighbours of one role stay the caller's own messages after a fold", async () => {
    // A ChatMessage with role assistant then an AIMessage: `window` and `auto` merged the
    // two into one ChatMessage when both were kept (the AIMessage, its id, gone).
    const filler = (i) => `answer ${i}: ${"the details of the answer go on for a while ".repeat(12)}`;
    const messages = [];
    for (let i = 0; i < 10; i++) {
      messages.push(
        new HumanMessage(`question ${i}`),
        new ChatMessage({ role: "assistant", content: filler(i) }),
        new AIMessage({ content: `more ${i}`, id: `ai-${i}` }),
      );
    }
    const { compact } = await import("contextfold");
    for (const strategy of ["window", "auto", "sections", "budget", "tiers"]) {
      const result = await compact(messages, {
        format: "langchain",
        maxTokens: 700,
        strategy: folding(strategy),
        summarizer: async () => "S",
      });
      assert.ok(result.changed, strategy);
      const last = result.messages.at(-1);
      assert.equal(last, messages.at(-1), `${strategy}: the last AIMessage is the caller's`);
      // Every message that holds a kept answer is the caller's instance, in order.
      const kept = result.messages.filter((m) => messages.includes(m));
      assert.deepEqual(
        kept.map((m) => messages.indexOf(m)),
        kept.map((m) => messages.indexOf(m)).sort((a, b) => a - b),
        strategy,
      );
      assert.ok(!JSON.stringify(result.messages.filter((m) => !messages.includes(m))).includes("more 9"), strategy);
    }
  });

  it("counts each conversation's own system prompt, and never puts a prompt in the state", async () => {
    // The last prompt seen was one for every thread: a user's small thread was folded, or
    // refused (budget_exceeded), after another user's run with a large prompt; and a
    // prompt the compaction repaired (an empty text block dropped) was copied into the state.
    const big = "Customer profile and the long policy document of this account. ".repeat(450);
    let summaries = 0;
    const agent = createAgent({
      model: new FakeListChatModel({ responses: ["Sure: the order ships tomorrow, tracked. ".repeat(8)] }),
      tools: [],
      middleware: [
        dynamicSystemPromptMiddleware((_state, runtime) =>
          runtime.context?.user === "A"
            ? big
            : new SystemMessage({
                content: [
                  { type: "text", text: "Short." },
                  { type: "text", text: "" },
                ],
              }),
        ),
        contextfoldMiddleware({
          maxTokens: 5000,
          summarizer: async () => {
            summaries++;
            return "Summary.";
          },
        }),
      ],
      checkpointer: new MemorySaver(),
    });
    const ask = (user, text) =>
      agent.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: user }, context: { user } });
    let b;
    for (let i = 0; i < 6; i++) b = await ask("B", `Question ${i} about my order.`);
    await ask("A", "Hello");
    const before = summaries;
    b = await ask("B", "Question 6 about my order.");
    assert.equal(summaries, before, "thread B, far under the budget, was not folded");
    assert.equal(b.messages.length, 14);
    assert.ok(
      b.messages.every((m) => !SystemMessage.isInstance(m)),
      "no prompt in the state",
    );
  });

  it("reads messages built with contentBlocks, and a system message made a user one is a HumanMessage", async () => {
    const { compact, needsCompaction, repairChain, validateChain } = await import("contextfold");
    // toJSON() writes them as content_blocks, with no content: every function refused them.
    const picture = new HumanMessage({
      contentBlocks: [
        { type: "text", text: "What is in this picture?" },
        { type: "image", url: "https://example.com/cat.png" },
      ],
    });
    assert.deepEqual(validateChain([picture]), []);
    assert.equal(needsCompaction([picture], { maxTokens: 100_000 }), false);
    const agent = createAgent({
      model: new FakeListChatModel({ responses: ["A cat."] }),
      tools: [],
      middleware: [contextfoldMiddleware({ maxTokens: 100_000 })],
    });
    assert.equal((await agent.invoke({ messages: [picture] })).messages.at(-1).content, "A cat.");
    // Rewritten (merged with the summary), still the blocks it held.
    const filler = (i) => `answer ${i}: ${"the details of the answer go on for a while ".repeat(12)}`;
    const chain = [];
    for (let i = 0; i < 8; i++) {
      chain.push(
        new HumanMessage({
          contentBlocks: [
            { type: "text", text: `question ${i}` },
            { type: "image", url: "https://x/c.png" },
          ],
        }),
        new AIMessage(filler(i)),
      );
    }
    const folded = await compact(chain, {
      format: "langchain",
      strategy: "window",
      maxTokens: 700,
      summarizer: async () => "S",
    });
    assert.match(
      JSON.stringify(folded.messages[0].content),
      /question 0.*https:\/\/x\/c\.png.*Automated Context Restoration/,
    );
    // A system message in the middle, made a user message by the repair: a HumanMessage.
    const messages = [
      new SystemMessage("Be helpful."),
      new HumanMessage("q1"),
      new AIMessage("a1"),
      new SystemMessage("Now premium."),
    ];
    messages.push(new HumanMessage("q2"));
    for (const input of [messages, JSON.parse(JSON.stringify(messages))]) {
      const repaired = repairChain(input);
      assert.deepEqual(validateChain(repaired.messages), []);
      const third = repaired.messages[3];
      assert.ok(HumanMessage.isInstance(third) || third.id?.at(-1) === "HumanMessage", JSON.stringify(third));
    }
  });

  it("cancelling the run cancels its summary calls", async () => {
    const history = [new HumanMessage("Port every module.")];
    for (let i = 0; i < 12; i++) {
      history.push(
        new AIMessage({ content: "", tool_calls: [{ id: `c${i}`, name: "read_file", args: { path: `f${i}` } }] }),
        new ToolMessage({ content: `f${i}\n${"    line of code\n".repeat(60)}`, tool_call_id: `c${i}` }),
        new AIMessage(`Ported f${i}.`),
        new HumanMessage(`Next: module ${i + 1}.`),
      );
    }
    let seen;
    const summarizer = (_request, { signal }) => {
      seen = signal;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve("summary"), 5000);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      });
    };
    const agent = createAgent({
      model: new FakeListChatModel({ responses: ["ok"] }),
      tools: [],
      middleware: [contextfoldMiddleware({ maxTokens: 2000, summarizer })],
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("user cancelled")), 100);
    await assert.rejects(agent.invoke({ messages: history }, { signal: controller.signal }));
    assert.equal(seen?.aborted, true, "the summarizer's signal aborted with the run");
  });

  it("an error's path is the culprit's index in the agent's messages, the prompt counted apart", async () => {
    const agent = createAgent({
      model: new FakeListChatModel({ responses: ["ok", "ok"] }),
      tools: [],
      systemPrompt: "You are a helpful assistant.",
      checkpointer: new MemorySaver(),
      middleware: [contextfoldMiddleware({ maxTokens: 100_000 })],
    });
    const config = { configurable: { thread_id: "paths" } };
    await agent.invoke({ messages: [new HumanMessage("hi")] }, config);
    // A tool output cut inside an emoji by `.slice()`: a lone surrogate.
    const cut = "weather: sunny \u{1F600}".slice(0, 16);
    const error = await agent
      .invoke(
        {
          messages: [
            new HumanMessage("weather?"),
            new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "weather", args: {} }] }),
            new ToolMessage({ content: cut, tool_call_id: "c1" }),
          ],
        },
        config,
      )
      .then(
        () => undefined,
        (e) => e,
      );
    const { messages } = (await agent.getState(config)).values;
    const culprit = messages.findIndex((m) => m.content === cut);
    assert.equal(error?.code, "invalid_text");
    assert.ok(error.path.startsWith(`[${culprit}]`), `${error.path}: the culprit is [${culprit}]`);
  });

  it("a thread within the budget is left as it is", async () => {
    const agent = createAgent({
      model: new FakeListChatModel({ responses: ["ok"] }),
      tools: [],
      middleware: [contextfoldMiddleware({ maxTokens: 100_000 })],
    });
    const input = thread(2);
    const result = await agent.invoke({ messages: input });
    assert.equal(result.messages.length, input.length + 1);
  });

  it("bad options are typed errors with their path", () => {
    assert.throws(() => contextfoldMiddleware({}), { code: "invalid_option", path: "options.maxTokens" });
    assert.throws(() => contextfoldMiddleware({ maxTokens: 1000, strategy: { name: "auto", keepLst: 2 } }), {
      code: "invalid_option",
      path: "options.strategy.keepLst",
    });
  });
});
