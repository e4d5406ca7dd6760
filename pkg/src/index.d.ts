// Types of every entry point: the generated ones, plus `init`, which the browser entry
// needs and the Node and workerd entries provide as a no-op for portable code.
export * from "../glue/contextfold_wasm.js";
export { default } from "../glue/contextfold_wasm.js";
