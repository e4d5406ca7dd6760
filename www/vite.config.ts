// Vite config of the playground (www/). The page imports the package `contextfold` like
// any app: through node_modules/contextfold (the npm workspace link to pkg/) and its
// `exports` map, whose "default" condition is the browser entry (await init()). Vite
// bundles the .wasm that the glue names with `new URL("…_bg.wasm", import.meta.url)`.
//
// The `realTranscripts` plugin serves the real transcripts of ../shared/fixtures/real
// (beside the project, when it exists) in `vite` and `vite preview`, listing them at
// request time; they are never copied into the project or into dist/. A static copy of
// dist/ without this server lists only the demo session.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";

const here = dirname(fileURLToPath(import.meta.url));
const fixturesDir = process.env.CONTEXTFOLD_FIXTURES ?? join(here, "../../shared/fixtures/real");

/** The `*.json` files of the fixtures directory now (an empty list when it is absent). */
function listFixtures(): { name: string; bytes: number }[] {
  if (!existsSync(fixturesDir)) return [];
  return readdirSync(fixturesDir)
    .filter((name) => /^[\w.-]+\.json$/.test(name))
    .sort()
    .map((name) => ({ name, bytes: statSync(join(fixturesDir, name)).size }));
}

function fixturesMiddleware(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  const path = decodeURIComponent(new URL(req.url ?? "/", "http://localhost").pathname);
  const match = /^\/fixtures\/(.+)$/.exec(path);
  if (match === null || (req.method !== "GET" && req.method !== "HEAD")) return next();
  const send = (status: number, body: string | Buffer) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
    res.end(req.method === "HEAD" ? undefined : body);
  };
  const files = listFixtures();
  if (match[1] === "index.json") return send(200, JSON.stringify({ files }));
  // Only a name from the listing: no path ever reaches the file system from the URL.
  const file = files.find((f) => f.name === match[1]);
  if (file === undefined) return send(404, JSON.stringify({ error: `no fixture ${match[1]}` }));
  send(200, readFileSync(join(fixturesDir, file.name)));
}

function realTranscripts(): Plugin {
  return {
    name: "contextfold-real-transcripts",
    configureServer(server) {
      server.middlewares.use(fixturesMiddleware);
    },
    configurePreviewServer(server) {
      server.middlewares.use(fixturesMiddleware);
    },
  };
}

export default defineConfig({
  root: here,
  // Relative asset URLs: dist/ works from any path of any static host.
  base: "./",
  plugins: [realTranscripts()],
  // The wasm glue finds its .wasm with `new URL(…, import.meta.url)`: keep the package
  // out of dependency pre-bundling so that URL stays next to the glue in dev.
  optimizeDeps: { exclude: ["contextfold"] },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    // The wasm (about 700 KB) is fetched by the glue, never inlined.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1024,
  },
  server: { host: "127.0.0.1" },
  preview: { host: "127.0.0.1" },
});
