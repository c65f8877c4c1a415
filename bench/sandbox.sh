#!/usr/bin/env bash
# Benchmark: the cost of harness's sandbox against bubblewrap and a bare start, side by side.
# Times `/bin/true` bare, under `bwrap --unshare-all` and under `harness exec`, with hyperfine -N,
# then prints each median, the ratios, and harness's own --timing breakdown (medians of N runs).
#   bench/sandbox.sh [RUNS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
harness=$top/bin/harness
runs=${1:-200}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for tool in hyperfine bwrap; do
	command -v "$tool" >/dev/null || { echo "bench-sandbox: $tool is missing (make deps)" >&2; exit 3; }
done
[ -x "$harness" ] || { echo "bench-sandbox: build first (make)" >&2; exit 3; }

bwrap_cmd="bwrap --unshare-all --die-with-parent --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --proc /proc --dev /dev --tmpfs /tmp /bin/true"
hyperfine -N --warmup 20 --runs "$runs" --export-json "$out/h.json" \
	-n bare "/bin/true" \
	-n bwrap "$bwrap_cmd" \
	-n harness "$harness exec -- /bin/true" \
	-n harness-no-sandbox "$harness exec --no-sandbox -- /bin/true" >/dev/null

# The breakdown of harness exec: the median of each phase over the same number of runs.
for _ in $(seq "$runs"); do
	"$harness" exec --timing --json -- /bin/true 2>&1 >/dev/null | tail -1
done >"$out/timing.jsonl"

python3 - "$out/h.json" "$out/timing.jsonl" <<'PY'
import json, statistics, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
med = {k: statistics.median(v["times"]) * 1000 for k, v in res.items()}
print("median wall time per start (hyperfine -N, %d runs each):" % len(res["bare"]["times"]))
for k in ("bare", "bwrap", "harness", "harness-no-sandbox"):
    print("  %-20s %8.2f ms" % (k, med[k]))
bw_over = med["bwrap"] - med["bare"]
print("overhead over bare: bwrap %.2f ms, harness %.2f ms (ratio harness/bwrap total %.2f)"
      % (bw_over, med["harness"] - med["bare"], med["harness"] / med["bwrap"]))
rows = [json.loads(l)["timing"] for l in open(sys.argv[2]) if l.strip()]
keys = ["netns_ms", "slice_ms", "cgroup_move_ms", "clone_to_child_ms", "sandbox_setup_ms", "clone_to_execve_ms",
        "execve_to_exit_ms", "total_ms"]
print("harness exec --timing, median of %d runs:" % len(rows))
for k in keys:
    vals = [r[k] for r in rows if k in r]
    if vals:
        print("  %-20s %8.3f ms" % (k, statistics.median(vals)))
sb = statistics.median([r["clone_to_execve_ms"] - r["cgroup_move_ms"] for r in rows])
print("sandbox part (clone to execve, less the cgroup move): %.2f ms; bwrap's whole overhead: %.2f ms; ratio %.2f"
      % (sb, bw_over, sb / bw_over if bw_over > 0 else float("nan")))
PY
