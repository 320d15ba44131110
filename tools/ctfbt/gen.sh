#!/usr/bin/env bash
# gen.sh: writes babeltrace2's text output for every trace of babeltrace's
# CTF test traces but the fail/ ones (succeed/, intersection/,
# packet-seq-num/, deterministic-ordering/, live/), the references of ctf's
# TestBabeltraceTracesText. Usage (from anywhere):
#
#   BT=/path/to/babeltrace2 tools/ctfbt/gen.sh TRACES OUT
#
# TRACES is tests/data/ctf-traces of a babeltrace v2.1.2 checkout (upstream
# data: never copy it into this repository); OUT receives one file per trace
# folder (a folder holding a metadata file) and per session folder
# (multi-domains, session-rotation of CTF 1.8 and CTF 2: several trace folders), named by its path under TRACES
# with '/' replaced by '_' plus ".txt", holding `TZ=UTC babeltrace2 FOLDER`
# (the default text.pretty sink). A trace babeltrace2 refuses gets a .err
# file (its stderr) and no .txt. BT defaults to the babeltrace2 2.1.2 that
# ../shared/bench/refs/ctf/build.sh builds. Then:
#
#   CTF_BT_TRACES=TRACES CTF_BT_REFS=OUT go test ./ctf -run TestBabeltraceTracesText -v
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: BT=babeltrace2 $0 TRACES OUT" >&2; exit 2; }
traces=$(cd "$1" && pwd)
out=$2
bt=${BT:-/tmp/tracecodec-refs/ctf/bt21/bin/babeltrace2}
[ -x "$bt" ] || { echo "gen.sh: $bt is not executable (set BT)" >&2; exit 2; }
"$bt" --version | head -1 >&2
mkdir -p "$out"
ok=0 refused=0
# gen REL: babeltrace2's output for the folder REL of TRACES
gen() {
  local rel=$1 name=${1//\//_}
  rm -f "$out/$name.txt" "$out/$name.err"
  if TZ=UTC "$bt" "$traces/$rel" > "$out/$name.txt.tmp" 2> "$out/$name.err"; then
    mv "$out/$name.txt.tmp" "$out/$name.txt"
    rm -f "$out/$name.err"
    ok=$((ok + 1))
  else
    rm -f "$out/$name.txt.tmp"
    refused=$((refused + 1))
    echo "gen.sh: babeltrace2 refuses $rel (see $out/$name.err)" >&2
  fi
}
while IFS= read -r meta; do
  dir=$(dirname "$meta")
  gen "${dir#"$traces"/}"
done < <(find "$traces" -name metadata -type f -not -path '*/fail/*' | sort)
# The folders of several traces (LTTng session folders: babeltrace2 merges
# every trace below them by time), named the same way; ctf's
# TestBabeltraceSessionsText compares them.
for rel in {1,2}/succeed/multi-domains {1,2}/succeed/session-rotation; do
  if [ -d "$traces/$rel" ]; then gen "$rel"; fi
done
echo "gen.sh: $ok outputs in $out, $refused traces refused" >&2
