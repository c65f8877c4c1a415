#!/usr/bin/env bash
# Called by ci/action.yml on a GitHub runner: records the runner's class, runs harness as root in a delegated
# systemd scope (GitHub's Ubuntu runners use cgroup v2 under systemd), writes the table to the job summary.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${RUNNER_TEMP:-/tmp}/harness-results.json
args=(--cpus "${HARNESS_CPUS:-2}" --mode "${HARNESS_MODE:-pinned}" --profile "${HARNESS_PROFILE:-quick}" --out "$out"
	--format md)
[ -n "${HARNESS_RUNTIMES:-}" ] && args+=(--runtimes "$HARNESS_RUNTIMES")
# shellcheck disable=SC2206
scenarios=(${HARNESS_SCENARIOS:-startup http-hello})

echo "runner: $(nproc) vCPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
sudo "$top/bin/harness" doctor || true
status=0
sudo systemd-run --scope --quiet -p Delegate=yes --setenv=HARNESS_CACHE_DIR=/var/cache/harness \
	"$top/bin/harness" run "${args[@]}" "${scenarios[@]}" >"${RUNNER_TEMP:-/tmp}/harness-table.md" || status=$?
sudo chown "$(id -u)" "$out" 2>/dev/null || true
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
	{
		echo "runner: $(nproc) vCPUs,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
		cat "${RUNNER_TEMP:-/tmp}/harness-table.md"
	} >>"$GITHUB_STEP_SUMMARY"
fi
cat "${RUNNER_TEMP:-/tmp}/harness-table.md"
echo "results=$out" >>"${GITHUB_OUTPUT:-/dev/null}"
exit "$status"
