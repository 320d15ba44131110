#!/usr/bin/env bash
# One command for the viewer check: installs what it needs where missing (Debian's chromium,
# speedscope and playwright-core from npm into $VIEWERCHECK_DEPS, default /tmp/viewercheck),
# then runs check.mjs from the repository root with the arguments given, e.g.
#   bash tools/viewercheck/run.sh --shots /tmp/screens
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
deps=${VIEWERCHECK_DEPS:-/tmp/viewercheck}
if ! command -v chromium >/dev/null; then
  apt-get install -y chromium
fi
if [ ! -d "$deps/node_modules/speedscope" ] || [ ! -d "$deps/node_modules/playwright-core" ]; then
  mkdir -p "$deps"
  (cd "$deps" && { [ -f package.json ] || npm init -y >/dev/null; } && npm install speedscope@1.25.0 playwright-core@1.65.1)
fi
cd "$here/../.."
exec node tools/viewercheck/check.mjs --deps "$deps" "$@"
