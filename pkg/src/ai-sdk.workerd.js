// Cloudflare Workers (workerd) entry of `contextfold/ai-sdk`: the package's workerd entry
// instantiates the imported .wasm module on import.
import "./workerd.js";

export * from "./ai-sdk.js";
