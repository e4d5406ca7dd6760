// A route handler importing the main entry alone (see plain.js).
import { plain } from "../../../plain.js";

export const dynamic = "force-dynamic";

export async function GET() {
  return Response.json(await plain());
}
