// What the tests need from the machine (real transcripts, Chromium, ...) and what happens when
// it is missing: a user's clone skips with a notice; under CI=true the run fails instead, so CI
// can never pass by skipping. The one place that decides this for the JS tests.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

/** True when the run is CI's (the env var CI is exactly "true"). */
export const inCI = (env = process.env) => env.CI === "true";

/**
 * The reason to skip when `what` is missing, with `how` to get it; under CI=true it throws
 * instead. Use as `{ skip: missing(...) }` or `t.skip(missing(...))`.
 */
export function missing(what, how, env = process.env) {
  if (inCI(env)) throw new Error(`CI=true but ${what} not found: ${how}. CI must not pass by skipping.`);
  return `notice: ${what} not found, tests skipped (${how})`;
}

/** Skips the test `t` with a notice, or fails it under CI=true. */
export function skipMissing(t, what, how, env = process.env) {
  const reason = missing(what, how, env);
  t.diagnostic(reason);
  t.skip(reason);
}

/** Where the real third-party transcripts are read (CONTEXTFOLD_REAL_FIXTURES overrides, for testing this). */
export const realFixturesPath = (env = process.env) =>
  env.CONTEXTFOLD_REAL_FIXTURES ?? join(root, "../shared/fixtures/real");

export const REAL_FIXTURES = "the real transcripts (../shared/fixtures/real)";
export const REAL_FIXTURES_HOW =
  "they live beside the project in /work/shared/fixtures/real; read in place, never copied into the repo";
export const CHROMIUM_HOW = "run `npm run setup -- --test` (scripts/setup.sh --test installs Debian chromium)";

/** The real transcripts' directory, or null (with the notice) when absent; throws under CI=true. */
export function realFixturesDir(env = process.env) {
  const dir = realFixturesPath(env);
  if (existsSync(dir)) return dir;
  console.log(missing(`${REAL_FIXTURES} at ${dir}`, REAL_FIXTURES_HOW, env));
  return null;
}
