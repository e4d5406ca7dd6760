// The playground: load or paste a conversation, pick a strategy and a summarizer, compact
// it with a progress bar and a cancel button, and look at the result. It uses the npm
// package `contextfold` exactly as an app would: the browser entry, `await init()` first.
import init, {
  compact,
  formats,
  measureChain,
  parseChain,
  providerOf,
  validateChain,
  type ChainOutline,
  type CompactOptions,
  type CompactResult,
  type CompactStrategy,
  type FormatInfo,
  type OnError,
  type ProgressEvent,
  type ProviderName,
  type SectionAction,
  type Summarizer,
} from "contextfold";
import { openAICompatible } from "contextfold/summarizers";
import demoUrl from "../../examples/demo-session.openai.json?url";
import { byId, formatBytes, formatCount, formatMs, h, plural } from "./dom.ts";
import { readStrategy, renderStrategySettings, type StrategyName } from "./strategies.ts";
import { extractiveSummarizer, recordCalls, slowedSummarizer, type CallRecord } from "./summarizers.ts";
import {
  describeError,
  describeSummarizeError,
  renderChain,
  renderError,
  renderTimeline,
  renderTotals,
  renderValidation,
  type ShownError,
} from "./views.ts";
import "./style.css";

const ui = {
  wasmStatus: byId("wasm-status"),
  source: byId<HTMLSelectElement>("source"),
  load: byId<HTMLButtonElement>("load"),
  file: byId<HTMLInputElement>("file"),
  input: byId<HTMLTextAreaElement>("input"),
  inputInfo: byId("input-info"),
  format: byId<HTMLSelectElement>("format"),
  provider: byId<HTMLSelectElement>("provider"),
  strategy: byId<HTMLSelectElement>("strategy"),
  strategySettings: byId("strategy-settings"),
  maxTokens: byId<HTMLInputElement>("maxTokens"),
  concurrency: byId<HTMLInputElement>("concurrency"),
  timeoutMs: byId<HTMLInputElement>("timeoutMs"),
  onError: byId<HTMLSelectElement>("onError"),
  summarizer: byId<HTMLSelectElement>("summarizer"),
  extMaxBytes: byId<HTMLInputElement>("extMaxBytes"),
  slowDelay: byId<HTMLInputElement>("slowDelay"),
  oaBaseUrl: byId<HTMLInputElement>("oaBaseUrl"),
  oaModel: byId<HTMLInputElement>("oaModel"),
  oaKey: byId<HTMLInputElement>("oaKey"),
  run: byId<HTMLButtonElement>("run"),
  cancel: byId<HTMLButtonElement>("cancel"),
  error: byId("error"),
  status: byId("status"),
  progressBar: byId("progress-bar"),
  progressText: byId("progress-text"),
  totals: byId("totals"),
  chainBefore: byId("chain-before"),
  chainAfter: byId("chain-after"),
  beforeCaption: byId("before-caption"),
  afterCaption: byId("after-caption"),
  timeline: byId("timeline"),
  timelineCaption: byId("timeline-caption"),
  validation: byId("validation"),
  output: byId<HTMLTextAreaElement>("output"),
  copy: byId<HTMLButtonElement>("copy"),
  download: byId<HTMLButtonElement>("download"),
};

/** What the page knows about the loaded input (null when it does not parse). */
let before: { outline: ChainOutline; format: string } | null = null;
let sourceName = "conversation";
let running: AbortController | null = null;
let lastOutput: { json: string; name: string } | null = null;

type Status = "idle" | "running" | "done" | "cancelled" | "rolledBack" | "error";

function setStatus(state: Status, text: string): void {
  ui.status.dataset.state = state;
  ui.status.textContent = text;
}

function setProgress(fraction: number, text: string): void {
  ui.progressBar.style.width = `${Math.min(Math.max(fraction, 0), 1) * 100}%`;
  ui.progressText.textContent = text;
}

function showError(shown: ShownError | null, tone: "error" | "warning" = "error"): void {
  renderError(ui.error, shown, tone);
}

/** Page-level setting errors look like the package's: a code and the culprit's path. */
function settingError(path: string, message: string): Error {
  return Object.assign(new Error(message), { name: "PlaygroundError", code: "invalid_setting", path });
}

/** How the format menu names each format; a new format fails the type check until named here. */
const FORMAT_LABELS: Record<FormatInfo["name"], string> = {
  openai: "OpenAI Chat",
  "openai-responses": "OpenAI Responses",
  anthropic: "Anthropic Messages",
  gemini: "Gemini contents",
  aisdk: "Vercel AI SDK ModelMessage",
  "aisdk-ui": "Vercel AI SDK UIMessage",
  langchain: "LangChain messages",
  native: "native (contextfold)",
};

/** The format and provider menus: what this build of contextfold reads and checks (`formats()`). */
function fillFormatMenus(): void {
  const list = formats();
  for (const { name } of list) ui.format.append(h("option", { value: name }, FORMAT_LABELS[name] ?? name));
  for (const provider of new Set(list.map((f) => f.provider))) {
    ui.provider.append(h("option", { value: provider }, provider));
  }
}

// ---- input ---------------------------------------------------------------------------

/** The demo session, then the real transcripts the server lists (none on a static host). */
async function listSources(): Promise<void> {
  try {
    const response = await fetch("./fixtures/index.json", { cache: "no-store" });
    if (!response.ok || !(response.headers.get("content-type") ?? "").includes("json")) return;
    const { files } = (await response.json()) as { files: { name: string; bytes: number }[] };
    if (files.length === 0) return;
    const group = h("optgroup", { label: "real transcripts (../shared/fixtures/real)" });
    for (const file of files) {
      group.append(h("option", { value: `fixture:${file.name}` }, `${file.name} (${formatBytes(file.bytes)})`));
    }
    ui.source.append(group);
  } catch {
    // No listing: only the demo session.
  }
}

async function loadSource(): Promise<void> {
  const value = ui.source.value;
  const url = value === "demo" ? demoUrl : `./fixtures/${encodeURIComponent(value.slice("fixture:".length))}`;
  const name = value === "demo" ? "demo-session.openai.json" : value.slice("fixture:".length);
  ui.load.disabled = true;
  try {
    const response = await fetch(url);
    if (!response.ok) throw settingError("source", `${url}: HTTP ${response.status}`);
    setInput(await response.text(), name);
  } catch (error) {
    showError(describeError(error, "Could not load the transcript"));
  } finally {
    ui.load.disabled = false;
  }
}

/**
 * The UTF-8 text of an opened file, or an `invalid_text` error with the byte offset of the
 * first bytes that are not UTF-8, as the command line reports it: `file.text()` reads
 * them as U+FFFD, and the output would carry other text than the file's.
 */
async function readText(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    const at = firstInvalidByte(bytes);
    const byte = (bytes[at] ?? 0).toString(16).padStart(2, "0");
    const message = `${file.name} is not UTF-8 text: byte 0x${byte} at byte offset ${at}`;
    throw Object.assign(new Error(message), { name: "PlaygroundError", code: "invalid_text", path: "" });
  }
}

/**
 * Where the first bytes that are not UTF-8 start: read with replacement, the first U+FFFD
 * that the file does not hold as such (EF BF BD) stands for them.
 */
function firstInvalidByte(bytes: Uint8Array): number {
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  let at = 0;
  for (const char of text) {
    if (char === "\uFFFD" && !(bytes[at] === 0xef && bytes[at + 1] === 0xbf && bytes[at + 2] === 0xbd)) return at;
    const point = char.codePointAt(0) ?? 0;
    at += point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
  }
  return at;
}

function setInput(text: string, name: string): void {
  ui.input.value = text;
  sourceName = name;
  resetResults();
  inspect();
}

/** A new input: the last run's results no longer apply. */
function resetResults(): void {
  if (running !== null) return;
  setStatus("idle", "idle");
  setProgress(0, "Press Compact.");
  delete ui.totals.dataset.afterBytes;
  ui.totals.replaceChildren(h("p", { class: "hint" }, "No run yet."));
  ui.chainAfter.replaceChildren(h("p", { class: "hint" }, "No run yet."));
  ui.afterCaption.textContent = "";
  ui.timeline.replaceChildren(h("p", { class: "hint" }, "No calls yet."));
  ui.timelineCaption.textContent = "";
  ui.validation.textContent = "";
  ui.output.value = "";
  lastOutput = null;
  ui.copy.disabled = ui.download.disabled = true;
}

/** Parses the input (repair mode, as `compact` does) and shows its outline. */
function inspect(): void {
  const text = ui.input.value;
  ui.run.disabled = running !== null || text.trim() === "";
  if (text.trim() === "") {
    before = null;
    ui.inputInfo.textContent = "";
    ui.beforeCaption.textContent = "";
    ui.chainBefore.replaceChildren(h("p", { class: "hint" }, "No conversation loaded."));
    showError(null);
    return;
  }
  const format = ui.format.value as CompactOptions["format"];
  try {
    const parsed = parseChain(text, { format, repair: true });
    const measure = measureChain(text, { format });
    before = { outline: parsed.outline, format: parsed.format };
    const o = parsed.outline;
    ui.inputInfo.textContent =
      `${parsed.format}${format === "auto" ? " (detected)" : ""} · ${plural(o.messages, "message")} · ` +
      `${plural(o.sections, "section")} · ${plural(o.pairs, "body pair")} · ${plural(o.toolCalls, "tool call")} · ` +
      `${formatBytes(o.bytes)} · ~${formatCount(measure.total.tokens)} tokens` +
      (parsed.repairs.length > 0 ? ` · ${plural(parsed.repairs.length, "repair")} needed` : "");
    ui.inputInfo.dataset.format = parsed.format;
    ui.beforeCaption.textContent = `${formatBytes(o.bytes)} · ${formatCount(measure.total.tokens)} tokens`;
    renderChain(ui.chainBefore, o, scaleOf(o));
    showError(null);
  } catch (error) {
    before = null;
    ui.inputInfo.textContent = "";
    ui.beforeCaption.textContent = "";
    ui.chainBefore.replaceChildren(h("p", { class: "hint" }, "The input does not parse."));
    showError(describeError(error, "The conversation cannot be read"));
  }
}

/** Bytes of a full-width section bar: the largest section of the input. */
function scaleOf(outline: ChainOutline): number {
  return Math.max(1, ...outline.sectionList.map((s) => s.bytes));
}

// ---- options -------------------------------------------------------------------------

function optionalNumber(input: HTMLInputElement, path: string): number | undefined {
  const raw = input.value.trim();
  if (raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw settingError(path, `${path}: "${raw}" is not a number`);
  return value;
}

function buildSummarizer(): Summarizer {
  switch (ui.summarizer.value) {
    case "openai": {
      const baseUrl = ui.oaBaseUrl.value.trim();
      const model = ui.oaModel.value.trim();
      if (!/^https?:\/\//.test(baseUrl))
        throw settingError("summarizer.baseUrl", "give the endpoint's base URL (http:// or https://)");
      if (model === "") throw settingError("summarizer.model", "give the model name");
      // The package's adapter, as an app would use it: an answer cut at the output limit is
      // an error, and an error body that quotes the key shows it redacted.
      return openAICompatible({ baseURL: baseUrl, model, apiKey: ui.oaKey.value });
    }
    case "slow":
      return slowedSummarizer(extractive(), optionalNumber(ui.slowDelay, "summarizer.delayMs") ?? 600);
    default:
      return extractive();
  }
}

function extractive(): Summarizer {
  const maxBytes = optionalNumber(ui.extMaxBytes, "summarizer.maxBytes");
  return extractiveSummarizer(maxBytes === undefined ? {} : { maxBytes });
}

function buildOptions(): CompactOptions {
  const strategy: CompactStrategy = readStrategy(ui.strategy.value as StrategyName, ui.strategySettings);
  const options: CompactOptions = {
    format: ui.format.value as CompactOptions["format"],
    strategy,
    onError: ui.onError.value as OnError,
  };
  const maxTokens = optionalNumber(ui.maxTokens, "options.maxTokens");
  if (maxTokens !== undefined) options.maxTokens = maxTokens;
  const concurrency = optionalNumber(ui.concurrency, "options.concurrency");
  if (concurrency !== undefined) options.concurrency = concurrency;
  const timeoutMs = optionalNumber(ui.timeoutMs, "options.timeoutMs");
  if (timeoutMs !== undefined) options.timeoutMs = timeoutMs;
  if (ui.provider.value !== "") options.provider = ui.provider.value as ProviderName;
  return options;
}

// ---- run -----------------------------------------------------------------------------

async function run(): Promise<void> {
  if (running !== null) return;
  showError(null);
  let options: CompactOptions;
  let summarizer: Summarizer;
  try {
    options = buildOptions();
    summarizer = buildSummarizer();
  } catch (error) {
    showError(describeError(error, "Check the settings"));
    return;
  }

  const controller = new AbortController();
  running = controller;
  ui.run.disabled = true;
  ui.cancel.disabled = false;
  lastOutput = null;
  ui.copy.disabled = ui.download.disabled = true;
  ui.output.value = "";
  ui.validation.textContent = "";
  ui.chainAfter.replaceChildren(h("p", { class: "hint" }, "Running…"));
  ui.afterCaption.textContent = "";
  setStatus("running", "running");
  setProgress(0, "Starting…");

  const started = performance.now();
  let frame = 0;
  const redraw = () => {
    if (frame !== 0) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      drawTimeline(calls, performance.now() - started);
    });
  };
  const { summarizer: timed, calls } = recordCalls(summarizer, started, redraw);
  const ticker = setInterval(redraw, 100);

  let callsDone = 0;
  const onProgress = (event: ProgressEvent) => {
    if (event.phase === "wave") {
      setProgress(0, `Wave ${event.wave + 1}: 0 of ${plural(event.total, "call")} done · ${callsDone} calls before it`);
    } else if (event.phase === "call") {
      callsDone += 1;
      // contextfold's verdict wins: a call it timed out has ended, even if its promise has not.
      const call = calls.find((c) => c.id === event.request);
      if (call !== undefined) {
        call.ok = event.ok;
        call.end ??= performance.now() - started;
      }
      setProgress(
        event.done / event.total,
        `Wave ${event.wave + 1}: ${event.done} of ${plural(event.total, "call")} done · ${callsDone} in all`,
      );
      redraw();
    } else {
      setProgress(1, `${plural(event.calls, "summarizer call")} in ${plural(event.waves, "wave")}`);
    }
  };

  try {
    const result = await compact(inputValue(options), {
      ...options,
      summarizer: timed,
      signal: controller.signal,
      onProgress,
    });
    const elapsed = performance.now() - started;
    showResult(result, options, elapsed);
  } catch (error) {
    setStatus("error", "failed");
    setProgress(0, "The compaction failed: nothing changed.");
    ui.chainAfter.replaceChildren(h("p", { class: "hint" }, "No result."));
    showError(describeError(error, "Compaction failed"));
  } finally {
    clearInterval(ticker);
    running = null;
    ui.cancel.disabled = true;
    ui.run.disabled = ui.input.value.trim() === "";
    drawTimeline(calls, performance.now() - started);
  }
}

/**
 * The input as JSON data, as an app holds its history. contextfold reads it first so that
 * bad input fails with its `ContextfoldError` (code, path), not with `JSON.parse`'s error.
 */
function inputValue(options: CompactOptions): unknown {
  const text = ui.input.value;
  parseChain(text, { format: options.format, repair: true });
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function drawTimeline(calls: CallRecord[], now: number): void {
  renderTimeline(ui.timeline, calls, now);
  const waves = new Set(calls.map((c) => c.wave)).size;
  ui.timelineCaption.textContent =
    calls.length === 0 ? "" : `${plural(calls.length, "call")} in ${plural(waves, "wave")}`;
}

function showResult(result: CompactResult, options: CompactOptions, elapsed: number): void {
  const { report } = result;
  renderTotals(ui.totals, report, elapsed);

  if (report.cancelled) {
    setStatus("cancelled", "cancelled");
    setProgress(0, `Cancelled after ${formatMs(elapsed)}: the original chain is returned unchanged.`);
  } else if (report.rolledBack) {
    setStatus("rolledBack", "rolled back");
    setProgress(1, "A summarizer call failed: the original chain is returned unchanged (onError: rollback).");
    showError(
      {
        title: "Summarizer calls failed",
        code: "summarizer_failed",
        message: `${plural(report.errors.length, "call")} failed; the result is the original chain.`,
        details: report.errors.map(describeSummarizeError),
      },
      "warning",
    );
  } else {
    setStatus("done", result.changed ? "done" : "done · nothing to do");
    if (report.calls === 0)
      setProgress(1, result.changed ? "Done without summarizer calls." : "Nothing to compact with these settings.");
    if (report.errors.length > 0) {
      showError(
        {
          title: "Some summarizer calls failed (kept the content they covered)",
          code: "summarizer_failed",
          message: `${plural(report.errors.length, "call")} failed.`,
          details: report.errors.map(describeSummarizeError),
        },
        "warning",
      );
    }
  }

  // The report's actions, beside the sections of the input they concern.
  const actions = new Map<number, SectionAction[]>(report.sections.map((s) => [s.section, s.actions]));
  if (before !== null) renderChain(ui.chainBefore, before.outline, scaleOf(before.outline), actions);

  const provider: ProviderName = options.provider ?? providerOf(result.format);
  try {
    const after = parseChain(result.messages, { format: result.format, repair: true });
    const scale = before !== null ? scaleOf(before.outline) : scaleOf(after.outline);
    renderChain(ui.chainAfter, after.outline, scale);
    ui.afterCaption.textContent = `${formatBytes(report.after.bytes)} · ${formatCount(report.after.tokens)} tokens`;
    renderValidation(
      ui.validation,
      validateChain(result.messages, { format: result.format, provider: options.provider }),
      provider ?? `${result.format}'s provider`,
    );
  } catch (error) {
    ui.chainAfter.replaceChildren(h("p", { class: "hint" }, "The output does not parse."));
    showError(describeError(error, "The output cannot be read back"));
  }

  const json = typeof result.messages === "string" ? result.messages : JSON.stringify(result.messages, null, 2);
  ui.output.value = json;
  lastOutput = { json, name: sourceName.replace(/\.json$/i, "") + ".compacted.json" };
  ui.copy.disabled = ui.download.disabled = false;
}

// ---- output --------------------------------------------------------------------------

async function copyOutput(): Promise<void> {
  if (lastOutput === null) return;
  try {
    await navigator.clipboard.writeText(lastOutput.json);
  } catch {
    ui.output.select();
    document.execCommand("copy");
  }
  flash(ui.copy, "Copied");
}

function downloadOutput(): void {
  if (lastOutput === null) return;
  const url = URL.createObjectURL(new Blob([lastOutput.json], { type: "application/json" }));
  const link = h("a", { href: url, download: lastOutput.name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function flash(button: HTMLButtonElement, text: string): void {
  const label = button.textContent;
  button.textContent = text;
  setTimeout(() => (button.textContent = label), 1500);
}

// ---- wiring --------------------------------------------------------------------------

function showSummarizerSettings(): void {
  const choice = ui.summarizer.value;
  byId("summ-extractive").hidden = choice === "openai";
  byId("summ-slow").hidden = choice !== "slow";
  byId("summ-openai").hidden = choice !== "openai";
}

function showStrategySettings(): void {
  const name = ui.strategy.value as StrategyName;
  renderStrategySettings(name, ui.strategySettings);
  // Blank: auto takes its own default budget, budget needs one, the others need none.
  ui.maxTokens.placeholder = name === "budget" ? "required" : name === "auto" ? "100000" : "none";
}

let inspectTimer = 0;
function wire(): void {
  ui.load.addEventListener("click", () => void loadSource());
  ui.file.addEventListener("change", async () => {
    const file = ui.file.files?.[0];
    if (file === undefined) return;
    try {
      setInput(await readText(file), file.name);
    } catch (error) {
      showError(describeError(error, "The file cannot be read"));
    }
  });
  ui.input.addEventListener("input", () => {
    sourceName = "conversation.json";
    resetResults();
    clearTimeout(inspectTimer);
    inspectTimer = window.setTimeout(inspect, 300);
  });
  ui.format.addEventListener("change", inspect);
  ui.strategy.addEventListener("change", showStrategySettings);
  ui.summarizer.addEventListener("change", showSummarizerSettings);
  ui.run.addEventListener("click", () => void run());
  ui.cancel.addEventListener("click", () => {
    running?.abort(new DOMException("cancelled in the playground", "AbortError"));
    ui.cancel.disabled = true;
    setProgress(0, "Cancelling…");
  });
  byId("summ-openai").addEventListener("submit", (event) => event.preventDefault());
  ui.copy.addEventListener("click", () => void copyOutput());
  ui.download.addEventListener("click", downloadOutput);
  showSummarizerSettings();
}

async function main(): Promise<void> {
  wire();
  const started = performance.now();
  try {
    await init();
  } catch (error) {
    ui.wasmStatus.textContent = "wasm failed to load";
    ui.wasmStatus.dataset.state = "error";
    showError(describeError(error, "The WebAssembly module did not load"));
    return;
  }
  ui.wasmStatus.textContent = `wasm ready in ${formatMs(performance.now() - started)}`;
  ui.wasmStatus.dataset.state = "ready";
  // The settings' placeholders are the package's defaults: shown once the wasm is ready.
  showStrategySettings();
  fillFormatMenus();
  await listSources();
  inspect();
  document.body.dataset.ready = "true";
}

void main();
