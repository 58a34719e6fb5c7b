#!/usr/bin/env bash
# The seeds' benchmarks at their real size (BENCHMARKS.md, "Seed benchmarks at full size"): each
# scenario of engine/bench/ (and the rmqueue_bulk fallback built-in) runs on both sides of its
# compare pair counters only, and the counters' B/A are printed next to the thread's measured B/A.
# Release build; about a minute of CPU.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build --release -q -p buddyscope-engine --bin buddyscope
bin="${CARGO_TARGET_DIR:-target}/release/buddyscope"
exec "$bin" bench-seeds engine/bench/*.json engine/scenarios/fallback-steal-no-mode-memory.json "$@"
