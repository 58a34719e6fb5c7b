#!/usr/bin/env bash
# Installs the tools if needed, then runs the dev server: http://127.0.0.1:8080/ (Trunk.toml),
# rebuilding on edits under www/, app/, engine/. Extra arguments go to `trunk serve`
# (e.g. `--release`, `--port 8081`). Installs only what serving needs: Chromium and the e2e npm
# packages belong to the test command (scripts/test.sh).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
bash "$BUDDYSCOPE_ROOT/scripts/setup.sh" serve
cd "$BUDDYSCOPE_ROOT"
step "trunk serve on http://127.0.0.1:8080/ (Ctrl-C stops it)"
# The dev build goes to target/serve-dist, not dist/: dist/ holds the release build that the e2e
# tests serve, and a dev build there would carry trunk's autoreload script.
exec trunk serve --dist target/serve-dist "$@"
