// Shared by the Node tests: paths, and the small chains the tests parse.
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

/** The real transcripts shared beside the repository, or null when absent. */
export const fixturesDir = (() => {
  const dir = join(root, "../shared/fixtures/real");
  return existsSync(dir) ? dir : null;
})();

export function fixtureFiles() {
  if (fixturesDir === null) return [];
  return readdirSync(fixturesDir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => join(fixturesDir, f));
}

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
