// compact through the BUILT package, with fake JS summarizers.
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { compact, extractiveSummarizer, measureChain, needsCompaction, parseChain, validateChain } from "contextfold";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { filler, openaiSections } from "../shared/chains.mjs";
import { fixtureFiles } from "./helpers.mjs";

/** A summarizer that answers `text` after `ms` and records its calls. */
function recording({ ms = 0, text = "Short summary." } = {}) {
  const calls = [];
  let inFlight = 0;
  const summarizer = async (request, context) => {
    calls.push({ request, context });
    inFlight++;
    summarizer.maxInFlight = Math.max(summarizer.maxInFlight, inFlight);
    try {
      if (ms > 0) await sleep(ms);
      return typeof text === "function" ? text(request) : text;
    } finally {
      inFlight--;
    }
  };
  summarizer.calls = calls;
  summarizer.maxInFlight = 0;
  return summarizer;
}

/** Awaits `promise`, asserts it rejects, and returns the reason. */
async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("expected a rejection");
}

const never = () => new Promise(() => {});

describe("compact", () => {
  it("compacts a multi-section OpenAI chain into a smaller, valid OpenAI chain", async () => {
    const input = openaiSections(5);
    const before = JSON.stringify(input);
    const summarizer = recording();
    const result = await compact(input, { strategy: "sections", summarizer });
    assert.equal(JSON.stringify(input), before, "the input is not mutated");
    assert.equal(result.format, "openai");
    assert.equal(result.changed, true);
    assert.ok(JSON.stringify(result.messages).length < before.length);
    const { report } = result;
    assert.equal(report.strategy, "sections");
    assert.ok(report.after.bytes < report.before.bytes);
    assert.equal(report.after.messages, result.messages.length);
    assert.equal(report.calls, 4, "every section but the last");
    assert.equal(report.waves, 1);
    assert.deepEqual(report.errors, []);
    assert.equal(report.rolledBack, false);
    assert.equal(report.cancelled, false);
    assert.deepEqual(
      report.sections.map((s) => [s.section, s.actions[0].action]),
      [0, 1, 2, 3].map((i) => [i, "sectionSummarized"]),
    );

    const parsed = parseChain(result.messages);
    assert.equal(parsed.format, "openai");
    assert.equal(parsed.outline.sections, 5);
    assert.equal(parsed.outline.summarizations, 4);
    assert.equal(parsed.outline.messages, result.messages.length);
    // The last section comes back whole.
    assert.equal(parsed.outline.sectionList[4].pairs.length, 2);
    // OpenAI in, OpenAI out: a summary is an assistant tool call answered by a tool message.
    assert.deepEqual(result.messages[0], input[0]);
    assert.equal(result.messages[2].tool_calls[0].function.name, "execute_task_and_return_summary");
    assert.equal(result.messages[3].role, "tool");
    assert.equal(result.messages[3].tool_call_id, result.messages[2].tool_calls[0].id);
    assert.equal(result.messages[3].content, "Short summary.");
  });

  it("keeps an OpenAI refusal and an audio reply: what the assistant said, never an empty message", async () => {
    const pad = (n) => "some earlier discussion text ".repeat(n);
    const chain = [
      { role: "system", content: "You are helpful." },
      { role: "user", content: `How do I pick a lock? ${pad(50)}` },
      { role: "assistant", content: null, refusal: "I can't help with that." },
      { role: "user", content: `Say hi in a voice message. ${pad(50)}` },
      { role: "assistant", content: null, audio: { id: "audio_abc123" } },
      { role: "user", content: `Thanks. ${pad(50)}` },
      { role: "assistant", content: `You're welcome. ${pad(50)}` },
      { role: "user", content: "next" },
    ];
    assert.deepEqual(validateChain(chain, { provider: "openai" }), []);
    for (const strategy of ["auto", "mask", "budget"]) {
      const fits = await compact(chain, { strategy, maxTokens: 100_000 });
      assert.equal(fits.changed, false, strategy);
      assert.ok(
        fits.messages.every((m, i) => m === chain[i]),
        `${strategy}: the caller's objects`,
      );
    }
    // Summarized, the refusal is what the summary reads of that turn.
    const requests = [];
    const summarizer = async (request) => {
      requests.push(request);
      return "Summary: the user asked for a lock-picking guide and a voice hello.";
    };
    const folded = await compact(chain, { maxTokens: 120, summarizer });
    assert.ok(folded.changed);
    assert.match(requests[0].transcript, /I can't help with that\./);
    assert.match(requests[0].transcript, /\[audio reply\]/);
    assert.deepEqual(validateChain(folded.messages, { provider: "openai" }), []);
  });

  it("accepts JSON text and an explicit format", async () => {
    const result = await compact(JSON.stringify(openaiSections(3)), {
      summarizer: recording(),
      format: "openai",
      strategy: "sections",
    });
    assert.equal(result.changed, true);
  });

  it("sends requests with kind, prompt, range and the context", async () => {
    const input = openaiSections(3);
    const summarizer = recording();
    await compact(input, { strategy: "sections", summarizer, timeoutMs: 5000 });
    assert.equal(summarizer.calls.length, 2);
    summarizer.calls.forEach(({ request, context }, i) => {
      assert.equal(request.id, i);
      assert.equal(request.kind, "section");
      assert.equal(request.section, i);
      assert.equal(request.wave, 0);
      assert.equal(request.timeoutMs, 5000);
      assert.equal(typeof request.prompt, "string");
      assert.ok(request.prompt.includes(`Task ${i}`), "the prompt carries the section's task");
      assert.equal(typeof request.instructions, "string");
      // The whole prompt is the instructions envelope, a blank line and the transcript.
      assert.equal(request.prompt, `<instructions>${request.instructions}</instructions>\n\n${request.transcript}`);
      assert.ok(request.instructions.length > 0 && request.transcript.length > 0);
      assert.ok(request.targetBytes > 0);
      // Section i starts at 1 + 4i (system first); its body follows the user message.
      assert.deepEqual(request.range, { start: 2 + 4 * i, end: 5 + 4 * i });
      // Each call has its own signal (issue 14: it aborts on timeout), not yet aborted.
      assert.deepEqual(Object.keys(context), ["signal"]);
      assert.ok(context.signal instanceof AbortSignal && !context.signal.aborted);
    });
  });

  it("keeps up to `concurrency` calls in flight", async () => {
    const sections = 9; // 8 section summaries in one wave
    for (const [concurrency, expected] of [
      [undefined, 4],
      [1, 1],
      [3, 3],
      [20, 8],
    ]) {
      const summarizer = recording({ ms: 20 });
      const result = await compact(openaiSections(sections), { strategy: "sections", summarizer, concurrency });
      assert.equal(result.report.calls, 8);
      assert.equal(summarizer.maxInFlight, expected, `concurrency ${concurrency}`);
    }
  });

  it("rolls back when a summary call rejects", async () => {
    const summarizer = async () => {
      throw new Error("model overloaded");
    };
    const result = await compact(openaiSections(4), { strategy: "sections", summarizer });
    assert.equal(result.changed, false);
    assert.equal(result.format, "openai");
    assert.equal(result.report.rolledBack, true);
    assert.equal(result.report.calls, 3);
    assert.equal(result.report.errors.length, 3);
    assert.deepEqual(result.report.after, result.report.before);
    for (const error of result.report.errors) {
      assert.equal(error.kind, "failed");
      assert.match(error.message, /model overloaded/);
    }
    assert.equal(result.messages.length, openaiSections(4).length);
  });

  it("turns a synchronous throw and a rejected non-Error into failures", async () => {
    for (const summarizer of [
      () => {
        throw new TypeError("sync boom");
      },
      () => Promise.reject("plain string"),
      () => Promise.reject(undefined),
    ]) {
      const result = await compact(openaiSections(2), { strategy: "sections", summarizer });
      assert.equal(result.changed, false);
      assert.equal(result.report.errors.length, 1);
      assert.equal(result.report.errors[0].kind, "failed");
    }
  });

  it('throws a ContextfoldError "summarizer_failed" with onError "throw"', async () => {
    const summarizer = () => Promise.reject(new Error("nope"));
    const error = await rejection(compact(openaiSections(3), { strategy: "sections", summarizer, onError: "throw" }));
    assert.ok(error instanceof Error);
    assert.equal(error.name, "ContextfoldError");
    assert.equal(error.code, "summarizer_failed");
    assert.equal(error.path, "options.summarizer");
    assert.ok(Array.isArray(error.errors));
    assert.equal(error.errors.length, 2);
    assert.deepEqual(
      error.errors.map((e) => [e.kind, e.request]),
      [
        ["failed", 0],
        ["failed", 1],
      ],
    );
    assert.match(error.message, /nope/);
  });

  it('keeps the successful summaries with onError "partial"', async () => {
    const summarizer = async (request) => {
      if (request.id === 0) throw new Error("first one fails");
      return "Short summary.";
    };
    const result = await compact(openaiSections(4), { strategy: "sections", summarizer, onError: "partial" });
    assert.equal(result.changed, true);
    assert.equal(result.report.rolledBack, false);
    assert.equal(result.report.errors.length, 1);
    const outline = parseChain(result.messages, { format: "openai" }).outline;
    assert.equal(outline.summarizations, 2);
  });

  it('reports a non-string answer as "invalidResult" and an empty one as "empty"', async () => {
    for (const [answer, kind] of [
      [42, "invalidResult"],
      [{ text: "summary" }, "invalidResult"],
      [null, "invalidResult"],
      ["", "empty"],
      ["   ", "empty"],
    ]) {
      const result = await compact(openaiSections(2), { strategy: "sections", summarizer: async () => answer });
      assert.equal(result.changed, false, JSON.stringify(answer));
      assert.deepEqual(
        result.report.errors.map((e) => e.kind),
        [kind],
      );
    }
  });

  it("accepts a summarizer that returns a plain string", async () => {
    const result = await compact(openaiSections(2), { strategy: "sections", summarizer: () => "Short summary." });
    assert.equal(result.changed, true);
  });

  it('ends a call that outlives timeoutMs with "timeout"', async () => {
    const started = performance.now();
    const result = await compact(openaiSections(3), { strategy: "sections", summarizer: never, timeoutMs: 50 });
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 1000, `took ${elapsed} ms`);
    assert.equal(result.changed, false);
    assert.equal(result.report.rolledBack, true);
    assert.deepEqual(
      result.report.errors.map((e) => e.kind),
      ["timeout", "timeout"],
    );
  });

  it("leaves no unhandled rejection when a timed-out call rejects later", async () => {
    const unhandled = [];
    const listener = (reason) => unhandled.push(reason);
    process.on("unhandledRejection", listener);
    try {
      const summarizer = async () => {
        await sleep(60);
        throw new Error("too late");
      };
      const result = await compact(openaiSections(2), { strategy: "sections", summarizer, timeoutMs: 10 });
      assert.deepEqual(
        result.report.errors.map((e) => e.kind),
        ["timeout"],
      );
      await sleep(100);
      assert.deepEqual(unhandled, []);
    } finally {
      process.off("unhandledRejection", listener);
    }
  });

  it("a fast answer beats the timeout", async () => {
    const result = await compact(openaiSections(3), {
      strategy: "sections",
      summarizer: recording({ ms: 5 }),
      timeoutMs: 2000,
    });
    assert.equal(result.changed, true);
    assert.deepEqual(result.report.errors, []);
  });

  it("cancels on AbortSignal mid-run and returns the original chain", async () => {
    const controller = new AbortController();
    const seen = [];
    const summarizer = (request, context) => {
      seen.push(context.signal);
      return never();
    };
    setTimeout(() => controller.abort(), 30);
    const started = performance.now();
    const result = await compact(openaiSections(3), { strategy: "sections", summarizer, signal: controller.signal });
    assert.ok(performance.now() - started < 1000);
    assert.equal(result.changed, false);
    assert.equal(result.report.cancelled, true);
    assert.equal(result.report.rolledBack, true);
    assert.ok(result.report.errors.every((e) => e.kind === "cancelled"));
    assert.equal(seen.length, 2);
    // Each call's own signal follows the caller's (issue 14: a per-call signal).
    assert.ok(
      seen.every((s) => s instanceof AbortSignal && s.aborted),
      "the summarizer's signals aborted",
    );
    assert.equal(getEventListeners(controller.signal, "abort").length, 0, "listener removed");
  });

  it("makes no call with an already aborted signal", async () => {
    const summarizer = recording();
    const result = await compact(openaiSections(3), { strategy: "sections", summarizer, signal: AbortSignal.abort() });
    assert.equal(summarizer.calls.length, 0);
    assert.equal(result.report.cancelled, true);
    assert.equal(result.changed, false);
  });

  it("removes its abort listener after a normal run", async () => {
    const controller = new AbortController();
    await compact(openaiSections(3), { strategy: "sections", summarizer: recording(), signal: controller.signal });
    assert.equal(getEventListeners(controller.signal, "abort").length, 0);
  });

  it("uses the built-in extractive summarizer when none is given", async () => {
    const chain = openaiSections(4);
    const maxTokens = Math.floor(measureChain(chain).total.tokens / 3);
    for (const options of [{ maxTokens }, { maxTokens, summarizer: extractiveSummarizer() }]) {
      const result = await compact(chain, options);
      assert.equal(result.changed, true);
      assert.equal(result.report.strategy, "auto", "the default strategy");
      assert.ok(result.report.after.tokens <= maxTokens, "within the budget");
      assert.equal(result.report.errors.length, 0);
      // The summary keeps what later turns need: the tasks and the files read, in the
      // schema's sections.
      const text = JSON.stringify(result.messages);
      assert.match(text, /## User requests/);
      assert.match(text, /Task 1: read file 1\./);
      assert.match(text, /f1\.txt: read/);
    }
  });

  it("the built-in summarizer summarizes the same whether it reads messages or transcripts", async () => {
    // Inside wasm it reads the messages of each request (no transcript is rendered);
    // wrapped in a JS function it gets each request's transcript, as any summarizer does.
    const builtin = extractiveSummarizer();
    const viaTranscript = (request) => builtin(request);
    const inputs = [
      ["synthetic", openaiSections(12)],
      ...fixtureFiles().map((file) => [basename(file), JSON.parse(readFileSync(file, "utf8"))]),
    ];
    let compared = 0;
    for (const [name, chain] of inputs) {
      const maxTokens = Math.max(500, Math.floor(measureChain(chain).total.tokens / 3));
      for (const strategy of ["auto", "sections", "window", "tiers", "budget"]) {
        // A budget the chain's fixed part exceeds fails both ways alike.
        const outcome = (options) => compact(chain, options).catch((e) => ({ code: e.code, message: e.message }));
        const inWasm = await outcome({ strategy, maxTokens });
        const fromJs = await outcome({ strategy, maxTokens, summarizer: viaTranscript });
        assert.deepEqual(fromJs, inWasm, `${name} / ${strategy}`);
        if (inWasm.report?.calls > 0) compared++;
      }
    }
    assert.ok(compared >= 5, `only ${compared} compactions called the summarizer`);
  });

  it("extractiveSummarizer() is a summarizer JS code can call directly", async () => {
    const summarize = extractiveSummarizer({ maxBytes: 256 });
    const summary = await summarize({
      transcript:
        '<tasks>\n<task id="0">\n<content>Fix the login bug in src/auth.ts please.</content>\n</task>\n</tasks>\n',
      targetBytes: 10_000,
    });
    assert.equal(typeof summary, "string");
    assert.match(summary, /Fix the login bug in src\/auth\.ts please\./);
    assert.ok(summary.length <= 256);
    await assert.rejects(summarize({}), /no transcript/);
    assert.throws(
      () => extractiveSummarizer({ maxBytes: 5 }),
      (e) => e.code === "invalid_option",
    );
  });

  it("rejects invalid options with invalid_option and the path", async () => {
    const summarizer = recording();
    const cases = [
      [{ summarizer: "not a function" }, "options.summarizer"],
      [{ summarizer, concurrency: "4" }, "options.concurrency"],
      [{ summarizer, concurrency: 0 }, "options.concurrency"],
      [{ summarizer, concurrency: 1.5 }, "options.concurrency"],
      [{ summarizer, timeoutMs: -1 }, "options.timeoutMs"],
      [{ summarizer, format: "gemini-ultra" }, "options.format"],
      [{ summarizer, format: 3 }, "options.format"],
      [{ summarizer, onError: "discard" }, "options.onError"],
      [{ summarizer, strategy: "windows" }, "options.strategy"],
      [{ summarizer, strategy: 7 }, "options.strategy"],
      [{ summarizer, strategy: { name: "sliding" } }, "options.strategy.name"],
      [{ summarizer, strategy: { name: "window", window: 0 } }, "options.strategy.window"],
      [
        { summarizer, strategy: { name: "window", thresholdTokens: 9, thresholdBytes: 9 } },
        "options.strategy.thresholdBytes",
      ],
      [{ summarizer, strategy: { name: "tiers", recent: "20" } }, "options.strategy.recent"],
      [{ summarizer, strategy: "budget" }, "options.maxTokens"],
      [{ summarizer, strategy: "budget", maxTokens: -1 }, "options.maxTokens"],
      [
        { summarizer, strategy: { name: "budget", summaryPercent: 120 }, maxBytes: 900 },
        "options.strategy.summaryPercent",
      ],
      [{ summarizer, tokenCounter: "tiktoken" }, "options.tokenCounter"],
      [{ summarizer, provider: "cohere" }, "options.provider"],
      [{ summarizer, strategy: { name: "sections", useQA: "yes" } }, "options.strategy.useQA"],
      [{ summarizer, strategy: { name: "sections", lastSecBytes: -5 } }, "options.strategy.lastSecBytes"],
      [{ summarizer, strategy: { name: "sections", keepQASections: 0 } }, "options.strategy.keepQASections"],
      [{ summarizer, signal: {} }, "options.signal"],
      ["fast please", "options"],
    ];
    for (const [options, path] of cases) {
      const error = await rejection(compact(openaiSections(2), options));
      assert.ok(error instanceof Error, path);
      assert.equal(error.name, "ContextfoldError");
      assert.equal(error.code, "invalid_option", `${JSON.stringify(options)}: ${error.message}`);
      assert.equal(error.path, path, `${JSON.stringify(options)}: ${error.message}`);
    }
    assert.equal(summarizer.calls.length, 0);
  });

  it("says a chain nested past the deepest it reads is that, where, whatever form it came in", async () => {
    let deep = "x";
    for (let i = 0; i < 200; i++) deep = { a: deep };
    const chain = [
      { role: "user", content: "hi", extra: deep },
      { role: "assistant", content: "ok" },
    ];
    for (const input of [chain, JSON.stringify(chain)]) {
      const error = await rejection(compact(input, { summarizer: recording(), maxTokens: 10 }));
      assert.equal(error.code, "invalid_json", error.message);
      assert.match(error.path, /^\[0\]\.extra(\.a)+$/, error.path);
      assert.match(error.message, /nested deeper than 127 levels, the most contextfold reads/, error.message);
    }
  });

  it("says what whole number an option takes, not the Rust type it is read into", async () => {
    for (const [options, path] of [
      [{ maxTokens: 2 ** 32 }, "options.maxTokens"],
      [{ maxTokens: 1.5 }, "options.maxTokens"],
      [{ concurrency: -1 }, "options.concurrency"],
      [{ strategy: { name: "tiers", recent: 2 ** 40 } }, "options.strategy.recent"],
      [{ strategy: { name: "mask", minBytes: 0.5 } }, "options.strategy.minBytes"],
    ]) {
      const error = await rejection(compact(openaiSections(2), { summarizer: recording(), ...options }));
      assert.equal(error.code, "invalid_option", error.message);
      assert.equal(error.path, path, error.message);
      assert.match(error.message, /expected a whole number from 0 to 4294967295$/, error.message);
      assert.doesNotMatch(error.message, /usize|u32|u64/, error.message);
    }
  });

  // Issue 14: unknown keys were ignored (a misspelt `maxToken` silently meant no budget);
  // now they are invalid_option errors naming the nearest known key.
  it("rejects unknown keys and accepts strategy settings", async () => {
    const result = await compact(openaiSections(3), {
      summarizer: recording(),
      strategy: { name: "sections", keepQASections: 2, minSummarizeBytes: 0 },
    });
    assert.equal(result.report.calls, 1, "only the first of three sections is summarized");
    for (const [options, path] of [
      [{ somethingElse: true }, "options.somethingElse"],
      [{ strategy: { name: "sections", futureKnob: 1 } }, "options.strategy.futureKnob"],
    ]) {
      const error = await rejection(
        compact(openaiSections(3), { strategy: "sections", summarizer: recording(), ...options }),
      );
      assert.equal(error.code, "invalid_option");
      assert.equal(error.path, path);
    }
  });

  it("keeps the code and path of bad input", async () => {
    const error = await rejection(
      compact([{ role: "user", parts: "not a list" }], {
        strategy: "sections",
        summarizer: recording(),
        format: "native",
      }),
    );
    assert.ok(error instanceof Error);
    assert.equal(error.code, "invalid_shape");
    assert.equal(error.path, "[0].parts");
    const json = await rejection(compact("[{", { strategy: "sections", summarizer: recording() }));
    assert.equal(json.name, "ContextfoldError");
  });

  it('"budget" with a keepRecent beyond the chain still condenses what does not fit', async () => {
    // Kept everything once (no summary call), then failed or dropped messages unsummarized.
    const chain = openaiSections(6);
    chain.push({ role: "user", content: "Now what?" });
    for (const keepRecent of [2, 50]) {
      const summarizer = recording({ text: "summary" });
      const strategy = { name: "budget", keepRecent };
      const result = await compact(chain, { maxTokens: 1000, strategy, summarizer });
      assert.ok(summarizer.calls.length > 0, `keepRecent ${keepRecent}: nothing condensed`);
      assert.ok(result.report.after.tokens <= 1000, `keepRecent ${keepRecent}: ${result.report.after.tokens} tokens`);
      assert.deepEqual(result.messages.at(-1), chain.at(-1));
    }
  });

  it("never joins one participant's request to another's message (OpenAI `name`)", async () => {
    // `window` merged bob's latest request into alice's first message: sent as hers.
    const messages = [
      { role: "system", content: "Group chat assistant." },
      { role: "user", name: "alice", content: `Hi, I'm alice. ${filler(0)}` },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "call_1", content: filler(1).repeat(20) },
      { role: "assistant", content: `ok ${filler(2)}` },
      { role: "user", name: "bob", content: "bob here: delete my account" },
    ];
    for (const strategy of ["window", "auto"]) {
      const { messages: out, changed } = await compact(messages, { strategy, maxTokens: 300 });
      assert.equal(changed, true, strategy);
      assert.deepEqual(out.at(-1), messages.at(-1), `${strategy}: bob's request as it came`);
      const first = (m) => (typeof m.content === "string" ? m.content : m.content?.[0]?.text);
      const hers = out.filter((m) => first(m) === messages[1].content);
      assert.ok(
        hers.every((m) => m.name === "alice"),
        `${strategy}: alice's words sent as someone else's`,
      );
    }
  });

  it("compacts a 10,000-message chain", async () => {
    const chain = [];
    for (let i = 0; i < 5000; i++) {
      chain.push({ role: "user", content: `Question ${i}` });
      chain.push({ role: "assistant", content: filler(i) });
    }
    const summarizer = recording();
    const result = await compact(chain, { strategy: "sections", summarizer, concurrency: 16 });
    assert.equal(result.report.before.messages, 10_000);
    assert.deepEqual(result.report.errors, []);
    assert.equal(result.report.calls, 4999);
    assert.equal(result.changed, true);
    assert.ok(result.report.after.bytes < result.report.before.bytes);
    assert.equal(parseChain(result.messages, { format: "openai" }).outline.sections, 5000);
  });

  it("keeps working after all of that", async () => {
    const result = await compact(openaiSections(3), { strategy: "sections", summarizer: recording() });
    assert.equal(result.changed, true);
    assert.equal(parseChain(openaiSections(1)).format, "openai");
  });
});

describe("the report and the trigger tell what compact returns", () => {
  // An Anthropic list: summaries go in as user messages, joined with the user turn beside them.
  const anthropic = [{ role: "user", content: "Please refactor the billing module step by step." }];
  for (let i = 0; i < 12; i++) {
    const id = `toolu_${String(i).padStart(24, "0")}`;
    anthropic.push(
      {
        role: "assistant",
        content: [
          { type: "text", text: `Step ${i}: reading file ${i}.` },
          { type: "tool_use", id, name: "read_file", input: { path: `src/billing/f${i}.ts` } },
        ],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: id, content: "  return x; // line\n".repeat(60) }],
      },
    );
  }
  anthropic.push({ role: "assistant", content: "Done reading." }, { role: "user", content: "Go ahead." });

  it("report.after measures the chain returned, as measureChain does", async () => {
    for (const strategy of ["budget", { name: "tiers", auto: false, recent: 4, condensed: 6 }, "auto"]) {
      const result = await compact(anthropic, { strategy, maxTokens: 1500 });
      assert.equal(result.changed, true);
      assert.deepEqual(result.report.after, measureChain(result.messages).total, JSON.stringify(strategy));
    }
  });

  it("needsCompaction is true where only the provider repair pass would change the chain", async () => {
    const blank = structuredClone(anthropic);
    blank[1].content[0].text = "\n\n"; // whitespace only, and no other text beside it
    for (const [chain, expected] of [
      [anthropic, false],
      [blank, true],
    ]) {
      const options = { maxTokens: 200_000 };
      const needed = needsCompaction(chain, options);
      const { changed } = await compact(chain, options);
      assert.deepEqual([needed, changed], [expected, expected]);
    }
    // The repair pass of the provider asked for: the generic rules take a whitespace-only text.
    assert.equal(needsCompaction(blank, { maxTokens: 200_000, provider: "generic" }), false);
  });

  it("needsCompaction asks about what compact compacts: not a final thinking tool cycle it keeps", async () => {
    // The tool cycle that thinks, then the user's words in the results' message: compact
    // keeps it as it is (its signed thinking with it), and has nothing before it to fold.
    const cycle = [
      { role: "user", content: [{ type: "text", text: "find the parser test" }] },
      {
        role: "assistant",
        content: [
          { type: "redacted_thinking", data: "REDQm" },
          {
            type: "tool_use",
            id: "toolu_01",
            name: "search",
            input: { content: "the cargo parser test\n".repeat(60) },
          },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_01", content: "found" },
          { type: "text", text: "TODO fix" },
        ],
      },
    ];
    const strategy = { name: "sections", lastSecBytes: 2000, maxBpBytes: 800, minSummarizeBytes: 100 };
    const summarizer = recording();
    for (const chain of [cycle, [...anthropic, ...cycle.slice(1)]]) {
      const options = { strategy, maxBytes: 7880, summarizer };
      assert.deepEqual(validateChain(chain), []);
      const needed = needsCompaction(chain, options);
      const { changed } = await compact(chain, options);
      assert.equal(needed, changed, JSON.stringify(chain.length));
    }
    // The history before the cycle is folded, and the trigger said so.
    assert.ok(summarizer.calls.length > 0);
  });
});

describe("tokenCounter, as the README documents it", () => {
  it("counts for the token strategies, never for sections and tiers; the report stays the built-in estimate", async () => {
    const chain = openaiSections(6);
    for (const [strategy, counts] of [
      ["auto", true],
      ["budget", true],
      ["window", true],
      [{ name: "mask", keepLast: 1 }, true],
      ["sections", false],
      [{ name: "tiers", auto: false }, false],
    ]) {
      let calls = 0;
      const tokenCounter = (texts) => {
        calls++;
        return texts.map((t) => Math.ceil(t.length / 4));
      };
      const result = await compact(chain, { strategy, maxTokens: 1500, tokenCounter });
      const what = JSON.stringify(strategy);
      assert.equal(result.changed, true, what);
      assert.equal(calls > 0, counts, `${what}: ${calls} call(s)`);
      assert.deepEqual(result.report.before, measureChain(chain).total, what);
      assert.deepEqual(result.report.after, measureChain(result.messages).total, what);
    }
  });
});

describe("auto keeps its promises at small budgets", () => {
  it("keeps the latest request verbatim at every budget that holds it (AI SDK), else budget_exceeded", async () => {
    const words = (tag, n) =>
      `${tag}: ${Array.from({ length: n }, (_, i) => ["fix", "the", "parser", "cache", "build", "tests"][i % 6] + i).join(" ")}`;
    const output = Array.from({ length: 60 }, (_, i) => `line ${i}: function f${i}(x) { return x * ${i}; }`).join("\n");
    const chain = [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: words("FIRST request", 30) },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "c1", toolName: "read_file", input: { path: "src/a.ts" } }],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "c1", toolName: "read_file", output: { type: "text", value: output } },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "Answer 0: done" }] },
      { role: "user", content: words("LATEST request", 30) },
      { role: "assistant", content: [{ type: "text", text: "Answer 1: ok, fixed" }] },
    ];
    let met;
    for (let maxTokens = 40; maxTokens <= 260; maxTokens += 10) {
      try {
        const r = await compact(chain, { maxTokens });
        assert.ok(r.report.after.tokens <= maxTokens);
        assert.ok(
          JSON.stringify(r.messages).includes(words("LATEST request", 30)),
          `${maxTokens}: the request was lost`,
        );
        met ??= maxTokens;
      } catch (error) {
        assert.equal(error.code, "budget_exceeded", `${maxTokens}: ${error.message}`);
        assert.equal(met, undefined, `${maxTokens} failed where ${met} was met`);
      }
    }
    assert.ok(met <= 140, `first met at ${met}`);
  });

  it("keeps a fold that meets the budget though it is larger in bytes (an image folded)", async () => {
    const input = [
      { role: "system", content: "42; mismatched = types fix types x" },
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url: "https://example.com/a.png" } },
          { type: "text", text: "the parser const parser build TODO fix résumé types types" },
        ],
      },
      { role: "assistant", content: "mismatched" },
      { role: "user", content: "continue" },
    ];
    const r = await compact(input, { maxTokens: 107, strategy: { name: "auto", minSummarizeBytes: 64 } });
    assert.ok(r.changed && !r.report.rolledBack);
    assert.ok(r.report.after.tokens <= 107, `${r.report.after.tokens} tokens`);
  });

  it("stable: asks the built-in summarizer for no summary it has no room for", async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `${i}: build build build build build`).join("\n");
    const pdf = "data:application/pdf;base64,JVBERi0xLjQKMSAwIG9iajw8Pj5lbmRvYmoKdHJhaWxlcjw8Pj4KJSVFT0Y=";
    const input = [
      { role: "system", content: "build build build" },
      {
        role: "user",
        content: [
          { type: "file", file: { filename: "spec.pdf", file_data: pdf } },
          { type: "text", text: "日本語" },
        ],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"src/a.rs"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: lines },
      { role: "assistant", content: "build" },
      {
        role: "user",
        content: [
          { type: "file", file: { file_id: "file-abc123" } },
          { type: "text", text: "build" },
        ],
      },
      { role: "assistant", content: "build" },
      { role: "user", content: "continue" },
    ];
    for (const maxTokens of [60, 100, 140]) {
      try {
        const r = await compact(input, { maxTokens, strategy: { name: "auto", stable: true } });
        assert.deepEqual(r.report.errors, [], `${maxTokens}`);
        assert.ok(r.report.after.tokens <= maxTokens);
      } catch (error) {
        assert.equal(error.code, "budget_exceeded", `${maxTokens}: ${error.message}`);
      }
    }
  });
});
