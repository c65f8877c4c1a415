#!/usr/bin/python3
"""A results file of N trials made from a real fixture: its four trials copied N/4 times each, spread over
5 runtimes and 2 modes, with each copy's figures scaled a little (the summaries then have real work).
Usage: make_many.py FIXTURE.json N OUT.json"""
import copy
import json
import random
import sys


def scale(o, f):
    """Every number of a trial's figures times f, counts and flags left as they are."""
    if isinstance(o, dict):
        return {k: (v if k in ("trial", "order", "n", "outliers", "failed_runs") else scale(v, f)) for k, v in o.items()}
    if isinstance(o, list):
        return [scale(v, f) for v in o]
    if isinstance(o, float):
        return o * f
    return o


def main():
    src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    doc = json.load(open(src))
    base = doc["trials"]
    rng = random.Random(1)
    runtimes = ["node20", "node22", "bun", "deno", "workerd"]
    modes = ["pinned", "quota"]
    trials = []
    for i in range(n):
        t = copy.deepcopy(base[i % len(base)])
        group = i // len(base)
        t["runtime"] = runtimes[group % len(runtimes)]
        t["mode"] = modes[(group // len(runtimes)) % len(modes)]
        t["trial"] = group // (len(runtimes) * len(modes)) + 1
        t["order"] = i + 1
        f = 1 + rng.uniform(-0.05, 0.05)
        for k in ("startup", "load", "chat", "script"):
            if k in t:
                t[k] = scale(t[k], f)
        trials.append(t)
    doc["trials"] = trials
    doc.pop("summaries", None)
    with open(out, "w") as f:
        json.dump(doc, f, separators=(",", ":"))


main()
