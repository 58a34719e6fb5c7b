#!/usr/bin/env bash
# The release bundle's size (BENCHMARKS.md "Bundle"): raw and gzip -9 bytes of the wasm and the
# JS the page loads, the wasm's sections, and the code per crate.
#
#   bash scripts/bundle-size.sh                  # trunk build --release, then the tables
#   bash scripts/bundle-size.sh --no-build       # the tables for the dist/ that is there
#   bash scripts/bundle-size.sh --first-paint N  # also N first-paint loads in headless Chromium
#
# The per-crate table reads the rustc output that trunk handed to wasm-bindgen and wasm-opt
# ($CARGO_TARGET_DIR/wasm32-unknown-unknown/wasm-release/buddyscope-app.wasm, which still has
# its function names); tools/bundle/wasm_size.py explains how bytes are charged to crates.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$BUDDYSCOPE_ROOT"

build=1
first_paint=0
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) build=0 ;;
        --first-paint)
            first_paint=${2:?--first-paint needs a number of runs}
            shift
            ;;
        *) die "unknown argument: $1 (see the header of $0)" ;;
    esac
    shift
done

if [ "$build" = 1 ]; then
    trunk build --release >&2
fi

shopt -s nullglob
wasm=(dist/*_bg.wasm)
[ "${#wasm[@]}" = 1 ] || die "expected one dist/*_bg.wasm (run trunk build --release), found ${#wasm[@]}"
# The scripts index.html loads: trunk's glue for the wasm and boot.js (sw.js is the service worker,
# fetched after the page loaded; listed but not counted).
glue=("${wasm[0]%_bg.wasm}.js")
boot=(dist/boot-*.js)

raw() { stat -c %s "$1"; }
gz() { gzip -9 -c "$1" | wc -c; }

js_raw=0
js_gz=0
for f in "${glue[@]}" "${boot[@]}"; do
    js_raw=$((js_raw + $(raw "$f")))
    js_gz=$((js_gz + $(gz "$f")))
done
w_raw=$(raw "${wasm[0]}")
w_gz=$(gz "${wasm[0]}")
total_gz=$((w_gz + js_gz))

echo "## Bundle of dist/ (trunk build --release: cargo profile wasm-release, wasm-opt -Oz)"
echo
echo "| what | raw bytes | gzip -9 bytes |"
echo "|---|---:|---:|"
echo "| wasm | $w_raw | $w_gz |"
echo "| JS | $js_raw | $js_gz |"
echo "| wasm + JS | $((w_raw + js_raw)) | $total_gz |"
echo
echo "Budget (issue 10): wasm + JS ≤ 250 KB (256000 bytes) gzip -9; now $total_gz ($((total_gz * 100 / 256000))% of it)."
echo
echo "| file | raw bytes | gzip -9 bytes |"
echo "|---|---:|---:|"
for f in "${wasm[@]}" "${glue[@]}" "${boot[@]}" dist/sw.js dist/*.css dist/index.html; do
    [ -f "$f" ] && echo "| ${f#dist/} | $(raw "$f") | $(gz "$f") |"
done
echo
echo "### Sections of the shipped wasm"
echo
echo '```'
python3 tools/bundle/wasm_size.py sections "${wasm[0]}"
echo '```'

pre="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/wasm-release/buddyscope-app.wasm"
echo
if [ -f "$pre" ]; then
    echo "### Code per crate (rustc output, before wasm-bindgen and wasm-opt: $(raw "$pre") bytes)"
    echo
    python3 tools/bundle/wasm_size.py crates "$pre" --top 24
else
    echo "(no $pre: build with trunk build --release for the per-crate table)"
fi

if [ "$first_paint" -gt 0 ]; then
    echo
    echo "### First paint of the default scenario ($first_paint loads, headless Chromium, localhost)"
    echo
    (cd e2e && FIRST_PAINT_RUNS=$first_paint ./node_modules/.bin/playwright test tests/bundle.spec.ts \
        -g 'first paint' --reporter=list) | grep '^first-paint' || die "the first-paint run failed"
fi
