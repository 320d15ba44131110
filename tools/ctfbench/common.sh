# common.sh — sourced by run.sh and dump.sh: the settings both take (ROUNDS, EVENTS, OUT, DIR, W, BT),
# the babeltrace2 to run beside tracecat, gen_trace (makes $DIR when missing) and cpu (one run's CPU
# times and max RSS). Before sourcing, set EVENTS_DEFAULT and ME (the script's
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
# gen_trace makes the generated trace of $EVENTS events in $DIR when it is not there yet.
gen_trace() {
  if [ ! -f "$DIR/metadata" ]; then
    echo "generating $EVENTS events into $DIR (testgen/ctfgen through package ctf's TestGenerateTrace)"
    mkdir -p "$DIR"
    (cd "$ROOT" && CTF_GEN_DIR="$DIR" CTF_GEN_EVENTS="$EVENTS" go test ./ctf -run '^TestGenerateTrace$' -count=1 >/dev/null)
  fi
}
cpu() { # command... -> "user sys maxrss_kib exit"
  python3 -c 'import os,sys
pid=os.fork()
if pid==0:
    fd=os.open("/dev/null",os.O_WRONLY); os.dup2(fd,1); os.dup2(fd,2); os.execv(sys.argv[1],sys.argv[1:])
_,st,ru=os.wait4(pid,0); print("%.6f %.6f %d %d"%(ru.ru_utime,ru.ru_stime,ru.ru_maxrss,os.waitstatus_to_exitcode(st)))' "$@"
}
