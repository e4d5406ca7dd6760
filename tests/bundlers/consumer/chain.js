// The chain every consumer compacts: over every strategy's trigger, no package import.
const section = (i) => [
  { role: "user", content: `Task ${i}: check module ${i}.` },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      {
        id: `call_${i}`,
        type: "function",
        function: { name: "read", arguments: JSON.stringify({ path: `src/m${i}.rs` }) },
      },
    ],
  },
  {
    role: "tool",
    tool_call_id: `call_${i}`,
    content: `fn m${i}() {} // ${"the module compiles and links cleanly; ".repeat(40)}`,
  },
  { role: "assistant", content: `Module ${i} is fine. ${"lorem ipsum dolor sit amet ".repeat(40)}` },
];

/** A chain over every strategy's trigger: six finished sections and a new question. */
export const chain = () => [
  { role: "system", content: "You review code." },
  ...[0, 1, 2, 3, 4, 5].flatMap(section),
  { role: "user", content: "And module 6?" },
];
