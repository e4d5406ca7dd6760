// The smallest use, what the README promises for Node, workerd and server bundles: the
// main entry alone (no `contextfold/worker`, whose imports would keep the instantiating
// entry alive by another path), ready on import, compacting with the built-in summarizer.
import { compact } from "contextfold";
import { chain } from "./chain.js";

export async function plain() {
  const input = chain();
  const { messages, report } = await compact(input, { maxTokens: 1000 });
  return { input: input.length, output: messages.length, calls: report.calls };
}
