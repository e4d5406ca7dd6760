// The demo session is generated: examples/make-demo-session.mjs replays the conversation
// in examples/demo-conversation.json against the project in examples/demo-project/.
// Regenerating it must give the committed examples/demo-session.openai.json byte for
// byte, so the session, its sources and the driver never drift apart.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { root } from "./helpers.mjs";

const dir = mkdtempSync(join(tmpdir(), "contextfold-demo-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of the generator and what it reads, in a fresh directory. */
function copy(prefix) {
  const work = mkdtempSync(join(dir, prefix));
  for (const name of ["make-demo-session.mjs", "demo-simulation.mjs", "demo-conversation.json", "demo-project"]) {
    cpSync(join(root, "examples", name), join(work, name), { recursive: true });
  }
  return work;
}

/** Runs a copy of the generator, after `edit` of the copy; the output's bytes. */
function generate(edit = () => {}) {
  const work = copy("run-");
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

  it("changes when the conversation does", () => {
    const touched = generate((work) => {
      const path = join(work, "demo-conversation.json");
      const steps = JSON.parse(readFileSync(path, "utf8"));
      steps[1].text = `${steps[1].text} Thanks.`;
      writeFileSync(path, JSON.stringify(steps));
    });
    assert.ok(!touched.equals(readFileSync(join(root, "examples/demo-session.openai.json"))));
  });

  it("refuses a project that no longer says what the simulated test runs report", () => {
    const work = copy("bad-");
    const path = join(work, "demo-project/test/week.test.ts");
    writeFileSync(path, readFileSync(path, "utf8").replace("treats Sunday as the last day", "treats Sunday as a day"));
    const run = spawnSync(process.execPath, [join(work, "make-demo-session.mjs"), join(work, "out.json")], {
      encoding: "utf8",
    });
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, /demo-project\/test\/week\.test\.ts does not hold/);
  });
});
