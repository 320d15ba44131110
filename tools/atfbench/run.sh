#!/usr/bin/env bash
# run.sh — ../shared/bench/refs/atf/bench.sh with the rows the shared script does not have yet:
# write-thread with atf.WithMmapOutput (a.* go-mmap), iteration through the field getters and
# IndexFile.Blocks (b go-mmapfields, go-defaultfields, go-mmapblocks, go-defaultblocks) and the
# detail getters (d go-mmapfields). It copies ../shared/bench/refs into $T, applies
# extra-rows.patch to the copy (the shared folder is not changed), rebuilds only our Go driver
# against this checkout, and runs the patched bench.sh with the references build.sh left in $W.
#
#   W=/tmp/tracecodec-refs/atf tools/atfbench/run.sh a b c d     (from the project root)
#
# Build the references once first: ../shared/bench/refs/atf/build.sh (see its README).
set -euo pipefail
ROOT=$(pwd)
grep -q '^module github.com/tracecodec/tracecodec$' go.mod || { echo "run from the project root" >&2; exit 2; }
T=${T:-/tmp/tracecodec-atfbench}
export W=${W:-/tmp/tracecodec-refs/atf}
rm -rf "$T/sb"; mkdir -p "$T/sb/bench"
cp -r "$ROOT/../shared/bench/refs" "$T/sb/bench/"
(cd "$T/sb/bench/refs/atf" && patch -s -p1 < "$ROOT/tools/atfbench/extra-rows.patch")
chmod +x "$T"/sb/bench/refs/atf/*.sh
PROJECT=$ROOT bash "$T/sb/bench/refs/atf/build-go.sh"
PROJECT=$ROOT bash "$T/sb/bench/refs/atf/bench.sh" "$@"
