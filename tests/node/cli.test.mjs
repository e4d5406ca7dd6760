// The `contextfold` command line, run as a user runs it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { formats } from "contextfold";
import { fixtureFiles, openaiChain, orphanResultChain, root } from "./helpers.mjs";

const cli = join(root, "pkg/bin/contextfold.mjs");
const scratch = mkdtempSync(join(tmpdir(), "contextfold-cli-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function run(...args) {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `run`, without blocking this process: for the CLI to reach a mock server served here. */
async function runAsync(args, env = {}) {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => (stdout += c));
  child.stderr.on("data", (c) => (stderr += c));
  const code = await new Promise((resolve) => child.on("close", resolve));
  return { code, stdout, stderr };
}

/** A mock OpenAI-compatible endpoint on loopback answering with `answer(req, res)`; counts requests. */
async function mockEndpoint(answer) {
  const { createServer } = await import("node:http");
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      server.requests += 1;
      answer(req, res);
    });
  });
  server.requests = 0;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.baseURL = `http://127.0.0.1:${server.address().port}/v1`;
  return server;
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
    assert.match(stderr, /^error invalid_json at \[0\]: invalid JSON at line 1, column 2 \(byte \d+\)/m);
  });

  it("exits 2 on a usage error", () => {
    assert.equal(run("inspect").code, 2);
    assert.equal(run("inspect", sampleOpenaiFile(), "--format", "klingon").code, 2);
    assert.equal(run("frobnicate").code, 2);
  });

  // A missing file or a directory is bad input (exit 2, as the README says), not exit 1.
  it("exits 2 when the file cannot be read: missing, or a directory", () => {
    const missing = run("inspect", join(scratch, "missing.json"));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^error read_failed: cannot read .*missing\.json: no such file$/m);
    const directory = run("inspect", scratch);
    assert.equal(directory.code, 2);
    assert.match(directory.stderr, /^error read_failed: cannot read .*: it is a directory$/m);
    for (const command of [["validate"], ["compact"], ["convert", "--to", "anthropic"]]) {
      const r = run(command[0], join(scratch, "missing.json"), ...command.slice(1));
      assert.equal(r.code, 2, `${command[0]}: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /error internal|\n\s+at /);
    }
  });

  it("skips a UTF-8 byte order mark at the start of the file", () => {
    const file = scratchFile("bom.json", `\ufeff${JSON.stringify(openaiChain())}`);
    const { code, stdout, stderr } = run("inspect", file, "--json");
    assert.equal(code, 0, stderr);
    assert.equal(JSON.parse(stdout).format, "openai");
    assert.equal(run("validate", file).code, 0);
  });

  // A valid file longer than V8's longest string was reported, after ~45 s of bisection,
  // as "not UTF-8 text" at a byte that was fine. Sparse files: no disk is written.
  it("a file too large for the runtime's text is read_failed saying so, with its size", () => {
    for (const [name, size, shown] of [
      ["huge.json", 600 * 2 ** 20, "629,145,600 bytes"],
      ["huger.json", 2 ** 31 + 2 ** 20, "over 2 GiB"],
    ]) {
      const file = join(scratch, name);
      const fd = openSync(file, "w");
      ftruncateSync(fd, size); // NUL bytes: valid UTF-8
      closeSync(fd);
      try {
        const r = run("inspect", file);
        assert.equal(r.code, 2, r.stderr);
        assert.match(
          r.stderr,
          new RegExp(`^error read_failed: cannot read .*${name}: it is too large \\(${shown}; `, "m"),
        );
        assert.match(r.stderr, /the longest text this runtime holds is 536,870,888 characters/);
      } finally {
        rmSync(file, { force: true });
      }
    }
  });

  // The mark was skipped before parsing: invalid_json offsets came 3 bytes before the culprit.
  it("counts invalid_json byte offsets in the file, a byte order mark included", () => {
    const body = '[{"role":"user","content":"hi"},\n {"role":"assistant","content":"yo",}]';
    const culprit = body.indexOf(",}") + 1;
    for (const [name, content, at] of [
      ["bom-bad.json", `\ufeff${body}`, culprit + 3],
      ["no-bom-bad.json", body, culprit],
    ]) {
      const file = scratchFile(name, content);
      for (const command of [["inspect"], ["validate"], ["compact"], ["convert", "--to", "anthropic"]]) {
        const r = run(command[0], file, ...command.slice(1));
        assert.equal(r.code, 2, r.stderr);
        assert.match(r.stderr, new RegExp(`^error invalid_json .*line 2, column \\d+ \\(byte ${at}\\)`, "m"), name);
      }
    }
  });

  // Read with replacement, a Latin-1 "é" (0xe9) became U+FFFD and `convert --out` wrote
  // the changed text with exit code 0.
  it("exits 2 with invalid_text and the byte offset on bytes that are not UTF-8", () => {
    const bytes = (...pieces) => Buffer.concat(pieces.map((p) => Buffer.from(p)));
    const bytesFile = (name, content) => {
      writeFileSync(join(scratch, name), content);
      return join(scratch, name);
    };
    const out = join(scratch, "latin1.out.json");
    const latin1 = bytesFile("latin1.json", bytes('[{"role":"user","content":"caf', [0xe9], '"}]'));
    const r = run("convert", latin1, "--to", "openai", "--out", out);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^error invalid_text: .*latin1\.json is not UTF-8 text: byte 0xe9 at byte offset 30$/m);
    assert.equal(existsSync(out), false);
    // The offset is where the bad sequence starts: a stray continuation byte, a truncated
    // sequence at the end, an encoded surrogate after a byte order mark (counted).
    const cases = [
      [bytes([0x80], "[]"), 0],
      [bytes("[]", [0xf0, 0x9f, 0x98]), 2],
      [bytes([0xef, 0xbb, 0xbf], '["', [0xed, 0xa0, 0x80], '"]'), 5],
    ];
    for (const [i, [content, at]] of cases.entries()) {
      const file = bytesFile(`bad-${i}.json`, content);
      for (const command of ["inspect", "validate", "compact"]) {
        const { code, stderr } = run(command, file);
        assert.equal(code, 2, `${command} case ${i}: ${stderr}`);
        assert.match(stderr, new RegExp(`^error invalid_text: .* at byte offset ${at}$`, "m"), `${command} case ${i}`);
      }
    }
    const stdin = spawnSync(process.execPath, [cli, "inspect", "-"], { input: bytes("[", [0xc3]) });
    assert.equal(stdin.status, 2);
    assert.match(String(stdin.stderr), /^error invalid_text: stdin is not UTF-8 text: byte 0xc3 at byte offset 1$/m);
  });
});

describe("contextfold compact", () => {
  const demo = join(root, "examples/demo-session.openai.json");

  it("compacts the demo offline and prints before/after", () => {
    const out = join(scratch, "compacted.json");
    const { code, stdout, stderr } = run("compact", demo, "--max-tokens", "8000", "--out", out);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /summarizer: built-in extractive \(offline\)/);
    const bytes = stdout.match(/^bytes\s+([\d,]+)\s+([\d,]+)$/m);
    assert.ok(bytes, stdout);
    const [before, after] = bytes.slice(1).map((n) => Number(n.replaceAll(",", "")));
    assert.ok(after < before / 2, `${after} is not under half of ${before}`);
    assert.match(stdout, /summary calls in 1 wave/);
    // The written file is a valid chain, and compacting it again changes nothing.
    const again = run("compact", out, "--max-tokens", "8000", "--json");
    assert.equal(again.code, 0, again.stderr);
    const result = JSON.parse(again.stdout);
    assert.equal(result.changed, false);
    assert.equal(result.report.calls, 0);
  });

  it("takes the strategy settings and rejects bad ones with exit code 2", () => {
    const tight = run(
      "compact",
      demo,
      "--strategy",
      "sections",
      "--keep-sections",
      "2",
      "--section-bytes",
      "4000",
      "--json",
    );
    assert.equal(tight.code, 0, tight.stderr);
    assert.ok(JSON.parse(tight.stdout).report.calls > 0);
    const bad = run("compact", demo, "--strategy", "sections", "--section-bytes", "lots");
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--section-bytes must be a whole number/);
  });

  it("runs every strategy; the budget strategy fits --max-tokens or --max-bytes", () => {
    for (const strategy of ["auto", "mask", "window", "tiers"]) {
      const r = run("compact", demo, "--strategy", strategy, "--max-tokens", "10000", "--json");
      assert.equal(r.code, 0, r.stderr);
      const result = JSON.parse(r.stdout);
      assert.equal(result.report.strategy, strategy);
      assert.ok(result.changed && result.report.after.bytes < result.report.before.bytes, strategy);
    }
    const tokens = JSON.parse(run("compact", demo, "--strategy", "budget", "--max-tokens", "6000", "--json").stdout);
    assert.ok(tokens.report.after.tokens <= 6000, `${tokens.report.after.tokens} tokens`);
    const bytes = JSON.parse(run("compact", demo, "--strategy", "budget", "--max-bytes", "30000", "--json").stdout);
    assert.ok(bytes.report.after.bytes <= 30000, `${bytes.report.after.bytes} bytes`);
    const noMax = run("compact", demo, "--strategy", "budget");
    assert.equal(noMax.code, 2);
    assert.match(noMax.stderr, /invalid_option at options\.maxTokens/);
    const tooSmall = run("compact", demo, "--strategy", "budget", "--max-tokens", "50");
    assert.equal(tooSmall.code, 2);
    assert.match(tooSmall.stderr, /budget_exceeded/);
    const mixed = run("compact", demo, "--strategy", "tiers", "--pair-bytes", "100");
    assert.equal(mixed.code, 2);
    assert.match(mixed.stderr, /applies to the sections strategy only/);
  });

  it("repairs what it can, and exits 2 with the code and path on what it cannot", () => {
    const orphan = run("compact", scratchFile("orphan.json", orphanResultChain()), "--json");
    assert.equal(orphan.code, 0, orphan.stderr);
    // Nothing to compact, but the input breaks provider rules: it comes back repaired.
    const result = JSON.parse(orphan.stdout);
    assert.equal(result.changed, true);
    assert.ok(
      result.report.providerRepairs.some((s) => s.step === "droppedOrphanResult"),
      orphan.stdout,
    );
    const call = { id: "c1", type: "function", function: { name: "f", arguments: "{}" } };
    const late = [
      { role: "user", content: "q" },
      { role: "assistant", content: null, tool_calls: [call] },
      { role: "system", content: "late" },
      { role: "tool", tool_call_id: "c1", content: "r" },
    ];
    const { code, stderr } = run("compact", scratchFile("late-system.json", late));
    assert.equal(code, 2);
    assert.match(stderr, /^error system_after_start at \[2\]: /m);
  });
});

describe("contextfold validate", () => {
  it("exits 0 on a valid chain and 3 with code and path on each broken rule", () => {
    const ok = run("validate", sampleOpenaiFile());
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /: valid/);
    const broken = run("validate", scratchFile("orphan-validate.json", orphanResultChain()), "--json");
    assert.equal(broken.code, 3, broken.stderr);
    const diagnostics = JSON.parse(broken.stdout);
    assert.ok(
      diagnostics.some((d) => d.code === "orphan_result" && d.path === "[2]"),
      broken.stdout,
    );
    const twoUsers = scratchFile("two-users.json", [
      { role: "user", content: "a" },
      { role: "user", content: "b" },
    ]);
    assert.equal(run("validate", twoUsers).code, 0);
    const strict = run("validate", twoUsers, "--provider", "anthropic");
    assert.equal(strict.code, 3);
    assert.match(strict.stdout, /^consecutive_same_role at \[1\]/m);
    const bad = run("validate", twoUsers, "--provider", "cohere");
    assert.equal(bad.code, 2);
  });

  it("--provider takes every provider of the package's formats (openai-responses too)", () => {
    const providers = [...new Set(formats().map((f) => f.provider))];
    assert.ok(providers.includes("openai-responses"), `${providers}`);
    const aisdk = scratchFile("aisdk-chain.json", [
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "text", text: "hello" }] },
    ]);
    for (const provider of providers) {
      const r = run("validate", aisdk, "--format", "aisdk", "--provider", provider);
      assert.equal(r.code, 0, `--provider ${provider}: ${r.stderr}`);
      assert.match(r.stdout, new RegExp(`valid for ${provider}$`, "m"));
    }
    const bad = run("validate", aisdk, "--provider", "cohere");
    assert.equal(bad.code, 2);
    assert.ok(bad.stderr.includes(`--provider must be one of ${providers.join(", ")}`), bad.stderr);
    assert.ok(run("--help").stdout.includes(`--provider ${providers.join("|")}`));
  });
});

describe("contextfold compact reporting", () => {
  it("--report json prints the report alone; --progress draws on stderr", () => {
    const r = run(
      "compact",
      join(root, "examples/demo-session.openai.json"),
      "--max-tokens",
      "8000",
      "--report",
      "json",
      "--progress",
    );
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(out), ["changed", "format", "report"]);
    assert.match(r.stderr, /done: \d+ calls in \d+ wave\(s\)/);
    // Not a terminal and not asked for: no progress output.
    const quiet = run("compact", join(root, "examples/demo-session.openai.json"), "--report", "json");
    assert.equal(quiet.stderr, "");
    assert.equal(run("compact", join(root, "examples/demo-session.openai.json"), "--report", "yaml").code, 2);
  });
});

describe("contextfold convert", () => {
  it("writes another provider's shape that validates there, and lists what changed", () => {
    const out = join(scratch, "demo.anthropic.json");
    const r = run("convert", sampleOpenaiFile(), "--to", "anthropic", "--out", out);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^openai -> anthropic: wrote /);
    const valid = run("validate", out, "--json");
    assert.equal(valid.code, 0, valid.stdout);
    const back = run("convert", out, "--to", "gemini", "--json");
    assert.equal(back.code, 0, back.stderr);
    const result = JSON.parse(back.stdout);
    assert.deepEqual([result.from, result.to], ["anthropic", "gemini"]);
    assert.ok(Array.isArray(result.messages.contents), "Gemini contents");
    assert.equal(run("convert", out).code, 2, "--to is required");
    assert.equal(run("convert", out, "--to", "cohere").code, 2);
  });

  // To stdout, a dropped orphan result was listed nowhere (only --out and --json listed it).
  const orphan = [
    { role: "user", content: "hi" },
    { role: "tool", tool_call_id: "call_1", content: "the deploy log: 3 errors" },
    { role: "assistant", content: "ok" },
  ];

  it("to stdout, writes the messages alone there and lists what had to change on stderr", () => {
    const r = run("convert", scratchFile("orphan-result.json", orphan), "--to", "anthropic");
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).length, 2, "the orphan result is dropped");
    assert.match(r.stderr, /^openai -> anthropic: written to stdout; 1 change\(s\)$/m);
    assert.match(r.stderr, /^ {2}repaired: droppedOrphanResult x1: \[1\]$/m);
    const same = run("convert", scratchFile("plain.json", orphan.slice(0, 1)), "--to", "openai");
    assert.equal(same.code, 0, same.stderr);
    assert.equal(same.stderr, "", "nothing to list, nothing on stderr");
  });

  it("compact's table lists the provider repairs", () => {
    const r = run("compact", scratchFile("orphan-result.json", orphan));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^provider repairs: 1$/m);
    assert.match(r.stdout, /^ {2}droppedOrphanResult x1: \[1\]$/m);
  });
});

describe("contextfold compact --summarizer openai-compatible", () => {
  it("calls the endpoint with the key from the environment, never from argv", async () => {
    const { createServer } = await import("node:http");
    const seen = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        seen.push({ url: req.url, auth: req.headers.authorization, body: JSON.parse(body) });
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({ choices: [{ message: { role: "assistant", content: "Summary from the mock model." } }] }),
        );
      });
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    const baseURL = `http://127.0.0.1:${server.address().port}/v1`;
    try {
      const { spawn } = await import("node:child_process");
      const child = spawn(
        process.execPath,
        [
          cli,
          "compact",
          join(root, "examples/demo-session.openai.json"),
          "--max-tokens",
          "8000",
          "--summarizer",
          "openai-compatible",
          "--base-url",
          baseURL,
          "--model",
          "mock-1",
          "--report",
          "json",
        ],
        { env: { ...process.env, CONTEXTFOLD_API_KEY: "sk-test-123" } },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (c) => (stdout += c));
      child.stderr.on("data", (c) => (stderr += c));
      const code = await new Promise((resolve) => child.on("close", resolve));
      assert.equal(code, 0, stderr);
      const report = JSON.parse(stdout).report;
      assert.ok(report.calls > 0 && report.calls === seen.length, `${report.calls} calls, ${seen.length} seen`);
      assert.ok(
        seen.every(
          (s) => s.url === "/v1/chat/completions" && s.auth === "Bearer sk-test-123" && s.body.model === "mock-1",
        ),
      );
      assert.deepEqual(
        seen[0].body.messages.map((m) => m.role),
        ["system", "user"],
      );
      // An empty CONTEXTFOLD_API_KEY (`export CONTEXTFOLD_API_KEY=`) is no key: it hid OPENAI_API_KEY.
      seen.length = 0;
      const fallback = await runAsync(
        ["compact", join(root, "examples/demo-session.openai.json"), "--max-tokens", "8000"].concat(
          ["--summarizer", "openai-compatible"],
          ["--base-url", baseURL, "--model", "mock-1"],
        ),
        { CONTEXTFOLD_API_KEY: "", OPENAI_API_KEY: "sk-openai-456" },
      );
      assert.equal(fallback.code, 0, fallback.stderr);
      assert.ok(seen.length > 0 && seen.every((s) => s.auth === "Bearer sk-openai-456"));
    } finally {
      server.close();
    }
    const missing = run(
      "compact",
      join(root, "examples/demo-session.openai.json"),
      "--summarizer",
      "openai-compatible",
    );
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /needs --base-url and --model/);
  });
});

// A summarizer that fails rolled the compaction back, but the command exited 0, wrote the
// original chain to --out and told only `errors: 1 (rolled back: true)`.
const demoSession = join(root, "examples/demo-session.openai.json");
const KEY = "sk-cli-secret-4b1e9d";
/** `compact` of the demo session with the OpenAI-compatible summarizer at `server`. */
const compactWith = (server, out, ...more) =>
  runAsync(
    [
      "compact",
      demoSession,
      "--max-tokens",
      "8000",
      "--summarizer",
      "openai-compatible",
      "--base-url",
      server.baseURL,
      "--model",
      "mock-1",
      "--out",
      out,
      ...more,
    ],
    { CONTEXTFOLD_API_KEY: KEY },
  );

describe("contextfold compact when the summarizer fails", () => {
  it("exits 1 with each error on stderr (no key), writes no --out, and says the work was rolled back", async () => {
    // A 401 whose body echoes the key, as some gateways do.
    const server = await mockEndpoint((req, res) => {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } }));
    });
    try {
      const out = join(scratch, "rolled-back.json");
      const r = await compactWith(server, out);
      assert.equal(r.code, 1, r.stderr);
      assert.ok(server.requests > 0);
      assert.match(r.stderr, /^error summarizer_failed: HTTP 401 .*Incorrect API key provided: \[redacted\]/m);
      assert.match(r.stderr, /summary call\(s\) failed; the compaction rolled back/);
      assert.ok(!r.stderr.includes(KEY) && !r.stdout.includes(KEY));
      assert.equal(existsSync(out), false, "the original chain is not written as if compacted");
      assert.match(r.stdout, /^rolled back: the result is the original chain/m);
      for (const line of r.stdout.split("\n").filter((l) => /^ {2}section \d/.test(l))) {
        assert.match(line, /^ {2}section \d+ \(rolled back\): /);
      }
      // The same for scripts: the report on stdout, the errors on stderr, exit 1.
      const json = await compactWith(server, out, "--report", "json");
      assert.equal(json.code, 1, json.stderr);
      assert.equal(JSON.parse(json.stdout).report.rolledBack, true);
      assert.match(json.stderr, /^error summarizer_failed: HTTP 401/m);
      // `budget` rejects instead of rolling back: exit 1 all the same, not 2 (bad input).
      const budget = await compactWith(server, out, "--strategy", "budget");
      assert.equal(budget.code, 1, budget.stderr);
      assert.match(budget.stderr, /^error summarizer_failed at options\.summarizer: .*HTTP 401/m);
      assert.ok(!budget.stderr.includes(KEY) && !budget.stdout.includes(KEY));
      assert.equal(existsSync(out), false);
    } finally {
      server.close();
    }
  });

  it("exits 1 on an HTML page, an empty answer, or a refused connection", async () => {
    let answer;
    const server = await mockEndpoint((req, res) => answer(res));
    try {
      const out = join(scratch, "never.json");
      answer = (res) => {
        res.writeHead(200, { "content-type": "text/html" });
        res.end("<html><body>Welcome to nginx!</body></html>");
      };
      const html = await compactWith(server, out);
      assert.equal(html.code, 1, html.stderr);
      assert.match(html.stderr, /^error summarizer_failed: .*not JSON: <html>/m);
      answer = (res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ choices: [{ message: { role: "assistant", content: "" } }] }));
      };
      const empty = await compactWith(server, out);
      assert.equal(empty.code, 1, empty.stderr);
      assert.match(empty.stderr, /^error summarizer_failed: .*empty summary/m);
      assert.equal(existsSync(out), false);
    } finally {
      server.close();
    }
    // The port is closed now: every call is refused (retried, then failed).
    const refused = await compactWith(server, join(scratch, "never.json"));
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /^error summarizer_failed: network error calling /m);
  });
});

// `--model o3-mini` sent `max_tokens`, which OpenAI rejects for its reasoning models: every
// summary call failed and the compaction always rolled back.
describe("contextfold compact --max-tokens-field", () => {
  it("sends max_completion_tokens for OpenAI reasoning models, max_tokens elsewhere, or the field given", async () => {
    const { createServer } = await import("node:http");
    const fields = [];
    // OpenAI's rule for its reasoning models: `max_tokens` is a 400.
    const server = createServer((req, res) => {
      let text = "";
      req.on("data", (c) => (text += c));
      req.on("end", () => {
        const body = JSON.parse(text);
        fields.push(Object.keys(body).filter((k) => /max/.test(k)));
        const refused = /^o\d|gpt-5/.test(body.model) && "max_tokens" in body;
        res.writeHead(refused ? 400 : 200, { "content-type": "application/json" });
        const summary = { choices: [{ message: { role: "assistant", content: "## Current state\n- ok" } }] };
        res.end(JSON.stringify(refused ? { error: { message: "Unsupported parameter: 'max_tokens'" } } : summary));
      });
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    const baseURL = `http://127.0.0.1:${server.address().port}/v1`;
    const summarize = async (model, ...more) => {
      fields.length = 0;
      const args = ["compact", demoSession, "--max-tokens", "8000", "--summarizer", "openai-compatible"];
      const r = await runAsync([...args, "--base-url", baseURL, "--model", model, ...more], {
        CONTEXTFOLD_API_KEY: KEY,
      });
      return { ...r, fields: [...new Set(fields.flat())] };
    };
    try {
      for (const model of ["o3-mini", "gpt-5", "openai/o4-mini"]) {
        const r = await summarize(model);
        assert.equal(r.code, 0, `${model}: ${r.stderr}`);
        assert.deepEqual(r.fields, ["max_completion_tokens"], model);
        assert.match(r.stdout, /summarizer: openai-compatible .* \(max_completion_tokens\)/);
      }
      const local = await summarize("llama3.1");
      assert.equal(local.code, 0, local.stderr);
      assert.deepEqual(local.fields, ["max_tokens"]);
      const given = await summarize("llama3.1", "--max-tokens-field", "max_completion_tokens");
      assert.equal(given.code, 0, given.stderr);
      assert.deepEqual(given.fields, ["max_completion_tokens"]);
      const forced = await summarize("o3-mini", "--max-tokens-field", "max_tokens");
      assert.equal(forced.code, 1, "the field given is sent, and refused");
      assert.deepEqual(forced.fields, ["max_tokens"]);
    } finally {
      server.close();
    }
    const bad = run(
      "compact",
      demoSession,
      "--summarizer",
      "openai-compatible",
      "--base-url",
      baseURL,
      "--model",
      "m",
      "--max-tokens-field",
      "max tokens",
    );
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^error usage: --max-tokens-field must be a field name/m);
    const offline = run("compact", demoSession, "--max-tokens-field", "max_tokens");
    assert.equal(offline.code, 2);
    assert.match(offline.stderr, /^error usage: --max-tokens-field needs --summarizer openai-compatible/m);
  });
});

// Ordinary bad input ended as `error internal: TypeError ...` with a stack trace, or after
// all the work (an --out in a missing directory).
describe("contextfold bad input is a usage or input error (exit 2, no stack trace)", () => {
  const demo = join(root, "examples/demo-session.openai.json");
  const noStack = (r) => assert.doesNotMatch(r.stderr, /error internal|\n\s+at /, r.stderr);

  it("--base-url that is not an http(s) URL", () => {
    for (const url of ["notaurl", "localhost:11434/v1"]) {
      const r = run("compact", demo, "--summarizer", "openai-compatible", "--base-url", url, "--model", "m");
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /^error usage: --base-url must be an http\(s\) URL/m);
      noStack(r);
    }
  });

  // fetch refuses such a URL: every call failed, and the password was printed on stdout
  // (the report's summarizer line) and stderr (fetch's error).
  it("--base-url with credentials is invalid_option, and the password is never printed", async () => {
    const server = await mockEndpoint((req, res) => res.end("{}"));
    try {
      const withPassword = server.baseURL.replace("http://", "http://user:S3cretPassw0rd@");
      for (const url of [withPassword, "ftp://user:S3cretPassw0rd@host/v1", "user:S3cretPassw0rd@host"]) {
        const r = run("compact", demo, "--summarizer", "openai-compatible", "--base-url", url, "--model", "m");
        assert.equal(r.code, 2, r.stderr);
        assert.ok(!`${r.stdout}${r.stderr}`.includes("S3cretPassw0rd"), r.stderr);
        noStack(r);
      }
      const r = run("compact", demo, "--summarizer", "openai-compatible", "--base-url", withPassword, "--model", "m");
      assert.match(r.stderr, /^error invalid_option at --base-url: --base-url must not hold credentials/m);
      assert.equal(server.requests, 0);
    } finally {
      server.close();
    }
  });

  it("an --out that cannot be written is found before any summary call", async () => {
    const server = await mockEndpoint((req, res) => res.end("{}"));
    try {
      const out = join(scratch, "no-such-dir", "out.json");
      const r = await compactWith(server, out);
      assert.equal(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        /^error write_failed: cannot write .*out\.json: the directory .*no-such-dir does not exist$/m,
      );
      noStack(r);
      assert.equal(server.requests, 0, "no summary call was made");
    } finally {
      server.close();
    }
    const intoDirectory = run("compact", demo, "--out", scratch);
    assert.equal(intoDirectory.code, 2);
    assert.match(intoDirectory.stderr, /^error write_failed: cannot write .*: it is a directory$/m);
    const convert = run("convert", demo, "--to", "anthropic", "--out", join(scratch, "no-such-dir", "x.json"));
    assert.equal(convert.code, 2);
    assert.match(convert.stderr, /^error write_failed: /m);
    noStack(convert);
  });

  it("--json together with --report json", () => {
    const r = run("compact", demo, "--json", "--report", "json");
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^error usage: --json and --report json are alternatives/m);
  });
});
