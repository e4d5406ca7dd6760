// webpack 5, `contextfold/wasm` as the README gives it: its `webpack` condition is the
// emitted .wasm's URL (no rule needed), handed to `init`.
import init from "contextfold";
import wasmUrl from "contextfold/wasm";
import { plain } from "./plain.js";
import { report } from "./report.js";

report(init({ module_or_path: wasmUrl }).then(plain));
