// parseChain through the BUILT package, imported by its name (the npm workspace links
// node_modules/contextfold to pkg/, and Node picks the "node" entry).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { describe, it } from "node:test";
import { parseChain } from "contextfold";
import { REAL_FIXTURES, REAL_FIXTURES_HOW, skipMissing } from "../shared/requirements.mjs";
import { fixtureFiles, fixturesDir, openaiChain, orphanResultChain } from "./helpers.mjs";

/** Runs `fn`, asserts it throws, and returns what it threw. */
function thrown(fn) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail("expected an error");
}

describe("parseChain", () => {
  it("outlines an OpenAI chain", () => {
    const { format, outline, repairs } = parseChain(openaiChain());
    assert.equal(format, "openai");
    assert.deepEqual(repairs, []);
    assert.equal(outline.messages, 7);
    assert.equal(outline.sections, 2);
    assert.equal(outline.pairs, 3);
    assert.equal(outline.completions, 2);
    assert.equal(outline.requestResponses, 1);
    assert.equal(outline.summarizations, 0);
    assert.equal(outline.toolCalls, 1);
    const [first, second] = outline.sectionList;
    assert.equal(first.systemMessages, 1);
    assert.equal(first.hasHuman, true);
    assert.deepEqual(
      first.pairs.map((p) => [p.kind, p.toolCalls, p.toolMessages]),
      [
        ["requestResponse", 1, 1],
        ["completion", 0, 0],
      ],
    );
    assert.equal(second.systemMessages, 0);
    assert.deepEqual(
      second.pairs.map((p) => p.kind),
      ["completion"],
    );
    assert.ok(outline.bytes > 0);
    assert.equal(
      outline.bytes,
      outline.sectionList.reduce((sum, s) => sum + s.bytes, 0),
    );
  });

  it("accepts JSON text as well as values, with the same result", () => {
    assert.deepEqual(parseChain(JSON.stringify(openaiChain())), parseChain(openaiChain()));
  });

  it("takes an explicit format", () => {
    assert.equal(parseChain(openaiChain(), { format: "openai" }).format, "openai");
  });

  it("does not mutate its input", () => {
    const chain = openaiChain();
    const before = structuredClone(chain);
    parseChain(chain, { repair: true });
    assert.deepEqual(chain, before);
  });

  it("throws a ContextfoldError with code and path in strict mode", () => {
    const error = thrown(() => parseChain(orphanResultChain()));
    assert.ok(error instanceof Error, "a real Error, not a string");
    assert.equal(error.name, "ContextfoldError");
    assert.equal(error.code, "unmatched_tool_result");
    assert.equal(error.path, "[2]");
    assert.match(error.message, /call_2/);
  });

  it("repairs instead in repair mode, and lists the repairs", () => {
    const { outline, repairs } = parseChain(orphanResultChain(), { repair: true });
    assert.ok(repairs.length > 0);
    assert.ok(
      repairs.some((r) => r.action === "addedMissingCall" && r.callId === "call_2"),
      JSON.stringify(repairs),
    );
    assert.equal(outline.requestResponses, 1);
  });

  it("throws invalid_json on text that is not JSON", () => {
    const error = thrown(() => parseChain('[{"role": "user",'));
    assert.ok(error instanceof Error);
    assert.equal(error.name, "ContextfoldError");
    assert.equal(error.code, "invalid_json");
  });

  it("throws invalid_option on an unknown format", () => {
    const error = thrown(() => parseChain(openaiChain(), { format: "klingon" }));
    assert.equal(error.name, "ContextfoldError");
    assert.equal(error.code, "invalid_option");
    assert.equal(error.path, "options.format");
  });

  it("throws on values that are no message list", () => {
    for (const bad of [undefined, null, 42, { role: "user" }, () => 1]) {
      const error = thrown(() => parseChain(bad));
      assert.equal(error.name, "ContextfoldError", String(bad));
      assert.equal(typeof error.code, "string");
    }
  });

  it("keeps working after errors", () => {
    for (let i = 0; i < 3; i++) {
      thrown(() => parseChain(orphanResultChain()));
      thrown(() => parseChain("not json"));
    }
    assert.equal(parseChain(openaiChain()).outline.messages, 7);
  });
});

describe("real transcripts", () => {
  if (fixturesDir === null) {
    it("are not available here (no ../shared/fixtures/real): skipped", (t) =>
      skipMissing(t, REAL_FIXTURES, REAL_FIXTURES_HOW));
    return;
  }
  for (const file of fixtureFiles()) {
    const name = basename(file);
    it(`${name} parses strictly`, () => {
      const text = readFileSync(file, "utf8");
      const { format, outline, repairs } = parseChain(text);
      const expected = name.match(/\.(openai|anthropic)\.json$/)?.[1];
      if (expected) assert.equal(format, expected);
      assert.deepEqual(repairs, []);
      assert.ok(outline.messages > 0);
      assert.ok(outline.sections > 0);
    });
  }
});
