// `contextfold validate`: every rule a provider would reject, with code and path.
import { validateChain } from "../../dist/node.js";
import { PROVIDERS, UsageError, commandArgs, readInput } from "./args.mjs";

/** Exit code when the chain breaks a rule. */
export const INVALID = 3;

export function validateCommand(args, usage) {
  const parsed = commandArgs(
    "validate",
    args,
    {
      provider: { type: "string" },
      json: { type: "boolean", default: false },
    },
    usage,
  );
  if (parsed === null) return 0;
  const { values, file } = parsed;
  if (values.provider !== undefined && !PROVIDERS.includes(values.provider)) {
    throw new UsageError(`--provider must be one of ${PROVIDERS.join(", ")}, not ${JSON.stringify(values.provider)}`);
  }
  const diagnostics = validateChain(readInput(file), { format: values.format, provider: values.provider });
  if (values.json) {
    console.log(JSON.stringify(diagnostics, null, 2));
  } else if (diagnostics.length === 0) {
    console.log(`${file === "-" ? "(stdin)" : file}: valid${values.provider ? ` for ${values.provider}` : ""}`);
  } else {
    for (const d of diagnostics) console.log(`${d.code} at ${d.path}: ${d.message}`);
    console.log(`${diagnostics.length} problem(s)`);
  }
  return diagnostics.length === 0 ? 0 : INVALID;
}
