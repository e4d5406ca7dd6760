// Internals and test hooks: not part of the API and not in the package's `exports` map
// (`contextfold/src/internal.js` does not resolve). The tests import this file by path,
// next to the entry they test, so both share one wasm instance: in Node that is
// `pkg/dist/internal.node.js`, bundled with the Node entries (internal.node.js).
export { __checkOptionKeys, __contextfoldPanicForTests, __requestBodySpans, __wasmMemoryBytes } from "./glue.js";
export { __contextfoldAsyncPanicForTests } from "./api.js";
