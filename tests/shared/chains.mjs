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
