#!/usr/bin/python3
"""The verdict rule of `harness compare` against known truth: simulated results files through the real binary.

  /usr/bin/python3 tests/stats/check_compare.py [HARNESS]     (TAP on stdout; the tables as Markdown, '#'-led)

Each results file holds many rows (a scenario per row, startup trials of lognormal noise, numpy's generator
with a fixed seed), so one `harness compare` call judges a whole comparison the way a user's would: its rows
are one Holm family. It checks, with scipy as the oracle for the p-values and the binomial margins:

- A/A (B drawn like A): the rows called faster or slower, and the comparisons whose gate fails, at most alpha
  plus the binomial margin (the one-sided 99% bound of a rate of alpha over the count);
- the CI of every row that prints one covers the true ratio at least 93% of the time per CV and n;
- power: the share of rows called slower, and failing the gate, at true changes of 2/5/10/30% for CV 3/10/20%
  and n = 5/10/20 (5 trials are too few for 24 rows under Holm: the table says so; 6 rows judge them);
- Mann-Whitney p as scipy's mannwhitneyu computes it, on a sample of rows.

docs/statistics.md has the tables this prints."""
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy import stats

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HARNESS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "bin", "harness")
FIXTURE = os.path.join(TOP, "tests", "fixtures", "results", "v1-four-workloads.json")
ALPHA, THRESHOLD, SEED = 0.05, 0.05, 20261201
CVS, NS, EFFECTS = (0.03, 0.10, 0.20), (5, 10, 20), (0.02, 0.05, 0.10, 0.30)
ROWS = 24  # a comparison's rows: one Holm family
FILES_AA, FILES_POWER = 25, 15  # comparisons per condition: under a minute on a shared 2-CPU machine

rng = np.random.default_rng(SEED)
head = {k: v for k, v in json.load(open(FIXTURE)).items() if k not in ("trials", "summaries")}
tmp = tempfile.mkdtemp(prefix="harness-stats-")
tap = []


def ok(cond, what):
    tap.append(("ok" if cond else "not ok", what))


def draw(n, cv, ratio):
    sigma = math.sqrt(math.log1p(cv * cv))
    return list(10.0 * ratio * np.exp(sigma * rng.standard_normal(n)))


def write(path, cells):
    trials = []
    for scn, vals in cells:
        for i, v in enumerate(vals):
            trials.append({"scenario": scn, "runtime": "node22", "mode": "pinned", "trial": i + 1,
                           "order": len(trials) + 1, "startup": {"wall_ms": {"median": float(v)}},
                           "status": "ok"})
    with open(path, "w") as f:
        json.dump(dict(head, trials=trials), f)


def compare(rows):
    """rows: (n, cv, ratio) per row. Returns (exit status, the JSON rows with what they were drawn from)."""
    a = [("r%03d" % i, draw(n, cv, 1.0)) for i, (n, cv, _) in enumerate(rows)]
    b = [("r%03d" % i, draw(n, cv, ratio)) for i, (n, cv, ratio) in enumerate(rows)]
    pa, pb = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
    write(pa, a)
    write(pb, b)
    p = subprocess.run([HARNESS, "compare", "--format", "json", pa, pb], capture_output=True, text=True)
    if p.returncode not in (0, 1, 5):
        sys.exit("harness compare exited %d: %s" % (p.returncode, p.stderr))
    out = json.loads(p.stdout)
    by = {r["scenario"]: r for r in out["rows"]}
    return p.returncode, [(by["r%03d" % i], rows[i], a[i][1], b[i][1]) for i in range(len(rows))]


def margin(rate, count):
    """The one-sided 99% upper bound of a binomial rate over count trials, as a rate."""
    return stats.binom.ppf(0.99, count, rate) / count


SIGNIF = ("faster", "slower", "below_threshold")
results = []  # (kind, n, cv, ratio, json row, a, b, gate status, family size)


def run(kind, n, rows, files):
    gates = []
    for _ in range(files):
        status, got = compare(rows)
        gates.append(status)
        for r, (_, cv, ratio), a, b in got:
            results.append((kind, n, cv, ratio, r, a, b, len(rows)))
    return gates


# A/A: every row drawn alike; ROWS rows a comparison, ROWS / 3 of each CV
aa_gates = {}
for n in NS:
    aa_gates[n] = run("aa", n, [(n, CVS[i % 3], 1.0) for i in range(ROWS)], FILES_AA)
# power: every (effect, CV) twice a comparison, at each n; and five trials in comparisons of 6 rows
pw_gates = {}
for n in NS:
    pw_gates[n] = run("power", n, [(n, cv, 1 + e) for e in EFFECTS for cv in CVS] * 2, FILES_POWER)
run("power6", 5, [(5, cv, 1.3) for cv in CVS] * 2, 40)


def rows_of(kind, n=None, cv=None, ratio=None):
    return [x for x in results if x[0] == kind and (n is None or x[1] == n) and (cv is None or x[2] == cv)
            and (ratio is None or abs(x[3] - ratio) < 1e-12)]


def pct(x):
    return "%.1f%%" % (100 * x)


print("# A/A: rows called faster or slower (significant at all), comparisons failing the gate (exit 1), of "
      "%d comparisons of %d rows per n" % (FILES_AA, ROWS))
print("#")
print("# | n | CV | rows | faster/slower | any significant | too few trials | inconclusive | equivalent |")
print("# |---:|---:|---:|---:|---:|---:|---:|---:|")
for n in NS:
    for cv in CVS:
        rs = [x[4]["verdict"] for x in rows_of("aa", n, cv)]
        fs = sum(v in ("faster", "slower") for v in rs) / len(rs)
        anys = sum(v in SIGNIF for v in rs) / len(rs)
        print("# | %d | %d%% | %d | %s | %s | %s | %s | %s |" % (
            n, cv * 100, len(rs), pct(fs), pct(anys), pct(rs.count("too_few_trials") / len(rs)),
            pct(rs.count("inconclusive") / len(rs)), pct(rs.count("equivalent") / len(rs))))
        ok(anys <= margin(ALPHA, len(rs)), "A/A n=%d CV %d%%: %s of rows significant <= alpha + margin %s" % (
            n, cv * 100, pct(anys), pct(margin(ALPHA, len(rs)))))
print("#")
print("# | n | comparisons | gate failed (exit 1) | not judged (exit 5) |")
print("# |---:|---:|---:|---:|")
for n in NS:
    g = aa_gates[n]
    print("# | %d | %d | %s | %s |" % (n, len(g), pct(g.count(1) / len(g)), pct(g.count(5) / len(g))))
    ok(g.count(1) / len(g) <= margin(ALPHA, len(g)), "A/A n=%d: %d of %d gates failed, at most alpha + margin" % (
        n, g.count(1), len(g)))
ok(all(s == 5 for s in aa_gates[5]), "24 rows of 5 trials: every gate not judged (exit 5), never passed")

print("#")
print("# Power: rows called slower (and failing the gate), true change +2/5/10/30%%, %d rows per cell" %
      (2 * FILES_POWER))
print("#")
print("# | n | CV | +2% | +5% | +10% | +30% |")
print("# |---:|---:|---:|---:|---:|---:|")
for n in NS:
    for cv in CVS:
        cells = []
        for e in EFFECTS:
            rs = rows_of("power", n, cv, 1 + e)
            slower = sum(x[4]["verdict"] == "slower" for x in rs) / len(rs)
            gated = sum(x[4]["regression"] for x in rs) / len(rs)
            cells.append("%s (%s)" % (pct(slower), pct(gated)))
        print("# | %d | %d%% | %s |" % (n, cv * 100, " | ".join(cells)))
rs = rows_of("power6")
print("#")
print("# 5 trials a side in comparisons of 6 rows, +30%%: %s called slower, %s failing the gate" % (
    pct(sum(x[4]["verdict"] == "slower" for x in rs) / len(rs)), pct(sum(x[4]["regression"] for x in rs) / len(rs))))
for cv in (0.03, 0.10):
    rs = rows_of("power", 10, cv, 1.3)
    ok(sum(x[4]["regression"] for x in rs) / len(rs) >= 0.9,
       "+30%% at CV %d%%, 10 trials: the gate fails on at least 90%% of rows" % (cv * 100))

print("#")
print("# CI coverage of the true ratio (rows that print a CI)")
print("#")
print("# | n | CV 3% | CV 10% | CV 20% |")
print("# |---:|---:|---:|---:|")
for n, kinds in ((5, ("power6",)), (10, ("aa", "power")), (20, ("aa", "power"))):
    cells = []
    for cv in CVS:
        rs = [x for k in kinds for x in rows_of(k, n, cv) if "ci_low" in x[4]]
        cover = sum(x[4]["ci_low"] <= x[3] <= x[4]["ci_high"] for x in rs) / len(rs)
        cells.append("%s of %d" % (pct(cover), len(rs)))
        ok(cover >= 0.93, "CI coverage n=%d CV %d%%: %s >= 93%%" % (n, cv * 100, pct(cover)))
    print("# | %d | %s |" % (n, " | ".join(cells)))
ok(not any("ci_low" in x[4] for x in results if x[4]["verdict"] == "too_few_trials"),
   "no CI on a row with too few trials")

# significant rows are never said to show no change (before: "no significant change" at p = 1e-11 and +3%)
mislabelled = [x for x in results if x[4].get("p_adjusted", x[4]["p"]) < ALPHA and "ci_low" in x[4]
               and (x[4]["ci_low"] > 1 or x[4]["ci_high"] < 1)
               and x[4]["verdict"] not in ("faster", "slower", "below_threshold")]
ok(not mislabelled, "no significant row is called equivalent or no change (%d were)" % len(mislabelled))

# few trials and a large change: never a pass (before: 3 a side, 3x slower, "inconclusive", gate passed)
status, got = compare([(3, 0.03, 3.0)] * 4 + [(1, 0.03, 3.0)] * 4)
ok(status == 5 and all(r["verdict"] == "too_few_trials" for r, _, _, _ in got),
   "1 and 3 trials a side, 3x slower: too few trials for any verdict, gate not judged (exit %d)" % status)

# the trials that would settle it, from the rule itself: at the advised n an A/A row at CV 10% settles (is
# called equivalent) about 80% of the time (before: the t formula's ~76, where it stays inconclusive)
advised = sorted(x[4]["trials_needed"] for x in rows_of("aa", 10, 0.10) if x[4]["verdict"] == "inconclusive")
n_adv = advised[len(advised) // 2]
settled = []
for _ in range(2):
    status, got = compare([(n_adv, 0.10, 1.0)] * ROWS)
    settled += [r["verdict"] != "inconclusive" for r, _, _, _ in got]
print("#")
print("# A/A at CV 10%%: advised %d trials a side (median over the rows of 10); at %d, %s of %d rows settled" % (
    n_adv, n_adv, pct(sum(settled) / len(settled)), len(settled)))
ok(sum(settled) / len(settled) >= 0.65, "at the advised %d trials, %s of A/A rows at CV 10%% settle (80%% asked)" % (
    n_adv, pct(sum(settled) / len(settled))))

# the oracle: scipy's Mann-Whitney on every 50th row, exact as harness is without ties up to 50 a side
worst = 0
for x in results[::50]:
    exact = len(set(x[5] + x[6])) == len(x[5]) + len(x[6]) and max(len(x[5]), len(x[6])) <= 50
    want = stats.mannwhitneyu(x[5], x[6], alternative="two-sided",
                              method="exact" if exact else "asymptotic").pvalue
    worst = max(worst, abs(x[4]["p"] - want) / want)
ok(worst < 1e-9, "Mann-Whitney p as scipy's (worst relative difference %.1e)" % worst)

for i, (res, what) in enumerate(tap, 1):
    print("%s %d - %s" % (res, i, what))
print("1..%d" % len(tap))
sys.exit(0 if all(r == "ok" for r, _ in tap) else 1)
