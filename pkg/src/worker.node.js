// Node entry of `contextfold/worker` (for fetch-style servers): the package's Node entry
// instantiates the wasm on import; its API is handed to the middleware.
import * as api from "./node.js";
import { compactionMiddleware as middleware } from "./worker.js";

export * from "./worker.js";

/** See `compactionMiddleware` in worker.d.ts. */
export function compactionMiddleware(options) {
  return middleware(options, api);
}
