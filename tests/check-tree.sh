#!/bin/sh
# The source tree's rules (docs/architecture.md), read from the `#include "..."` lines and `git ls-files`:
#   - no cycle between modules (a module is x.c with its x.h, and x_internal.h when x is split in files);
#   - no header outside harness/results/, harness/report/ and harness/cli/ includes cJSON (engines fill structs);
#   - a layer includes only layers below it (the table in docs/architecture.md), so cgroups/ and stats/ include
#     nothing from harness/ but harness/base/, and run/ never includes report/ (they are one rank: run/ fills
#     the results, report/ renders them);
#   - every tracked path name is printable ASCII.
# Exit 1 with one line per violation. Runs in well under a second; make test runs it first.
set -eu
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PY'
import os, re, subprocess, sys

INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
CJSON = re.compile(r'^\s*#\s*include\s+<cjson/cJSON\.h>', re.M)
JSON_HEADERS_OK = ("harness/results/", "harness/report/", "harness/cli/")
# Layers, bottom up: a folder includes itself and lower ranks only (peers of one rank do not include each other).
RANK = {"harness/base": 0, "cgroups": 1, "harness/stats": 1, "harness/sandbox": 2, "harness/image": 3,
        "harness/load": 3, "harness/host": 3, "harness/noise": 3, "harness/results": 4, "harness/report": 5,
        "harness/run": 5, "harness/cli": 6}
bad = []


def sources():
    for top in ("harness", "cgroups"):
        for d, _, files in os.walk(top):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.join(d, f)


def resolve(name, src):
    # the build's -I. -Iharness
    for base in (".", "harness"):
        p = os.path.normpath(os.path.join(base, name))
        if os.path.exists(p):
            return p
    bad.append(f"{src}: #include \"{name}\" names no file under . or harness/")
    return None


def module(path):
    # x_internal.h is module x's private header, shared by the files that implement x
    return re.sub(r"_internal$", "", os.path.splitext(path)[0])


edges = {}
for src in sources():
    text = open(src, encoding="utf-8", errors="replace").read()
    if src.endswith(".h") and CJSON.search(text) and not src.startswith(JSON_HEADERS_OK):
        bad.append(f"{src}: a header outside results/, report/ and cli/ includes cJSON (fill a struct; "
                   "results/ writes it)")
    for name in INC.findall(text):
        dst = resolve(name, src)
        if not dst:
            continue
        a, b = os.path.dirname(src), os.path.dirname(dst)
        if a not in RANK or b not in RANK:
            bad.append(f"{src}: {a if a not in RANK else b}/ is in no layer (add it to docs/architecture.md and here)")
        elif a != b and RANK[b] >= RANK[a]:
            bad.append(f"{src}: includes {dst}, a layer not below {a}/ (docs/architecture.md)")
        if module(dst) != module(src):
            edges.setdefault(module(src), set()).add(module(dst))

# Tarjan's strongly connected components: any of more than one module is a cycle.
index, low, stack, on, sccs, n = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)


def visit(v):
    index[v] = low[v] = n[0]
    n[0] += 1
    stack.append(v)
    on.add(v)
    for w in sorted(edges.get(v, ())):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(sorted(comp))


for v in sorted(set(edges) | {w for ws in edges.values() for w in ws}):
    if v not in index:
        visit(v)
for comp in sccs:
    bad.append("include cycle between modules: " + " <-> ".join(comp))

names = subprocess.run(["git", "ls-files", "-z"], check=True, capture_output=True).stdout.split(b"\0")
for raw in names:
    if raw and any(b < 0x20 or b > 0x7E for b in raw):
        bad.append(f"tracked path name with a non-printable or non-ASCII byte: {raw!r}")

for line in bad:
    print(f"check-tree: {line}", file=sys.stderr)
if not bad:
    print(f"check-tree: {len(edges)} modules, no include cycle, cJSON only in results/, report/ and cli/ headers, "
          f"every include into a lower layer, {len([r for r in names if r])} path names printable ASCII")
sys.exit(1 if bad else 0)
PY
