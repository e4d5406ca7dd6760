// Third-party validation suite: every real transcript and generated chain is converted to
// every format, then compacted with every strategy, and each result is judged by the code a
// user hands it to next (judges.mjs): `ai`, `@langchain/core` with the `@langchain/openai`
// and `@langchain/anthropic` payload converters, `@google/genai`, and tsc against the
// official `openai`, `@anthropic-ai/sdk` and `@google/genai` types. contextfold's own
// `validateChain` must find nothing either (it checks the same rules).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact, convert, measureChain, validateChain } from "contextfold";
import { mapStoredMessagesToChatMessages } from "@langchain/core/messages";
import { REAL_FIXTURES, REAL_FIXTURES_HOW, skipMissing } from "../shared/requirements.mjs";
import { fixturesDir, generatedInputs, realInputs } from "./inputs.mjs";
import * as judge from "./judges.mjs";

const STRATEGIES = ["sections", "window", "tiers", "budget"];
const FORMATS = ["openai", "anthropic", "gemini", "aisdk", "aisdk-ui", "langchain", "langchain-js"];
const PROVIDER = { openai: "openai", anthropic: "anthropic", gemini: "gemini" };

// Every summary the same text: equal summaries must still get distinct tool-call ids.
const summarizer = async () => "Summary: the earlier steps read the logs and fixed the build.";

/** `input` in `format`; `langchain-js` is LangChain's own `toJSON()` of the revived messages. */
function inFormat(input, format) {
  if (format !== "langchain-js") return convert(input, { to: format }).messages;
  const stored = convert(input, { to: "langchain" }).messages;
  return mapStoredMessagesToChatMessages(stored).map((m) => m.toJSON());
}

const hasSystem = (chain) => Array.isArray(chain) && chain.some((m) => m.role === "system");

async function judgeOutput(format, value, label, types, input, original) {
  const problems = [];
  const kind = format === "langchain-js" ? "langchain" : format;
  types.add(kind, label, value, original);
  if (kind === "anthropic") problems.push(...judge.anthropicRules(value));
  if (kind === "gemini") problems.push(...judge.geminiRules(value), ...(await judge.geminiSdk(value)));
  if (kind === "aisdk")
    problems.push(
      ...(await judge.aiSdkModel(value, {
        systemInInput: hasSystem(input),
        inProgress: label.includes("in_progress"),
      })),
    );
  if (kind === "aisdk-ui")
    problems.push(
      ...(await judge.aiSdkUi(value, { systemInInput: hasSystem(input), inProgress: label.includes("in_progress") })),
    );
  if (kind === "langchain") problems.push(...(await judge.langchain(value)));
  if (format === "langchain-js" && !judge.isLangchainJs(value))
    problems.push("not in the input's toJSON() form any more");
  const diagnostics = validateChain(value, { provider: PROVIDER[kind] ?? "generic", format: kind });
  problems.push(...diagnostics.map((d) => `validateChain ${d.code} at ${d.path}: ${d.message}`));
  return problems.map((p) => `${label}: ${p}`);
}

const inputs = [...realInputs(), ...generatedInputs()];
const types = new judge.TypeCollector("sdk-types");
// Compactions that changed the chain, per input: judging unchanged chains only would prove little.
const changed = new Map();

describe("third-party validation", () => {
  it("has the real transcripts (../shared/fixtures/real)", (t) => {
    if (fixturesDir !== null) return;
    skipMissing(t, REAL_FIXTURES, REAL_FIXTURES_HOW);
  });

  for (const { name, input } of inputs) {
    describe(name, () => {
      // The user's own OpenAI fields may stay where the chain was OpenAI all along.
      const original = name.endsWith(".openai") ? input : [];
      for (const format of FORMATS) {
        it(`convert to ${format}, then every strategy`, async () => {
          const chain = inFormat(input, format);
          const problems = await judgeOutput(format, chain, `${name} -> ${format}`, types, chain, original);
          const total = measureChain(chain).total.tokens;
          for (const strategy of STRATEGIES) {
            const label = `${name} -> ${format} -> ${strategy}`;
            const options = { strategy, maxTokens: Math.max(150, Math.floor(total / 4)), summarizer };
            const result = await compact(chain, options).catch((error) => {
              // A budget below the part that must be kept is refused: nothing to judge.
              if (error.code === "budget_exceeded") return null;
              throw error;
            });
            if (result === null) continue;
            if (result.changed) changed.set(name, (changed.get(name) ?? 0) + 1);
            problems.push(...(await judgeOutput(format, result.messages, label, types, chain, original)));
          }
          assert.equal(problems.length, 0, `${problems.length} problems:\n${problems.slice(0, 15).join("\n")}`);
        });
      }
    });
  }

  it("compacted every input in some format and strategy (summaries were judged)", () => {
    const untouched = inputs.map((i) => i.name).filter((name) => !changed.has(name));
    assert.deepEqual(untouched, []);
  });

  // Last: every output collected above, type-checked in one tsc run.
  it("every openai, anthropic and gemini output type-checks against the official SDK types", () => {
    const errors = types.check();
    assert.equal(errors.length, 0, `${errors.length} tsc errors:\n${errors.slice(0, 15).join("\n")}`);
  });
});
