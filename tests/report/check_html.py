#!/usr/bin/env python3
"""Load harness's HTML report in headless Chromium and check it against the results file it came from.

  check_html.py RESULTS.json PAGE.html OUTDIR
  check_html.py --compare COMPARE.json PAGE.html OUTDIR
  check_html.py --ab AB.json PAGE.html OUTDIR


The page must load without a console message of level warning or error, must fetch nothing, and every
chart's SVG, read back from the DOM Chromium built, must hold one bar per runtime x mode, one dot per
trial that passed, six percentile points per latency curve and one dot per startup run. A screenshot is
written to OUTDIR/report.png. With --compare, PAGE is the two-file page and COMPARE.json what
`harness compare A B --format json` printed: each scenario's chart must hold one dot per row of compare,
in its order, coloured by its verdict. With --ab, PAGE is the page of the harness-ab/1 document AB.json: each
metric's ratio chart must hold one dot per complete pair, the noisy and the warm-up pairs marked apart, and one
CI band. Exit 0 when all holds; else the first failure on stderr, exit 1.
"""
import html.parser
import json
import os
import re
import subprocess
import sys
import tempfile

PRIMARY = [("rps", ("load", "rps")), ("deliveries_per_s", ("chat", "deliveries_per_s")),
           ("ops_per_s", ("script", "ops_per_s")), ("startup_median_ms", ("startup", "wall_ms", "median"))]


def dig(o, path):
    for k in path:
        if not isinstance(o, dict) or k not in o:
            return None
        o = o[k]
    return o


def group(t):
    """A trial's runtime x mode (x noise, when the trial had a neighbour)."""
    n = t.get("noise")
    n = n if isinstance(n, str) else (n or {}).get("kind", "none") if isinstance(n, dict) else "none"
    return (t["runtime"], t["mode"], n)


def expected(results):
    """Per scenario: the marks each chart must have, from the trials alone."""
    want = {}
    for t in results["trials"]:
        s = want.setdefault(t["scenario"], {"groups": [], "ok": []})
        g = group(t)
        if g not in s["groups"]:
            s["groups"].append(g)
        if t["status"] == "ok":
            s["ok"].append(t)
    out = {}
    for scn, s in want.items():
        prim = next((p for _, p in PRIMARY if any(dig(t, p) is not None for t in s["ok"])), None)
        e = {}
        if prim:
            with_value = [t for t in s["ok"] if dig(t, prim) is not None]
            e["bars"] = {"bar": len({group(t) for t in with_value}), "trial": len(with_value)}
        lat = {group(t) for t in s["ok"] if dig(t, ("load", "latency_us", "p50")) is not None}
        if lat:
            e["latency"] = {"pt": 6 * len(lat), "curve": len(lat)}
        if prim == ("startup", "wall_ms", "median"):
            runs = {}
            for t in s["ok"]:
                g = group(t)
                runs[g] = runs.get(g, 0) + len(t["startup"].get("runs_ms") or [0])
            # a column of more runs than MAX_DOTS (html.c) is drawn as that many quantiles
            e["strip"] = {"run": sum(min(n, 1000) for n in runs.values())}
        out[scn] = e
    return out


class Marks(html.parser.HTMLParser):
    """Counts the marks inside each <figure data-chart data-scenario>."""

    def __init__(self):
        super().__init__()
        self.figures, self.cur, self.fills = {}, None, {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure" and "data-chart" in a:
            key = (a.get("data-scenario", a.get("data-metric")), a["data-chart"])
            self.cur = self.figures.setdefault(key, {})
            self.curfill = self.fills.setdefault(key, [])
        elif self.cur is not None and tag in ("rect", "circle", "polyline"):
            for c in (a.get("class") or "").split():
                self.cur[c] = self.cur.get(c, 0) + 1
            if "ratio" in (a.get("class") or "").split():
                self.curfill.append(a.get("fill"))

    def handle_endtag(self, tag):
        if tag == "figure":
            self.cur = None


def chromium(*args):
    """Chromium headless with console messages on stderr; returns (stdout, stderr)."""
    with tempfile.TemporaryDirectory() as prof:
        cmd = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--user-data-dir=" + prof, "--enable-logging=stderr", "--v=0", "--virtual-time-budget=2000",
               *args]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return p.stdout, p.stderr


def console_problems(stderr):
    # Chromium logs each console message as ...:CONSOLE(line)] "text", source: URL (line)
    return [l for l in stderr.splitlines() if ":CONSOLE" in l or "Uncaught" in l or "Refused to" in l]


def fail(msg):
    print("check_html: " + msg, file=sys.stderr)
    sys.exit(1)


VERDICT_FILL = {"better": "#009E73", "worse": "#D55E00"}


# The chart each metric is drawn in (report/html.c's cmp_displays): B / A of a throughput and of a memory size
# share no axis.
FAMILY = {"rps": "throughput", "deliveries_per_s": "throughput", "ops_per_s": "throughput",
          "idle_rss_kb": "memory", "peak_rss_kb": "memory", "post_load_rss_kb": "memory",
          "script_max_rss_kb": "memory", "client_cpu_us_per_request": "the load client's cost"}


def family(metric):
    return FAMILY.get(metric, "time and latency")


def expected_compare(cmp):
    """Per scenario: the fill of each row's dot, a chart per metric family in the order the families first
    appear, compare's order within each."""
    rows = {}
    for r in cmp["rows"]:
        rows.setdefault(r["scenario"], []).append(r)
    out = {}
    for scn, rs in rows.items():
        fams = list(dict.fromkeys(family(r["metric"]) for r in rs))
        for f in fams:
            for r in rs:
                if family(r["metric"]) != f:
                    continue
                v = r["verdict"]
                # compare's words for each direction (results/compare.c's metric table)
                kind = "better" if v in ("faster", "smaller", "cheaper") else "worse" if v in (
                    "slower", "larger", "dearer") else None
                out.setdefault(scn, []).append((v, kind))
    return out


def main():
    if sys.argv[1] == "--compare":
        return main_compare(*sys.argv[2:5])
    if sys.argv[1] == "--ab":
        return main_ab(*sys.argv[2:5])
    results_path, page, outdir = sys.argv[1:4]
    results = json.load(open(results_path))
    text = open(page, encoding="utf-8").read()
    # nothing from anywhere: the only URL is the SVG namespace
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", text)) - {"http://www.w3.org/2000/svg"}
    if urls:
        fail("the page names outside resources: %s" % sorted(urls))
    url = "file://" + os.path.abspath(page)
    dom, err = chromium("--dump-dom", url)
    if "</svg>" not in dom:
        fail("chromium returned no DOM with charts:\n" + err[-2000:])
    problems = console_problems(err)
    if problems:
        fail("console messages while loading:\n" + "\n".join(problems))
    m = Marks()
    m.feed(dom)
    for scn, charts in expected(results).items():
        for kind, marks in charts.items():
            got = m.figures.get((scn, kind))
            if got is None:
                fail("no %s chart for %s" % (kind, scn))
            for cls, n in marks.items():
                if got.get(cls, 0) != n:
                    fail("%s chart of %s: %d %s marks, want %d" % (kind, scn, got.get(cls, 0), cls, n))
            print("ok %s %s %s" % (scn, kind, " ".join("%s=%d" % kv for kv in sorted(marks.items()))))
    os.makedirs(outdir, exist_ok=True)
    shot = os.path.join(outdir, "report.png")
    chromium("--screenshot=" + shot, "--window-size=1200,2400", "--hide-scrollbars", url)
    if not os.path.exists(shot) or os.path.getsize(shot) < 10000:
        fail("no screenshot at " + shot)
    print("screenshot " + shot)


def load_page(page):
    text = open(page, encoding="utf-8").read()
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", text)) - {"http://www.w3.org/2000/svg"}
    if urls:
        fail("the page names outside resources: %s" % sorted(urls))
    url = "file://" + os.path.abspath(page)
    dom, err = chromium("--dump-dom", url)
    if "</svg>" not in dom:
        fail("chromium returned no DOM with charts:\n" + err[-2000:])
    problems = console_problems(err)
    if problems:
        fail("console messages while loading:\n" + "\n".join(problems))
    m = Marks()
    m.feed(dom)
    return url, m


def main_compare(cmp_path, page, outdir):
    cmp = json.load(open(cmp_path))
    url, m = load_page(page)
    for scn, rows in expected_compare(cmp).items():
        fills = m.fills.get((scn, "compare"))
        if fills is None:
            fail("no comparison chart for %s" % scn)
        if len(fills) != len(rows):
            fail("comparison chart of %s: %d dots, compare has %d rows" % (scn, len(fills), len(rows)))
        for (verdict, kind), fill in zip(rows, fills):
            want = VERDICT_FILL.get(kind, "#777777")
            if fill != want:
                fail("comparison chart of %s: a %r row drawn %s, want %s" % (scn, verdict, fill, want))
        print("ok %s compare ratio=%d" % (scn, len(rows)))
    os.makedirs(outdir, exist_ok=True)
    shot = os.path.join(outdir, "compare.png")
    chromium("--screenshot=" + shot, "--window-size=1200,1600", "--hide-scrollbars", url)
    if not os.path.exists(shot) or os.path.getsize(shot) < 10000:
        fail("no screenshot at " + shot)
    print("screenshot " + shot)


AB_METRICS = {"throughput": lambda w: w["requests"] / w["duration_s"], "p50": lambda w: w.get("p50_us"),
              "p99": lambda w: w.get("p99_us"), "startup": lambda w: w.get("startup_ms"),
              "script": lambda w: w.get("value"), "memory": lambda w: w.get("rss_kb")}


def expected_ab(doc):
    """Per metric: the dots of each kind its ratio chart must have (results/ab.c's pairing and noisy rule)."""
    w, out = doc["windows"], {}
    for i in range(0, len(w) - 1, 2):
        x, y = w[i], w[i + 1]
        if x["pair"] != y["pair"] or x["side"] == y["side"]:
            continue
        fx, fy = x.get("foreign_cpu_ms"), y.get("foreign_cpu_ms")
        noisy = fx is not None and fy is not None and abs(fx - fy) > max(
            0.05 * 1e3 * min(x["duration_s"], y["duration_s"]), 30)
        kind = "pair-warmup" if x["warmup"] else "pair-noisy" if noisy else "pair"
        for m, value in AB_METRICS.items():
            a, b = value(x), value(y)
            if a and b and a > 0 and b > 0:
                e = out.setdefault(m, {"pair": 0, "pair-noisy": 0, "pair-warmup": 0})
                e[kind] += 1
    return out


def main_ab(doc_path, page, outdir):
    doc = json.load(open(doc_path))
    url, m = load_page(page)
    want = expected_ab(doc)
    if not want:
        fail("the document has no complete pair")
    for metric, marks in want.items():
        got = m.figures.get((metric, "ab-ratio"))
        if got is None:
            fail("no ratio chart for %s" % metric)
        for cls, n in list(marks.items()) + [("ci-band", 1 if marks["pair"] >= 6 else 0)]:
            if got.get(cls, 0) != n:
                fail("ratio chart of %s: %d %s marks, want %d" % (metric, got.get(cls, 0), cls, n))
        print("ok %s ab-ratio %s" % (metric, " ".join("%s=%d" % kv for kv in sorted(marks.items()))))
    os.makedirs(outdir, exist_ok=True)
    shot = os.path.join(outdir, "ab.png")
    chromium("--screenshot=" + shot, "--window-size=1000,2200", "--hide-scrollbars", url)
    if not os.path.exists(shot) or os.path.getsize(shot) < 10000:
        fail("no screenshot at " + shot)
    print("screenshot " + shot)


if __name__ == "__main__":
    main()
