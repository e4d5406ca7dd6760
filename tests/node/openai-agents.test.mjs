// `contextfold/openai-agents` with the real OpenAI Agents SDK core (`@openai/agents-core`):
// an agent runs turn after turn with a tool, its session wrapped by `contextfoldSession`;
// the model (a scripted one: no network) checks every input it gets the way the Responses
// API would, and the session stays within its budget with the kept items untouched.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Agent, MemorySession, protocol, run, setTracingDisabled, tool, Usage } from "@openai/agents-core";
import { compactAgentItems, contextfoldSession } from "contextfold/openai-agents";

setTracingDisabled(true);

const LOG = (n) => `log ${n}: ${"warning: the cache key ignores the lockfile ".repeat(60)}`;

/** A model that calls `read_log` once per turn, then answers; it records what it was sent. */
function scriptedModel() {
  const inputs = [];
  let n = 0;
  return {
    inputs,
    async getResponse(request) {
      inputs.push(request.input);
      n++;
      const output =
        n % 2 === 1
          ? [
              {
                type: "reasoning",
                id: `rs_${n}`,
                content: [{ type: "input_text", text: `I should read log ${n}.` }],
                providerData: { encryptedContent: `enc_${n}` },
              },
              { type: "function_call", callId: `call_${n}`, name: "read_log", arguments: JSON.stringify({ n }) },
            ]
          : [
              {
                type: "message",
                id: `msg_${n}`,
                role: "assistant",
                status: "completed",
                content: [{ type: "output_text", text: `Log ${n - 1} shows the stale cache key.` }],
              },
            ];
      return { usage: new Usage(), output, responseId: `resp_${n}` };
    },
    async *getStreamedResponse() {
      yield* [];
      throw new Error("not used");
    },
  };
}

/** What the API rejects in an input: results without their call, calls without results. */
function problems(items) {
  const out = [];
  const calls = new Set();
  const answered = new Set();
  items.forEach((item, i) => {
    if (item.type === "function_call") calls.add(item.callId);
    if (item.type === "function_call_result") {
      if (!calls.has(item.callId)) out.push(`[${i}]: result ${item.callId} without its call`);
      answered.add(item.callId);
    }
    if (item.type === "reasoning" && items[i + 1]?.type !== "function_call" && items[i + 1]?.role !== "assistant") {
      out.push(`[${i}]: reasoning without the item after it`);
    }
  });
  for (const id of calls) if (!answered.has(id)) out.push(`call ${id} unanswered`);
  return out;
}

const readLog = tool({
  name: "read_log",
  description: "Reads a build log.",
  parameters: { type: "object", properties: { n: { type: "number" } }, required: ["n"], additionalProperties: false },
  strict: true,
  execute: async ({ n }) => LOG(n),
});

describe("contextfold/openai-agents with @openai/agents-core", () => {
  it("an agent's session stays within budget over many turns; every model input is valid", async () => {
    const model = scriptedModel();
    const agent = new Agent({ name: "builder", instructions: "Be brief.", model, tools: [readLog] });
    const inner = new MemorySession();
    const session = contextfoldSession(inner, { maxTokens: 3000 });
    for (let turn = 0; turn < 12; turn++) {
      const result = await run(agent, `Task ${turn}: why does build ${turn} fail?`, { session });
      assert.match(String(result.finalOutput), /stale cache key/);
    }
    const items = await inner.getItems();
    // Within the budget: compacting again changes nothing.
    assert.equal((await compactAgentItems(items, { maxTokens: 3000 })).changed, false);
    assert.ok(items.length < 12 * 5, `${items.length} items kept`);
    for (const input of model.inputs) assert.deepEqual(problems(input), []);
    // The latest turn is there as it came, reasoning and all, and earlier turns live on in the summary.
    assert.equal(items.at(-1).content[0].text, "Log 23 shows the stale cache key.");
    const reasoning = items.filter((i) => i.type === "reasoning");
    assert.ok(reasoning.every((r) => r.providerData?.encryptedContent?.startsWith("enc_")));
    assert.match(JSON.stringify(items), /Task 0: why does build 0 fail\?/);
  });

  it("compactAgentItems gives back kept items as the very objects they were", async () => {
    const model = scriptedModel();
    const agent = new Agent({ name: "builder", model, tools: [readLog] });
    const inner = new MemorySession();
    for (let turn = 0; turn < 8; turn++) await run(agent, `Task ${turn}`, { session: inner });
    const history = await inner.getItems();
    const originals = new Set(history);
    // Masking is enough at 4000 tokens: old tool outputs are replaced, every other item is
    // the session's own object.
    const masked = await compactAgentItems(history, { maxTokens: 4000 });
    assert.ok(masked.changed);
    assert.equal(masked.items.length, history.length);
    const replaced = masked.items.filter((i) => !originals.has(i));
    assert.ok(replaced.length > 0);
    for (const item of replaced) {
      assert.equal(item.type, "function_call_result");
      assert.equal(item.name, "read_log");
      assert.equal(item.output.type, "text");
      assert.ok(item.output.text.length < LOG(0).length);
    }
    assert.deepEqual(problems(masked.items), []);
    // At 2500 the older turns fold into a summary; the latest answer is the session's own.
    const folded = await compactAgentItems(history, { maxTokens: 2500 });
    assert.ok(folded.changed && folded.report.after.tokens < folded.report.before.tokens);
    assert.ok(folded.items.length < history.length);
    assert.equal(folded.items.at(-1), history.at(-1));
    assert.match(JSON.stringify(folded.items), /Task 7/);
    assert.deepEqual(problems(folded.items), []);
  });

  it("passes the session's own optional methods and the run context on", async () => {
    // The wrapper hid them: the runner then skipped the session's rewriting of items
    // for the model (provider replay metadata sent back) and its run context.
    class StoreSession extends MemorySession {
      acceptsRunContext = true;
      prepared = 0;
      contexts = 0;
      prepareHistoryItemForModelInput(item) {
        this.prepared++;
        return item;
      }
      async getItems(limit, context) {
        if (context !== undefined) this.contexts++;
        return super.getItems(limit);
      }
    }
    const inner = new StoreSession();
    const session = contextfoldSession(inner, { maxTokens: 3000 });
    assert.equal(session.acceptsRunContext, true);
    const agent = new Agent({ name: "builder", model: scriptedModel(), tools: [readLog] });
    for (let turn = 0; turn < 3; turn++) await run(agent, `Task ${turn}`, { session });
    assert.ok(inner.prepared > 0, "prepareHistoryItemForModelInput was called");
    assert.ok(inner.contexts > 0, "the run context reached the session");
    // A session without them is offered none.
    assert.equal(
      "prepareHistoryItemForModelInput" in contextfoldSession(new MemorySession(), { maxTokens: 3000 }),
      false,
    );
  });

  it("masks built-in tool outputs in their own item type, and answers a call left open", async () => {
    // A masked shell output came back as the original (the core's item still said which
    // one it was): the budget was never met and the session rewrote the same history
    // every turn. A shell or patch call left open made compaction throw `internal`.
    const big = (n) => Array.from({ length: 200 }, (_, i) => `shard ${n} line ${i}: value ${i * 13}`).join("\n");
    const items = [{ type: "message", role: "user", content: "Run the suite shard by shard." }];
    items.push(
      {
        type: "apply_patch_call",
        callId: "p_open",
        status: "completed",
        operation: { type: "delete_file", path: "a" },
      },
      { type: "shell_call", callId: "s_open", status: "completed", action: { commands: ["rm -rf build"] } },
      { type: "message", role: "user", content: "Never mind." },
    );
    for (let i = 0; i < 6; i++) {
      const outcome = { type: "exit", exitCode: i };
      items.push(
        { type: "shell_call", id: `sh_${i}`, callId: `s_${i}`, status: "completed", action: { commands: [`t ${i}`] } },
        {
          type: "shell_call_output",
          id: `sho_${i}`,
          callId: `s_${i}`,
          output: [{ stdout: big(i), stderr: "", outcome }],
        },
        {
          type: "apply_patch_call",
          callId: `p_${i}`,
          status: "completed",
          operation: { type: "delete_file", path: `f${i}` },
        },
        {
          type: "apply_patch_call_output",
          callId: `p_${i}`,
          status: "completed",
          output: big(i),
          providerData: { n: i },
        },
        { type: "message", role: "user", content: `Next ${i + 1}.` },
      );
    }
    const originals = new Set(items);
    const r = await compactAgentItems(items, { strategy: "mask", maxTokens: 3000 });
    assert.ok(r.changed);
    for (const item of r.items) protocol.ModelItem.parse(item);
    const changed = r.items.filter((i) => !originals.has(i));
    const masked = changed.filter((i) => i.callId.match(/^[sp]_\d$/));
    assert.ok(
      masked.some((i) => i.type === "shell_call_output") && masked.some((i) => i.type === "apply_patch_call_output"),
    );
    for (const item of masked) {
      const original = items.find((i) => i.type === item.type && i.callId === item.callId);
      // The original's own fields stay; only its output is the core's.
      assert.equal(item.id, original.id);
      assert.deepEqual(item.providerData, original.providerData);
      const text = item.type === "shell_call_output" ? item.output[0].stdout : item.output;
      assert.ok(text.length < big(0).length / 10, text);
      if (item.type === "shell_call_output") assert.deepEqual(item.output[0].outcome, original.output[0].outcome);
    }
    // Reported as done: what comes back is what the report measured.
    assert.ok(JSON.stringify(r.items).length < JSON.stringify(items).length / 2);
    // The calls left open are answered, in the SDK's own shape, right after them.
    const shell = r.items.findIndex((i) => i.callId === "s_open" && i.type === "shell_call_output");
    const patch = r.items.findIndex((i) => i.callId === "p_open" && i.type === "apply_patch_call_output");
    assert.ok(shell > 0 && patch > 0, JSON.stringify(r.items.map((i) => i.type)));
    assert.equal(r.items[shell].output[0].outcome.type, "exit");
    assert.equal(typeof r.items[shell].output[0].outcome.exitCode, "number");
    assert.equal(r.items[patch].status, "failed");
    // Unchanged items are the caller's own objects.
    assert.equal(r.items.at(-1), items.at(-1));
    assert.ok(r.items.filter((i) => i.type === "shell_call").every((i) => originals.has(i)));
  });

  it("measures a computer call's screenshots by their area", async () => {
    // 1280x800 PNGs (their IHDR) as @openai/agents-core writes a computer call's result.
    const ihdr = Buffer.from("89504e470d0a1a0a0000000d4948445200000500000003200802000000", "hex");
    const shot = (i) => `data:image/png;base64,${Buffer.concat([ihdr, Buffer.alloc(2000, i)]).toString("base64")}`;
    const items = [{ type: "message", role: "user", content: "Book a flight." }];
    for (let i = 0; i < 40; i++) {
      const action = { type: "click", x: i, y: i, button: "left" };
      items.push(
        { type: "computer_call", id: `cu_${i}`, callId: `cc_${i}`, status: "completed", action },
        { type: "computer_call_result", callId: `cc_${i}`, output: { type: "computer_screenshot", data: shot(i) } },
      );
    }
    for (const item of items) protocol.ModelItem.parse(item);
    // About 1,400 tokens each: 40 are over 20,000; their base64 alone is not.
    const r = await compactAgentItems(items, { maxTokens: 20_000 });
    assert.ok(r.report.before.tokens > 40_000, `${r.report.before.tokens} tokens`);
    assert.ok(r.changed && r.report.after.tokens <= 20_000);
    const originals = new Set(items);
    for (const item of r.items.filter((i) => i.type?.startsWith("computer_call"))) assert.ok(originals.has(item));
  });

  it("shows a summarizer a generated image as one, not its base64", async () => {
    const ihdr = Buffer.from("89504e470d0a1a0a0000000d4948445200000500000003200802000000", "hex");
    // Generated images (`hosted_tool_call`s as the SDK stores them): a summarizer reads
    // that an image was made, not its base64; one kept comes back as it was.
    const image = (n) => ({
      type: "hosted_tool_call",
      id: `ig_${n}`,
      name: "image_generation_call",
      status: "completed",
      output: Buffer.concat([ihdr, Buffer.alloc(3000, n)]).toString("base64"),
      providerData: { type: "image_generation_call" },
    });
    const said = (text) => ({
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text }],
    });
    const history = [
      { type: "message", role: "user", content: "Draw a cat." },
      image(1),
      said("A cat."),
      { type: "message", role: "user", content: "Now a dog." },
      said("Dog. ".repeat(1600)),
      { type: "message", role: "user", content: "Another cat." },
      image(2),
      said("Cat 2."),
      { type: "message", role: "user", content: "And a bird." },
    ];
    for (const item of history) protocol.ModelItem.parse(item);
    const prompts = [];
    const summarizer = async (request) => {
      prompts.push(request.prompt);
      return "## User requests\n- Draw a cat, then a dog.";
    };
    const folded = await compactAgentItems(history, { maxTokens: 3000, summarizer });
    assert.ok(folded.changed && prompts.length > 0);
    assert.doesNotMatch(prompts.join("\n"), /[A-Za-z0-9+/]{200,}/);
    assert.match(prompts.join("\n"), /image generated/);
    assert.ok(!folded.items.some((i) => i.id === "ig_1"));
    assert.ok(folded.items.includes(history[6]));
  });

  it("rejects options without a budget and sessions without the interface", () => {
    assert.throws(() => contextfoldSession(new MemorySession(), {}), { code: "invalid_option" });
    assert.throws(() => contextfoldSession({}, { maxTokens: 100 }), { code: "invalid_option", path: "session" });
    assert.throws(() => contextfoldSession(new MemorySession(), { maxTokens: 100, stratgy: "auto" }), {
      code: "invalid_option",
    });
  });
});
