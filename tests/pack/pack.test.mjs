// Packaging smoke test: `npm pack` the built pkg/, check what the tarball holds, install it
// into a fresh Node ESM project (offline: the package has no dependencies) and use it
// there as a user would, through its name, its exports map and its bin.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { root } from "../node/helpers.mjs";

const scratch = mkdtempSync(join(tmpdir(), "contextfold-pack-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** The environment without the npm_* variables of the `npm test` that runs us. */
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, env: cleanEnv, encoding: "utf8" });
  assert.equal(result.error, undefined, `${command}: ${result.error}`);
  assert.equal(result.status, 0, `${command} ${args.join(" ")} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

const manifest = JSON.parse(readFileSync(join(root, "pkg/package.json"), "utf8"));
let packed; // npm pack --json's entry: { filename, files: [{ path }] }
const project = join(scratch, "consumer");

before(() => {
  const out = run("npm", ["pack", "--json", "--pack-destination", scratch], join(root, "pkg"));
  [packed] = JSON.parse(out);
  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }),
  );
  run(
    "npm",
    ["install", join(scratch, packed.filename), "--offline", "--no-audit", "--no-fund", "--loglevel=error"],
    project,
  );
});

describe("npm pack", () => {
  it("ships only what `files` lists, with the README and license", () => {
    const paths = packed.files.map((f) => f.path).sort();
    for (const doc of ["README.md", "LICENSE"]) assert.ok(paths.includes(doc), `the tarball has no ${doc}`);
    const allowed = [
      /^package\.json$/,
      /^(README|LICENSE|LICENCE)(\.md|\.txt)?$/i,
      /^src\/[^/]+\.(js|d\.ts)$/,
      /^bin\/(cli\/)?[^/]+\.mjs$/,
      /^glue\/contextfold_wasm\.(js|d\.ts)$/,
      /^glue\/contextfold_wasm_bg\.wasm$/,
    ];
    const unexpected = paths.filter((p) => !allowed.some((re) => re.test(p)));
    assert.deepEqual(unexpected, [], "files outside the `files` list");
    for (const required of [
      "package.json",
      "glue/contextfold_wasm.js",
      "glue/contextfold_wasm.d.ts",
      "glue/contextfold_wasm_bg.wasm",
    ]) {
      assert.ok(paths.includes(required), `${required} is missing from the tarball`);
    }
  });

  it("holds every file the exports map and bin point at", () => {
    const paths = new Set(packed.files.map((f) => f.path));
    const targets = [];
    const walk = (value) => {
      if (typeof value === "string") targets.push(value);
      else for (const v of Object.values(value)) walk(v);
    };
    walk(manifest.exports);
    walk(manifest.bin);
    targets.push(manifest.types);
    for (const target of targets) {
      assert.ok(paths.has(target.replace(/^\.\//, "")), `${target} is not in the tarball`);
    }
  });

  it("installs into a Node ESM project, resolves to the node entry and compacts", () => {
    const smoke = `
      import { compact, parseChain } from "contextfold";
      const resolved = import.meta.resolve("contextfold");
      const section = (i) => [
        { role: "user", content: "Task " + i },
        { role: "assistant", content: "Answer " + i + ": " + "lorem ipsum dolor sit amet ".repeat(60) },
      ];
      const chain = [0, 1, 2, 3].flatMap(section);
      const summarizer = async (request) => {
        await new Promise((r) => setTimeout(r, 2));
        return "Summary of section " + request.section + ".";
      };
      const result = await compact(chain, { summarizer });
      const outline = parseChain(result.messages, { format: "openai" }).outline;
      const text = JSON.stringify(result.messages);
      console.log(JSON.stringify({ resolved, changed: result.changed, report: result.report, outline, text }));
    `;
    writeFileSync(join(project, "smoke.mjs"), smoke);
    const { resolved, changed, report, outline, text } = JSON.parse(run(process.execPath, ["smoke.mjs"], project));
    assert.ok(
      resolved.endsWith("/consumer/node_modules/contextfold/src/node.js"),
      `resolved to ${resolved}, not the installed copy's node entry`,
    );
    assert.equal(changed, true);
    assert.deepEqual(report.errors, []);
    assert.equal(report.calls, 3);
    assert.ok(report.after.bytes < report.before.bytes);
    assert.equal(outline.sections, 4);
    assert.equal(outline.messages, report.after.messages);
    for (const i of [0, 1, 2]) assert.ok(text.includes(`Summary of section ${i}.`), `summary ${i} is in the output`);
  });

  it("installs the contextfold command", () => {
    const out = run(join(project, "node_modules/.bin/contextfold"), ["--version"], project);
    assert.equal(out.trim(), manifest.version);
  });
});
