// Shared by the Node tests: paths, and the small chains the tests parse.
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { realFixturesDir } from "../shared/requirements.mjs";

export const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

/** The real transcripts shared beside the repository, or null when absent (throws under CI=true). */
export const fixturesDir = realFixturesDir();

export function fixtureFiles() {
  if (fixturesDir === null) return [];
  return readdirSync(fixturesDir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => join(fixturesDir, f));
}

// The small chains live in tests/shared/ so the browser and workerd tests can load them too.
export { openaiChain, orphanResultChain } from "../shared/chains.mjs";
