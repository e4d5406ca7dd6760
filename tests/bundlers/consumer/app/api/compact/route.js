// A route handler: compacts on the server (the package's Node entry).
import { run } from "../../../demo.js";

export const dynamic = "force-dynamic";

export async function GET() {
  return Response.json(await run());
}
