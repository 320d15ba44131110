#!/usr/bin/env bash
# run.sh — whole-process CPU time and memory of babeltrace2 2.1.2 `-o dummy` beside `tracecat validate` on one
# LTTng-shaped CTF 1.8 trace made by testgen/ctfgen (through package ctf's TestGenerateTrace). See README.md.
#
#   tools/ctfbench/run.sh                 (from the project root)
#   ROUNDS=5 EVENTS=10000000 BT=/path/to/babeltrace2 DIR=/tmp/ctfbench/trace tools/ctfbench/run.sh
#
# BT defaults to the babeltrace2 that ../shared/bench/refs/ctf/build.sh builds ($W/bt21/bin/babeltrace2, W
# defaulting to /tmp/tracecodec-refs/ctf), else /tmp/ctf-refs-ctf/bt21/bin/babeltrace2. Rounds alternate
# (ref, ours, ref, ours, ...); each run's user+sys CPU and max RSS come from wait4(2) (python3 os.wait4).
set -euo pipefail
EVENTS_DEFAULT=10000000 ME=run.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
T=$OUT/tracecat
(cd "$ROOT" && go build -o "$T" ./cmd/tracecat)
gen_trace
echo "# $("$BT" --version | head -1); tracecodec $(git -C "$ROOT" describe --always --dirty); $(nproc) CPUs"
echo "# trace $DIR: $(du -sb "$DIR" | cut -f1) bytes, $(ls "$DIR" | grep -vc -e metadata -e index) data streams"
# both sides must read the same number of event records
ref_n=$("$BT" "$DIR" -c sink.utils.counter 2>/dev/null | grep 'Event messages' | tail -1 | awk '{print $1}')
ours_n=$("$T" validate "$DIR" | sed -n 's/.*; \([0-9]*\) event records in .*/\1/p')
echo "# event records: babeltrace2 $ref_n, tracecat $ours_n"
[ -n "$ref_n" ] && [ "$ref_n" = "$ours_n" ] || { echo "run.sh: event counts differ" >&2; exit 1; }
TSV=$OUT/times.tsv; : > "$TSV"
echo "# load before: $(uptime)"
for i in $(seq 1 "$R"); do
  printf 'ref\t%s\t%s\n' "$i" "$(cpu "$BT" -o dummy "$DIR")" >> "$TSV"
  printf 'validate\t%s\t%s\n' "$i" "$(cpu "$T" validate "$DIR")" >> "$TSV"
done
echo "# load after: $(uptime)"
python3 - "$TSV" "$EVENTS" <<'PY'
import sys, statistics as st, collections
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    k, i, t = l.rstrip('\n').split('\t'); u, s, m, rc = t.split()
    assert rc == '0', l
    d[k].append((float(u), float(s), int(m)))
n = int(sys.argv[2])
names = {'ref': 'babeltrace2 -o dummy', 'validate': 'tracecat validate'}
print('| command | user+sys s median | range | user s | sys s | max RSS MiB | M events/CPU-s | rounds |')
print('|---|---|---|---|---|---|---|---|')
for k in ['ref', 'validate']:
    v = d[k]; c = [u + s for u, s, _ in v]
    print('| %s | %.3f | %.3f–%.3f | %.3f | %.3f | %.0f | %.1f | %d |' % (names[k], st.median(c), min(c), max(c),
          st.median([x[0] for x in v]), st.median([x[1] for x in v]), st.median([x[2] for x in v]) / 1024, n / st.median(c) / 1e6, len(v)))
r = st.median([u + s for u, s, _ in d['ref']])
print('ratio babeltrace2 / tracecat validate (median user+sys): %.2f×' % (r / st.median([u + s for u, s, _ in d['validate']])))
PY
