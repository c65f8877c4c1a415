#!/usr/bin/env bash
# Benchmark: the shape of this host's noise, the figures a duet's design rests on (docs/ab.md, "Windows"). Two
# probes (tests/helpers/spin-rate KIND SECONDS 0.005: its rate every 5 ms) run at once, one pinned on each of two
# CPUs, for SECONDS; the rates are then summed into bins of 0.01 to 0.5 s. Per bin length it prints each probe's
# coefficient of variation, how much of it the two CPUs share at the same moment (the correlation of their log
# rates) and how much one CPU shares with its own next bin (the lag-1 autocorrelation), and the spread of the log
# ratio a duet of two equal sides would see from this noise alone: simultaneous (the two CPUs in one bin) and
# interleaved (one CPU, two bins one after the other). KIND is chase (a random walk over 8 MiB: what a neighbour's
# cache and memory traffic slows; a server's work is closer to it) or spin (a loop in a register: the CPU alone).
#   bench/host-noise.sh [KIND] [SECONDS]   (default chase 20)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kind=${1:-chase} secs=${2:-20}
probe=${HARNESS_HELPERS:-$top/build/helpers}/spin-rate
[ -x "$probe" ] || { echo "bench-host-noise: $probe is missing (make build/helpers/spin-rate)" >&2; exit 3; }
read -ra cpus < <(/usr/bin/python3 -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0)))))')
[ "${#cpus[@]}" -ge 2 ] || { echo "bench-host-noise: needs 2 CPUs (this process may use: ${cpus[*]})" >&2; exit 3; }
a=${cpus[-2]} b=${cpus[-1]}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
taskset -c "$a" "$probe" "$kind" "$secs" 0.005 >"$out/a" &
pa=$!
taskset -c "$b" "$probe" "$kind" "$secs" 0.005 >"$out/b" &
pb=$!
wait "$pa" "$pb"

/usr/bin/python3 - "$out/a" "$out/b" "$kind" "$a" "$b" <<'PY'
import sys
import numpy as np
fa, fb, kind, ca, cb = sys.argv[1:6]
ta, ra = np.loadtxt(fa, unpack=True)
tb, rb = np.loadtxt(fb, unpack=True)
t0 = max(ta[0], tb[0]) + 0.5  # the first half second left out (the probes' start)
t1 = min(ta[-1], tb[-1]) - 0.1
print(f"{kind} probes on CPUs {ca} and {cb}, {t1 - t0:.1f} s")
print("bin s   CV cpu{0}  CV cpu{1}  same moment corr  next bin corr  spread simultaneous  spread interleaved"
      .format(ca, cb))
for width in (0.01, 0.05, 0.1, 0.25, 0.5):
    edges = np.arange(t0, t1, width)
    if len(edges) < 12:
        continue
    def binned(t, r):
        # each record's operations spread evenly over it: the work done by each edge, by interpolation
        ends = np.append(t[1:], t[-1] + 0.005)
        done = np.concatenate([[0.0], np.cumsum(r * (ends - t))])
        return np.log(np.maximum(np.diff(np.interp(edges, np.append(t[0], ends), done)), 1.0))
    la, lb = binned(ta, ra), binned(tb, rb)
    cv = [np.std(np.exp(x)) / np.mean(np.exp(x)) for x in (la, lb)]
    same = np.corrcoef(la, lb)[0, 1]
    nxt = np.corrcoef(la[:-1], la[1:])[0, 1]
    simul = np.std(la - lb)
    inter = np.std(la[1::2][: len(la) // 2] - la[0::2][: len(la) // 2])
    print(f"{width:5.2f}   {cv[0]:8.3f}  {cv[1]:8.3f}  {same:16.2f}  {nxt:13.2f}  {simul:19.3f}  {inter:18.3f}")
PY
