// `contextfold/wasm` under webpack: the .wasm's URL. webpack emits the file that
// `new URL(..., import.meta.url)` names as an asset and gives its URL, with no rule; a
// plain .wasm import would be a wasm ES module there, which this .wasm is not.
export default new URL("../glue/contextfold_wasm_bg.wasm", import.meta.url).href;
