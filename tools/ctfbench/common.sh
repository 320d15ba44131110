# common.sh — sourced by run.sh and dump.sh: the settings both take (ROUNDS, EVENTS, OUT, DIR, W, BT)
# and the babeltrace2 to run beside tracecat. Before sourcing, set EVENTS_DEFAULT and ME (the script's
# name, for messages).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
R=${ROUNDS:-5}
EVENTS=${EVENTS:-$EVENTS_DEFAULT}
OUT=${OUT:-/tmp/ctfbench}
DIR=${DIR:-$OUT/trace-$EVENTS}
W=${W:-${REFS_WORK:-/tmp/tracecodec-refs}/ctf}
if [ -z "${BT:-}" ]; then
  for b in "$W/bt21/bin/babeltrace2" /tmp/ctf-refs-ctf/bt21/bin/babeltrace2; do
    [ -x "$b" ] && BT=$b && break
  done
fi
[ -x "${BT:-}" ] || { echo "$ME: no babeltrace2: build it with ../shared/bench/refs/ctf/build.sh or set BT" >&2; exit 1; }
mkdir -p "$OUT"
