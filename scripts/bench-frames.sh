#!/usr/bin/env bash
# The browser frame harness (BENCHMARKS.md, "Frames"): the bench build (the app's `bench` feature:
# its timing hooks, in dist-bench/), then e2e/bench/frames.bench.ts in headless Chromium. Prints a
# table and writes e2e/artifacts/bench-frames.json.
# Knobs: BENCH_ITER (samples per action, default 15), BENCH_STEPS (workload steps, default 3000),
# BENCH_PAINT_RUNS (first-paint navigations, default 7), BENCH_ENGINE_RUNS (wasm engine row, default 3),
# E2E_PORT (default 4180). Other arguments go to playwright, e.g.
# `bash scripts/bench-frames.sh bench/rastertrace.bench.ts` (a step's paint time per thread).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$BUDDYSCOPE_ROOT"
if [ "${BUDDYSCOPE_SETUP_DONE:-}" != 1 ]; then
    bash scripts/setup.sh
fi
if [ -z "${BUDDYSCOPE_RUN_TMP:-}" ]; then
    BUDDYSCOPE_RUN_TMP="$BUDDYSCOPE_ROOT/target/run-tmp/bench-$$"
    mkdir -p "$BUDDYSCOPE_RUN_TMP"
    trap 'rm -rf "$BUDDYSCOPE_RUN_TMP"' EXIT
fi
export TMPDIR="$BUDDYSCOPE_RUN_TMP"

step "bench: trunk build --release --features bench (dist-bench/)"
trunk build --release --features bench --dist dist-bench
export E2E_DIST=dist-bench

step "bench: frames (playwright, e2e/bench/frames.bench.ts)"
cd e2e
./node_modules/.bin/playwright test --config bench/playwright.config.ts "$@"
