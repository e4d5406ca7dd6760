// Node bundles (esbuild esm and cjs, webpack --target node): prints the checks as JSON.
import { run } from "./demo.js";

run().then(
  (result) => console.log(JSON.stringify(result)),
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
