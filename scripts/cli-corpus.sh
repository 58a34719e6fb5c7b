#!/usr/bin/env bash
# Every CLI output of every built-in scenario, exercise set and committed fixture, one file each,
# plus MANIFEST.sha256 over them: a change that must not change behaviour (a refactor) is checked
# by running this before and after and comparing the two manifests (`diff A/MANIFEST.sha256
# B/MANIFEST.sha256`, then `diff -r A B` for the files that differ).
#
#   bash scripts/cli-corpus.sh OUTDIR [CLI]
#
# CLI defaults to target/release/buddyscope, built first when missing. Takes a few minutes.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$BUDDYSCOPE_ROOT"

OUT="${1:?usage: bash scripts/cli-corpus.sh OUTDIR [CLI]}"
CLI="${2:-$BUDDYSCOPE_ROOT/target/release/buddyscope}"
if [ ! -x "$CLI" ]; then
    cargo build --release -p buddyscope-engine --bin buddyscope
fi
CLI="$(cd "$(dirname "$CLI")" && pwd)/$(basename "$CLI")"
rm -rf "$OUT"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
# Inputs unpacked from the fixtures, under a path relative to the checkout so that the outputs
# that name a file name the same one in every checkout.
TMP=target/corpus-in
rm -rf "$TMP"
mkdir -p "$TMP"

# One output: stdout, stderr and the exit code, so refusals are compared too.
out() {
    local name=$1
    shift
    local rc=0
    "$CLI" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err" || rc=$?
    echo "$rc" >"$OUT/$name.rc"
}

RUN_FORMATS=(summary json trace buddyinfo pagetypeinfo zoneinfo vmstat unusable_index extfrag_index
    fallback_matrix mixed_pageblocks polluters)
for f in engine/scenarios/*.json; do
    id=$(basename "$f" .json)
    step "corpus: $id"
    out "builtin.$id" builtin "$id"
    out "check.$id" check "$f"
    for fmt in "${RUN_FORMATS[@]}"; do
        out "run.$id.$fmt" run "$f" --format "$fmt"
    done
    out "run.$id.ops3.summary" run "$f" --ops 3 --format summary
    out "run.$id.ops3.pagetypeinfo" run "$f" --ops 3 --format pagetypeinfo
    out "run.$id.no-trace.summary" run "$f" --no-trace --format summary
    out "run.$id.no-trace.json" run "$f" --no-trace --format json
    for k in v6.12 v7.3; do
        out "run.$id.$k.summary" run "$f" --kernel "$k" --format summary
    done
    if python3 -c 'import json,sys; sys.exit(0 if "compare" in json.load(open(sys.argv[1])) else 1)' "$f"; then
        for side in a b; do
            for fmt in summary json trace buddyinfo pagetypeinfo vmstat fallback_matrix; do
                out "run.$id.side-$side.$fmt" run "$f" --side "$side" --format "$fmt"
            done
            out "run.$id.side-$side.ops2.summary" run "$f" --side "$side" --ops 2 --format summary
        done
    fi
    out "asks.$id" exercise-asks "$f" --from 0 --to 6
    for pfn in 0x0 0x200 0x1e00 0x100000; do
        out "where.$id.$pfn" where "$f" "$pfn" --format json
    done
done
out "builtin.list" builtin

for f in engine/exercises/*.json; do
    out "exercises.$(basename "$f" .json)" check-exercises "$f"
done
for f in engine/bench/*.json; do
    out "bench.$(basename "$f" .json).check" check "$f"
done
# bench-seeds is left out: it prints the engine's CPU time.

# gunzip a capture's file into the temp folder when the lab gzipped it.
capture_file() {
    local dir=$1 name=$2 dest=$3
    if [ -f "$dir/$name" ]; then
        cp "$dir/$name" "$dest"
    else
        gzip -dc "$dir/$name.gz" >"$dest"
    fi
}

for dir in engine/tests/fixtures/lab/*/*/; do
    dir=${dir%/}
    kver=$(basename "$(dirname "$dir")")
    wl=$(basename "$dir")
    id="lab.$kver.$wl"
    step "corpus: $id"
    t="$TMP/$id"
    mkdir -p "$t"
    capture_file "$dir" trace.txt "$t/trace.txt"
    capture_file "$dir" snapshot-before.json "$t/before.json"
    if grep -q '"window"' "$dir/capture.json"; then
        # A stretch of a long capture (lab/capture.py window): no markers, no after snapshot.
        snap=(--scenario "$t/before.json")
        for fmt in summary json fallback_matrix mixed_pageblocks polluters snapshot; do
            out "$id.window.$fmt" replay "$t/trace.txt" "${snap[@]}" --format "$fmt"
        done
        out "$id.predict.json" replay "$t/trace.txt" "${snap[@]}" --predict --format json
        continue
    fi
    capture_file "$dir" snapshot-after.json "$t/after.json"
    snap=(--scenario "$t/before.json" --from-marker "buddyscope: snapshot before"
        --to-marker "buddyscope: snapshot after")
    for fmt in summary json buddyinfo pagetypeinfo zoneinfo vmstat fallback_matrix mixed_pageblocks polluters; do
        out "$id.snapshot.$fmt" replay "$t/trace.txt" "${snap[@]}" --format "$fmt"
    done
    out "$id.snapshot.trace" replay "$t/trace.txt" "${snap[@]}" --format trace
    out "$id.predict.json" replay "$t/trace.txt" "${snap[@]}" --expect "$t/after.json" --predict --format json
    out "$id.predict.summary" replay "$t/trace.txt" "${snap[@]}" --expect "$t/after.json" --predict --format summary
    out "$id.compare-model.summary" replay "$t/trace.txt" "${snap[@]}" --compare-model --format summary
    out "$id.proc.summary" replay "$t/trace.txt" \
        --init "pagetypeinfo=$dir/before/pagetypeinfo,zoneinfo=$dir/before/zoneinfo,zone=all" \
        --kernel "v${kver%.*}" --cpus 2 --format summary
    out "$id.proc.json" replay "$t/trace.txt" \
        --init "pagetypeinfo=$dir/before/pagetypeinfo,zoneinfo=$dir/before/zoneinfo,zone=all" \
        --cpus 2 --format json
    out "$id.where" where "$t/trace.txt" 0x100000 --scenario "$t/before.json" --format json
done

n=engine/tests/fixtures/node-v2
out "node-v2.summary" replay "$n/trace.txt" --scenario "$n/before.json" --expect "$n/after.json" --predict --format summary
out "node-v2.json" replay "$n/trace.txt" --scenario "$n/before.json" --format json
for f in engine/tests/fixtures/*-pagetypeinfo.txt; do
    zi="${f%-pagetypeinfo.txt}-zoneinfo.txt"
    init="pagetypeinfo=$f"
    [ -f "$zi" ] && init="$init,zoneinfo=$zi"
    out "init.$(basename "$f" .txt).where" where "$n/trace.txt" 0x1000 --init "$init,zone=all" --format json
done

rm -rf "$TMP"
(cd "$OUT" && find . -type f ! -name MANIFEST.sha256 | LC_ALL=C sort | xargs sha256sum >MANIFEST.sha256)
info "$(find "$OUT" -type f ! -name MANIFEST.sha256 | wc -l) files, $(du -sh "$OUT" | cut -f1), manifest $OUT/MANIFEST.sha256"
