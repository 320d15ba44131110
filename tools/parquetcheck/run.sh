#!/usr/bin/env bash
# run.sh: installs the second engine (npm nodejs-polars, pinned) if missing,
# then runs parquetexport/duckdbtest's TestSecondEngine, which exports the
# datasets, answers the queries of queries.json with DuckDB and checks
# Polars' answers with check.mjs. Usage (from anywhere in the repository):
#
#   tools/parquetcheck/run.sh [OUT]
#
# OUT (default /tmp/parquetcheck-out) keeps the datasets and answers.json;
# PARQUETCHECK_DEPS (default /tmp/parquetcheck) is where the npm packages go.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
deps=${PARQUETCHECK_DEPS:-/tmp/parquetcheck}
out=${1:-/tmp/parquetcheck-out}
version=0.26.1
if [ ! -d "$deps/node_modules/nodejs-polars" ]; then
  command -v npm >/dev/null || { echo "run.sh: npm not found (the second engine runs under node)" >&2; exit 2; }
  mkdir -p "$deps"
  [ -f "$deps/package.json" ] || (cd "$deps" && npm init -y >/dev/null)
  # The platform's prebuilt library is an optional dependency, which npm
  # sometimes leaves out: name it.
  case "$(node -p 'process.platform + "-" + process.arch')" in
    linux-x64) plat=nodejs-polars-linux-x64-gnu ;;
    linux-arm64) plat=nodejs-polars-linux-arm64-gnu ;;
    darwin-x64) plat=nodejs-polars-darwin-x64 ;;
    darwin-arm64) plat=nodejs-polars-darwin-arm64 ;;
    win32-x64) plat=nodejs-polars-win32-x64-msvc ;;
    *) plat= ;;
  esac
  (cd "$deps" && npm install --no-audit --no-fund --loglevel=error "nodejs-polars@$version" ${plat:+"$plat@$version"})
fi
cd "$root/parquetexport/duckdbtest"
PARQUETCHECK_DEPS=$deps PARQUETCHECK_OUT=$out go test -count=1 -run '^TestSecondEngine$' -v . 2>&1 | sed -n '/check.mjs:/,$p'
test "${PIPESTATUS[0]}" -eq 0
