// The shared rule of tests/shared/requirements.mjs and scripts/fuzz.sh: something missing skips
// with a notice in a user's clone, and fails the run under CI=true.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { inCI, missing, realFixturesDir } from "../shared/requirements.mjs";
import { root } from "./helpers.mjs";

const nowhere = join(tmpdir(), "contextfold-no-such-fixtures");
const scratch = mkdtempSync(join(tmpdir(), "contextfold-requirements-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** `env` without CI, plus `extra`. */
const envWith = (extra) => {
  // NODE_TEST_CONTEXT would make a child test file report to this runner instead of exiting.
  const { CI: _ci, NODE_TEST_CONTEXT: _context, ...rest } = process.env;
  return { ...rest, ...extra };
};

describe("missing requirements", () => {
  it("CI means exactly CI=true", () => {
    assert.equal(inCI({ CI: "true" }), true);
    assert.equal(inCI({ CI: "1" }), false);
    assert.equal(inCI({}), false);
  });

  it("outside CI: a skip reason that names what is missing and how to get it", () => {
    const reason = missing("Chromium", "run npm run setup", {});
    assert.match(reason, /^notice: Chromium not found, tests skipped \(run npm run setup\)$/);
  });

  it("under CI=true: an error that names what is missing and how to get it", () => {
    assert.throws(
      () => missing("Chromium", "run npm run setup", { CI: "true" }),
      /CI=true but Chromium not found: run npm run setup/,
    );
  });

  it("real transcripts: null outside CI, an error under CI=true, when the folder is absent", () => {
    assert.equal(realFixturesDir({ CONTEXTFOLD_REAL_FIXTURES: nowhere }), null);
    assert.throws(
      () => realFixturesDir({ CONTEXTFOLD_REAL_FIXTURES: nowhere, CI: "true" }),
      /CI=true but the real transcripts .* not found/,
    );
    assert.equal(realFixturesDir({ CONTEXTFOLD_REAL_FIXTURES: root }), root);
  });

  it("a real-transcript test file fails under CI=true and skips outside CI without the transcripts", () => {
    const file = join(root, "tests/node/parse-chain.test.mjs");
    const runIt = (extra) =>
      spawnSync(process.execPath, [file], {
        cwd: root,
        encoding: "utf8",
        env: envWith({ CONTEXTFOLD_REAL_FIXTURES: nowhere, ...extra }),
      });
    const inCi = runIt({ CI: "true" });
    assert.notEqual(inCi.status, 0, "CI=true passed without the real transcripts");
    assert.match(inCi.stdout + inCi.stderr, /CI=true but the real transcripts .* not found/);
    const local = runIt({});
    assert.equal(local.status, 0, local.stdout + local.stderr);
    // The summary line: "# skipped 3" (TAP, Node 20), "ℹ skipped 3" (spec, Node 22+).
    assert.match(local.stdout, /^(?:#|ℹ) skipped [1-9]/m);
    assert.match(local.stdout, /notice: the real transcripts .* not found/);
  });

  it("the browser tests fail under CI=true and skip outside CI without Chromium", () => {
    const file = join(root, "tests/browser/browser.test.mjs");
    const runIt = (extra) =>
      spawnSync(process.execPath, [file], {
        cwd: root,
        encoding: "utf8",
        env: envWith({ CONTEXTFOLD_CHROMIUM: nowhere, ...extra }),
      });
    const inCi = runIt({ CI: "true" });
    assert.notEqual(inCi.status, 0, "CI=true passed without Chromium");
    assert.match(
      inCi.stdout + inCi.stderr,
      /CI=true but Chromium \(.*contextfold-no-such-fixtures\) not found: run `npm run setup -- --test`/,
    );
    const local = runIt({});
    assert.equal(local.status, 0, local.stdout + local.stderr);
    // The summary line: "# skipped 3" (TAP, Node 20), "ℹ skipped 3" (spec, Node 22+).
    assert.match(local.stdout, /^(?:#|ℹ) skipped [1-9]/m);
    assert.match(local.stdout, /notice: Chromium .* not found/);
  });

  it("scripts/fuzz.sh fails under CI=true and skips outside CI without a nightly toolchain", () => {
    // An empty RUSTUP_HOME has no toolchain at all, nightly included.
    const runIt = (extra) =>
      spawnSync("bash", ["scripts/fuzz.sh", "1"], {
        cwd: root,
        encoding: "utf8",
        env: envWith({ RUSTUP_HOME: scratch, ...extra }),
      });
    const inCi = runIt({ CI: "true" });
    assert.equal(inCi.status, 1, inCi.stdout + inCi.stderr);
    assert.match(inCi.stderr, /CI=true and no nightly toolchain \(rustup toolchain install nightly\)/);
    const local = runIt({});
    assert.equal(local.status, 0, local.stdout + local.stderr);
    assert.match(local.stdout, /notice: no nightly toolchain/);
  });
});
