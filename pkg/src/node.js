// Node entry: the wasm is read from disk and instantiated synchronously on import.
import { readFileSync } from "node:fs";
import { initSync } from "../glue/contextfold_wasm.js";

const output = initSync({
  module: readFileSync(new URL("../glue/contextfold_wasm_bg.wasm", import.meta.url)),
});

export * from "./index.js";

/** Already initialized on import; kept so that `await init()` works on every runtime. */
export default async function init() {
  return output;
}
