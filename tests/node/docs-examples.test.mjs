// The README's main example and every `@example` block of the binding's doc comments
// (they become the JS docs) run against the built package, so a renamed export, a
// changed option or a broken promise in the docs fails here. Each snippet runs as the
// body of an async function whose parameters are the package's exports and a small
// prelude for the names a snippet leaves to the reader (`history`, `chain`,
// `callMyModel`, ...). `console.assert` throws here, so the README's check is a check.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import * as contextfold from "contextfold";
import { root } from "./helpers.mjs";

/** The ```js block right under the README's "## Example" heading. */
function readmeExample() {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const match = /^## Example\n+```js\n([\s\S]*?)\n```/m.exec(readme);
  assert.ok(match, "README.md has a js block under ## Example");
  return match[1];
}

/** Every `@example` of the wasm crate's doc comments: `[file, code]`, fences dropped. */
function docExamples() {
  const dir = join(root, "crates/contextfold-wasm/src");
  const examples = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".rs")).sort()) {
    const lines = readFileSync(join(dir, file), "utf8").split("\n");
    lines.forEach((line, i) => {
      if (line.trim() !== "/// @example") return;
      const code = [];
      for (const next of lines.slice(i + 1)) {
        const doc = /^\s*\/\/\/ ?(.*)$/.exec(next);
        if (!doc) break;
        if (!doc[1].startsWith("```")) code.push(doc[1]);
      }
      examples.push([`${file}:${i + 1}`, code.join("\n")]);
    });
  }
  return examples;
}

/** A conversation of `turns` long exchanges (about 1k tokens each), OpenAI shape. */
function conversation(turns) {
  const messages = [{ role: "system", content: "You are a helpful assistant." }];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: "user", content: `Question ${i}: ${"please explain the build step in detail ".repeat(40)}` });
    messages.push({ role: "assistant", content: `Answer ${i}: ${"the build compiles the crate to wasm and packs it ".repeat(80)}` });
  }
  return messages;
}

/** Runs `code` with the package and the prelude in scope; returns what the model saw. */
async function runSnippet(code, { history }) {
  const calls = [];
  const offline = contextfold.extractiveSummarizer();
  const prelude = {
    history,
    chain: history,
    openaiMessages: history,
    abortController: new AbortController(),
    // A stand-in for the reader's model: the built-in offline summarizer, fed the texts.
    callMyModel: async (...args) => {
      const texts = args.filter((a) => typeof a === "string");
      calls.push(texts);
      return offline({ kind: "section", prompt: texts.join("\n\n"), instructions: texts[0] ?? "", transcript: texts.at(-1) ?? "", targetBytes: 600 });
    },
    console: {
      ...console,
      log: () => {},
      assert: (condition, ...message) => assert.ok(condition, message.join(" ") || "console.assert failed"),
    },
  };
  // Import lines name what the parameters already provide.
  const body = code.replace(/^import .* from "contextfold(\/\w+)?";$/gm, "");
  const scope = { ...contextfold, ...prelude };
  const names = Object.keys(scope).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n) && n !== "default");
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
  await new AsyncFunction(...names, body)(...names.map((n) => scope[n]));
  return calls;
}

describe("documentation examples run against the built package", () => {
  it("the README's example compacts a long history with the reader's summarizer", async () => {
    const history = conversation(130);
    assert.ok(contextfold.needsCompaction(history, { strategy: "budget", maxTokens: 100_000 }), "the history is over the example's budget");
    const calls = await runSnippet(readmeExample(), { history });
    assert.ok(calls.length > 0, "the example's summarizer was called");
  });

  const examples = docExamples();
  it("the binding has @example blocks", () => assert.ok(examples.length >= 6, `${examples.length} found`));
  for (const [where, code] of examples) {
    it(`@example at ${where}`, async () => {
      await runSnippet(code, { history: conversation(130) });
    });
  }
});
