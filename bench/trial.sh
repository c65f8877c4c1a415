#!/usr/bin/env bash
# Benchmark: what a trial costs beyond its workload (results: overhead_ms), against what a peer pays for the
# same fixed work: per trial, the two slices made and removed as bare cgroups (mkdir/rmdir under our own
# cgroup in each hierarchy harness uses; no process moved, which would cost the peer an RCU grace period more)
# and the trial's three sandboxes (server, warm-up and measured clients) as `bwrap --unshare-all` of
# /bin/true. The harness side is a small http-hello trial on node20 (--requests 2000: the load is not what
# is measured); rounds alternate, one harness trial then one peer trial. Prints the median of each phase,
# the total against the peer as a ratio, and the run's share of wall time spent measuring.
#   bench/trial.sh [ROUNDS]   (at least 10)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
harness=${HARNESS:-$top/bin/harness} # HARNESS: another build, to measure a change against
rounds=${1:-10}
[ "$rounds" -ge 10 ] || { echo "bench-trial: at least 10 rounds (medians)" >&2; exit 2; }
command -v bwrap >/dev/null || { echo "bench-trial: bwrap is missing (make deps)" >&2; exit 3; }
[ -x "$harness" ] || { echo "bench-trial: build first (make)" >&2; exit 3; }
[ "$(id -u)" = 0 ] || { echo "bench-trial: needs root (sandboxes, cgroups)" >&2; exit 3; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

bwrap_cmd=(bwrap --unshare-all --die-with-parent --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib
	--symlink usr/lib64 /lib64 --proc /proc --dev /dev --tmpfs /tmp /bin/true)
# our own cgroup in each v1 hierarchy harness uses, or the v2 one: where the peer's slices go
cgdirs=()
while IFS=: read -r _ ctrl path; do
	case $ctrl in
	cpu,cpuacct | cpu | cpuset | memory | pids) cgdirs+=("/sys/fs/cgroup/$ctrl$path") ;;
	"") [ -d /sys/fs/cgroup/unified ] || cgdirs+=("/sys/fs/cgroup$path") ;;
	esac
done </proc/self/cgroup

peer_once() {
	local t0 t1 d s
	t0=$(date +%s%N)
	for s in sut client; do
		for d in "${cgdirs[@]}"; do mkdir "$d/hx-bench-trial-$$-$s"; done
	done
	for _ in 1 2 3; do "${bwrap_cmd[@]}"; done
	for s in sut client; do
		for d in "${cgdirs[@]}"; do rmdir "$d/hx-bench-trial-$$-$s"; done
	done
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000)) >>"$out/peer.us"
}

for i in $(seq "$rounds"); do
	"$harness" run --cpus 1 --runtimes node20 --repeat 1 --requests 2000 --format json --out "$out/r$i.json" \
		http-hello >/dev/null 2>"$out/err" || { tail -5 "$out/err" >&2; exit 1; }
	peer_once
done

python3 - "$out" "$rounds" <<'PY'
import glob, json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
trials, shares = [], []
for f in sorted(glob.glob(out + "/r*.json")):
    d = json.load(open(f))
    trials += [t for t in d["trials"] if t["status"] == "ok"]
    shares.append(d["run"]["measuring_share"])
phases = ["slices", "sandboxes", "ready", "stop", "teardown", "total"]
peer = statistics.median(int(l) / 1e3 for l in open(out + "/peer.us"))
print("Fixed cost of an http-hello trial on node20 (overhead_ms), median of %d trials:" % len(trials))
for p in phases:
    print("  %-10s %7.2f ms" % (p, statistics.median(t["overhead_ms"][p] for t in trials)))
total = statistics.median(t["overhead_ms"]["total"] for t in trials)
print("peer: 2 bare cgroups made and removed + 3 x bwrap --unshare-all /bin/true, median of %d: %.2f ms" % (rounds, peer))
print("harness / peer: %.2f   (budget: total <= 50 ms: %s)" % (total / peer, "met" if total <= 50 else "NOT met"))
print("these runs' share of wall time spent measuring: median %.0f%% (one short trial per run: the run's own "
      "set-up dominates)" % (statistics.median(shares) * 100))
PY
