// Type tests: tests/types/consumer.ts imports `contextfold` as a TypeScript user would and
// must type-check (tsc --noEmit, skipLibCheck off) under both module resolutions users
// pick. Its `@ts-expect-error` lines make wrong options a failure to reject, not a pass.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, it } from "node:test";
import { root } from "../node/helpers.mjs";

const tsc = join(root, "node_modules/typescript/bin/tsc");
const dir = join(root, "tests/types");

function typecheck(config) {
  const result = spawnSync(process.execPath, [tsc, "-p", join(dir, config), "--listFiles"], {
    cwd: dir,
    encoding: "utf8",
  });
  assert.equal(result.error, undefined, String(result.error));
  const output = `${result.stdout}${result.stderr}`;
  const files = result.stdout.split("\n").filter((line) => line.startsWith("/"));
  const errors = output.split("\n").filter((line) => !line.startsWith("/") && line.trim() !== "");
  return { status: result.status, errors, files };
}

describe("types (tsc --noEmit on a consumer project)", () => {
  for (const [config, resolution] of [
    ["tsconfig.nodenext.json", "nodenext"],
    ["tsconfig.bundler.json", "bundler"],
  ]) {
    it(`type-checks with moduleResolution "${resolution}", wrong options rejected`, (t) => {
      const { status, errors, files } = typecheck(config);
      assert.equal(status, 0, `tsc -p tests/types/${config} failed:\n${errors.join("\n")}`);
      // "contextfold" resolved to the package's own declarations, not to something else.
      for (const file of ["pkg/src/index.d.ts", "pkg/glue/contextfold_wasm.d.ts"]) {
        assert.ok(files.includes(join(root, file)), `${file} was not part of the program`);
      }
      t.diagnostic(`${files.length} files checked`);
    });
  }

  // tests/types/sdk.ts: results passed with no cast to openai, @anthropic-ai/sdk,
  // @google/genai and ai (their own declarations, which need @types/node).
  it("results are accepted by the official SDK types, and are not `any`", (t) => {
    const { status, errors, files } = typecheck("tsconfig.sdk.json");
    assert.equal(status, 0, `tsc -p tests/types/tsconfig.sdk.json failed:\n${errors.join("\n")}`);
    for (const sdk of ["openai", "@anthropic-ai/sdk", "@google/genai", "ai"]) {
      assert.ok(
        files.some((f) => f.includes(`/node_modules/${sdk}/`)),
        `${sdk}'s declarations were not checked`,
      );
    }
    assert.ok(files.includes(join(root, "pkg/src/formats.d.ts")), "the format types were not part of the program");
    t.diagnostic(`${files.length} files checked`);
  });

  // tests/types/agents.ts: contextfold/openai-agents against @openai/agents-core's types.
  it("the Agents SDK session wrapper is the SDK's Session, items keep the SDK's type", () => {
    const { status, errors, files } = typecheck("tsconfig.agents.json");
    assert.equal(status, 0, `tsc -p tests/types/tsconfig.agents.json failed:\n${errors.join("\n")}`);
    assert.ok(files.some((f) => f.includes("/node_modules/@openai/agents-core/")));
    assert.ok(files.includes(join(root, "pkg/src/openai-agents.d.ts")));
  });
});

// The public surface: the `types` file of every entry of pkg/package.json, and every
// declaration file those reach through `from "..."` / `import("...")`. The generated glue
// is reached too, but only its public declarations count: wasm-bindgen also declares
// its internals there (`InitOutput`: the raw wasm exports, typed with `any`), which the
// package's index.d.ts does not re-export.
const glue = join(root, "pkg/glue/contextfold_wasm.d.ts");
const GLUE_INTERNALS = new Set(["InitOutput", "start", "initSync", "__wbg_init", "__wbg_reset_state"]);

/**
 * `text` with comments removed and string literals emptied (a string may say "any"),
 * or kept with `keepStrings` (to read module specifiers).
 */
function code(text, { keepStrings = false } = {}) {
  let out = "";
  for (let i = 0; i < text.length; ) {
    const two = text.slice(i, i + 2);
    if (two === "//") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (two === "/*") {
      const end = text.indexOf("*/", i + 2);
      i = end === -1 ? text.length : end + 2;
      out += " ";
    } else if (text[i] === '"' || text[i] === "'" || text[i] === "`") {
      const start = i;
      const quote = text[i++];
      while (i < text.length && text[i] !== quote) i += text[i] === "\\" ? 2 : 1;
      i++;
      out += keepStrings ? text.slice(start, i) : `${quote}${quote}`;
    } else {
      out += text[i++];
    }
  }
  return out;
}

/** The module specifiers a declaration file names (`from "x"`, `import("x")`). */
function specifiers(source) {
  return [...source.matchAll(/\bfrom\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1] ?? m[2]);
}

/** The top-level declarations of the glue, by name (it is a flat list of them). */
function glueDeclarations() {
  const declarations = new Map();
  let current = null;
  for (const line of code(readFileSync(glue, "utf8")).split("\n")) {
    const head =
      /^(?:export\s+)?(?:declare\s+)?(?:default\s+)?(?:type|interface|function|class|const)\s+([A-Za-z_$][\w$]*)/.exec(
        line,
      );
    if (head) {
      current = head[1];
      declarations.set(current, "");
    } else if (/^\S/.test(line)) {
      current = null;
    }
    if (current !== null) declarations.set(current, `${declarations.get(current)}${line}\n`);
  }
  return declarations;
}

/** The names index.d.ts re-exports from the glue. */
function reexportedFromGlue() {
  const index = code(readFileSync(join(root, "pkg/src/index.d.ts"), "utf8"), { keepStrings: true });
  const names = new Set();
  for (const [, list] of index.matchAll(
    /export\s+(?:type\s+)?\{([^}]*)\}\s*from\s*"\.\.\/glue\/contextfold_wasm\.js"/g,
  )) {
    for (const name of list
      .split(",")
      .map((n) => n.trim())
      .filter(Boolean))
      names.add(name.split(/\s+as\s+/).pop());
  }
  return names;
}

/** Every `any` of the public surface, as "file: excerpt". */
function anyInPublicSurface() {
  const pkg = JSON.parse(readFileSync(join(root, "pkg/package.json"), "utf8"));
  const entries = Object.values(pkg.exports)
    .map((e) => (typeof e === "object" ? e.types : undefined))
    .filter(Boolean)
    .map((t) => join(root, "pkg", t));
  const declarations = glueDeclarations();
  const found = [];
  const seen = new Set();
  const queue = [...new Set(entries)];
  // The glue: the re-exported declarations and every glue declaration they name.
  const publicGlue = new Set([...reexportedFromGlue()].filter((n) => declarations.has(n)));
  while (queue.length > 0) {
    const file = queue.shift();
    if (seen.has(file)) continue;
    seen.add(file);
    if (file === glue) continue;
    const text = readFileSync(file, "utf8");
    const source = code(text);
    for (const [name] of declarations) if (new RegExp(`\\b${name}\\b`).test(source)) publicGlue.add(name);
    if (/\bany\b/.test(source)) found.push(`${file}: ${source.match(/.*\bany\b.*/)[0].trim()}`);
    for (const spec of specifiers(code(text, { keepStrings: true })).filter((s) => s.startsWith("."))) {
      queue.push(resolve(dirname(file), spec.replace(/\.js$/, ".d.ts")));
    }
  }
  assert.ok(seen.has(glue), "the glue is reached from the entries");
  // Names used by hand-written files may be glue internals only if those are excluded.
  for (const name of GLUE_INTERNALS) publicGlue.delete(name);
  const todo = [...publicGlue];
  while (todo.length > 0) {
    const text = declarations.get(todo.pop());
    for (const [name] of declarations) {
      if (!publicGlue.has(name) && new RegExp(`\\b${name}\\b`).test(text)) {
        publicGlue.add(name);
        todo.push(name);
      }
    }
  }
  for (const name of publicGlue) {
    const text = declarations.get(name);
    if (/\bany\b/.test(text)) found.push(`glue ${name}: ${text.match(/.*\bany\b.*/)[0].trim()}`);
  }
  return { found, files: [...seen], publicGlue };
}

describe("public surface", () => {
  it("has no `any` type in the declarations reachable from the entries", (t) => {
    const { found, files, publicGlue } = anyInPublicSurface();
    assert.deepEqual(found, []);
    assert.ok(!publicGlue.has("InitOutput"), "InitOutput is not public");
    t.diagnostic(`${files.length} declaration files, ${publicGlue.size} glue declarations checked`);
  });

  it("finds an `any` where there is one (the check itself works)", () => {
    assert.equal(/\bany\b/.test(code("type A = { a: any }")), true);
    assert.equal(/\bany\b/.test(code('/** any store */ type A = "any" | `any`; // any')), false);
    assert.ok(/\bany\b/.test(glueDeclarations().get("InitOutput")), "the glue's InitOutput has any");
  });

  it("index.d.ts re-exports every public name of the glue, and none of its internals", () => {
    // The exports that take a chain are declared by formats.d.ts, typed by the chain.
    const formats = code(readFileSync(join(root, "pkg/src/formats.d.ts"), "utf8"));
    const typed = [...formats.matchAll(/export\s+declare\s+function\s+(\w+)/g)].map((m) => m[1]);
    assert.deepEqual([...new Set(typed)].sort(), [
      "clearReasoning",
      "compact",
      "convert",
      "normalizeToolCallIds",
      "repairChain",
    ]);
    const exported = new Set([...reexportedFromGlue(), ...typed]);
    const missing = [...glueDeclarations().keys()].filter((n) => !GLUE_INTERNALS.has(n) && !exported.has(n));
    assert.deepEqual(missing, [], "generated declarations missing from pkg/src/index.d.ts");
    const internal = [...exported].filter((n) => GLUE_INTERNALS.has(n));
    assert.deepEqual(internal, []);
  });
});

/** The properties an interface of the glue declares: `{ name: optional }`. */
function declaredProperties(name) {
  const declarations = glueDeclarations();
  const text = declarations.get(name);
  assert.ok(text, `${name} is declared`);
  const head = /interface\s+\w+(?:\s+extends\s+(\w+))?/.exec(text);
  assert.ok(head, `${name} is an interface`);
  const own = Object.fromEntries([...text.matchAll(/^ {4}(\w+)(\??):/gm)].map((m) => [m[1], m[2] === "?"]));
  return head[1] ? { ...declaredProperties(head[1]), ...own } : own;
}

/** `value` has every required property `name` declares, and no undeclared one. */
function assertShape(value, name) {
  const declared = declaredProperties(name);
  const required = Object.keys(declared).filter((k) => !declared[k]);
  for (const key of required) assert.ok(key in value, `${name}.${key} is declared but missing`);
  for (const key of Object.keys(value)) assert.ok(key in declared, `${name} has an undeclared ${key}`);
}

describe("generated declarations describe the values the package returns", () => {
  it("compact: result, report, requests, progress events", async () => {
    const pkg = await import("contextfold");
    const { openaiSections, orphanResultChain, openaiChain } = await import("../shared/chains.mjs");
    const requests = [];
    const events = [];
    const result = await pkg.compact(openaiSections(6), {
      strategy: "sections",
      summarizer: async (request) => {
        requests.push(request);
        return "short summary";
      },
      timeoutMs: 5000,
      onProgress: (event) => events.push(event),
    });
    assert.equal(result.changed, true);
    assertShape(result, "CompactResult");
    assertShape(result.report, "CompactReport");
    assert.equal(result.report.format, result.format, "the report names the format too");
    assertShape(result.report.before, "Totals");
    for (const section of result.report.sections) assertShape(section, "SectionReport");
    assert.ok(requests.length > 0);
    for (const request of requests) assertShape(request, "SummaryRequest");
    assert.deepEqual(new Set(events.map((e) => e.phase)), new Set(["wave", "call", "done"]));

    for (const d of pkg.validateChain(orphanResultChain())) assertShape(d, "Diagnostic");
    const parsed = pkg.parseChain(openaiChain());
    assertShape(parsed, "ParsedChain");
    assertShape(parsed.outline, "ChainOutline");
    assertShape(parsed.outline.sectionList[0], "SectionOutline");
    assertShape(parsed.outline.sectionList[0].pairs[0], "PairOutline");
    assertShape(pkg.repairChain(orphanResultChain()), "RepairResult");
    assertShape(pkg.convert(openaiChain(), { to: "anthropic" }), "ConvertResult");
    const measured = pkg.measureChain(openaiChain());
    assertShape(measured, "ChainMeasure");
    assertShape(measured.messages[0], "MessageMeasure");
    const normalized = pkg.normalizeToolCallIds(openaiChain(), "toolu_{r:24:b}");
    assertShape(normalized, "NormalizeResult");
    assertShape(normalized.renamed[0], "RenamedId");
    assertShape(pkg.clearReasoning(openaiChain()), "ClearReasoningResult");
  });
});
