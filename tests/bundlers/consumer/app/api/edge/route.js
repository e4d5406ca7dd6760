// A route handler on the edge runtime (`runtime = "edge"`): the `edge-light` condition
// gives the package's edge entries, which instantiate the .wasm (imported as a compiled
// module) on import, as the Worker build does.
import { run } from "../../../demo.js";

export const runtime = "edge";
export const dynamic = "force-dynamic";

export async function GET() {
  return Response.json(await run());
}
