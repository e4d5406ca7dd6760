// Property tests over the BUILT package: random chains in every format the package
// reads, random tool structures (parallel calls, errors, breakage), random strategies and
// settings, random summarizer behaviour (fail / throw / slow / empty / huge / non-string /
// out of order): every DESIGN.md invariant holds on every run. A failure prints the seed
// and path to replay: FC_SEED=<seed> FC_PATH=<path> node --test tests/reliability/properties.test.mjs
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { compact, needsCompaction, parseChain, repairChain, validateChain } from "contextfold";
import {
  chainModel,
  isWellBehaved,
  normalizeOptions,
  optionsArb,
  behaviourArb,
  planned,
  providerOf,
  render,
  supportedFormats,
} from "./arbitraries.mjs";
import { assertContextfoldError, assertProperty, canonical, messageList, thinkingPieces, within } from "./helpers.mjs";

const FORMATS = supportedFormats();
const HANG_MS = 20_000;
const SUMMARY_ACTIONS = new Set([
  "sectionSummarized",
  "pairSummarized",
  "rotated",
  "messageSummarized",
  "snapshot",
  "tiered",
]);
/** The documented fake signature of summarization calls made for Gemini. */
const FAKE_SIGNATURE = "signature skip_thought_signature_validator";

const strategyName = (strategy) => (typeof strategy === "string" ? strategy : strategy.name);

/**
 * Invariant 2 for the sections strategy: the report never summarizes the last body pair
 * of a section on its own, and a rotation keeps at least that pair. Section and pair
 * indexes are those of the (repaired) input, as `parseChain` outlines it.
 */
function assertLastPairsNotSummarized(input, result) {
  const { outline } = parseChain(input, { format: result.format, repair: true });
  for (const s of result.report.sections) {
    const pairs = outline.sectionList[s.section]?.pairs.length;
    assert.ok(pairs !== undefined, `report names section ${s.section}, the input has ${outline.sections}`);
    for (const a of s.actions) {
      if (a.action === "pairSummarized") {
        assert.ok(
          a.pair < pairs - 1,
          `section ${s.section}: pair ${a.pair} of ${pairs} summarized: the last body pair`,
        );
      }
      if (a.action === "rotated") assert.ok(a.pairsKept >= 1, `section ${s.section}: a rotation kept no pair`);
    }
  }
}

/**
 * Invariant 2 on the output, for every strategy: the latest exchange (the last body pair
 * of the last section) comes back whole, as the output's last messages.
 */
function assertLatestExchangeKept(input, result) {
  const { outline } = parseChain(input, { format: result.format });
  const last = outline.sectionList.at(-1)?.pairs.at(-1);
  if (!last) return;
  const count = last.kind === "completion" ? 1 : 1 + last.toolMessages;
  const before = messageList(input).slice(-count);
  const after = messageList(result.messages).slice(-count);
  assert.equal(before.length, count, "parseChain outline does not match the input's messages");
  assert.deepStrictEqual(after, before, "the latest exchange (last body pair) did not come back whole");
}

/**
 * Invariant 6: kept messages come back unchanged, and in JS as the caller's very own
 * objects: an output message deep-equal to an input message must BE one of those inputs.
 */
function assertKeptAreTheCallersObjects(input, result) {
  const byValue = new Map();
  for (const m of messageList(input)) {
    const key = canonical(m);
    byValue.set(key, [...(byValue.get(key) ?? []), m]);
  }
  messageList(result.messages).forEach((m, i) => {
    const equal = byValue.get(canonical(m));
    if (!equal || equal.includes(m)) return;
    assert.fail(
      `output message ${i} is a copy of a kept input message, not the caller's object: ${JSON.stringify(m).slice(0, 200)}`,
    );
  });
}

describe(`compact invariants (formats: ${FORMATS.join(", ")})`, () => {
  it("holds every DESIGN.md invariant on random chains, options and summarizers", { timeout: 120_000 }, async (t) => {
    const property = fc.asyncProperty(
      chainModel({ broken: true }),
      fc.constantFrom(...FORMATS),
      optionsArb,
      behaviourArb,
      fc.boolean(),
      async (model, format, rawOptions, plan, tellFormat) => {
        const input = render(model, format);
        const snapshot = structuredClone(input);
        const summarizer = planned(plan);
        // Auto-detection may read a chain valid in several formats (plain user/assistant
        // text) as another one: then the rules of the format it read apply.
        const options = { ...normalizeOptions(rawOptions), summarizer, ...(tellFormat ? { format } : {}) };
        const onError = options.onError ?? "rollback";
        const wellBehaved = isWellBehaved(plan) && (options.timeoutMs === undefined || plan.every((b) => b === "ok"));

        let result;
        try {
          result = await within(compact(input, options), HANG_MS, "compact");
        } catch (error) {
          // 7. errors are ContextfoldErrors with a code (and path); 8. input untouched.
          assertContextfoldError(error, "compact");
          assert.deepStrictEqual(input, snapshot, "the input was mutated (error path)");
          if (error.code === "summarizer_failed") {
            // The budget is hard: under rollback the original (over-budget) chain cannot be
            // returned, so the budget strategy fails instead (onError "partial" trims).
            const allowed =
              onError === "throw" || (onError === "rollback" && strategyName(options.strategy) === "budget");
            assert.ok(
              allowed,
              `summarizer_failed thrown with onError ${onError}, strategy ${strategyName(options.strategy)}`,
            );
            assert.ok(Array.isArray(error.errors) && error.errors.length > 0, "summarizer_failed without errors");
          } else if (!model.breakage && wellBehaved) {
            // A valid chain and a good summarizer: only an impossible budget may throw.
            assert.equal(error.code, "budget_exceeded", `unexpected ${error.code} at ${error.path}: ${error.message}`);
          }
          return;
        }
        // 8. the input is never mutated.
        assert.deepStrictEqual(input, snapshot, "the input was mutated");
        const { report } = result;
        if (tellFormat) assert.equal(result.format, format);
        assert.equal(report.calls, summarizer.requests.length, "report.calls is not the number of calls made");
        // 3. nothing lost silently.
        if (report.errors.length > 0 && onError === "rollback") {
          assert.equal(report.rolledBack, true);
          // The original chain, changed only by the repairs an invalid input needs (listed).
          if (result.changed) {
            assert.ok(model.breakage && report.providerRepairs.length > 0, "changed despite errors with rollback");
            const repaired = repairChain(snapshot, { format: result.format });
            assert.deepStrictEqual(result.messages, repaired.messages, "a rollback changed more than the repairs");
          }
        }
        if (!result.changed) {
          assert.deepStrictEqual(result.messages, snapshot, "unchanged, yet different messages");
          // 6. an unchanged chain is the caller's very same value.
          assert.equal(result.messages, input, "unchanged, yet not the caller's own chain");
          return;
        }
        // 6. kept messages are the caller's own objects.
        assertKeptAreTheCallersObjects(input, result);
        // 2. the last body pair of a section is never summarized (sections strategy, by its
        // report), and the latest exchange comes back whole (every strategy). An invalid
        // input is repaired first, which may rewrite the messages of that exchange.
        if (strategyName(options.strategy) === "sections") assertLastPairsNotSummarized(snapshot, result);
        if (!model.breakage) assertLatestExchangeKept(snapshot, result);
        // 1. valid for the provider.
        const provider = providerOf(result.format);
        const diagnostics = validateChain(
          result.messages,
          provider ? { format: result.format, provider } : { format: result.format },
        );
        assert.deepStrictEqual(diagnostics, [], "the compacted chain breaks provider rules");
        // 4. a summary never replaces smaller content.
        for (const s of report.sections) {
          for (const a of s.actions) {
            if (SUMMARY_ACTIONS.has(a.action) && a.bytesBefore !== undefined) {
              assert.ok(a.bytesAfter < a.bytesBefore, `${a.action} grew: ${a.bytesBefore} -> ${a.bytesAfter}`);
            }
          }
        }
        if (!model.breakage) {
          assert.ok(
            report.after.bytes < report.before.bytes,
            `changed but not smaller: ${report.before.bytes} -> ${report.after.bytes}`,
          );
        }
        // 2. thinking that survives (whole blocks with every field, reasoning text, every
        // signature) is byte-for-byte the input's: dropped per provider rule, never altered.
        const inputThinking = thinkingPieces(snapshot);
        for (const item of thinkingPieces(result.messages)) {
          assert.ok(
            inputThinking.has(item) || item === FAKE_SIGNATURE,
            `thinking altered or invented: ${item.slice(0, 200)}`,
          );
        }
        // 5. idempotent: a second run with a well-behaved summarizer makes no call.
        // On a valid input only: repairing an invalid one can expose new work to a second run.
        if (wellBehaved && report.errors.length === 0 && !model.breakage) {
          const again = planned(["ok"]);
          const second = await within(
            compact(result.messages, { ...options, summarizer: again }),
            HANG_MS,
            "second compact",
          );
          assert.equal(
            again.requests.length,
            0,
            `second run made ${again.requests.length} call(s): ${again.requests.map((r) => r.kind).join(", ")}`,
          );
          assert.equal(second.report.calls, 0);
        }
      },
    );
    await assertProperty(t, property, 150);
  });
});

describe("parse / validate / repair consistency", () => {
  it("repairChain output validates clean; valid chains pass untouched", { timeout: 60_000 }, async (t) => {
    const property = fc.property(chainModel({ broken: true }), fc.constantFrom(...FORMATS), (model, format) => {
      const input = render(model, format);
      const snapshot = structuredClone(input);
      const provider = providerOf(format);
      const opts = provider ? { format, provider } : { format };
      const diagnostics = validateChain(input, opts);
      if (!model.breakage) assert.deepStrictEqual(diagnostics, [], "a generated valid chain has diagnostics");
      const repaired = repairChain(input, opts);
      assert.deepStrictEqual(input, snapshot, "repairChain mutated its input");
      assert.equal(repaired.changed, diagnostics.length > 0, "repairChain changed iff the chain had diagnostics");
      if (!repaired.changed) {
        assert.deepStrictEqual(repaired.messages, snapshot);
        // 6. an unchanged chain is the caller's own value, not a copy.
        assert.equal(repaired.messages, input, "repairChain returned a copy of an unchanged chain");
      }
      assert.deepStrictEqual(validateChain(repaired.messages, opts), [], "repairChain output still breaks rules");
      assert.equal(repairChain(repaired.messages, opts).changed, false, "repairChain is not idempotent");
      // Strict parsing accepts what is valid, and throws a ContextfoldError otherwise.
      try {
        const parsed = parseChain(input, { format });
        assert.equal(parsed.format, format);
      } catch (error) {
        assertContextfoldError(error, "parseChain");
        assert.ok(model.breakage, `parseChain rejected a valid chain: ${error.code} at ${error.path}`);
      }
      const lenient = parseChain(input, { format, repair: true });
      assert.equal(lenient.format, format);
      assert.deepStrictEqual(input, snapshot, "parseChain mutated its input");
    });
    await assertProperty(t, property, 300);
  });
});

describe("needsCompaction", () => {
  it("is false exactly when sections / budget compaction would make no call / fits", { timeout: 60_000 }, async (t) => {
    const property = fc.asyncProperty(
      chainModel({ maxSections: 6 }),
      fc.constantFrom(...FORMATS),
      fc.constantFrom("sections", "budget"),
      fc.integer({ min: 500, max: 20000 }),
      async (model, format, strategy, maxTokens) => {
        const input = render(model, format);
        const options = { strategy, maxTokens };
        const needed = needsCompaction(input, options);
        const summarizer = planned(["ok"]);
        let result;
        try {
          result = await within(compact(input, { ...options, summarizer }), HANG_MS, "compact");
        } catch (error) {
          assertContextfoldError(error, "compact");
          assert.equal(error.code, "budget_exceeded");
          assert.equal(needed, true, "budget_exceeded although needsCompaction said false");
          return;
        }
        if (strategy === "sections")
          assert.equal(
            needed,
            summarizer.requests.length > 0,
            `needsCompaction ${needed}, calls ${summarizer.requests.length}`,
          );
        else if (!needed) assert.equal(result.changed, false, "needsCompaction false but budget changed the chain");
      },
    );
    await assertProperty(t, property, 150);
  });
});
