// Renders what the page shows: the chain outline with size bars, the totals, the
// timeline of summarizer calls, and errors.
import type { ChainOutline, CompactReport, Diagnostic, SectionAction, SummarizeError } from "contextfold";
import type { CallRecord } from "./summarizers.ts";
import { formatBytes, formatCount, formatMs, h, plural } from "./dom.ts";

const kindNames: Record<string, string> = {
  completion: "completion",
  requestResponse: "tool request/response",
  summarization: "summary",
};

/**
 * The chain as rows of sections, each a bar of its header and body pairs; `scale` is the
 * byte count of a full-width bar (the same for before and after, so sizes compare).
 */
export function renderChain(
  target: HTMLElement,
  outline: ChainOutline,
  scale: number,
  actions?: Map<number, SectionAction[]>,
): void {
  const rows = outline.sectionList.map((section, index) => {
    const segment = (bytes: number, cls: string, title: string) =>
      h("span", { class: `seg ${cls}`, style: `width:${(bytes / scale) * 100}%`, title });
    const pairs = section.pairs.map((pair, p) =>
      segment(
        pair.bytes,
        `${pair.kind}${pair.hasReasoning ? " reasoning" : ""}`,
        `pair ${p}: ${kindNames[pair.kind] ?? pair.kind}, ${formatBytes(pair.bytes)}` +
          (pair.toolCalls > 0 ? `, ${plural(pair.toolCalls, "tool call")}` : "") +
          (pair.hasReasoning ? ", with reasoning" : ""),
      ),
    );
    const done = actions?.get(index) ?? [];
    return h(
      "div",
      { class: "section", "data-section": index, "data-bytes": section.bytes },
      h(
        "div",
        { class: "section-label" },
        h("b", {}, `§${index}`),
        ` ${plural(section.pairs.length, "pair")} · ${formatBytes(section.bytes)}`,
      ),
      h(
        "div",
        { class: "bar" },
        segment(section.headerBytes, "header", `header: ${formatBytes(section.headerBytes)}`),
        pairs,
      ),
      done.length > 0
        ? h(
            "ul",
            { class: "section-actions" },
            done.map((a) => h("li", {}, describeAction(a))),
          )
        : null,
    );
  });
  target.replaceChildren(...(rows.length > 0 ? rows : [h("p", { class: "hint" }, "No sections.")]));
}

/** Readable text for one thing the strategy did to a section. */
export function describeAction(action: SectionAction): string {
  const shrink = (a: { bytesBefore: number; bytesAfter: number }) =>
    `${formatBytes(a.bytesBefore)} → ${formatBytes(a.bytesAfter)}`;
  switch (action.action) {
    case "sectionSummarized":
      return `summarized ${plural(action.pairs, "pair")}: ${shrink(action)}`;
    case "pairSummarized":
      return `oversized pair ${action.pair} summarized: ${shrink(action)}`;
    case "rotated":
      return `rotated: ${action.pairsSummarized} pairs summarized, ${action.pairsKept} kept: ${shrink(action)}`;
    case "foldedIntoQa":
      return `folded into the QA section (${formatBytes(action.bytesBefore)})`;
    case "noGain":
      return `kept: the ${action.kind} summary (${formatBytes(action.summaryBytes)}) was not smaller than ${formatBytes(action.bytesBefore)}`;
    case "messageSummarized":
      return `message ${action.message} summarized: ${shrink(action)}`;
    case "truncated":
      return `${action.message === null ? "summary" : `message ${action.message}`} truncated: ${shrink(action)}`;
    case "snapshot":
      return `state snapshot of ${plural(action.messages, "message")}${action.updated ? " (updated)" : ""}: ${shrink(action)}`;
    case "skipped":
      return `skipped: ${action.reason}`;
    case "tiered":
      return `${action.level} tier: ${plural(action.messages, "message")}${action.merged ? " (merged)" : ""}: ${shrink(action)}`;
    case "condensed":
      return `condensed ${plural(action.pairs, "pair")}`;
    case "trimmed":
      return `trimmed: ${action.what}`;
    case "failed":
      return `the ${action.kind} summary (call ${action.request}) failed`;
    default:
      return JSON.stringify(action);
  }
}

/** Before / after / change for messages, bytes and tokens, and the run's counts. */
export function renderTotals(target: HTMLElement, report: CompactReport, elapsedMs: number): void {
  const row = (label: string, before: number, after: number, show: (n: number) => string) => {
    const change = before === 0 ? 0 : ((after - before) / before) * 100;
    return h(
      "tr",
      {},
      h("th", {}, label),
      h("td", {}, show(before)),
      h("td", {}, show(after)),
      h(
        "td",
        { class: change < 0 ? "down" : change > 0 ? "up" : "" },
        `${change > 0 ? "+" : ""}${change.toFixed(1)} %`,
      ),
    );
  };
  const { before, after } = report;
  const ratio = before.bytes === 0 ? 1 : after.bytes / before.bytes;
  target.dataset.beforeBytes = String(before.bytes);
  target.dataset.afterBytes = String(after.bytes);
  target.dataset.beforeTokens = String(before.tokens);
  target.dataset.afterTokens = String(after.tokens);
  target.dataset.calls = String(report.calls);
  target.dataset.waves = String(report.waves);
  target.replaceChildren(
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, h("th", {}), h("th", {}, "before"), h("th", {}, "after"), h("th", {}, "change"))),
      h(
        "tbody",
        {},
        row("messages", before.messages, after.messages, formatCount),
        row("bytes", before.bytes, after.bytes, formatCount),
        row("tokens (estimated)", before.tokens, after.tokens, formatCount),
      ),
    ),
    h(
      "div",
      { class: "size-bars" },
      h("span", {}, "before"),
      h(
        "div",
        { class: "size-track" },
        h("div", { class: "size-bar before", style: "width:calc(100% - 70px)" }),
        formatBytes(before.bytes),
      ),
      h("span", {}, "after"),
      h(
        "div",
        { class: "size-track" },
        h("div", { class: "size-bar after", style: `width:max(2px, calc((100% - 70px) * ${ratio.toFixed(4)}))` }),
        formatBytes(after.bytes),
      ),
    ),
    h(
      "p",
      { class: "hint" },
      `strategy ${report.strategy} · ${plural(report.calls, "summarizer call")} in ${plural(report.waves, "wave")} · ` +
        `${plural(report.errors.length, "error")} · ${formatMs(elapsedMs)}` +
        (report.repairs.length > 0 ? ` · ${plural(report.repairs.length, "input repair")}` : "") +
        (report.providerRepairs.length > 0 ? ` · ${plural(report.providerRepairs.length, "provider repair")}` : ""),
    ),
  );
}

/**
 * Each summarizer call as a bar from its start to its end, one row per call, rows
 * grouped by wave (the sequential rounds); a call still running reaches `now`.
 */
export function renderTimeline(target: HTMLElement, calls: CallRecord[], now: number): void {
  if (calls.length === 0) {
    target.replaceChildren(h("p", { class: "hint" }, "No summarizer call."));
    return;
  }
  const span = Math.max(now, ...calls.map((c) => c.end ?? now), 1);
  const sorted = [...calls].sort((a, b) => a.wave - b.wave || a.start - b.start || a.id - b.id);
  const waves = new Map<number, CallRecord[]>();
  for (const call of sorted) waves.set(call.wave, [...(waves.get(call.wave) ?? []), call]);
  const groups = [...waves].map(([wave, group]) => {
    const first = Math.min(...group.map((c) => c.start));
    const last = Math.max(...group.map((c) => c.end ?? now));
    return h(
      "div",
      { class: "wave", "data-wave": wave },
      h(
        "div",
        { class: "wave-label" },
        `wave ${wave + 1}`,
        h("small", {}, `${group.length} · ${formatMs(last - first)}`),
      ),
      h(
        "div",
        { class: "wave-rows" },
        h("div", {
          class: "wave-band",
          style: `left:${(first / span) * 100}%;width:${((last - first) / span) * 100}%`,
        }),
        group.map((call) => {
          const end = call.end ?? now;
          const state = call.end === undefined ? "running" : call.ok ? "ok" : "failed";
          const title =
            `call ${call.id} (${call.kind}${call.section !== null ? `, section ${call.section}` : ""}, ` +
            `messages ${call.range.start}–${call.range.end - 1}): ${formatBytes(call.transcriptBytes)} in` +
            (call.summaryBytes !== undefined ? `, ${formatBytes(call.summaryBytes)} out` : "") +
            ` (target ${formatBytes(call.targetBytes)}), ${formatMs(end - call.start)}` +
            (call.error ? `\n${call.error}` : "");
          return h(
            "div",
            { class: "call-row" },
            h("span", {
              class: `call ${state}`,
              "data-call": call.id,
              style: `left:${(call.start / span) * 100}%;width:${Math.max(((end - call.start) / span) * 100, 0.4)}%`,
              title,
            }),
            // The label after the bar, or before it when the bar ends near the right edge.
            h(
              "span",
              {
                class: "call-label",
                style:
                  end / span > 0.75
                    ? `right:${100 - (call.start / span) * 100}%;padding-right:4px`
                    : `left:${(end / span) * 100}%;padding-left:4px`,
              },
              `#${call.id} ${call.kind}`,
            ),
          );
        }),
      ),
    );
  });
  target.replaceChildren(
    ...groups,
    h("div", { class: "axis" }, h("span", {}, "0"), h("span", {}, formatMs(span / 2)), h("span", {}, formatMs(span))),
  );
}

/** An error from contextfold (or the page): its code and the path of the culprit first. */
export interface ShownError {
  title: string;
  code?: string;
  path?: string;
  message: string;
  details?: string[];
}

export function describeError(error: unknown, title: string): ShownError {
  if (error instanceof Error) {
    const e = error as Error & { code?: unknown; path?: unknown; errors?: unknown };
    const details = Array.isArray(e.errors) ? (e.errors as SummarizeError[]).map(describeSummarizeError) : undefined;
    return {
      title,
      code: typeof e.code === "string" ? e.code : e.name !== "Error" ? e.name : undefined,
      path: typeof e.path === "string" && e.path !== "" ? e.path : undefined,
      message: e.message,
      details,
    };
  }
  return { title, message: String(error) };
}

export function describeSummarizeError(error: SummarizeError): string {
  return `call ${error.request}: ${error.kind}: ${error.message}`;
}

export function renderError(target: HTMLElement, shown: ShownError | null, tone: "error" | "warning" = "error"): void {
  if (shown === null) {
    target.hidden = true;
    target.replaceChildren();
    return;
  }
  target.hidden = false;
  target.className = tone;
  target.dataset.code = shown.code ?? "";
  target.dataset.path = shown.path ?? "";
  target.replaceChildren(
    h(
      "div",
      { class: "error-head" },
      h("b", {}, shown.title),
      shown.code ? h("code", { class: "error-code" }, shown.code) : null,
      shown.path ? h("span", { class: "error-path" }, "at ", h("code", {}, shown.path)) : null,
    ),
    h("p", { class: "error-message" }, shown.message),
  );
  if (shown.details !== undefined && shown.details.length > 0) {
    target.append(
      h(
        "ul",
        {},
        shown.details.map((d) => h("li", {}, d)),
      ),
    );
  }
}

/** "valid for openai" or the first problems `validateChain` found. */
export function renderValidation(target: HTMLElement, diagnostics: Diagnostic[], provider: string): void {
  target.dataset.valid = String(diagnostics.length === 0);
  if (diagnostics.length === 0) {
    target.className = "caption ok";
    target.textContent = `valid for ${provider}`;
    target.title = "validateChain found no problem";
    return;
  }
  target.className = "caption bad";
  target.textContent = `${plural(diagnostics.length, "problem")} for ${provider}`;
  target.title = diagnostics
    .slice(0, 20)
    .map((d) => `${d.code} at ${d.path}: ${d.message}`)
    .join("\n");
}
