#!/usr/bin/env node
// contextfold command line: `contextfold inspect|compact|validate <file|-> [options]`.
// Exit codes: 0 ok, 2 bad input (a ContextfoldError, a usage error, a file that cannot be
// read or written), 3 a chain that breaks provider rules (validate), 1 anything else (a
// compaction whose summary calls failed).
import { readFileSync } from "node:fs";
import { DEFAULTS, FORMATS, FileError, PROVIDERS, STRATEGIES, UsageError, inFileOffsets } from "./cli/args.mjs";
import { compactCommand } from "./cli/compact.mjs";
import { convertCommand } from "./cli/convert.mjs";
import { inspect } from "./cli/inspect.mjs";
import { validateCommand } from "./cli/validate.mjs";

const USAGE = `usage: contextfold inspect <file|-> [--format ${FORMATS.join("|")}] [--repair] [--json]
       contextfold compact <file|-> [--format F] [--strategy S] [--max-tokens N | --max-bytes N]
                                    [--keep-sections N] [--section-bytes N] [--pair-bytes N]
                                    [--out FILE] [--json | --report json] [--progress]
                                    [--summarizer extractive|openai-compatible --base-url URL --model M
                                     [--max-tokens-field NAME]]
       contextfold validate <file|-> [--format F] [--provider ${PROVIDERS.join("|")}] [--json]
       contextfold convert <file|-> --to FORMAT [--format F] [--out FILE] [--json]

  inspect          read a conversation (a JSON array of messages; - reads stdin) and print
                   its structure: format, sections, body pairs, tool calls and sizes
  compact          fold old content into summaries with the built-in offline (extractive)
                   summarizer and print what changed (provider repairs included)
  --format         the message format (default: auto-detect)
  --strategy       ${STRATEGIES.join(", ")} [auto]
  --max-tokens     the budget the result should fit, in estimated tokens (auto, budget: a hard
                   limit; auto without one: 100000)
  --max-bytes      the same budget in bytes
  --repair         repair what can be repaired instead of failing, and list the repairs
  --keep-sections  sections strategy: recent sections kept whole [${DEFAULTS.sections.keepQASections}]
  --section-bytes  budget of each kept section in bytes before its older pairs fold [${DEFAULTS.sections.lastSecBytes}]
  --pair-bytes     a pair larger than this is summarized alone (never the last one) [${DEFAULTS.sections.maxBpBytes}]
  --out            write the compacted messages (in the input's format) to FILE
  --json           print the raw result as JSON (messages included)
  --report json    print only { changed, format, report } as JSON
  --summarizer     extractive (built-in, offline; default) or openai-compatible: --base-url
                   (e.g. http://127.0.0.1:11434/v1) and --model; the key is read from
                   CONTEXTFOLD_API_KEY or OPENAI_API_KEY
  --max-tokens-field
                   openai-compatible: the request's output limit field [max_completion_tokens
                   for api.openai.com and for OpenAI reasoning models by name (o1, o3-mini,
                   o4-mini, gpt-5...), which reject max_tokens; else max_tokens]
  --concurrency    summary calls in flight [4]
  --progress       show the progress line on stderr (default: when stderr is a terminal)
  validate         list every rule the provider would reject (code, path, reason);
  --provider       whose rules (default: the provider of the format read)
  convert          write the chain in another format (--to), following that provider's rules,
                   and list what had to change; to stdout unless --out (the list then goes
                   to stderr)

exit codes: 0 ok, 2 bad input (the error's code and path are printed; a file that cannot
be read, an --out that cannot be written), 3 the chain breaks provider rules (validate),
1 anything else (compact: a summary call failed and the compaction rolled back, or with
--strategy budget failed)`;

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined || command === "-h" || command === "--help" || command === "help") {
    console.log(USAGE);
    return 0;
  }
  if (command === "--version" || command === "-V") {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    console.log(manifest.version);
    return 0;
  }
  if (command === "inspect") return inspect(rest, USAGE);
  if (command === "compact") return compactCommand(rest, USAGE);
  if (command === "validate") return validateCommand(rest, USAGE);
  if (command === "convert") return convertCommand(rest, USAGE);
  throw new UsageError(`unknown command ${JSON.stringify(command)}`);
}

// ---- errors and exit codes -----------------------------------------------------------

/**
 * Codes of a ContextfoldError that are no fault of the input: a compaction whose summary
 * calls failed (`--strategy budget` rejects with `summarizer_failed` where the others roll
 * back), and the runtime. Exit code 1 like those; every other code is bad input (2), an
 * unreachable `--max-tokens` (`budget_exceeded` at options.maxTokens) included.
 */
const NOT_INPUT = new Set([
  "summarizer_failed",
  "cancelled",
  "token_counter_failed",
  "not_initialized",
  "unsupported_runtime",
  "internal",
]);

function exitCodeOf(error) {
  if (error instanceof UsageError || error instanceof FileError) return 2;
  if (error?.name === "ContextfoldError") return NOT_INPUT.has(error.code) ? 1 : 2;
  return 1;
}

// `contextfold convert x --to y | head`: a closed pipe ends the command quietly.
process.stdout.on("error", (e) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw e;
});

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`error usage: ${error.message}\n\n${USAGE}`);
  } else if (error?.name === "ContextfoldError" || error instanceof FileError) {
    const at = error.path ? ` at ${error.path}` : "";
    console.error(`error ${error.code}${at}: ${inFileOffsets(error).message}`);
  } else {
    console.error(`error internal: ${error?.stack ?? error}`);
  }
  process.exitCode = exitCodeOf(error);
}
