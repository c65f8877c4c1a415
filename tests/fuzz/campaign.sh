#!/usr/bin/env bash
# The fuzz targets, SECONDS each, as many at once as there are CPUs (FUZZ_JOBS to say otherwise; make fuzz:
# briefly in CI; make fuzz-long: a campaign).
# Each starts from its committed seed corpus, tests/fuzz/corpus/NAME (never written here), and grows a working
# corpus in BUILD/fuzz/corpus-fuzz_NAME that the next run starts from too. A crash, a leak or a timeout is
# saved as BUILD/fuzz/crash-fuzz_NAME-* (replay: the target with that file as its argument) and fails the
# run after the other targets ran. Prints each target's runs, coverage and corpus.
#   tests/fuzz/campaign.sh SECONDS BUILD TARGET...
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:?usage: campaign.sh SECONDS BUILD TARGET...} build=${2:?}
shift 2
jobs=${FUZZ_JOBS:-$(nproc)} # a fuzz target is one process: as many at once as there are CPUs
failed=()

# One target: its runs into BUILD/fuzz/corpus-NAME.log, its summary lines on stdout when it ends.
one() {
	local t=$1 name work seeds rc runs cov
	name=$(basename "$t")
	work=$build/fuzz/corpus-$name seeds=$top/tests/fuzz/corpus/${name#fuzz_}
	mkdir -p "$work"
	"$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$build/fuzz/crash-$name-" "$work" "$seeds" >"$work.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work.log")
	cov=$(grep -E '^#[0-9]+' "$work.log" | tail -1 | sed -n 's/.*cov: \([0-9]*\).*ft: \([0-9]*\).*/cov \1, ft \2/p')
	echo "fuzz: $name: ${runs:-?} runs, ${cov:-cov ?}, corpus $(find "$work" -type f | wc -l) files, exit $rc"
	if [ "$rc" -ne 0 ]; then
		tail -40 "$work.log"
		return 1
	fi
}

for t in "$@"; do
	name=$(basename "$t")
	[ -d "$top/tests/fuzz/corpus/${name#fuzz_}" ] || {
		echo "fuzz: $name has no seed corpus $top/tests/fuzz/corpus/${name#fuzz_} (commit a few small inputs there)" >&2
		exit 2
	}
done
# each target's status collected once: by `wait -n` while throttling, then by its pid (a job that ended is still
# waitable by pid until collected; `jobs -r` lists only those still running and would miss it)
declare -A running=()
for t in "$@"; do
	while [ "${#running[@]}" -ge "$jobs" ]; do
		rc=0
		wait -n -p done_pid || rc=$?
		[ "$rc" -eq 0 ] || failed+=("${running[$done_pid]}")
		unset "running[$done_pid]"
	done
	echo "fuzz: $(basename "$t") for ${secs}s"
	one "$t" &
	running[$!]=$(basename "$t")
done
for pid in "${!running[@]}"; do
	wait "$pid" || failed+=("${running[$pid]}")
done
[ ${#failed[@]} -eq 0 ] || {
	echo "fuzz: crashed: ${failed[*]} (inputs: $build/fuzz/crash-*)" >&2
	exit 1
}
