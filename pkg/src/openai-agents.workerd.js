// Cloudflare Workers (workerd) entry of `contextfold/openai-agents`: the package's workerd
// entry instantiates the imported .wasm module on import.
import "./workerd.js";

export * from "./openai-agents.js";
