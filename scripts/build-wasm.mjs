#!/usr/bin/env node
// Builds the wasm glue of the npm package into pkg/glue/ (git-ignored):
//   cargo build (release, wasm32) -> wasm-bindgen --target web -> wasm-opt -Oz (see WASM_OPT_FLAGS),
// then prints the size of what ships. wasm-bindgen comes from .tools/ and wasm-opt from
// the npm package binaryen (`npm run setup` installs both). Never Debian's wasm-opt: it
// is too old for current wasm-bindgen output and breaks it.
//
// The wasm-bindgen and wasm-opt steps are skipped when the cargo output did not change.
// Then the Node entries are bundled into pkg/dist/ (git-ignored, see bundleNodeEntries).
// The root README.md and LICENSE are copied into pkg/ so that the package ships them.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import esbuild from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const crate = "contextfold-wasm";
const input = join(root, "target/wasm32-unknown-unknown/release/contextfold_wasm.wasm");
const outDir = join(root, "pkg/glue");
const wasm = join(outDir, "contextfold_wasm_bg.wasm");
const glueJs = join(outDir, "contextfold_wasm.js");
const stampFile = join(outDir, ".input-sha256");
const wasmBindgen = join(root, ".tools/bin/wasm-bindgen");
const wasmOpt = join(root, "node_modules/.bin/wasm-opt");

function fail(message) {
  console.error(`build: error: ${message}`);
  process.exit(1);
}

function run(command, args) {
  const shown = [relative(root, command) || command, ...args.map((a) => (a.startsWith(root) ? relative(root, a) : a))];
  console.log(`build: ${shown.join(" ")}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  if (result.error) fail(`${command}: ${result.error.message}`);
  if (result.status !== 0) fail(`${shown[0]} exited with ${result.status ?? result.signal}`);
}

for (const [tool, what] of [
  [wasmBindgen, "wasm-bindgen-cli"],
  [wasmOpt, "binaryen (npm)"],
]) {
  if (!existsSync(tool)) fail(`${relative(root, tool)} is missing (${what}): run \`npm run setup\``);
}

// No inlining of functions with one caller: 7% smaller gzipped (439.9 -> 409.0 KiB),
// no slower on compact or needsCompaction (measured on a 3,000-message chain).
const WASM_OPT_FLAGS = ["-Oz", "--one-caller-inline-max-function-size", "0"];

const started = performance.now();
run("cargo", ["build", "--release", "--target", "wasm32-unknown-unknown", "-p", crate]);

// The flags count: a change of them rebuilds the glue as a new cargo output does.
const digest = createHash("sha256").update(readFileSync(input)).update(WASM_OPT_FLAGS.join(" ")).digest("hex");
const upToDate =
  existsSync(stampFile) && existsSync(wasm) && existsSync(glueJs) && readFileSync(stampFile, "utf8") === digest;
if (upToDate) {
  console.log("build: pkg/glue is up to date");
} else {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  run(wasmBindgen, [input, "--target", "web", "--out-dir", outDir]);
  run(wasmOpt, [...WASM_OPT_FLAGS, wasm, "-o", wasm]);
  writeFileSync(stampFile, digest);
}

bundleNodeEntries();

// The package ships the repository's README and license (copies, git-ignored in pkg/).
for (const doc of ["README.md", "LICENSE"]) copyFileSync(join(root, doc), join(root, "pkg", doc));

/**
 * Node runs the package as it is installed, unbundled: importing pkg/src/node.js loads
 * about twenty modules, a third of the import's time. Every export's `node` condition
 * points into pkg/dist/ instead, built here from the pkg/src/ file of the same name: one
 * shared module holds all their code (one wasm instance for all of them), each entry
 * file only re-exports. The glue stays where it is (its default init finds the .wasm
 * beside itself); peer dependencies are imported, not bundled.
 * `internal.node.js` is the test hooks' Node twin (not exported). An entry that holds
 * none of the wasm's code (`contextfold/summarizers`) points into ./src/ and runs as is.
 */
function bundleNodeEntries() {
  const manifest = JSON.parse(readFileSync(join(root, "pkg/package.json"), "utf8"));
  const entries = ["./dist/internal.node.js"];
  for (const conditions of Object.values(manifest.exports)) {
    if (typeof conditions !== "object" || typeof conditions.node !== "string") continue;
    if (!conditions.node.startsWith("./src/")) entries.push(conditions.node);
  }
  const sources = entries.map((entry) => {
    const match = /^\.\/dist\/([\w.-]+\.js)$/.exec(entry);
    if (!match) fail(`pkg/package.json: a "node" export (${entry}) is not a file of ./dist/`);
    return join(root, "pkg/src", match[1]);
  });
  const outdir = join(root, "pkg/dist");
  rmSync(outdir, { recursive: true, force: true });
  console.log(`build: esbuild ${sources.length} Node entries -> ${relative(root, outdir)}/`);
  const result = esbuild.buildSync({
    entryPoints: sources,
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    external: ["../glue/*"],
    chunkNames: "shared-[hash]",
    legalComments: "none",
    logLevel: "warning",
    metafile: true,
  });
  const chunks = Object.keys(result.metafile.outputs).filter((f) => /\/shared-\w+\.js$/.test(f));
  // One shared module, or an entry would load the others' code as a module of its own.
  if (chunks.length !== 1) fail(`the Node entries share ${chunks.length} modules, not one: ${chunks.join(", ")}`);
}

const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
const report = (file) => {
  const bytes = readFileSync(file);
  return `${relative(root, file).padEnd(34)} ${kb(bytes.length).padStart(10)} raw ${kb(gzipSync(bytes, { level: 9 }).length).padStart(10)} gzip`;
};
console.log(`build: sizes (cargo output ${kb(statSync(input).size)} before wasm-opt)`);
console.log(`  ${report(wasm)}`);
console.log(`  ${report(glueJs)}`);
console.log(`build: done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
