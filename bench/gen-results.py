#!/usr/bin/env python3
"""A large results file made from a real one's trials, for timing the report.

  gen-results.py REAL.json OUT.json [TRIALS] [MEGABYTES]

The real file's trials are the templates, cycled in order; each copy gets its own trial and order numbers and
its measurements scaled by a seeded factor (so medians, CIs and the charts differ per group as they would).
Startup trials get their runs resampled from the real runs, as many per trial as it takes for the file to
reach MEGABYTES (10 by default) at TRIALS trials (1,000 by default). The summaries are left out: the report
recomputes them. Prints what it made."""
import copy
import json
import random
import sys


def scaled(t, f, rng, nruns):
    t = copy.deepcopy(t)
    if "load" in t:
        t["load"]["rps"] *= f
        for k, v in t["load"].get("latency_us", {}).items():
            t["load"]["latency_us"][k] = v / f
    st = t.get("startup")
    if st:
        base = st.get("runs_ms") or [st["wall_ms"]["median"]]
        runs = [round(rng.choice(base) / f * rng.uniform(0.97, 1.03), 3) for _ in range(nruns)]
        st["runs_ms"], st["runs_exit"] = runs, [0] * nruns
        st["wall_ms"]["median"] = sorted(runs)[nruns // 2]
    return t


def build(templates, trials, nruns, seed=1):
    rng = random.Random(seed)
    out = []
    for i in range(trials):
        t = scaled(templates[i % len(templates)], rng.uniform(0.9, 1.1), rng, nruns)
        t["trial"], t["order"] = i // len(templates) + 1, i + 1
        out.append(t)
    return out


def main():
    real, path = sys.argv[1], sys.argv[2]
    trials = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    target = float(sys.argv[4]) if len(sys.argv) > 4 else 10.0
    doc = json.load(open(real))
    templates = [t for t in doc["trials"] if t.get("status") == "ok"]
    doc.pop("summaries", None)
    nruns, text = 30, ""
    while True:  # more runs per startup trial until the file is large enough
        doc["trials"] = build(templates, trials, nruns)
        text = json.dumps(doc, indent="\t")
        if len(text) >= target * 1e6 or not any("startup" in t for t in templates) or nruns > 100000:
            break
        nruns = int(nruns * max(1.1, target * 1e6 / len(text)))
    open(path, "w").write(text)
    kinds = {}
    for t in doc["trials"]:
        kinds[t["scenario"]] = kinds.get(t["scenario"], 0) + 1
    print("%s: %.1f MB, %d trials (%s), %d runs per startup trial" % (
        path, len(text) / 1e6, trials, ", ".join("%s %d" % kv for kv in kinds.items()), nruns))


if __name__ == "__main__":
    main()
