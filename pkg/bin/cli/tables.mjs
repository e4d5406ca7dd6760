// Text tables of the reports: sizes, section rows, wrapping.

export const KIND_LETTER = { completion: "C", requestResponse: "R", summarization: "S" };

/** 1234 -> "1.2k", 35000 -> "35k", 1234567 -> "1.2M". */
export function short(bytes) {
  if (bytes < 1000) return String(bytes);
  const [value, unit] = bytes < 1e6 ? [bytes / 1e3, "k"] : [bytes / 1e6, "M"];
  return `${value < 10 ? value.toFixed(1) : Math.round(value)}${unit}`;
}

export const grouped = (n) => n.toLocaleString("en-US");

export function sectionTable(sections) {
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
      (p) =>
        `${KIND_LETTER[p.kind] ?? "?"}${p.toolCalls > 1 ? `x${p.toolCalls}` : ""}${p.hasReasoning ? "*" : ""}:${short(p.bytes)}`,
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

/**
 * One line per kind of change (`kindOf(item)`), with the first messages it concerned
 * (`item.index`; --json lists them all): "  repaired: droppedOrphanResult x1: [1]".
 */
export function changeLines(items, kindOf) {
  const kinds = new Map();
  for (const item of items) {
    const kind = kindOf(item);
    kinds.set(kind, [...(kinds.get(kind) ?? []), item.index]);
  }
  return [...kinds].map(([kind, at]) => {
    const shown = at
      .slice(0, 8)
      .map((i) => `[${i ?? "-"}]`)
      .join(" ");
    return `  ${kind} x${at.length}: ${shown}${at.length > 8 ? " ..." : ""}`;
  });
}
