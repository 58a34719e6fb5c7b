#!/usr/bin/env bash
# The release bundle's size (BENCHMARKS.md "Bundle"): raw and gzip -9 bytes of the first download
# (the main wasm and the JS the page loads before its first paint) and of each split module
# loaded later, the main wasm's sections, and the code per crate and per module.
#
#   bash scripts/bundle-size.sh                  # trunk build --release, then the tables
#   bash scripts/bundle-size.sh --no-build       # the tables for the dist/ that is there
#   bash scripts/bundle-size.sh --first-paint N  # also N first-paint loads in headless Chromium
#
# The per-crate tables read the rustc output (still with its function names) and the pieces the
# splitter made of it ($CARGO_TARGET_DIR/wasm32-unknown-unknown/wasm-release/buddyscope-app.wasm
# and its .split/ folder, scripts/wasm-split.sh); tools/bundle/wasm_size.py explains how bytes
# are charged to crates.
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
# The first download: what the page loads before its first paint: the main wasm, trunk's glue for
# it, the split loader the glue imports (scripts/wasm-split.sh) and boot.js. sw.js (the service
# worker, fetched after the page loaded) is listed but not counted.
glue="${wasm[0]%_bg.wasm}.js"
hash="${glue#dist/buddyscope-app-}"
hash="${hash%.js}"
loader=(dist/__wasm_split-"$hash".js)
boot=(dist/boot-*.js)
# The split modules (`split_<name>-<hash>.wasm`, fetched when a split point is first called) and
# the chunks of code that several of them share (`chunk_<n>-<hash>.wasm`, fetched with them).
later=(dist/split_*-"$hash".wasm dist/chunk_*-"$hash".wasm)

raw() { stat -c %s "$1"; }
gz() { gzip -9 -c "$1" | wc -c; }

js_raw=0
js_gz=0
for f in "$glue" "${loader[@]}" "${boot[@]}"; do
    js_raw=$((js_raw + $(raw "$f")))
    js_gz=$((js_gz + $(gz "$f")))
done
w_raw=$(raw "${wasm[0]}")
w_gz=$(gz "${wasm[0]}")
first_raw=$((w_raw + js_raw))
first_gz=$((w_gz + js_gz))
all_raw=$first_raw
all_gz=$first_gz

echo "## Bundle of dist/ (trunk build --release: cargo profile wasm-release, split by scripts/wasm-split.sh, wasm-opt -Oz)"
echo
echo "| what | raw bytes | gzip -9 bytes |"
echo "|---|---:|---:|"
echo "| wasm | $w_raw | $w_gz |"
echo "| JS | $js_raw | $js_gz |"
echo "| wasm + JS | $first_raw | $first_gz |"
for f in "${later[@]}"; do
    r=$(raw "$f")
    g=$(gz "$f")
    all_raw=$((all_raw + r))
    all_gz=$((all_gz + g))
    piece="$(basename "$f" "-$hash.wasm")"
    echo "| later: $piece | $r | $g |"
done
echo "| all wasm + JS | $all_raw | $all_gz |"
# The texts the wasm does not carry (scripts/wasm-split.sh: the built-ins but the default, the
# exercise sets, the pseudocode), one data file fetched after the first paint.
texts=(dist/texts-*.json)
[ "${#texts[@]}" = 1 ] || die "expected one dist/texts-*.json (scripts/wasm-split.sh), found ${#texts[@]}"
echo "| later: texts data file | $(raw "${texts[0]}") | $(gz "${texts[0]}") |"
echo
echo "The first download (\"wasm + JS\": the main wasm, its glue, the split loader, boot.js) is what"
echo "the page loads before its first paint; the \"later\" modules arrive when first needed, the texts"
echo "data file after the first paint (not counted in \"all wasm + JS\")."
echo "Budget: wasm + JS ≤ 250 KB (256000 bytes) gzip -9; the first download is"
echo "$first_gz ($((first_gz * 100 / 256000))% of it); everything $all_gz ($((all_gz * 100 / 256000))%)."
echo
echo "| file | raw bytes | gzip -9 bytes |"
echo "|---|---:|---:|"
for f in "${wasm[@]}" "$glue" "${loader[@]}" "${boot[@]}" "${later[@]}" "${texts[@]}" dist/sw.js dist/*.css dist/index.html; do
    [ -f "$f" ] && echo "| ${f#dist/} | $(raw "$f") | $(gz "$f") |"
done
echo
echo "### Sections of the shipped main wasm"
echo
echo '```'
python3 tools/bundle/wasm_size.py sections "${wasm[0]}"
echo '```'

# The splitter's output (function names kept) that scripts/wasm-split.sh saves next to the rustc
# output: the main module and each split module, before wasm-bindgen and wasm-opt.
pre="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/wasm-release/buddyscope-app.wasm"
split_main=("$pre.split"/buddyscope-app-"$hash".wasm)
echo
if [ -f "$pre" ] && [ -f "${split_main[0]}" ]; then
    echo "### Code per crate of the first download (the main module as split, before wasm-bindgen and wasm-opt: $(raw "${split_main[0]}") bytes)"
    echo
    python3 tools/bundle/wasm_size.py crates "${split_main[0]}" --top 24
    echo
    echo "### Code per module of the app and the engine in the first download"
    echo
    python3 tools/bundle/wasm_size.py modules "${split_main[0]}" --top 30
    echo
    echo "### Engine code the first frame does not link (none of it in the first download)"
    echo
    # The first frame reads only the default scenario's start (scenario::parse_boot_start) and
    # boots it (run::build_boot): the ops' reader and checks, the /proc and snapshot readers and
    # the runner come with the module runner (app/src/late.rs).
    python3 tools/bundle/wasm_size.py paths "${split_main[0]}" "$pre" \
        buddyscope::scenario::read::op_from_value buddyscope::scenario::validate::Checker \
        buddyscope::scenario::procfs buddyscope::scenario::zone_snapshot \
        buddyscope::scenario::node_snapshot buddyscope::run::runner::Exec
    for f in "$pre.split"/split_*.wasm "$pre.split"/chunk_*.wasm; do
        echo
        echo "### Code per crate of $(basename "$f" .wasm) (loaded later)"
        echo
        python3 tools/bundle/wasm_size.py crates "$f" --top 8
        echo
        python3 tools/bundle/wasm_size.py modules "$f" --top 12
    done
    echo
    echo "### Code per crate, the whole app (rustc output, before splitting: $(raw "$pre") bytes)"
    echo
    python3 tools/bundle/wasm_size.py crates "$pre" --top 24
else
    echo "(no $pre or its split: build with trunk build --release for the per-crate tables)"
fi

if [ "$first_paint" -gt 0 ]; then
    echo
    echo "### First paint of the default scenario ($first_paint loads, headless Chromium, localhost)"
    echo
    (cd e2e && FIRST_PAINT_RUNS=$first_paint ./node_modules/.bin/playwright test tests/bundle.spec.ts --trace off \
        -g 'first paint' --reporter=list) | grep '^first-paint' || die "the first-paint run failed"
fi
