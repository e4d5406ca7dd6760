// The playground (www/) in real headless Chromium (Debian's /usr/bin/chromium driven by npm
// playwright-core, launched as tests/browser/runner.mjs does). Builds the site with
// scripts/build-www.mjs, serves www/dist with `vite preview` on 127.0.0.1 (the config's
// plugin also serves ../shared/fixtures/real when it exists), and drives the page as a
// person would: load the demo or a real transcript, paste AI SDK UIMessages, compact, read
// the totals and the output, cancel mid-run, paste bad JSON. An OpenAI-compatible endpoint is mocked on 127.0.0.1; nothing else is
// contacted. Screenshots: test-artifacts/playground.png (every run) and docs/playground.png
// (written when missing, or with CONTEXTFOLD_UPDATE_SCREENSHOT=1).
//
// Needs the built wasm package (node scripts/build-wasm.mjs). Skipped, with a notice, when
// /usr/bin/chromium is missing (scripts/setup.sh installs it).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { convert, formats, parseChain, validateChain } from "contextfold";
import {
  CHROMIUM_HOW,
  REAL_FIXTURES,
  REAL_FIXTURES_HOW,
  missing,
  realFixturesPath,
  skipMissing,
} from "../shared/requirements.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const chromiumPath = process.env.CONTEXTFOLD_CHROMIUM ?? "/usr/bin/chromium";
const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const fixturesDir = realFixturesPath();
const demo = JSON.parse(readFileSync(join(root, "examples/demo-session.openai.json"), "utf8"));
/** The real transcript the compaction test loads: the long coding-agent session, in Anthropic shape. */
const realTranscript = "claude_code_opus46_precompact.anthropic.json";
const skip = existsSync(chromiumPath) ? false : missing(`Chromium (${chromiumPath})`, CHROMIUM_HOW);
const finished = ["done", "cancelled", "rolledBack", "error"];

/**
 * A loopback OpenAI-compatible endpoint: `/v1/chat/completions` answers a short summary
 * after `delayMs`; `/hang/v1/chat/completions` never answers (and records when the page
 * drops the request). CORS is open, as a real endpoint used from a page must be.
 */
async function startMockEndpoint({ delayMs = 40 } = {}) {
  const requests = [];
  const dropped = [];
  const server = createServer((req, res) => {
    res.setHeader("access-control-allow-origin", "*");
    res.setHeader("access-control-allow-headers", "authorization, content-type");
    res.setHeader("access-control-allow-methods", "POST, OPTIONS");
    if (req.method === "OPTIONS") return res.writeHead(204).end();
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const request = { path: req.url, authorization: req.headers.authorization, body: JSON.parse(body) };
      requests.push(request);
      if (req.url.startsWith("/hang/")) {
        res.on("close", () => dropped.push(request));
        return;
      }
      if (req.url.startsWith("/unauthorized/")) {
        // As api.openai.com answers a bad key: a 401 whose message quotes it.
        const key = (req.headers.authorization ?? "").replace(/^Bearer /, "");
        res.writeHead(401, { "content-type": "application/json" });
        return res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${key}.` } }));
      }
      if (req.url.startsWith("/length/")) {
        // An answer cut at the output limit: half a summary.
        const message = { role: "assistant", content: "## User requests\n- fix the dat" };
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify({ choices: [{ index: 0, message, finish_reason: "length" }] }));
      }
      setTimeout(() => {
        const content = `Summary ${requests.length}: the user asked to fix the failing test in src/ledger.ts; it was fixed.`;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            id: "mock",
            object: "chat.completion",
            choices: [{ index: 0, message: { role: "assistant", content } }],
          }),
        );
      }, delayMs);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    requests,
    dropped,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

async function waitUntil(predicate, what, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("playground (www/) in headless Chromium", { skip }, () => {
  let site;
  let browser;
  let mock;
  /** Console errors, page errors, failed requests and non-loopback requests of every page. */
  const problems = [];

  before(async () => {
    assert.ok(
      existsSync(join(root, "pkg/glue/contextfold_wasm_bg.wasm")),
      "pkg/glue is not built: run `node scripts/build-wasm.mjs` first",
    );
    const built = spawnSync(process.execPath, [join(root, "scripts/build-www.mjs")], { cwd: root, encoding: "utf8" });
    assert.equal(built.status, 0, `scripts/build-www.mjs failed:\n${built.stdout}${built.stderr}`);
    const { preview } = await import("vite");
    site = await preview({
      configFile: join(root, "www/vite.config.ts"),
      root: join(root, "www"),
      logLevel: "warn",
      preview: { host: "127.0.0.1", port: 0, open: false },
    });
    mock = await startMockEndpoint();
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: chromiumArgs,
      timeout: 30_000,
    });
  });

  after(async () => {
    await browser?.close();
    await mock?.close();
    await site?.close();
  });

  /** A fresh page on the playground, once the wasm is initialized and the sources listed. */
  async function openPage() {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // The 401s of the /unauthorized/ endpoint are on purpose (Chromium logs each one).
    const onPurpose = (url) => url.includes("/unauthorized/");
    page.on(
      "console",
      (m) =>
        ["error", "warning"].includes(m.type()) &&
        !onPurpose(m.location().url) &&
        problems.push(`console.${m.type()}: ${m.text()}`),
    );
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("request", (r) => {
      const url = new URL(r.url());
      if (!["data:", "blob:"].includes(url.protocol) && url.hostname !== "127.0.0.1") {
        problems.push(`request to ${r.url()}`);
      }
    });
    page.on("requestfailed", (r) => {
      // The cancel test drops its hanging request on purpose.
      if (!r.url().includes("/hang/")) problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`);
    });
    page.on(
      "response",
      (r) => r.status() >= 400 && !onPurpose(r.url()) && problems.push(`http ${r.status()}: ${r.url()}`),
    );
    await page.goto(site.resolvedUrls.local[0]);
    await page.waitForSelector("body[data-ready]", { timeout: 15_000 });
    return page;
  }

  async function loadDemo(page) {
    await page.selectOption("#source", "demo");
    await page.click("#load");
    await page.waitForFunction(() => document.querySelector("#input-info").dataset.format === "openai");
  }

  async function runToEnd(page) {
    await page.click("#run");
    await page.waitForFunction((states) => states.includes(document.querySelector("#status").dataset.state), finished, {
      timeout: 20_000,
    });
    return page.$eval("#status", (el) => el.dataset.state);
  }

  async function totals(page) {
    return page.$eval("#totals", (el) => ({
      beforeBytes: Number(el.dataset.beforeBytes),
      afterBytes: Number(el.dataset.afterBytes),
      beforeTokens: Number(el.dataset.beforeTokens),
      afterTokens: Number(el.dataset.afterTokens),
      calls: Number(el.dataset.calls),
      waves: Number(el.dataset.waves),
    }));
  }

  it("loads the wasm through the package's exports map and lists the demo and the real transcripts", async (t) => {
    const page = await openPage();
    try {
      const wasmResponses = [];
      page.on("response", (r) => r.url().endsWith(".wasm") && wasmResponses.push(r));
      await page.reload();
      await page.waitForSelector("body[data-ready]");
      assert.equal(wasmResponses.length, 1, "init() fetched the bundled .wasm once");
      assert.equal(wasmResponses[0].headers()["content-type"], "application/wasm");
      const sources = await page.$$eval("#source option", (options) => options.map((o) => o.value));
      const fixtures = existsSync(fixturesDir)
        ? readdirSync(fixturesDir)
            .filter((f) => f.endsWith(".json"))
            .sort()
        : [];
      assert.deepEqual(sources, ["demo", ...fixtures.map((f) => `fixture:${f}`)]);
      t.diagnostic(`${fixtures.length} real transcripts listed; ${await page.textContent("#wasm-status")}`);
      assert.ok(!existsSync(join(root, "www/dist/fixtures")), "the transcripts are never copied into dist/");
      // The format and provider menus are the package's formats() and their providers.
      const menu = (id) => page.$$eval(`#${id} option`, (options) => options.map((o) => o.value));
      const known = formats();
      assert.deepEqual(await menu("format"), ["auto", ...known.map((f) => f.name)]);
      assert.deepEqual(await menu("provider"), ["", ...new Set(known.map((f) => f.provider))]);
      for (const id of ["format", "provider"]) assert.ok((await menu(id)).includes("openai-responses"), id);
      if (fixtures.length > 0) {
        // A real transcript in the other format: loaded through the plugin, detected.
        const anthropic = fixtures.find((f) => f.includes("thinking_signatures")) ?? fixtures[0];
        await page.selectOption("#source", `fixture:${anthropic}`);
        await page.click("#load");
        await page.waitForFunction(() => document.querySelector("#input-info").dataset.format !== undefined);
        const expected = parseChain(readFileSync(join(fixturesDir, anthropic), "utf8"), { repair: true });
        assert.equal(await page.$eval("#input-info", (el) => el.dataset.format), expected.format);
        assert.equal(await page.$$eval("#chain-before .section", (s) => s.length), expected.outline.sections);
      }
    } finally {
      await page.close();
    }
  });

  it("without ../shared/fixtures/real beside the project, the list holds only the demo", async () => {
    const { preview } = await import("vite");
    const saved = process.env.CONTEXTFOLD_FIXTURES;
    process.env.CONTEXTFOLD_FIXTURES = join(root, "www/no-such-fixtures-dir");
    let bare;
    try {
      bare = await preview({
        configFile: join(root, "www/vite.config.ts"),
        root: join(root, "www"),
        logLevel: "warn",
        preview: { host: "127.0.0.1", port: 0, open: false },
      });
    } finally {
      if (saved === undefined) delete process.env.CONTEXTFOLD_FIXTURES;
      else process.env.CONTEXTFOLD_FIXTURES = saved;
    }
    const page = await browser.newPage();
    try {
      await page.goto(bare.resolvedUrls.local[0]);
      await page.waitForSelector("body[data-ready]", { timeout: 15_000 });
      assert.deepEqual(await page.$$eval("#source option", (options) => options.map((o) => o.value)), ["demo"]);
    } finally {
      await page.close();
      await bare.close();
    }
  });

  it("compacts the demo session: smaller, valid output, sections before and after, one bar per call", async () => {
    const page = await openPage();
    try {
      await loadDemo(page);
      const inputOutline = parseChain(demo).outline;
      assert.equal(await page.$$eval("#chain-before .section", (s) => s.length), inputOutline.sections);
      assert.equal(await page.$$eval("#chain-before .seg:not(.header)", (s) => s.length), inputOutline.pairs);

      assert.equal(await runToEnd(page), "done");
      const sizes = await totals(page);
      assert.equal(sizes.beforeBytes, inputOutline.bytes);
      assert.ok(sizes.afterBytes < sizes.beforeBytes, `after ${sizes.afterBytes} < before ${sizes.beforeBytes}`);
      assert.ok(sizes.afterTokens < sizes.beforeTokens);
      assert.ok(sizes.calls > 0);
      assert.equal(await page.$$eval("#timeline .call.ok", (c) => c.length), sizes.calls);
      assert.equal(await page.$$eval("#timeline .wave", (w) => w.length), sizes.waves);
      assert.equal(await page.$eval("#progress-bar", (el) => el.style.width), "100%");

      // The output validates, in the page and here in Node with the package.
      assert.equal(await page.$eval("#validation", (el) => el.dataset.valid), "true");
      const output = JSON.parse(await page.inputValue("#output"));
      assert.deepEqual(validateChain(output, { provider: "openai" }), []);
      const outline = parseChain(output).outline;
      assert.equal(outline.bytes, sizes.afterBytes);
      assert.equal(await page.$$eval("#chain-after .section", (s) => s.length), outline.sections);
      assert.equal(await page.$eval("#error", (el) => el.hidden), true);

      // Copy puts the output on the clipboard; Download gives the same JSON.
      await page
        .context()
        .grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(page.url()).origin });
      await page.click("#copy");
      await page.waitForFunction(() => document.querySelector("#copy").textContent === "Copied");
      assert.deepEqual(JSON.parse(await page.evaluate(() => navigator.clipboard.readText())), output);
      const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
      assert.equal(download.suggestedFilename(), "demo-session.openai.compacted.json");
      const saved = readFileSync(await download.path(), "utf8");
      assert.deepEqual(JSON.parse(saved), output);
    } finally {
      await page.close();
    }
  });

  it("compacts a real transcript from ../shared/fixtures/real: smaller, valid output", async (t) => {
    const file = join(fixturesDir, realTranscript);
    if (!existsSync(file)) return skipMissing(t, `${REAL_FIXTURES}: ${realTranscript}`, REAL_FIXTURES_HOW);
    const text = readFileSync(file, "utf8");
    const expected = parseChain(text, { repair: true });
    const page = await openPage();
    try {
      await page.selectOption("#source", `fixture:${realTranscript}`);
      await page.click("#load");
      await page.waitForFunction(
        (format) => document.querySelector("#input-info").dataset.format === format,
        expected.format,
      );
      assert.equal(await page.inputValue("#input"), text, "the transcript as it is on disk");
      assert.equal(await page.$$eval("#chain-before .section", (s) => s.length), expected.outline.sections);

      assert.equal(await runToEnd(page), "done");
      const sizes = await totals(page);
      assert.equal(sizes.beforeBytes, expected.outline.bytes);
      assert.ok(sizes.afterBytes < sizes.beforeBytes, `after ${sizes.afterBytes} < before ${sizes.beforeBytes}`);
      assert.ok(sizes.afterTokens < sizes.beforeTokens, `tokens ${sizes.beforeTokens} -> ${sizes.afterTokens}`);
      assert.ok(sizes.calls > 0);
      assert.equal(await page.$eval("#error", (el) => el.hidden), true);

      // The output validates, in the page and here in Node, in the transcript's own format.
      assert.equal(await page.$eval("#validation", (el) => el.dataset.valid), "true");
      const output = JSON.parse(await page.inputValue("#output"));
      assert.deepEqual(validateChain(output, { format: expected.format }), []);
      const after = parseChain(output, { format: expected.format });
      // (The report's after-size is measured before the Anthropic writer's final touches, so
      // it can differ from the output's by a few bytes a summary; both are far below before.)
      assert.ok(
        after.outline.bytes < expected.outline.bytes,
        `output ${after.outline.bytes} < input ${expected.outline.bytes} bytes`,
      );
      assert.ok(
        after.outline.messages < expected.outline.messages,
        `messages ${expected.outline.messages} -> ${after.outline.messages}`,
      );
      assert.equal(await page.$$eval("#chain-after .section", (s) => s.length), after.outline.sections);
      t.diagnostic(
        `${realTranscript}: ${sizes.beforeBytes} -> ${sizes.afterBytes} bytes, ${sizes.beforeTokens} -> ${sizes.afterTokens} tokens, ${sizes.calls} calls`,
      );
    } finally {
      await page.close();
    }
  });

  it("pasted AI SDK UIMessages are auto-detected, compacted, and come back as valid UIMessages", async (t) => {
    // The demo session as a useChat app holds it (UIMessages with steps and tool parts).
    const uiMessages = convert(demo, { to: "aisdk-ui" }).messages;
    const expected = parseChain(uiMessages);
    assert.equal(expected.format, "aisdk-ui");
    const page = await openPage();
    try {
      assert.equal(await page.inputValue("#format"), "auto");
      await page.fill("#input", JSON.stringify(uiMessages, null, 2));
      await page.waitForFunction(() => document.querySelector("#input-info").dataset.format === "aisdk-ui");
      assert.match(await page.textContent("#input-info"), /aisdk-ui \(detected\)/);
      assert.equal(await page.$$eval("#chain-before .section", (s) => s.length), expected.outline.sections);

      assert.equal(await runToEnd(page), "done");
      const sizes = await totals(page);
      assert.equal(sizes.beforeBytes, expected.outline.bytes);
      assert.ok(sizes.afterBytes < sizes.beforeBytes, `after ${sizes.afterBytes} < before ${sizes.beforeBytes}`);
      assert.equal(await page.$eval("#validation", (el) => el.dataset.valid), "true");
      const output = JSON.parse(await page.inputValue("#output"));
      assert.ok(
        output.every((m) => typeof m.id === "string" && Array.isArray(m.parts)),
        "UIMessages back",
      );
      assert.equal(parseChain(output).format, "aisdk-ui");
      assert.deepEqual(validateChain(output), []);
      t.diagnostic(
        `UIMessages: ${uiMessages.length} -> ${output.length}, ${sizes.beforeBytes} -> ${sizes.afterBytes} bytes`,
      );
    } finally {
      await page.close();
    }
  });

  it("the window strategy with a slowed summarizer shows several waves; screenshot", async (t) => {
    const page = await openPage();
    try {
      await loadDemo(page);
      await page.selectOption("#strategy", "window");
      await page.fill("#maxTokens", "8000");
      await page.selectOption("#summarizer", "slow");
      await page.fill("#slowDelay", "120");
      assert.equal(await runToEnd(page), "done");
      const sizes = await totals(page);
      assert.ok(sizes.afterBytes < sizes.beforeBytes);
      assert.ok(sizes.waves > 1, `several waves (got ${sizes.waves})`);
      assert.equal(await page.$$eval("#timeline .call.ok", (c) => c.length), sizes.calls);
      assert.equal(await page.$eval("#validation", (el) => el.dataset.valid), "true");
      // Calls of a later wave start after every call of the wave before has ended.
      const bars = await page.$$eval("#timeline .wave", (waves) =>
        waves.map((w) =>
          [...w.querySelectorAll(".call")].map((c) => [
            parseFloat(c.style.left),
            parseFloat(c.style.left) + parseFloat(c.style.width),
          ]),
        ),
      );
      for (let w = 1; w < bars.length; w++) {
        const lastEnd = Math.max(...bars[w - 1].map(([, end]) => end));
        const firstStart = Math.min(...bars[w].map(([start]) => start));
        assert.ok(firstStart >= lastEnd - 0.5, `wave ${w + 1} starts after wave ${w} ends`);
      }
      mkdirSync(join(root, "test-artifacts"), { recursive: true });
      const shot = join(root, "test-artifacts/playground.png");
      await page.screenshot({ path: shot, fullPage: true });
      const docsShot = join(root, "docs/playground.png");
      if (!existsSync(docsShot) || process.env.CONTEXTFOLD_UPDATE_SCREENSHOT === "1") {
        mkdirSync(join(root, "docs"), { recursive: true });
        copyFileSync(shot, docsShot);
        t.diagnostic("docs/playground.png written");
      }
      t.diagnostic(`${sizes.calls} calls in ${sizes.waves} waves; screenshot: test-artifacts/playground.png`);
    } finally {
      await page.close();
    }
  });

  it("an OpenAI-compatible endpoint (loopback mock) gets each request with the model and the key", async () => {
    const page = await openPage();
    try {
      await loadDemo(page);
      await page.selectOption("#summarizer", "openai");
      await page.fill("#oaBaseUrl", `${mock.origin}/v1/`);
      await page.fill("#oaModel", "mock-model");
      await page.fill("#oaKey", "sk-test-only");
      const seen = mock.requests.length;
      assert.equal(await runToEnd(page), "done");
      const sizes = await totals(page);
      const requests = mock.requests.slice(seen);
      assert.equal(requests.length, sizes.calls);
      for (const request of requests) {
        assert.equal(request.path, "/v1/chat/completions");
        assert.equal(request.authorization, "Bearer sk-test-only");
        assert.equal(request.body.model, "mock-model");
        assert.deepEqual(
          request.body.messages.map((m) => m.role),
          ["system", "user"],
        );
      }
      assert.ok(sizes.afterBytes < sizes.beforeBytes);
      const output = JSON.parse(await page.inputValue("#output"));
      assert.deepEqual(validateChain(output), []);
      assert.ok(
        JSON.stringify(output).includes("the failing test in src/ledger.ts"),
        "the mock's summaries are in the output",
      );
      // The key lives in the page's memory only.
      const stored = await page.evaluate(
        () =>
          JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + location.href + document.cookie,
      );
      assert.ok(!stored.includes("sk-test-only"));
    } finally {
      await page.close();
    }
  });

  it("the OpenAI-compatible summarizer is the package's adapter: no cut answer as a summary, no key shown", async () => {
    const page = await openPage();
    const key = "sk-proj-playground-secret-1234567890";
    try {
      await loadDemo(page);
      await page.selectOption("#summarizer", "openai");
      await page.fill("#oaModel", "mock-model");
      await page.fill("#oaKey", key);
      const shown = () =>
        page.$eval("#error", (el) => ({ code: el.dataset.code, text: el.textContent ?? "", hidden: el.hidden }));

      // finish_reason "length": an error (code `model`), so the compaction rolls back.
      await page.fill("#oaBaseUrl", `${mock.origin}/length/v1`);
      assert.equal(await runToEnd(page), "rolledBack");
      assert.ok(!(await page.inputValue("#output")).includes("fix the dat"), "the cut answer is not a summary");
      assert.match((await shown()).text, /stopped before the summary was done \(length\)/);

      // A 401 whose body quotes the key: the error is shown, the key is not.
      await page.fill("#oaBaseUrl", `${mock.origin}/unauthorized/v1`);
      assert.equal(await runToEnd(page), "rolledBack");
      const error = await shown();
      assert.equal(error.hidden, false);
      assert.match(error.text, /HTTP 401/);
      assert.match(error.text, /Incorrect API key provided: \[redacted\]/);
      assert.ok(!error.text.includes(key), error.text);
      assert.ok(!(await page.textContent("body")).includes(key), "nowhere on the page");
    } finally {
      await page.close();
    }
  });

  it("cancel mid-run: the slowed summarizer stops and the original chain comes back", async () => {
    const page = await openPage();
    try {
      await loadDemo(page);
      await page.selectOption("#summarizer", "slow");
      await page.fill("#slowDelay", "5000");
      const started = Date.now();
      await page.click("#run");
      await page.waitForSelector("#timeline .call.running");
      assert.equal(await page.$eval("#cancel", (el) => el.disabled), false);
      await page.click("#cancel");
      await page.waitForFunction(
        (states) => states.includes(document.querySelector("#status").dataset.state),
        finished,
      );
      assert.ok(Date.now() - started < 4000, "cancel did not wait for the slow calls");
      assert.equal(await page.$eval("#status", (el) => el.dataset.state), "cancelled");
      assert.match(await page.textContent("#progress-text"), /Cancelled/);
      const sizes = await totals(page);
      assert.equal(sizes.afterBytes, sizes.beforeBytes);
      assert.deepEqual(JSON.parse(await page.inputValue("#output")), demo, "the original chain");
      assert.equal(await page.$eval("#cancel", (el) => el.disabled), true);
      assert.equal(await page.$eval("#run", (el) => el.disabled), false);
    } finally {
      await page.close();
    }
  });

  it("cancel aborts the in-flight requests of the OpenAI-compatible summarizer", async () => {
    const page = await openPage();
    try {
      await loadDemo(page);
      await page.selectOption("#summarizer", "openai");
      await page.fill("#oaBaseUrl", `${mock.origin}/hang/v1`);
      await page.fill("#oaModel", "mock-model");
      const seen = mock.requests.filter((r) => r.path.startsWith("/hang/")).length;
      const dropped = mock.dropped.length;
      await page.click("#run");
      await waitUntil(
        () => mock.requests.filter((r) => r.path.startsWith("/hang/")).length > seen,
        "a request to the mock",
      );
      await page.click("#cancel");
      await page.waitForFunction(
        (states) => states.includes(document.querySelector("#status").dataset.state),
        finished,
      );
      assert.equal(await page.$eval("#status", (el) => el.dataset.state), "cancelled");
      await waitUntil(() => mock.dropped.length > dropped, "the page to drop its pending request");
      assert.deepEqual(JSON.parse(await page.inputValue("#output")), demo);
    } finally {
      await page.close();
    }
  });

  it("a summarizer call that times out rolls back, and the failed calls are listed", async () => {
    const page = await openPage();
    try {
      await loadDemo(page);
      await page.selectOption("#summarizer", "openai");
      await page.fill("#oaBaseUrl", `${mock.origin}/hang/v1`);
      await page.fill("#oaModel", "mock-model");
      await page.click("#options-toggle");
      await page.fill("#timeoutMs", "300");
      assert.equal(await runToEnd(page), "rolledBack");
      const warning = await page.$eval("#error", (el) => ({
        hidden: el.hidden,
        tone: el.className,
        code: el.dataset.code,
        text: el.textContent,
      }));
      assert.equal(warning.hidden, false);
      assert.equal(warning.tone, "warning");
      assert.equal(warning.code, "summarizer_failed");
      // contextfold's timer and the adapter's own (the same timeoutMs) race: either tells it timed out.
      assert.match(
        warning.text,
        /call 0: (timeout|failed: SummarizerError: openai-compatible: the summary call timed out)/,
      );
      assert.ok(
        (await page.$$eval("#timeline .call.failed", (c) => c.length)) > 0,
        "failed calls are red on the timeline",
      );
      assert.deepEqual(JSON.parse(await page.inputValue("#output")), demo, "the original chain");
    } finally {
      await page.close();
    }
  });

  it("bad input and bad options show a readable error with the code and the culprit's path", async () => {
    const page = await openPage();
    try {
      const errorShown = () => page.waitForFunction(() => !document.querySelector("#error").hidden);
      const shown = () =>
        page.$eval("#error", (el) => ({
          code: el.querySelector(".error-code")?.textContent,
          path: el.querySelector(".error-path code")?.textContent,
          text: el.textContent,
        }));

      await page.fill("#input", '[{"role": "user", "content": "hi"}');
      await errorShown();
      assert.equal((await shown()).code, "invalid_json");
      await page.click("#run");
      await page.waitForFunction(() => document.querySelector("#status").dataset.state === "error");
      assert.equal((await shown()).code, "invalid_json", "running it shows the same error");
      assert.match((await shown()).text, /line 1/);

      await page.fill("#input", '[{"role": "user", "content": "hi"}, {"role": "bogus", "content": "x"}]');
      await page.waitForFunction(() => document.querySelector("#error").dataset.code === "unknown_format");
      assert.deepEqual(
        { code: (await shown()).code, path: (await shown()).path },
        { code: "unknown_format", path: "[1]" },
      );

      // An opened file that is not UTF-8 (Latin-1 "café") was read with U+FFFD in place of
      // its bytes, silently; the command line refuses it with invalid_text and the offset.
      // The U+FFFD the file holds as such (EF BF BD) is text, and counts three bytes.
      const head = Buffer.from('[{"role":"user","content":"\uFFFD caf');
      const latin1 = Buffer.concat([head, Buffer.from([0xe9]), Buffer.from('"}]')]);
      await page.setInputFiles("#file", { name: "latin1.json", mimeType: "application/json", buffer: latin1 });
      await page.waitForFunction(() => document.querySelector("#error").dataset.code === "invalid_text");
      assert.match(
        (await shown()).text,
        new RegExp(`latin1\\.json is not UTF-8 text: byte 0xe9 at byte offset ${head.length}`),
      );
      assert.doesNotMatch(await page.$eval("#input", (el) => el.value), /caf\uFFFD/);
      const utf8 = Buffer.from('[{"role":"user","content":"caf\u00e9"},{"role":"assistant","content":"ok"}]');
      await page.setInputFiles("#file", { name: "utf8.json", mimeType: "application/json", buffer: utf8 });
      await page.waitForFunction(() => document.querySelector("#error").hidden);
      assert.match(await page.$eval("#input", (el) => el.value), /caf\u00e9/);

      // A valid chain, a bad option: the budget strategy without a budget.
      await loadDemo(page);
      assert.equal(await page.$eval("#error", (el) => el.hidden), true, "a good input clears the error");
      await page.selectOption("#strategy", "budget");
      await page.fill("#maxTokens", "");
      assert.equal(await runToEnd(page), "error");
      assert.deepEqual(
        { code: (await shown()).code, path: (await shown()).path },
        { code: "invalid_option", path: "options.maxTokens" },
      );
      // The same strategy with its budget runs.
      await page.fill("#maxTokens", "8000");
      assert.equal(await runToEnd(page), "done");
      assert.ok((await totals(page)).afterTokens <= 8000);
    } finally {
      await page.close();
    }
  });

  it("no page error, console error or warning, failed request, or request beyond 127.0.0.1", () => {
    assert.deepEqual(problems, []);
  });
});
