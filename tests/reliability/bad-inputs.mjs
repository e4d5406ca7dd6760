// The bad-input corpus: inputs and options that are wrong in every way we could think
// of, each with the exact outcome expected from each function that reads a chain.
// Inputs are built lazily (`input()` / `options()`) so that listing the cases is cheap.
//
// `expect` is one outcome for every function, or an object per function (`compact`,
// `parseChain`, `validateChain`, `repairChain`, `needsCompaction`, `default`). Outcomes:
//   "ok"            returns normally (for compact/repairChain: a chain valid for its provider)
//   "diag:<code>"   validateChain returns diagnostics, the first with this code ("diag:0": none)
//   "changed"       compact/repairChain return a changed, valid chain
//   "true"/"false"  needsCompaction's answer
//   "<error_code>"  throws a ContextfoldError with this code (and a string path)
// `path` (optional) is the path every error of the case must have. `todo` marks a case
// that shows a known bug, with the bug named; it runs but its outcome is not asserted.

export const FUNCTIONS = ["compact", "parseChain", "validateChain", "repairChain", "needsCompaction"];

const user = (content = "hi") => ({ role: "user", content });
const assistant = (content = "hello") => ({ role: "assistant", content });
const call = (id = "call_1", args = "{}") => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name: "read", arguments: args } }],
});
const result = (id = "call_1", content = "result") => ({ role: "tool", tool_call_id: id, content });
const ok = (...messages) => [user(), ...messages, assistant()];

/** A chain big enough for the default strategy to compact (five long sections). */
export function longChain() {
  const chain = [{ role: "system", content: "You are a careful assistant." }];
  const filler = (i) => `Section ${i}: ${"the quick brown fox jumps over the lazy dog ".repeat(40)}`;
  for (let i = 0; i < 5; i++) {
    chain.push(
      user(`Task ${i}: read file ${i}.`),
      call(`call_${i}`, `{"path":"f${i}.txt"}`),
      result(`call_${i}`, filler(i)),
      assistant(`Done ${i}. ${filler(i)}`),
    );
  }
  return chain;
}

function deepArray(depth) {
  let v = "x";
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

function deepObject(depth) {
  let v = {};
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

const ERR = {
  format: "unknown_format",
  shape: "invalid_shape",
  json: "invalid_json",
  option: "invalid_option",
  text: "invalid_text",
};

/** Readable, yet breaking a chain rule: strict parse and compact reject or repair it. */
const structural = (parseCode, diag, extra = {}) => ({
  compact: "changed",
  parseChain: parseCode,
  validateChain: `diag:${diag}`,
  repairChain: "changed",
  // Under the budget, compact's repair pass changes it: needsCompaction says so.
  needsCompaction: "true",
  ...extra,
});

export function cases() {
  const list = [];
  const add = (name, input, expect, extra = {}) => list.push({ name, input, expect, ...extra });

  // ---- A. not a chain at all ---------------------------------------------------------
  add("undefined", () => undefined, ERR.format, { path: "" });
  add("null", () => null, ERR.format, { path: "" });
  add("true", () => true, ERR.format, { path: "" });
  add("zero", () => 0, ERR.format, { path: "" });
  add("NaN", () => NaN, ERR.format, { path: "" });
  add("-Infinity", () => -Infinity, ERR.format, { path: "" });
  add("bigint", () => 10n, ERR.format, { path: "" });
  add("symbol", () => Symbol("x"), ERR.shape, { path: "" });
  add("function", () => () => [], ERR.shape, { path: "" });
  add("empty object", () => ({}), ERR.format, { path: "" });
  add("Date", () => new Date(0), ERR.format, { path: "" });
  add("Map", () => new Map([["role", "user"]]), ERR.format, { path: "" });
  add("Set", () => new Set([user()]), ERR.format, { path: "" });
  add("RegExp", () => /x/, ERR.format, { path: "" });
  add("Uint8Array", () => new Uint8Array([91, 93]), ERR.format, { path: "" });
  add("ArrayBuffer", () => new ArrayBuffer(8), ERR.format, { path: "" });
  add("Promise", () => Promise.resolve([user()]), ERR.format, { path: "" });
  add("Error object", () => new Error("x"), ERR.format, { path: "" });
  add("object with a bigint field", () => [{ ...user(), n: 1n }], ERR.shape, { path: "" });
  add(
    "toJSON that throws",
    () => [
      {
        toJSON() {
          throw new Error("nope");
        },
      },
    ],
    ERR.shape,
    { path: "" },
  );
  add("toJSON returning a number", () => [{ toJSON: () => 5 }], ERR.format, { path: "[0]" });

  // ---- B. JSON text --------------------------------------------------------------------
  add("empty string", () => "", ERR.json);
  add("not JSON", () => "not json", ERR.json);
  add("truncated JSON", () => "[{", ERR.json);
  add("JSON with a stray brace", () => "[{]", ERR.json);
  add("JSON null", () => "null", ERR.format, { path: "" });
  add("JSON number", () => "42", ERR.format, { path: "" });
  add("JSON string", () => '"text"', ERR.format, { path: "" });
  add("JSON empty object", () => "{}", ERR.format, { path: "" });
  add("JSON empty array", () => "[]", { default: "ok", validateChain: "diag:0", needsCompaction: "false" });
  add("NUL character", () => "\u0000", ERR.json);
  add("BOM before JSON", () => "\ufeff[]", ERR.json);
  add("trailing garbage", () => "[] x", ERR.json);
  add("JSON with a comment", () => "[/* c */]", ERR.json);
  add("number overflow 1e400", () => '[{"role":"user","content":"x","n":1e400}]', ERR.json);
  add(
    "100k-deep JSON text",
    () => `[{"role":"user","content":"x","meta":${"[".repeat(100_000)}${"]".repeat(100_000)}}]`,
    ERR.json,
  );
  add("lone surrogate escape in JSON text", () => '[{"role":"user","content":"a\\ud800b"}]', ERR.json);
  // A JS string holding a lone surrogate crosses into wasm as U+FFFD: readable.
  add("raw lone surrogate in JSON text", () => `[{"role":"user","content":"a\ud800b"}]`, {
    default: "ok",
    validateChain: "diag:0",
    needsCompaction: "false",
  });
  add("JSON text of a valid chain", () => JSON.stringify(ok()), {
    default: "ok",
    validateChain: "diag:0",
    needsCompaction: "false",
  });

  // ---- C. arrays of wrong things -------------------------------------------------------
  add("array of numbers", () => [1, 2], ERR.format, { path: "[0]" });
  add("array of strings", () => ["a"], ERR.format, { path: "[0]" });
  add("array of null", () => [null], ERR.format, { path: "[0]" });
  add("array of arrays", () => [[]], ERR.format, { path: "[0]" });
  add("sparse array", () => [, ,], ERR.format, { path: "[0]" }); // eslint-disable-line no-sparse-arrays
  add("array of undefined", () => [undefined], ERR.format, { path: "[0]" });
  add("array of empty objects", () => [{}], ERR.format, { path: "[0]" });
  add("valid message then a number", () => [user(), 5], ERR.format, { path: "[1]" });

  // ---- D. OpenAI messages with wrong fields ----------------------------------------------
  add("no role", () => [{ content: "x" }], ERR.format, { path: "[0]" });
  add("numeric role", () => [{ role: 5, content: "x" }], ERR.format, { path: "[0]" });
  add("null role", () => [{ role: null, content: "x" }], ERR.format, { path: "[0]" });
  add("unknown role", () => [{ role: "robot", content: "x" }], ERR.format, { path: "[0]" });
  add("empty role", () => [{ role: "", content: "x" }], ERR.format, { path: "[0]" });
  add("upper-case role", () => [{ role: "USER", content: "x" }], ERR.format, { path: "[0]" });
  add("unknown role after a valid message", () => [user(), { role: "robot", content: "x" }], ERR.format, {
    path: "[1]",
  });
  add("numeric content", () => [user(5)], ERR.format, { path: "[0]" });
  add("object content", () => [user({})], ERR.format, { path: "[0]" });
  add("content array of numbers", () => [user([1])], ERR.format, { path: "[0]" });
  add("content part of unknown type", () => [user([{ type: "hologram", data: 1 }])], ERR.format, { path: "[0]" });
  add("text part without text", () => [user([{ type: "text" }])], { default: ERR.shape, path: "[0].content[0].text" });
  add("text part with numeric text", () => [user([{ type: "text", text: 5 }])], {
    default: ERR.shape,
    path: "[0].content[0].text",
  });
  // Readable (no parts), but empty: validate reports it; compact has nothing to do and
  // hands the chain back as it came (the repair pass runs only on a changed chain).
  // Readable but empty: compact returns it repaired (always valid for the provider).
  add("user without content", () => [{ role: "user" }], {
    compact: "changed",
    parseChain: "ok",
    validateChain: "diag:empty_message",
    repairChain: "changed",
    needsCompaction: "true",
  });
  add("tool_calls is a string", () => [user(), { role: "assistant", content: null, tool_calls: "x" }], {
    default: ERR.shape,
    path: "[1].tool_calls",
  });
  add("tool_calls holds null", () => [user(), { role: "assistant", content: null, tool_calls: [null] }], {
    default: ERR.shape,
    path: "[1].tool_calls[0]",
  });
  add("tool call is empty", () => [user(), { role: "assistant", content: null, tool_calls: [{}] }], {
    default: ERR.shape,
    path: "[1].tool_calls[0].id",
  });
  add(
    "tool call without id",
    () => [
      user(),
      {
        role: "assistant",
        content: null,
        tool_calls: [{ type: "function", function: { name: "f", arguments: "{}" } }],
      },
    ],
    { default: ERR.shape, path: "[1].tool_calls[0].id" },
  );
  add(
    "numeric tool call id",
    () => [
      user(),
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: 5, type: "function", function: { name: "f", arguments: "{}" } }],
      },
    ],
    { default: ERR.shape, path: "[1].tool_calls[0].id" },
  );
  add(
    "tool call without function",
    () => [user(), { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function" }] }],
    { default: ERR.shape, path: "[1].tool_calls[0].function" },
  );
  add(
    "numeric function name",
    () => [
      user(),
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c", type: "function", function: { name: 5, arguments: "{}" } }],
      },
    ],
    { default: ERR.shape, path: "[1].tool_calls[0].function.name" },
  );
  add(
    "arguments as an object",
    () => [
      user(),
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: { a: 1 } } }],
      },
    ],
    { default: ERR.shape, path: "[1].tool_calls[0].function.arguments" },
  );
  add("invalid JSON arguments", () => ok(call("c", "{not json"), result("c")), {
    default: "ok",
    validateChain: "diag:0",
    needsCompaction: "false",
  });
  add("empty arguments", () => ok(call("c", ""), result("c")), {
    default: "ok",
    validateChain: "diag:0",
    needsCompaction: "false",
  });
  add(
    "10 MB arguments",
    () => ok(call("c", JSON.stringify({ blob: "y".repeat(10 * 1024 * 1024) })), result("c")),
    { default: "ok", compact: "changed", validateChain: "diag:0", needsCompaction: "true" },
    { boundMs: 20_000 },
  );
  add("tool message without tool_call_id", () => ok(call("c"), { role: "tool", content: "r" }), {
    default: ERR.shape,
    path: "[2].tool_call_id",
  });
  add("numeric tool_call_id", () => ok(call("c"), { role: "tool", tool_call_id: 5, content: "r" }), {
    default: ERR.shape,
    path: "[2].tool_call_id",
  });
  add("numeric tool content", () => ok(call("c"), { role: "tool", tool_call_id: "c", content: 5 }), ERR.format, {
    path: "[2]",
  });
  add("image_url without url", () => [user([{ type: "image_url", image_url: {} }])], {
    default: ERR.shape,
    path: "[0].content[0].image_url.url",
  });
  add(
    "legacy function role",
    () => [{ role: "function", name: "f", content: "x" }],
    structural("invalid_start", "starts_with_tool_result", { compact: "invalid_start", repairChain: "changed" }),
  );

  // ---- E. Anthropic ------------------------------------------------------------------------
  add("anthropic: numeric system", () => ({ system: 5, messages: [user()] }), ERR.shape, { path: "system" });
  add("anthropic: messages is a string", () => ({ system: "s", messages: "x" }), ERR.format, { path: "messages" });
  add("anthropic: no messages", () => ({ system: "s" }), { default: ERR.format, path: "" });
  add("anthropic: block without type", () => [user([{ text: "x" }])], ERR.format, { path: "[0]" });
  add(
    "anthropic: tool_use without id",
    () => [user(), { role: "assistant", content: [{ type: "tool_use", name: "f", input: {} }] }],
    ERR.shape,
    { path: "[1].content[0].id" },
  );
  add(
    "anthropic: tool_use input is a string",
    () => [
      user(),
      { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: "x" }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "r" }] },
    ],
    { default: "ok", validateChain: "diag:0", needsCompaction: "false" },
  );
  add(
    "anthropic: tool_result without tool_use_id",
    () => [
      user(),
      { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] },
      { role: "user", content: [{ type: "tool_result", content: "r" }] },
    ],
    ERR.shape,
    { path: "[2].content[0].tool_use_id" },
  );
  // Anthropic rejects thinking without its signature (issue 14): reported, and dropped by repair.
  add(
    "anthropic: thinking without signature",
    () => [
      user(),
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hm" },
          { type: "text", text: "x" },
        ],
      },
    ],
    {
      default: "ok",
      compact: "changed",
      validateChain: "diag:unsigned_thinking",
      repairChain: "changed",
      needsCompaction: "true",
    },
  );
  // Readable; the part is then invalid for every provider (its path is in native terms).
  add(
    "anthropic: image with a bad source",
    () => [user([{ type: "image", source: { type: "base64" } }])],
    structural("invalid_part", "invalid_part", { compact: "invalid_part" }),
    { path: "[0]" },
  );
  // A leading system message inside messages is read (cc82a75); with a system field too,
  // that is two system prompts, which Anthropic refuses: repaired by merging them.
  add(
    "anthropic: leading system role inside messages, and a system field",
    () => ({ system: "s", messages: [{ role: "system", content: "x" }, user()] }),
    {
      compact: "changed",
      parseChain: "ok",
      validateChain: "diag:multiple_system",
      repairChain: "changed",
      needsCompaction: "true",
    },
  );
  add(
    "anthropic: system role after the conversation started",
    // A `SystemMessageParam`: kept where it is.
    () => ({ system: "s", messages: [user(), { role: "system", content: "x" }, assistant()] }),
    {
      default: "ok",
      compact: "unchanged",
      validateChain: "diag:0",
      repairChain: "unchanged",
      needsCompaction: "false",
    },
  );
  add(
    "anthropic: unknown top-level keys kept",
    () => ({ system: "s", messages: [user()], model: "claude", max_tokens: 5 }),
    { default: "ok", validateChain: "diag:0", needsCompaction: "false" },
  );

  // ---- F. native ---------------------------------------------------------------------------
  add("native: parts is a string", () => [{ role: "user", parts: "x" }], ERR.format, { path: "[0]" });
  add("native: unknown part type", () => [{ role: "user", parts: [{ type: "bogus" }] }], ERR.format, { path: "[0]" });
  add(
    "native: toolCall without id",
    () => [
      { role: "user", parts: [{ type: "text", text: "x" }] },
      { role: "assistant", parts: [{ type: "toolCall", name: "f" }] },
    ],
    { default: ERR.shape, path: "[1].parts[0]" },
  );
  add(
    "native: toolResult content is a string",
    () => [{ role: "tool", parts: [{ type: "toolResult", callId: "c", content: "x" }] }],
    { default: ERR.shape, path: "[0].parts[0].content" },
  );
  add("native: unknown role", () => [{ role: "robot", parts: [] }], { default: ERR.format, path: "[0]" });

  // ---- G. readable chains that break a rule (repaired or rejected, never a crash) -----------
  add("orphan tool result", () => [user(), result("zz"), assistant()], structural("unexpected_tool", "orphan_result"));
  add(
    "unanswered tool call",
    () => [user(), call("c"), assistant()],
    structural("missing_tool_result", "unanswered_call"),
  );
  add(
    "duplicate tool result",
    () => ok(call("c"), result("c"), result("c")),
    structural("duplicate_tool_result", "duplicate_result"),
  );
  add(
    "result before its call",
    () => [user(), result("c"), call("c"), assistant()],
    // Stored out of order within the turn: repair moves it after its call.
    structural("unexpected_tool", "result_not_after_call"),
  );
  add(
    "system message in the middle",
    () => [user(), { role: "system", content: "late" }, assistant()],
    // OpenAI takes a system (or developer) message anywhere: kept where it is.
    {
      default: "ok",
      compact: "unchanged",
      validateChain: "diag:0",
      repairChain: "unchanged",
      needsCompaction: "false",
    },
  );
  add(
    "system message between a call and its result",
    () => [user(), call(), { role: "system", content: "late" }, result()],
    // compact and repairChain move the result to its call; the AST reads no such chain.
    structural("system_after_start", "result_not_after_call"),
    { path: "[2]" },
  );
  // Valid for OpenAI (a chat UI's greeting): read, kept as it is.
  add("starts with an assistant", () => [assistant(), user(), assistant()], {
    compact: "unchanged",
    parseChain: "ok",
    validateChain: "diag:0",
    repairChain: "unchanged",
    needsCompaction: "false",
  });
  add("empty text content", () => [user(""), assistant()], structural("ok", "empty_message"));
  add(
    "duplicate tool call ids",
    () =>
      ok(
        { role: "assistant", content: null, tool_calls: [call("c").tool_calls[0], call("c").tool_calls[0]] },
        result("c"),
      ),
    structural("duplicate_tool_call_id", "duplicate_call_id", { compact: "duplicate_tool_call_id" }),
  );

  // ---- H. cycles -----------------------------------------------------------------------------
  add(
    "self-referencing message",
    () => {
      const m = user();
      m.self = m;
      return [m];
    },
    ERR.shape,
    { path: "" },
  );
  add(
    "array containing itself",
    () => {
      const a = [];
      a.push(a);
      return a;
    },
    ERR.shape,
    { path: "" },
  );
  add(
    "cyclic content array",
    () => {
      const parts = [{ type: "text", text: "x" }];
      parts.push(parts);
      return [user(parts)];
    },
    ERR.shape,
    { path: "" },
  );
  add(
    "cycle inside tool_calls",
    () => {
      const c = call("c");
      c.tool_calls[0].function.self = c;
      return ok(c, result("c"));
    },
    ERR.shape,
    { path: "" },
  );

  // ---- I. strings and sizes ----------------------------------------------------------------
  // A lone surrogate is no Unicode text: rejected, located in the caller's own value.
  add("lone high surrogate in content", () => [user("a\ud800b"), assistant()], ERR.text, { path: "[0].content" });
  add("lone low surrogate in content", () => [user("\udc00"), assistant()], ERR.text, { path: "[0].content" });
  add("lone surrogate in a role", () => [{ role: "user\ud800", content: "x" }], ERR.text, { path: "[0].role" });
  add("lone surrogate in a tool call id", () => ok(call("c\ud800"), result("c\ud800")), ERR.text, {
    path: "[1].tool_calls[0].id",
  });
  add("lone surrogate in an object key", () => [{ ...user(), ["k\ud800"]: 1 }], ERR.text, { path: "[0].k\ud800" });
  add("NUL characters in content", () => [user("a\u0000b"), assistant("\u0000")], {
    default: "ok",
    validateChain: "diag:0",
    needsCompaction: "false",
  });
  add("emoji and combining marks", () => [user("👩‍👩‍👧 é ﷽"), assistant("ok")], {
    default: "ok",
    validateChain: "diag:0",
    needsCompaction: "false",
  });
  add(
    "50 MB string",
    () => [user("x".repeat(50 * 1024 * 1024)), assistant()],
    // Over the default strategy's 100,000-token budget on its own: the latest request
    // stays verbatim or the call fails, naming it (it was summarized away).
    { default: "ok", compact: "budget_exceeded", validateChain: "diag:0", needsCompaction: "true" },
    { boundMs: 20_000 },
  );
  add("1 MB object key", () => [{ ...user(), ["k".repeat(1024 * 1024)]: 1 }, assistant()], {
    default: "ok",
    validateChain: "diag:0",
    needsCompaction: "false",
  });
  add("100k-deep nested content array", () => [user(deepArray(100_000))], ERR.shape, { path: "" });
  add("100k-deep nested extra field", () => [{ ...user(), meta: deepArray(100_000) }], ERR.shape, { path: "" });
  add(
    "100k-deep nested tool_use input",
    () => [
      user(),
      { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: deepObject(100_000) }] },
    ],
    ERR.shape,
    { path: "" },
  );
  add("200-deep nested extra field", () => [{ ...user(), meta: deepArray(200) }, assistant()], ERR.json);
  add("100-deep nested extra field", () => [{ ...user(), meta: deepArray(100) }, assistant()], {
    default: "ok",
    validateChain: "diag:0",
    needsCompaction: "false",
  });
  add(
    "10k parallel tool calls",
    () => {
      const ids = Array.from({ length: 10_000 }, (_, i) => `c${i}`);
      return [
        user(),
        { role: "assistant", content: null, tool_calls: ids.map((id) => call(id).tool_calls[0]) },
        ...ids.map((id) => result(id)),
        assistant(),
      ];
    },
    { default: "ok", compact: "changed", validateChain: "diag:0", needsCompaction: "true" },
    { boundMs: 20_000 },
  );
  add(
    "100k small messages",
    () => Array.from({ length: 100_000 }, (_, i) => (i % 2 ? assistant(`a${i}`) : user(`u${i}`))),
    // Over the default strategy's 100,000-token budget.
    { default: "ok", validateChain: "diag:0", needsCompaction: "true" },
    { boundMs: 20_000 },
  );

  // ---- J. prototype pollution ----------------------------------------------------------------
  add(
    "__proto__ key in a message",
    () => JSON.parse('[{"role":"user","content":"x","__proto__":{"polluted":1}},{"role":"assistant","content":"y"}]'),
    { default: "ok", validateChain: "diag:0", needsCompaction: "false" },
  );
  add(
    "constructor.prototype in a message",
    () =>
      JSON.parse(
        '[{"role":"user","content":"x","constructor":{"prototype":{"polluted":1}}},{"role":"assistant","content":"y"}]',
      ),
    { default: "ok", validateChain: "diag:0", needsCompaction: "false" },
  );
  add(
    "__proto__ in a tool call",
    () =>
      JSON.parse(
        '[{"role":"user","content":"x"},{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\\"__proto__\\":{\\"polluted\\":1}}","__proto__":{"polluted":1}}}]},{"role":"tool","tool_call_id":"c","content":"r"},{"role":"assistant","content":"y"}]',
      ),
    { default: "ok", validateChain: "diag:0", needsCompaction: "false" },
  );
  add(
    "__proto__ in JSON text",
    () => '[{"role":"user","content":"x","__proto__":{"polluted":1}},{"role":"assistant","content":"y"}]',
    { default: "ok", validateChain: "diag:0", needsCompaction: "false" },
  );
  add("__proto__ as the role", () => [{ role: "__proto__", content: "x" }], ERR.format, { path: "[0]" });
  add(
    "anthropic request with __proto__",
    () => JSON.parse('{"system":"s","messages":[{"role":"user","content":"x"}],"__proto__":{"polluted":1}}'),
    { default: "ok", validateChain: "diag:0", needsCompaction: "false" },
  );
  add("null-prototype message", () => [Object.assign(Object.create(null), user()), assistant()], {
    default: "ok",
    validateChain: "diag:0",
    needsCompaction: "false",
  });
  add(
    "class instance message",
    () => [
      new (class Msg {
        role = "user";
        content = "x";
      })(),
      assistant(),
    ],
    { default: "ok", validateChain: "diag:0", needsCompaction: "false" },
  );
  add(
    "getter that throws",
    () => {
      const m = { role: "user" };
      Object.defineProperty(m, "content", {
        get() {
          throw new Error("boom");
        },
        enumerable: true,
      });
      return [m];
    },
    ERR.shape,
    { path: "" },
  );
  add(
    "proxy that throws",
    () => [
      new Proxy(
        {},
        {
          get() {
            throw new Error("proxy");
          },
          ownKeys() {
            throw new Error("keys");
          },
        },
      ),
    ],
    ERR.shape,
    { path: "" },
  );

  // ---- K. options ------------------------------------------------------------------------------
  const opt = (name, options, expect, extra = {}) => add(`options: ${name}`, () => ok(), expect, { options, ...extra });
  // A value only compact uses is checked by needsCompaction too (one reader for both).
  const compactOnly = (code) => ({ default: "ok", validateChain: "diag:0", needsCompaction: code, compact: code });
  const strategyOpt = (code) => ({ default: "ok", validateChain: "diag:0", compact: code, needsCompaction: code });
  opt("a number", () => 5, { default: ERR.option }, { path: "options" });
  opt("a string", () => "openai", { default: ERR.option }, { path: "options" });
  // An array is no options object for compact and needsCompaction (the chain functions
  // read its absent keys: the defaults).
  opt(
    "an array",
    () => [],
    { default: "ok", validateChain: "diag:0", compact: ERR.option, needsCompaction: ERR.option },
    { path: "options" },
  );
  opt("format is a number", () => ({ format: 5 }), ERR.option, { path: "options.format" });
  opt("unknown format", () => ({ format: "klingon" }), ERR.option, { path: "options.format" });
  opt("the wrong format", () => ({ format: "anthropic" }), {
    default: "ok",
    validateChain: "diag:0",
    needsCompaction: "false",
  });
  // A native message must have `parts`: OpenAI messages read as native are an error at
  // the first one, never silently empty messages.
  opt("native format for OpenAI messages", () => ({ format: "native" }), ERR.shape, { path: "[0]" });
  opt("unknown strategy", () => ({ strategy: "nope" }), strategyOpt(ERR.option), { path: "options.strategy" });
  opt("strategy is a number", () => ({ strategy: 5 }), strategyOpt(ERR.option), { path: "options.strategy" });
  opt("strategy without a name", () => ({ strategy: {} }), strategyOpt(ERR.option), { path: "options.strategy" });
  opt(
    "negative keepQASections",
    () => ({ strategy: { name: "sections", keepQASections: -1 } }),
    strategyOpt(ERR.option),
    { path: "options.strategy.keepQASections" },
  );
  opt(
    "lastSecBytes is a string",
    () => ({ strategy: { name: "sections", lastSecBytes: "big" } }),
    strategyOpt(ERR.option),
    { path: "options.strategy.lastSecBytes" },
  );
  opt(
    "reservePercent over 100",
    () => ({ strategy: { name: "sections", reservePercent: 101 } }),
    strategyOpt(ERR.option),
    { path: "options.strategy.reservePercent" },
  );
  opt("negative maxTokens", () => ({ maxTokens: -5 }), strategyOpt(ERR.option), { path: "options.maxTokens" });
  opt("NaN maxTokens", () => ({ maxTokens: NaN }), strategyOpt(ERR.option), { path: "options.maxTokens" });
  opt("Infinity maxTokens", () => ({ maxTokens: Infinity }), strategyOpt(ERR.option), { path: "options.maxTokens" });
  opt("maxTokens 1e300", () => ({ maxTokens: 1e300 }), strategyOpt(ERR.option), { path: "options.maxTokens" });
  opt("maxTokens is a string", () => ({ maxTokens: "100" }), strategyOpt(ERR.option), { path: "options.maxTokens" });
  opt("maxTokens and maxBytes", () => ({ maxTokens: 100, maxBytes: 100 }), strategyOpt(ERR.option), {
    path: "options.maxBytes",
  });
  opt("budget without a budget", () => ({ strategy: "budget" }), strategyOpt(ERR.option), {
    path: "options.maxTokens",
  });
  opt("concurrency 0", () => ({ concurrency: 0 }), compactOnly(ERR.option), { path: "options.concurrency" });
  opt("concurrency 1.5", () => ({ concurrency: 1.5 }), compactOnly(ERR.option), { path: "options.concurrency" });
  opt("negative concurrency", () => ({ concurrency: -1 }), compactOnly(ERR.option), { path: "options.concurrency" });
  opt("negative timeoutMs", () => ({ timeoutMs: -1 }), compactOnly(ERR.option), { path: "options.timeoutMs" });
  opt("summarizer is a string", () => ({ summarizer: "fn" }), compactOnly(ERR.option), { path: "options.summarizer" });
  opt("signal is a plain object", () => ({ signal: {} }), compactOnly(ERR.option), { path: "options.signal" });
  opt("unknown onError", () => ({ onError: "explode" }), compactOnly(ERR.option), { path: "options.onError" });
  opt(
    "unknown provider",
    () => ({ provider: "nope" }),
    { default: ERR.option, parseChain: "ok" },
    { path: "options.provider" },
  );
  opt(
    "tokenCounter is a number",
    () => ({ tokenCounter: 5 }),
    { default: "ok", validateChain: "diag:0", compact: ERR.option, needsCompaction: ERR.option },
    { path: "options.tokenCounter" },
  );
  opt("onProgress is a number", () => ({ onProgress: 5 }), compactOnly(ERR.option), { path: "options.onProgress" });
  // A repairChain option: compact and needsCompaction do not read it, so it is unknown
  // to them (issue 14: unknown options are errors, not ignored).
  opt(
    "orphanResults unknown",
    () => ({ orphanResults: "bogus" }),
    {
      default: "ok",
      validateChain: "diag:0",
      needsCompaction: ERR.option,
      compact: ERR.option,
      repairChain: ERR.option,
    },
    { path: "options.orphanResults" },
  );
  // Issue 14: a misspelt option was silently ignored (and with it, the budget).
  const unknownOpt = { default: "ok", validateChain: "diag:0", compact: ERR.option, needsCompaction: ERR.option };
  // A key no function reads is an error in every function (the chain functions accept
  // compact's keys, so the strategy settings below are theirs to ignore).
  opt("unknown option maxToken", () => ({ maxToken: 100 }), ERR.option, { path: "options.maxToken" });
  opt("unknown strategy setting", () => ({ strategy: { name: "budget", keepRecnt: 3 }, maxTokens: 100 }), unknownOpt, {
    path: "options.strategy.keepRecnt",
  });
  opt(
    "a setting of another strategy",
    () => ({ strategy: { name: "budget", useQA: true }, maxTokens: 100 }),
    unknownOpt,
    { path: "options.strategy.useQA" },
  );
  opt(
    "a getter that throws",
    () => {
      const o = {};
      Object.defineProperty(o, "format", {
        get() {
          throw new Error("getter");
        },
        enumerable: true,
      });
      return o;
    },
    ERR.option,
    { path: "options.format" },
  );
  opt(
    "a proxy that throws",
    () =>
      new Proxy(
        {},
        {
          get() {
            throw new Error("proxy");
          },
          ownKeys() {
            throw new Error("keys");
          },
          has() {
            throw new Error("has");
          },
        },
      ),
    ERR.option,
  );
  opt("__proto__ key", () => JSON.parse('{"__proto__":{"format":"klingon"},"strategy":"sections"}'), {
    default: "ok",
    validateChain: "diag:0",
    needsCompaction: "false",
  });

  // Options that matter only once there is something to compact.
  // (`sections`: it compacts the long chain without a budget.)
  const big = (name, options, expect, extra = {}) =>
    add(`options on a long chain: ${name}`, longChain, expect, {
      options: () => ({ strategy: "sections", ...options() }),
      ...extra,
    });
  big("an aborted signal", () => ({ signal: AbortSignal.abort(), summarizer: async () => "S." }), {
    default: "ok",
    validateChain: "diag:0",
    needsCompaction: "true",
    compact: "ok",
  });
  big(
    "a summarizer that throws synchronously",
    () => ({
      summarizer: () => {
        throw new Error("sync");
      },
    }),
    { default: "ok", validateChain: "diag:0", needsCompaction: "true", compact: "ok" },
  );
  big("a summarizer returning a number", () => ({ summarizer: async () => 42 }), {
    default: "ok",
    validateChain: "diag:0",
    needsCompaction: "true",
    compact: "ok",
  });
  big("a summarizer returning null", () => ({ summarizer: async () => null }), {
    default: "ok",
    validateChain: "diag:0",
    needsCompaction: "true",
    compact: "ok",
  });
  big(
    "a summarizer returning a thenable that never settles, with timeoutMs",
    () => ({ summarizer: () => ({ then() {} }), timeoutMs: 50 }),
    { default: "ok", validateChain: "diag:0", needsCompaction: "true", compact: "ok" },
  );
  big(
    "a summarizer that throws, onError throw",
    () => ({
      summarizer: async () => {
        throw new Error("x");
      },
      onError: "throw",
    }),
    { default: "ok", validateChain: "diag:0", needsCompaction: "true", compact: "summarizer_failed" },
  );
  big(
    "a tokenCounter returning too few counts",
    () => ({ tokenCounter: () => [1], strategy: "budget", maxTokens: 2000, summarizer: async () => "S." }),
    {
      default: "ok",
      validateChain: "diag:0",
      compact: "token_counter_failed",
      needsCompaction: "token_counter_failed",
    },
  );
  big(
    "a tokenCounter returning NaN",
    () => ({
      tokenCounter: (t) => t.map(() => NaN),
      strategy: "budget",
      maxTokens: 2000,
      summarizer: async () => "S.",
    }),
    {
      default: "ok",
      validateChain: "diag:0",
      compact: "token_counter_failed",
      needsCompaction: "token_counter_failed",
    },
  );
  big(
    "a tokenCounter that throws",
    () => ({
      tokenCounter: () => {
        throw new Error("tc");
      },
      strategy: "budget",
      maxTokens: 2000,
      summarizer: async () => "S.",
    }),
    {
      default: "ok",
      validateChain: "diag:0",
      compact: "token_counter_failed",
      needsCompaction: "token_counter_failed",
    },
  );
  big(
    "an onProgress that throws",
    () => ({
      onProgress: () => {
        throw new Error("p");
      },
      summarizer: async () => "S.",
    }),
    { default: "ok", validateChain: "diag:0", needsCompaction: "true", compact: "changed" },
  );
  big("an impossible budget", () => ({ strategy: "budget", maxTokens: 1, summarizer: async () => "S." }), {
    default: "ok",
    validateChain: "diag:0",
    compact: "budget_exceeded",
    needsCompaction: "true",
  });

  return list;
}
