// Bugs the reliability suite found, each as its minimal reproducer: fixed, and kept here
// so that they stay fixed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact, needsCompaction } from "contextfold";
import { planned, render, text } from "./arbitraries.mjs";

describe("regressions", () => {
  it("sections: a pair whose kept thinking makes every summary as large as itself is sent to the summarizer on every run", async () => {
    const chain = [
      { role: "user", content: "t" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "x".repeat(300), signature: "xxxxxxxx" },
          { type: "tool_use", id: "call_0", name: "xxxxxxxxx", input: { path: "xx", n: 0 } },
          { type: "tool_use", id: "call_1", name: "xxxxxxxxx", input: { path: "xxxx", n: 0 } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_1", content: "x".repeat(76) },
          { type: "tool_result", tool_use_id: "call_0", content: "x".repeat(42) },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "t" }] },
    ];
    const options = { strategy: "sections", maxTokens: 202 };
    let calls = 0;
    const result = await compact(chain, { ...options, summarizer: async () => (calls++, "Summary 0 (pair).") });
    // Every call ends in noGain and nothing changes, so a caller compacting again (or a
    // History with auto on) pays for the same discarded calls forever.
    assert.equal(result.changed, false);
    assert.equal(calls, 0, `made ${calls} summary call(s) whose answers were all discarded`);
    assert.equal(needsCompaction(chain, options), false);
  });

  it("sections (Gemini): the summary pairs of a chain it made fit measure larger once read back, and the next run summarizes again", async () => {
    // The Gemini writer gives each summary result its call's name, which the size counted:
    // the chain read back was 30 bytes per summary pair over what the first run measured.
    const long = text(2000, 0);
    const call = (id, result) => ({ name: "read_file", args: { path: "a.rs", n: 0 }, result, isError: false, id });
    const model = {
      system: null,
      sections: [
        {
          user: long.slice(0, 125),
          steps: [
            {
              text: null,
              reasoning: null,
              calls: [call("call_0", long.slice(0, 443)), call("call_1", "chain token chain summary the src/m39.rs")],
            },
            { text: null, reasoning: null, calls: [call("call_2", long), call("call_3", long.slice(0, 13))] },
            { text: null, reasoning: null, calls: [call("call_4", long)] },
          ],
          answer: long,
        },
      ],
      breakage: null,
    };
    const options = { strategy: "sections", maxTokens: 200, onError: "rollback" };
    const kinds = [];
    const summarizer = async (request) => (kinds.push(request.kind), "ok");
    const first = await compact(render(model, "gemini"), { ...options, summarizer });
    assert.ok(first.changed && kinds.length > 0);
    kinds.length = 0;
    // What the caller stores and sends with the next request: the JSON of the output.
    const again = await compact(JSON.parse(JSON.stringify(first.messages)), { ...options, summarizer });
    assert.deepEqual(kinds, [], `the second run made ${kinds.length} call(s)`);
    assert.equal(again.report.before.bytes, first.report.after.bytes);
  });

  it("sections / tiers: consecutive user messages of a valid chain are merged although there is nothing to compact", async () => {
    // Valid for OpenAI (validateChain says so): a user may send two messages in a row.
    const chain = [
      { role: "user", content: "first question" },
      { role: "assistant", content: "answer" },
      { role: "user", content: "second" },
      { role: "user", content: "third" },
      { role: "assistant", content: "answer 2" },
    ];
    for (const strategy of ["sections", "tiers"]) {
      let calls = 0;
      const result = await compact(chain, { strategy, maxTokens: 100000, summarizer: async () => (calls++, "S.") });
      assert.equal(calls, 0);
      assert.equal(
        result.changed,
        false,
        `${strategy}: merged the user messages: ${JSON.stringify(result.messages[2])}`,
      );
      assert.equal(result.messages, chain);
    }
  });

  // Found by the invariant 6 assertion of properties.test.mjs (kept messages are the
  // caller's own objects): each came back as a copy.
  const big = "result line ".repeat(400);
  const windowed = { strategy: { name: "window", messageThresholdBytes: 64 } };

  it("reuse: Gemini { systemInstruction, contents } kept messages came back as copies", async () => {
    const input = {
      systemInstruction: { parts: [{ text: "sys" }] },
      contents: [
        { role: "user", parts: [{ text: "read it" }] },
        {
          role: "model",
          parts: [
            {
              functionCall: { id: "c1", name: "read", args: { p: 1 } },
              thoughtSignature: "skip_thought_signature_validator",
            },
          ],
        },
        { role: "user", parts: [{ functionResponse: { id: "c1", name: "read", response: { output: big } } }] },
        { role: "model", parts: [{ text: "done" }] },
      ],
    };
    const result = await compact(input, { ...windowed, summarizer: planned(["ok"]) });
    assert.equal(result.changed, true);
    assert.equal(result.format, "gemini");
    assert.equal(result.messages.contents[0], input.contents[0], "the kept user message is a copy");
    assert.equal(result.messages.contents.at(-1), input.contents.at(-1), "the kept last message is a copy");
  });

  it("reuse: a kept message the writer emits with its keys in another order came back as a copy", async () => {
    // The fingerprint hashed keys in order while equality ignored order.
    const input = [
      { role: "user", content: "read it" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{}" } }],
        reasoning_content: "think",
      },
      { role: "tool", tool_call_id: "c1", content: big },
      { role: "assistant", content: "done" },
    ];
    const result = await compact(input, { ...windowed, summarizer: planned(["ok"]) });
    assert.equal(result.changed, true);
    assert.equal(result.messages[1], input[1], "the kept assistant message is a copy");
  });

  it("reuse: an Anthropic array that gains a condensed system prompt lost every kept object", async () => {
    const input = [
      { role: "user", content: text(3000, 0) },
      { role: "assistant", content: [{ type: "text", text: text(3000, 1) }] },
      { role: "user", content: "q2" },
      { role: "assistant", content: [{ type: "text", text: "a2" }] },
    ];
    const result = await compact(input, {
      strategy: "budget",
      maxTokens: 300,
      format: "anthropic",
      summarizer: planned(["ok"]),
    });
    assert.equal(result.changed, true);
    const list = Array.isArray(result.messages) ? result.messages : result.messages.messages;
    assert.equal(list.at(-1), input.at(-1), "the kept last message is a copy");
  });

  it("tiers (recent: 1, Anthropic): the kept latest message came back merged into the summary", async () => {
    const input = [
      { role: "user", content: text(400, 0) },
      { role: "assistant", content: [{ type: "text", text: "the src/m0.rs" }] },
      { role: "user", content: "the src/m0.rs" },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "call_0", name: "read_file", input: { path: "a.rs", n: 0 } }],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_0", content: "the src/m0.rs" }] },
      { role: "assistant", content: [{ type: "text", text: "done" }] },
    ];
    const result = await compact(input, {
      strategy: { name: "tiers", recent: 1, minSummarizeBytes: 0, auto: false },
      summarizer: planned(["ok"]),
    });
    assert.equal(result.changed, true);
    assert.equal(result.messages.at(-1), input.at(-1), "the kept latest message was changed");
  });

  it("budget: a good summary of a 16-byte chunk failed the whole compaction (summarizer_failed)", async () => {
    // Found by the needsCompaction property: the chunk was the short answer left over
    // when a large section was split; its 18-byte summary counted as no gain.
    const call = (n) => ({ name: "read_file", args: { path: "a.rs", n: 0 }, result: text(n, 0), isError: false });
    const model = {
      system: null,
      breakage: null,
      sections: [
        {
          user: text(1988, 0),
          steps: [{ text: null, reasoning: null, calls: [call(6040), call(1)] }],
          answer: text(4, 308),
        },
        { user: text(113, 0), steps: [], answer: text(1431, 0) },
        { user: text(1988, 0), steps: [], answer: text(970, 0) },
      ],
    };
    const summarizer = planned(["ok"]);
    const result = await compact(render(model, "native"), { strategy: "budget", maxTokens: 2046, summarizer });
    assert.ok(result.report.after.tokens <= 2046);
    for (const r of summarizer.requests)
      assert.ok(r.transcript.length >= 512, `a ${r.transcript.length}-byte transcript was sent`);
  });

  it("auto: a budget larger than one it met failed (the first request kept, no room left for the summary)", async () => {
    const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    const image = { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } };
    const chains = [
      [
        { role: "system", content: "be brief" },
        { role: "user", content: [{ type: "text", text: "look at this" }, image] },
        { role: "assistant", content: `ok ${"details ".repeat(40)}` },
        { role: "user", content: "second" },
        { role: "assistant", content: `fine ${"more ".repeat(40)}` },
        { role: "user", content: "third" },
        { role: "assistant", content: "done" },
      ],
      [
        { role: "user", content: `first request ${"context ".repeat(30)}` },
        ...Array.from({ length: 6 }, (_, i) => [
          { role: "assistant", content: `answer ${i} ${"words ".repeat(50)}` },
          { role: "user", content: `question ${i + 1}` },
        ]).flat(),
      ],
    ];
    // A Gemini agent loop whose only request is the first, with an image: kept verbatim as
    // the latest request, it made 800 fail where 711 tokens were enough.
    const contents = [
      { role: "user", parts: [{ text: "port the module" }, { inlineData: { mimeType: "image/png", data: PNG } }] },
    ];
    for (let s = 0; s < 8; s++) {
      contents.push(
        { role: "model", parts: [{ functionCall: { id: `a${s}`, name: "read_file", args: { path: `f${s}.py` } } }] },
        {
          role: "user",
          parts: [
            { functionResponse: { id: `a${s}`, name: "read_file", response: { output: `line ${s}\n`.repeat(90) } } },
          ],
        },
      );
    }
    chains.push({ model: "gemini-2.5-flash", contents, config: { systemInstruction: "sys" } });
    for (const [c, chain] of chains.entries()) {
      let met;
      for (let maxTokens = 40; maxTokens <= 1000; maxTokens += 10) {
        try {
          const result = await compact(chain, { maxTokens, summarizer: async () => "S" });
          assert.ok(result.report.after.tokens <= maxTokens);
          met ??= maxTokens;
        } catch (error) {
          assert.equal(error.code, "budget_exceeded");
          assert.equal(met, undefined, `chain ${c}: ${maxTokens} failed, ${met} was met: ${error.message}`);
        }
      }
    }
  });

  it("built-in summary: a masked command output's seal was given as the command's outcome", async () => {
    const filler = (i) =>
      `o step ${i}: ${"the build log shows the compiler resolving modules and linking objects; ".repeat(12)}`;
    const input = [{ role: "user", content: "build the project" }];
    for (let i = 0; i < 46; i++) {
      input.push(
        {
          type: "reasoning",
          id: `rs_${i}`,
          summary: [{ type: "summary_text", text: `thinking ${i}` }],
          encrypted_content: "gAAAA".padEnd(300, "x"),
        },
        {
          type: "function_call",
          id: `fc_${i}`,
          call_id: `call_${i}`,
          name: "run",
          arguments: `{"cmd":"make step${i}"}`,
          status: "completed",
        },
        { type: "function_call_output", call_id: `call_${i}`, output: filler(i) },
        {
          type: "message",
          id: `msg_${i}`,
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: `done ${i}`, annotations: [] }],
        },
        { role: "user", content: `next ${i}` },
      );
    }
    const result = await compact(input, {
      format: "openai-responses",
      strategy: { name: "auto", stable: true },
      maxTokens: 5000,
    });
    const summary = JSON.stringify(result.messages).match(/<state_snapshot>.*?<\/state_snapshot>/)?.[0] ?? "";
    assert.match(summary, /## Commands/);
    assert.doesNotMatch(summary, /→ \[cf:[0-9a-f]{8}\]/);
  });
});
