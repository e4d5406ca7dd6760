// Packaging smoke test: `npm pack` the built pkg/, check what the tarball holds, install it
// into a fresh Node ESM project (offline: the package has no dependencies) and use it
// there as a user would, through its name, its exports map and its bin. The same tarball
// also goes into a fresh Worker project: its script is bundled as wrangler would bundle it
// (the `workerd` export condition, each `.wasm` import left as a CompiledWasm module beside
// the bundle), here with rolldown, the bundler Vite brings, and run in real workerd
// through Miniflare.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { root } from "../node/helpers.mjs";
import { installInto, pack, run } from "../shared/pack.mjs";

const scratch = mkdtempSync(join(tmpdir(), "contextfold-pack-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const manifest = JSON.parse(readFileSync(join(root, "pkg/package.json"), "utf8"));
let packed; // npm pack --json's entry: { filename, files: [{ path }], tarball }
const project = join(scratch, "consumer");
const workerProject = join(scratch, "worker-consumer");

before(() => {
  packed = pack(scratch);
  installInto(project, "consumer", packed.tarball);
  installInto(workerProject, "worker-consumer", packed.tarball);
});

describe("npm pack", () => {
  it("ships only what `files` lists, with the README and license", () => {
    const paths = packed.files.map((f) => f.path).sort();
    for (const doc of ["README.md", "LICENSE"]) assert.ok(paths.includes(doc), `the tarball has no ${doc}`);
    const allowed = [
      /^package\.json$/,
      /^(README|LICENSE|LICENCE)(\.md|\.txt)?$/i,
      /^src\/[^/]+\.(js|d\.ts)$/,
      /^dist\/[^/]+\.js$/,
      /^bin\/(cli\/)?[^/]+\.mjs$/,
      /^glue\/contextfold_wasm\.(js|d\.ts)$/,
      /^glue\/contextfold_wasm_bg\.wasm$/,
    ];
    const unexpected = paths.filter((p) => !allowed.some((re) => re.test(p)));
    assert.deepEqual(unexpected, [], "files outside the `files` list");
    for (const required of [
      "package.json",
      "glue/contextfold_wasm.js",
      "glue/contextfold_wasm.d.ts",
      "glue/contextfold_wasm_bg.wasm",
    ]) {
      assert.ok(paths.includes(required), `${required} is missing from the tarball`);
    }
  });

  it("holds every file the exports map and bin point at", () => {
    const paths = new Set(packed.files.map((f) => f.path));
    const targets = [];
    const walk = (value) => {
      if (typeof value === "string") targets.push(value);
      else for (const v of Object.values(value)) walk(v);
    };
    walk(manifest.exports);
    walk(manifest.bin);
    targets.push(manifest.types);
    for (const target of targets) {
      assert.ok(paths.has(target.replace(/^\.\//, "")), `${target} is not in the tarball`);
    }
  });

  it("installs into a Node ESM project, resolves to the node entry and compacts", () => {
    const smoke = `
      import { compact, parseChain } from "contextfold";
      const resolved = import.meta.resolve("contextfold");
      const section = (i) => [
        { role: "user", content: "Task " + i },
        { role: "assistant", content: "Answer " + i + ": " + "lorem ipsum dolor sit amet ".repeat(60) },
      ];
      const chain = [0, 1, 2, 3].flatMap(section);
      const summarizer = async (request) => {
        await new Promise((r) => setTimeout(r, 2));
        return "Summary of section " + request.section + ".";
      };
      const result = await compact(chain, { strategy: "sections", summarizer });
      const outline = parseChain(result.messages, { format: "openai" }).outline;
      const text = JSON.stringify(result.messages);
      console.log(JSON.stringify({ resolved, changed: result.changed, report: result.report, outline, text }));
    `;
    writeFileSync(join(project, "smoke.mjs"), smoke);
    const { resolved, changed, report, outline, text } = JSON.parse(run(process.execPath, ["smoke.mjs"], project));
    assert.ok(
      resolved.endsWith("/consumer/node_modules/contextfold/dist/node.js"),
      `resolved to ${resolved}, not the installed copy's node entry`,
    );
    assert.equal(changed, true);
    assert.deepEqual(report.errors, []);
    assert.equal(report.calls, 3);
    assert.ok(report.after.bytes < report.before.bytes);
    assert.equal(outline.sections, 4);
    assert.equal(outline.messages, report.after.messages);
    for (const i of [0, 1, 2]) assert.ok(text.includes(`Summary of section ${i}.`), `summary ${i} is in the output`);
  });

  it("installs the contextfold command", () => {
    const out = run(join(project, "node_modules/.bin/contextfold"), ["--version"], project);
    assert.equal(out.trim(), manifest.version);
  });

  it("installs into a Worker project that bundles for workerd and compacts there", async (t) => {
    const { outDir, moduleIds, wasmFiles } = await bundleWorker(workerProject);
    // The bundler resolved "contextfold" and "contextfold/worker" through the installed
    // copy's exports map to their workerd entries, and left the .wasm as a module import.
    const installed = (file) => join(workerProject, "node_modules/contextfold", file);
    for (const entry of ["src/workerd.js", "src/worker.workerd.js"]) {
      assert.ok(moduleIds.includes(installed(entry)), `the bundle holds the installed ${entry}`);
    }
    for (const entry of ["src/node.js", "src/worker.node.js", "src/web.js", "dist/node.js", "dist/worker.node.js"]) {
      assert.ok(!moduleIds.includes(installed(entry)), `the bundle does not hold ${entry}`);
    }
    assert.deepEqual(wasmFiles, ["contextfold_wasm_bg.wasm"]);

    const { Log, LogLevel, Miniflare } = await import("miniflare");
    const miniflare = new Miniflare({
      modules: true,
      scriptPath: join(outDir, "worker.js"),
      modulesRoot: outDir,
      modulesRules: [
        { type: "ESModule", include: ["**/*.js"] },
        { type: "CompiledWasm", include: ["**/*.wasm"] },
      ],
      compatibilityDate: "2026-04-01",
      cf: false, // no fetch of the Request.cf placeholder from workers.cloudflare.com
      log: new Log(LogLevel.WARN),
    });
    try {
      // compact() from "contextfold", with an async summarizer, in the Worker.
      const response = await miniflare.dispatchFetch("http://localhost/compact");
      const text = await response.text();
      assert.equal(response.status, 200, text);
      const { userAgent, input, changed, report, output, calls } = JSON.parse(text);
      assert.equal(userAgent, "Cloudflare-Workers", "it ran in workerd");
      assert.equal(changed, true);
      assert.deepEqual(report.errors, []);
      assert.equal(report.calls, calls.length);
      assert.ok(calls.length > 0, "the summarizer was called in the Worker");
      assert.ok(output.length < input.length, `fewer messages: ${output.length} < ${input.length}`);
      assert.ok(
        report.after.bytes < report.before.bytes,
        `fewer bytes: ${report.after.bytes} < ${report.before.bytes}`,
      );
      assert.equal(report.after.messages, output.length);
      // The output is a valid OpenAI chain, by this side's copy of the package too.
      const { parseChain, validateChain } = await import("contextfold");
      assert.deepEqual(validateChain(output, { provider: "openai" }), []);
      assert.equal(parseChain(output, { format: "openai" }).outline.messages, output.length);
      assert.deepEqual(output.at(-1), input.at(-1), "the last user turn is kept as it was");
      const summaries = JSON.stringify(output);
      for (const id of calls)
        assert.ok(summaries.includes(`Summary ${id} from the Worker.`), `summary ${id} is in the output`);

      // compactionMiddleware from "contextfold/worker": a chat request over its budget
      // reaches the wrapped handler compacted (by the built-in extractive summarizer).
      const request = { model: "gpt-test", messages: input };
      const forwarded = await miniflare.dispatchFetch("http://localhost/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(request),
      });
      const received = await forwarded.json();
      assert.equal(forwarded.status, 200, JSON.stringify(received));
      assert.equal(forwarded.headers.get("x-contextfold-error"), null);
      const beforeTokens = Number(forwarded.headers.get("x-contextfold-before-tokens"));
      const afterTokens = Number(forwarded.headers.get("x-contextfold-after-tokens"));
      assert.ok(afterTokens <= 1500 && afterTokens < beforeTokens, `tokens ${beforeTokens} -> ${afterTokens}`);
      assert.equal(received.model, "gpt-test");
      assert.ok(received.messages.length < input.length, "the handler got fewer messages");
      assert.deepEqual(validateChain(received.messages, { provider: "openai" }), []);
      t.diagnostic(
        `workerd: ${input.length} -> ${output.length} messages, ${report.before.bytes} -> ${report.after.bytes} bytes; ` +
          `middleware ${beforeTokens} -> ${afterTokens} tokens`,
      );
    } finally {
      await miniflare.dispose();
    }
  });
});

/**
 * Writes the Worker project's script (a user's Worker: `compact` from "contextfold", the
 * middleware from "contextfold/worker") and bundles it into `dist/` as wrangler does: the
 * `workerd` and `worker` export conditions, and every `.wasm` import kept as an import of
 * a file copied beside the bundle (a CompiledWasm module). Returns the output folder, the
 * bundled module ids and the .wasm files written.
 */
async function bundleWorker(dir) {
  mkdirSync(join(dir, "src"));
  writeFileSync(
    join(dir, "src/index.js"),
    `import { compact } from "contextfold";
import { compactionMiddleware } from "contextfold/worker";

const section = (i) => [
  { role: "user", content: "Task " + i + ": check module " + i + "." },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_" + i, type: "function", function: { name: "read", arguments: JSON.stringify({ path: "src/m" + i + ".rs" }) } }],
  },
  { role: "tool", tool_call_id: "call_" + i, content: "fn m" + i + "() {} // " + "the module compiles and links cleanly; ".repeat(40) },
  { role: "assistant", content: "Module " + i + " is fine. " + "lorem ipsum dolor sit amet ".repeat(40) },
];
const chain = () => [
  { role: "system", content: "You review code." },
  ...[0, 1, 2, 3, 4, 5].flatMap(section),
  { role: "user", content: "And module 6?" },
];

const chat = compactionMiddleware({ strategy: "budget", maxTokens: 1500 })(async (request) =>
  Response.json(await request.json()),
);

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === "/compact") {
      const input = chain();
      const calls = [];
      const summarizer = async (summaryRequest) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        calls.push(summaryRequest.id);
        return "Summary " + summaryRequest.id + " from the Worker.";
      };
      const result = await compact(input, { strategy: "sections", summarizer });
      return Response.json({
        userAgent: navigator.userAgent,
        input,
        changed: result.changed,
        report: result.report,
        output: result.messages,
        calls,
      });
    }
    return chat(request, env, ctx);
  },
};
`,
  );
  const outDir = join(dir, "dist");
  mkdirSync(outDir);
  const wasmFiles = [];
  const { rolldown } = await import("rolldown");
  const bundle = await rolldown({
    input: join(dir, "src/index.js"),
    cwd: dir,
    platform: "neutral",
    logLevel: "warn",
    resolve: { conditionNames: ["workerd", "worker", "browser", "import", "default"] },
    plugins: [
      {
        name: "wasm-modules",
        resolveId(source, importer) {
          if (!source.endsWith(".wasm") || !importer) return null;
          const file = resolve(dirname(importer), source);
          const name = basename(file);
          if (!wasmFiles.includes(name)) {
            copyFileSync(file, join(outDir, name));
            wasmFiles.push(name);
          }
          // A relative external id is written as it is: the file beside the bundle.
          return { id: `./${name}`, external: true };
        },
      },
    ],
  });
  let moduleIds;
  try {
    const { output } = await bundle.write({
      dir: outDir,
      format: "esm",
      entryFileNames: "worker.js",
      codeSplitting: false,
    });
    const chunks = output.filter((o) => o.type === "chunk");
    assert.deepEqual(
      chunks.map((c) => c.fileName),
      ["worker.js"],
      "one bundle file",
    );
    moduleIds = chunks[0].moduleIds;
    assert.deepEqual(
      chunks[0].imports,
      wasmFiles.map((name) => `./${name}`),
      "the bundle imports the .wasm beside it",
    );
  } finally {
    await bundle.close();
  }
  assert.deepEqual(readdirSync(outDir).sort(), ["worker.js", ...wasmFiles].sort());
  return { outDir, moduleIds, wasmFiles };
}
