#!/usr/bin/env bash
# `npm test`: every check, in order, stopping at the first failure. CI runs exactly this.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

step() { printf '\n==> %s\n' "$*"; }

step "setup (with the browser and the fuzzer the tests need)"
bash scripts/setup.sh --test

step "JS and TS: format and lint (biome check; \`npm run format\` fixes the format)"
npm run --silent lint

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (host)"
cargo clippy --workspace --all-targets --quiet -- -D warnings

step "cargo clippy (wasm32)"
cargo clippy -p contextfold-wasm --target wasm32-unknown-unknown --quiet -- -D warnings

step "cargo test"
cargo test --workspace --quiet

step "build the wasm package"
node scripts/build-wasm.mjs

step "JS types: pkg/src checked against its .d.ts files (checkJs; needs the built glue's types)"
npm run --silent check:types

# The current Node LTS (scripts/setup.sh installs it): first on PATH, so that the tools the
# tests start (wrangler, next, npm's node) run on it too. Since Node 22 `--test` takes
# files or globs, not directories: the shell expands the file lists.
on_lts() { PATH="$ROOT/.tools/node-lts/bin:$PATH" "$@"; }

step "JS tests against the built package on the machine's Node ($(node --version)): Node, headless Chromium, tsc types, playground"
node --test --test-reporter=spec tests/node/ tests/browser/ tests/types/ tests/playground/

step "JS tests on the current Node LTS ($(on_lts node --version)): Node, workerd (current miniflare), npm pack"
on_lts node --test --test-reporter=spec tests/node/*.test.mjs tests/workerd/*.test.mjs tests/pack/*.test.mjs

step "bundlers on the Node LTS: the packed tarball built by esbuild, webpack, Vite, wrangler and Next.js, run in Node, Chromium, workerd"
on_lts node --test --test-reporter=spec tests/bundlers/*.test.mjs

step "reliability suite: properties over every format, bad-input corpus, prompt injection, soak"
node --test --test-reporter=spec tests/reliability/

step "third-party validation: every output judged by the real SDKs (ai, LangChain, @google/genai, tsc on the official types)"
node --test --test-reporter=spec tests/sdk/

step "fuzz: a short seeded cargo-fuzz run of each target (a notice and nothing else without nightly)"
FUZZ_SEED=1 bash scripts/fuzz.sh 10
