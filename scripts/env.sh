# shellcheck shell=bash
# Sourced by the other scripts: paths, PATH and the environment trunk needs.

BUDDYSCOPE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export BUDDYSCOPE_ROOT

# Project-local tools first (npm binaryen's wasm-opt 132; never Debian's binaryen 108), then cargo's.
export PATH="$BUDDYSCOPE_ROOT/.tools/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
# trunk must never download tools or check for updates (only package registries are reachable).
export TRUNK_OFFLINE=true
# Playwright uses the system Chromium (e2e/playwright.config.ts); never download browsers.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

step() { printf '\n==> %s\n' "$*"; }
info() { printf '    %s\n' "$*"; }
die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}
