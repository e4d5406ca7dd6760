// Runs the README's js examples and every `@example` of the wasm binding's doc comments (the
// JS docs) against the built package in Node, so a doc example that stops working (a renamed
// export, a changed option) fails here. The free names the snippets use (`history`, `chain`,
// `callMyModel`, `abortController`, ...) come from the small prelude below; the model is the
// package's own offline extractive summarizer. Each import a snippet makes is checked against
// the module's real exports.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import * as contextfold from "contextfold";
import { root } from "./helpers.mjs";

/** The ```js blocks of README.md, each with the heading it sits under. */
export function readmeBlocks(text) {
  const blocks = [];
  let heading = "";
  for (const [, title, body] of text.matchAll(/^(?:## (.+)|```js\n([\s\S]*?)^```)/gm)) {
    if (title !== undefined) heading = title;
    else
      blocks.push({
        name: `README "## ${heading}" #${blocks.filter((b) => b.heading === heading).length + 1}`,
        heading,
        code: body,
      });
  }
  return blocks;
}

/** Every `@example` of the `///` doc comments under `dir`: the lines after it, fences dropped. */
export function docExamples(dir) {
  const examples = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".rs"))
    .sort()) {
    const lines = readFileSync(join(dir, file), "utf8").split("\n");
    lines.forEach((line, i) => {
      if (line.trim() !== "/// @example") return;
      const body = [];
      for (let j = i + 1; j < lines.length && lines[j].trim().startsWith("///"); j++) {
        const text = lines[j].trim().replace(/^\/\/\/ ?/, "");
        if (text.startsWith("@")) break;
        if (!text.startsWith("```")) body.push(text);
      }
      examples.push({ name: `${file}:${i + 1} @example`, code: body.join("\n") });
    });
  }
  return examples;
}

/** A long OpenAI chat with tool calls: past the README's 100_000-token budget, so it folds. */
function longHistory() {
  const words = "the build failed because the cache key ignored the lockfile so we pinned it and reran ";
  const history = [{ role: "system", content: "You are a careful coding assistant." }];
  for (let i = 0; i < 160; i++) {
    history.push({ role: "user", content: `step ${i}: ${words.repeat(40)}` });
    history.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "read", arguments: `{"i":${i}}` } }],
    });
    history.push({ role: "tool", tool_call_id: `call_${i}`, content: words.repeat(30) });
    history.push({ role: "assistant", content: `done with step ${i}` });
  }
  return history;
}

/** The free names the snippets use, and a console that records instead of printing. */
function prelude() {
  const logged = [];
  const summarize = contextfold.extractiveSummarizer();
  const short = () => [
    { role: "user", content: "hi" },
    {
      role: "assistant",
      content: null,
      reasoning_content: "thinking",
      tool_calls: [{ id: "a1", type: "function", function: { name: "f", arguments: "{}" } }],
    },
    { role: "tool", tool_call_id: "a1", content: "ok" },
    { role: "assistant", content: "hello" },
  ];
  return {
    logged,
    names: {
      history: longHistory(),
      chain: short(),
      openaiMessages: short(),
      abortController: new AbortController(),
      // A model call: the package's offline summarizer, honouring the signal as a real client would.
      callMyModel: async (instructions, transcript, { signal }) => {
        assert.equal(typeof instructions, "string");
        signal.throwIfAborted();
        return summarize({ instructions, transcript });
      },
      console: {
        log: (...args) => logged.push(args),
        assert: (ok, ...why) => assert.ok(ok, why.join(" ") || "console.assert failed"),
      },
    },
  };
}

const AsyncFunction = (async () => {}).constructor;

/**
 * Runs `code` as a module body: its `import`s are resolved here and each imported name must be a
 * real export; `export default X` becomes the returned value.
 */
async function run(code, names) {
  const bound = { ...names };
  let body = code;
  for (const [statement, clause, specifier] of code.matchAll(/^import\s+([\s\S]+?)\s+from\s+"([^"]+)";?$/gm)) {
    const module = await import(specifier);
    const [, defaultName, list] = clause.match(/^(?:([\w$]+)\s*,?\s*)?(?:\{([^}]*)\})?$/) ?? [];
    assert.ok(defaultName || list, `cannot read the import ${statement}`);
    if (defaultName) {
      assert.ok("default" in module, `${specifier} has no default export (${statement})`);
      bound[defaultName] = module.default;
    }
    for (const entry of (list ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)) {
      const [name, alias = name] = entry.split(/\s+as\s+/);
      assert.ok(name in module, `${specifier} has no export ${name} (${statement})`);
      bound[alias] = module[name];
    }
    body = body.replace(statement, "");
  }
  const snippetHasImports = body !== code;
  // Doc comments of the binding document the package's functions: in scope as the docs assume.
  const scope = snippetHasImports ? bound : { ...contextfold, ...bound };
  body = body.replace(/^export default /m, "return ");
  const names_ = Object.keys(scope).filter((n) => n !== "default" && /^[A-Za-z_$][\w$]*$/.test(n));
  return new AsyncFunction(...names_, body)(...names_.map((n) => scope[n]));
}

const readme = readmeBlocks(readFileSync(join(root, "README.md"), "utf8"));
const examples = docExamples(join(root, "crates/contextfold-wasm/src"));

describe("README examples run", () => {
  it("finds the main example under ## Example", () => {
    assert.ok(
      readme.some((b) => b.heading === "Example"),
      "no ```js block under ## Example in README.md",
    );
  });

  for (const block of readme) {
    it(block.name, async () => {
      const { names, logged } = prelude();
      const result = await run(block.code, names);
      if (block.heading === "Example") {
        // The `if (needsCompaction(...))` branch ran: the report line was logged, fewer tokens after.
        const report = logged.find((args) => args[1] === "->");
        assert.ok(report, "the example's compaction branch did not run");
        assert.ok(report[2] < report[0], `tokens ${report[0]} -> ${report[2]}`);
        assert.ok(
          logged.some((args) => args[0] === "done" || typeof args[1] === "number"),
          "no progress was reported",
        );
      }
      if (/^export default/m.test(block.code))
        assert.equal(typeof result?.fetch, "function", "the default export has no fetch");
    });
  }
});

describe("@example blocks of the JS docs run", () => {
  it("finds them", () => assert.ok(examples.length >= 5, `only ${examples.length} @example blocks found`));
  for (const example of examples) {
    it(example.name, async () => {
      const { names } = prelude();
      await run(`${example.code}\nreturn undefined;`, names);
    });
  }
});

describe("the runner itself", () => {
  it("fails on an export that does not exist", async () => {
    await assert.rejects(run('import { compactt } from "contextfold";\n', {}), /has no export compactt/);
  });
  it("fails on a renamed function in a doc example", async () => {
    await assert.rejects(run("const r = parseChainz([]);", {}), ReferenceError);
  });
});
