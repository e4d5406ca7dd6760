// History keeps its conversation in wasm (crates/contextfold/src/session.rs): a push
// reads only the pushed message, and the trigger answers as the stateless
// `needsCompaction` on the whole chain does, for every strategy and format.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { convert, History, measureChain, needsCompaction, validateChain } from "contextfold";
import { openaiSections } from "../shared/chains.mjs";
import { root } from "./helpers.mjs";

const demo = JSON.parse(readFileSync(join(root, "examples/demo-session.openai.json"), "utf8"));

/** The demo session as a message array in `format` (the system prompt in the array). */
function demoIn(format) {
  if (format === "openai") return demo;
  const messages = demo.filter((m) => m.role !== "system");
  return convert(messages, { from: "openai", to: format }).messages;
}

const strategies = [
  { maxTokens: 12_000 },
  { strategy: "budget", maxTokens: 20_000 },
  { strategy: { name: "mask", keepLast: 2 }, maxTokens: 30_000 },
  { strategy: { name: "sections", lastSecBytes: 8192, maxBpBytes: 2048 } },
  { strategy: { name: "window", window: 30 }, maxTokens: 30_000 },
  { strategy: { name: "tiers", auto: true, autoThreshold: 40 } },
];

/** Whether an OpenAI chain's last assistant message has a call no later tool message answers. */
function waitsForResults(chain) {
  let at = chain.length - 1;
  while (at >= 0 && chain[at].role === "tool") at--;
  const turn = chain[at];
  if (turn?.role !== "assistant" || !turn.tool_calls?.length) return false;
  const answered = new Set(chain.slice(at + 1).map((m) => m.tool_call_id));
  return turn.tool_calls.some((c) => !answered.has(c.id));
}

describe("History: the conversation held in wasm", () => {
  for (const format of ["openai", "anthropic", "openai-responses", "aisdk"]) {
    it(`fires on exactly the pushes where needsCompaction does (${format}, every strategy)`, async () => {
      const messages = demoIn(format);
      for (const options of strategies) {
        const history = new History({ auto: false, options });
        let fired = 0;
        for (const [i, message] of messages.entries()) {
          await history.push(message);
          const expected = needsCompaction(messages.slice(0, i + 1), options);
          assert.equal(history.needsCompaction(), expected, `${JSON.stringify(options)} after message ${i}`);
          fired += expected ? 1 : 0;
        }
        assert.ok(fired > 0, `${JSON.stringify(options)} never fires: the check proves nothing`);
      }
    });
  }

  it("fires under the budget where compact's repair pass mends the chain, once a request is due", async () => {
    // A whitespace-only text block before a tool_use: Anthropic rejects it, compact drops
    // it. The history's trigger never fired for it (it checked only the budget).
    const chain = [
      { role: "user", content: "hello" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "\n\n" },
          { type: "tool_use", id: "toolu_01", name: "ls", input: { path: "." } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "a.txt" }] },
      { role: "assistant", content: "one file" },
    ];
    const options = { format: "anthropic", maxTokens: 100_000 };
    assert.equal(needsCompaction(chain.slice(0, 3), options), true, "the stateless check fires");
    const held = new History({ auto: false, options });
    for (const message of chain.slice(0, 3)) await held.push(message);
    assert.equal(held.needsCompaction(), true, "the history's trigger agrees with needsCompaction");
    const history = new History({ options });
    const results = [];
    for (const message of chain) results.push(await history.push(message));
    // Not while the call waits for its result: the push of the result (the next request
    // is due) mends it.
    assert.deepEqual(
      results.map((r) => r?.changed ?? false),
      [false, false, true, false],
    );
    assert.deepEqual(validateChain(history.messages(), { format: "anthropic" }), []);
    assert.equal(history.messages()[1].content.length, 1, "only the blank text block went");
  });

  it("an answer pushed empty and streamed into is not mended away before it is filled", async () => {
    // A chat UI pushes the assistant's message as its stream starts: `compact` would drop
    // it as empty; the trigger waits for the next request.
    const history = new History({ options: { maxTokens: 100_000 } });
    await history.push({ role: "user", content: "hi" });
    const streaming = { role: "assistant", content: "" };
    assert.equal(await history.push(streaming), null);
    streaming.content = "hello there";
    await history.push({ role: "user", content: "thanks" });
    assert.deepEqual(
      history.messages().map((m) => m.content),
      ["hi", "hello there", "thanks"],
    );
  });

  it("a push hands only the pushed message to the token counter", async () => {
    const counted = [];
    const tokenCounter = (texts) => {
      counted.push(texts.length);
      return texts.map((t) => Math.ceil(t.length / 4));
    };
    const history = new History({ auto: false, options: { maxTokens: 1_000_000, tokenCounter } });
    for (const message of demo.slice(0, 40)) {
      counted.length = 0;
      await history.push(message);
      history.needsCompaction();
      const texts = counted.reduce((a, b) => a + b, 0);
      const own = measureChain([message], { format: "openai" }).messages.reduce((n, m) => n + m.texts.length, 0);
      // The first push reads the chain (one message); later ones only their message.
      assert.ok(texts <= own, `message ${history.length - 1}: ${texts} texts counted for ${own} of its own`);
    }
  });

  it("auto compacts on the push that crosses the budget, then follows the compacted chain", async () => {
    let calls = 0;
    const summarizer = async () => {
      calls++;
      return "## Summary\n- the work so far.";
    };
    const history = new History({ options: { maxTokens: 8000, summarizer } });
    let waited = 0;
    for (const message of demo) {
      const chain = [...history.messages(), message];
      // A turn whose calls wait for results compacts once the last has come.
      const waits = waitsForResults(chain);
      const crossing = measureChain(chain, { format: "openai" }).total.tokens > 8000 && !waits;
      if (waits && measureChain(chain, { format: "openai" }).total.tokens > 8000) waited++;
      const result = await history.push(message);
      assert.equal(result !== null, crossing);
      assert.equal(history.needsCompaction(), needsCompaction(history.messages(), { maxTokens: 8000 }));
    }
    assert.ok(calls >= 1);
    assert.ok(waited >= 1, "some push over the budget left a turn waiting");
  });

  // (Anthropic sends all results of a turn in one user message: they come together.)
  for (const format of ["openai", "openai-responses"]) {
    it(`parallel tool results pushed one at a time never get a made-up answer (${format})`, async () => {
      // A compaction between two results of one turn leaves the turn's other call open:
      // its real result, pushed next, is then the only one.
      const filler = (n) => "lorem ipsum dolor sit amet ".repeat(n);
      const chat = [];
      for (let t = 0; t < 6; t++) {
        chat.push(
          { role: "user", content: `q${t} ${filler(40)}` },
          { role: "assistant", content: `a${t} ${filler(40)}` },
        );
      }
      chat.push({ role: "user", content: "Read both files." });
      chat.push({
        role: "assistant",
        content: null,
        tool_calls: ["call_a", "call_b"].map((id) => ({
          id,
          type: "function",
          function: { name: "read", arguments: "{}" },
        })),
      });
      chat.push({ role: "tool", tool_call_id: "call_a", content: filler(60) });
      chat.push({ role: "tool", tool_call_id: "call_b", content: filler(60) });
      const messages = format === "openai" ? chat : convert(chat, { from: "openai", to: format }).messages;
      const history = new History({ options: { maxTokens: 1500, format } });
      let compactions = 0;
      for (const [i, message] of messages.entries()) {
        if ((await history.push(message)) !== null) compactions++;
        // Right after the first result, the turn is in flight: no result for call_b yet.
        if (i === messages.length - 2) {
          const [last] = history.messages().slice(-1);
          assert.doesNotMatch(JSON.stringify(history.messages()), /not handled/, "a made-up result");
          assert.ok(JSON.stringify(last).includes("call_a"), "the first result is last");
        }
      }
      assert.ok(compactions >= 1, "the budget was crossed");
      assert.deepEqual(validateChain(history.messages(), { format }), []);
      const text = JSON.stringify(history.messages());
      assert.equal(text.split("call_b").length - 1, 2, "call_b: one call, one result");
    });
  }

  it("a summary longer than asked still brings the chain to the fold target, so turns only append", async () => {
    // LLMs overshoot byte targets: an answer twice as long was cut to the whole budget, the
    // chain stayed at it and the next push folded again (41 compactions in 60 pushes).
    const filler = (n) => "lorem ipsum dolor sit amet ".repeat(Math.ceil(n / 27)).slice(0, n);
    const maxTokens = 3000;
    for (const overshoot of [1, 2, 4]) {
      let calls = 0;
      const summarizer = async (r) => {
        calls++;
        return `## User requests\n${"word ".repeat(Math.ceil((overshoot * r.targetBytes) / 5))}`;
      };
      const history = new History({ options: { maxTokens, summarizer } });
      const after = [];
      const cuts = [];
      for (let i = 0; i < 30; i++) {
        for (const m of [
          { role: "user", content: `Request ${i}: ${filler(400)}` },
          { role: "assistant", content: `Answer ${i}: ${filler(1200)}` },
        ]) {
          const r = await history.push(m);
          if (!r?.changed) continue;
          after.push(r.report.after.tokens);
          cuts.push(r.report.sections.flatMap((s) => s.actions).some((a) => a.action === "truncated"));
        }
      }
      assert.ok(after.length > 0 && after.length <= 8, `${overshoot}x: ${after.length} compactions in 60 pushes`);
      assert.equal(calls, after.length, `${overshoot}x: one summarizer call per compaction`);
      for (const tokens of after) assert.ok(tokens <= maxTokens * 0.7, `${overshoot}x: ${tokens} tokens after a fold`);
      // Cut (and said so) where it came back too long.
      if (overshoot > 1) assert.ok(cuts.every(Boolean), `${overshoot}x: the cut is reported`);
    }
  });

  it("a message filled in after its push (a streamed answer) is counted as it is now", async () => {
    // The session read the answer when it was pushed, empty: the trigger never fired and
    // every later request went over the budget.
    for (const format of ["openai", "aisdk-ui"]) {
      const maxTokens = 3000;
      const history = new History({ options: { maxTokens, summarizer: async () => "## User requests\nsummary" } });
      const said = (role, text, i) =>
        format === "openai" ? { role, content: text } : { id: `m${i}`, role, parts: [{ type: "text", text }] };
      let n = 0;
      for (let i = 0; i < 3; i++) {
        await history.push(said("user", `question ${i} ${"lorem ipsum ".repeat(60)}`, n++));
        await history.push(said("assistant", `answer ${i} ${"dolor sit ".repeat(60)}`, n++));
      }
      await history.push(said("user", "Write the whole module.", n++));
      const streaming = said("assistant", "", n++);
      await history.push(streaming);
      const grow = (text) => {
        if (format === "openai") streaming.content += text;
        else streaming.parts[0].text += text;
      };
      for (let k = 0; k < 1500; k++) grow("code code ");
      const sent = () => measureChain(history.messages()).total.tokens;
      assert.ok(sent() > maxTokens, format);
      assert.equal(history.needsCompaction(), true, `${format}: the trigger sees the answer as it is now`);
      // The next push compacts: every request after it is within the budget.
      for (let i = 0; i < 3; i++) {
        await history.push(said("user", `follow-up ${i}`, n++));
        assert.ok(sent() <= maxTokens, `${format}: ${sent()} tokens after follow-up ${i}`);
        await history.push(said("assistant", "ok", n++));
      }
    }
  });

  it("a compaction with its own budget asked for while one runs runs after it, with that budget", async () => {
    // It was handed the run under way, its override silently dropped.
    const filler = (n) => "lorem ipsum dolor sit amet ".repeat(Math.ceil(n / 27)).slice(0, n);
    let release;
    const gate = new Promise((r) => {
      release = r;
    });
    const summarizer = async () => {
      await gate;
      return "## User requests\n- asked";
    };
    const messages = [];
    for (let i = 0; i < 12; i++)
      messages.push({ role: "user", content: `q${i} ${filler(300)}` }, { role: "assistant", content: filler(900) });
    const history = new History({ messages, auto: false, options: { maxTokens: 3000, summarizer } });
    const first = history.compact();
    const second = history.compact({ maxTokens: 1200 });
    const shared = history.compact();
    release();
    const [a, b, c] = await Promise.all([first, second, shared]);
    assert.equal(c, a, "calls without settings share the run");
    assert.ok(a.report.after.tokens <= 3000);
    assert.ok(b.report.after.tokens <= 1200, `${b.report.after.tokens} tokens for the 1200 asked for`);
    assert.ok(measureChain(history.messages()).total.tokens <= 1200);
  });

  it("messages pushed while a compaction runs are compacted once it is done, when over the budget", async () => {
    // A slow summarizer, and the conversation going on meanwhile (results streaming in):
    // the history must not be left over its budget until some later push.
    const chain = openaiSections(40);
    const maxTokens = Math.floor(measureChain(chain, { format: "openai" }).total.tokens / 6);
    let calls = 0;
    const summarizer = async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 30));
      return "## Summary\n- the work so far.";
    };
    const history = new History({ options: { maxTokens, summarizer } });
    const pushes = [];
    for (const message of chain) {
      pushes.push(history.push(message));
      // Messages keep coming while a compaction is under way.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(pushes);
    assert.ok(calls >= 2, `${calls} summary calls`);
    assert.equal(history.needsCompaction(), false, "within the budget once the pushes settled");
    assert.equal(history.length <= chain.length, true);
    assert.deepEqual(validateChain(history.messages(), { format: "openai" }), []);
  });

  it("a History outlives a panic reset of the module: its session is read again", () => {
    const script = `
      import * as api from "contextfold";
      import * as internal from ${JSON.stringify(new URL("../../pkg/dist/internal.node.js", import.meta.url).href)};
      const history = new api.History({ auto: false, options: { maxTokens: 50 } });
      await history.push({ role: "user", content: "hi" });
      try { internal.__contextfoldPanicForTests(); } catch {}
      console.log(history.needsCompaction());
      await history.push({ role: "assistant", content: "a reply long enough to take the chain over fifty tokens, ".repeat(4) });
      console.log(history.needsCompaction(), api.needsCompaction(history.messages(), { maxTokens: 50 }));
    `;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 20_000,
    });
    assert.equal(child.stdout.trim(), "false\ntrue true", child.stderr);
  });

  it("a message no format reads leaves the stateless check to answer, with its error", async () => {
    const history = new History({ options: { maxTokens: 100 } });
    await history.push({ role: "user", content: "hi" });
    await assert.rejects(history.push({ role: "user", content: 5 }), (e) => {
      assert.equal(e.name, "ContextfoldError");
      assert.equal(e.code, "unknown_format");
      assert.equal(e.path, "[1]");
      return true;
    });
    assert.equal(history.length, 2);
  });
});
