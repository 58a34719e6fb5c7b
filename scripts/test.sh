#!/usr/bin/env bash
# The whole check, as CI runs it (.ci/run): setup, rustfmt, clippy (host and wasm32), the engine's
# and the app's tests, the drgn snapshot writer's tests, the release wasm build and the Playwright
# e2e suite.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$BUDDYSCOPE_ROOT"

TEST_START=$SECONDS
current="setup"
done_steps=()
timings=()

# A folder this run owns for every temporary file (Chromium, Playwright, cargo); removed at exit.
BUDDYSCOPE_RUN_TMP="$BUDDYSCOPE_ROOT/target/run-tmp/test-$$"
mkdir -p "$BUDDYSCOPE_RUN_TMP"
export BUDDYSCOPE_RUN_TMP TMPDIR="$BUDDYSCOPE_RUN_TMP"

finish() {
    local rc=$?
    if [ -n "${WASM_BUILD_PID:-}" ] && kill -0 "$WASM_BUILD_PID" 2>/dev/null; then
        kill -- "-$WASM_BUILD_PID" 2>/dev/null || true
        wait "$WASM_BUILD_PID" 2>/dev/null || true
    fi
    rm -rf "$BUDDYSCOPE_RUN_TMP"
    local total=$((SECONDS - TEST_START))
    if [ "$rc" -eq 0 ]; then
        printf '\ntest.sh: PASSED in %d s (%s)\n' "$total" "${timings[*]}"
    else
        printf '\ntest.sh: FAILED at step "%s" (exit %d) after %d s; passed: %s\n' \
            "$current" "$rc" "$total" "${done_steps[*]:-none}"
    fi
}
trap finish EXIT

run_step() {
    local name=$1
    shift
    current=$name
    step "$name: $*"
    local t=$SECONDS
    "$@"
    done_steps+=("$name")
    timings+=("$name $((SECONDS - t))s")
}

run_step setup bash scripts/setup.sh
export BUDDYSCOPE_SETUP_DONE=1
run_step fmt cargo fmt --all --check
run_step clippy cargo clippy --workspace --all-targets -- -D warnings
# The app's wasm-only code paths, as trunk compiles them.
run_step clippy-wasm cargo clippy -p buddyscope-app --target wasm32-unknown-unknown -- -D warnings
# The engine's unit, property and doc tests and the app's component logic that needs no browser
# (JSON-path locator, chart helpers, ...), in one build: one feature set for the whole workspace,
# as clippy's, so the engine and the shared dependencies are compiled once, not once per package.
# The release wasm build the e2e suite runs against compiles for wasm32 while the host tests
# build and run: cargo locks each profile's folder, not the target dir, so the two builds do not
# wait on each other, and each fills the other's serial stretches (linking, LTO, single-threaded
# tests) on a 2-core machine. Its output goes to a log shown at its step.
WASM_BUILD_LOG="$BUDDYSCOPE_RUN_TMP/wasm-build.log"
WASM_BUILD_START=$SECONDS
step "wasm-build (in the background): trunk build --release > $WASM_BUILD_LOG"
# Its own process group (setsid), so that a run ending early stops trunk and its cargo too.
setsid trunk build --release >"$WASM_BUILD_LOG" 2>&1 &
WASM_BUILD_PID=$!
wasm_build_wait() {
    local rc=0
    wait "$WASM_BUILD_PID" || rc=$?
    cat "$WASM_BUILD_LOG"
    info "trunk build --release exit $rc, $((SECONDS - WASM_BUILD_START)) s after it started; dist/:"
    [ "$rc" -ne 0 ] || (cd dist && for f in *; do info "$(printf '%8d  %s' "$(stat -c %s "$f")" "$f")"; done)
    return "$rc"
}
run_step test cargo test --workspace
export BUDDYSCOPE_CLI_BUILT=1
# tools/drgn/snapshot.py without a kernel (python3 only; drgn is imported only for a live walk).
# The engine tests above built the CLI (target/debug/buddyscope) that one of these tests feeds the
# snapshot to, and that the e2e suite runs.
run_step test-drgn env BUDDYSCOPE_REQUIRE_CLI=1 PYTHONDONTWRITEBYTECODE=1 \
    python3 -m unittest discover -s tools/drgn
# The kernel lab's pure parts (capture folder writer, summary, /proc check) without a VM.
run_step test-lab env PYTHONDONTWRITEBYTECODE=1 python3 -m unittest discover -s lab
run_step wasm-build wasm_build_wait
export BUDDYSCOPE_DIST_BUILT=1
# One browser (E2E_WORKERS=2 runs two): on 2 cores the suite is CPU-bound, and two browsers made
# each test about twice as slow, so they saved little wall time and left less margin under the
# tests' timeouts.
run_step e2e bash scripts/e2e.sh
