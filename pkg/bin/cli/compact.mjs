// `contextfold compact`: fold old content into summaries, offline by default.
import { compact, extractiveSummarizer, parseChain } from "../../dist/node.js";
import { contextfoldError } from "../../src/errors.js";
import { openAICompatible } from "../../src/summarizers.js";
import { STRATEGIES, UsageError, checkOut, commandArgs, readInput, wholeNumber, writeOutput } from "./args.mjs";
import { changeLines, grouped, sectionTable } from "./tables.mjs";

export async function compactCommand(args, usage) {
  const parsed = commandArgs(
    "compact",
    args,
    {
      strategy: { type: "string", default: "auto" },
      "max-tokens": { type: "string" },
      "max-bytes": { type: "string" },
      "keep-sections": { type: "string" },
      "section-bytes": { type: "string" },
      "pair-bytes": { type: "string" },
      out: { type: "string" },
      json: { type: "boolean", default: false },
      report: { type: "string" },
      progress: { type: "boolean" },
      summarizer: { type: "string", default: "extractive" },
      "base-url": { type: "string" },
      model: { type: "string" },
      concurrency: { type: "string" },
      "max-tokens-field": { type: "string" },
    },
    usage,
  );
  if (parsed === null) return 0;
  const { values, file } = parsed;
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
  const summarizer = chooseSummarizer(values);
  const concurrency = wholeNumber("concurrency", values.concurrency);
  if (values.report !== undefined && values.report !== "json") {
    throw new UsageError(`--report takes "json", not ${JSON.stringify(values.report)}`);
  }
  if (values.report !== undefined && values.json) {
    throw new UsageError("--json and --report json are alternatives: give one");
  }
  // Before any work: an --out that cannot be written fails now, not after the summary calls.
  checkOut(values.out);
  const text = readInput(file);
  const before = parseChain(text, { format: values.format, repair: true });
  // A progress line on a terminal (stderr), never in pipes unless asked for.
  const progress = values.progress ?? Boolean(process.stderr.isTTY);
  const started = performance.now();
  const result = await compact(text, {
    format: values.format,
    strategy,
    maxTokens,
    maxBytes,
    summarizer: summarizer.call,
    concurrency,
    onProgress: progress ? progressLine(started) : undefined,
  });
  const ms = performance.now() - started;
  if (progress) process.stderr.write("\n");
  const r = result.report;
  // A run that rolled back (or where any summary call failed) is a failure: its result is
  // the original chain (or not all of the work), so nothing is written and the exit code
  // says so; each distinct error goes to stderr (the adapters' messages never hold a key).
  const failed = r.rolledBack || r.cancelled || r.errors.length > 0;
  if (failed) reportFailures(r);
  if (values.out && !failed) writeOutput(values.out, `${JSON.stringify(result.messages, null, 2)}\n`);
  if (values.report === "json") {
    // The report alone, for scripts; the messages go to --out.
    console.log(JSON.stringify({ changed: result.changed, format: result.format, report: r }, null, 2));
  } else if (values.json) {
    console.log(JSON.stringify(result, null, 2));
  } else {
    const after = parseChain(result.messages, { format: result.format, repair: true });
    const out = failed ? undefined : values.out;
    console.log(compactReport(file, before, after, result, ms, out, summarizer.label));
  }
  return failed ? 1 : 0;
}

/** Each distinct summary error once on stderr (with how many calls it ended), then what happened. */
function reportFailures(r) {
  const counts = new Map();
  for (const e of r.errors) {
    // The bridge keeps the error's name (`SummarizerError: HTTP 401 ...`); the line says it already.
    const message = e.message.replace(/^SummarizerError: /, "");
    counts.set(message, (counts.get(message) ?? 0) + 1);
  }
  for (const [message, n] of counts) {
    console.error(`error summarizer_failed: ${message}${n > 1 ? ` (${n} calls)` : ""}`);
  }
  const outcome = r.cancelled
    ? "the compaction was cancelled"
    : r.rolledBack
      ? "the compaction rolled back: the result is the original chain and --out is not written"
      : "the result lacks their summaries and --out is not written";
  console.error(`compact: ${r.errors.length} summary call(s) failed; ${outcome}`);
}

/**
 * The built-in extractive summarizer (offline, the default), or an OpenAI-compatible
 * endpoint: `--base-url`, `--model`, the key from CONTEXTFOLD_API_KEY or OPENAI_API_KEY
 * (never from the command line, where it would land in shell history).
 */
function chooseSummarizer(values) {
  if (values.summarizer === "extractive") {
    for (const flag of ["base-url", "model", "max-tokens-field"]) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} needs --summarizer openai-compatible`);
    }
    return { call: extractiveSummarizer(), label: "built-in extractive (offline)" };
  }
  if (values.summarizer !== "openai-compatible") {
    throw new UsageError(
      `--summarizer must be extractive or openai-compatible, not ${JSON.stringify(values.summarizer)}`,
    );
  }
  if (!values["base-url"] || !values.model) {
    throw new UsageError("--summarizer openai-compatible needs --base-url and --model");
  }
  checkBaseUrl(values["base-url"]);
  // `||`: a variable set but empty (`export CONTEXTFOLD_API_KEY=`) is no key.
  const apiKey = process.env.CONTEXTFOLD_API_KEY || process.env.OPENAI_API_KEY || undefined;
  const maxTokensField = outputLimitField(values);
  const call = openAICompatible({ baseURL: values["base-url"], model: values.model, apiKey, maxTokensField });
  const field = maxTokensField === "max_tokens" ? "" : ` (${maxTokensField})`;
  return { call, label: `openai-compatible ${values.model} at ${values["base-url"]}${field}` };
}

/** OpenAI's reasoning models by name (a router's `openai/` prefix aside): o1, o3-mini, o4-mini, gpt-5.... */
const OPENAI_REASONING = /^(o[1-9]\d*|gpt-5)([-.:_]|$)/i;

/**
 * The request's output limit field: `--max-tokens-field`, else `max_completion_tokens`
 * for api.openai.com (which takes it for every model, and only it for reasoning models:
 * `max_tokens` is a 400 there) and for a model named as an OpenAI reasoning model
 * wherever it is served, else `max_tokens` (what other OpenAI-compatible servers read).
 */
function outputLimitField(values) {
  const given = values["max-tokens-field"];
  if (given !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(given)) {
      throw new UsageError(
        `--max-tokens-field must be a field name such as max_completion_tokens, not ${JSON.stringify(given)}`,
      );
    }
    return given;
  }
  const host = new URL(values["base-url"]).hostname;
  const name = values.model.slice(values.model.lastIndexOf("/") + 1);
  return host === "api.openai.com" || OPENAI_REASONING.test(name) ? "max_completion_tokens" : "max_tokens";
}

/**
 * An http(s) URL, without credentials: fetch refuses `user:password@` (every call would
 * fail), and the password would be printed with the URL. Neither error echoes such a value.
 */
function checkBaseUrl(text) {
  let url;
  try {
    url = new URL(text);
  } catch {}
  if (url !== undefined && (url.username !== "" || url.password !== "")) {
    throw contextfoldError(
      "invalid_option",
      "--base-url must not hold credentials (user:password@): fetch refuses such URLs; give the key in CONTEXTFOLD_API_KEY or OPENAI_API_KEY",
      "--base-url",
    );
  }
  if (url?.protocol !== "http:" && url?.protocol !== "https:") {
    const shown = text.includes("@") ? "" : `, not ${JSON.stringify(text)}`;
    throw new UsageError(`--base-url must be an http(s) URL such as http://127.0.0.1:11434/v1${shown}`);
  }
}

function compactReport(file, before, after, result, ms, out, summarizer) {
  const r = result.report;
  const lines = [];
  const pct = (a, b) => (b === 0 ? "" : ` (${Math.round((100 * (b - a)) / b)}% smaller)`);
  lines.push(`file        ${file === "-" ? "(stdin)" : file}`);
  lines.push(`format      ${before.format}; summarizer: ${summarizer}; strategy: ${r.strategy}`);
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
  if (r.errors.length > 0) lines.push(`errors: ${r.errors.length} summary call(s) failed (see above)`);
  if (r.rolledBack) lines.push("rolled back: the result is the original chain; none of the actions below was applied");
  const applied = r.rolledBack ? " (rolled back)" : "";
  for (const s of r.sections) {
    // "masked x17, snapshot": repeated actions counted, in the order first seen.
    const counts = new Map();
    for (const a of s.actions) counts.set(a.action, (counts.get(a.action) ?? 0) + 1);
    const actions = [...counts].map(([name, n]) => (n > 1 ? `${name} x${n}` : name)).join(", ");
    lines.push(`  section ${s.section}${applied}: ${actions}`);
  }
  // What the result needed to follow the provider's rules (README: `report.providerRepairs`).
  if (r.providerRepairs.length > 0) {
    lines.push(`provider repairs${applied}: ${r.providerRepairs.length}`);
    lines.push(...changeLines(r.providerRepairs, (step) => step.step));
  }
  lines.push("");
  lines.push("after:");
  lines.push(...sectionTable(after.outline.sectionList));
  if (out) lines.push("", `wrote ${out} (${result.format})`);
  return lines.join("\n");
}

/** A one-line progress bar on stderr: wave, calls done of the wave, elapsed time. */
function progressLine(started) {
  let calls = 0;
  return (e) => {
    if (e.phase === "call") calls++;
    const width = 24;
    const share = e.phase === "done" ? 1 : e.total ? e.done / e.total : 0;
    const bar = "#".repeat(Math.round(share * width)).padEnd(width, ".");
    const what =
      e.phase === "done" ? `done: ${e.calls} calls in ${e.waves} wave(s)` : `wave ${e.wave + 1}: ${e.done}/${e.total}`;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stderr.write(`\r[${bar}] ${what}, ${calls} calls, ${seconds} s   `);
  };
}
