#!/usr/bin/env bash
# Benchmark: which `harness ab --window` buys the most precision a minute on this host now. For each try, one A/A
# duet of RUNTIME on SCENARIO at each window of WINDOWS (the order of the windows drawn anew per try, so that a
# change of the host's noise during the benchmark favours none), each capped at MAX_TIME seconds with the precision
# rule out of the way. Per duet it prints the pairs, the pairs' log-ratio spread (carry-over adjusted), the
# variance a round's mean had from its own pairs times the duet's wall time (the figure a window is chosen by: a
# CI's half-width after a fixed time goes as its square root), the CI half-width and the verdict; then per window
# the medians, and each window's variance a minute against the first window's. Each duet is read a second way
# too, as windows were counted before they counted their drain (the answers after the sending time left out, and
# the drain's time): the same windows' variance a minute and the rounds' CI half-width either way.
#   bench/ab-window.sh [SCENARIO] [RUNTIME] [WINDOWS] [TRIES] [MAX_TIME]
#   (default http-hello bun "0.1 0.05" 4 60: about 10 minutes)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
scen=${1:-http-hello} rt=${2:-bun} windows=${3:-0.1 0.05} tries=${4:-4} max_time=${5:-60}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

/usr/bin/python3 - "$top/bin/harness" "$scen" "$rt" "$windows" "$tries" "$max_time" "$out" <<'PY'
import json, math, random, statistics, subprocess, sys, time
from scipy import stats
harness, scen, rt, windows, tries, max_time, out = sys.argv[1:8]
windows, tries = windows.split(), int(tries)

def counted(x):
    return x["requests"] / x["duration_s"]

def uncounted(x):
    """The window's rate without its drain: its answers within the sending time over that time."""
    return (x["requests"] - x.get("drained", 0)) / (x["duration_s"] - x["drain_ms"] / 1e3)

def within(doc, rate=counted):
    """The mean over rounds of the variance of a round's mean from its own counted pairs (the carry-over slope
    taken out as the analysis takes it, fitted within rounds), and the rounds' 95% CI half-width (their means' t
    interval, as the analysis has it)."""
    w = doc["windows"]
    follows = {}
    for k, x in enumerate(w):
        follows[k] = 1.0 if k and w[k - 1]["round"] == x["round"] and w[k - 1]["side"] != x["side"] else 0.0
    pairs = {}
    for k, x in enumerate(w):
        pairs.setdefault((x["round"], x["pair"]), []).append((k, x))
    rounds = {}
    for (rd, p), q in pairs.items():
        if len(q) != 2 or q[0][1]["warmup"]:
            continue
        (ka, a), (kb, b) = sorted(q, key=lambda t: t[1]["side"])
        fa, fb = a.get("foreign_cpu_ms"), b.get("foreign_cpu_ms")
        if fa is not None and fb is not None and \
                abs(fa - fb) > max(0.05e3 * min(a["duration_s"], b["duration_s"]), 30):
            continue  # a noisy pair, left out as the analysis leaves it out
        if rate(a) <= 0 or rate(b) <= 0:
            continue
        l = math.log(rate(b)) - math.log(rate(a))
        rounds.setdefault(rd, []).append((l, follows[kb] - follows[ka]))
    sxy = sxx = 0.0
    for v in rounds.values():
        ml = statistics.fmean(l for l, _ in v)
        mc = statistics.fmean(c for _, c in v)
        sxy += sum((c - mc) * (l - ml) for l, c in v)
        sxx += sum((c - mc) ** 2 for l, c in v)
    g = sxy / sxx if sxx > 0 else 0.0
    var = [statistics.variance([l - g * c for l, c in v]) / len(v) for v in rounds.values() if len(v) > 2]
    means = [statistics.fmean(l - g * c for l, c in v) for v in rounds.values() if len(v) > 2]
    hw = stats.t.ppf(0.975, len(means) - 1) * math.sqrt(statistics.variance(means) / len(means))
    return statistics.fmean(var), math.expm1(hw)

res = {wd: [] for wd in windows}
for t in range(tries):
    order = windows[:]
    random.shuffle(order)
    for wd in order:
        f = f"{out}/{wd}-{t}.json"
        t0 = time.monotonic()
        p = subprocess.run([harness, "ab", rt, rt, scen, "--window", f"{wd}s", "--max-time", f"{max_time}s",
                            "--precision", "0.1%", "--out", f], capture_output=True, text=True)
        wall = time.monotonic() - t0
        if p.returncode not in (0, 1):
            sys.exit(f"window {wd}: harness ab exited {p.returncode}: {p.stderr.strip().splitlines()[-1:]}")
        d = json.load(open(f))
        v = d["verdicts"]["throughput"]
        cost = within(d)[0] * d["wall_s"]
        old, old_hw = within(d, uncounted)
        res[wd].append((cost, v["ci_half_width"], v["sd_log_ratio"], v["pairs"], v["verdict"], old * d["wall_s"],
                        old_hw))
        print(f"try {t + 1} window {wd} s: {v['pairs']} pairs, spread {v['sd_log_ratio']:.3f}, round-mean variance "
              f"x wall {cost:.2e}, half-width {v['ci_half_width'] * 100:.2f}%, {v['verdict']}, {wall:.0f} s; "
              f"the drain uncounted: {old * d['wall_s']:.2e}, half-width {old_hw * 100:.2f}%", flush=True)

base = statistics.median(r[0] for r in res[windows[0]])
for wd in windows:
    r = res[wd]
    med = [statistics.median(x[k] for x in r) if k != 4 else None for k in range(len(r[0]))]
    print(f"window {wd} s, {len(r)} duets: variance x wall median {med[0]:.2e} ({base / med[0]:.2f}x less than "
          f"{windows[0]} s), spread median {med[2]:.3f}, pairs median {med[3]:.0f}, half-width median "
          f"{med[1] * 100:.2f}%, verdicts {', '.join(sorted(x[4] for x in r))}; the drain uncounted: variance x "
          f"wall median {med[5]:.2e}, half-width median {med[6] * 100:.2f}%")
PY
