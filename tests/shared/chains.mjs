// Small chains shared by every test layer. Plain ES module with no imports, so that the
// browser page and the workerd Worker can load it as well as Node.

/** System prompt, a tool round trip, an answer, then a second user turn. */
export const openaiChain = () => [
  { role: "system", content: "You are terse." },
  { role: "user", content: "What is in a.txt?" },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"a.txt"}' } }],
  },
  { role: "tool", tool_call_id: "call_1", content: "hello" },
  { role: "assistant", content: "It says hello." },
  { role: "user", content: "Thanks." },
  { role: "assistant", content: "You're welcome." },
];

/** Message [2] answers call_2, which nobody made (and call_1 gets no answer). */
export const orphanResultChain = () => [
  { role: "user", content: "What is in a.txt?" },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: "{}" } }],
  },
  { role: "tool", tool_call_id: "call_2", content: "hello" },
  { role: "assistant", content: "It says hello." },
];

export const filler = (i) => `Section ${i}: ${"the quick brown fox jumps over the lazy dog ".repeat(20)}`;

/**
 * An OpenAI chain of `sections` sections (a user turn each), every one with a tool
 * round trip and a long answer, so each older section is worth summarizing.
 */
export function openaiSections(sections) {
  const chain = [{ role: "system", content: "You are a careful assistant." }];
  for (let i = 0; i < sections; i++) {
    chain.push({ role: "user", content: `Task ${i}: read file ${i}.` });
    chain.push({
      role: "assistant",
      content: null,
      tool_calls: [
        { id: `call_${i}`, type: "function", function: { name: "read", arguments: `{"path":"f${i}.txt"}` } },
      ],
    });
    chain.push({ role: "tool", tool_call_id: `call_${i}`, content: filler(i) });
    chain.push({ role: "assistant", content: `Done with task ${i}. ${filler(i)}` });
  }
  return chain;
}

// A 1x1 PNG, as a data: URL.
const PNG_URL =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/**
 * An OpenAI Responses API history of `turns` agent turns, in the item shapes of the API
 * reference: reasoning with encrypted content, function and custom tool calls with their
 * outputs, a server-side web search, a shell call, and the answer.
 */
export function responsesItems(turns) {
  const items = [
    { role: "developer", content: "Answer tersely." },
    {
      type: "message",
      role: "user",
      content: [
        { type: "input_text", text: "Here is a screenshot." },
        { type: "input_image", image_url: PNG_URL, detail: "high" },
      ],
    },
  ];
  for (let i = 0; i < turns; i++) {
    items.push(
      { role: "user", content: `Task ${i}: why does build ${i} fail?` },
      {
        type: "reasoning",
        id: `rs_${i}`,
        summary: [{ type: "summary_text", text: `Reading log ${i}.` }],
        encrypted_content: `gAAAAAB${i}${"x".repeat(40)}`,
      },
      {
        type: "function_call",
        id: `fc_${i}`,
        call_id: `call_${i}a`,
        name: "read_file",
        arguments: `{"path":"logs/${i}.log"}`,
      },
      { type: "function_call_output", call_id: `call_${i}a`, output: filler(i).repeat(3) },
      { type: "web_search_call", id: `ws_${i}`, status: "completed", action: { type: "search", query: `error ${i}` } },
      {
        type: "custom_tool_call",
        call_id: `call_${i}b`,
        name: "apply_diff",
        input: `*** Begin Patch\n+fix ${i}\n*** End Patch`,
      },
      { type: "custom_tool_call_output", call_id: `call_${i}b`, output: "Done." },
      {
        type: "shell_call",
        call_id: `call_${i}c`,
        status: "completed",
        action: { commands: [`cargo test -p crate${i}`], timeout_ms: 60000, max_output_length: 4096 },
      },
      {
        type: "shell_call_output",
        call_id: `call_${i}c`,
        output: [{ stdout: "ok\n".repeat(200), stderr: "", outcome: { type: "exit", exit_code: 0 } }],
      },
      {
        type: "message",
        id: `msg_${i}`,
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: `Build ${i} fails on a stale lock file.`, annotations: [] }],
      },
    );
  }
  return items;
}

/**
 * Where a Responses input breaks the API's rules, written from its reference: an output
 * answering no earlier call of its kind, a function or custom call left unanswered, a
 * content part that is an item, a reasoning item not followed by an item of its turn.
 */
export function responsesProblems(items, before = undefined) {
  const problems = [];
  // What followed each reasoning item in the input: the output it was produced with.
  const follower = new Map();
  const key = (item) => item?.id ?? item?.call_id;
  before?.forEach((item, i) => {
    if (item.type === "reasoning" && item.id) follower.set(item.id, key(before[i + 1]));
  });
  const calls = new Map();
  const answered = new Set();
  const contentTypes = new Set(["input_text", "output_text", "refusal", "input_image", "input_file"]);
  items.forEach((item, i) => {
    const kind = item.type ?? "message";
    for (const part of Array.isArray(item.content) ? item.content : []) {
      if (!contentTypes.has(part.type)) problems.push(`[${i}]: a ${part.type} content part`);
    }
    if (kind.endsWith("_output")) {
      if (calls.get(item.call_id) !== kind.slice(0, -"_output".length)) {
        problems.push(`[${i}]: ${kind} answers no earlier call`);
      }
      answered.add(item.call_id);
    } else if (typeof item.call_id === "string") {
      calls.set(item.call_id, kind);
    }
    if (kind === "reasoning") {
      const next = items[i + 1];
      const userSide = next && typeof next.role === "string" && next.role !== "assistant";
      if (!next || (next.type ?? "").endsWith("_output") || userSide) problems.push(`[${i}]: reasoning left alone`);
      else if (follower.has(item.id) && key(next) !== follower.get(item.id)) {
        problems.push(`[${i}]: reasoning ${item.id} before ${key(next) ?? next.type}, not ${follower.get(item.id)}`);
      }
    }
  });
  for (const [id, kind] of calls) {
    if ((kind === "function_call" || kind === "custom_tool_call") && !answered.has(id)) {
      problems.push(`${kind} ${id} unanswered`);
    }
  }
  return problems;
}
