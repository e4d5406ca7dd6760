#!/usr/bin/env bash
# `npm start [-- <file> [compact options]]`: set up, build, then compact a conversation
# (by default the shipped demo session) with the built-in offline summarizer.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
node scripts/build-wasm.mjs
echo

if [ $# -eq 0 ]; then
    # The demo session (about 40k tokens) into an 8k-token budget, with the default strategy.
    set -- "$ROOT/examples/demo-session.openai.json" --max-tokens 8000
fi
# npm runs scripts from the repository root; relative paths are the caller's.
cd "${INIT_CWD:-$ROOT}"
exec node "$ROOT/pkg/bin/contextfold.mjs" compact "$@"
