// Whether the wasm instance exists. Every export that needs it checks first, so that a
// call before initialization (the browser entry without `await init()`, or a Node bundle
// whose .wasm could not be found) fails with a ContextfoldError instead of a TypeError
// from deep inside the generated glue.
import { contextfoldError } from "./errors.js";

let ready = false;
let hint = "call `await init()` first";

/** Called by every path that instantiates the wasm (the entries' init and initSync). */
export function markReady() {
  ready = true;
}

/** What the not_initialized error tells the caller to do (the Node entry says why). */
export function setInitHint(text) {
  hint = text;
}

export function isReady() {
  return ready;
}

/** Throws `not_initialized` unless the wasm is instantiated; `what` is the caller's name. */
export function assertReady(what) {
  if (!ready) {
    throw contextfoldError(
      "not_initialized",
      `contextfold is not initialized (${what} was called): ${hint}`,
      undefined,
    );
  }
}
