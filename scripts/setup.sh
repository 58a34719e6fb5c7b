#!/usr/bin/env bash
# Installs what building, serving and testing buddyscope needs on a Debian machine that has the Rust
# toolchain (rustup). Idempotent: each tool is installed only when the right version is missing, so
# a second run takes seconds. Only package registries are used (crates.io, npm, Debian), no GitHub
# downloads.
#
#   bash scripts/setup.sh          everything: what serving needs, plus Chromium, python3 and the e2e
#                                  npm packages that the test command needs
#   bash scripts/setup.sh serve    only what `trunk serve` needs (Rust wasm target, trunk,
#                                  wasm-bindgen-cli, wasm-opt): scripts/serve.sh uses this
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$BUDDYSCOPE_ROOT"

TRUNK_VERSION=0.21.14
# The post-build splitter (scripts/wasm-split.sh, trunk's post_build hook); its binary is
# `wasm-split-cli`.
WASM_SPLIT_VERSION=0.2.3
BINARYEN_VERSION=132.0.0
# The release build's JS minifier (scripts/wasm-split.sh), installed beside wasm-opt.
TERSER_VERSION=5.51.4
SETUP_START=$SECONDS
WHAT="${1:-all}"
case "$WHAT" in
serve | all) ;;
*) die "usage: bash scripts/setup.sh [serve|all]" ;;
esac

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo "$@"
    else
        die "need root for: $*"
    fi
}

apt_updated=false
apt_install() {
    if [ "$apt_updated" = false ]; then
        as_root apt-get update -q
        apt_updated=true
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"
}

step "setup: Rust toolchain"
command -v cargo >/dev/null || die "cargo not found: install Rust with rustup first"
command -v rustup >/dev/null || die "rustup not found: install Rust with rustup first"
info "$(rustc --version)"
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    info "wasm32-unknown-unknown target: present"
else
    info "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
fi
for component in rustfmt clippy; do
    if rustup component list --installed | grep -q "^$component"; then
        info "$component: present"
    else
        info "adding $component"
        rustup component add "$component"
    fi
done

step "setup: cargo fetch (trunk builds offline)"
cargo fetch
info "crates fetched"

step "setup: wasm-bindgen-cli"
# The CLI must be exactly the wasm-bindgen version in Cargo.lock.
WASM_BINDGEN_VERSION="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"
[ -n "$WASM_BINDGEN_VERSION" ] || die "no wasm-bindgen package in Cargo.lock"
have="$(wasm-bindgen --version 2>/dev/null || true)"
if [ "$have" = "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
    info "wasm-bindgen $WASM_BINDGEN_VERSION: present"
else
    info "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (found: ${have:-none}; ~3 min)"
    # Not --locked: its lock file pins a crate version the registry no longer serves.
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi
if ! grep -q "wasm_bindgen = \"$WASM_BINDGEN_VERSION\"" Trunk.toml; then
    die "Trunk.toml [tools] wasm_bindgen does not match Cargo.lock's wasm-bindgen $WASM_BINDGEN_VERSION"
fi

step "setup: trunk $TRUNK_VERSION"
have="$(trunk --version 2>/dev/null || true)"
if [ "$have" = "trunk $TRUNK_VERSION" ]; then
    info "trunk $TRUNK_VERSION: present"
else
    info "installing trunk $TRUNK_VERSION (found: ${have:-none}; ~10 min on 2 cores)"
    cargo install trunk --version "$TRUNK_VERSION" --locked --force
fi

step "setup: wasm_split_cli_support $WASM_SPLIT_VERSION (splits the wasm after trunk's build)"
# It has no --version: cargo's list of installed packages says which one is there.
if cargo install --list | grep -qx "wasm_split_cli_support v$WASM_SPLIT_VERSION:" &&
    command -v wasm-split-cli >/dev/null; then
    info "wasm_split_cli_support $WASM_SPLIT_VERSION: present"
else
    info "installing wasm_split_cli_support $WASM_SPLIT_VERSION (~2 min on 2 cores)"
    cargo install wasm_split_cli_support --version "$WASM_SPLIT_VERSION" --features build-binary \
        --locked --force
fi

step "setup: node and npm"
if ! command -v npm >/dev/null; then
    info "installing nodejs and npm from Debian"
    apt_install nodejs npm
fi
info "node $(node --version), npm $(npm --version)"

step "setup: wasm-opt and terser (npm binaryen@$BINARYEN_VERSION, terser@$TERSER_VERSION in .tools/)"
WASM_OPT="$BUDDYSCOPE_ROOT/.tools/node_modules/.bin/wasm-opt"
TERSER="$BUDDYSCOPE_ROOT/.tools/node_modules/.bin/terser"
major="${BINARYEN_VERSION%%.*}"
if "$WASM_OPT" --version 2>/dev/null | grep -q "version $major\b" &&
    [ "$("$TERSER" --version 2>/dev/null)" = "terser $TERSER_VERSION" ]; then
    info "wasm-opt version $major and terser $TERSER_VERSION: present"
else
    # One install of both: a later `npm install --no-save` into the same prefix prunes what an
    # earlier one put there.
    info "installing binaryen@$BINARYEN_VERSION and terser@$TERSER_VERSION"
    mkdir -p .tools
    npm install --prefix "$BUDDYSCOPE_ROOT/.tools" --no-save --no-audit --no-fund --loglevel=error \
        "binaryen@$BINARYEN_VERSION" "terser@$TERSER_VERSION"
fi
info "$(command -v wasm-opt): $(wasm-opt --version)"
info "$(command -v terser): $(terser --version)"

if [ "$WHAT" = serve ]; then
    step "setup (serve): done in $((SECONDS - SETUP_START)) s (TRUNK_OFFLINE=$TRUNK_OFFLINE)"
    exit 0
fi

step "setup: Chromium"
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    info "present: $(/usr/bin/chromium --version 2>/dev/null || echo '/usr/bin/chromium')"
else
    info "installing chromium and chromium-driver from Debian"
    apt_install chromium chromium-driver
fi

step "setup: python3 (static server for the e2e tests)"
command -v python3 >/dev/null || apt_install python3
info "$(python3 --version)"

step "setup: e2e npm packages"
# `npm ci` only when package-lock.json changed since the last install.
lock_sum="$(sha256sum e2e/package-lock.json | cut -d' ' -f1)"
stamp=e2e/node_modules/.buddyscope-lock-sha256
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$lock_sum" ]; then
    info "e2e/node_modules up to date"
else
    (cd e2e && npm ci --no-audit --no-fund --loglevel=error)
    echo "$lock_sum" >"$stamp"
fi
info "playwright $(cd e2e && node -p 'require("@playwright/test/package.json").version')"

step "setup: done in $((SECONDS - SETUP_START)) s (TRUNK_OFFLINE=$TRUNK_OFFLINE)"
