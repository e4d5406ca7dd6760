// Node entry: on import the wasm is read from disk and compiled asynchronously (off the
// main thread where V8 can: Node 24 does all of it there), so that the import waits for
// neither. Async calls (`compact`, `init()`) wait for the instance; a synchronous call
// made before it exists reads and instantiates on the spot (ready.js). Listed in
// `sideEffects` (pkg/package.json) so that bundlers keep this instantiation.
//
// Where the .wasm is, in order:
// 1. beside the glue, `new URL(..., import.meta.url)`: the installed package run as it is,
//    and bundlers that emit that pattern's file as an asset and rewrite the URL (webpack,
//    Next.js);
// 2. in an installed copy of the package, `node_modules/contextfold`, searched as Node
//    searches packages: from the bundle's folder upwards, then from the working
//    directory's: bundlers that leave the URL pointing nowhere (esbuild, whose CommonJS
//    output has no `import.meta.url` at all).
// Found nowhere (a bundle copied away from its node_modules), every call throws
// `not_initialized` until `await init({ module_or_path })` is given the .wasm's bytes,
// path or URL, or a compiled Module.
import { init as initAsync, initSync, instanceExports } from "./glue.js";
import { isReady, setInitHint, startInBackground, startNowIfPending, whenStarted } from "./ready.js";
import { contextfoldError } from "./errors.js";

const WASM = "contextfold_wasm_bg.wasm";

/**
 * A Node built-in module. Not imported: an ES import of `node:fs` alone costs about 1.5 ms
 * (its module facade), a tenth of this entry's import.
 * @param {string} name
 * @returns {any}
 */
function builtin(name) {
  const get = globalThis.process?.getBuiltinModule;
  if (typeof get !== "function") {
    throw contextfoldError(
      "unsupported_runtime",
      `contextfold needs Node 20.16 or later (process.getBuiltinModule); this is Node ${globalThis.process?.version}`,
      undefined,
    );
  }
  return get(name);
}

/** @type {typeof import("node:fs")} */
const { existsSync, readFile, readFileSync } = builtin("node:fs");
/** @type {typeof import("node:path")} */
const { dirname, join } = builtin("node:path");
/** @type {typeof import("node:url")} */
const { fileURLToPath } = builtin("node:url");

/** The .wasm's location (a file URL or path), or undefined. */
function locateWasm() {
  try {
    const beside = new URL("../glue/contextfold_wasm_bg.wasm", import.meta.url);
    if (beside.protocol === "file:" && existsSync(beside)) return beside;
  } catch {
    // No import.meta.url (a CommonJS bundle): search the installed package.
  }
  const starts = [];
  const url = import.meta.url;
  if (typeof url === "string" && url.startsWith("file:")) starts.push(dirname(fileURLToPath(url)));
  if (typeof __dirname === "string") starts.push(__dirname);
  starts.push(process.cwd());
  for (const start of starts) {
    for (let dir = start; ; dir = dirname(dir)) {
      const file = join(dir, "node_modules", "contextfold", "glue", WASM);
      if (existsSync(file)) return file;
      if (dirname(dir) === dir) break;
    }
  }
  return undefined;
}

const HINT =
  "its .wasm was not found (neither beside the package's glue nor in node_modules/contextfold); " +
  "call `await init({ module_or_path })` first with the .wasm's bytes, path or URL (`contextfold/wasm`)";

/** Reads and compiles the .wasm in the background; a call that cannot wait does both at once. */
function start(location) {
  /** @type {Promise<Uint8Array<ArrayBuffer>>} readFile's Buffer, never a shared one */
  const bytes = new Promise((resolve, reject) =>
    readFile(location, (/** @type {Error | null} */ error, /** @type {any} */ data) =>
      error ? reject(error) : resolve(data),
    ),
  );
  const compiled = bytes
    .then((data) => (isReady() ? undefined : WebAssembly.compile(data)))
    .then((module) => {
      if (module !== undefined && !isReady()) initSync({ module });
    });
  startInBackground(compiled, () => initSync({ module: readFileSync(location) }));
}

const location = locateWasm();
if (location === undefined) setInitHint(HINT);
else start(location);

export * from "./index.js";

/**
 * Resolves to the instance's exports once the compile started on import is done (the
 * .wasm was found); kept so that `await init()` works on every runtime. Otherwise
 * instantiates from `module_or_path`: bytes, a compiled Module, a Response, or a file
 * path or `file:` URL (read from disk).
 */
export default async function init(moduleOrPath) {
  await whenStarted();
  // A background compile that failed: its error, as a synchronous call would see it.
  if (moduleOrPath === undefined) startNowIfPending();
  if (isReady()) return instanceExports();
  let source = moduleOrPath;
  if (source !== null && typeof source === "object" && Object.getPrototypeOf(source) === Object.prototype) {
    source = source.module_or_path;
  }
  source = await source;
  if (source === undefined)
    throw contextfoldError("not_initialized", `contextfold is not initialized: ${HINT}`, undefined);
  if (typeof source === "string" || source instanceof URL) {
    try {
      source = readFileSync(source);
    } catch (error) {
      const failure = contextfoldError(
        "init_failed",
        `contextfold could not read its .wasm: ${error?.message}`,
        undefined,
      );
      failure.cause = error;
      throw failure;
    }
  }
  await initAsync({ module_or_path: source });
  return instanceExports();
}
