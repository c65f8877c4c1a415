#!/usr/bin/env python3
"""Check harness's exports the way their readers take them.

  check_exports.py gab FILE        github-action-benchmark's rules for customBiggerIsBetter and
                                   customSmallerIsBetter files (src/extract.ts: the file is JSON, an array,
                                   not empty; each entry a BenchmarkResult {name: string, value: number,
                                   unit: string, range?: string, extra?: string}); and names unique, since
                                   the action matches a benchmark across commits by its name.
  check_exports.py hyperfine FILE [REAL]
                                   the fields hyperfine's --export-json writes and its scripts read
                                   (plot_whisker.py: results[].command and .times; the others: mean,
                                   stddev, median, user, system, min, max, exit_codes), with their types;
                                   with REAL (an export hyperfine itself wrote), exactly its fields and
                                   JSON types.
Exit 0 when the file passes; else each problem on stderr, exit 1.
"""
import json
import math
import sys


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check_gab(doc):
    errs = []
    if not isinstance(doc, list):
        return ["not an array of entries in BenchmarkResult format"]
    if not doc:
        return ["no benchmark result was found"]
    names = set()
    for i, e in enumerate(doc):
        if not isinstance(e, dict):
            errs.append("entry %d: not an object" % i)
            continue
        if not isinstance(e.get("name"), str) or not e["name"]:
            errs.append("entry %d: name must be a non-empty string" % i)
        elif e["name"] in names:
            errs.append("entry %d: name %r twice" % (i, e["name"]))
        else:
            names.add(e["name"])
        if not is_num(e.get("value")):
            errs.append("entry %d: value must be a number" % i)
        if not isinstance(e.get("unit"), str):
            errs.append("entry %d: unit must be a string" % i)
        for k in ("range", "extra"):
            if k in e and not isinstance(e[k], str):
                errs.append("entry %d: %s must be a string when present" % (i, k))
        extra = set(e) - {"name", "value", "unit", "range", "extra"}
        if extra:
            errs.append("entry %d: fields the action drops: %s" % (i, sorted(extra)))
    return errs


def jtype(v):
    return "number" if is_num(v) else type(v).__name__


def check_hyperfine(doc, real=None):
    errs = []
    if real is not None:
        want = {k: jtype(v) for k, v in real["results"][0].items()}
        for i, r in enumerate(doc.get("results") or []):
            got = {k: jtype(v) for k, v in r.items()}
            if got != want:
                errs.append("results[%d]: fields %s, hyperfine writes %s" % (i, got, want))
    res = doc.get("results") if isinstance(doc, dict) else None
    if not isinstance(res, list) or not res:
        return ["results must be a non-empty array"]
    for i, r in enumerate(res):
        if not isinstance(r, dict):
            errs.append("results[%d]: not an object" % i)
            continue
        if not isinstance(r.get("command"), str) or not r["command"]:
            errs.append("results[%d]: command must be a non-empty string" % i)
        for k in ("mean", "stddev", "median", "user", "system", "min", "max"):
            if not is_num(r.get(k)):
                errs.append("results[%d]: %s must be a number (seconds)" % (i, k))
        times, codes = r.get("times"), r.get("exit_codes")
        if not isinstance(times, list) or not times or not all(is_num(t) for t in times):
            errs.append("results[%d]: times must be a non-empty array of numbers" % i)
            continue
        if not isinstance(codes, list) or len(codes) != len(times) or not all(
                isinstance(c, int) and not isinstance(c, bool) for c in codes):
            errs.append("results[%d]: exit_codes must hold one integer per time" % i)
        if errs:
            continue
        s = sorted(times)
        mid = (s[(len(s) - 1) // 2] + s[len(s) // 2]) / 2
        if not (r["min"] == s[0] and r["max"] == s[-1] and abs(r["median"] - mid) < 1e-9):
            errs.append("results[%d]: min, median, max disagree with times" % i)
        if abs(r["mean"] - sum(times) / len(times)) > 1e-9 * max(1, r["mean"]):
            errs.append("results[%d]: mean disagrees with times" % i)
        if s[-1] > 600:
            errs.append("results[%d]: times are not in seconds" % i)
    # what plot_whisker.py does with the file
    labels = [b["command"] for b in res]
    times = [b["times"] for b in res]
    if len(labels) != len(times):
        errs.append("plot_whisker: labels and times differ in length")
    return errs


def main():
    kind, path = sys.argv[1:3]
    try:
        doc = json.load(open(path))
    except ValueError as e:
        print("%s: not JSON: %s" % (path, e), file=sys.stderr)
        return 1
    if kind == "gab":
        errs = check_gab(doc)
    else:
        errs = check_hyperfine(doc, json.load(open(sys.argv[3])) if len(sys.argv) > 3 else None)
    for e in errs:
        print("%s: %s" % (path, e), file=sys.stderr)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
