// Seeded generator of synthetic OpenAI Chat chains with tool calls, for the benchmarks
// (and reusable by tests). The same (messages, seed) always gives the same chain.
//
// Shape: a system prompt, then user turns ("sections"); each turn has 1-6 assistant
// steps, most of them tool calls (1-3 parallel calls, each answered by a tool message
// right after), and ends with an assistant text answer. Texts are words drawn from a
// small vocabulary plus file paths, numbers and the occasional error line, so sizes
// look like a coding-agent session (tool outputs 60 B - 2.5 KB, about 600 B per message
// on average).

/** mulberry32: a tiny deterministic PRNG returning floats in [0, 1). */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "the a to of and in is it that for on with as this file function test error value " +
  "build run check return module config path line result change update fix read write " +
  "parse token chain message tool call summary section budget window output input " +
  "compile warning failed passed import export const let async await promise node rust"
).split(" ");
const TOOLS = ["read_file", "run_command", "search", "edit_file", "list_dir"];

function words(next, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const r = next();
    if (r < 0.03) out.push(`src/${WORDS[Math.floor(next() * WORDS.length)]}_${Math.floor(next() * 100)}.rs`);
    else if (r < 0.05) out.push(String(Math.floor(next() * 100000)));
    else out.push(WORDS[Math.floor(next() * WORDS.length)]);
  }
  return out.join(" ");
}

/**
 * What `search` and `list_dir` return when a chain's tools answer in JSON, as API tools
 * do: an object of records (pretty-printed half the time), about the size of a text one.
 */
function jsonToolOutput(next, name) {
  const count = 2 + Math.floor(next() * 12);
  const records = [];
  for (let i = 0; i < count; i++) {
    records.push(
      name === "search"
        ? {
            path: `src/${words(next, 1)}.rs`,
            line: Math.floor(next() * 900),
            text: words(next, 6),
            score: Math.floor(next() * 1000) / 1000,
          }
        : { name: `${words(next, 1)}.rs`, type: next() < 0.8 ? "file" : "dir", size: Math.floor(next() * 90000) },
    );
  }
  const value =
    name === "search" ? { matches: records, total: count, truncated: false } : { path: "src", entries: records };
  return next() < 0.5 ? JSON.stringify(value, null, 2) : JSON.stringify(value);
}

function toolOutput(next) {
  const lines = 2 + Math.floor(next() * 24);
  const out = [];
  for (let i = 0; i < lines; i++) {
    out.push(
      next() < 0.05
        ? `error[E0${Math.floor(next() * 999)}]: ${words(next, 8)}`
        : words(next, 4 + Math.floor(next() * 9)),
    );
  }
  return out.join("\n");
}

/**
 * An OpenAI chain of exactly `count` messages (at least 3), seeded. With `jsonOutputs`,
 * the `search` and `list_dir` tools (two in five calls) answer in JSON. Tool results always
 * follow their call; the chain ends with an assistant text, so it is valid for OpenAI.
 */
export function openaiChain(count, seed = 1, { jsonOutputs = false } = {}) {
  const next = rng(seed);
  const chain = [{ role: "system", content: `You are a coding agent. ${words(next, 30)}` }];
  let callId = 0;
  let turn = 0;
  while (chain.length < count) {
    const left = count - chain.length;
    if (left < 2) {
      // Pad with a last assistant text when only one slot is left.
      chain.push({ role: "assistant", content: words(next, 20) });
      break;
    }
    chain.push({ role: "user", content: `Task ${turn++}: ${words(next, 8 + Math.floor(next() * 40))}` });
    const steps = 1 + Math.floor(next() * 6);
    for (let s = 0; s < steps && count - chain.length > 1; s++) {
      const room = count - chain.length - 1; // keep one slot for the final answer
      const calls = Math.min(1 + Math.floor(next() * 3), room - 1);
      if (calls < 1) break;
      const toolCalls = [];
      for (let c = 0; c < calls; c++) {
        const name = TOOLS[Math.floor(next() * TOOLS.length)];
        toolCalls.push({
          id: `call_${(callId++).toString(36)}`,
          type: "function",
          function: { name, arguments: JSON.stringify({ path: `src/${words(next, 1)}.rs`, query: words(next, 3) }) },
        });
      }
      chain.push({ role: "assistant", content: next() < 0.4 ? words(next, 10) : null, tool_calls: toolCalls });
      for (const call of toolCalls) {
        const json = jsonOutputs && (call.function.name === "search" || call.function.name === "list_dir");
        chain.push({
          role: "tool",
          tool_call_id: call.id,
          content: json ? jsonToolOutput(next, call.function.name) : toolOutput(next),
        });
      }
    }
    chain.push({ role: "assistant", content: words(next, 20 + Math.floor(next() * 120)) });
  }
  return chain;
}
