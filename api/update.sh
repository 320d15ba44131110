#!/usr/bin/env bash
# Records the module's current exported API in api/module.export (apidiff
# export data), the baseline api/check.sh compares against. Run it when an API
# change is decided, together with a CHANGELOG.md entry.
set -euo pipefail
cd "$(dirname "$0")/.."
APIDIFF=${APIDIFF:-golang.org/x/exp/cmd/apidiff@v0.0.0-20261014143641-f0251eb4aa3e}
go run "$APIDIFF" -m -w api/module.export github.com/tracecodec/tracecodec 2>&1 | grep -v '^Ignoring internal package' || true
echo "recorded the exported API in api/module.export"
