// Token estimate accuracy: contextfold's built-in estimate against a real tokenizer
// (gpt-tokenizer, o200k_base: GPT-4o and later) on the same texts of every message of
// the shipped demo session and of the real transcripts (when ../shared is beside the
// project). Prints a markdown table per message kind; `--json` prints the raw figures.
//
// Method: for each message, the texts the estimate counts (text, reasoning, tool names,
// tool arguments, tool-result text) are counted by both; the message's fixed part
// (per-message overhead, tool framing, media) is the same on both sides and left out,
// so the figures are the error of the text estimate itself. Relative error =
// (estimate - real) / real, over messages of at least 8 real tokens.

import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { measureChain } from "contextfold";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const shared = join(root, "..", "shared", "fixtures", "real");

export function sources() {
  const files = [join(root, "examples", "demo-session.openai.json")];
  if (existsSync(shared)) {
    for (const f of readdirSync(shared).sort()) {
      if (/\.(openai|anthropic)\.json$/.test(f)) files.push(join(shared, f));
    }
  } else {
    console.error(`notice: ${shared} not found; measuring the demo session only`);
  }
  return files;
}

export function measureFile(file) {
  const chain = JSON.parse(readFileSync(file, "utf8"));
  const { messages } = measureChain(chain);
  return messages.map((m) => {
    const real = m.texts.reduce((n, t) => n + countTokens(t), 0);
    const estimate = m.tokens - m.fixedTokens;
    return { kind: m.kind, role: m.role, real, estimate };
  });
}

export function summarize(rows) {
  const kinds = new Map();
  for (const r of rows) {
    if (r.real < 8) continue;
    const list = kinds.get(r.kind) ?? [];
    list.push(r);
    kinds.set(r.kind, list);
  }
  const all = [...kinds.values()].flat();
  const stats = (list) => {
    const rel = list.map((r) => (r.estimate - r.real) / r.real);
    const real = list.reduce((n, r) => n + r.real, 0);
    const est = list.reduce((n, r) => n + r.estimate, 0);
    return {
      messages: list.length,
      meanAbs: rel.reduce((n, x) => n + Math.abs(x), 0) / rel.length,
      bias: rel.reduce((n, x) => n + x, 0) / rel.length,
      worst: rel.reduce((w, x) => (Math.abs(x) > Math.abs(w) ? x : w), 0),
      total: (est - real) / real,
    };
  };
  const out = {};
  for (const [k, list] of [...kinds.entries()].sort()) out[k] = stats(list);
  out.all = stats(all);
  return out;
}

const pct = (x) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%`;

export function table(summary) {
  const lines = [
    "| message kind | messages | mean abs error | bias | worst | error of the total |",
    "|---|---:|---:|---:|---:|---:|",
  ];
  for (const [k, s] of Object.entries(summary)) {
    lines.push(
      `| ${k} | ${s.messages} | ${(s.meanAbs * 100).toFixed(1)}% | ${pct(s.bias)} | ${pct(s.worst)} | ${pct(s.total)} |`,
    );
  }
  return lines.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = sources().flatMap(measureFile);
  const summary = summarize(rows);
  if (process.argv.includes("--json")) console.log(JSON.stringify(summary, null, 2));
  else console.log(table(summary));
}
