#!/usr/bin/env bash
# The fuzz targets one after another, SECONDS each (make fuzz: briefly in CI; make fuzz-long: a campaign).
# Each starts from its committed seed corpus, tests/fuzz/corpus/NAME (never written here), and grows a working
# corpus in BUILD/fuzz/corpus-fuzz_NAME that the next run starts from too. A crash, a leak or a timeout is
# saved as BUILD/fuzz/crash-fuzz_NAME-* (replay: the target with that file as its argument) and fails the
# run after the other targets ran. Prints each target's runs, coverage and corpus.
#   tests/fuzz/campaign.sh SECONDS BUILD TARGET...
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:?usage: campaign.sh SECONDS BUILD TARGET...} build=${2:?}
shift 2
failed=()
for t in "$@"; do
	name=$(basename "$t")
	work=$build/fuzz/corpus-$name seeds=$top/tests/fuzz/corpus/${name#fuzz_}
	mkdir -p "$work"
	[ -d "$seeds" ] || {
		echo "fuzz: $name has no seed corpus $seeds (commit a few small inputs there)" >&2
		exit 2
	}
	echo "fuzz: $name for ${secs}s"
	"$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$build/fuzz/crash-$name-" "$work" "$seeds" >"$work.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work.log")
	cov=$(grep -E '^#[0-9]+' "$work.log" | tail -1 | sed -n 's/.*cov: \([0-9]*\).*ft: \([0-9]*\).*/cov \1, ft \2/p')
	echo "fuzz: $name: ${runs:-?} runs, ${cov:-cov ?}, corpus $(find "$work" -type f | wc -l) files, exit $rc"
	if [ "$rc" -ne 0 ]; then
		tail -40 "$work.log"
		failed+=("$name")
	fi
done
[ ${#failed[@]} -eq 0 ] || {
	echo "fuzz: crashed: ${failed[*]} (inputs: $build/fuzz/crash-*)" >&2
	exit 1
}
