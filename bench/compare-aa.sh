#!/usr/bin/env bash
# Benchmark of harness compare's false alarms: A/A comparisons, where nothing changed, that fail the gate.
#   bench/compare-aa.sh [--synthetic K] [--trials N] RESULTS.json...
# Real: every pair of the given results files (runs of the same build, one after the other) is compared; the
# share that fails the gate is the false-positive rate a user sees on this host, drift between runs included.
# Synthetic: K A/A pairs whose two sides are N trials drawn (seeded, with replacement) from the same pool, every
# file's passed trials of a cell pooled: the test's own false-positive rate when nothing at all differs.
# Prints the rates and the verdicts' counts; compare's options after -- (e.g. -- --threshold 10%).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
harness=${HARNESS:-$top/bin/harness}
synthetic=20 trials=5 files=() extra=()
while [ $# -gt 0 ]; do
	case $1 in
	--synthetic) synthetic=$2; shift 2 ;;
	--trials) trials=$2; shift 2 ;;
	--) shift; extra=("$@"); break ;;
	*) files+=("$1"); shift ;;
	esac
done
[ ${#files[@]} -ge 2 ] || { echo "bench-compare-aa: give at least two results files of the same build" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One comparison: its exit status and the verdict of each row, as "status verdict;verdict;...".
one() {
	local rc=0
	"$harness" compare --format json "${extra[@]}" "$1" "$2" >"$out/c.json" 2>"$out/c.err" || rc=$?
	# 0 passed, 1 failed, 5 not judged (too few trials for any verdict)
	[ $rc -le 1 ] || [ $rc -eq 5 ] || { cat "$out/c.err" >&2; exit 1; }
	python3 -c 'import json, sys; print(sys.argv[1], ";".join(r["verdict"] for r in json.load(open(sys.argv[2]))["rows"]))' \
		$rc "$out/c.json"
}

for ((i = 0; i < ${#files[@]}; i++)); do
	for ((j = i + 1; j < ${#files[@]}; j++)); do
		one "${files[i]}" "${files[j]}"
	done
done >"$out/real"

python3 - "$out" "$synthetic" "$trials" "${files[@]}" <<'PY'
import json, random, sys
out, k, n, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
docs = [json.load(open(f)) for f in files]
pool = {}
for d in docs:
    for t in d["trials"]:
        if t["status"] == "ok":
            pool.setdefault((t["scenario"], t["runtime"], t["mode"]), []).append(t)
rng = random.Random(0x5EED)
head = {key: v for key, v in docs[0].items() if key not in ("trials", "summaries")}
for i in range(k):
    for side in "ab":
        trials = []
        for cell in sorted(pool):
            for j in range(n):
                trials.append(dict(rng.choice(pool[cell]), trial=j + 1))
        json.dump(dict(head, trials=trials), open("%s/s%d%s.json" % (out, i, side), "w"))
PY
for ((i = 0; i < synthetic; i++)); do
	one "$out/s${i}a.json" "$out/s${i}b.json"
done >"$out/synthetic"

python3 - "$out" "$trials" <<'PY'
import collections, sys
out, n = sys.argv[1], sys.argv[2]
for name, what in (("real", "pairs of real runs (drift between runs included)"),
                   ("synthetic", "synthetic A/A pairs of %s trials per side from pooled real trials" % n)):
    lines = [l.split(" ", 1) for l in open("%s/%s" % (out, name)).read().splitlines()]
    if not lines:
        continue
    fails = sum(1 for rc, _ in lines if rc == "1")
    unjudged = sum(1 for rc, _ in lines if rc == "5")
    verdicts = collections.Counter(v for _, vs in lines for v in vs.split(";"))
    rows = sum(verdicts.values())
    print("%s: %d comparisons, %d failed the gate (%.1f%%), %d not judged; rows: %s" % (
        what, len(lines), fails, 100.0 * fails / len(lines), unjudged,
        ", ".join("%s %d (%.1f%%)" % (v, c, 100.0 * c / rows) for v, c in sorted(verdicts.items()))))
PY
