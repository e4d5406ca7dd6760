// The `contextfold` command line, run as a user runs it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fixtureFiles, openaiChain, orphanResultChain, root } from "./helpers.mjs";

const cli = join(root, "pkg/bin/contextfold.mjs");
const scratch = mkdtempSync(join(tmpdir(), "contextfold-cli-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function run(...args) {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function scratchFile(name, content) {
  const file = join(scratch, name);
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

/** The shipped demo, else a real OpenAI transcript, else the inline chain. */
function sampleOpenaiFile() {
  const demo = join(root, "examples/demo-session.openai.json");
  if (existsSync(demo)) return demo;
  const fixture = fixtureFiles().find((f) => f.endsWith("tau_bench_gpt4o_airline_tools.openai.json"));
  return fixture ?? scratchFile("inline.openai.json", openaiChain());
}

describe("contextfold inspect", () => {
  it("prints the structure report", () => {
    const file = sampleOpenaiFile();
    const { code, stdout, stderr } = run("inspect", file);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^format\s+openai \(detected\)$/m);
    for (const label of ["messages", "sections", "tool calls"]) {
      assert.match(stdout, new RegExp(`^${label}\\s+\\d[\\d,]*$`, "m"));
    }
    assert.match(stdout, /^body pairs\s+\d[\d,]* \(completion \d+, request\/response \d+, summarization \d+\)$/m);
    assert.match(stdout, /^total size\s+\d[\d,]* bytes/m);
    assert.match(stdout, /^\s*#\s+header\s+bytes\s+pairs$/m);
    assert.match(stdout, /^\s*0\s+(\d+ system \+ )?user\s+\S+\s+[CRS(]/m);
  });

  it("prints JSON with --json", () => {
    const { code, stdout } = run("inspect", sampleOpenaiFile(), "--json");
    assert.equal(code, 0);
    const result = JSON.parse(stdout);
    assert.equal(result.format, "openai");
    assert.ok(result.outline.sections > 0);
  });

  it("exits 2 with the code and path on a broken chain", () => {
    const { code, stderr } = run("inspect", scratchFile("orphan.json", orphanResultChain()));
    assert.equal(code, 2);
    assert.match(stderr, /^error unmatched_tool_result at \[2\]: /m);
  });

  it("lists the repairs with --repair", () => {
    const { code, stdout, stderr } = run("inspect", scratchFile("orphan.json", orphanResultChain()), "--repair");
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^repairs\s+\d+$/m);
    assert.match(stdout, /addedMissingCall/);
  });

  it("exits 2 on invalid JSON", () => {
    const { code, stderr } = run("inspect", scratchFile("broken.json", "[{"));
    assert.equal(code, 2);
    assert.match(stderr, /^error invalid_json: /m);
  });

  it("exits 2 on a usage error", () => {
    assert.equal(run("inspect").code, 2);
    assert.equal(run("inspect", sampleOpenaiFile(), "--format", "klingon").code, 2);
    assert.equal(run("frobnicate").code, 2);
  });

  it("exits 1 when the file cannot be read", () => {
    const { code, stderr } = run("inspect", join(scratch, "missing.json"));
    assert.equal(code, 1);
    assert.match(stderr, /^error read_failed: /m);
  });
});
