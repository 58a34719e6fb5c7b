#!/usr/bin/env bash
# Release build + Playwright e2e suite against dist/ (served statically by Playwright's webServer).
# Arguments go to `playwright test`, e.g. `bash scripts/e2e.sh tests/smoke.spec.ts`.
# Runs scripts/setup.sh first unless BUDDYSCOPE_SETUP_DONE=1 (scripts/test.sh sets it).
# BUDDYSCOPE_BENCH_BUILD=1: against the bench build instead (the app's `bench` feature, in
# dist-bench/): the specs that measure speed read its timing hooks, e.g.
# `BUDDYSCOPE_BENCH_BUILD=1 bash scripts/e2e.sh tests/engine-bench.spec.ts tests/bench.spec.ts`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$BUDDYSCOPE_ROOT"
if [ "${BUDDYSCOPE_SETUP_DONE:-}" != 1 ]; then
    bash scripts/setup.sh
fi

# Chromium and Playwright leave folders in $TMPDIR: give them one this run owns.
if [ -z "${BUDDYSCOPE_RUN_TMP:-}" ]; then
    BUDDYSCOPE_RUN_TMP="$BUDDYSCOPE_ROOT/target/run-tmp/e2e-$$"
    mkdir -p "$BUDDYSCOPE_RUN_TMP"
    trap 'rm -rf "$BUDDYSCOPE_RUN_TMP"' EXIT
fi
export TMPDIR="$BUDDYSCOPE_RUN_TMP"

step "e2e: native CLI (cargo build -p buddyscope-engine --bin buddyscope)"
cli="${CARGO_TARGET_DIR:-$BUDDYSCOPE_ROOT/target}/debug/buddyscope"
# scripts/test.sh sets BUDDYSCOPE_CLI_BUILT=1 after its test step: `cargo test --workspace` built
# this binary for the engine's CLI tests (test profile), and a dev-profile build here would compile
# the engine again for nothing.
if [ "${BUDDYSCOPE_CLI_BUILT:-}" = 1 ] && [ -x "$cli" ]; then
    info "built by the test step: $cli"
else
    t=$SECONDS
    cargo build -p buddyscope-engine --bin buddyscope
    info "built in $((SECONDS - t)) s"
fi

# scripts/test.sh sets BUDDYSCOPE_DIST_BUILT=1 when its wasm-build step (run while the host tests
# built and ran) has just written dist/.
if [ "${BUDDYSCOPE_BENCH_BUILD:-}" = 1 ]; then
    step "e2e: trunk build --release --features bench (dist-bench/)"
    t=$SECONDS
    trunk build --release --features bench --dist dist-bench
    info "built in $((SECONDS - t)) s"
    export E2E_DIST=dist-bench
elif [ "${BUDDYSCOPE_DIST_BUILT:-}" = 1 ] && [ -f dist/index.html ]; then
    step "e2e: release build"
    info "built by the wasm-build step: dist/"
else
    step "e2e: trunk build --release"
    t=$SECONDS
    trunk build --release
    info "built in $((SECONDS - t)) s; dist/:"
    (cd dist && for f in *; do info "$(printf '%8d  %s' "$(stat -c %s "$f")" "$f")"; done)
fi

step "e2e: playwright test"
cd e2e
./node_modules/.bin/playwright test "$@"
