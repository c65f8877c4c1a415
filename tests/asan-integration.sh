#!/usr/bin/env bash
# make asan-integration: the host integration suite run by tests/run.sh against the ASan+UBSan build of
# bin/harness (HARNESS), with the test helpers of BUILD. Any sanitizer report fails the run, whatever the
# test's own verdict: reports go to files (log_path) and one such file is a failure. Exit codes alone would
# not do: a test that expects harness to fail (exit 1, 2, 3) may pass over a sanitizer's exit.
#   tests/asan-integration.sh BUILD HARNESS [FILE.bats...]      (no FILE: every file but the eleven below)
# ci.bats and fresh.bats are left out: they run ci/run.sh and a fresh clone's build, not the binary under test.
# run.bats, routes.bats and warm-install.bats too, for CI's time (4 of its 15 minutes here): they spend it in the
# runtimes and npm, and the code they reach (the run verb, scenario parsing, prepare) runs under the sanitizers in
# hostile-inputs, integrity, faults and signals, and in the fuzzers. So are react-ssr.bats (four runtimes and
# their bundles: the wire and the trial's path run in wire.bats), adapter.bats (its duet runs in ab.bats, its
# arithmetic in test_adcost) and modules.bats (its watcher in test_modules, both under make asan), and, for CI's
# time again, timeline.bats (the sampler and the timeline run in every http trial of the other files, their
# analysis in test_timeline), wsrpc.bats (its frames in fuzz_ws) and fixture.bats (its wire in fuzz_pgwire). The helpers (test
# servers and probes) are the plain build: several run inside the sandbox, whose seccomp filter forbids the
# ptrace LeakSanitizer needs, and they are test peers, not the code under test.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: tests/asan-integration.sh BUILD HARNESS [FILE.bats...]} harness=${2:?}
shift 2
[ -x "$top/$harness" ] && [ -d "$top/$build/helpers" ] || {
	echo "asan-integration: no $harness or $build/helpers (make asan-integration builds them)" >&2
	exit 2
}
files=("$@")
[ ${#files[@]} -gt 0 ] || for f in "$top"/tests/integration/*.bats; do
	case "$(basename "$f")" in ci.bats | fresh.bats | run.bats | routes.bats | warm-install.bats | react-ssr.bats | adapter.bats | \
		modules.bats | timeline.bats | wsrpc.bats | fixture.bats) ;;
	*) files+=("$(basename "$f")") ;;
	esac
done

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
