// Edge runtime entry (`edge-light`) of `contextfold/openai-agents`: the package's edge entry
// instantiates the imported .wasm module on import.
import "./edge.js";

export * from "./openai-agents.js";
