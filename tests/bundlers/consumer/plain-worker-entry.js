// A Worker importing the main entry alone (see plain.js), built by `wrangler deploy --dry-run`.
import { plain } from "./plain.js";

export default {
  async fetch() {
    return Response.json(await plain());
  },
};
