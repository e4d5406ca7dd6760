#!/usr/bin/env bash
# `npm run playground [-- --dev] [-- --port N]`: set up, build the wasm package and the
# playground (www/), then serve it on 127.0.0.1 and print its local URL.
#   default  `vite preview` of the built site (www/dist)
#   --dev    the Vite dev server instead (reloads on edits in www/)
# The real transcripts of ../shared/fixtures/real, when that directory exists, are listed
# in the page (served by www/vite.config.ts, read at request time, never copied).
# Chromium is not needed to use the playground: setup skips it unless
# CONTEXTFOLD_SKIP_BROWSER=0 is set.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

mode=preview
port="${PORT:-5173}"
while [ $# -gt 0 ]; do
    case "$1" in
        --dev) mode=dev ;;
        --port) shift; port="${1:?--port needs a number}" ;;
        --port=*) port="${1#--port=}" ;;
        -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "playground: unknown argument: $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done

bash scripts/setup.sh
node scripts/build-wasm.mjs

vite="$ROOT/node_modules/.bin/vite"
if [ "$mode" = dev ]; then
    echo
    echo "playground: Vite dev server (Ctrl-C stops it)"
    exec "$vite" www --config www/vite.config.ts --host 127.0.0.1 --port "$port"
fi
node scripts/build-www.mjs
echo
echo "playground: serving www/dist (Ctrl-C stops it); open the Local URL below"
exec "$vite" preview www --config www/vite.config.ts --host 127.0.0.1 --port "$port"
