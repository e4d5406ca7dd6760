// Browser entry: call `await init()` once before anything else. It fetches the .wasm
// next to the glue (or takes `{ module_or_path }`: a URL, Response, bytes or a Module).
export * from "./index.js";
export { default } from "../glue/contextfold_wasm.js";
