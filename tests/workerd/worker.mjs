// A Cloudflare Worker that runs the shared core cases in workerd. It imports the package's
// workerd entry (pkg/src/workerd.js, the "workerd" export condition), which instantiates
// the imported .wasm module with `initSync({ module })` on import, and answers every
// request with the results as JSON.
import * as api from "../../pkg/src/workerd.js";
import * as internal from "../../pkg/src/internal.js"; // the test hooks, not part of the API
import { runCases } from "../shared/core-cases.mjs";

export default {
  async fetch() {
    return Response.json({ userAgent: navigator.userAgent, results: await runCases({ ...api, ...internal }) });
  },
};
