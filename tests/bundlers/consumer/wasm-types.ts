// `contextfold/wasm` type-checks where bundlers resolve it (tsc, moduleResolution
// "bundler"): a string (a URL or path), bytes or a compiled Module, each what init takes.
import init, { initSync } from "contextfold";
import wasm from "contextfold/wasm";

export async function start(): Promise<void> {
  await init({ module_or_path: wasm });
  if (typeof wasm !== "string") initSync({ module: wasm });
}

export const union: string | BufferSource | WebAssembly.Module = wasm;

// @ts-expect-error: the import is typed (not `any`): no number
export const notANumber: number = wasm;
