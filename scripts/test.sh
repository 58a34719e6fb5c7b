#!/usr/bin/env bash
# The whole check, as CI runs it (.ci/run): setup, rustfmt, clippy (host and wasm32), the engine's
# and the app's tests, the drgn snapshot writer's and the lab's tests, the release wasm build and
# the Playwright e2e suite. The browserless checks run beside the e2e suite (see `checks`).
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
    if [ -n "${CHECKS_PID:-}" ] && kill -0 "$CHECKS_PID" 2>/dev/null; then
        kill -- "-$CHECKS_PID" 2>/dev/null || true
        wait "$CHECKS_PID" 2>/dev/null || true
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
    "$@" || return $?
    done_steps+=("$name")
    timings+=("$name $((SECONDS - t))s")
}

run_step setup bash scripts/setup.sh
export BUDDYSCOPE_SETUP_DONE=1
run_step fmt cargo fmt --all --check

# The release wasm build the e2e suite runs against compiles for wasm32 while the host tests
# build: cargo locks each profile's folder, not the target dir, so the two builds do not wait on
# each other, and each fills the other's serial stretches (linking, LTO) on a 2-core machine. Its
# own process group (setsid), so that a run ending early stops trunk and its cargo too.
WASM_BUILD_LOG="$BUDDYSCOPE_RUN_TMP/wasm-build.log"
WASM_BUILD_START=$SECONDS
step "wasm-build (in the background): trunk build --release > $WASM_BUILD_LOG"
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

# The engine's unit, property and doc tests and the app's component logic that needs no browser,
# compiled in one build: one feature set for the whole workspace, so the engine and the shared
# dependencies are compiled once, not once per package. It also builds the CLI
# (target/debug/buddyscope) that the e2e suite and the drgn tests run.
run_step test-build cargo test --workspace --no-run
export BUDDYSCOPE_CLI_BUILT=1

# The checks that need no browser run while the e2e suite does: one browser leaves part of the
# second core idle (chromium, the test runner and the static server take turns), and these fill
# it. Each runs as a step of its own, in order; their output goes to a log shown, with their
# timings, at the `checks` step after the e2e suite.
CHECKS_LOG="$BUDDYSCOPE_RUN_TMP/checks.log"
CHECKS_TIMES="$BUDDYSCOPE_RUN_TMP/checks.times"
host_checks() {
    check() {
        local name=$1 t=$SECONDS
        shift
        step "$name: $*"
        "$@" || {
            local rc=$?
            printf '%s FAILED(%d)\n' "$name" "$rc" >>"$CHECKS_TIMES"
            return "$rc"
        }
        printf '%s %ds\n' "$name" "$((SECONDS - t))" >>"$CHECKS_TIMES"
    }
    check clippy cargo clippy --workspace --all-targets -- -D warnings &&
        # The app's wasm-only code paths, as trunk compiles them.
        check clippy-wasm cargo clippy -p buddyscope-app --target wasm32-unknown-unknown -- -D warnings &&
        check test cargo test --workspace &&
        # tools/drgn/snapshot.py without a kernel (python3 only; drgn is imported only for a live
        # walk); one test feeds the snapshot to the CLI the test-build step built.
        check test-drgn env BUDDYSCOPE_REQUIRE_CLI=1 PYTHONDONTWRITEBYTECODE=1 \
            python3 -m unittest discover -s tools/drgn &&
        # The kernel lab's pure parts (capture folder writer, summary, /proc check) without a VM.
        check test-lab env PYTHONDONTWRITEBYTECODE=1 python3 -m unittest discover -s lab
}
checks_wait() {
    local rc=0
    wait "$CHECKS_PID" || rc=$?
    cat "$CHECKS_LOG"
    while read -r name took; do
        [ "${took#FAILED}" = "$took" ] || current=$name
        timings+=("$name $took")
    done <"$CHECKS_TIMES"
    return "$rc"
}

run_step wasm-build wasm_build_wait
export BUDDYSCOPE_DIST_BUILT=1

: >"$CHECKS_TIMES"
step "checks (in the background, beside the e2e suite): clippy, clippy-wasm, test, test-drgn, test-lab > $CHECKS_LOG"
# Job control gives the background job a process group of its own, which the exit trap stops.
set -m
host_checks >"$CHECKS_LOG" 2>&1 &
CHECKS_PID=$!
set +m

# One browser (E2E_WORKERS=2 runs two): on 2 cores the suite is CPU-bound, and two browsers made
# each test about twice as slow. No Playwright trace: recording one snapshots the DOM and
# screencasts every frame of every test (a third of the suite's time), and CI keeps no files;
# `bash scripts/e2e.sh` alone keeps a failed test's trace. No saveScreenshot files either
# (E2E_SCREENSHOTS=off): a full-page one costs ~0.4 s of CPU, and nothing keeps them.
# A failed e2e suite still waits for the checks, so that one run reports both.
# Its output is kept too: a failed run ends with the names of the failed tests (failure_summary).
E2E_LOG="$BUDDYSCOPE_RUN_TMP/e2e.log"
# A failed test is retried once (E2E_RETRIES=1): it fails the run only if it fails again, and one
# that passed on its retry is named at the end as flaky, to be fixed.
e2e_suite() { env E2E_TRACE=off E2E_SCREENSHOTS=off E2E_RETRIES=1 bash scripts/e2e.sh 2>&1 | tee "$E2E_LOG"; }
e2e_rc=0
run_step e2e e2e_suite || e2e_rc=$?
checks_rc=0
run_step checks checks_wait || checks_rc=$?
# CI shows only the end of a run's output: what failed, short, after the checks' log. Of the
# e2e suite, Playwright's own summary (the "N failed" block that names each failed test) and the
# first lines of each failure's error; of a failed check, the end of its output.
failure_summary() {
    step "failures"
    if [ "$e2e_rc" -ne 0 ]; then
        # The list reporter's colours, if any, out; each failure's header "  1) [chromium] › …"
        # and up to 8 lines of its error (not the source excerpt or the stack), then the summary.
        sed 's/\x1b\[[0-9;]*m//g' "$E2E_LOG" | awk '
            /^  [0-9]+\) \[/ { print; left = 8; next }
            left > 0 && /^ *(> *)?[0-9]+ \||^ +at / { left = 0 }
            left > 0 { if ($0 !~ /^ *$/) { print; left-- } next }
            /^  [0-9]+ (failed|flaky|interrupted|did not run)$/ { tail = 1 }
            tail { print }' >"$BUDDYSCOPE_RUN_TMP/e2e.summary"
        if [ -s "$BUDDYSCOPE_RUN_TMP/e2e.summary" ]; then
            info "e2e: the failed tests"
            cat "$BUDDYSCOPE_RUN_TMP/e2e.summary"
        else
            info "e2e: exit $e2e_rc before any test failed; the end of its output:"
            tail -n 15 "$E2E_LOG"
        fi
    fi
    if [ "$checks_rc" -ne 0 ]; then
        # The checks stop at the first that fails: its output is the end of the log.
        info "check $current failed; the end of its output:"
        tail -n 20 "$CHECKS_LOG"
    fi
}

# Tests that passed only on their retry, named where CI shows them.
flaky_summary() {
    sed 's/\x1b\[[0-9;]*m//g' "$E2E_LOG" | awk '
        /^  [0-9]+ flaky$/ { on = 1; print; next }
        on && /^  [0-9]+ (passed|skipped|failed|did not run)/ { on = 0 }
        on && !/^ *$/ { print }'
}
if [ "$e2e_rc" -eq 0 ] && grep -q ' flaky$' "$E2E_LOG"; then
    info "e2e: tests that passed only when retried (flaky):"
    flaky_summary
fi

failed=()
[ "$e2e_rc" -eq 0 ] || failed+=(e2e)
# checks_wait names the check that failed.
[ "$checks_rc" -eq 0 ] || failed+=("$current")
if [ "${#failed[@]}" -gt 0 ]; then
    failure_summary
    current="${failed[*]}"
    exit 1
fi
