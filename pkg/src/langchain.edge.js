// Edge runtime entry (`edge-light`) of `contextfold/langchain`: the package's edge entry
// instantiates the imported .wasm module on import.
import "./edge.js";

export * from "./langchain.js";
