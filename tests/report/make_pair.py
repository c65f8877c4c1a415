#!/usr/bin/env python3
"""Two results files A and B from one real run, for the comparison page's test.

  make_pair.py REAL.json A.json B.json

Each trial of REAL becomes ten (itself scaled by 1 +- 2%, seeded), so compare has enough trials to reach
verdicts on all its rows (Holm's adjustment: five a side judge at most six rows); in B the first runtime's figures are 30% worse (throughput down, times up)."""
import copy
import json
import random
import sys


def make(doc, slow, rng):
    out = []
    for t in doc["trials"]:
        for k in range(10):
            c = copy.deepcopy(t)
            f = rng.uniform(0.98, 1.02) * (0.7 if c["runtime"] == slow else 1)
            c["trial"] = k + 1
            if "load" in c:
                c["load"]["rps"] *= f
                for p, v in c["load"].get("latency_us", {}).items():
                    c["load"]["latency_us"][p] = v / f
            if "startup" in c:
                c["startup"]["wall_ms"]["median"] /= f
                c["startup"]["runs_ms"] = [round(x / f, 3) for x in c["startup"].get("runs_ms", [])]
            out.append(c)
    for i, c in enumerate(out):
        c["order"] = i + 1
    d = copy.deepcopy(doc)
    d["trials"] = out
    d.pop("summaries", None)
    return d


def main():
    real, a, b = sys.argv[1:4]
    doc = json.load(open(real))
    first = doc["trials"][0]["runtime"]
    json.dump(make(doc, None, random.Random(1)), open(a, "w"))
    json.dump(make(doc, first, random.Random(2)), open(b, "w"))
    print("B: %s 30%% worse" % first)


if __name__ == "__main__":
    main()
