// The demo session is generated: examples/make-demo-session.mjs replays its conversation
// against the project in examples/demo-project/. Regenerating it must give the committed
// examples/demo-session.openai.json byte for byte, so the session, the project and the
// script never drift apart.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { root } from "./helpers.mjs";

const dir = mkdtempSync(join(tmpdir(), "contextfold-demo-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a copy of the generator next to a copy of the project; the output's bytes. */
function generate(edit = () => {}) {
  const work = mkdtempSync(join(dir, "run-"));
  cpSync(join(root, "examples/make-demo-session.mjs"), join(work, "make-demo-session.mjs"));
  cpSync(join(root, "examples/demo-project"), join(work, "demo-project"), { recursive: true });
  edit(work);
  const out = join(work, "out.json");
  const run = spawnSync(process.execPath, [join(work, "make-demo-session.mjs"), out], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  return readFileSync(out);
}

describe("the demo session", () => {
  it("regenerates byte for byte from the project and the script", () => {
    assert.ok(generate().equals(readFileSync(join(root, "examples/demo-session.openai.json"))));
  });

  it("changes when a project file does (the reads show the files as they are)", () => {
    const touched = generate((work) => {
      const path = join(work, "demo-project/src/csv.ts");
      writeFileSync(path, readFileSync(path, "utf8").replace("export", "export /* edited */"));
    });
    assert.ok(!touched.equals(readFileSync(join(root, "examples/demo-session.openai.json"))));
  });

  it("refuses a project that no longer says what the simulated test runs report", () => {
    const work = mkdtempSync(join(dir, "bad-"));
    cpSync(join(root, "examples/make-demo-session.mjs"), join(work, "make-demo-session.mjs"));
    cpSync(join(root, "examples/demo-project"), join(work, "demo-project"), { recursive: true });
    const path = join(work, "demo-project/test/week.test.ts");
    writeFileSync(path, readFileSync(path, "utf8").replace("treats Sunday as the last day", "treats Sunday as a day"));
    const run = spawnSync(process.execPath, [join(work, "make-demo-session.mjs"), join(work, "out.json")], {
      encoding: "utf8",
    });
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, /demo-project\/test\/week\.test\.ts does not hold/);
  });
});
