#!/usr/bin/env bash
# trunk's post_build hook (Trunk.toml): splits the app's wasm at its `#[lazy]` split points, so
# the page first downloads only what the first paint needs (BENCHMARKS.md "Bundle").
#
# trunk 0.21 does not split (cargo-leptos does): by the time this hook runs trunk has run
# wasm-bindgen on the whole module. The splitter needs the rustc output (its relocations,
# app/build.rs links with --emit-relocs), so this starts again from it, in cargo-leptos's order:
#   1. wasm-split-cli: rustc output -> main module + one wasm per split point (and chunks of code
#      that several share) + __wasm_split.js, the loader the main module imports;
#   2. wasm-bindgen on the main module, under trunk's own output name (index.html, its preload
#      links and the run worker keep pointing at the same two files);
#   3. release only: wasm-opt on every piece (trunk's own wasm-opt is off, data-wasm-opt="0":
#      it would optimize the unsplit module that this replaces), terser on the glue and loader;
#   4. the split files get trunk's content hash in their names (the service worker serves
#      hashed names cache first), index.html lists them for the service worker's offline shell
#      and its integrity hashes are updated for the files replaced;
#   5. the texts the wasm does not carry (data is never split off a module, so every string
#      compiled in is in the first download): the built-in scenarios, the exercise sets and the
#      kernel functions' pseudocode, engine/scenarios/*.json, engine/exercises/*.json and
#      engine/src/explain/pseudocode.json, as one data file with its content
#      hash in its name, named in index.html (`<meta name="buddyscope-texts">`), which the app
#      fetches after the first paint (engine/src/scenario/texts.rs, app/src/shell/runner.rs).
# Environment from trunk: TRUNK_STAGING_DIR, TRUNK_PROFILE (debug|release), TRUNK_PUBLIC_URL.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$BUDDYSCOPE_ROOT"

staging="${TRUNK_STAGING_DIR:?run by trunk as a post_build hook (Trunk.toml)}"
public_url="${TRUNK_PUBLIC_URL:-/}"
case "${TRUNK_PROFILE:-debug}" in
    release) cargo_profile=wasm-release ;;
    *) cargo_profile=debug ;;
esac
command -v wasm-split-cli >/dev/null || die "wasm-split-cli not found: run bash scripts/setup.sh"

shopt -s nullglob
bg=("$staging"/buddyscope-app-*_bg.wasm)
[ "${#bg[@]}" = 1 ] || die "wasm-split: expected one buddyscope-app-*_bg.wasm in $staging"
name="$(basename "${bg[0]}" _bg.wasm)" # buddyscope-app-<trunk's hash>
hash="${name#buddyscope-app-}"

target_dir="${CARGO_TARGET_DIR:-}"
if [ -z "$target_dir" ]; then
    target_dir="$(cargo metadata --format-version 1 --no-deps |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
fi
input="$target_dir/wasm32-unknown-unknown/$cargo_profile/buddyscope-app.wasm"
[ -f "$input" ] || die "wasm-split: no $input"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# 1. Split. The loader imports `initSync` from the main glue, "./$name.js".
wasm-split-cli --target web --out-name "$name" "$input" "$work/split" >"$work/split.log" 2>&1 ||
    {
        cat "$work/split.log" >&2
        die "wasm-split-cli failed on $input"
    }

# The pieces as the splitter wrote them (function names kept) for scripts/bundle-size.sh's
# per-crate tables of the first download and of each split module.
rm -rf "$input.split"
cp -r "$work/split" "$input.split"

# 2. wasm-bindgen on the main module, as trunk runs it (--target web, no TypeScript), keeping the
# linker's exports (the stack pointer, the function table) that the split modules import.
wasm-bindgen --target web --no-typescript --keep-lld-exports \
    --out-dir "$work/bindgen" --out-name "$name" "$work/split/$name.wasm"

# 3. wasm-opt -Oz in release, as trunk ran it (the features rustc enabled are read from each
# module's target_features section). BUDDYSCOPE_WASM_NAMES=1 keeps the function names (-g) so a
# browser profile of the release build names its wasm functions.
optimize() {
    if [ "${TRUNK_PROFILE:-debug}" = release ]; then
        wasm-opt -Oz ${BUDDYSCOPE_WASM_NAMES:+-g} "$1" -o "$2"
    else
        cp "$1" "$2"
    fi
}

# 4. Hashed names for the split files and the loader; the loader's URLs and the glue's import
# follow them.
loader="__wasm_split-$hash.js"
sed_args=()
pieces=()
for f in "$work"/split/*.wasm; do
    base="$(basename "$f" .wasm)"
    [ "$base" = "$name" ] && continue
    optimize "$f" "$staging/$base-$hash.wasm"
    sed_args+=(-e "s|\"\\./$base\\.wasm\"|\"./$base-$hash.wasm\"|g")
    pieces+=("$base-$hash.wasm")
done
if [ "${#sed_args[@]}" -gt 0 ]; then
    sed "${sed_args[@]}" "$work/split/__wasm_split.js" >"$staging/$loader"
else
    cp "$work/split/__wasm_split.js" "$staging/$loader"
fi
grep -q "__wasm_split.js" "$work/bindgen/$name.js" ||
    die "wasm-split: the glue does not import ./__wasm_split.js (no split point?)"
# Only the import statements: the imports object keeps the module name the wasm asks for.
sed -e "/^import /s|\"\\./__wasm_split\\.js\"|\"./$loader\"|" "$work/bindgen/$name.js" >"$staging/$name.js"
optimize "$work/bindgen/${name}_bg.wasm" "$staging/${name}_bg.wasm"
# The glue and the loader are in the first download too: minified in release (terser, from
# scripts/setup.sh). Names of exports and of the wasm's imports are object keys and stay.
if [ "${TRUNK_PROFILE:-debug}" = release ]; then
    command -v terser >/dev/null || die "terser not found: run bash scripts/setup.sh"
    for js in "$staging/$name.js" "$staging/$loader"; do
        terser "$js" --module --ecma 2020 --compress --mangle -o "$work/min.js" ||
            die "terser failed on $js"
        mv "$work/min.js" "$js"
    done
fi
if [ -d "$work/bindgen/snippets" ]; then
    rm -rf "$staging/snippets"
    cp -r "$work/bindgen/snippets" "$staging/snippets"
fi

# 5. The texts' data file.
texts="$(python3 - "$staging" <<'EOF'
import glob, hashlib, json, os, sys

def texts(folder):
    return {
        os.path.basename(f)[: -len(".json")]: open(f, encoding="utf-8").read()
        for f in sorted(glob.glob(f"engine/{folder}/*.json"))
    }

data = json.dumps(
    {
        "scenarios": texts("scenarios"),
        "exercise_sets": texts("exercises"),
        "pseudocode": json.load(open("engine/src/explain/pseudocode.json", encoding="utf-8")),
    },
    ensure_ascii=False,
    separators=(",", ":"),
).encode("utf-8")
name = f"texts-{hashlib.sha256(data).hexdigest()[:16]}.json"
open(os.path.join(sys.argv[1], name), "wb").write(data)
print(name)
EOF
)"

# index.html: the integrity hashes of the two replaced files, a modulepreload of the loader, and
# the list of the split files (JSON the page never fetches from; sw.js caches every .js/.wasm URL
# that index.html names, so the split modules work offline too).
sri() { printf 'sha384-%s' "$(openssl dgst -sha384 -binary "$1" | openssl base64 -A)"; }
python3 - "$staging/index.html" "$public_url" "$name" "$(sri "$staging/$name.js")" \
    "$(sri "$staging/${name}_bg.wasm")" "$texts" "$loader" "${pieces[@]}" <<'EOF'
import json, re, sys

html_path, public_url, name, sri_js, sri_wasm, texts, loader, *pieces = sys.argv[1:]
html = open(html_path, encoding="utf-8").read()


def set_integrity(html, file, value):
    # Every tag that names the file gets the new integrity value.
    def fix(m):
        tag = m.group(0)
        if file not in tag or "integrity=" not in tag:
            return tag
        return re.sub(r'integrity="[^"]*"', f'integrity="{value}"', tag)

    return re.sub(r"<(?:link|script)\b[^>]*>", fix, html)


html = set_integrity(html, f"{name}.js", sri_js)
html = set_integrity(html, f"{name}_bg.wasm", sri_wasm)
files = [public_url + f for f in [loader, *pieces]]
listing = (
    '<script type="application/json" id="wasm-split-files">'
    + json.dumps(files)
    + "</script>"
)
# The loader is imported by the glue: preload it with the glue, not one round trip later.
preload = (
    f'<link rel="modulepreload" href="{public_url}{loader}" crossorigin="anonymous">'
)
# The texts' data file (the service worker caches every .json URL index.html names).
meta = f'<meta name="buddyscope-texts" content="{public_url}{texts}">'
html = html.replace("</head>", preload + listing + meta + "\n</head>", 1)
open(html_path, "w", encoding="utf-8").write(html)
EOF

info "wasm-split: $name + ${#pieces[@]} split module(s): ${pieces[*]:-none}; $texts"
