#!/usr/bin/env node
// contextfold command line: `contextfold inspect|compact <file|-> [options]`.
// Exit codes: 0 ok, 2 bad input (a ContextfoldError or a usage error), 1 anything else.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { writeFileSync } from "node:fs";
import { compact, extractiveSummarizer, parseChain } from "../src/node.js";

const FORMATS = ["auto", "native", "openai", "anthropic"];
const USAGE = `usage: contextfold inspect <file|-> [--format ${FORMATS.join("|")}] [--repair] [--json]
       contextfold compact <file|-> [--format F] [--strategy S] [--max-tokens N | --max-bytes N]
                                    [--keep-sections N] [--section-bytes N] [--pair-bytes N]
                                    [--out FILE] [--json]

  inspect          read a conversation (a JSON array of messages; - reads stdin) and print
                   its structure: format, sections, body pairs, tool calls and sizes
  compact          fold old content into summaries with the built-in offline (extractive)
                   summarizer and print what changed
  --format         the message format (default: auto-detect)
  --strategy       sections (default), window, tiers or budget
  --max-tokens     the budget the result should fit, in estimated tokens (budget: a hard limit)
  --max-bytes      the same budget in bytes
  --repair         repair what can be repaired instead of failing, and list the repairs
  --keep-sections  sections strategy: recent sections kept whole [1]
  --section-bytes  budget of each kept section in bytes before its older pairs fold [51200]
  --pair-bytes     a pair larger than this is summarized alone (never the last one) [16384]
  --out            write the compacted messages (in the input's format) to FILE
  --json           print the raw result as JSON

exit codes: 0 ok, 2 bad input (the error's code and path are printed), 1 anything else`;

class UsageError extends Error {}

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
  if (command === "inspect") return inspect(rest);
  if (command === "compact") return compactCommand(rest);
  throw new UsageError(`unknown command ${JSON.stringify(command)}`);
}

/**
 * Parses a command's arguments: `--format` (checked) and `--help` for every command,
 * plus `options`; exactly one file or `-`. Returns `null` after printing the help.
 */
function commandArgs(command, args, options) {
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
    console.log(USAGE);
    return null;
  }
  if (positionals.length !== 1) throw new UsageError(`${command} takes exactly one file (or - for stdin)`);
  if (!FORMATS.includes(values.format)) {
    throw new UsageError(`--format must be one of ${FORMATS.join(", ")}, not ${JSON.stringify(values.format)}`);
  }
  return { values, file: positionals[0] };
}

function readInput(file) {
  try {
    return readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (e) {
    const error = new Error(`cannot read ${file}: ${e.code ?? e.message}`);
    error.code = "read_failed";
    throw error;
  }
}

function wholeNumber(name, value) {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a whole number above 0, not ${JSON.stringify(value)}`);
  return n;
}

async function compactCommand(args) {
  const parsed = commandArgs("compact", args, {
    strategy: { type: "string", default: "sections" },
    "max-tokens": { type: "string" },
    "max-bytes": { type: "string" },
    "keep-sections": { type: "string" },
    "section-bytes": { type: "string" },
    "pair-bytes": { type: "string" },
    out: { type: "string" },
    json: { type: "boolean", default: false },
  });
  if (parsed === null) return 0;
  const { values, file } = parsed;
  const STRATEGIES = ["sections", "window", "tiers", "budget"];
  if (!STRATEGIES.includes(values.strategy)) {
    throw new UsageError(`--strategy must be one of ${STRATEGIES.join(", ")}, not ${JSON.stringify(values.strategy)}`);
  }
  const strategy = { name: values.strategy };
  const maxTokens = wholeNumber("max-tokens", values["max-tokens"]);
  const maxBytes = wholeNumber("max-bytes", values["max-bytes"]);
  const sectionsOnly = ["keep-sections", "section-bytes", "pair-bytes"].filter((k) => values[k] !== undefined);
  if (values.strategy !== "sections" && sectionsOnly.length > 0) {
    throw new UsageError(`--${sectionsOnly[0]} applies to the sections strategy only`);
  }
  const keep = wholeNumber("keep-sections", values["keep-sections"]);
  const sectionBytes = wholeNumber("section-bytes", values["section-bytes"]);
  const pairBytes = wholeNumber("pair-bytes", values["pair-bytes"]);
  if (keep !== undefined) strategy.keepQASections = keep;
  if (sectionBytes !== undefined) strategy.lastSecBytes = sectionBytes;
  if (pairBytes !== undefined) strategy.maxBpBytes = pairBytes;
  const text = readInput(file);
  const before = parseChain(text, { format: values.format, repair: true });
  const started = performance.now();
  const result = await compact(text, {
    format: values.format,
    strategy,
    maxTokens,
    maxBytes,
    summarizer: extractiveSummarizer(),
  });
  const ms = performance.now() - started;
  if (values.out) writeFileSync(values.out, `${JSON.stringify(result.messages, null, 2)}\n`);
  if (values.json) {
    console.log(JSON.stringify(result, null, 2));
    return 0;
  }
  const after = parseChain(result.messages, { format: result.format, repair: true });
  console.log(compactReport(file, before, after, result, ms, values.out));
  return 0;
}

function compactReport(file, before, after, result, ms, out) {
  const r = result.report;
  const lines = [];
  const pct = (a, b) => (b === 0 ? "" : ` (${Math.round((100 * (b - a)) / b)}% smaller)`);
  lines.push(`file        ${file === "-" ? "(stdin)" : file}`);
  lines.push(`format      ${before.format}; summarizer: built-in extractive (offline); strategy: ${r.strategy}`);
  lines.push("");
  lines.push(`             ${"before".padStart(12)}  ${"after".padStart(12)}`);
  const row = (label, a, b) => lines.push(`${label.padEnd(12)} ${grouped(a).padStart(12)}  ${grouped(b).padStart(12)}`);
  row("messages", r.before.messages, r.after.messages);
  row("sections", before.outline.sections, after.outline.sections);
  row("body pairs", before.outline.pairs, after.outline.pairs);
  row("bytes", r.before.bytes, r.after.bytes);
  row("~tokens", r.before.tokens, r.after.tokens);
  lines.push("");
  lines.push(
    `${r.calls} summary calls in ${r.waves} wave(s), ${Math.round(ms)} ms; ${r.after.bytes < r.before.bytes ? "size" : "nothing"}${pct(r.after.bytes, r.before.bytes)}`,
  );
  if (r.errors.length > 0) lines.push(`errors: ${r.errors.length} (rolled back: ${r.rolledBack})`);
  for (const s of r.sections) {
    const actions = s.actions.map((a) => a.action).join(", ");
    lines.push(`  section ${s.section}: ${actions}`);
  }
  lines.push("");
  lines.push("after:");
  lines.push(...sectionTable(after.outline.sectionList));
  if (out) lines.push("", `wrote ${out} (${result.format})`);
  return lines.join("\n");
}

function inspect(args) {
  const parsed = commandArgs("inspect", args, {
    repair: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  });
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

// ---- the report ----------------------------------------------------------------------

const KIND_LETTER = { completion: "C", requestResponse: "R", summarization: "S" };

/** 1234 -> "1.2k", 35000 -> "35k", 1234567 -> "1.2M". */
function short(bytes) {
  if (bytes < 1000) return String(bytes);
  const [value, unit] = bytes < 1e6 ? [bytes / 1e3, "k"] : [bytes / 1e6, "M"];
  return `${value < 10 ? value.toFixed(1) : Math.round(value)}${unit}`;
}

const grouped = (n) => n.toLocaleString("en-US");

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
  lines.push("pairs: C completion, R request/response (xN: N tool calls), S summarization; * with reasoning; sizes in bytes");
  return lines.join("\n");
}

function sectionTable(sections) {
  const width = Math.max(60, Math.min(process.stdout.columns || 100, 140));
  const header = (s) => {
    const parts = [];
    if (s.systemMessages > 0) parts.push(`${s.systemMessages} system`);
    if (s.hasHuman) parts.push("user");
    return parts.join(" + ") || "-";
  };
  const rows = sections.map((s, i) => ({
    index: String(i),
    header: header(s),
    bytes: short(s.bytes),
    pairs: s.pairs.map(
      (p) => `${KIND_LETTER[p.kind] ?? "?"}${p.toolCalls > 1 ? `x${p.toolCalls}` : ""}${p.hasReasoning ? "*" : ""}:${short(p.bytes)}`,
    ),
  }));
  const w = {
    index: Math.max(1, ...rows.map((r) => r.index.length)),
    header: Math.max(6, ...rows.map((r) => r.header.length)),
    bytes: Math.max(5, ...rows.map((r) => r.bytes.length)),
  };
  const indent = w.index + w.header + w.bytes + 6;
  const out = [`${"#".padStart(w.index)}  ${"header".padEnd(w.header)}  ${"bytes".padStart(w.bytes)}  pairs`];
  for (const r of rows) {
    const lead = `${r.index.padStart(w.index)}  ${r.header.padEnd(w.header)}  ${r.bytes.padStart(w.bytes)}  `;
    const pairLines = wrap(r.pairs.length > 0 ? r.pairs : ["(none)"], Math.max(20, width - indent));
    out.push(lead + (pairLines[0] ?? ""));
    for (const more of pairLines.slice(1)) out.push(" ".repeat(indent) + more);
  }
  return out;
}

function wrap(words, width) {
  const lines = [];
  let line = "";
  for (const word of words) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

// ---- errors and exit codes -----------------------------------------------------------

function exitCodeOf(error) {
  if (error instanceof UsageError) return 2;
  if (error?.name === "ContextfoldError") return error.code === "internal" ? 1 : 2;
  return 1;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`error usage: ${error.message}\n\n${USAGE}`);
  } else if (error?.name === "ContextfoldError" || error?.code === "read_failed") {
    const at = error.path ? ` at ${error.path}` : "";
    console.error(`error ${error.code}${at}: ${error.message}`);
  } else {
    console.error(`error internal: ${error?.stack ?? error}`);
  }
  process.exitCode = exitCodeOf(error);
}
