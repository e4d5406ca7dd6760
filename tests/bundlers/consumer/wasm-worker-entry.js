// A Worker written as portable code that also runs in a browser bundle: the .wasm imported
// from `contextfold/wasm` (a compiled `WebAssembly.Module` under wrangler) handed to init.
import init from "contextfold";
import wasm from "contextfold/wasm";
import { plain } from "./plain.js";

export default {
  async fetch() {
    await init({ module_or_path: wasm });
    const module = Object.prototype.toString.call(wasm);
    return Response.json({ ...(await plain()), module });
  },
};
