// Types of `contextfold/wasm`, the package's .wasm file itself. What importing it yields is
// up to the bundler (see "Bundlers" in the README):
// - wrangler / workerd: a compiled `WebAssembly.Module` (its CompiledWasm rule);
// - esbuild `--loader:.wasm=file`, webpack `type: "asset/resource"`, Vite `?url`: the URL
//   of the emitted file, a string;
// - esbuild `--loader:.wasm=binary`: the bytes, a `Uint8Array`.
// Each of these is what `init({ module_or_path })` takes (`initSync` takes the last two).
declare const wasm: string | Uint8Array | WebAssembly.Module;
export default wasm;
