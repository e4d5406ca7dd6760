// What a test needs from the machine (Chromium, the real transcripts beside the project).
// A user's clone without it skips with a notice; CI never skips: under CI=true a missing
// requirement is a failure, so a green run means every test ran.
export const inCI = process.env.CI === "true";

/**
 * `false` when `present`, else the skip reason `what` (for `{ skip }` options and
 * `t.skip`). Under CI it throws instead, naming what is missing and how to get it.
 */
export function skipUnless(present, what) {
  if (present) return false;
  if (inCI) throw new Error(`CI=true and ${what}: CI never skips (run scripts/setup.sh, and keep ../shared beside the project)`);
  return `${what}: skipped`;
}

/** In a test: skips `t` with a notice when `present` is false (fails under CI). True when skipped. */
export function skipTestUnless(t, present, what) {
  const reason = skipUnless(present, what);
  if (!reason) return false;
  t.diagnostic(`notice: ${reason}`);
  t.skip(reason);
  return true;
}
