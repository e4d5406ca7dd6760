// `contextfold convert`: a chain from one provider's shape to another's, following the
// target's rules (system placement, alternation, tool-call ids, signatures).
import { convert } from "../../dist/node.js";
import { FORMATS, UsageError, checkOut, commandArgs, readInput, writeOutput } from "./args.mjs";
import { changeLines } from "./tables.mjs";

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
    return 0;
  }
  const where = values.out ? `wrote ${values.out}` : "written to stdout";
  const lines = [
    `${result.from} -> ${result.to}: ${where}; ${result.changes.length} change(s)`,
    ...changeLines(result.changes, (c) => (c.change === "repaired" ? `repaired: ${c.step}` : c.change)),
  ];
  if (values.out) {
    console.log(lines.join("\n"));
  } else {
    // The messages alone on stdout (to pipe or redirect); what had to change on stderr.
    process.stdout.write(text);
    if (result.changes.length > 0) console.error(lines.join("\n"));
  }
  return 0;
}
