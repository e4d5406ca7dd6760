// Browser bundles of webpack and Vite: both emit the .wasm that the glue's
// `new URL("contextfold_wasm_bg.wasm", import.meta.url)` names, so a bare `init()` works.
import { run } from "./demo.js";
import { report } from "./report.js";

report(run());
