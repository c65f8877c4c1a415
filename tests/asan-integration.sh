#!/usr/bin/env bash
# make asan-integration: the host integration suite run by tests/run.sh against the ASan+UBSan build of
# bin/harness (HARNESS), with the test helpers of BUILD. Any sanitizer report fails the run, whatever the
# test's own verdict: reports go to files (log_path) and one such file is a failure. Exit codes alone would
# not do: a test that expects harness to fail (exit 1, 2, 3) may pass over a sanitizer's exit.
#   tests/asan-integration.sh BUILD HARNESS [FILE.bats...]      (no FILE: the eleven files below)
# The default set, for CI's time (its whole suite took 15 minutes here under the sanitizers): the files whose
# subject is what harness reads from others or what it starts and ends, where a memory error would hide:
# hostile-inputs (crafted results files, scenarios, tarballs, payload output), integrity, images (downloads and
# unpacking), report, cli, faults, signals, sandbox, exec, load (the client against servers that misbehave) and
# ab (the duet's processes and windows). What the other files reach runs under the sanitizers in the unit tests
# (make asan: compare, statistics, timelines, modules, adapters, shards) and the fuzzers (http, ws, pgwire,
# wire, scenario and manifest parsing); the rest of their path (a run's trials on each runtime) is the same
# code these files run. Every file runs on request: `make asan-integration ASAN_FILES="run.bats timeline.bats"`.
# The helpers (test servers and probes) are the plain build: several run inside the sandbox, whose seccomp filter
# forbids the ptrace LeakSanitizer needs, and they are test peers, not the code under test.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: tests/asan-integration.sh BUILD HARNESS [FILE.bats...]} harness=${2:?}
shift 2
[ -x "$top/$harness" ] && [ -d "$top/$build/helpers" ] || {
	echo "asan-integration: no $harness or $build/helpers (make asan-integration builds them)" >&2
	exit 2
}
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(hostile-inputs.bats integrity.bats images.bats report.bats cli.bats faults.bats
	signals.bats sandbox.bats exec.bats load.bats ab.bats)

logs=$(mktemp -d "${TMPDIR:-/tmp}/harness-asan.XXXXXX")
# halt_on_error: the first report ends the process (UBSan too: the build has -fno-sanitize-recover=all).
# detect_leaks: LeakSanitizer as harness exits (every verb's exit path). Its forked children end in exec or
# _exit, which never run it. A harness inside a sandbox (a run's load client, a noise neighbour) has an
# environment built from scratch and the build's default, detect_leaks=0 (harness/cli/main.c): the seccomp
# filter forbids the ptrace LeakSanitizer needs. Its ASan and UBSan checks stay on: a report there ends it
# with a non-zero exit and the report in its log, which fails the trial.
# exitcode 86: none of harness's exit codes, so a report is visible in a test's output too.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:exitcode=86:abort_on_error=0:log_path=$logs/asan:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86:log_path=$logs/ubsan"
export LSAN_OPTIONS="exitcode=86:log_path=$logs/lsan"

# The checkout's images and scenarios, as bin/harness finds them beside itself (BUILD/bin/../ has none).
export HARNESS_IMAGES_DIR=$top/images HARNESS_SCENARIOS_DIR=$top/scenarios

start=$(date +%s)
rc=0
passed=0 failed=0 skipped=0
for f in "${files[@]}"; do
	out=$(mktemp)
	t0=$(date +%s)
	"$top/tests/run.sh" --build "$top/$build" --harness "$top/$harness" integration "$f" | tee "$out"
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	echo "# $f: $(($(date +%s) - t0))s" # what each file costs CI's time
	read -r p _ fl _ s _ < <(tail -1 "$out")
	passed=$((passed + p)) failed=$((failed + fl)) skipped=$((skipped + s))
	rm -f "$out"
done
reports=$(find "$logs" -type f | wc -l)
for r in "$logs"/*; do
	[ -f "$r" ] || continue
	echo "# sanitizer report $(basename "$r"):"
	sed 's/^/#   /' "$r" | head -60
done
rm -rf "$logs"
echo "asan-integration: ${#files[@]} files, $passed passed, $failed failed, $skipped skipped, $reports sanitizer" \
	"reports, $(($(date +%s) - start))s"
[ "$rc" -eq 0 ] && [ "$reports" -eq 0 ]
