// `contextfold/wasm` under the edge runtime (`edge-light`): the .wasm as a compiled
// `WebAssembly.Module` (`?module`); a plain .wasm import is a wasm ES module there.
export { default } from "../glue/contextfold_wasm_bg.wasm?module";
