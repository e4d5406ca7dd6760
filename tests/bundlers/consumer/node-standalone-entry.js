// A self-contained Node bundle (esbuild `--loader:.wasm=binary`): the .wasm's bytes are in
// the bundle and handed to `init`, so it runs where no node_modules/contextfold exists.
import init from "contextfold";
import wasm from "contextfold/wasm";
import { run } from "./demo.js";

run(() => init({ module_or_path: wasm })).then(
  (result) => console.log(JSON.stringify(result)),
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
