// The settings the page offers for each strategy (the main ones; blank means the
// strategy's default, shown as the placeholder), and reading them into `strategy`.
import { type CompactStrategy, defaultSettings, type StrategyName } from "contextfold";
import { h } from "./dom.ts";

export type { StrategyName };

interface Setting {
  key: string;
  label: string;
  /** A number input, or a tri-state (default / on / off) select. */
  kind: "number" | "bool";
  /** Shown when the field is blank, where the default derives from the budget. */
  derived?: string;
  title: string;
}

const num = (key: string, label: string, title: string, derived?: string): Setting => ({
  key,
  label,
  kind: "number",
  title,
  derived,
});
const bool = (key: string, label: string, title: string): Setting => ({ key, label, kind: "bool", title });

// Blank fields show the package's own defaults (`defaultSettings()`), never a copy here.
const masking = [
  num("keepLast", "Tool exchanges kept whole", "Results of the newest tool exchanges are never masked"),
  num("minBytes", "Smallest masked (bytes)", "Tool results smaller than this are never masked"),
  bool("maskArguments", "Mask old arguments too", "Also mask large argument values of older tool calls"),
];

const settings: Record<StrategyName, Setting[]> = {
  auto: [
    num("targetPercent", "Fold target (% of budget)", "Compaction brings the chain down to this share of the budget"),
    num("summaryPercent", "Summary share (% of budget)", "Share of the budget the summary may take"),
    bool("stable", "Stable prefix", "Fold as the conversation's requests would have (for stateless callers)"),
    num("summarizerMaxTokens", "Summarizer limit (tokens)", "No summary request holds more; longer spans go in parts"),
    ...masking,
  ],
  mask: masking,
  sections: [
    num("keepQASections", "Recent sections kept", "Recent sections kept out of section summarization (at least 1)"),
    num(
      "lastSecBytes",
      "Last sections budget (bytes)",
      "Rotate the kept sections when they outgrow this",
      "half the budget",
    ),
    num("maxBpBytes", "Oversized pair (bytes)", "A body pair above this is summarized on its own (never the last one)"),
    num(
      "minSummarizeBytes",
      "Smallest summarized (bytes)",
      "Content smaller than this is never sent to the summarizer",
    ),
    bool("preserveLast", "Rotate last sections", "Rotate the last sections when they outgrow their budget"),
    bool("useQA", "Fold old sections into QA", "Fold older sections into one question/answer section"),
  ],
  window: [
    num("window", "Messages kept", "More messages than this trigger compaction"),
    num("thresholdTokens", "Threshold (tokens)", "A chain over this triggers compaction", "80% of the budget"),
    num(
      "messageThresholdTokens",
      "Oversized tool result (tokens)",
      "A tool result above this is summarized on its own",
      "half the threshold",
    ),
    num("maxDepth", "Re-summarization depth", "Levels of re-summarizing a long text before it is truncated"),
    num(
      "minSummarizeBytes",
      "Smallest summarized (bytes)",
      "Content smaller than this is never sent to the summarizer",
    ),
  ],
  tiers: [
    num("recent", "Recent messages kept", "Most recent messages kept verbatim"),
    num("condensed", "Condensed messages", "Messages before the recent ones condensed; older ones compressed"),
    num("condensedBytes", "Condensed summary (bytes)", "Size hint of the condensed summary", "25% of the budget"),
    num("compressedBytes", "Compressed summary (bytes)", "Size hint of the compressed summary", "10% of the budget"),
  ],
  budget: [
    num("keepRecent", "Recent messages kept", "Always kept, extended to whole tool exchanges"),
    num("summaryPercent", "Summaries' share (%)", "Share of the budget all summaries together may take"),
  ],
};

/** What a blank field means: the default, and how a budget changes it. */
function placeholder(name: StrategyName, setting: Setting): string {
  const value = (defaultSettings()[name] as unknown as Record<string, unknown>)[setting.key];
  const shown = setting.kind === "bool" ? (value ? "on" : "off") : String(value ?? "");
  return setting.derived === undefined ? shown : `${setting.derived}; ${shown} without one`;
}

export function renderStrategySettings(name: StrategyName, target: HTMLElement): void {
  target.replaceChildren(
    ...settings[name].map((setting) => {
      const id = `set-${setting.key}`;
      const shown = placeholder(name, setting);
      const control =
        setting.kind === "number"
          ? h("input", { id, "data-key": setting.key, type: "number", min: "0", placeholder: shown })
          : h(
              "select",
              { id, "data-key": setting.key, "data-kind": "bool" },
              h("option", { value: "" }, `default (${shown})`),
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
