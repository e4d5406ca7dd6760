// Anthropic rules found by the probe of the built package with the real `@anthropic-ai/sdk`:
// each output is judged by the Messages API's rules (judges.mjs) and the SDK's types.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact, measureChain, needsCompaction, repairChain, validateChain } from "contextfold";
import { anthropicRules, TypeCollector } from "./judges.mjs";

const long = (s, n) => `${s} `.repeat(n);
const codes = (diagnostics) => diagnostics.map((d) => [d.code, d.path]);

/** Finished tasks with thinking on, each a few tool cycles and an answer, then a new request. */
function thinkingTasks(n) {
  const messages = [];
  for (let s = 0; s < n; s++) {
    messages.push({ role: "user", content: `Task ${s}: fix module ${s}.` });
    for (let i = 0; i < 3; i++) {
      const id = `toolu_${s}${i}`;
      messages.push(
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "t", signature: `S${s}${i}` },
            { type: "tool_use", id, name: "bash", input: { c: i } },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: long(`out ${s}.${i}`, 100) }] },
      );
    }
    messages.push({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "done", signature: `SD${s}` },
        { type: "text", text: `Task ${s} done.` },
      ],
    });
  }
  messages.push({ role: "user", content: `Task ${n}: now deploy.` });
  return messages;
}

describe("Anthropic rules (probe of the built package)", () => {
  it("sections with thinking enabled never ends in a summary pair's tool cycle, however many sections fold", async () => {
    const types = new TypeCollector("sdk-anthropic-thinking");
    for (const n of [1, 3]) {
      const request = {
        model: "claude-sonnet-4-5",
        max_tokens: 4096,
        thinking: { type: "enabled", budget_tokens: 2048 },
        messages: thinkingTasks(n),
      };
      const { messages, changed } = await compact(request, { strategy: "sections", maxTokens: 1500 });
      assert.ok(changed, `${n}`);
      assert.deepEqual(anthropicRules(messages), [], `${n} sections`);
      assert.deepEqual(validateChain(messages, { provider: "anthropic" }), [], `${n}`);
      types.add("anthropic", `${n} sections`, messages.messages);
    }
    // validateChain flags the shape the probe found, and repairChain mends it.
    const pair = (id, text) => [
      {
        role: "assistant",
        content: [{ type: "tool_use", id, name: "execute_task_and_return_summary", input: {} }],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: text }] },
    ];
    const broken = {
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      thinking: { type: "enabled", budget_tokens: 2048 },
      messages: [{ role: "user", content: "Task 0" }, ...pair("toolu_a", "summary a")],
    };
    broken.messages[2].content.push({ type: "text", text: "Task 1" });
    assert.equal(anthropicRules(broken).length, 1);
    assert.deepEqual(codes(validateChain(broken)), [["final_call_without_thinking", "messages[1]"]]);
    const repaired = repairChain(broken);
    assert.deepEqual(anthropicRules(repaired.messages), []);
    assert.ok(repaired.steps.some((s) => s.step === "summaryToUser"));
    types.add("anthropic", "repaired", repaired.messages.messages);
    assert.deepEqual(types.check(), []);
  });

  it("a document given as blocks counts its text, and text documents reach the summarizer with it", async () => {
    const big = "The quarterly report shows revenue growth in every region. ".repeat(2000);
    const asText = { type: "document", source: { type: "text", media_type: "text/plain", data: big }, title: "Report" };
    const asContent = { type: "document", source: { type: "content", content: [{ type: "text", text: big }] } };
    const tokens = (b) =>
      measureChain([{ role: "user", content: [b, { type: "text", text: "Summarize." }] }]).total.tokens;
    assert.ok(tokens(asContent) > tokens(asText) * 0.9, `${tokens(asContent)} against ${tokens(asText)}`);
    const chain = [];
    for (let i = 0; i < 4; i++)
      chain.push(
        { role: "user", content: [structuredClone(asContent), { type: "text", text: `Summarize report ${i}.` }] },
        { role: "assistant", content: `Report ${i}: revenue grew.` },
      );
    chain.push({ role: "user", content: "Compare them." });
    assert.ok(needsCompaction(chain, { maxTokens: 60000 }));
    const budget = await compact(chain, { strategy: "budget", maxTokens: 60000 });
    assert.ok(budget.changed && budget.report.after.tokens <= 60000);
    assert.deepEqual(anthropicRules(budget.messages), []);

    const pad = (s) => `${s} `.repeat(400);
    const contracts = [
      { role: "user", content: "Help me review our vendor contracts." },
      { role: "assistant", content: "Sure, send them." },
      {
        role: "user",
        content: [
          {
            type: "document",
            title: "acme.txt",
            source: { type: "text", media_type: "text/plain", data: "ACME: notice is 90 days." },
          },
          {
            type: "document",
            title: "globex",
            source: { type: "content", content: [{ type: "text", text: "Globex renews on 2026-03-01." }] },
          },
          { type: "text", text: "Here are the contracts." },
        ],
      },
      { role: "assistant", content: pad("Noted, reviewing the contracts") },
      { role: "user", content: pad("Also consider the appendix") },
      { role: "assistant", content: pad("The appendix changes nothing") },
      { role: "user", content: "Which notice period is the longest?" },
    ];
    let transcript = "";
    const summarizer = async (request) => {
      transcript += request.transcript;
      return "## Current state\n- reviewing contracts";
    };
    const { changed, messages } = await compact(contracts, { maxTokens: 900, summarizer });
    assert.ok(changed);
    assert.match(transcript, /<document mime="text\/plain" name="acme.txt">ACME: notice is 90 days.<\/document>/);
    assert.match(transcript, /<document name="globex">Globex renews on 2026-03-01.<\/document>/);
    const types = new TypeCollector("sdk-anthropic-documents");
    types.add("anthropic", "documents", messages);
    types.add("anthropic", "budget", budget.messages);
    assert.deepEqual(types.check(), []);
  });

  it("the Messages API's block rules are flagged by validateChain and mended by repairChain", () => {
    const cc = { type: "ephemeral" };
    const cases = {
      too_many_cache_breakpoints: {
        model: "claude-sonnet-4-5",
        max_tokens: 10,
        system: [{ type: "text", text: "s", cache_control: cc }],
        tools: [{ name: "t", input_schema: { type: "object" }, cache_control: cc }],
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "a", cache_control: cc },
              { type: "text", text: "b", cache_control: cc },
              { type: "text", text: "c", cache_control: cc },
            ],
          },
        ],
      },
      cache_control_on_thinking: [
        { role: "user", content: "q" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "x", signature: "S", cache_control: cc },
            { type: "text", text: "y" },
          ],
        },
        { role: "user", content: "z" },
      ],
      empty_text: [
        { role: "user", content: "run" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "touch", input: {} }] },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "" }] }],
        },
      ],
      orphan_server_result: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: [
            { type: "web_search_tool_result", tool_use_id: "srvtoolu_X", content: [] },
            { type: "text", text: "ok" },
          ],
        },
        { role: "user", content: "more" },
      ],
      ends_with_thinking: [
        { role: "user", content: "hi" },
        { role: "assistant", content: [{ type: "thinking", thinking: "hmm", signature: "S" }] },
        { role: "user", content: "hello?" },
      ],
    };
    const types = new TypeCollector("sdk-anthropic-blocks");
    for (const [code, input] of Object.entries(cases)) {
      assert.ok(anthropicRules(input).length > 0, `the judge sees ${code}`);
      assert.deepEqual(
        validateChain(input, { provider: "anthropic" }).map((d) => d.code),
        [code],
      );
      const { messages, changed, steps } = repairChain(input, { provider: "anthropic" });
      assert.ok(changed && steps.length > 0, code);
      assert.deepEqual(anthropicRules(messages), [], code);
      assert.deepEqual(validateChain(messages, { provider: "anthropic" }), [], code);
      types.add("anthropic", code, Array.isArray(messages) ? messages : messages.messages);
    }
    assert.deepEqual(types.check(), []);
  });

  it("a server tool's result kept while the message with its server_tool_use folds is never sent alone", async () => {
    const ptc = [
      { role: "user", content: "Query sales for each region." },
      {
        role: "assistant",
        content: [
          { type: "text", text: "I'll query." },
          { type: "server_tool_use", id: "srvtoolu_PTC", name: "code_execution", input: { code: "print(1)" } },
          {
            type: "tool_use",
            id: "toolu_PTC1",
            name: "query",
            input: { region: "west" },
            caller: { type: "code_execution_20250825", tool_id: "srvtoolu_PTC" },
          },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_PTC1", content: long("west: 100", 100) }] },
      {
        role: "assistant",
        content: [
          {
            type: "code_execution_tool_result",
            tool_use_id: "srvtoolu_PTC",
            content: { type: "code_execution_result", stdout: "100", stderr: "", return_code: 0, content: [] },
          },
          { type: "text", text: "West sold 100." },
        ],
      },
      { role: "user", content: "ok next" },
    ];
    const filler = Array.from({ length: 5 }, (_, i) => [
      { role: "user", content: `q${i} ${long("w", 150)}` },
      { role: "assistant", content: `a${i} ${long("r", 150)}` },
    ]).flat();
    const paused = [
      ...filler,
      { role: "user", content: "search rust news" },
      {
        role: "assistant",
        content: [{ type: "server_tool_use", id: "srvtoolu_P", name: "web_search", input: { query: "rust" } }],
      },
      {
        role: "assistant",
        content: [
          {
            type: "web_search_tool_result",
            tool_use_id: "srvtoolu_P",
            content: [{ type: "web_search_result", url: "https://e.com", title: "E", encrypted_content: "ENC" }],
          },
          { type: "text", text: "Found it." },
        ],
      },
      { role: "user", content: "thanks, more?" },
    ];
    for (const [chain, strategy, maxTokens] of [
      [ptc, "auto", 400],
      [ptc, "budget", 400],
      [paused, "auto", 1000],
    ]) {
      const { messages, changed } = await compact(structuredClone(chain), { strategy, maxTokens });
      assert.ok(changed, strategy);
      // The judge merges nothing: the two assistant messages of a paused turn are one on the wire.
      assert.deepEqual(anthropicRules(messages, { alternation: false }), [], `${strategy} ${maxTokens}`);
      assert.deepEqual(validateChain(messages, { provider: "anthropic" }), [], strategy);
    }
  });
});
