// webpack 5: no loader or rule needed; it emits the .wasm that
// `new URL(..., import.meta.url)` names, for the browser and for Node, and
// `import wasm from "contextfold/wasm"` (its `webpack` condition) gives that URL.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

export default [
  {
    name: "web",
    mode: "production",
    target: "web",
    entry: "./browser-entry.js",
    output: { path: join(here, "dist/webpack-web"), filename: "main.js" },
  },
  {
    name: "web-wasm",
    mode: "production",
    target: "web",
    entry: "./browser-wasm-webpack-entry.js",
    output: { path: join(here, "dist/webpack-web-wasm"), filename: "main.js" },
  },
  {
    name: "node",
    mode: "production",
    optimization: { minimize: false }, // Node bundles are seldom minified; terser on `ai` is slow
    target: "node",
    entry: "./node-entry.js",
    output: { path: join(here, "dist/webpack-node"), filename: "main.cjs" },
  },
  {
    name: "node-plain",
    mode: "production",
    optimization: { minimize: false }, // Node bundles are seldom minified; terser on `ai` is slow
    target: "node",
    entry: "./plain-node-entry.js",
    output: { path: join(here, "dist/webpack-node-plain"), filename: "main.cjs" },
  },
];
