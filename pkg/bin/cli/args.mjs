// Argument parsing and input reading shared by the commands.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { defaultSettings, formats } from "../../dist/node.js";

/** `auto` and every format the package reads, from its own table. */
export const FORMATS = ["auto", ...formats().map((f) => f.name)];

/** The strategies and their defaults, from the package's own table. */
export const DEFAULTS = defaultSettings();
export const STRATEGIES = Object.keys(DEFAULTS);

export class UsageError extends Error {}

/**
 * Parses a command's arguments: `--format` (checked) and `--help` for every command,
 * plus `options`; exactly one file or `-`. Returns `null` after printing the help.
 */
export function commandArgs(command, args, options, usage) {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        format: { type: "string", default: "auto" },
        help: { type: "boolean", short: "h", default: false },
        ...options,
      },
    });
  } catch (e) {
    throw new UsageError(e.message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(usage);
    return null;
  }
  if (positionals.length !== 1) throw new UsageError(`${command} takes exactly one file (or - for stdin)`);
  if (!FORMATS.includes(values.format)) {
    throw new UsageError(`--format must be one of ${FORMATS.join(", ")}, not ${JSON.stringify(values.format)}`);
  }
  return { values, file: positionals[0] };
}

export function readInput(file) {
  try {
    return readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (e) {
    const error = new Error(`cannot read ${file}: ${e.code ?? e.message}`);
    error.code = "read_failed";
    throw error;
  }
}

export function wholeNumber(name, value) {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--${name} must be a whole number above 0, not ${JSON.stringify(value)}`);
  return n;
}
