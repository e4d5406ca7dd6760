// Packing and installing the package as users get it, shared by tests/pack/ and
// tests/bundlers/: `npm pack` of the built pkg/, and `npm install` of the tarball into a
// fresh project.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "../node/helpers.mjs";

/** The environment without the npm_* variables of the `npm test` that runs us. */
export const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));

/** Runs `command`, asserts it exits with 0 and returns its stdout. */
export function run(command, args, cwd, env = {}) {
  const result = spawnSync(command, args, { cwd, env: { ...cleanEnv, ...env }, encoding: "utf8" });
  assert.equal(result.error, undefined, `${command}: ${result.error}`);
  const tail = (text) => (text.length > 4000 ? `...${text.slice(-4000)}` : text);
  assert.equal(
    result.status,
    0,
    `${command} ${args.join(" ")} failed:\n${tail(result.stdout)}\n${tail(result.stderr)}`,
  );
  return result.stdout;
}

/** `npm pack`s pkg/ into `dir`; returns npm's entry ({ filename, files: [{ path }] }) and the tarball's path. */
export function pack(dir) {
  const [packed] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", dir], join(root, "pkg")));
  return { ...packed, tarball: join(dir, packed.filename) };
}

/**
 * A fresh ESM project named `name` in `dir` (created), with the tarball and the `extra`
 * packages (`name@version`) installed from npm's cache (`--prefer-offline`: the root
 * install put them there; the tarball has no dependencies).
 */
export function installInto(dir, name, tarball, extra = []) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version: "1.0.0", private: true, type: "module" }));
  const mode = extra.length === 0 ? "--offline" : "--prefer-offline";
  run("npm", ["install", tarball, ...extra, mode, "--no-audit", "--no-fund", "--loglevel=error"], dir);
}
