// fast-check arbitraries for the reliability suite: abstract chains (sections of tool
// exchanges, with optional breakage), rendered into every format the built package
// reads; random strategies with settings; random summarizer behaviour.
import fc from "fast-check";
import * as cf from "contextfold";

// ---- formats -----------------------------------------------------------------------------

/** The provider whose rules `compact` keeps for a chain read in `format`. */
export function providerOf(format) {
  return { openai: "openai", anthropic: "anthropic", gemini: "gemini", native: "generic" }[format];
}

const isError = (f) => {
  try {
    f();
    return null;
  } catch (e) {
    return e;
  }
};

/**
 * The formats the built package reads: native, openai and anthropic always; any other
 * name `parseChain` accepts as `format` is used when the package can produce chains in
 * it (`convert`), so formats added later are covered without editing this file.
 */
export function supportedFormats() {
  const formats = ["native", "openai", "anthropic"];
  if (typeof cf.convert !== "function") return formats;
  for (const name of ["gemini", "aisdk", "ai-sdk", "uimessage", "ui-message", "langchain"]) {
    const e = isError(() => cf.parseChain([], { format: name }));
    if (e && e.code === "invalid_option") continue;
    const sample = render(sampleModel(), "native");
    if (isError(() => cf.convert(sample, { from: "native", to: name }))) continue;
    formats.push(name);
  }
  return formats;
}

function sampleModel() {
  return {
    system: "s",
    sections: [
      {
        user: "u",
        steps: [
          {
            text: null,
            reasoning: null,
            calls: [{ id: "c1", name: "read", args: { p: 1 }, result: "r", isError: false }],
          },
        ],
        answer: "a",
      },
    ],
    breakage: null,
  };
}

// ---- abstract chains ---------------------------------------------------------------------

const WORDS = "the file build test error fix value path result run check token chain tool summary output".split(" ");

/** Text of about `size` bytes, deterministic from (size, salt); sometimes with markup. */
export function text(size, salt) {
  const out = [];
  let n = 0;
  let i = salt;
  while (n < size) {
    const w = WORDS[i % WORDS.length] + (i % 11 === 0 ? ` src/m${i % 97}.rs` : "");
    out.push(w);
    n += w.length + 1;
    i = (i * 31 + 7) % 1000003;
  }
  return out.join(" ") || "x";
}

const size = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 120 }) },
  { weight: 3, arbitrary: fc.integer({ min: 120, max: 2000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 2000, max: 20000 }) },
);
const content = fc.tuple(size, fc.nat(1000)).map(([n, salt]) => text(n, salt));

const call = fc.record({
  name: fc.constantFrom("read_file", "run", "search"),
  args: fc.record({ path: fc.constantFrom("a.rs", "b/c.txt", "é.md"), n: fc.nat(100) }),
  result: content,
  isError: fc.boolean(),
});

const step = fc.record({
  text: fc.option(content, { freq: 3 }),
  reasoning: fc.option(
    fc.record({ text: content, signature: fc.string({ minLength: 8, maxLength: 24, unit: "grapheme-ascii" }) }),
    { freq: 4 },
  ),
  calls: fc.array(call, { minLength: 1, maxLength: 3 }),
});

const section = fc.record({
  user: content,
  steps: fc.array(step, { minLength: 0, maxLength: 4 }),
  answer: content,
});

/** Ways to break a chain: a call left unanswered, an orphan result, a duplicate result. */
const breakage = fc.option(fc.record({ kind: fc.constantFrom("unanswered", "orphan", "duplicate"), at: fc.nat() }), {
  freq: 6,
});

/** An abstract chain; `broken` allows structural breakage. */
export const chainModel = ({ broken = false, maxSections = 8 } = {}) =>
  fc
    .record({
      system: fc.option(content, { freq: 4 }),
      sections: fc.array(section, { minLength: 1, maxLength: maxSections }),
      breakage: broken ? breakage : fc.constant(null),
    })
    .map(withIds);

/** A copy of `m` with unique call ids across the chain (generated values stay untouched). */
export function withIds(m) {
  const copy = structuredClone(m);
  let id = 0;
  for (const s of copy.sections) for (const st of s.steps) for (const c of st.calls) c.id = `call_${id++}`;
  return copy;
}

// ---- renderers ---------------------------------------------------------------------------

/** Native messages of a model (the form every other renderer starts from). */
function nativeMessages(m) {
  const out = [];
  if (m.system != null) out.push({ role: "system", parts: [{ type: "text", text: m.system }] });
  for (const s of m.sections) {
    out.push({ role: "user", parts: [{ type: "text", text: s.user }] });
    for (const st of s.steps) {
      const parts = [];
      if (st.reasoning) parts.push({ type: "reasoning", text: st.reasoning.text, signature: st.reasoning.signature });
      if (st.text != null) parts.push({ type: "text", text: st.text });
      for (const c of st.calls)
        parts.push({ type: "toolCall", id: c.id, name: c.name, arguments: JSON.stringify(c.args) });
      out.push({ role: "assistant", parts });
      for (const c of st.calls) {
        const result = { type: "toolResult", callId: c.id, name: c.name, content: [{ type: "text", text: c.result }] };
        if (c.isError) result.isError = true;
        out.push({ role: "tool", parts: [result] });
      }
    }
    out.push({ role: "assistant", parts: [{ type: "text", text: s.answer }] });
  }
  return out;
}

function breakNative(messages, b) {
  if (!b) return messages;
  const tools = messages.map((msg, i) => (msg.role === "tool" ? i : -1)).filter((i) => i >= 0);
  if (b.kind === "orphan") {
    const at = 1 + (b.at % Math.max(1, messages.length - 1));
    messages.splice(at, 0, {
      role: "tool",
      parts: [{ type: "toolResult", callId: "call_orphan", name: "x", content: [{ type: "text", text: "orphan" }] }],
    });
  } else if (tools.length) {
    const i = tools[b.at % tools.length];
    if (b.kind === "unanswered") messages.splice(i, 1);
    else messages.splice(i + 1, 0, structuredClone(messages[i]));
  }
  return messages;
}

/** Renders a model into `format` (a fresh object graph on every call). */
export function render(m, format) {
  const native = breakNative(nativeMessages(withIds(m)), m.breakage);
  switch (format) {
    case "native":
      return native;
    case "openai":
      return toOpenai(native);
    case "anthropic":
      return toAnthropic(native);
    default:
      return cf.convert(native, { from: "native", to: format }).messages;
  }
}

function toOpenai(native) {
  return native.map((msg) => {
    const texts = msg.parts.filter((p) => p.type === "text").map((p) => p.text);
    if (msg.role === "tool") {
      const r = msg.parts[0];
      return { role: "tool", tool_call_id: r.callId, content: r.content.map((c) => c.text).join("") };
    }
    const out = { role: msg.role, content: texts.length ? texts.join("") : null };
    const calls = msg.parts.filter((p) => p.type === "toolCall");
    if (calls.length)
      out.tool_calls = calls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: c.arguments },
      }));
    const reasoning = msg.parts.find((p) => p.type === "reasoning");
    if (reasoning) out.reasoning_content = reasoning.text;
    if (out.content === null && !calls.length) out.content = "";
    return out;
  });
}

function toAnthropic(native) {
  let system;
  const messages = [];
  const push = (role, blocks) => {
    const last = messages[messages.length - 1];
    // Tool results travel in a user message; consecutive ones merge.
    if (
      last &&
      last.role === role &&
      role === "user" &&
      Array.isArray(last.content) &&
      blocks.every((b) => b.type === "tool_result")
    ) {
      last.content.push(...blocks);
    } else messages.push({ role, content: blocks });
  };
  for (const msg of native) {
    if (msg.role === "system") {
      system = msg.parts.map((p) => p.text).join("");
      continue;
    }
    if (msg.role === "tool") {
      const r = msg.parts[0];
      const block = { type: "tool_result", tool_use_id: r.callId, content: r.content.map((c) => c.text).join("") };
      if (r.isError) block.is_error = true;
      push("user", [block]);
      continue;
    }
    const blocks = msg.parts.map((p) => {
      if (p.type === "text") return { type: "text", text: p.text };
      if (p.type === "reasoning") return { type: "thinking", thinking: p.text, signature: p.signature };
      return { type: "tool_use", id: p.id, name: p.name, input: JSON.parse(p.arguments) };
    });
    if (msg.role === "user" && blocks.length === 1) messages.push({ role: "user", content: blocks[0].text });
    else push(msg.role, blocks);
  }
  return system === undefined ? messages : { system, messages };
}

// ---- options -----------------------------------------------------------------------------

const bytesish = fc.integer({ min: 64, max: 60000 });

export const strategyArb = fc.oneof(
  fc.constantFrom("sections", "window", "tiers"),
  fc.record(
    {
      name: fc.constant("sections"),
      preserveLast: fc.boolean(),
      lastSecBytes: bytesish,
      maxBpBytes: bytesish,
      useQA: fc.boolean(),
      maxQASections: fc.integer({ min: 0, max: 6 }),
      maxQABytes: bytesish,
      summHumanInQA: fc.boolean(),
      keepQASections: fc.integer({ min: 1, max: 3 }),
      reservePercent: fc.integer({ min: 0, max: 100 }),
      minSummarizeBytes: fc.integer({ min: 0, max: 1024 }),
    },
    { requiredKeys: ["name"] },
  ),
  fc.record(
    {
      name: fc.constant("window"),
      window: fc.integer({ min: 1, max: 40 }),
      thresholdBytes: bytesish,
      messageThresholdBytes: bytesish,
      maxDepth: fc.integer({ min: 0, max: 5 }),
      minSummarizeBytes: fc.integer({ min: 0, max: 1024 }),
    },
    { requiredKeys: ["name"] },
  ),
  fc.record(
    {
      name: fc.constant("tiers"),
      recent: fc.integer({ min: 1, max: 30 }),
      condensed: fc.integer({ min: 0, max: 60 }),
      autoThreshold: fc.integer({ min: 1, max: 100 }),
      condensedBytes: fc.integer({ min: 100, max: 4000 }),
      compressedBytes: fc.integer({ min: 100, max: 2000 }),
      minSummarizeBytes: fc.integer({ min: 0, max: 1024 }),
    },
    { requiredKeys: ["name"] },
  ),
  fc.record(
    {
      name: fc.constant("budget"),
      keepRecent: fc.integer({ min: 0, max: 8 }),
      summaryPercent: fc.integer({ min: 1, max: 100 }),
    },
    { requiredKeys: ["name"] },
  ),
);

export const optionsArb = fc.record({
  strategy: strategyArb,
  maxTokens: fc.option(fc.integer({ min: 200, max: 40000 }), { freq: 2 }),
  concurrency: fc.option(fc.integer({ min: 1, max: 6 })),
  onError: fc.constantFrom("rollback", "partial", "throw", undefined),
  timeoutMs: fc.option(fc.integer({ min: 1, max: 40 }), { freq: 8 }),
});

/** The budget strategy needs a budget: give it one. */
export function normalizeOptions(o) {
  const options = { strategy: o.strategy };
  const name = typeof o.strategy === "string" ? o.strategy : o.strategy.name;
  if (o.maxTokens != null || name === "budget") options.maxTokens = o.maxTokens ?? 8000;
  if (o.concurrency != null) options.concurrency = o.concurrency;
  if (o.onError !== undefined) options.onError = o.onError;
  if (o.timeoutMs != null) options.timeoutMs = o.timeoutMs;
  return options;
}

// ---- summarizers ---------------------------------------------------------------------------

/**
 * One behaviour per call, cycled by request id: "ok", "slow" (1-5 ms), "fail" (rejects),
 * "throw" (throws synchronously), "empty", "huge" (larger than anything summarized),
 * "number" (not a string), "late" (resolves after later calls: out of order).
 */
export const behaviourArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant(["ok"]) },
  {
    weight: 5,
    arbitrary: fc.array(fc.constantFrom("ok", "slow", "fail", "throw", "empty", "huge", "number", "late"), {
      minLength: 1,
      maxLength: 6,
    }),
  },
);

export function isWellBehaved(plan) {
  return plan.every((b) => b === "ok" || b === "slow" || b === "late");
}

/** A recording summarizer following `plan`. */
export function planned(plan) {
  const requests = [];
  const summarizer = (request) => {
    requests.push(request);
    const b = plan[request.id % plan.length];
    const answer = `Summary ${request.id} (${request.kind}).`;
    switch (b) {
      case "fail":
        return Promise.reject(new Error(`planned failure of call ${request.id}`));
      case "throw":
        throw new Error(`planned throw in call ${request.id}`);
      case "empty":
        return Promise.resolve("");
      case "huge":
        return Promise.resolve("huge summary ".repeat(30000));
      case "number":
        return Promise.resolve(42);
      case "slow":
        return new Promise((r) => setTimeout(() => r(answer), 1 + (request.id % 5)));
      case "late":
        // Earlier calls resolve later: out-of-order completion.
        return new Promise((r) => setTimeout(() => r(answer), Math.max(0, 6 - request.id)));
      default:
        return Promise.resolve(answer);
    }
  };
  summarizer.requests = requests;
  return summarizer;
}
