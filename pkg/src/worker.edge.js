// Edge runtime entry (`edge-light`) of `contextfold/worker`. The package's edge entry
// instantiates the imported .wasm module on import (it is listed in `sideEffects`); its
// API is handed to the middleware.
import * as api from "./edge.js";
import * as worker from "./worker.js";

export * from "./worker.js";

/**
 * worker.js's `compactionMiddleware` takes the entry's API as a second argument, which
 * worker.d.ts (the public signature) leaves out.
 * @type {(options: unknown, api: typeof import("./index.js")) => any}
 */
const middleware = /** @type {any} */ (worker.compactionMiddleware);

/** @type {typeof worker.compactionMiddleware} See worker.d.ts. */
export function compactionMiddleware(options) {
  return middleware(options, api);
}
