#!/usr/bin/env bash
# trunk's post_build hook (Trunk.toml): puts the lab captures listed in www/captures.txt into the
# build, unpacked, for the trace panel's "real kernel" replays: captures/<version>/<workload>/
# capture.json, snapshot-before.json and trace.txt (the app fetches them when asked, so they are
# not part of the first download).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$BUDDYSCOPE_ROOT"

staging="${TRUNK_STAGING_DIR:?run by trunk as a post_build hook (Trunk.toml)}"
lab=engine/tests/fixtures/lab
while IFS=$'\t' read -r dir _what; do
    case "$dir" in '' | '#'*) continue ;; esac
    src="$lab/$dir"
    [ -f "$src/capture.json" ] || die "www/captures.txt: $dir: no $src/capture.json (a lab capture folder)"
    out="$staging/captures/$dir"
    mkdir -p "$out"
    cp "$src/capture.json" "$out/"
    gunzip -c "$src/snapshot-before.json.gz" >"$out/snapshot-before.json"
    gunzip -c "$src/trace.txt.gz" >"$out/trace.txt"
done <www/captures.txt
