// Runs in the page: imports the package's browser entry exactly as a user's bundle-free
// page would (pkg/src/web.js, the "default" export condition), initializes it with
// `await init()` (which fetches the .wasm over HTTP), then runs the shared core cases.
// The runner reads `window.contextfoldResults` once `window.contextfoldDone` is set.
import init, * as api from "/pkg/src/web.js";
import * as internal from "/pkg/src/internal.js"; // the test hooks, not part of the API
import { runCases } from "/tests/shared/core-cases.mjs";

async function main() {
  const started = performance.now();
  await init();
  const initMs = performance.now() - started;
  const results = await runCases({ ...api, ...internal });
  return { initMs, results };
}

main().then(
  (outcome) => {
    window.contextfoldResults = outcome;
    window.contextfoldDone = true;
  },
  (error) => {
    window.contextfoldResults = { fatal: `${error?.name}: ${error?.message}\n${error?.stack ?? ""}` };
    window.contextfoldDone = true;
  },
);
