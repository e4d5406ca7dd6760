// `contextfold/wasm` under wrangler / workerd: the .wasm as a compiled `WebAssembly.Module`.
// Wrangler's CompiledWasm rule matches an import's specifier, and "contextfold/wasm" only
// becomes a .wasm path through the exports map: this import names the file itself.
export { default } from "../glue/contextfold_wasm_bg.wasm";
