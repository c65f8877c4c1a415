#!/usr/bin/python3
"""The coverage of harness ab's CI under its --precision stopping rule, by simulation (docs/ab.md).

numpy draws the pair ratios of many duets (fixed seed) from several noise shapes, three of them interleaved
duets whose windows carry over (each pair's carry-over passed with its ratio); the C implementation
(test_paired --sim, the functions harness ab calls) looks at its fixed schedule, stops at the first look whose
95% CI half-width is within the precision (or at the cap), and prints the CI it stopped with. A rule that peeks
at the estimate, or a CI that is too narrow for few pairs, covers the true ratio less than 95% of the time;
this fails when the coverage is significantly below 95% (one-sided binomial test at 1%).
The duets are drawn in order from one seed, then the C rule runs on each case's duets in parallel (a process per
CPU). --compare also runs the same duets without the carry-over adjustment and as one round, for what each buys
(docs/ab.md's figures; not checked, and most of the time: the unadjusted duets run to the cap).
Usage: tests/stats/coverage.py BUILD_DIR [--compare]   (about 20 s on 2 CPUs; --compare about 60 s)"""
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy import stats

EXPERIMENTS = 800
MAX_PAIRS = 240
PRECISION = 0.01
ROUNDS = 20


def shapes(rng):
    """(name, true ratio, draw(n) -> log ratios)"""
    yield "normal sd 3%", 1.0, lambda n: rng.normal(0, 0.03, n)
    yield "normal sd 3%, B 3% slower", 1.03, lambda n: np.log(1.03) + rng.normal(0, 0.03, n)
    yield "t(3) heavy tails", 1.0, lambda n: 0.02 * rng.standard_t(3, n)
    # each side's window skewed (now and then a slow one): the pair's log ratio is the difference of two
    yield "skewed per side", 1.0, lambda n: 0.02 * (rng.lognormal(0, 0.8, n) - rng.lognormal(0, 0.8, n))
    yield "skewed per side, B 3% slower", 1.03, \
        lambda n: np.log(1.03) + 0.02 * (rng.lognormal(0, 0.8, n) - rng.lognormal(0, 0.8, n))
    yield "normal sd 1.5% (stops at the first looks)", 1.0, lambda n: rng.normal(0, 0.015, n)


def interleaved(rng, n, b_effect=0.0, carry_a=0.08, carry_b=0.08):
    """An interleaved duet's pairs as harness ab makes them: each pair's order a coin flip (a warm-up pair first,
    left out), each window's log throughput a slow noise shared by neighbouring windows (AR(1), 0.8 a window),
    its own noise, B's effect, and the carry-over: a window after the other side's is carry_a (carry_b) slower.
    Returns the ratios B/A and each pair's carry-over (results/ab.c's)."""
    slow, last = 0.0, None
    ratios, carry = np.empty(n), np.empty(n)
    for i in range(n + 1):
        order = "BA" if rng.integers(0, 2) else "AB"
        v, after_other = {}, {}
        for side in order:
            slow = 0.8 * slow + rng.normal(0, 0.03)
            after_other[side] = 1 if last is not None and last != side else 0
            v[side] = slow + rng.normal(0, 0.02) + (b_effect if side == "B" else 0) \
                - (carry_b if side == "B" else carry_a) * after_other[side]
            last = side
        if i:
            ratios[i - 1] = np.exp(v["B"] - v["A"])
            carry[i - 1] = after_other["B"] - after_other["A"]
    return ratios, carry


def in_rounds(rng, rounds, per_round, b_effect=0.0, process_sd=0.006, heavy=False):
    """A duet in rounds: each round's two server processes have speeds of their own (lognormal, process_sd each;
    heavy: Student's t with 3 degrees of freedom scaled to that SD, a process now and then far off) shared by all
    of the round's pairs, then the round's pairs as interleaved() makes them. Returns the ratios, the carry-overs
    and each pair's round."""
    def process():
        return rng.standard_t(3) * process_sd / np.sqrt(3) if heavy else rng.normal(0, process_sd)

    r, c, g = [], [], []
    for k in range(rounds):
        offset = process() - process()
        rk, ck = interleaved(rng, per_round, b_effect)
        r.append(rk * np.exp(offset))
        c.append(ck)
        g.append(np.full(per_round, k))
    return np.concatenate(r), np.concatenate(c), np.concatenate(g)


def stop_rule(build, lines, truth, name):
    """The C stopping rule over the experiments: how many CIs covered the truth, the median pairs at the stop."""
    out = subprocess.run([f"{build}/tests/test_paired", "--sim", str(PRECISION)], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True).stdout.split("\n")
    rows = [tuple(float(v) for v in line.split()) for line in out if line.strip()]
    assert len(rows) == EXPERIMENTS, (name, len(rows))
    return sum(1 for n, lo, hi in rows if lo <= truth <= hi), np.median([n for n, _, _ in rows])


def main():
    build = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else "build"
    compare = "--compare" in sys.argv[1:]
    rng = np.random.default_rng(2029)
    failed = False
    cases = [(name, truth, lambda f=d: (np.exp(f(MAX_PAIRS)), None)) for name, truth, d in shapes(rng)]
    # the carry-over adjustment (stats/paired.c): its CI must hold the slope's own uncertainty; with the sides'
    # carry-overs unequal the estimate's target is the design's mean log ratio: each window follows the other
    # side's 3 times in 4 (the second of a pair always, the first half the time), so B/A = exp(-0.75 (cb - ca))
    cases += [
        ("interleaved, carry-over 8%", 1.0, lambda: interleaved(rng, MAX_PAIRS)),
        ("interleaved, carry-over 8%, B 3% slower", np.exp(-0.03), lambda: interleaved(rng, MAX_PAIRS, -0.03)),
        ("interleaved, carry-over A 4% B 10%", np.exp(-0.75 * 0.06),
         lambda: interleaved(rng, MAX_PAIRS, 0.0, 0.04, 0.10)),
    ]
    # rounds (stats/paired.c): the process pairs' own speeds make the round, not the pair, the unit; the CI of the
    # round means under the rule's looks at the rounds' ends, against the pairs' CI of the same duets
    cases += [
        ("rounds of 23 pairs, processes 0.6% apart", 1.0, lambda: in_rounds(rng, ROUNDS, 23)),
        ("rounds of 23 pairs, processes 0.6% apart, B 3% slower", np.exp(-0.03),
         lambda: in_rounds(rng, ROUNDS, 23, -0.03)),
        ("rounds of 23 pairs, processes 1.2% apart, heavy-tailed", 1.0,
         lambda: in_rounds(rng, ROUNDS, 23, 0.0, 0.012, True)),
    ]
    # every case's duets drawn first, in order (the seed's sequence is the cases'), then the rule run on them
    drawn = []
    for name, truth, draw in cases:
        lines, plain = [], []
        for _ in range(EXPERIMENTS):
            r, c, *g = draw()
            cells = " ".join(f"{x:.9g}" for x in r)
            extra = "" if c is None else " " + " ".join(f"{x:g}" for x in c)
            rounds = " " + " ".join(f"{x:d}" for x in g[0]) if g else ""
            lines.append(f"{len(r)} {cells}{extra}{rounds}")
            plain.append(f"{len(r)} {cells}{extra}" if g else f"{len(r)} {cells}")
        drawn.append((name, truth, lines, plain if compare and plain != lines else None))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        runs = [(pool.submit(stop_rule, build, lines, truth, name),
                 plain and pool.submit(stop_rule, build, plain, truth, name)) for name, truth, lines, plain in drawn]
        for (name, truth, lines, plain), (run, other) in zip(drawn, runs):
            covered, pairs = run.result()
            p = stats.binomtest(covered, EXPERIMENTS, 0.95, alternative="less").pvalue
            ok = p >= 0.01
            failed |= not ok
            print(f"{'ok' if ok else 'FAIL'}: {name}: coverage {covered / EXPERIMENTS:.3f} of {EXPERIMENTS} "
                  f"(binomial p {p:.3f} against 0.95), median pairs at the stop {pairs:.0f}")
            if other:  # what the adjustment (the rounds) buys: the same duets analysed without it
                covered, pairs = other.result()
                print(f"    the same duets {'as one round' if 'rounds' in name else 'unadjusted'}: coverage "
                      f"{covered / EXPERIMENTS:.3f}, median pairs at the stop {pairs:.0f}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
