// `contextfold inspect`: a chain's structure.
import { parseChain } from "../../dist/node.js";
import { commandArgs, readInput } from "./args.mjs";
import { grouped, sectionTable, short } from "./tables.mjs";

export function inspect(args, usage) {
  const parsed = commandArgs(
    "inspect",
    args,
    {
      repair: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
    usage,
  );
  if (parsed === null) return 0;
  const { values, file } = parsed;
  const text = readInput(file);
  // The JSON text goes in as it is: the core reports bad JSON with line and column.
  const result = parseChain(text, { format: values.format, repair: values.repair });
  if (values.json) {
    console.log(JSON.stringify(result, null, 2));
  } else {
    console.log(report(file, values, result));
  }
  return 0;
}

function report(file, options, { format, outline, repairs }) {
  const o = outline;
  const lines = [];
  const row = (label, value) => lines.push(`${label.padEnd(12)}${value}`);
  row("file", file === "-" ? "(stdin)" : file);
  row("format", options.format === "auto" ? `${format} (detected)` : format);
  row("messages", grouped(o.messages));
  row("sections", grouped(o.sections));
  row(
    "body pairs",
    `${grouped(o.pairs)} (completion ${o.completions}, request/response ${o.requestResponses}, summarization ${o.summarizations})`,
  );
  row("tool calls", grouped(o.toolCalls));
  row("total size", `${grouped(o.bytes)} bytes${o.bytes >= 1000 ? ` (${short(o.bytes)})` : ""}`);
  if (options.repair && repairs.length === 0) row("repairs", "none needed");
  if (repairs.length > 0) {
    row("repairs", String(repairs.length));
    for (const r of repairs) {
      const { action, index, ...details } = r;
      const extra = Object.entries(details)
        .map(([k, v]) => `${k}=${v}`)
        .join(" ");
      lines.push(`  [${index}] ${action}${extra ? ` ${extra}` : ""}`);
    }
  }
  lines.push("");
  lines.push(...sectionTable(o.sectionList));
  lines.push("");
  lines.push(
    "pairs: C completion, R request/response (xN: N tool calls), S summarization; * with reasoning; sizes in bytes",
  );
  return lines.join("\n");
}
