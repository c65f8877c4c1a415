#!/usr/bin/env bash
# Benchmark: the cost of harness's sandbox against bubblewrap and a bare start, side by side.
# Times `/bin/true` bare, under `bwrap --unshare-all` and under `harness exec`, with hyperfine -N in ROUNDS
# rounds (default 5) whose order rotates, so that a busy moment of the host weighs on every command alike;
# then prints each median over all rounds, the ratios, and harness's own --timing breakdown (medians of RUNS).
#   bench/sandbox.sh [RUNS]   (RUNS in all, default 200; BASELINE=path/to/an/older/harness adds it as "before")
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
harness=$top/bin/harness
runs=${1:-200} rounds=${ROUNDS:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for tool in hyperfine bwrap; do
	command -v "$tool" >/dev/null || { echo "bench-sandbox: $tool is missing (make deps)" >&2; exit 3; }
done
[ -x "$harness" ] || { echo "bench-sandbox: build first (make)" >&2; exit 3; }

bwrap_cmd="bwrap --unshare-all --die-with-parent --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --proc /proc --dev /dev --tmpfs /tmp /bin/true"
cmds=(bare "/bin/true" bwrap "$bwrap_cmd" harness "$harness exec -- /bin/true"
	harness-no-sandbox "$harness exec --no-sandbox -- /bin/true")
[ -z "${BASELINE:-}" ] || cmds+=(before "$BASELINE exec -- /bin/true")
n=$((${#cmds[@]} / 2))
for r in $(seq "$rounds"); do
	args=()
	for i in $(seq 0 $((n - 1))); do
		k=$(((i + r) % n))
		args+=(-n "${cmds[$((2 * k))]}" "${cmds[$((2 * k + 1))]}")
	done
	hyperfine -N --warmup 5 --runs $((runs / rounds)) --export-json "$out/h$r.json" "${args[@]}" >/dev/null 2>&1
done

# The breakdown of harness exec: the median of each phase over the same number of runs.
for _ in $(seq "$runs"); do
	"$harness" exec --timing --json -- /bin/true 2>&1 >/dev/null | tail -1
done >"$out/timing.jsonl"

python3 - "$out" "$out/timing.jsonl" <<'PY'
import glob, json, statistics, sys
times = {}
for f in sorted(glob.glob(sys.argv[1] + "/h*.json")):
    for r in json.load(open(f))["results"]:
        times.setdefault(r["command"], []).extend(r["times"])
med = {k: statistics.median(v) * 1000 for k, v in times.items()}
print("median wall time per start (hyperfine -N, %d runs each in rotating rounds):" % len(times["bare"]))
for k in ("bare", "bwrap", "harness", "harness-no-sandbox", "before"):
    if k in med:
        print("  %-20s %8.2f ms%s" % (k, med[k], "  (%.2fx bwrap)" % (med[k] / med["bwrap"]) if k != "bare" else ""))
bw_over = med["bwrap"] - med["bare"]
print("overhead over bare: bwrap %.2f ms, harness %.2f ms (ratio harness/bwrap total %.2f)"
      % (bw_over, med["harness"] - med["bare"], med["harness"] / med["bwrap"]))
rows = [json.loads(l)["timing"] for l in open(sys.argv[2]) if l.strip()]
keys = ["start_ms", "plan_ms", "netns_ms", "slice_ms", "cgroup_move_ms", "prepare_ms", "clone_to_child_ms",
        "sandbox_setup_ms", "clone_to_execve_ms", "execve_to_exit_ms", "stats_ms", "teardown_ms", "total_ms"]
print("harness exec --timing, median of %d runs:" % len(rows))
for k in keys:
    vals = [r[k] for r in rows if k in r]
    if vals:
        print("  %-20s %8.3f ms" % (k, statistics.median(vals)))
sb = statistics.median([r["clone_to_execve_ms"] - r["cgroup_move_ms"] for r in rows])
print("sandbox part (clone to execve, less the cgroup move): %.2f ms; bwrap's whole overhead: %.2f ms; ratio %.2f"
      % (sb, bw_over, sb / bw_over if bw_over > 0 else float("nan")))
PY
