// Types of `contextfold/openai-agents`. Structural, so that the package does not depend on
// `@openai/agents`: `AgentItem` stands for its `AgentInputItem`, `AgentSession` for its
// `Session` (tests/types checks both against the real ones).
import type { CompactOptions, CompactReport } from "./index.js";
export { isContextfoldError, type ContextfoldError, type ContextfoldErrorCode } from "./contextfold-error.js";

/**
 * An `AgentInputItem` of the OpenAI Agents SDK: `{ role, content }` messages and typed items.
 * `type` may be `undefined` (the SDK declares `type?: "message" | undefined`), so that its
 * items are accepted under `exactOptionalPropertyTypes`.
 */
export type AgentItem = { type?: string | undefined; [key: string]: unknown };

/** The session interface of the OpenAI Agents SDK (`Session` of `@openai/agents`). */
export interface AgentSession<Item = AgentItem> {
    getSessionId(): Promise<string>;
    getItems(limit?: number): Promise<Item[]>;
    addItems(items: Item[]): Promise<void>;
    popItem(): Promise<Item | undefined>;
    clearSession(): Promise<void>;
}

/** Options: `compact`'s, with the budget (`maxTokens` or `maxBytes`) required. */
export type AgentCompactOptions = Omit<CompactOptions, "format">;

/**
 * Compacts a history of `AgentInputItem`s (a session's items, or the `input` a
 * `callModelInputFilter` gets) when it is over the budget: the items compaction kept come
 * back as the very objects they were, summaries and masked tool outputs as new items.
 */
export declare function compactAgentItems<Item extends AgentItem>(
    items: Item[],
    options: AgentCompactOptions,
): Promise<{ items: Item[]; changed: boolean; report: CompactReport | undefined }>;

/**
 * A session that compacts the one it wraps (`new MemorySession()`, a database session,
 * ...): after items are added, a history over the budget is replaced by its compaction
 * (strategy `"auto"` by default: old tool outputs masked, the oldest turns summarized), so
 * every later run starts from it. Pass it as `run(agent, input, { session })`.
 */
export declare function contextfoldSession<Item extends AgentItem>(
    session: AgentSession<Item>,
    options: AgentCompactOptions,
): AgentSession<Item>;
