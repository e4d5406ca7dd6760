// Edge runtime entry (the `edge-light` condition: Next.js route handlers and middleware
// with `runtime = "edge"`, Vercel Edge Functions): like workerd, it forbids compiling
// wasm from bytes at run time and cannot fetch the package's files, so the .wasm is
// imported as a compiled module (`?module`, what Next.js and Vercel give a
// `WebAssembly.Module` for) and instantiated on import. Listed in `sideEffects`.
import wasmModule from "../glue/contextfold_wasm_bg.wasm?module";
import { init as instantiate, instanceExports } from "./glue.js";

// Asynchronously: the Module may come from another realm than the code (Next.js runs
// edge code in a sandbox), where the glue's synchronous path, which checks
// `instanceof WebAssembly.Module`, would take it for bytes; `WebAssembly.instantiate`
// takes it from any realm.
await instantiate({ module_or_path: wasmModule });

export * from "./index.js";

/** Already initialized on import; kept so that `await init()` works on every runtime. */
export default async function init() {
  return instanceExports();
}
