#!/usr/bin/env bash
# Release build + Playwright e2e suite against dist/ (served statically by Playwright's webServer).
# Arguments go to `playwright test`, e.g. `bash scripts/e2e.sh tests/smoke.spec.ts`.
# Runs scripts/setup.sh first unless BUDDYSCOPE_SETUP_DONE=1 (scripts/test.sh sets it).
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

# The `test` profile and the whole workspace's features, as `cargo test --workspace` builds it for
# the engine's CLI tests: after scripts/test.sh's test step this is already built (and the engine at
# the test profile's opt-level runs the suite's CLI calls faster). Both profiles write target/debug.
step "e2e: native CLI (cargo build --profile test --workspace --bin buddyscope)"
t=$SECONDS
cargo build --profile test --workspace --bin buddyscope
info "built in $((SECONDS - t)) s"

step "e2e: trunk build --release"
t=$SECONDS
trunk build --release
info "built in $((SECONDS - t)) s; dist/:"
(cd dist && for f in *; do info "$(printf '%8d  %s' "$(stat -c %s "$f")" "$f")"; done)

step "e2e: playwright test"
cd e2e
./node_modules/.bin/playwright test "$@"
