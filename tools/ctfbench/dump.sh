#!/usr/bin/env bash
# dump.sh — whole-process CPU time and memory of babeltrace2 2.1.2's text output (`babeltrace2 DIR`,
# its text.pretty sink) beside `tracecat dump DIR` (package ctf's Pretty) on one LTTng-shaped CTF 1.8 trace
# made by testgen/ctfgen (through package ctf's TestGenerateTrace). See README.md.
#
#   tools/ctfbench/dump.sh                (from the project root)
#   ROUNDS=7 EVENTS=1000000 REV=main BT=/path/to/babeltrace2 tools/ctfbench/dump.sh
#
# Both print to /dev/null; first their whole outputs are compared (cmp: they must be equal, byte for
# byte; babeltrace2 runs with TZ=UTC, as tracecat prints UTC times). REV, when set, also times the
# tracecat of that git revision (built from `git archive REV`) in the same rounds: ref, ours, REV, ref, …
# Each run's user+sys CPU and max RSS come from wait4(2) (python3 os.wait4).
set -euo pipefail
EVENTS_DEFAULT=1000000 ME=dump.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
T=$OUT/tracecat-dump
(cd "$ROOT" && go build -o "$T" ./cmd/tracecat)
TR=
if [ -n "${REV:-}" ]; then
  TR=$OUT/tracecat-dump-rev
  src=$(mktemp -d)
  trap 'rm -rf "$src"' EXIT
  git -C "$ROOT" archive "$REV" | tar -x -C "$src"
  (cd "$src" && go build -o "$TR" ./cmd/tracecat)
fi
gen_trace
export TZ=UTC
echo "# $("$BT" --version | head -1); tracecodec $(git -C "$ROOT" describe --always --dirty)${REV:+ and $REV ($(git -C "$ROOT" rev-parse --short "$REV"))}; $(nproc) CPUs"
echo "# trace $DIR: $(du -sb "$DIR" | cut -f1) bytes, $(ls "$DIR" | grep -vc -e metadata -e index) data streams"
# both must print the same text
if ! cmp <("$BT" "$DIR") <("$T" dump "$DIR"); then
  echo "dump.sh: tracecat dump's text differs from babeltrace2's" >&2; exit 1
fi
if [ -n "$TR" ] && ! cmp <("$BT" "$DIR") <("$TR" dump "$DIR"); then
  echo "dump.sh: $REV's tracecat dump text differs from babeltrace2's" >&2; exit 1
fi
echo "# text: $("$T" dump "$DIR" | wc -c) bytes, equal to babeltrace2's"
TSV=$OUT/dump-times.tsv; : > "$TSV"
echo "# load before: $(uptime)"
for i in $(seq 1 "$R"); do
  printf 'ref\t%s\t%s\n' "$i" "$(cpu "$BT" "$DIR")" >> "$TSV"
  printf 'dump\t%s\t%s\n' "$i" "$(cpu "$T" dump "$DIR")" >> "$TSV"
  if [ -n "$TR" ]; then
    printf 'rev\t%s\t%s\n' "$i" "$(cpu "$TR" dump "$DIR")" >> "$TSV"
  fi
done
echo "# load after: $(uptime)"
python3 - "$TSV" "$EVENTS" "${REV:-}" <<'PY'
import sys, statistics as st, collections
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    k, i, t = l.rstrip('\n').split('\t'); u, s, m, rc = t.split()
    assert rc == '0', l
    d[k].append((float(u), float(s), int(m)))
n, rev = int(sys.argv[2]), sys.argv[3]
names = {'ref': 'babeltrace2 (text)', 'dump': 'tracecat dump', 'rev': 'tracecat dump (%s)' % rev}
print('| command | user+sys s median | range | user s | sys s | max RSS MiB | M events/CPU-s | rounds |')
print('|---|---|---|---|---|---|---|---|')
for k in ['ref', 'dump', 'rev']:
    if k not in d:
        continue
    v = d[k]; c = [u + s for u, s, _ in v]
    print('| %s | %.3f | %.3f–%.3f | %.3f | %.3f | %.0f | %.1f | %d |' % (names[k], st.median(c), min(c), max(c),
          st.median([x[0] for x in v]), st.median([x[1] for x in v]), st.median([x[2] for x in v]) / 1024, n / st.median(c) / 1e6, len(v)))
med = {k: st.median([u + s for u, s, _ in v]) for k, v in d.items()}
print('ratio babeltrace2 / tracecat dump (median user+sys): %.2f×' % (med['ref'] / med['dump']))
if 'rev' in med:
    print('ratio babeltrace2 / tracecat dump of %s (median user+sys): %.2f×' % (rev, med['ref'] / med['rev']))
PY
