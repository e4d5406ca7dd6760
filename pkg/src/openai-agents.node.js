// Node entry of `contextfold/openai-agents`: the package's Node entry instantiates the wasm
// on import, so the session is ready without an `init()`.
import "./node.js";

export * from "./openai-agents.js";
