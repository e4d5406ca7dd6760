// Cloudflare Workers (workerd) entry of `contextfold/worker`. The package's workerd entry
// instantiates the imported .wasm module on import; its API is handed to the middleware
// (rather than imported for its side effect, which a bundler may drop under
// `"sideEffects": false`).
import * as api from "./workerd.js";
import { compactionMiddleware as middleware } from "./worker.js";

export * from "./worker.js";

/** See `compactionMiddleware` in worker.d.ts. */
export function compactionMiddleware(options) {
  return middleware(options, api);
}
