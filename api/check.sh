#!/usr/bin/env bash
# Compares the module's exported API with the one recorded in api/module.export
# and prints every change. Incompatible changes fail: a break must be a decision,
# recorded with api/update.sh and described in CHANGELOG.md.
set -euo pipefail
cd "$(dirname "$0")/.."
APIDIFF=${APIDIFF:-golang.org/x/exp/cmd/apidiff@v0.0.0-20261014143641-f0251eb4aa3e}
mod=github.com/tracecodec/tracecodec
all=$(go run "$APIDIFF" -m api/module.export "$mod" 2>&1 | grep -v '^Ignoring internal package' || true)
incompatible=$(go run "$APIDIFF" -m -incompatible api/module.export "$mod" 2>&1 | grep -v '^Ignoring internal package' || true)
if [ -n "$all" ]; then
  echo "exported API changes since the recorded API (api/module.export):"
  echo "$all"
fi
if [ -n "$incompatible" ]; then
  echo
  echo "INCOMPATIBLE API changes (above). If intended: describe them in CHANGELOG.md and run api/update.sh."
  exit 1
fi
echo "exported API: no incompatible change since the recorded API"
