#!/usr/bin/env bash
# The engine's mixed sequence in wasm (Node's V8) beside native, by CPU time, median of ROUNDS
# (BENCHMARKS.md "Engine: wasm vs native"):
#   bash tools/wasm-engine-bench/run.sh [ROUNDS]
# Builds this crate for wasm32-unknown-unknown twice, with the engine at the app's wasm profile
# (`opt-level = "z"` everywhere) and at the engine's override of the root Cargo.toml
# (`[profile.wasm-release.package.buddyscope-engine] opt-level = 3`), then runs both and the
# native `mixed_cpu` example, interleaved.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
rounds=${1:-7}
target=${CARGO_TARGET_DIR:-../../target}/wasm-engine-bench
out=$target/wasm32-unknown-unknown/release/wasm_engine_bench.wasm
CARGO_TARGET_DIR=$target cargo build --release --target wasm32-unknown-unknown
cp "$out" "$target/engine-z.wasm"
CARGO_TARGET_DIR=$target cargo build --release --target wasm32-unknown-unknown \
    --config 'profile.release.package.buddyscope-engine.opt-level=3'
cp "$out" "$target/engine-3.wasm"
(cd ../.. && cargo build --release -p buddyscope-engine --example mixed_cpu)
native=${CARGO_TARGET_DIR:-../../target}/release/examples/mixed_cpu
for _ in 1 2; do
    node run.mjs "$target/engine-z.wasm" "$rounds"
    node run.mjs "$target/engine-3.wasm" "$rounds"
    "$native" "$rounds" | sed -n '1,5p'
done
