// The package bundled as users bundle it. `npm pack`s pkg/ once, installs the tarball into
// one consumer project (a copy of consumer/, with Next.js and React installed beside it),
// builds that project with each real bundler and runs the result where it is meant to
// run: Node, headless Chromium, workerd, a Next.js server. Each run does what
// consumer/demo.js does: calls before `init()` (not_initialized on the browser entry),
// then compactions by the built-in summarizer, by an HTTP summarizer adapter, by an AI SDK
// model (`ai` installed and bundled as the app's own) and by the middleware, through the
// main entry, `contextfold/worker`, `contextfold/summarizers` and `.../summarizers/ai-sdk`.
// esbuild, webpack, Vite and wrangler run from the repository's node_modules (a bundler
// resolves the consumer's imports from the consumer's files); Next.js must sit in the
// project, so it is installed there from npm's cache.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, sep } from "node:path";
import { after, before, describe, it } from "node:test";
import { chromiumArgs, chromiumPath } from "../browser/runner.mjs";
import { root } from "../node/helpers.mjs";
import { cleanEnv, installInto, pack, run } from "../shared/pack.mjs";
import { CHROMIUM_HOW, missing } from "../shared/requirements.mjs";

const scratch = mkdtempSync(join(tmpdir(), "contextfold-bundlers-"));
const project = join(scratch, "consumer");
const bin = (name) => join(root, "node_modules/.bin", name);
const devVersion = (name) =>
  `${name}@${JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies[name]}`;
const haveChromium = existsSync(chromiumPath);
// Outside CI the browser consumers skip with a notice; under CI=true a missing Chromium fails here.
const noChromium = haveChromium ? null : missing(`Chromium (${chromiumPath})`, CHROMIUM_HOW);

let browser;
after(async () => {
  await browser?.close();
  rmSync(scratch, { recursive: true, force: true });
});

before(() => {
  const { tarball } = pack(scratch);
  installInto(project, "consumer", tarball, ["next", "react", "react-dom", "ai"].map(devVersion));
  cpSync(join(root, "tests/bundlers/consumer"), project, { recursive: true });
});

/** Asserts what consumer/demo.js reports; `initRequired`: the entry needs `init()` first. */
function assertRan(result, { initRequired, hint = /call `await init\(\)` first/ }) {
  for (const [name, failure] of Object.entries(result.beforeInit)) {
    if (initRequired) {
      assert.match(failure ?? "no error", /^ContextfoldError\/not_initialized: /, `${name} before init()`);
      assert.match(failure, hint, `${name} before init(): the message says what to do`);
    } else {
      assert.equal(failure, null, `${name} works on import, before init()`);
    }
  }
  assert.equal(result.input, 26);
  assert.ok(result.tokens > 0, "estimateTokens counts");
  const { extractive, adapted, middleware } = result;
  assert.ok(extractive.calls > 0, "the built-in summarizer was called");
  assert.ok(extractive.output < result.input, `fewer messages: ${extractive.output} < ${result.input}`);
  assert.equal(extractive.errors, 0);
  assert.equal(extractive.problems, 0, "the output is a valid OpenAI chain");
  assert.ok(adapted.calls > 0 && adapted.output < result.input, "the adapter summarized");
  assert.equal(adapted.summaries, adapted.calls, "each summary from the adapter's endpoint is in the output");
  // `aiSdk` of contextfold/summarizers/ai-sdk: `generateText` of the bundled `ai`.
  assert.deepEqual(result.aiSdk.errors, [], "the AI SDK summarizer's calls succeeded");
  assert.ok(
    result.aiSdk.calls > 0 && result.aiSdk.summaries === result.aiSdk.calls,
    "each AI SDK summary is in the output",
  );
  assert.equal(middleware.status, 200);
  assert.equal(middleware.error, null, "no x-contextfold-error");
  assert.ok(middleware.output < result.input, "the middleware forwarded fewer messages");
  assert.equal(middleware.problems, 0);
  assert.equal(result.history, 3);
}

/** Asserts what consumer/plain.js reports: the main entry alone, ready on import, compacted. */
function assertPlain(result) {
  assert.ok(result.calls > 0, "the built-in summarizer was called");
  assert.ok(result.output < result.input, `fewer messages: ${result.output} < ${result.input}`);
}

/** Runs a Node script and parses the JSON line it prints. */
function runNode(script, cwd = project) {
  return JSON.parse(run(process.execPath, [script], cwd));
}

const types = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".wasm": "application/wasm",
};

/** Serves `dir` on 127.0.0.1 (a free port); resolves to { origin, requests, close }. */
async function serve(dir) {
  const requests = [];
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://localhost").pathname);
    requests.push(path);
    const file = join(dir, path.endsWith("/") ? `${path}index.html` : path);
    if (!file.startsWith(dir + sep) || !existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
    res.end(await readFile(file));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((r) => server.close(r)),
  };
}

/** Loads `url` in headless Chromium; resolves to the page's report and its console. */
async function runPage(url) {
  const { chromium } = await import("playwright-core");
  browser ??= await chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs });
  const page = await browser.newPage();
  const log = [];
  page.on("console", (m) => log.push(`console.${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => log.push(`pageerror: ${e.message}`));
  page.on("requestfailed", (r) => log.push(`requestfailed: ${r.url()}`));
  try {
    await page.goto(url);
    await page
      .waitForFunction(() => window.contextfoldResult !== undefined, null, { timeout: 60_000 })
      .catch((e) => {
        throw new Error(`${url} did not report: ${e.message}\n${log.join("\n")}`);
      });
    const outcome = await page.evaluate(() => window.contextfoldResult);
    assert.equal(outcome.error, undefined, `${url} failed: ${outcome.error}\n${log.join("\n")}`);
    return { result: outcome.result, log };
  } finally {
    await page.close();
  }
}

/** Serves a built browser bundle (with `page` as its index.html when given) and runs `path` of it. */
async function runBundleInChromium(dir, page, path = "/") {
  if (page) writeFileSync(join(dir, "index.html"), page);
  const server = await serve(dir);
  try {
    const { result, log } = await runPage(`${server.origin}${path}`);
    assert.ok(
      server.requests.some((p) => p.endsWith(".wasm")),
      `the page fetched the emitted .wasm: ${server.requests.join(", ")}`,
    );
    assert.deepEqual(
      log.filter((l) => l.startsWith("pageerror") || l.startsWith("requestfailed")),
      [],
    );
    return result;
  } finally {
    await server.close();
  }
}

const scriptPage = (src, type = "module") =>
  `<!doctype html><meta charset="utf-8"><script type="${type}" src="${src}"></script>`;

describe("types", () => {
  it('`import wasm from "contextfold/wasm"` type-checks under moduleResolution bundler', () => {
    const tsc = join(root, "node_modules/typescript/bin/tsc");
    run(process.execPath, [tsc, "-p", "tsconfig.wasm.json"], project); // not tsconfig.json: Next.js would adopt it
  });
});

const esbuild = (entry, args) => run(bin("esbuild"), [entry, "--bundle", "--log-level=warning", ...args], project);

describe("esbuild", () => {
  it("Node ESM bundle (--platform=node --format=esm) compacts", () => {
    // `ai` stays external: its CommonJS dependencies require() Node built-ins, which an
    // esbuild ESM bundle cannot (an `ai` matter, not this package's); it is imported from
    // the project's node_modules at run time, as apps keep their packages.
    const options = ["--platform=node", "--target=node20", "--format=esm", "--external:ai"];
    esbuild("node-entry.js", [...options, "--outfile=dist/esbuild-esm/main.mjs"]);
    assertRan(runNode("dist/esbuild-esm/main.mjs"), { initRequired: false });
    esbuild("plain-node-entry.js", [...options, "--outfile=dist/esbuild-esm/plain.mjs"]);
    assertPlain(runNode("dist/esbuild-esm/plain.mjs"));
  });

  it("Node CJS bundle (--format=cjs, no import.meta.url) compacts", () => {
    const options = ["--platform=node", "--target=node20", "--format=cjs"];
    esbuild("node-entry.js", [...options, "--outfile=dist/esbuild-cjs/main.cjs"]);
    assertRan(runNode("dist/esbuild-cjs/main.cjs"), { initRequired: false });
    esbuild("plain-node-entry.js", [...options, "--outfile=dist/esbuild-cjs/plain.cjs"]);
    assertPlain(runNode("dist/esbuild-cjs/plain.cjs"));
  });

  it("a self-contained Node bundle (--loader:.wasm=binary) runs away from node_modules", () => {
    const options = ["--platform=node", "--target=node20", "--format=cjs", "--loader:.wasm=binary"];
    esbuild("node-standalone-entry.js", [...options, "--outfile=dist/standalone/main.cjs"]);
    // Copied where no node_modules/contextfold is reachable: the entry cannot find the
    // .wasm on disk, says so, and takes the bytes the bundle carries.
    const away = join(scratch, "standalone");
    mkdirSync(away);
    cpSync(join(project, "dist/standalone/main.cjs"), join(away, "main.cjs"));
    assert.deepEqual(readdirSync(away), ["main.cjs"]);
    assertRan(runNode(join(away, "main.cjs"), away), {
      initRequired: true,
      hint: /\.wasm was not found .* call `await init\(\{ module_or_path \}\)` first/,
    });
  });

  it("browser bundle (--loader:.wasm=file, the URL passed to init) compacts in Chromium", async (t) => {
    if (!haveChromium) return t.skip(noChromium);
    const options = ["--format=esm", "--platform=browser", "--loader:.wasm=file"];
    esbuild("browser-esbuild-entry.js", [...options, "--outfile=dist/esbuild-web/main.js"]);
    const result = await runBundleInChromium(join(project, "dist/esbuild-web"), scriptPage("main.js"));
    assertRan(result, { initRequired: true });
  });
});

describe("webpack 5", () => {
  before(() => run(bin("webpack"), ["--config", "webpack.config.js"], project));

  it("--target web compacts in Chromium", async (t) => {
    if (!haveChromium) return t.skip(noChromium);
    const result = await runBundleInChromium(
      join(project, "dist/webpack-web"),
      scriptPage("main.js", "text/javascript"),
    );
    assertRan(result, { initRequired: true });
  });

  it('`import wasm from "contextfold/wasm"` is the emitted .wasm\'s URL, which init takes (Chromium)', async (t) => {
    if (!haveChromium) return t.skip(noChromium);
    const result = await runBundleInChromium(
      join(project, "dist/webpack-web-wasm"),
      scriptPage("main.js", "text/javascript"),
    );
    assertPlain(result);
  });

  it("--target node compacts, also copied away from node_modules (the .wasm is emitted beside it)", () => {
    assertRan(runNode("dist/webpack-node/main.cjs"), { initRequired: false });
    const away = join(scratch, "webpack-node");
    cpSync(join(project, "dist/webpack-node"), away, { recursive: true });
    assertRan(runNode(join(away, "main.cjs"), away), { initRequired: false });
    assertPlain(runNode("dist/webpack-node-plain/main.cjs"));
  });
});

describe("Vite", () => {
  it("a production build compacts in Chromium", async (t) => {
    run(bin("vite"), ["build", "--logLevel", "warn"], project);
    const assets = readdirSync(join(project, "dist/vite/assets"));
    assert.ok(
      assets.some((f) => f.endsWith(".wasm")),
      `Vite emitted the .wasm: ${assets}`,
    );
    if (!haveChromium) return t.skip(noChromium);
    assertRan(await runBundleInChromium(join(project, "dist/vite")), { initRequired: true });
    // The second page: `import wasmUrl from "contextfold/wasm?url"`, handed to init.
    assertPlain(await runBundleInChromium(join(project, "dist/vite"), undefined, "/wasm-url.html"));
  });
});

describe("wrangler", () => {
  const env = { WRANGLER_SEND_METRICS: "false", WRANGLER_LOG_PATH: join(scratch, "wrangler-logs"), CI: "1" };

  /** `wrangler deploy --dry-run --outdir` of `script` (the configured main by default), run in workerd. */
  async function buildAndFetch(outdir, script = []) {
    run(bin("wrangler"), ["deploy", ...script, "--dry-run", "--outdir", outdir], project, env);
    const outDir = join(project, outdir);
    const files = readdirSync(outDir);
    assert.equal(files.filter((f) => f.endsWith(".wasm")).length, 1, `wrangler kept the .wasm as a module: ${files}`);
    const main = files.find((f) => f.endsWith(".js"));
    const { Log, LogLevel, Miniflare } = await import("miniflare");
    const miniflare = new Miniflare({
      modules: true,
      scriptPath: join(outDir, main),
      modulesRoot: outDir,
      modulesRules: [
        { type: "ESModule", include: ["**/*.js"] },
        { type: "CompiledWasm", include: ["**/*.wasm"] },
      ],
      compatibilityDate: "2026-04-01",
      cf: false,
      log: new Log(LogLevel.WARN),
    });
    try {
      const response = await miniflare.dispatchFetch("http://localhost/");
      const text = await response.text();
      assert.equal(response.status, 200, text);
      return JSON.parse(text);
    } finally {
      await miniflare.dispose();
    }
  }

  it("`wrangler deploy --dry-run` builds a Worker that compacts in workerd", async () => {
    const result = await buildAndFetch("dist/wrangler");
    assert.equal(result.userAgent, "Cloudflare-Workers", "it ran in workerd");
    assertRan(result, { initRequired: false });
  });

  it("a Worker importing the main entry alone compacts in workerd", async () => {
    assertPlain(await buildAndFetch("dist/wrangler-plain", ["plain-worker-entry.js"]));
  });

  it("a Worker importing `contextfold/wasm` gets the compiled module and compacts in workerd", async () => {
    const result = await buildAndFetch("dist/wrangler-wasm", ["wasm-worker-entry.js"]);
    assert.equal(result.module, "[object WebAssembly.Module]");
    assertPlain(result);
  });
});

describe("Next.js", () => {
  const env = { NEXT_TELEMETRY_DISABLED: "1" };
  let server; // { origin, child }
  before(async () => {
    run(process.execPath, [join(project, "node_modules/next/dist/bin/next"), "build"], project, env);
    server = await nextStart(env);
  });
  after(() => server?.child.kill());

  it("a route handler compacts on the server (`next build`, `next start`)", async () => {
    const response = await fetch(`${server.origin}/api/compact`);
    const text = await response.text();
    assert.equal(response.status, 200, text);
    assertRan(JSON.parse(text), { initRequired: false });
    const plain = await fetch(`${server.origin}/api/plain`);
    const plainText = await plain.text();
    assert.equal(plain.status, 200, plainText);
    assertPlain(JSON.parse(plainText));
  });

  it("the README's route handler recipe (app/api/chat/route.js, verbatim) compacts a posted chat", async () => {
    const recipe = readFileSync(join(root, "tests/bundlers/consumer/app/api/chat/route.js"), "utf8");
    const readme = readFileSync(join(root, "README.md"), "utf8");
    assert.ok(
      readme.includes(`\`\`\`javascript\n${recipe}\`\`\``),
      "README's Next.js recipe is not app/api/chat/route.js",
    );
    const { chain } = await import(join(root, "tests/bundlers/consumer/chain.js"));
    const messages = chain();
    const response = await fetch(`${server.origin}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages }),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    const { messages: compacted, tokens } = JSON.parse(text);
    assert.ok(tokens[1] < tokens[0] && tokens[1] <= 2000, `${tokens}`);
    assert.ok(compacted.length < messages.length);
    assert.deepEqual(compacted.at(-1), messages.at(-1), "the latest message is kept as it came");
  });

  it('a route handler on the edge runtime (`runtime = "edge"`) compacts, ready on import', async () => {
    const response = await fetch(`${server.origin}/api/edge`);
    const text = await response.text();
    assert.equal(response.status, 200, text);
    assertRan(JSON.parse(text), { initRequired: false });
    const wasm = await fetch(`${server.origin}/api/edge-wasm`);
    const wasmText = await wasm.text();
    assert.equal(wasm.status, 200, wasmText);
    const result = JSON.parse(wasmText);
    assert.equal(result.module, "[object WebAssembly.Module]", '"contextfold/wasm" on the edge runtime');
    assertPlain(result);
  });

  it("a client page compacts in Chromium", async (t) => {
    if (!haveChromium) return t.skip(noChromium);
    const { result } = await runPage(`${server.origin}/`);
    assertRan(result, { initRequired: true });
  });
});

/** `next start` on 127.0.0.1 and a free port; resolves once it answers. */
async function nextStart(env) {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  const next = join(project, "node_modules/next/dist/bin/next");
  const child = spawn(process.execPath, [next, "start", "-H", "127.0.0.1", "-p", String(port)], {
    cwd: project,
    env: { ...cleanEnv, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const origin = `http://127.0.0.1:${port}`;
  for (let waited = 0; waited < 30_000; waited += 200) {
    if (child.exitCode !== null) throw new Error(`next start exited:\n${output}`);
    if (/Ready in/.test(output)) return { origin, child };
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error(`next start did not get ready:\n${output}`);
}
