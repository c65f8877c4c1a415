#!/usr/bin/env bash
# make soak: `harness run` N times in a row (default 50; the default suite, or the run arguments given), and
# after each run: zero leaked file descriptors (every trial records harness's own /proc/self/fd count as it
# ended, harness_fds: it must not grow from trial to trial), zero cgroup trees of the run left (its
# HARNESS_RUN_TAG), zero mounts of harness's left in the host's mount table, zero run folders left in /tmp.
# Prints the figures: the fds per trial, the RSS of the harness process per trial (harness_rss_kb) and its
# slope, within a run and across runs. Exit 1 when anything leaked or a run failed. The run folders are
# counted as /tmp/harness-run-* that a run made and did not remove: run it alone (the heavy lock).
#   tests/soak.sh [N] [-- RUN ARGS...]        e.g. tests/soak.sh 10 -- --runtimes node20 --profile quick
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
n=50
[ $# -gt 0 ] && [ "$1" != -- ] && { n=$1; shift; }
[ "${1:-}" = -- ] && shift
harness=${HARNESS:-$top/bin/harness}
[ -x "$harness" ] || { echo "soak: build first (make)" >&2; exit 3; }
[ "$(id -u)" = 0 ] || { echo "soak: harness run needs root (cgroups)" >&2; exit 3; }
out=$(mktemp -d "${TMPDIR:-/tmp}/harness-soak.XXXXXX")
trap 'rm -rf "$out"' EXIT
harness_mounts() { grep -c 'harness' /proc/self/mountinfo; }
mounts0=$(harness_mounts)
leaks=0 failed=0
echo "soak: $n runs of: harness run $*"
for i in $(seq "$n"); do
	export HARNESS_RUN_TAG="soak$$r$i"
	ls -d /tmp/harness-run-* 2>/dev/null | sort >"$out/before"
	start=$(date +%s.%N)
	"$harness" run "$@" --out "$out/run-$i.json" >"$out/run-$i.log" 2>&1
	rc=$?
	ls -d /tmp/harness-run-* 2>/dev/null | sort >"$out/after"
	dirs=$(comm -13 "$out/before" "$out/after" | wc -l)
	cgs=$(find /sys/fs/cgroup -mindepth 1 -maxdepth 8 -type d -name "harness-$HARNESS_RUN_TAG-*" 2>/dev/null | wc -l)
	mounts=$(($(harness_mounts) - mounts0))
	line=$(python3 - "$out/run-$i.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["trials"]
fds = [x.get("harness_fds") for x in t]
rss = [x.get("harness_rss_kb") for x in t]
print(len(t), max(fds) - fds[0], " ".join(str(int(f)) for f in fds), int(rss[0]), int(rss[-1]), sep="|")
PY
)
	IFS='|' read -r trials fdgrow fdlist rss0 rss1 <<<"$line"
	printf 'soak: run %d/%d exit %d %.0fs, %s trials; harness fds per trial: %s; RSS %s -> %s kB; left: %d cgroups, %d mounts, %d run folders\n' \
		"$i" "$n" "$rc" "$(echo "$(date +%s.%N) - $start" | bc)" "$trials" "$fdlist" "$rss0" "$rss1" "$cgs" "$mounts" "$dirs"
	[ "$rc" -eq 0 ] || { failed=$((failed + 1)); tail -5 "$out/run-$i.log"; }
	if [ "${fdgrow:-1}" != 0 ] || [ "$cgs" -ne 0 ] || [ "$mounts" -ne 0 ] || [ "$dirs" -ne 0 ]; then
		leaks=$((leaks + 1))
	fi
done
python3 - "$out" "$n" <<'PY'
import glob, json, sys
out, n = sys.argv[1], int(sys.argv[2])
def slope(xs, ys):
    if len(xs) < 2: return 0.0
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    d = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / d if d else 0.0
within, last, first_fds = [], [], []
for i in range(1, n + 1):
    try:
        t = json.load(open(f"{out}/run-{i}.json"))["trials"]
    except (OSError, ValueError, KeyError):
        continue
    rss = [x["harness_rss_kb"] for x in t if "harness_rss_kb" in x]
    within.append(slope(list(range(len(rss))), rss))
    last.append(rss[-1])
    first_fds.append(t[0].get("harness_fds"))
within.sort()
print("soak: RSS slope within a run: median %.1f kB per trial (min %.1f, max %.1f over %d runs)"
      % (within[len(within) // 2], within[0], within[-1], len(within)))
print("soak: RSS at each run's end: %d..%d kB, slope %.1f kB per run; fds at the first trial: %s"
      % (min(last), max(last), slope(list(range(len(last))), last), sorted(set(first_fds))))
PY
echo "soak: $n runs, $failed failed, $leaks with something left or growing"
[ "$leaks" -eq 0 ] && [ "$failed" -eq 0 ]
