// Type tests: tests/types/consumer.ts imports `contextfold` as a TypeScript user would and
// must type-check (tsc --noEmit, skipLibCheck off) under both module resolutions users
// pick. Its `@ts-expect-error` lines make wrong options a failure to reject, not a pass.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
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
});
