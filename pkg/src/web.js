// Browser entry: call `await init()` once before anything else (every other export throws
// `not_initialized` until then). It fetches the .wasm next to the glue (bundlers that
// understand `new URL(..., import.meta.url)` emit it as an asset), or takes
// `{ module_or_path }`: a URL, Response, bytes or a Module (see "Bundlers" in the README).
export * from "./index.js";
export { init as default } from "./glue.js";
