#!/usr/bin/env node
// Builds the playground (www/) into www/dist/ (git-ignored): type-checks www/src with the
// root's TypeScript, then `vite build` with www/vite.config.ts. The page imports the
// package `contextfold` through node_modules (the workspace link to pkg/), so the wasm
// package must be built first: `node scripts/build-wasm.mjs`.
//
// Usage: node scripts/build-www.mjs [--no-check]
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const www = join(root, "www");
const dist = join(www, "dist");

function fail(message) {
  console.error(`build-www: error: ${message}`);
  process.exit(1);
}

if (!existsSync(join(root, "node_modules/vite"))) fail("vite is not installed: run `npm run setup`");
if (!existsSync(join(root, "node_modules/contextfold/package.json"))) {
  fail("node_modules/contextfold (the workspace link to pkg/) is missing: run `npm run setup`");
}
if (!existsSync(join(root, "pkg/glue/contextfold_wasm_bg.wasm"))) {
  fail("pkg/glue/ is not built: run `node scripts/build-wasm.mjs` first");
}

const started = performance.now();

if (!process.argv.includes("--no-check")) {
  console.log("build-www: tsc -p www (type check)");
  const tsc = join(root, "node_modules/typescript/bin/tsc");
  const result = spawnSync(process.execPath, [tsc, "-p", www], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) fail(`the type check of www/src failed (exit ${result.status ?? result.signal})`);
}

console.log("build-www: vite build (www/vite.config.ts -> www/dist)");
const { build } = await import("vite");
await build({ configFile: join(www, "vite.config.ts"), root: www, logLevel: "warn" });

const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else files.push(path);
  }
})(dist);
if (!files.some((f) => f.endsWith(".wasm"))) fail("www/dist holds no .wasm: the glue's wasm URL was not bundled");
for (const file of files.sort()) {
  const body = readFileSync(file);
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`.padStart(10);
  console.log(`  ${relative(root, file).padEnd(52)} ${kib(body.length)} raw ${kib(gzipSync(body).length)} gzip`);
}
console.log(`build-www: done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
