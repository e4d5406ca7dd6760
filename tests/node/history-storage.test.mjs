// History storage: `toJSON()` / `History.fromJSON()` as a chat UI uses them with
// localStorage or KV (JSON text in, JSON text out). Text that is not JSON is the package's
// own error (a ContextfoldError with code `invalid_json`), never a bare SyntaxError; what
// `toJSON()` strips (functions, signals, `onProgress`) is also absent from its type,
// `StoredHistory`, checked by tsc on a small consumer file.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { History } from "contextfold";
import { openaiChain, root } from "./helpers.mjs";

const summarizer = async (request) => `Summary of request ${request.id}.`;

describe("History storage", () => {
  it("a round trip through JSON text keeps the messages and the storable options", async () => {
    const messages = openaiChain();
    const history = new History({
      messages,
      auto: false,
      options: {
        strategy: "budget",
        maxTokens: 4000,
        concurrency: 2,
        summarizer,
        signal: new AbortController().signal,
        tokenCounter: (texts) => texts.map((t) => t.length),
        onProgress: () => {},
      },
    });
    const text = JSON.stringify(history);
    const stored = JSON.parse(text);
    assert.equal(stored.version, 1);
    assert.equal(stored.auto, false);
    assert.deepEqual(stored.options, { strategy: "budget", maxTokens: 4000, concurrency: 2 });
    for (const key of ["summarizer", "signal", "tokenCounter", "onProgress"]) {
      assert.ok(!(key in history.toJSON().options), `toJSON() strips ${key}`);
    }
    const restored = History.fromJSON(text, { summarizer });
    assert.deepEqual(restored.messages(), messages);
    assert.deepEqual(restored.toJSON(), stored);
    // And the restored history works: it compacts with the summarizer passed again.
    const result = await restored.compact();
    assert.deepEqual(result.report.errors, []);
  });

  // Issue 14: the path (and position) of the value being read when the text broke off.
  it("JSON text that does not parse is a ContextfoldError invalid_json with its path", () => {
    const cases = [
      ["", ""],
      ["{", ""],
      ['{"version": 1, "messages": [', "messages"],
      ["not json", ""],
      ["{'version': 1}", ""],
    ];
    for (const [text, path] of cases) {
      let caught;
      try {
        History.fromJSON(text);
      } catch (e) {
        caught = e;
      }
      assert.ok(caught instanceof Error, `${JSON.stringify(text)}: throws an Error`);
      assert.ok(!(caught instanceof SyntaxError), `${JSON.stringify(text)}: not a bare SyntaxError`);
      assert.equal(caught.name, "ContextfoldError");
      assert.equal(caught.code, "invalid_json");
      assert.equal(caught.path, path);
      assert.match(caught.message, /invalid JSON at line \d+, column \d+ \(byte \d+\)/);
    }
  });

  it("JSON text or a value that is not a stored History is invalid_history", () => {
    for (const data of ["null", "[]", '{"version": 2, "messages": []}', '{"version": 1}', { nope: true }, null]) {
      assert.throws(
        () => History.fromJSON(data),
        (e) => e instanceof Error && e.name === "ContextfoldError" && e.code === "invalid_history" && e.path === "",
        JSON.stringify(data),
      );
    }
  });

  // fromJSON went through the constructor, whose option paths are of its init
  // (`options.options.maxTokens`): a path in neither the stored data nor fromJSON's options.
  it("a bad option, stored or given, is invalid_option at options.<key>", () => {
    const stored = { version: 1, auto: true, options: { maxTokens: "8000" }, messages: [] };
    const cases = [
      [() => History.fromJSON(JSON.stringify(stored)), "options.maxTokens"],
      [() => History.fromJSON(stored), "options.maxTokens"],
      [() => History.fromJSON({ version: 1, messages: [] }, { maxToken: 8000 }), "options.maxToken"],
      [() => History.fromJSON({ version: 1, options: { strategy: "nope" }, messages: [] }), "options.strategy"],
    ];
    for (const [restore, path] of cases) {
      assert.throws(
        restore,
        (e) =>
          e.name === "ContextfoldError" &&
          e.code === "invalid_option" &&
          e.path === path &&
          e.message.startsWith(`${path}:`),
        path,
      );
    }
    // The constructor's own paths are of its init.
    assert.throws(
      () => new History({ options: { maxTokens: "8000" } }),
      (e) => e.code === "invalid_option" && e.path === "options.options.maxTokens",
    );
  });

  describe("StoredHistory's type", () => {
    const scratch = mkdtempSync(join(tmpdir(), "contextfold-history-types-"));
    after(() => rmSync(scratch, { recursive: true, force: true }));

    it("has no onProgress (nor summarizer, signal, tokenCounter) in its options", () => {
      const consumer = join(scratch, "stored.ts");
      writeFileSync(join(scratch, "package.json"), JSON.stringify({ type: "module", private: true }));
      writeFileSync(
        consumer,
        `import { History, type StoredHistory } from ${JSON.stringify(join(root, "pkg/src/index.js"))};
const history = new History({ options: { strategy: "budget", maxTokens: 1000, onProgress: () => {} } });
const stored: StoredHistory = history.toJSON();
const maxTokens: number | undefined = stored.options.maxTokens;
// @ts-expect-error toJSON() strips onProgress
stored.options.onProgress;
// @ts-expect-error toJSON() strips the summarizer
stored.options.summarizer;
// @ts-expect-error toJSON() strips the signal
stored.options.signal;
// @ts-expect-error toJSON() strips the token counter
stored.options.tokenCounter;
// @ts-expect-error a stored history cannot carry a progress callback
const withProgress: StoredHistory = { version: 1, auto: true, messages: [], options: { onProgress: () => {} } };
export { maxTokens, withProgress };
`,
      );
      const tsc = join(root, "node_modules/typescript/bin/tsc");
      const result = spawnSync(
        process.execPath,
        [
          tsc,
          "--noEmit",
          "--strict",
          "--target",
          "es2022",
          "--lib",
          "es2022,dom",
          "--types",
          "",
          "--module",
          "nodenext",
          "--moduleResolution",
          "nodenext",
          // The declarations themselves are tests/types' business; this checks one shape.
          "--skipLibCheck",
          consumer,
        ],
        { cwd: scratch, encoding: "utf8" },
      );
      assert.equal(result.error, undefined, String(result.error));
      assert.equal(result.status, 0, `tsc rejected the consumer:\n${result.stdout}${result.stderr}`);
    });
  });
});
