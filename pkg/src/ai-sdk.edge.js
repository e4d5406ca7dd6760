// Edge runtime entry (`edge-light`) of `contextfold/ai-sdk`: the package's edge entry
// instantiates the imported .wasm module on import.
import "./edge.js";

export * from "./ai-sdk.js";
