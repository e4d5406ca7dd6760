// The public API, the same on every runtime. Each entry file (node.js, workerd.js,
// web.js) re-exports this module after arranging for the wasm instance to exist.
export * from "../glue/contextfold_wasm.js";
export { History } from "./history.js";
