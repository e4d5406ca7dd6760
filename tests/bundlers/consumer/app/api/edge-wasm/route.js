// `contextfold/wasm` on the edge runtime builds (Turbopack) and is a compiled
// WebAssembly.Module (of the edge sandbox's realm, hence the tag, not `instanceof`).
// The edge entry instantiated its own on import: `init` takes the Module and is a no-op.
import init, { compact } from "contextfold";
import wasm from "contextfold/wasm";
import { chain } from "../../../chain.js";

export const runtime = "edge";
export const dynamic = "force-dynamic";

export async function GET() {
  await init({ module_or_path: wasm });
  const input = chain();
  const { messages, report } = await compact(input, { maxTokens: 1000 });
  const module = Object.prototype.toString.call(wasm);
  return Response.json({ module, input: input.length, output: messages.length, calls: report.calls });
}
