// The package's JavaScript is type-checked against its hand-written declarations
// (pkg/tsconfig.json: checkJs, strict; each export carries `@type {typeof import("./x.js").name}`,
// which resolves to the .d.ts beside it). This test runs that check, then shows that it
// bites: a copy of pkg/src whose declarations drifted from the JavaScript must fail it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { root } from "../node/helpers.mjs";

const tsc = join(root, "node_modules/typescript/bin/tsc");

function check(project) {
  const result = spawnSync(process.execPath, [tsc, "-p", project, "--listFiles"], { cwd: project, encoding: "utf8" });
  assert.equal(result.error, undefined, String(result.error));
  const lines = `${result.stdout}${result.stderr}`.split("\n");
  return {
    status: result.status,
    files: lines.filter((line) => line.startsWith("/")),
    errors: lines.filter((line) => line.includes("error TS")),
  };
}

/** Declaration edits that the JavaScript no longer matches, and the file that must say so. */
const DRIFTS = [
  ["index.d.ts", "readonly length: number;", "readonly length: string;", "src/history.js"],
  [
    "summarizers.d.ts",
    "retryAfterMs(headers: Headers): number | undefined;",
    "retryAfterMs(headers: Headers): number;",
    "src/summarizers.js",
  ],
  ["worker.d.ts", "defaultRoute(url: URL): RouteFormat;", "defaultRoute(url: string): RouteFormat;", "src/worker.js"],
  [
    "cache.d.ts",
    "readonly size: number; clear(): void }",
    "readonly size: number; clear(): void; evict(): void }",
    "src/cache.js",
  ],
  [
    "formats.d.ts",
    "options?: EditOptions): ClearReasoningResult<Chain<T>>;",
    "options?: EditOptions): Promise<ClearReasoningResult<Chain<T>>>;",
    "src/api.js",
  ],
];

describe("pkg/src is type-checked against its declarations (npm run check:types)", () => {
  it("passes, with every implementation that has a .d.ts beside it in the program", () => {
    const { status, files, errors } = check(join(root, "pkg"));
    assert.equal(status, 0, errors.join("\n"));
    for (const name of ["index", "api", "history", "cache", "summarizers", "worker", "glue"]) {
      assert.ok(files.includes(join(root, `pkg/src/${name}.js`)), `pkg/src/${name}.js was not checked`);
    }
  });

  it("fails when a declaration drifts from the JavaScript", () => {
    // A copy beside the repository's node_modules (for @types/node) and package.json ("type": "module").
    const copy = join(root, "test-artifacts/js-check");
    rmSync(copy, { recursive: true, force: true });
    mkdirSync(copy, { recursive: true });
    cpSync(join(root, "pkg/src"), join(copy, "src"), { recursive: true });
    cpSync(join(root, "pkg/tsconfig.json"), join(copy, "tsconfig.json"));
    cpSync(join(root, "pkg/check.d.ts"), join(copy, "check.d.ts"));
    symlinkSync(join(root, "pkg/glue"), join(copy, "glue"));
    assert.equal(check(copy).status, 0, "the unchanged copy passes");
    for (const [file, from, to, culprit] of DRIFTS) {
      const path = join(copy, "src", file);
      const original = readFileSync(path, "utf8");
      assert.ok(original.includes(from), `${file} no longer holds ${from}`);
      writeFileSync(path, original.replace(from, to));
      const { status, errors } = check(copy);
      writeFileSync(path, original);
      assert.notEqual(status, 0, `${file}: ${to} was not caught`);
      assert.ok(
        errors.some((line) => line.startsWith(culprit)),
        `${file}: expected an error in ${culprit}:\n${errors.join("\n")}`,
      );
    }
    rmSync(copy, { recursive: true, force: true });
  });
});
