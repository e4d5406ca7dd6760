// OpenAI Responses reasoning through LangChain, judged by @langchain/openai's own converters
// (what ChatOpenAI does with the Responses API): it keeps a reasoning item whole in
// `additional_kwargs.reasoning` and sends it back from there (with `zdrEnabled`, only when
// it has its `encrypted_content`). `convert` reads that item, and writes one there.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clearReasoning, compact, convert } from "contextfold";
import { HumanMessage, ToolMessage, mapStoredMessagesToChatMessages } from "@langchain/core/messages";
import { convertMessagesToResponsesInput, convertResponsesMessageToAIMessage } from "@langchain/openai";

const rs1 = {
  type: "reasoning",
  id: "rs_1",
  encrypted_content: "gAAAAENC1",
  summary: [{ type: "summary_text", text: "Need to read f." }],
};
const fc1 = {
  type: "function_call",
  id: "fc_1",
  call_id: "call_1",
  name: "read",
  arguments: '{"path":"f"}',
  status: "completed",
};
const rs2 = { type: "reasoning", id: "rs_2", encrypted_content: "gAAAAENC2", summary: [] };
const msg2 = {
  type: "message",
  id: "msg_2",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text: "f says hi", annotations: [] }],
};
const response = (id, output) => ({
  id,
  object: "response",
  created_at: 1700000000,
  model: "gpt-5",
  status: "completed",
  output,
  usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
});

/** The Responses input ChatOpenAI (`zdrEnabled`) sends for LangChain messages. */
const wire = (messages) => convertMessagesToResponsesInput({ messages, zdrEnabled: true, model: "gpt-5" });
const reasoningOf = (items) => items.filter((it) => it.type === "reasoning");

describe("OpenAI reasoning through LangChain", () => {
  it("ChatOpenAI's history converts to the Responses API with its reasoning items whole", () => {
    const history = [
      new HumanMessage("Read f."),
      convertResponsesMessageToAIMessage(response("resp_0", [rs1, fc1])),
      new ToolMessage({ tool_call_id: "call_1", content: "hi" }),
      convertResponsesMessageToAIMessage(response("resp_1", [rs2, msg2])),
    ];
    assert.deepEqual(reasoningOf(wire(history)), [rs1, rs2], "harness: ChatOpenAI sends its reasoning");
    const out = convert(history, { from: "langchain", to: "openai-responses" });
    assert.deepEqual(reasoningOf(out.messages), [rs1, rs2]);
    assert.deepEqual(
      out.changes.filter((c) => c.change === "droppedReasoning" || c.change === "droppedSignature"),
      [],
    );
  });

  it("Responses reasoning converted to LangChain is what ChatOpenAI sends back", () => {
    const input = [
      { role: "user", content: "Read f." },
      rs1,
      fc1,
      { type: "function_call_output", call_id: "call_1", output: "hi" },
      rs2,
      msg2,
    ];
    const toLc = convert(structuredClone(input), { from: "openai-responses", to: "langchain" });
    const revived = mapStoredMessagesToChatMessages(toLc.messages);
    assert.deepEqual(reasoningOf(wire([...revived, new HumanMessage("Thanks.")])), [rs1, rs2]);
  });

  it("a round trip langchain -> openai-responses -> langchain keeps what ChatOpenAI sends", () => {
    const history = [
      new HumanMessage("Read f."),
      convertResponsesMessageToAIMessage(response("resp_0", [rs1, fc1])),
      new ToolMessage({ tool_call_id: "call_1", content: "hi" }),
      convertResponsesMessageToAIMessage(response("resp_1", [rs2, msg2])),
    ];
    const there = convert(history, { from: "langchain", to: "openai-responses" });
    const back = convert(there.messages, { from: "openai-responses", to: "langchain" });
    assert.deepEqual(reasoningOf(wire(mapStoredMessagesToChatMessages(back.messages))), [rs1, rs2]);
  });
});

// ChatOpenAI (no ZDR) sends an AI message's `response_metadata.output` back verbatim when it
// has one: an edit contextfold makes to that message must not be undone by it.
describe("ChatOpenAI's replayed response output", () => {
  const sent = (messages) => convertMessagesToResponsesInput({ messages, zdrEnabled: false, model: "gpt-5" });

  it("clearReasoning: the reasoning item is no longer sent, nor the call ids it vouched for", () => {
    const chain = [
      new HumanMessage("Read f."),
      convertResponsesMessageToAIMessage(response("resp_0", [rs1, fc1])),
      new ToolMessage({ tool_call_id: "call_1", content: "hi" }),
      new HumanMessage("Thanks."),
    ];
    assert.equal(reasoningOf(sent(chain)).length, 1, "harness: ChatOpenAI replays the output");
    const r = clearReasoning(chain, { format: "langchain" });
    assert.equal(r.removed, 1);
    assert.deepEqual(r.droppedIds, ["fc_1"]);
    const items = sent(r.messages);
    assert.deepEqual(reasoningOf(items), []);
    assert.ok(!JSON.stringify(items).includes("gAAAAENC1"));
    const call = items.find((it) => it.type === "function_call");
    assert.deepEqual(
      [call.call_id, call.name, JSON.parse(call.arguments), call.id],
      ["call_1", "read", { path: "f" }, undefined],
    );
  });

  it("compact's masked arguments are what ChatOpenAI sends", async () => {
    const big = "x".repeat(4000);
    const write = { ...fc1, name: "write", arguments: JSON.stringify({ path: "f", content: big }) };
    const chain = [
      new HumanMessage("Write f."),
      convertResponsesMessageToAIMessage(response("resp_0", [rs1, write])),
      new ToolMessage({ tool_call_id: "call_1", content: "written ".repeat(200) }),
      new HumanMessage("Now read g."),
      convertResponsesMessageToAIMessage(response("resp_1", [rs2, msg2])),
      new HumanMessage("Thanks."),
    ];
    const r = await compact(chain, {
      format: "langchain",
      strategy: { name: "mask", keepLast: 0, maskArguments: true },
      provider: "openai-responses",
    });
    const ai = r.messages[1];
    assert.ok(!JSON.stringify(ai.tool_calls).includes(big), "harness: the arguments were masked");
    const call = sent(r.messages).find((it) => it.type === "function_call");
    assert.deepEqual(JSON.parse(call.arguments), ai.tool_calls[0].args);
    assert.deepEqual(reasoningOf(sent(r.messages)), [rs1, rs2], "the reasoning still goes");
  });
});
