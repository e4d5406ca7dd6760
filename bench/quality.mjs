// Quality benchmark (issue 16 item 5): what a compaction keeps of the facts a continuing
// agent needs, for every contextfold strategy (built-in offline summarizer: no `summarizer`
// option) and the peers, at several budgets, on the real transcripts of ../shared/fixtures/real
// (read in place). `node bench/quality.mjs` rewrites only the section between the
// `<!-- quality:start -->` / `<!-- quality:end -->` markers of bench/RESULTS.md; `npm run bench`
// (bench/run.mjs) calls `section()` and puts the same section in its file.
//
// Facts (deterministic; all facts are lowercased, whitespace collapsed, at least 3 characters,
// not a stop word, not a bare number):
// - from a reference summary (Claude Code's own, `*.reference_summary.json`, the text after its
//   preamble): every `backticked` span (commands, identifiers, paths, error messages; a span
//   that is a path counts by its basename, so `lib/a/b.ex` and `b.ex` are the same fact),
//   every bare path-like word (`dir/file.ext` or `file.ext` with a known extension, by
//   basename), every "quoted" span of 12+ characters (the user's requests as quoted), every
//   version (`1.2.3`) and every dashed id with a digit (`spotter-a0y.1`);
// - from a transcript (no reference needed): every user text message (its first 200
//   characters), every path-like word of any message, the `command` argument of every tool
//   call (first 200 characters), and every tool-result line that says error / failed /
//   exception / traceback (first 120 characters).
// A fact is kept when it is a substring of the compacted output's text: every string value of
// every message (tool arguments and results included), lowercased, whitespace collapsed.
//
// Tokens: contextfold's estimate (`measureChain(output).total.tokens`, in the output's own
// format) for every contender and every budget; a budget is met when that count is <= it.
//
// Contenders (add one: one line in CONTENDERS):
// - contextfold `auto` (the default), `mask`, `sections`, `window`, `tiers`, `budget` via
//   `compact(chain, { strategy, maxTokens })`;
// - AI SDK `pruneMessages` (reasoning and tool calls dropped before the last 2 messages),
//   on the chain converted to AI SDK ModelMessages by contextfold `convert`, then oldest
//   messages dropped until within budget (it has no budget of its own);
// - LangChain `trimMessages` (strategy `last`, `startOn: "human"`, `includeSystem`, the
//   contextfold estimate per message as token counter) on the chain as OpenAI messages;
// - keep-last-N: drop the oldest messages (keeping a leading system message) until within
//   budget, with no regard to pairs.
// Valid: `validateChain(output)` reports no problem (for the output's own format).

import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { compact, convert, measureChain, validateChain } from "contextfold";
import { pruneMessages } from "ai";
import { trimMessages } from "langchain";
import { coerceMessageLikeToMessage } from "@langchain/core/messages";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
export const realDir = join(root, "..", "shared", "fixtures", "real");

// ---- facts ------------------------------------------------------------------------------

const STOP = new Set(
  "the and for with that this from into are was were has have not but you your all any can will its use run see".split(
    " ",
  ),
);
const EXT =
  "ex|exs|ts|tsx|js|mjs|cjs|jsx|json|md|py|rs|toml|yaml|yml|sh|txt|html|css|heex|eex|lock|go|rb|java|c|h|cpp|sql|cfg|ini";
const PATH_RE = new RegExp(`(?:[\\w.@~-]+/)*[\\w@-][\\w.-]*\\.(?:${EXT})\\b`, "gi");
const norm = (s) => s.toLowerCase().replace(/\s+/g, " ").trim();
const isPath = (s) => new RegExp(`^(?:[\\w.@~-]+/)*[\\w@-][\\w.-]*\\.(?:${EXT})$`, "i").test(s);

function addFact(set, raw) {
  let f = norm(raw.replace(/^["'`]+|["'`.,;:]+$/g, ""));
  if (isPath(f)) f = basename(f);
  if (f.length < 3 || STOP.has(f) || /^[\d.,%]+$/.test(f)) return;
  set.add(f);
}

/** Facts of a reference summary text (rules in the header). */
export function summaryFacts(text) {
  const facts = new Set();
  for (const m of text.matchAll(/`([^`\n]+)`/g)) addFact(facts, m[1]);
  const plain = text.replace(/`[^`\n]+`/g, " ");
  for (const m of plain.matchAll(PATH_RE)) addFact(facts, m[0]);
  for (const m of plain.matchAll(/"([^"\n]{12,})"/g)) addFact(facts, m[1]);
  for (const m of plain.matchAll(/\bv?\d+\.\d+\.\d+\b/g)) addFact(facts, m[0]);
  for (const m of plain.matchAll(/\b[a-z]+(?:-[a-z0-9]+)*-[a-z0-9]*\d[a-z0-9]*(?:\.\d+)?\b/gi)) addFact(facts, m[0]);
  return facts;
}

/** Facts of a transcript (rules in the header), from contextfold's reading of it. */
export function transcriptFacts(chain) {
  const facts = new Set();
  for (const m of measureChain(chain).messages) {
    for (const t of m.texts ?? []) for (const p of t.matchAll(PATH_RE)) addFact(facts, p[0]);
    if (m.role === "user" && m.kind === "text") for (const t of m.texts ?? []) addFact(facts, t.slice(0, 200));
    if (m.kind === "toolResult")
      for (const t of m.texts ?? [])
        for (const line of t.split("\n"))
          if (/error|failed|exception|traceback/i.test(line)) addFact(facts, line.trim().slice(0, 120));
  }
  for (const s of strings(chain)) {
    // Tool-call arguments: a JSON string (OpenAI) or an object (Anthropic `input`) with `command`.
    for (const m of s.matchAll(/"command"\s*:\s*"((?:[^"\\]|\\.)*)"/g)) {
      try {
        addFact(facts, JSON.parse(`"${m[1]}"`).slice(0, 200));
      } catch {}
    }
  }
  for (const c of commandsOf(chain)) addFact(facts, c.slice(0, 200));
  return facts;
}

function commandsOf(value, out = []) {
  if (Array.isArray(value)) for (const v of value) commandsOf(v, out);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "command" && typeof v === "string") out.push(v);
      else commandsOf(v, out);
    }
  }
  return out;
}

/** Every string value of a chain, recursively. */
function strings(value, out = []) {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === "object") for (const v of Object.values(value)) strings(v, out);
  return out;
}
const textOf = (chain) => norm(strings(chain).join("\n"));
const kept = (facts, text) => [...facts].filter((f) => text.includes(f)).length;

// ---- contenders ---------------------------------------------------------------------------

const tokensOf = (chain) => measureChain(chain).total.tokens;

/** Drops the oldest messages (keeping a leading system message) until within budget. */
function dropOldest(list, maxTokens) {
  const head = list[0]?.role === "system" ? [list[0]] : [];
  let lo = head.length;
  let hi = list.length; // smallest start whose suffix fits: binary search on the suffix size
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tokensOf([...head, ...list.slice(mid)]) <= maxTokens) hi = mid;
    else lo = mid + 1;
  }
  return [...head, ...list.slice(lo)];
}

const strategy = (name) => async (chain, maxTokens) => (await compact(chain, { strategy: name, maxTokens })).messages;

export const CONTENDERS = [
  { name: "contextfold `auto` (default)", run: strategy("auto") },
  { name: "contextfold `mask`", run: strategy("mask") },
  { name: "contextfold `sections`", run: strategy("sections") },
  { name: "contextfold `window`", run: strategy("window") },
  { name: "contextfold `tiers`", run: strategy("tiers") },
  { name: "contextfold `budget`", run: strategy("budget") },
  {
    name: "AI SDK `pruneMessages` + drop oldest",
    run: (chain, maxTokens) =>
      dropOldest(
        pruneMessages({
          messages: convert(chain, { to: "aisdk" }).messages,
          reasoning: "before-last-message",
          toolCalls: "before-last-2-messages",
        }),
        maxTokens,
      ),
  },
  {
    name: "LangChain `trimMessages`",
    run: (chain, maxTokens) => {
      const openai =
        Array.isArray(chain) && measureChain(chain).format === "openai"
          ? chain
          : convert(chain, { to: "openai" }).messages;
      const lc = openai.map((m) => coerceMessageLikeToMessage(m));
      const back = new Map(lc.map((m, i) => [m, openai[i]]));
      const cost = new Map(lc.map((m, i) => [m, tokensOf([openai[i]])]));
      const tokenCounter = (ms) =>
        ms.reduce((n, m) => n + (cost.get(m) ?? tokensOf([{ role: "user", content: String(m.content) }])), 0);
      return trimMessages(lc, {
        maxTokens,
        strategy: "last",
        tokenCounter,
        startOn: "human",
        includeSystem: true,
      }).then((out) => out.map((m) => back.get(m) ?? { role: "user", content: String(m.content) }));
    },
  },
  { name: "keep-last-N", run: (chain, maxTokens) => dropOldest(chain, maxTokens) },
];

// ---- measurement --------------------------------------------------------------------------

function userRequests(chain) {
  return measureChain(chain)
    .messages.filter((m) => m.role === "user" && m.kind === "text")
    .map((m) => norm((m.texts ?? []).join("\n")))
    .filter((t) => t.length > 0);
}

function inputs() {
  if (!existsSync(realDir)) return [];
  return readdirSync(realDir)
    .filter((f) => /\.(openai|anthropic)\.json$/.test(f))
    .sort()
    .map((f) => {
      const file = join(realDir, f);
      const ref = join(realDir, f.replace(/\.(openai|anthropic)\.json$/, ".reference_summary.json"));
      let reference = null;
      if (existsSync(ref)) {
        const text = strings(JSON.parse(readFileSync(ref, "utf8"))).join("\n");
        reference = { text, tokens: tokensOf([{ role: "user", content: text }]) };
      }
      return { name: f, chain: JSON.parse(readFileSync(file, "utf8")), reference };
    });
}

export async function measure() {
  const rows = [];
  for (const input of inputs()) {
    const size = tokensOf(input.chain);
    const budgets = [...(input.reference ? [input.reference.tokens] : []), 8000, 16000, 32000].filter((b) => b < size);
    if (budgets.length === 0) budgets.push(Math.floor(size / 4), Math.floor(size / 2));
    const refFacts = input.reference
      ? summaryFacts(input.reference.text.replace(/^[\s\S]*?(?=Analysis:|Summary:)/, ""))
      : null;
    const ownFacts = transcriptFacts(input.chain);
    const requests = userRequests(input.chain);
    for (const budget of budgets) {
      for (const c of CONTENDERS) {
        let out;
        try {
          out = await c.run(input.chain, budget);
        } catch (e) {
          rows.push({ input: input.name, budget, contender: c.name, error: String(e.message ?? e).slice(0, 80) });
          continue;
        }
        const text = textOf(out);
        const tokens = tokensOf(out);
        rows.push({
          input: input.name,
          size,
          budget,
          budgetName: input.reference && budget === input.reference.tokens ? `${budget} (reference size)` : `${budget}`,
          contender: c.name,
          ref: refFacts ? kept(refFacts, text) / refFacts.size : null,
          refCount: refFacts?.size,
          own: kept(ownFacts, text) / ownFacts.size,
          ownCount: ownFacts.size,
          perK: (kept(refFacts ?? ownFacts, text) * 1000) / Math.max(1, tokens),
          first: requests.length ? text.includes(requests[0]) : null,
          latest: requests.length ? text.includes(requests[requests.length - 1]) : null,
          valid: validateChain(out).length === 0,
          within: tokens <= budget,
          tokens,
        });
      }
    }
  }
  return rows;
}

// ---- report -------------------------------------------------------------------------------

const pct = (x) => (x == null ? "n/a" : `${Math.round(x * 100)}%`);
const yn = (x) => (x == null ? "n/a" : x ? "yes" : "**no**");

/** The markdown section (with its markers), and a one-line headline for the README. */
export async function section() {
  const started = Date.now();
  const rows = await measure();
  const md = ["<!-- quality:start -->", "## Quality: facts a continuing agent needs", ""];
  if (rows.length === 0) {
    md.push(
      `> notice: ${relative(root, realDir)} not found: the quality benchmark was skipped.`,
      "",
      "<!-- quality:end -->",
    );
    return { markdown: md.join("\n"), headline: null };
  }
  md.push(
    "`bench/quality.mjs` (also runnable alone; its header gives the fact rules). Facts (paths by basename, backticked identifiers and commands, quoted requests, versions and ids) " +
      "are taken from Claude Code's own summary of the session where there is one (`reference facts kept`), and from the transcript itself (user requests, paths, commands, error lines: `transcript facts kept`). " +
      "A fact is kept when it appears in the text of the output. Tokens: contextfold's estimate (`measureChain`) for everyone. contextfold runs with its built-in offline summarizer. " +
      "facts / 1k tokens counts reference facts where there is a reference, transcript facts otherwise.",
    "",
    "Reading the peers: `pruneMessages` leaves assistant messages whose only content was reasoning or tool calls as empty text (`validateChain`: `empty_text`), and on the Claude Code session its output is the same at every budget (only text is left). " +
      '`trimMessages` with `startOn: "human"` keeps nothing when the turn after the latest user message alone exceeds the budget (64k tokens of tool traffic on the Claude Code session). keep-last-N cuts tool pairs.',
    "",
  );
  let input = null;
  for (const r of rows) {
    if (r.input !== input) {
      input = r.input;
      const first = rows.find((x) => x.input === input && !x.error);
      md.push(
        `### ${input}`,
        "",
        `${first?.size ?? "?"} tokens; ${first?.refCount != null ? `${first.refCount} reference facts, ` : ""}${first?.ownCount ?? "?"} transcript facts.`,
        "",
        "| budget | contender | reference facts kept | transcript facts kept | facts / 1k tokens | first request verbatim | latest request verbatim | valid | within budget | tokens out |",
        "|---|---|---:|---:|---:|---|---|---|---|---:|",
      );
    }
    if (r.error) md.push(`| ${r.budget} | ${r.contender} | error \`${r.error}\` | | | | | | | |`);
    else
      md.push(
        `| ${r.budgetName} | ${r.contender} | ${pct(r.ref)} | ${pct(r.own)} | ${r.perK.toFixed(1)} | ${yn(r.first)} | ${yn(r.latest)} | ${yn(r.valid)} | ${yn(r.within)} | ${r.tokens} |`,
      );
    const next = rows[rows.indexOf(r) + 1];
    if (!next || next.input !== input) md.push("");
  }
  md.push(`Quality bench time: ${((Date.now() - started) / 1000).toFixed(0)} s.`, "", "<!-- quality:end -->");
  return { markdown: md.join("\n"), headline: headline(rows) };
}

/** The default against pruneMessages on the reference transcript (OpenAI form), at every budget. */
function headline(rows) {
  const withRef = rows.filter((r) => r.ref != null && !r.error && r.input.endsWith(".openai.json"));
  if (withRef.length === 0) return null;
  const range = (name) => {
    const v = withRef.filter((r) => r.contender === name).map((r) => Math.round(r.ref * 100));
    return Math.min(...v) === Math.max(...v) ? `${v[0]}%` : `${Math.min(...v)}-${Math.max(...v)}%`;
  };
  const budgets = [...new Set(withRef.map((r) => r.budget))];
  return (
    `On the real Claude Code session, at ${budgets.length} budgets from the size of Claude Code's own summary (${Math.min(...budgets)} tokens) to ${Math.max(...budgets)}, ` +
    `the default (\`auto\`, offline summarizer) keeps ${range(CONTENDERS[0].name)} of that summary's facts, AI SDK \`pruneMessages\` ${range("AI SDK `pruneMessages` + drop oldest")}, ` +
    `LangChain \`trimMessages\` ${range("LangChain `trimMessages`")} ([bench/RESULTS.md](bench/RESULTS.md#quality-facts-a-continuing-agent-needs)).`
  );
}

/** Replaces the marked section of `file` (or appends it). */
export function writeSection(file, markdown) {
  const old = existsSync(file) ? readFileSync(file, "utf8") : "";
  const re = /<!-- quality:start -->[\s\S]*?<!-- quality:end -->/;
  const text = re.test(old) ? old.replace(re, () => markdown) : `${old.trimEnd()}\n\n${markdown}\n`;
  writeFileSync(file, text);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { markdown, headline: line } = await section();
  writeSection(join(here, "RESULTS.md"), markdown);
  console.log(markdown);
  if (line) console.log(`\nREADME line:\n${line}`);
}
