#!/usr/bin/env bash
# Benchmark: how precise a verdict a minute buys. `harness ab X X http-hello` (an A/A duet run to its --max-time)
# against the old way: two `harness run --repeat N http-hello` one after the other, then `harness compare`. For
# each: the throughput ratio's 95% CI half-width and the wall time, normalized to one minute (half-width x
# sqrt(wall / 60 s): a CI narrows as the square root of the time spent); their medians over ROUNDS rounds (the two
# ways alternated) and the ratio of precisions. Then startup: `harness ab node24 node24 startup` against
# `hyperfine -N` running the same node24 binary as both commands for about the same wall time (its ratio of means
# with a bootstrap CI, numpy).
#   bench/ab.sh [RUNTIME] [SECONDS] [ROUNDS]     (default bun 60 3)
# SECONDS is each measurement's wall time; a round is four measurements, so the whole takes about
# 4 x ROUNDS x SECONDS plus each run's set-up (about 15 minutes at the defaults). AB_BUDGET=S (seconds in all)
# sets SECONDS to fit S instead. Both ways get the same CPU budget (--cpus 1).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rt=${1:-bun} seconds=${2:-60} rounds=${3:-3}
if [ -n "${AB_BUDGET:-}" ]; then
	seconds=$((AB_BUDGET / (4 * rounds)))
	[ "$seconds" -ge 10 ] || {
		echo "bench/ab.sh: AB_BUDGET=$AB_BUDGET leaves under 10 s a measurement over $rounds rounds: give at least $((40 * rounds))" >&2
		exit 2
	}
fi
harness=$top/bin/harness
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "bench/ab.sh: $rounds rounds of four measurements of ${seconds} s each (about $((4 * rounds * seconds)) s and the set-ups)"

/usr/bin/python3 - "$harness" "$rt" "$seconds" "$rounds" "$out" <<'PY'
import json, math, os, statistics, subprocess, sys, time
harness, rt, seconds, rounds, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
began = time.monotonic()

def per_minute(half, wall):
    return half * math.sqrt(wall / 60)

def run(cmd, made=None):
    """cmd; its stdout. The bench stops, saying why, when it made no `made` file or failed outright (exit 0 and 1
    are verdicts: 1 is 'slower' or a failed trial, not a broken run)."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1) or (made and not os.path.exists(made)):
        sys.exit("bench/ab.sh: %s exited %d:\n%s" % (" ".join(cmd), p.returncode, p.stderr[-2000:]))
    return p.stdout

def duet(i):
    t0 = time.monotonic()
    f = f"{out}/ab{i}.json"
    # --precision at its floor: the duet runs to --max-time, the time the other way is given
    run([harness, "ab", rt, rt, "http-hello", "--cpus", "1", "--max-time", f"{seconds:.0f}s", "--precision",
         "0.05%", "--out", f], f)
    wall = time.monotonic() - t0
    v = json.load(open(f))["verdicts"]["throughput"]
    return per_minute(v["ci_half_width"], wall), wall

def runs_and_compare(i, trial_s):
    # as many trials a side as fit in the same wall time (the last round's trial cost tells), and at least the 6
    # a side without which compare gives no CI
    n = max(6, int(seconds / 2 / trial_s)) if trial_s else 6
    t0 = time.monotonic()
    for side in "ab":
        f = f"{out}/{side}{i}.json"
        run([harness, "run", "--cpus", "1", "--runtimes", rt, "--repeat", str(n), "--out", f, "http-hello"], f)
    c = run([harness, "compare", f"{out}/a{i}.json", f"{out}/b{i}.json", "--format", "json"])
    wall = time.monotonic() - t0
    rows = [r for r in json.loads(c)["rows"] if r["metric"] == "rps"]
    if not rows:
        sys.exit("bench/ab.sh: compare has no rps row:\n" + c[-2000:])
    r = rows[0]
    half = (r["ci_high"] - r["ci_low"]) / 2 / r["ratio"] if r.get("ci_low") is not None else math.inf
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
print(f"precision ratio (runs / ab): {rn / ab:.2f}x (target >= 3x)", flush=True)

# startup: harness ab against hyperfine -N running the same two commands (one binary, twice)
import numpy as np
node = run([harness, "images", "path", "node24"]).strip()
open(f"{out}/hello.js", "w").write('console.log("hello")\n')

def startup_duet(i):
    t0 = time.monotonic()
    f = f"{out}/st{i}.json"
    run([harness, "ab", "node24", "node24", "startup", "--cpus", "1", "--max-time", f"{max(5, seconds):.0f}s",
         "--precision", "0.05%", "--out", f], f)
    wall = time.monotonic() - t0
    return per_minute(json.load(open(f))["verdicts"]["startup"]["ci_half_width"], wall), wall

def hyperfine(i, runs):
    t0 = time.monotonic()
    f = f"{out}/h{i}.json"
    cmd = f"{node} {out}/hello.js"
    run(["hyperfine", "-N", "--warmup", "5", "--runs", str(runs), "--export-json", f, cmd, cmd], f)
    wall = time.monotonic() - t0
    a, b = (np.array(r["times"]) for r in json.load(open(f))["results"])
    rng = np.random.default_rng(i)
    boot = [rng.choice(b, len(b)).mean() / rng.choice(a, len(a)).mean() for _ in range(2000)]
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return per_minute((hi - lo) / 2 / (b.mean() / a.mean()), wall), wall

if node:
    st = {"ab": [], "hyperfine": []}
    runs = max(10, int(seconds / 0.15))  # a first guess (two commands of ~70 ms a run here); then the duet's time
    for i in range(rounds):
        w = startup_duet(i)
        st["ab"].append(w)
        print(f"round {i + 1} ab startup: CI half-width {w[0] * 100:.2f}% per minute ({w[1]:.0f} s)", flush=True)
        h = hyperfine(i, runs)
        runs = max(10, int(runs * w[1] / h[1]))  # the next round's hyperfine takes about the duet's time
        st["hyperfine"].append(h)
        print(f"round {i + 1} hyperfine -N: CI half-width {h[0] * 100:.2f}% per minute ({h[1]:.0f} s)", flush=True)
    sa = statistics.median(x for x, _ in st["ab"])
    sh = statistics.median(x for x, _ in st["hyperfine"])
    print(f"startup: harness ab {sa * 100:.2f}%, hyperfine -N {sh * 100:.2f}% per minute; ratio {sh / sa:.2f}x")
print(f"bench/ab.sh: {time.monotonic() - began:.0f} s in all")
PY
