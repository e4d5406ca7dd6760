#!/usr/bin/env bash
# Runs every cargo-fuzz target of fuzz/ for N seconds each (default 20):
#   bash scripts/fuzz.sh [seconds]
# FUZZ_SEED=<n> fixes libFuzzer's random seed: from the same (empty) corpus, the same
# inputs in the same order, so a run that passed passes again. The test script (CI) runs
# so: a gate that turns red at random blocks unrelated work; finding new bugs is the
# job of longer unseeded runs (fuzz/README.md), whose finds become tests.
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`); without them it
# prints a notice and exits 0 — under CI=true it fails instead (the stable test crates/contextfold/tests/fuzz_smoke.rs
# runs the same target bodies in `cargo test`). A crash leaves its input in
# fuzz/artifacts/<target>/ and exits non-zero; see fuzz/README.md to replay it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SECONDS_PER_TARGET="${1:-20}"
# scripts/setup.sh installs cargo-fuzz into .tools/ where a nightly toolchain exists.
export PATH="$ROOT/.tools/bin:$PATH"

# A notice in a user's clone; under CI=true a failure: CI must not pass by skipping.
skipping() {
  if [ "${CI:-}" = true ]; then
    echo "fuzz: error: CI=true and $1 ($2). CI must not pass by skipping." >&2
    exit 1
  fi
  echo "fuzz: notice: $1 ($2); skipping the cargo-fuzz run."
  exit 0
}

if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  skipping "no nightly toolchain" "rustup toolchain install nightly"
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  skipping "cargo-fuzz is not installed" "cargo install cargo-fuzz, or npm run setup"
fi

for target in $(cargo +nightly fuzz list --fuzz-dir fuzz); do
  corpus="fuzz/corpus/$target"
  mkdir -p "$corpus"
  seeds=()
  [ -d "fuzz/seeds/$target" ] && seeds=("fuzz/seeds/$target")
  echo "==> fuzz $target for ${SECONDS_PER_TARGET}s"
  seed=()
  [ -n "${FUZZ_SEED:-}" ] && seed=("-seed=$FUZZ_SEED")
  cargo +nightly fuzz run --fuzz-dir fuzz "$target" "$corpus" "${seeds[@]}" -- \
    -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 -print_final_stats=1 "${seed[@]}"
done
