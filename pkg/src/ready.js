// Whether the wasm instance exists. Every export that needs it checks first, so that a
// call before initialization (the browser entry without `await init()`, or a Node bundle
// whose .wasm could not be found) fails with a ContextfoldError instead of a TypeError
// from deep inside the generated glue.
//
// An entry may start instantiating in the background (the Node entry compiles the wasm
// asynchronously on import, off the main thread where the runtime can): async calls wait
// for it, and a synchronous call made before it finished instantiates on the spot.
import { contextfoldError } from "./errors.js";

let ready = false;
let hint = "call `await init()` first";
/** @type {Promise<void> | undefined} the background instantiation, until it settles */
let starting;
/** @type {(() => void) | undefined} instantiates synchronously instead of waiting */
let startNow;

/** Called by every path that instantiates the wasm (the entries' init and initSync). */
export function markReady() {
  ready = true;
  startNow = undefined;
}

/** What the not_initialized error tells the caller to do (the Node entry says why). */
export function setInitHint(text) {
  hint = text;
}

/**
 * Records a background instantiation: `promise` settles once it is done (or failed),
 * `now` instantiates synchronously for a call that cannot wait. A failure of either is
 * reported by the first call, as the synchronous path would.
 * @param {Promise<unknown>} promise
 * @param {() => void} now
 */
export function startInBackground(promise, now) {
  startNow = now;
  starting = promise.then(
    () => {},
    () => {},
  );
}

export function isReady() {
  return ready;
}

/** Resolves once a background instantiation is over (at once when there is none). */
export async function whenStarted() {
  if (!ready && starting) await starting;
}

/** Instantiates synchronously now if a background instantiation is under way or failed. */
export function startNowIfPending() {
  if (!ready && startNow) startNow();
}

/** Throws `not_initialized` unless the wasm is instantiated; `what` is the caller's name. */
export function assertReady(what) {
  startNowIfPending();
  if (!ready) {
    throw contextfoldError(
      "not_initialized",
      `contextfold is not initialized (${what} was called): ${hint}`,
      undefined,
    );
  }
}
