// Argument parsing and input reading shared by the commands.
import { constants } from "node:buffer";
import { accessSync, constants as fsConstants, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { defaultSettings, formats } from "../../dist/node.js";

/** `auto` and every format the package reads, from its own table. */
export const FORMATS = ["auto", ...formats().map((f) => f.name)];

/** Every provider whose rules the package checks: each format's provider, once. */
export const PROVIDERS = [...new Set(formats().map((f) => f.provider))];

/** The strategies and their defaults, from the package's own table. */
export const DEFAULTS = defaultSettings();
export const STRATEGIES = Object.keys(DEFAULTS);

export class UsageError extends Error {}

/**
 * A file the command cannot read (`read_failed`), whose bytes are not UTF-8 text
 * (`invalid_text`) or that it cannot write (`write_failed`): bad input, exit code 2,
 * printed with its code and without a stack trace.
 */
export class FileError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

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

/** Bytes `readInput` skipped at the start of the input (a byte order mark's 3, or 0). */
let skipped = 0;

/**
 * `error` with the byte offset of an `invalid_json` message counted in the input file,
 * as `invalid_text` offsets are: the core counts it in the text read, after any byte
 * order mark. Lines and columns stay as an editor shows them (without the mark).
 */
export function inFileOffsets(error) {
  if (skipped > 0 && error?.code === "invalid_json" && typeof error.message === "string") {
    error.message = error.message.replace(
      /(invalid JSON at line \d+, column \d+ \(byte )(\d+)\)/,
      (_, lead, offset) => `${lead}${Number(offset) + skipped})`,
    );
  }
  return error;
}

/**
 * The text of `file` (`-`: stdin). A UTF-8 byte order mark at its start (Windows editors
 * write one) is skipped: it is no part of the JSON (error offsets still count it, see
 * `inFileOffsets`). Bytes that are not UTF-8 are an `invalid_text` error: read with
 * replacement, they would come out as other text.
 */
export function readInput(file) {
  let bytes;
  try {
    bytes = readFileSync(file === "-" ? 0 : file);
  } catch (e) {
    // Over 2 GiB: Node reads no such file into one buffer.
    if (e.code === "ERR_FS_FILE_TOO_LARGE") throw tooLarge(file === "-" ? "stdin" : file, "over 2 GiB");
    const why =
      e.code === "ENOENT" ? "no such file" : e.code === "EISDIR" ? "it is a directory" : (e.code ?? e.message);
    throw new FileError("read_failed", `cannot read ${file}: ${why}`);
  }
  const name = file === "-" ? "stdin" : file;
  let text;
  try {
    // `ignoreBOM`: the mark is kept, and skipped below, as before.
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (e) {
    // Valid text longer than the runtime's longest string: no byte is at fault.
    if (e?.code === "ERR_STRING_TOO_LONG") throw tooLarge(name, `${bytes.length.toLocaleString("en-US")} bytes`);
    const at = firstInvalidByte(bytes);
    const byte = bytes[at].toString(16).padStart(2, "0");
    throw new FileError("invalid_text", `${name} is not UTF-8 text: byte 0x${byte} at byte offset ${at}`);
  }
  if (text.charCodeAt(0) !== 0xfeff) return text;
  skipped = 3; // U+FEFF in UTF-8
  return text.slice(1);
}

/**
 * An input larger than the text this runtime can hold (V8's longest string,
 * `buffer.constants.MAX_STRING_LENGTH` UTF-16 units; a file over 2 GiB is not even read).
 */
function tooLarge(name, size) {
  const limit = constants.MAX_STRING_LENGTH.toLocaleString("en-US");
  return new FileError(
    "read_failed",
    `cannot read ${name}: it is too large (${size}; the longest text this runtime holds is ${limit} characters)`,
  );
}

/**
 * Where the first byte sequence of `bytes` that is not UTF-8 starts (`bytes` holds one).
 * The longest prefix that decodes as the start of a stream is found by bisection (the
 * decoder does not say where it failed): the bad sequence is the incomplete one it ends
 * with, or else the byte after it.
 * @param {Uint8Array} bytes
 */
function firstInvalidByte(bytes) {
  const decodes = (end, stream) => {
    try {
      new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes.subarray(0, end), { stream });
      return true;
    } catch {
      return false;
    }
  };
  // `low` decodes as the start of a stream, `high` does not (past the end: nothing does).
  let [low, high] = [0, bytes.length + 1];
  while (high - low > 1) {
    const middle = (low + high) >>> 1;
    if (decodes(middle, true)) low = middle;
    else high = middle;
  }
  if (decodes(low, false)) return low;
  let start = low - 1;
  while (start > 0 && low - start < 4 && (bytes[start] & 0xc0) === 0x80) start -= 1;
  return start;
}

/**
 * Checks that `--out` can be written before any work is done: not a directory, in a
 * directory that exists, writable. `undefined` (no `--out`) passes.
 */
export function checkOut(file) {
  if (file === undefined) return;
  if (file === "") throw new UsageError("--out needs a file name");
  let stat;
  try {
    stat = statSync(file);
  } catch (e) {
    if (e.code !== "ENOENT") throw new FileError("write_failed", `cannot write ${file}: ${e.code ?? e.message}`);
  }
  if (stat?.isDirectory()) throw new FileError("write_failed", `cannot write ${file}: it is a directory`);
  const target = stat === undefined ? dirname(resolve(file)) : file;
  try {
    accessSync(target, fsConstants.W_OK);
  } catch (e) {
    const why = e.code === "ENOENT" ? `the directory ${target} does not exist` : (e.code ?? e.message);
    throw new FileError("write_failed", `cannot write ${file}: ${why}`);
  }
}

/** Writes `text` to `file`; a failure (checked for by `checkOut`, but the disk may fill) is a `FileError`. */
export function writeOutput(file, text) {
  try {
    writeFileSync(file, text);
  } catch (e) {
    throw new FileError("write_failed", `cannot write ${file}: ${e.code ?? e.message}`);
  }
}

export function wholeNumber(name, value) {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--${name} must be a whole number above 0, not ${JSON.stringify(value)}`);
  return n;
}
