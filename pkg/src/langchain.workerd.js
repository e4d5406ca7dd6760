// Cloudflare Workers (workerd) entry of `contextfold/langchain`: the package's workerd
// entry instantiates the imported .wasm module on import.
import "./workerd.js";

export * from "./langchain.js";
