// `contextfold convert`: a chain from one provider's shape to another's, following the
// target's rules (system placement, alternation, tool-call ids, signatures).
import { convert } from "../../dist/node.js";
import { FORMATS, UsageError, checkOut, commandArgs, readInput, writeOutput } from "./args.mjs";

export function convertCommand(args, usage) {
  const parsed = commandArgs(
    "convert",
    args,
    {
      to: { type: "string" },
      out: { type: "string" },
      json: { type: "boolean", default: false },
    },
    usage,
  );
  if (parsed === null) return 0;
  const { values, file } = parsed;
  const targets = FORMATS.filter((f) => f !== "auto");
  if (!values.to || !targets.includes(values.to)) {
    throw new UsageError(`--to must be one of ${targets.join(", ")}, not ${JSON.stringify(values.to)}`);
  }
  checkOut(values.out);
  const result = convert(readInput(file), { from: values.format, to: values.to });
  const text = `${JSON.stringify(result.messages, null, 2)}\n`;
  if (values.out) writeOutput(values.out, text);
  if (values.json) {
    console.log(JSON.stringify(result, null, 2));
  } else if (values.out) {
    console.log(`${result.from} -> ${result.to}: wrote ${values.out}; ${result.changes.length} change(s)`);
    // One line per kind of change, with the first messages it concerned (--json lists all).
    const kinds = new Map();
    for (const c of result.changes) {
      const kind = c.change === "repaired" ? `repaired: ${c.step}` : c.change;
      kinds.set(kind, [...(kinds.get(kind) ?? []), c.index]);
    }
    for (const [kind, at] of kinds) {
      const shown = at
        .slice(0, 8)
        .map((i) => `[${i ?? "-"}]`)
        .join(" ");
      console.log(`  ${kind} x${at.length}: ${shown}${at.length > 8 ? " ..." : ""}`);
    }
  } else {
    process.stdout.write(text);
  }
  return 0;
}
