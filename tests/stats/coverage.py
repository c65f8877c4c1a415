#!/usr/bin/python3
"""The coverage of harness ab's CI under its --precision stopping rule, by simulation (docs/ab.md).

numpy draws the pair ratios of many duets (fixed seed) from several noise shapes; the C implementation
(test_paired --sim, the functions harness ab calls) looks at its fixed schedule, stops at the first look whose
95% CI half-width is within the precision (or at the cap), and prints the CI it stopped with. A rule that peeks
at the estimate, or a CI that is too narrow for few pairs, covers the true ratio less than 95% of the time;
this fails when the coverage is significantly below 95% (one-sided binomial test at 1%).
Usage: tests/stats/coverage.py BUILD_DIR   (about 30 s)"""
import subprocess
import sys

import numpy as np
from scipy import stats

EXPERIMENTS = 800
MAX_PAIRS = 240
PRECISION = 0.01


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


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    rng = np.random.default_rng(2029)
    failed = False
    for name, truth, draw in shapes(rng):
        lines = []
        for _ in range(EXPERIMENTS):
            r = np.exp(draw(MAX_PAIRS))
            lines.append(f"{MAX_PAIRS} " + " ".join(f"{x:.9g}" for x in r))
        out = subprocess.run([f"{build}/tests/test_paired", "--sim", str(PRECISION)], input="\n".join(lines) + "\n",
                             capture_output=True, text=True, check=True).stdout.split("\n")
        rows = [tuple(float(v) for v in line.split()) for line in out if line.strip()]
        assert len(rows) == EXPERIMENTS, (name, len(rows))
        covered = sum(1 for n, lo, hi in rows if lo <= truth <= hi)
        pairs = np.median([n for n, _, _ in rows])
        p = stats.binomtest(covered, EXPERIMENTS, 0.95, alternative="less").pvalue
        ok = p >= 0.01
        failed |= not ok
        print(f"{'ok' if ok else 'FAIL'}: {name}: coverage {covered / EXPERIMENTS:.3f} of {EXPERIMENTS} "
              f"(binomial p {p:.3f} against 0.95), median pairs at the stop {pairs:.0f}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
