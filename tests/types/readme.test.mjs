// The README's TypeScript snippets (```ts blocks), compiled as a user would paste them into a
// project with the strictest common settings (strict, exactOptionalPropertyTypes,
// noUncheckedIndexedAccess): a name used but not imported, or an option the declarations
// reject, fails here. What the prose leaves to the reader is declared (the free names
// below, by the framework a snippet imports), and the SDK packages not installed here are
// stubbed (`@ai-sdk/openai`'s `openai`, `@openai/agents`, which re-exports
// `@openai/agents-core`).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { root } from "../node/helpers.mjs";

const tsc = join(root, "node_modules/typescript/bin/tsc");
// Inside the project, so that `contextfold` and the SDKs resolve as in a user's project.
const dir = join(root, "tests/types/.readme-snippets");

/** The ```ts blocks of README.md. */
export function tsBlocks(text) {
  return [...text.matchAll(/^```(?:ts|typescript)\n([\s\S]*?)^```/gm)].map((m) => m[1]);
}

/** The free names a snippet's prose implies, by the framework it imports. */
function prelude(code) {
  if (/from "ai"/.test(code)) {
    return 'declare const messages: import("ai").ModelMessage[];\ndeclare const tools: import("ai").ToolSet;\n';
  }
  if (/from "langchain"/.test(code)) return 'declare const tools: import("@langchain/core/tools").StructuredTool[];\n';
  if (/from "@openai\/agents"/.test(code)) return 'declare const agent: import("@openai/agents-core").Agent;\n';
  return "";
}

const STUBS = `declare module "@ai-sdk/openai" {
  import type { LanguageModel } from "ai";
  export function openai(id: string): Exclude<LanguageModel, string>;
}
declare module "@openai/agents" {
  export * from "@openai/agents-core";
}
`;

function compileSnippets(blocks) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = blocks.map((code, i) => {
    const name = `snippet-${i + 1}.ts`;
    writeFileSync(join(dir, name), `${prelude(code)}${code}`);
    return name;
  });
  writeFileSync(join(dir, "stubs.d.ts"), STUBS);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        noEmit: true,
        target: "es2022",
        lib: ["es2023", "dom", "dom.iterable"],
        types: ["node"],
        module: "nodenext",
        moduleResolution: "nodenext",
        // @openai/agents-core's own declarations do not check under strict tsc.
        skipLibCheck: true,
      },
      files: ["stubs.d.ts", ...files],
    }),
  );
  const result = spawnSync(process.execPath, [tsc, "-p", dir], { cwd: dir, encoding: "utf8" });
  assert.equal(result.error, undefined, String(result.error));
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

describe("README TypeScript snippets", () => {
  it("compile as written, under strict settings", (t) => {
    const blocks = tsBlocks(readFileSync(join(root, "README.md"), "utf8"));
    assert.ok(blocks.length >= 4, `${blocks.length} ts blocks found`);
    const { status, output } = compileSnippets(blocks);
    rmSync(dir, { recursive: true, force: true });
    assert.equal(status, 0, `README snippets do not compile:\n${output}`);
    t.diagnostic(`${blocks.length} snippets compiled`);
  });

  it("fails on a snippet that uses a name it does not import (the check bites)", () => {
    const { status, output } = compileSnippets([
      'import { streamText } from "ai";\nstreamText({ model: openai("gpt-4o"), messages, stopWhen: stepCountIs(5) });\n',
    ]);
    rmSync(dir, { recursive: true, force: true });
    assert.notEqual(status, 0);
    assert.match(output, /Cannot find name 'openai'/);
    assert.match(output, /Cannot find name 'stepCountIs'/);
  });
});
