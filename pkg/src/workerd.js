// Cloudflare Workers (workerd) entry: workerd forbids compiling wasm from bytes at run
// time, so the .wasm is imported as a module and instantiated on import. Listed in
// `sideEffects` (pkg/package.json) so that bundlers keep this instantiation.
import wasmModule from "../glue/contextfold_wasm_bg.wasm";
import { initSync, instanceExports } from "./glue.js";

initSync({ module: wasmModule });

export * from "./index.js";

/** Already initialized on import; kept so that `await init()` works on every runtime. */
export default async function init() {
  return instanceExports();
}
