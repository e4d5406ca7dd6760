// A Cloudflare Worker built by `wrangler deploy --dry-run`: runs the checks in workerd.
import { run } from "./demo.js";

export default {
  async fetch() {
    return Response.json({ ...(await run()), userAgent: navigator.userAgent });
  },
};
