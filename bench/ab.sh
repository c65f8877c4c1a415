#!/usr/bin/env bash
# Benchmark: how precise a verdict one minute buys. `harness ab X X http-hello` (an A/A duet for T seconds) against
# what the old way gets in the same wall time: two `harness run --repeat N http-hello` one after the other, then
# `harness compare`. For each: the throughput ratio's 95% CI half-width and the wall time, normalized to one
# minute (half-width x sqrt(wall / 60 s): a CI narrows as the square root of the time spent); their medians over
# ROUNDS rounds (the two ways alternated) and the ratio of precisions.
#   bench/ab.sh [RUNTIME] [SECONDS] [ROUNDS]     (default bun 60 3: about 6 x SECONDS)
# Startup (harness ab against hyperfine -N) is not measured: harness ab runs http scenarios only so far.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rt=${1:-bun} seconds=${2:-60} rounds=${3:-3}
harness=$top/bin/harness
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

/usr/bin/python3 - "$harness" "$rt" "$seconds" "$rounds" "$out" <<'PY'
import json, math, statistics, subprocess, sys, time
harness, rt, seconds, rounds, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]

def per_minute(half, wall):
    return half * math.sqrt(wall / 60)

def duet(i):
    t0 = time.monotonic()
    f = f"{out}/ab{i}.json"
    subprocess.run([harness, "ab", rt, rt, "http-hello", "--max-time", f"{seconds:.0f}s", "--precision", "0.05%",
                    "--connections", "50", "--window", "0.25", "--out", f], capture_output=True)
    wall = time.monotonic() - t0
    v = json.load(open(f))["verdicts"]["throughput"]
    return per_minute(v["ci_half_width"], wall), wall

def runs_and_compare(i, trial_s):
    # as many trials per side as fit in the same wall time: the first run measures a trial's cost
    n = max(3, int(seconds / 2 / trial_s)) if trial_s else 5
    t0 = time.monotonic()
    for side in "ab":
        subprocess.run([harness, "run", "--cpus", "1", "--runtimes", rt, "--repeat", str(n), "--out",
                        f"{out}/{side}{i}.json", "http-hello"], capture_output=True)
    c = subprocess.run([harness, "compare", f"{out}/a{i}.json", f"{out}/b{i}.json", "--format", "json"],
                       capture_output=True, text=True)
    wall = time.monotonic() - t0
    rows = [r for r in json.loads(c.stdout)["rows"] if r["metric"] == "rps"]
    r = rows[0]
    half = (r["ci_high"] - r["ci_low"]) / 2 / r["ratio"]
    trials = len(json.load(open(f"{out}/a{i}.json"))["trials"])
    return per_minute(half, wall), wall, wall / 2 / trials

res = {"ab": [], "runs": []}
trial_s = 0
for i in range(rounds):
    ways = [("ab", lambda: duet(i)), ("runs", lambda: runs_and_compare(i, trial_s))]
    for name, fn in (ways if i % 2 == 0 else ways[::-1]):
        r = fn()
        if name == "runs":
            trial_s = r[2]
        res[name].append(r[:2])
        print(f"round {i + 1} {name}: CI half-width {r[0] * 100:.2f}% per minute ({r[1]:.0f} s)", flush=True)
ab = statistics.median(x for x, _ in res["ab"])
rn = statistics.median(x for x, _ in res["runs"])
print(f"harness ab {rt} {rt} http-hello: median CI half-width per minute {ab * 100:.2f}%")
print(f"two harness run + compare:      median CI half-width per minute {rn * 100:.2f}%")
print(f"precision ratio (runs / ab): {rn / ab:.2f}x (target >= 3x)")
PY
