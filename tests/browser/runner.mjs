// Runs the shared core cases in headless Chromium (Debian's /usr/bin/chromium driven by
// npm playwright-core; no downloaded browser). Serves pkg/ and the test page from a
// loopback HTTP server on a free port, loads tests/browser/page.html, and returns what
// the page reports. Used by browser.test.mjs; `node tests/browser/runner.mjs` prints the
// results as JSON for debugging.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { dirname, extname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

export const chromiumPath = process.env.CONTEXTFOLD_CHROMIUM ?? "/usr/bin/chromium";

export const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Only these trees are served; anything else is a 404. */
const served = ["pkg", "tests/shared", "tests/browser"].map((dir) => join(root, dir) + sep);

const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
};

/** A static file server bound to 127.0.0.1 on a free port. */
async function serve() {
  const requests = [];
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://localhost").pathname);
    const file = join(root, path);
    requests.push(path);
    if (!served.some((dir) => file.startsWith(dir)) || !existsSync(file)) {
      res.writeHead(404, { "content-type": "text/plain" }).end(`not found: ${path}`);
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, {
        "content-type": types[extname(file)] ?? "application/octet-stream",
        "cache-control": "no-store",
      });
      res.end(body);
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" }).end(String(error));
    }
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address();
  return { origin: `http://127.0.0.1:${port}`, requests, close: () => new Promise((r) => server.close(r)) };
}

/**
 * Loads the test page in headless Chromium and resolves to
 * `{ initMs, results, log, requests, browserVersion }`; rejects when the page cannot run
 * (a missing file, a failed import), with the page's console and errors in the message.
 */
export async function runInChromium({ timeoutMs = 30_000 } = {}) {
  const { chromium } = await import("playwright-core");
  const server = await serve();
  const log = [];
  let browser;
  try {
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: chromiumArgs,
      timeout: timeoutMs,
    });
    const page = await browser.newPage();
    page.on("console", (m) => log.push(`console.${m.type()}: ${m.text()}`));
    page.on("pageerror", (e) => log.push(`pageerror: ${e.message}`));
    page.on("requestfailed", (r) => log.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
    page.on("response", (r) => r.status() >= 400 && log.push(`http ${r.status()}: ${r.url()}`));
    await page.goto(`${server.origin}/tests/browser/page.html`);
    try {
      await page.waitForFunction(() => window.contextfoldDone === true, null, { timeout: timeoutMs });
    } catch (error) {
      throw new Error(`the page did not finish: ${error.message}\n${log.join("\n")}`);
    }
    const outcome = await page.evaluate(() => window.contextfoldResults);
    if (outcome.fatal) throw new Error(`the page failed: ${outcome.fatal}\n${log.join("\n")}`);
    return { ...outcome, log, requests: server.requests, browserVersion: browser.version() };
  } finally {
    await browser?.close();
    await server.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await runInChromium(), null, 2));
}
