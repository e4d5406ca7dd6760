// Vite, `contextfold/wasm` as the README gives it: `?url`, the emitted .wasm's URL (a plain
// import of a .wasm is a wasm ES module to Vite, which this .wasm is not), handed to `init`.
import init from "contextfold";
import wasmUrl from "contextfold/wasm?url";
import { plain } from "./plain.js";
import { report } from "./report.js";

report(init({ module_or_path: wasmUrl }).then(plain));
