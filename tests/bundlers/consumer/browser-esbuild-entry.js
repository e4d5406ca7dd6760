// Browser bundle of esbuild, which leaves `new URL(..., import.meta.url)` alone: the .wasm
// is imported (`--loader:.wasm=file` copies it beside the bundle and gives its path,
// relative to the bundle) and its URL handed to `init`, here imported from the explicit
// `contextfold/web` entry (the same module as the main entry's browser condition).
import init from "contextfold/web";
import wasmPath from "contextfold/wasm";
import { run } from "./demo.js";
import { report } from "./report.js";

report(run(() => init({ module_or_path: new URL(wasmPath, import.meta.url) })));
