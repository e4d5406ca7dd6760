// The core cases every runtime runs against the built package: Node (tests/node), headless
// Chromium (tests/browser) and workerd (tests/workerd). Plain ES module, no imports but
// the shared chains, no Node APIs: `runCases(api)` takes the package's exports and
// resolves to one plain, JSON-serializable result per case, never rejecting.
import { openaiChain, openaiSections, orphanResultChain } from "./chains.mjs";

class CaseFailure extends Error {
  name = "CaseFailure";
}

function check(condition, message) {
  if (!condition) throw new CaseFailure(message);
}

function same(actual, expected, what) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  check(a === e, `${what}: expected ${e}, got ${a}`);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const never = () => new Promise(() => {});

/** Runs `fn`, asserts it throws, and returns what it threw. */
function thrown(fn, what) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new CaseFailure(`${what}: expected a throw`);
}

/** Awaits `promise`, asserts it rejects, and returns the reason. */
async function rejection(promise, what) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new CaseFailure(`${what}: expected a rejection`);
}

/** Asserts that `error` is a real ContextfoldError with this code (and path). */
function contextfoldError(error, code, path, what) {
  check(error instanceof Error, `${what}: not an Error instance: ${String(error)}`);
  same(error.name, "ContextfoldError", `${what}: name`);
  same(error.code, code, `${what}: code (message: ${error.message})`);
  if (path !== undefined) same(error.path, path, `${what}: path`);
  check(typeof error.message === "string" && error.message.length > 0, `${what}: empty message`);
}

/** A fake model: answers after `ms`, records its calls and the most calls in flight. */
function fakeSummarizer({ ms = 5, text = "Short summary." } = {}) {
  let inFlight = 0;
  const summarizer = async (request, context) => {
    summarizer.calls.push({ request, context });
    inFlight++;
    summarizer.maxInFlight = Math.max(summarizer.maxInFlight, inFlight);
    try {
      await sleep(ms);
      return text;
    } finally {
      inFlight--;
    }
  };
  summarizer.calls = [];
  summarizer.maxInFlight = 0;
  return summarizer;
}

export const cases = [
  {
    name: "parseChain outlines a small OpenAI chain",
    run({ parseChain }) {
      const { format, outline, repairs } = parseChain(openaiChain(), {});
      same(format, "openai", "format");
      same(repairs, [], "repairs");
      same(
        [outline.messages, outline.sections, outline.pairs, outline.completions, outline.requestResponses],
        [7, 2, 3, 2, 1],
        "messages, sections, pairs, completions, requestResponses",
      );
      same(outline.toolCalls, 1, "toolCalls");
      same(
        outline.sectionList[0].pairs.map((p) => p.kind),
        ["requestResponse", "completion"],
        "pair kinds of section 0",
      );
      check(outline.bytes > 0, "bytes > 0");
      same(parseChain(JSON.stringify(openaiChain()), { format: "openai" }), parseChain(openaiChain(), {}), "JSON text");
    },
  },
  {
    name: "parseChain throws a ContextfoldError with code and path",
    run({ parseChain }) {
      const error = thrown(() => parseChain(orphanResultChain(), {}), "orphan tool result");
      contextfoldError(error, "unmatched_tool_result", "[2]", "orphan tool result");
      check(/call_2/.test(error.message), `message names call_2: ${error.message}`);
      check(typeof error.stack === "string", "has a stack");
      const option = thrown(() => parseChain(openaiChain(), { format: "klingon" }), "unknown format");
      contextfoldError(option, "invalid_option", "options.format", "unknown format");
      contextfoldError(
        thrown(() => parseChain("[{", {}), "bad JSON"),
        "invalid_json",
        "[0]",
        "bad JSON",
      );
      const repaired = parseChain(orphanResultChain(), { repair: true });
      check(
        repaired.repairs.some((r) => r.action === "addedMissingCall" && r.callId === "call_2"),
        `repair mode lists the repair: ${JSON.stringify(repaired.repairs)}`,
      );
    },
  },
  {
    name: "compact with an async summarizer returns a smaller, valid chain",
    async run({ compact, parseChain }) {
      const input = openaiSections(4);
      const before = JSON.stringify(input);
      const summarizer = fakeSummarizer();
      const result = await compact(input, { strategy: "sections", summarizer });
      same(JSON.stringify(input), before, "input not mutated");
      same([result.format, result.changed], ["openai", true], "format, changed");
      check(JSON.stringify(result.messages).length < before.length, "output is smaller than input");
      const { report } = result;
      check(report.after.bytes < report.before.bytes, "report: after.bytes < before.bytes");
      same([report.calls, report.rolledBack, report.cancelled], [3, false, false], "calls, rolledBack, cancelled");
      same(report.errors, [], "errors");
      same(summarizer.calls.length, 3, "summarizer calls");
      const { request, context } = summarizer.calls[0];
      same([request.id, request.kind, request.section], [0, "section", 0], "first request");
      check(typeof request.prompt === "string" && request.prompt.includes("Task 0"), "prompt carries the task");
      same(Object.keys(context), ["signal"], "context: the call's own signal");
      check(context.signal instanceof AbortSignal && !context.signal.aborted, "the call's signal is not aborted");
      const parsed = parseChain(result.messages, { format: "openai" });
      same(
        [parsed.outline.sections, parsed.outline.summarizations, parsed.outline.messages],
        [4, 3, result.messages.length],
        "outline of the output: sections, summarizations, messages",
      );
    },
  },
  {
    name: "compact keeps at most `concurrency` calls in flight",
    async run({ compact }) {
      for (const [concurrency, expected] of [
        [undefined, 4],
        [2, 2],
      ]) {
        const summarizer = fakeSummarizer({ ms: 15 });
        const result = await compact(openaiSections(6), { strategy: "sections", summarizer, concurrency });
        same(result.report.calls, 5, `calls (concurrency ${concurrency})`);
        same(summarizer.maxInFlight, expected, `max in flight (concurrency ${concurrency})`);
      }
    },
  },
  {
    name: "compact rejects bad options with a ContextfoldError",
    async run({ compact }) {
      const summarizer = fakeSummarizer();
      for (const [options, path] of [
        [{ summarizer: 42 }, "options.summarizer"],
        [{ summarizer, onError: "explode" }, "options.onError"],
        [{ summarizer, format: "yaml" }, "options.format"],
        [{ summarizer, signal: {} }, "options.signal"],
      ]) {
        const what = JSON.stringify(options) ?? "undefined";
        contextfoldError(await rejection(compact(openaiSections(2), options), what), "invalid_option", path, what);
      }
      same(summarizer.calls.length, 0, "no summarizer call");
      contextfoldError(
        await rejection(compact("[{", { strategy: "sections", summarizer }), "bad JSON"),
        "invalid_json",
        "[0]",
        "bad JSON",
      );
    },
  },
  {
    name: "a failing summarizer rolls back, or rejects with onError: throw",
    async run({ compact }) {
      const failing = async () => {
        throw new Error("model overloaded");
      };
      const result = await compact(openaiSections(3), { strategy: "sections", summarizer: failing });
      same([result.changed, result.report.rolledBack], [false, true], "changed, rolledBack");
      same(
        result.report.errors.map((e) => e.kind),
        ["failed", "failed"],
        "error kinds",
      );
      check(/model overloaded/.test(result.report.errors[0].message), "the error message is kept");
      const error = await rejection(
        compact(openaiSections(3), { strategy: "sections", summarizer: failing, onError: "throw" }),
        "throw",
      );
      contextfoldError(error, "summarizer_failed", undefined, 'onError "throw"');
      same(error.errors?.length, 2, "error.errors");
    },
  },
  {
    name: "timeoutMs ends a call that never answers",
    async run({ compact }) {
      const result = await compact(openaiSections(3), { strategy: "sections", summarizer: never, timeoutMs: 30 });
      same([result.changed, result.report.rolledBack], [false, true], "changed, rolledBack");
      same(
        result.report.errors.map((e) => e.kind),
        ["timeout", "timeout"],
        "error kinds",
      );
    },
  },
  {
    name: "an AbortController cancels a running compaction",
    async run({ compact }) {
      const controller = new AbortController();
      const seen = [];
      const summarizer = (request, context) => {
        seen.push(context.signal);
        return never();
      };
      setTimeout(() => controller.abort(), 20);
      const result = await compact(openaiSections(3), { strategy: "sections", summarizer, signal: controller.signal });
      same(
        [result.changed, result.report.cancelled, result.report.rolledBack],
        [false, true, true],
        "changed, cancelled, rolledBack",
      );
      check(
        result.report.errors.length > 0 && result.report.errors.every((e) => e.kind === "cancelled"),
        `errors are all "cancelled": ${JSON.stringify(result.report.errors)}`,
      );
      same(seen.length, 2, "calls made before the abort");
      check(
        seen.every((s) => s instanceof AbortSignal && s.aborted),
        "the signals of the calls aborted with the caller's",
      );
      const early = fakeSummarizer();
      const aborted = await compact(openaiSections(3), {
        strategy: "sections",
        summarizer: early,
        signal: AbortSignal.abort(),
      });
      same([aborted.report.cancelled, early.calls.length], [true, 0], "already aborted: cancelled, calls");
    },
  },
  {
    name: "every strategy compacts to a chain its provider accepts",
    async run({ compact, validateChain, measureChain }) {
      const input = openaiSections(8);
      const before = JSON.stringify(input);
      for (const options of [
        { strategy: "sections" },
        { strategy: { name: "window", window: 8, thresholdTokens: 800 } },
        { strategy: { name: "tiers", recent: 6, condensed: 8, auto: false } },
        { strategy: "budget", maxTokens: 1500 },
        { strategy: "budget", maxBytes: 6000 },
      ]) {
        const what = JSON.stringify(options);
        const summarizer = fakeSummarizer({ ms: 1 });
        const result = await compact(input, { ...options, summarizer });
        const name = typeof options.strategy === "string" ? options.strategy : options.strategy.name;
        same(
          [result.report.strategy, result.changed, result.format],
          [name, true, "openai"],
          `${what}: strategy, changed, format`,
        );
        check(
          summarizer.calls.length > 0 && result.report.calls === summarizer.calls.length,
          `${what}: calls reported`,
        );
        check(result.report.after.bytes < result.report.before.bytes, `${what}: smaller`);
        same(validateChain(result.messages), [], `${what}: diagnostics of the output`);
        check(Array.isArray(result.report.providerRepairs), `${what}: providerRepairs listed`);
        const total = measureChain(result.messages).total;
        if (options.maxTokens) check(total.tokens <= options.maxTokens, `${what}: ${total.tokens} tokens`);
        if (options.maxBytes) check(total.bytes <= options.maxBytes, `${what}: ${total.bytes} bytes`);
        const again = await compact(result.messages, { ...options, summarizer });
        same(again.report.calls, 0, `${what}: a second run makes no call`);
      }
      same(JSON.stringify(input), before, "input not mutated");
      const error = await rejection(compact(input, { strategy: "budget" }), "budget without a max");
      contextfoldError(error, "invalid_option", "options.maxTokens", "budget without a max");
      const tight = await rejection(
        compact([{ role: "system", content: "policy ".repeat(500) }, ...openaiSections(2).slice(1)], {
          strategy: "budget",
          maxTokens: 100,
        }),
        "system prompt over the budget",
      );
      contextfoldError(tight, "budget_exceeded", undefined, "system prompt over the budget");
      check(/system prompt alone/.test(tight.message), tight.message);
      contextfoldError(
        await rejection(compact(input, { strategy: "nope" }), "unknown strategy"),
        "invalid_option",
        "options.strategy",
        "unknown strategy",
      );
      contextfoldError(
        await rejection(compact(input, { maxTokens: 10, maxBytes: 10 }), "both budgets"),
        "invalid_option",
        "options.maxBytes",
        "both budgets",
      );
    },
  },
  {
    name: "needsCompaction is the cheap trigger of each strategy",
    run({ needsCompaction }) {
      const small = openaiChain();
      const big = openaiSections(30);
      for (const options of [
        { maxTokens: 8000 },
        { strategy: "sections" },
        { strategy: { name: "mask" }, maxTokens: 8000 },
        { strategy: { name: "window", window: 20, thresholdTokens: 4000 } },
        { strategy: { name: "tiers", autoThreshold: 100 } },
        { strategy: "budget", maxTokens: 8000 },
      ]) {
        const what = JSON.stringify(options) ?? "default";
        same([needsCompaction(small, options), needsCompaction(big, options)], [false, true], `${what}: small, big`);
      }
      same(needsCompaction(big, { strategy: { name: "tiers", auto: false } }), false, "tiers with auto off");
      contextfoldError(
        thrown(() => needsCompaction(big, { strategy: "budget" }), "budget without max"),
        "invalid_option",
        "options.maxTokens",
        "budget without max",
      );
    },
  },
  {
    name: "validateChain reports provider rules and repairChain fixes them",
    run({ validateChain, repairChain }) {
      const bad = orphanResultChain();
      const found = validateChain(bad);
      const codes = found.map((d) => d.code).sort();
      check(codes.includes("orphan_result") && codes.includes("unanswered_call"), `codes: ${codes}`);
      const orphan = found.find((d) => d.code === "orphan_result");
      same([orphan.index, typeof orphan.path, typeof orphan.message], [2, "string", "string"], "orphan diagnostic");
      const fixed = repairChain(bad);
      same([fixed.changed, fixed.format, fixed.provider], [true, "openai", "openai"], "changed, format, provider");
      check(
        fixed.steps.some((s) => s.step === "droppedOrphanResult" && s.index === 2),
        JSON.stringify(fixed.steps),
      );
      same(validateChain(fixed.messages), [], "repaired chain validates");
      const valid = openaiChain();
      same(validateChain(valid), [], "a valid chain");
      const same1 = repairChain(valid);
      same([same1.changed, same1.steps], [false, []], "nothing to repair");
      same(same1.messages, valid, "a valid chain comes back as given");
      const twoUsers = [
        { role: "user", content: "a" },
        { role: "user", content: "b" },
        { role: "assistant", content: "c" },
      ];
      same(validateChain(twoUsers), [], "OpenAI accepts two user messages in a row");
      same(
        validateChain(twoUsers, { provider: "anthropic" }).map((d) => d.code),
        ["consecutive_same_role"],
        "Anthropic does not",
      );
      same(repairChain(twoUsers, { provider: "anthropic" }).messages.length, 2, "merged for Anthropic");
      contextfoldError(
        thrown(() => validateChain(valid, { provider: "klingon" }), "bad provider"),
        "invalid_option",
        "options.provider",
        "bad provider",
      );
    },
  },
  {
    name: "a tokenCounter counts in batches; a broken one is a typed error",
    async run({ compact, needsCompaction }) {
      const batches = [];
      const tokenCounter = (texts) => {
        batches.push(texts.length);
        return texts.map((t) => t.length);
      };
      const input = openaiSections(6);
      // One token a character: the same chain is 4x over a budget the estimate meets.
      same(needsCompaction(input, { strategy: "budget", maxTokens: 3000 }), false, "estimate fits");
      same(needsCompaction(input, { strategy: "budget", maxTokens: 3000, tokenCounter }), true, "counter does not");
      check(batches.length === 1 && batches[0] > input.length, `one batch of every text: ${batches}`);
      const result = await compact(input, {
        strategy: "budget",
        maxTokens: 3000,
        tokenCounter,
        summarizer: fakeSummarizer({ ms: 1 }),
      });
      check(result.changed, "compacted by the counter's measure");
      for (const broken of [
        () => {
          throw new Error("tokenizer crashed");
        },
        () => "nope",
        (texts) => texts.map(() => -1),
      ]) {
        const error = await rejection(
          compact(input, { strategy: "budget", maxTokens: 3000, tokenCounter: broken }),
          "broken counter",
        );
        contextfoldError(error, "token_counter_failed", "options.tokenCounter", "broken counter");
      }
    },
  },
  {
    name: "History compacts on push, keeps messages pushed meanwhile, and survives storage",
    async run({ History }) {
      const chain = openaiSections(10);
      let release;
      const gate = new Promise((resolve) => (release = resolve));
      const summarizer = fakeSummarizer({ ms: 1 });
      const gated = async (request, context) => {
        await gate;
        return summarizer(request, context);
      };
      const options = { strategy: { name: "tiers", recent: 6, condensed: 10, autoThreshold: 30 }, summarizer: gated };
      const history = new History({ messages: chain.slice(0, 30), options });
      same([history.length, history.needsCompaction()], [30, false], "30 messages: no trigger");
      // The 31st message is over the threshold, but its tool call waits for its result:
      // no request can be made before it comes, and the trigger waits too.
      same([await history.push(chain[30]), history.needsCompaction()], [null, false], "a call waiting: no trigger");
      // Its result fires the trigger; the compaction waits on the gate.
      const running = history.push(chain[31]);
      await sleep(5);
      history.push(chain[32]);
      history.push(chain[33]);
      release();
      const result = await running;
      check(result && result.changed, "the push compacted");
      const messages = history.messages();
      check(messages.length < 34, `fewer messages: ${messages.length}`);
      same(messages.slice(-2), [chain[32], chain[33]], "messages pushed during the compaction are kept, in order");
      // Storage round trip; functions are passed again.
      const stored = JSON.parse(JSON.stringify(history));
      same([stored.version, "summarizer" in stored.options], [1, false], "stored shape");
      const restored = History.fromJSON(stored, { summarizer });
      same(restored.messages(), messages, "restored messages");
      // A failed compaction leaves the history untouched.
      const failing = new History({
        messages: chain,
        auto: false,
        options: {
          // Re-tiered on demand (its trigger off): under autoThreshold it would not run.
          strategy: { name: "tiers", recent: 6, condensed: 10, auto: false },
          summarizer: async () => {
            throw new Error("down");
          },
        },
      });
      const failed = await failing.compact();
      same([failed.changed, failed.report.rolledBack], [false, true], "rolled back");
      same(failing.messages(), chain, "history untouched after a failure");
      const bad = thrown(() => History.fromJSON({ nope: true }), "bad stored history");
      contextfoldError(bad, "invalid_history", "", "bad stored history");
    },
  },
  {
    name: "onProgress reports every wave and call, then done",
    async run({ compact }) {
      const events = [];
      const result = await compact(openaiSections(6), {
        strategy: { name: "window", window: 8, thresholdTokens: 800 },
        summarizer: fakeSummarizer({ ms: 2 }),
        onProgress: (e) => events.push(e),
      });
      const { calls, waves } = result.report;
      check(calls > 1, `calls: ${calls}`);
      same(events.filter((e) => e.phase === "wave").length, waves, "one wave event per wave");
      same(events.filter((e) => e.phase === "call").length, calls, "one call event per call");
      same(events.at(-1), { phase: "done", calls, waves }, "the last event");
      for (const e of events.filter((e) => e.phase === "call")) {
        check(e.done >= 1 && e.done <= e.total && e.ok === true, JSON.stringify(e));
      }
      // A throwing progress callback cannot fail the compaction.
      const again = await compact(openaiSections(4), {
        strategy: "sections",
        summarizer: fakeSummarizer({ ms: 1 }),
        onProgress: () => {
          throw new Error("UI bug");
        },
      });
      check(again.changed, "compacted despite the throwing callback");
    },
  },
  {
    name: "after a panic the next call gets a fresh instance",
    async run(api) {
      const { compact, parseChain } = api;
      check(
        typeof api.__contextfoldPanicForTests === "function",
        "the runner passes the test hooks of pkg/src/internal.js",
      );
      const before = await compact(openaiSections(3), { strategy: "sections", summarizer: fakeSummarizer({ ms: 1 }) });
      const error = thrown(() => api.__contextfoldPanicForTests(), "deliberate panic");
      check(error instanceof Error, `a panic surfaces as an Error: ${String(error)}`);
      same(parseChain(openaiChain(), {}).outline.messages, 7, "parseChain after the panic");
      const after = await compact(openaiSections(3), { strategy: "sections", summarizer: fakeSummarizer({ ms: 1 }) });
      same(after.messages, before.messages, "compact after the panic gives the same result");
      // A panic inside an async export rejects its Promise instead of leaving it pending.
      // (Node exits on the uncaught abort the wasm task queue rethrows; its runner checks
      // this in a child process with a handler instead.)
      if (api.skipAsyncPanic) return;
      const asyncError = await rejection(api.__contextfoldAsyncPanicForTests(), "async panic");
      contextfoldError(asyncError, "internal", undefined, "async panic");
      same(parseChain(openaiChain(), {}).outline.messages, 7, "parseChain after the async panic");
    },
  },
  {
    name: "kept messages come back as the caller's own objects",
    async run({ compact, repairChain }) {
      const input = openaiSections(6);
      const result = await compact(input, { strategy: "sections", summarizer: fakeSummarizer({ ms: 1 }) });
      check(result.changed, "changed");
      const kept = result.messages.filter((m) => input.includes(m));
      const fresh = result.messages.filter((m) => !input.includes(m));
      check(kept.length > 0 && fresh.length > 0, `kept ${kept.length}, new ${fresh.length}`);
      same(result.messages.at(-1) === input.at(-1), true, "the last message is the very same object");
      // Every new message is a summary pair or its result, nothing else was rebuilt.
      check(fresh.length <= 2 * result.report.calls, `new messages ${fresh.length} for ${result.report.calls} calls`);
      const small = openaiChain();
      const unchanged = await compact(small, {});
      same([unchanged.changed, unchanged.messages === small], [false, true], "unchanged: the same array");
      same(repairChain(small).messages === small, true, "repairChain, nothing to repair: the same array");
      const anthropic = {
        system: "Be brief.",
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: "hello ".repeat(400) },
          { role: "user", content: "more" },
          { role: "assistant", content: "ok" },
        ],
      };
      const out = await compact(anthropic, {
        strategy: { name: "sections", keepQASections: 1 },
        summarizer: fakeSummarizer({ ms: 1 }),
      });
      check(out.changed && out.messages.system === "Be brief.", JSON.stringify(out.messages).slice(0, 200));
      same(out.messages.messages.at(-1) === anthropic.messages.at(-1), true, "Anthropic: kept objects reused");
      const cyclic = [{ role: "user", content: "x" }];
      cyclic[0].self = cyclic[0];
      contextfoldError(await rejection(compact(cyclic, {}), "cyclic input"), "invalid_shape", "", "cyclic input");
    },
  },
  {
    name: "the module keeps working after errors",
    async run({ compact, parseChain }) {
      for (let i = 0; i < 3; i++) {
        thrown(() => parseChain(orphanResultChain(), {}), "orphan");
        thrown(() => parseChain("not json", {}), "not json");
        thrown(() => parseChain(undefined, {}), "undefined");
        await rejection(compact(openaiSections(2), { strategy: "sections", summarizer: 42 }), "bad summarizer");
        await compact(openaiSections(2), { strategy: "sections", summarizer: () => Promise.reject("plain string") });
      }
      same(parseChain(openaiChain(), {}).outline.messages, 7, "parseChain after errors");
      const result = await compact(openaiSections(3), { strategy: "sections", summarizer: fakeSummarizer() });
      same([result.changed, result.report.calls], [true, 2], "compact after errors: changed, calls");
    },
  },
];

export const caseNames = cases.map((c) => c.name);

function describeError(error) {
  if (error instanceof Error) {
    const extra = "code" in error ? ` [code ${error.code}, path ${error.path}]` : "";
    const stack = error instanceof CaseFailure ? "" : `\n${error.stack ?? ""}`;
    return `${error.name}: ${error.message}${extra}${stack}`;
  }
  return `non-Error thrown: ${typeof error} ${String(error)}`;
}

/**
 * Runs every case in order against `api` (the package's exports). Resolves to
 * `[{ name, ok, ms, error? }]`; a case that runs past `timeoutMs` fails.
 */
export async function runCases(api, { timeoutMs = 10_000 } = {}) {
  const results = [];
  for (const { name, run } of cases) {
    const started = Date.now();
    let timer;
    try {
      await Promise.race([
        Promise.resolve().then(() => run(api)),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new CaseFailure(`timed out after ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      results.push({ name, ok: true, ms: Date.now() - started });
    } catch (error) {
      results.push({ name, ok: false, ms: Date.now() - started, error: describeError(error) });
    } finally {
      clearTimeout(timer);
    }
  }
  return results;
}
