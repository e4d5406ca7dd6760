// The settings the page offers for each strategy (the main ones; blank means the
// strategy's default, shown as the placeholder), and reading them into `strategy`.
import type { CompactStrategy } from "contextfold";
import { h } from "./dom.ts";

export type StrategyName = "sections" | "window" | "tiers" | "budget";

interface Setting {
  key: string;
  label: string;
  /** A number input, or a tri-state (default / on / off) select. */
  kind: "number" | "bool";
  /** The default, shown when the field is blank. */
  placeholder: string;
  title: string;
}

const num = (key: string, label: string, placeholder: string, title: string): Setting => ({
  key,
  label,
  kind: "number",
  placeholder,
  title,
});
const bool = (key: string, label: string, placeholder: string, title: string): Setting => ({
  key,
  label,
  kind: "bool",
  placeholder,
  title,
});

const settings: Record<StrategyName, Setting[]> = {
  sections: [
    num("keepQASections", "Recent sections kept", "1", "Recent sections kept out of section summarization (at least 1)"),
    num("lastSecTokens", "Last sections budget (tokens)", "12800", "Rotate the kept sections when they outgrow this"),
    num("maxBpTokens", "Oversized pair (tokens)", "4096", "A body pair above this is summarized on its own (never the last one)"),
    num("minSummarizeBytes", "Smallest summarized (bytes)", "512", "Content smaller than this is never sent to the summarizer"),
    bool("preserveLast", "Rotate last sections", "on", "Rotate the last sections when they outgrow their budget"),
    bool("useQA", "Fold old sections into QA", "off", "Fold older sections into one question/answer section"),
  ],
  window: [
    num("window", "Messages kept", "100", "More messages than this trigger compaction"),
    num("thresholdTokens", "Threshold (tokens)", "80% of budget", "A chain over this triggers compaction (76,800 without a budget)"),
    num("messageThresholdTokens", "Oversized tool result (tokens)", "half the threshold", "A tool result above this is summarized on its own"),
    num("maxDepth", "Re-summarization depth", "5", "Levels of re-summarizing a long text before it is truncated"),
    num("minSummarizeBytes", "Smallest summarized (bytes)", "512", "Content smaller than this is never sent to the summarizer"),
  ],
  tiers: [
    num("recent", "Recent messages kept", "20", "Most recent messages kept verbatim"),
    num("condensed", "Condensed messages", "50", "Messages before the recent ones condensed; older ones compressed"),
    num("condensedTokens", "Condensed summary (tokens)", "500", "Size hint of the condensed summary"),
    num("compressedTokens", "Compressed summary (tokens)", "200", "Size hint of the compressed summary"),
  ],
  budget: [
    num("keepRecent", "Recent messages kept", "2", "Always kept, extended to whole tool exchanges"),
    num("summaryPercent", "Summaries' share (%)", "20", "Share of the budget all summaries together may take"),
  ],
};

export function renderStrategySettings(name: StrategyName, target: HTMLElement): void {
  target.replaceChildren(
    ...settings[name].map((setting) => {
      const id = `set-${setting.key}`;
      const control =
        setting.kind === "number"
          ? h("input", { id, "data-key": setting.key, type: "number", min: "0", placeholder: setting.placeholder })
          : h(
              "select",
              { id, "data-key": setting.key, "data-kind": "bool" },
              h("option", { value: "" }, `default (${setting.placeholder})`),
              h("option", { value: "true" }, "on"),
              h("option", { value: "false" }, "off"),
            );
      return h("label", { class: "field", title: setting.title }, h("span", {}, setting.label), control);
    }),
  );
}

/** The strategy name, with the settings that are not blank (numbers as numbers). */
export function readStrategy(name: StrategyName, target: HTMLElement): CompactStrategy {
  const chosen: Record<string, unknown> = { name };
  for (const control of target.querySelectorAll<HTMLInputElement | HTMLSelectElement>("[data-key]")) {
    const key = control.dataset.key as string;
    const raw = control.value.trim();
    if (raw === "") continue;
    // Numbers go as typed: contextfold reports a bad one with its path (options.strategy.key).
    chosen[key] = control.dataset.kind === "bool" ? raw === "true" : Number(raw);
  }
  return chosen as unknown as CompactStrategy;
}
