// Property tests over the BUILT package: random chains in every format the package
// reads, random tool structures (parallel calls, errors, breakage), random strategies and
// settings, random summarizer behaviour (fail / throw / slow / empty / huge / non-string /
// out of order): every DESIGN.md invariant holds on every run. A failure prints the seed
// and path to replay: FC_SEED=<seed> FC_PATH=<path> node --test tests/reliability/properties.test.mjs
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { compact, needsCompaction, parseChain, repairChain, validateChain } from "contextfold";
import { chainModel, isWellBehaved, normalizeOptions, optionsArb, behaviourArb, planned, providerOf, render, supportedFormats } from "./arbitraries.mjs";
import { assertContextfoldError, assertProperty, signedThinking, within } from "./helpers.mjs";

const FORMATS = supportedFormats();
const HANG_MS = 20_000;
const SUMMARY_ACTIONS = new Set(["sectionSummarized", "pairSummarized", "rotated", "messageSummarized", "snapshot", "tiered"]);

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
            assert.equal(onError, "throw", "summarizer_failed thrown without onError: throw");
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
          return;
        }
        // 1. valid for the provider.
        const provider = providerOf(result.format);
        const diagnostics = validateChain(result.messages, provider ? { format: result.format, provider } : { format: result.format });
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
          assert.ok(report.after.bytes < report.before.bytes, `changed but not smaller: ${report.before.bytes} -> ${report.after.bytes}`);
        }
        // 2. signed thinking that survives is byte-for-byte the input's.
        const inputThinking = signedThinking(snapshot);
        for (const item of signedThinking(result.messages)) {
          assert.ok(inputThinking.has(item), "a signed thinking block was altered");
        }
        // 5. idempotent: a second run with a well-behaved summarizer makes no call.
        // On a valid input only: repairing an invalid one can expose new work to a second run.
        if (wellBehaved && report.errors.length === 0 && !model.breakage) {
          const again = planned(["ok"]);
          const second = await within(compact(result.messages, { ...options, summarizer: again }), HANG_MS, "second compact");
          assert.equal(again.requests.length, 0, `second run made ${again.requests.length} call(s): ${again.requests.map((r) => r.kind).join(", ")}`);
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
      if (!repaired.changed) assert.deepStrictEqual(repaired.messages, snapshot);
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
        if (strategy === "sections") assert.equal(needed, summarizer.requests.length > 0, `needsCompaction ${needed}, calls ${summarizer.requests.length}`);
        else if (!needed) assert.equal(result.changed, false, "needsCompaction false but budget changed the chain");
      },
    );
    await assertProperty(t, property, 150);
  });
});
