// contextfold/openai-agents against the OpenAI Agents SDK's own types (type-checked by
// types.test.mjs, never run): the session wrapper is an Agents SDK `Session` that `run`
// takes, and compactAgentItems gives back the SDK's own item type.
import { Agent, type AgentInputItem, MemorySession, run, type Session } from "@openai/agents-core";
import { compactAgentItems, contextfoldSession } from "contextfold/openai-agents";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | void {}

const session: Session = contextfoldSession(new MemorySession(), { maxTokens: 8000 });
await run(new Agent({ name: "a" }), "hi", { session });
const history: AgentInputItem[] = await session.getItems();
const { items } = await compactAgentItems(history, { maxTokens: 8000 });
expectType<Equal<typeof items, AgentInputItem[]>>();
// @ts-expect-error: the budget is an option of compact's, not a string
contextfoldSession(new MemorySession(), { maxTokens: "8000" });
