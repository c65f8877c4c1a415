#!/usr/bin/env bash
# make asan-integration: the host integration suite run by tests/run.sh against the ASan+UBSan build of
# bin/harness and of the helpers (BUILD/bin/harness, BUILD/helpers). Any sanitizer report fails the run,
# whatever the test's own verdict: reports go to files (log_path) and one such file is a failure. Exit codes
# alone would not do: a test that expects harness to fail (exit 1, 2, 3) may pass over a sanitizer's exit.
#   tests/asan-integration.sh BUILD [FILE.bats...]      (no FILE: every file but ci.bats, see below)
# ci.bats is left out: it runs ci/run.sh, which runs bin/harness, not the binary under test.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: tests/asan-integration.sh BUILD [FILE.bats...]}
shift
[ -x "$top/$build/bin/harness" ] || {
	echo "asan-integration: no $build/bin/harness (make asan-integration builds it)" >&2
	exit 2
}
files=("$@")
[ ${#files[@]} -gt 0 ] || for f in "$top"/tests/integration/*.bats; do
	[ "$(basename "$f")" = ci.bats ] || files+=("$(basename "$f")")
done

logs=$(mktemp -d "${TMPDIR:-/tmp}/harness-asan.XXXXXX")
chmod 0777 "$logs" # a sandboxed helper runs as nobody: its report must still land here
# halt_on_error: the first report ends the process (UBSan too: the build has -fno-sanitize-recover=all).
# detect_leaks: LeakSanitizer at each exit() of an instrumented process: harness, and the helpers. Forked
# children of harness that end in exec or _exit never run it, so the sandboxes (their seccomp forbids
# the ptrace LeakSanitizer needs) do not trip it; the leak check covers harness's own exit paths.
# exitcode 86: none of harness's exit codes, so a report is visible in a test's output too.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:exitcode=86:abort_on_error=0:log_path=$logs/asan:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86:log_path=$logs/ubsan"
export LSAN_OPTIONS="exitcode=86:log_path=$logs/lsan"

start=$(date +%s)
rc=0
passed=0 failed=0 skipped=0
for f in "${files[@]}"; do
	out=$(mktemp)
	"$top/tests/run.sh" --build "$top/$build" --harness "$top/$build/bin/harness" integration "$f" | tee "$out"
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
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
