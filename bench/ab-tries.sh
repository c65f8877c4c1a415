#!/usr/bin/env bash
# Benchmark: what `harness ab` decides, tried many times. First AA_TRIES A/A duets of RUNTIME on the ab-burn
# fixture (the same server both sides), then TRIES duets where B burns a calibrated extra CPU per request: 3% of
# A's cost per request, taken from the A/A duets' throughput. Each try is capped at MAX_TIME seconds. It prints
# each try's verdict, ratio, CI and wall time, then the counts: how many A/A tries ended other than "equivalent",
# and how many 3% tries were called "slower" with exit 1 (issue's target: at most 1 of 20, at least 9 of 10).
#   bench/ab-tries.sh [RUNTIME] [TRIES] [AA_TRIES] [MAX_TIME]     (default bun 10 20 120: up to an hour and more)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rt=${1:-bun} tries=${2:-10} aa_tries=${3:-20} max_time=${4:-120}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

/usr/bin/python3 - "$top/bin/harness" "$top/tests/fixtures/scenarios/ab-burn" "$rt" "$tries" "$aa_tries" \
	"$max_time" "$out" <<'PY'
import json, statistics, subprocess, sys, time
harness, scen, rt, tries, aa_tries, max_time, out = sys.argv[1:8]
tries, aa_tries = int(tries), int(aa_tries)

def duet(name, extra):
    f = f"{out}/{name}.json"
    t0 = time.monotonic()
    p = subprocess.run([harness, "ab", rt, rt, scen, "--max-time", f"{max_time}s", "--window", "0.25",
                        "--out", f] + extra, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode not in (0, 1):
        sys.exit(f"{name}: harness ab exited {p.returncode}: {p.stderr.strip().splitlines()[-1:]}")
    d = json.load(open(f))
    v = d["verdicts"]["throughput"]
    w = [x for x in d["windows"] if x["side"] == "A" and not x["warmup"]]
    rps = sum(x["requests"] for x in w) / sum(x["duration_s"] for x in w)
    print(f"{name}: exit {p.returncode}, {v['verdict']}, ratio {v['ratio']:.4f} "
          f"[{v['ci_low']:.4f}-{v['ci_high']:.4f}], half-width {v['ci_half_width'] * 100:.2f}%, {wall:.0f} s",
          flush=True)
    return p.returncode, v["verdict"], rps, v["ci_half_width"], wall

aa = [duet(f"aa{i + 1}", []) for i in range(aa_tries)]
rps = statistics.median(r[2] for r in aa) if aa else 0
burn = int(0.03 / 0.97 * 1e9 / rps) if rps else 0
print(f"A's throughput {rps:.0f} req/s: B burns {burn} ns a request (3% of A's cost)", flush=True)
slow = [duet(f"slow{i + 1}", ["--b-env", f"BURN_NS={burn}"]) for i in range(tries)] if burn else []

def times(rs):
    return f"wall median {statistics.median(r[4] for r in rs):.0f} s, half-width median " \
           f"{statistics.median(r[3] for r in rs) * 100:.2f}%" if rs else "none"

print(f"A/A: {sum(r[1] != 'equivalent' for r in aa)} of {len(aa)} ended other than equivalent "
      f"({', '.join(sorted(set(r[1] for r in aa)))}); {times(aa)}")
print(f"3% slower: {sum(r[0] == 1 and r[1] == 'slower' for r in slow)} of {len(slow)} called slower with exit 1; "
      f"{times(slow)}")
PY
