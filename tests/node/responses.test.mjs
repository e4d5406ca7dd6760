// The OpenAI Responses API (issue 19 item 3): its input items compacted through the
// package, and the Worker middleware in front of `/v1/responses`, driven by the real
// `openai` SDK client, whose request goes through the middleware to an upstream that
// checks the API's rules and answers as the API does.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import OpenAI from "openai";
import {
  clearReasoning,
  compact,
  convert,
  History,
  measureChain,
  needsCompaction,
  repairChain,
  validateChain,
} from "contextfold";
import { compactionMiddleware } from "contextfold/worker";
import { responsesItems, responsesProblems } from "../shared/chains.mjs";

const OPAQUE = new Set(["reasoning", "web_search_call", "shell_call"]);

/**
 * Every opaque or signed item of `after` is one of `before`, byte for byte; a shell output
 * is, or is its original with a placeholder as its text (masked in its own item type).
 */
function opaqueKept(before, after) {
  const originals = new Set(before.map((item) => JSON.stringify(item)));
  for (const item of after) {
    if (OPAQUE.has(item.type)) assert.ok(originals.has(JSON.stringify(item)), `changed: ${JSON.stringify(item)}`);
    if (item.type === "shell_call_output" && !originals.has(JSON.stringify(item))) {
      const original = before.find((o) => o.type === item.type && o.call_id === item.call_id);
      const [entry] = item.output;
      assert.match(entry.stdout, /^\[masked tool output\]/);
      const placeholder = {
        ...original,
        output: [{ stdout: entry.stdout, stderr: "", outcome: original.output[0].outcome }],
      };
      assert.deepEqual(item, placeholder);
    }
  }
}

describe("Responses input items", () => {
  const items = responsesItems(12);

  it("are detected, and convert to themselves unchanged", () => {
    assert.equal(measureChain(items).format, "openai-responses");
    assert.deepEqual(convert(items, { to: "openai-responses" }).messages, items);
    assert.deepEqual(validateChain(items), []);
    assert.deepEqual(responsesProblems(items), []);
  });

  it("compact into input the API accepts, opaque items unchanged, the newest turn whole", async () => {
    const total = measureChain(items).total.tokens;
    const { messages, report, changed } = await compact(items, { maxTokens: Math.floor(total / 2) });
    assert.ok(changed);
    assert.ok(report.after.tokens <= Math.floor(total / 2), `${report.after.tokens}`);
    assert.deepEqual(responsesProblems(messages, items), []);
    opaqueKept(items, messages);
    assert.deepEqual(messages.slice(-10), items.slice(-10));
    // Folded turns are summarized, not dropped: the summary names their requests.
    assert.match(JSON.stringify(messages), /Task 1: why does build 1 fail\?/);
  });

  for (const strategy of ["auto", "sections", "window", "tiers", "budget", "mask"]) {
    it(`${strategy}: every reasoning item kept is followed by the item it came with`, async () => {
      // A reasoning item is bound to its output (a function call, a message): placed
      // before a summary's call, the API refuses it.
      const total = measureChain(items).total.tokens;
      const { messages } = await compact(items, { strategy, maxTokens: Math.floor(total / 4) });
      assert.deepEqual(responsesProblems(messages, items), []);
    });
  }

  it("History takes items pushed one at a time and keeps them within budget and valid", async () => {
    const budget = Math.floor(measureChain(items).total.tokens / 2);
    const history = new History({ messages: items.slice(0, 20), options: { maxTokens: budget } });
    for (const item of items.slice(20)) await history.push(item);
    const kept = history.messages();
    assert.ok(measureChain(kept).total.tokens <= budget);
    assert.deepEqual(responsesProblems(kept), []);
    opaqueKept(items, kept);
    assert.deepEqual(kept.slice(-10), items.slice(-10));
  });

  it("a request `{instructions, input}` keeps its instructions and other fields", async () => {
    const request = { model: "gpt-5", instructions: "Be brief.", input: items, store: false };
    const { messages } = await compact(request, { maxTokens: 2000 });
    assert.equal(messages.instructions, "Be brief.");
    assert.equal(messages.model, "gpt-5");
    assert.equal(messages.store, false);
    assert.deepEqual(responsesProblems(messages.input), []);
  });
});

describe("Responses items the API rejects", () => {
  const reasoningItem = (id) => ({ type: "reasoning", id, summary: [], encrypted_content: `gAAAAAB${id}` });
  const answerItem = (id, text) => ({
    id,
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }],
  });
  const provider = "openai-responses";

  it("an interrupted computer call goes with the reasoning that led to it, in repair and every strategy", async () => {
    const items = [
      { role: "user", content: "Open the billing page." },
      reasoningItem("rs_1"),
      {
        type: "computer_call",
        id: "cu_1",
        call_id: "call_1",
        action: { type: "screenshot" },
        pending_safety_checks: [],
        status: "completed",
      },
      { role: "user", content: "Stop, open the settings page instead." },
    ];
    const { messages, steps } = repairChain(items, { provider });
    assert.deepEqual(messages, [items[0], items[3]]);
    assert.deepEqual(
      steps.map((s) => s.step),
      ["droppedUnansweredCall", "droppedOrphanReasoning"],
    );
    for (const strategy of ["auto", "sections", "window", "tiers", "budget", "mask"]) {
      const out = await compact(items, { strategy, maxTokens: 50 });
      assert.ok(!out.messages.some((m) => m.type === "reasoning"), `${strategy}: ${JSON.stringify(out.messages)}`);
    }
  });

  it("validateChain reports a reasoning item its turn ends with, and repairChain drops it", () => {
    for (const items of [
      [{ role: "user", content: "a" }, reasoningItem("rs_1")],
      [{ role: "user", content: "a" }, reasoningItem("rs_1"), { role: "user", content: "b" }],
    ]) {
      assert.deepEqual(
        validateChain(items, { provider }).map((d) => [d.code, d.path]),
        [["orphan_reasoning", "[1]"]],
      );
      const { messages, steps } = repairChain(items, { provider });
      assert.deepEqual(messages, [items[0], ...items.slice(2)]);
      assert.deepEqual(steps[0], { step: "droppedOrphanReasoning", index: 1, part: 0 });
      assert.deepEqual(validateChain(messages, { provider }), []);
    }
  });

  it("clearReasoning drops the ids of the items whose reasoning it removes", () => {
    const items = [
      { role: "user", content: "What is 6*7?" },
      reasoningItem("rs_1"),
      { type: "function_call", id: "fc_1", call_id: "call_1", name: "calc", arguments: "{}", status: "completed" },
      { type: "function_call_output", call_id: "call_1", output: "42" },
      reasoningItem("rs_2"),
      answerItem("msg_1", "It is 42."),
      { role: "user", content: "Thanks." },
    ];
    const { messages, droppedIds, removed } = clearReasoning(items);
    assert.equal(removed, 2);
    assert.deepEqual(droppedIds, ["fc_1", "msg_1"]);
    assert.deepEqual(messages, [
      items[0],
      { type: "function_call", call_id: "call_1", name: "calc", arguments: "{}", status: "completed" },
      items[3],
      { type: "message", role: "assistant", status: "completed", content: "It is 42." },
      items[6],
    ]);
    assert.deepEqual(clearReasoning([items[0], answerItem("msg_2", "Hi.")]).droppedIds, []);
  });

  it("a generated image counts by its area, is kept, and never reaches a summarizer as base64", async () => {
    // A 1024x1024 PNG header, then ~1.2 MB of filler: ~1.6 MB of base64.
    const header = Buffer.from("89504e470d0a1a0a0000000d49484452000004000000040008020000000000000000", "hex");
    const body = Buffer.alloc(1_200_000);
    for (let i = 0; i < body.length; i++) body[i] = (i * 2654435761) >>> 24;
    const image = Buffer.concat([header, body]).toString("base64");
    const items = [
      { role: "user", content: "Draw a cat in a spacesuit." },
      { type: "image_generation_call", id: "ig_1", status: "completed", result: image },
      answerItem("msg_1", "Here it is."),
      { role: "user", content: "Make it blue." },
      answerItem("msg_2", "A blue cat. ".repeat(400)),
      { role: "user", content: "Thanks." },
    ];
    const tokens = measureChain(items).total.tokens;
    assert.ok(tokens < 5_000, `${tokens}`);
    assert.equal(needsCompaction(items, { maxTokens: 100_000 }), false);
    const prompts = [];
    const summarizer = async ({ prompt }) => {
      prompts.push(prompt);
      return "## User requests\n- A cat in a spacesuit.";
    };
    await compact(items, { maxTokens: 2_000, summarizer });
    assert.ok(prompts.length > 0);
    assert.deepEqual(prompts.join("\n").match(/[A-Za-z0-9+/]{200,}/g), null);
  });

  it("a mid-chain developer message comes back as one through native", () => {
    const items = [
      { role: "developer", content: "You are a coding agent." },
      { role: "user", content: "Fix the build." },
      answerItem("msg_1", "Fixed."),
      { role: "developer", content: "From now on, answer in French." },
      { role: "user", content: "Thanks, what next?" },
    ];
    const native = convert(items, { from: "openai-responses", to: "native" });
    assert.deepEqual(native.changes, []);
    assert.deepEqual(convert(native.messages, { from: "native", to: "openai-responses" }).messages, items);
  });

  it("validateChain reports an item id given twice, and repairChain drops the later copy's", () => {
    const items = [
      { role: "user", content: "a" },
      reasoningItem("rs_1"),
      answerItem("msg_1", "x"),
      { role: "user", content: "b" },
      reasoningItem("rs_1"),
      answerItem("msg_1", "x"),
      { role: "user", content: "c" },
    ];
    assert.deepEqual(
      validateChain(items, { provider }).map((d) => d.code),
      ["duplicate_item_id", "duplicate_item_id"],
    );
    const { messages, steps } = repairChain(items, { provider });
    assert.deepEqual(steps, [
      { step: "droppedDuplicateItem", index: 3, part: 0, id: "rs_1" },
      { step: "droppedDuplicateItemId", index: 3, part: 1, id: "msg_1" },
    ]);
    assert.deepEqual(messages.slice(0, 4), items.slice(0, 4));
    assert.deepEqual(messages[4], { type: "message", role: "assistant", status: "completed", content: "x" });
    assert.deepEqual(validateChain(messages, { provider }), []);
  });
});

/** An upstream `/v1/responses` that rejects input breaking the API's rules, as the API does. */
function upstream() {
  const bodies = [];
  const fetch = async (request) => {
    const body = await request.json();
    bodies.push(body);
    const problems = Array.isArray(body.input) ? responsesProblems(body.input) : [];
    if (problems.length > 0) {
      return Response.json({ error: { type: "invalid_request_error", message: problems[0] } }, { status: 400 });
    }
    return Response.json({
      id: "resp_1",
      object: "response",
      created_at: 1,
      status: "completed",
      model: body.model,
      output: [
        {
          type: "message",
          id: "msg_out",
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: "The lock file.", annotations: [] }],
        },
      ],
      parallel_tool_calls: true,
      tool_choice: "auto",
      tools: [],
      usage: { input_tokens: 10, output_tokens: 3, total_tokens: 13 },
    });
  };
  return { fetch, bodies };
}

describe("the Worker middleware in front of /v1/responses, called by the openai SDK", () => {
  const items = responsesItems(12);
  const total = measureChain(items).total.tokens;

  function client(options) {
    const up = upstream();
    const handler = compactionMiddleware({ maxTokens: Math.floor(total / 3), namespace: "t", ...options })(up.fetch);
    const headers = [];
    const sdk = new OpenAI({
      apiKey: "sk-test",
      baseURL: "https://gateway.test/v1",
      maxRetries: 0,
      fetch: async (url, init) => {
        const response = await handler(new Request(url, init));
        headers.push(response.headers);
        return response;
      },
    });
    return { sdk, up, headers };
  }

  it("compacts the input, keeps every other field, and the SDK reads the answer", async () => {
    const { sdk, up, headers } = client();
    const response = await sdk.responses.create({
      model: "gpt-5",
      instructions: "Be brief.",
      input: items,
      store: false,
    });
    assert.equal(response.output_text, "The lock file.");
    const [sent] = up.bodies;
    assert.equal(sent.instructions, "Be brief.");
    assert.equal(sent.store, false);
    assert.ok(sent.input.length < items.length, `${sent.input.length} items`);
    opaqueKept(items, sent.input);
    assert.ok(
      Number(headers[0].get("x-contextfold-after-tokens")) < Number(headers[0].get("x-contextfold-before-tokens")),
    );
  });

  it("a request continuing a stored response is passed on untouched", async () => {
    const { sdk, up, headers } = client();
    await sdk.responses.create({ model: "gpt-5", previous_response_id: "resp_0", input: items });
    assert.deepEqual(up.bodies[0].input, items);
    assert.match(headers[0].get("x-contextfold-skipped"), /previous_response_id/);
  });

  it("a string input under the budget goes through as it came", async () => {
    const { sdk, up } = client();
    await sdk.responses.create({ model: "gpt-5", input: "Hello" });
    assert.equal(up.bodies[0].input, "Hello");
  });
});
