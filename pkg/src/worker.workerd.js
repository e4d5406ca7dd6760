// Cloudflare Workers (workerd) entry of `contextfold/worker`. The package's workerd entry
// instantiates the imported .wasm module on import (it is listed in `sideEffects`); its
// API is handed to the middleware.
import * as api from "./workerd.js";
import { compactionMiddleware as middleware } from "./worker.js";

export * from "./worker.js";

/** See `compactionMiddleware` in worker.d.ts. */
export function compactionMiddleware(options) {
  return middleware(options, api);
}
