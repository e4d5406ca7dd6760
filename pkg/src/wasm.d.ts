// Types of `contextfold/wasm`, the package's .wasm file itself. What importing it yields is
// up to the bundler (see "Bundlers" in the README):
// - wrangler / workerd: a compiled `WebAssembly.Module` (its CompiledWasm rule);
// - the edge runtime (`edge-light`, Next.js): a compiled `WebAssembly.Module` (`?module`);
// - webpack (its `webpack` condition, src/wasm.webpack.js): the emitted file's URL, a string;
// - Vite: `contextfold/wasm?url` gives the emitted file's URL (a plain import does not build);
// - esbuild `--loader:.wasm=file`: the emitted file's path, relative to the bundle, a string;
// - esbuild `--loader:.wasm=binary`: the bytes, a `Uint8Array`.
// Each is what `init({ module_or_path })` takes (`initSync` takes the last two).
import type { SyncInitInput } from "../glue/contextfold_wasm.js";

declare const wasm: string | SyncInitInput;
export default wasm;
