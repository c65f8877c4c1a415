#!/usr/bin/env bash
# Runs harness's test suites (TAP from cmocka and bats), shows their output and ends with one line:
# "N passed, N failed, N skipped". Exit status is non-zero when anything failed or a suite crashed.
#   tests/run.sh [--build DIR] [--asan-harness FILE [--asan-all]] [--busy] lint|unit|stats|integration|guest|all
#   tests/run.sh [--build DIR] [--busy] integration|guest FILE.bats [FILTER]   (one file; FILTER: a regex
#                                                                               of test names, bats -f)
#   tests/run.sh [--build DIR] unit test_opt                                    (one unit test program)
# --harness FILE tests that binary rather than bin/harness.
# --asan-harness FILE runs the sanitizer set of integration files (below) against FILE, an ASan+UBSan build of
# bin/harness, instead of bin/harness (make test); --asan-all runs every integration file so (make
# asan-integration). Any sanitizer report fails the file.
# --busy runs a `harness run` in a loop beside the suites: a test must judge only what it made.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
harness=$top/bin/harness
asan_harness="" asan_all=0
busy=0
while [ $# -gt 0 ]; do
	case "$1" in
	--asan-harness)
		asan_harness=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
		shift 2
		;;
	--asan-all)
		asan_all=1
		shift
		;;
	--build)
		build=$(cd "$top" && cd "$2" && pwd)
		shift 2
		;;
	--harness)
		harness=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
		shift 2
		;;
	--busy)
		busy=1
		shift
		;;
	*) break ;;
	esac
done
what=${1:-all}
file=${2:-}
filter=${3:-}

export HARNESS="$harness"
export HARNESS_TOP="$top"
export HARNESS_HELPERS="$build/helpers"
export HARNESS_FIXTURES="$here/fixtures"

passed=0 failed=0 skipped=0 suites=0 crashed=()

# Count one suite's TAP; a suite that exits non-zero without a failing test counts as one failure.
run_suite() {
	local name=$1
	shift
	local out rc
	out=$(mktemp)
	local t0=$SECONDS
	echo "# suite: $name"
	suites=$((suites + 1))
	"$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	local p f s
	s=$(grep -ciE '^ok .*# skip' "$out")
	p=$(($(grep -cE '^ok ' "$out") - s))
	f=$(grep -cE '^not ok ' "$out")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		crashed+=("$name (exit $rc)")
		failed=$((failed + 1))
	fi
	echo "# $name: $((SECONDS - t0))s" # what each suite costs CI's time
	rm -f "$out"
}

unit() {
	local t ran=0
	for t in "$build"/tests/test_*; do
		[ -x "$t" ] || continue
		[ -z "$file" ] || [ "$(basename "$t")" = "${file%.c}" ] || continue
		CMOCKA_MESSAGE_OUTPUT=TAP run_suite "unit/$(basename "$t")" "$t"
		ran=1
	done
	# nothing built, or a misspelt name: a failure, never "0 passed"
	if [ "$ran" = 0 ]; then
		local named=""
		[ -z "$file" ] || named="named ${file%.c} "
		echo "tests/run.sh: no unit test program ${named}in $build/tests (make unit builds them)" >&2
		crashed+=("unit (no test program)")
		failed=$((failed + 1))
	fi
}

# The verdict rule of compare against known truth: simulated results through the real binary, scipy the oracle
# (Debian's python3-scipy and numpy, hence /usr/bin/python3).
stats() {
	run_suite stats /usr/bin/python3 "$here/stats/check_compare.py" "$harness"
}

# A FILE argument: a name in tests/integration ("run.bats", "run") or a path.
bats_file() {
	local f=$1
	[ -f "$f" ] || f=$here/integration/${1%.bats}.bats
	[ -f "$f" ] || {
		echo "tests/run.sh: no bats file '$1' (the files: $(cd "$here/integration" && echo *.bats))" >&2
		exit 2
	}
	echo "$f"
}

# The sanitizer set: the integration files whose subject is what harness reads from others or what it starts
# and ends, where a memory error would hide: hostile-inputs (crafted results files, scenarios, tarballs, payload
# output), integrity, images (downloads and unpacking), report, cli, faults, signals, sandbox, exec, load (the
# client against servers that misbehave) and ab (the duet's processes and windows). With --asan-harness they run
# once, against the sanitizer build, not twice. What the other files reach runs under the sanitizers in these
# (a run's trials, the sampler of every http trial), in the unit tests of `make asan` and in the fuzzers; their
# own time goes to the runtimes, bundles, npm and Postgres. docs/reliability.md has the figures.
ASAN_SET=" hostile-inputs integrity images report cli faults signals sandbox exec load ab "

# One integration file, against the sanitizer build when it is of the set (or --asan-all): reports go to files
# (log_path), and one such file fails it whatever the tests said, since a test that expects harness to fail (exit
# 1, 2, 3) would pass over a sanitizer's exit. halt_on_error: the first report ends the process (UBSan too: the
# build has -fno-sanitize-recover=all). detect_leaks: LeakSanitizer as harness exits (every verb's exit path;
# its forked children end in exec or _exit). A harness inside a sandbox (a run's load client, a noise
# neighbour) has an environment built from scratch and the build's default, detect_leaks=0 (harness/cli/main.c):
# the seccomp filter forbids the ptrace LeakSanitizer needs; its ASan and UBSan checks stay on, and a report ends
# it with a non-zero exit and the report in its log, which fails the trial. exitcode 86: none of harness's. The
# test helpers stay the plain build: several run in the sandbox, and they are test peers.
run_bats() {
	local f=$1 name logs n r
	name=$(basename "$f" .bats)
	shift
	if [ -z "$asan_harness" ] || { [ "$asan_all" = 0 ] && [[ "$ASAN_SET" != *" $name "* ]]; }; then
		run_suite "integration/$name" bats --tap --timing "$@" "$f"
		return
	fi
	logs=$(mktemp -d "${TMPDIR:-/tmp}/harness-asan.XXXXXX")
	# the checkout's images and scenarios, as bin/harness finds them beside itself (build-asan/bin/../ has none)
	run_suite "integration/$name (asan)" env HARNESS="$asan_harness" HARNESS_IMAGES_DIR="$top/images" \
		HARNESS_SCENARIOS_DIR="$top/scenarios" \
		ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:exitcode=86:abort_on_error=0:log_path=$logs/asan:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1" \
		UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86:log_path=$logs/ubsan" \
		LSAN_OPTIONS="exitcode=86:log_path=$logs/lsan" bats --tap --timing "$@" "$f"
	n=0
	for r in "$logs"/*; do
		[ -f "$r" ] || continue
		n=$((n + 1))
		echo "# sanitizer report $(basename "$r"):"
		sed 's/^/#   /' "$r" | head -60
	done
	rm -rf "$logs"
	[ "$n" -eq 0 ] || {
		crashed+=("integration/$name ($n sanitizer reports)")
		failed=$((failed + 1))
	}
}

integration() {
	local f
	if [ -n "$file" ]; then
		f=$(bats_file "$file") || exit 2
		run_bats "$f" ${filter:+-f "$filter"}
		return
	fi
	for f in "$here"/integration/*.bats; do
		run_bats "$f"
	done
}

guest() {
	local f
	if [ -n "$file" ]; then
		f=$(bats_file "$file") || exit 2
		HARNESS_GUEST_FILTER=$filter run_suite "guest/cgroup-v2" "$here/guest/run-guest.sh" "${f#"$top"/}"
		return
	fi
	run_suite "guest/cgroup-v2" "$here/guest/run-guest.sh" tests/integration/exec.bats tests/integration/doctor.bats \
		tests/integration/fixture-slice.bats tests/integration/isolation.bats
	# of the sandbox's tests, those whose subject is its slice or its start into it (seccomp, namespaces and mounts
	# are the host suite's: the escape tests there take 6 minutes under TCG and show nothing cgroup v2 changes),
	# and the 32-bit syscall's, which reaches the filter only on a kernel with a 32-bit entry, as Debian's has
	HARNESS_GUEST_FILTER='^inside: |fork bomb|memory bomb|filling /tmp|100,000 files|two sandboxes|failing sandbox step|escape: (unshare|clone into|setns|run without|flood|a 32-bit syscall)' \
		run_suite "guest/cgroup-v2-sandbox" "$here/guest/run-guest.sh" tests/integration/sandbox.bats
	# the fault cases whose evidence is cgroup v2's own: the OOM verdicts, read from memory.events of the trial's
	# slice, and a slice held in the kernel by memory.high, ended on its memory pressure
	HARNESS_GUEST_FILTER='OOM-killed' run_suite "guest/cgroup-v2-faults" "$here/guest/run-guest.sh" \
		tests/integration/faults.bats
	# the headline command, rootless delegation and the simultaneous duet in a bigger guest: room for --cpus 4 and a
	# client of 2, and for four disjoint CPU sets
	HARNESS_GUEST_SMP=6 run_suite "guest/cgroup-v2-smp6" "$here/guest/run-guest.sh" tests/integration/cpus4.bats \
		tests/integration/rootless.bats tests/integration/ab-simul.bats
}

# The background load of --busy: trials of the quickest shipped scenario, until the suites end.
busy_pid="" busy_dir=""
start_busy() {
	local log
	log=$(mktemp -d)
	busy_dir=$log
	(
		child=""
		trap '[ -z "$child" ] || kill -INT "$child" 2>/dev/null; wait; exit 0' TERM
		while :; do
			"$HARNESS" run --runtimes node20 --repeat 1 --profile quick --out "$log/busy.json" startup \
				>>"$log/busy.log" 2>&1 &
			child=$!
			wait "$child"
		done
	) &
	busy_pid=$!
	echo "# busy: a harness run loops beside the suites (pid $busy_pid, log $log/busy.log)"
}

stop_busy() {
	[ -n "$busy_pid" ] || return 0
	kill -TERM "$busy_pid" 2>/dev/null
	wait "$busy_pid" 2>/dev/null
	echo "# busy: $(grep -c '^harness: results:' "$busy_dir/busy.log") background runs ended beside the suites"
	rm -rf "$busy_dir"
	busy_pid=""
}

[ "$busy" = 0 ] || {
	start_busy
	trap stop_busy EXIT
}

case "$what" in
lint) run_suite lint "$here/lint.sh" ;;
unit) unit ;;
stats) stats ;;
integration) integration ;;
guest) guest ;;
all)
	run_suite lint "$here/lint.sh"
	unit
	stats
	integration
	guest
	;;
*)
	echo "usage: tests/run.sh [--build DIR] [--harness FILE] [--asan-harness FILE [--asan-all]] [--busy] lint|unit|stats|integration|guest|all [FILE [FILTER]]" >&2
	exit 2
	;;
esac

stop_busy

for c in "${crashed[@]+"${crashed[@]}"}"; do
	echo "# crashed: $c"
done
if [ $((passed + failed + skipped)) -eq 0 ]; then
	echo "# no test ran ($suites suites): a filter or a name that matches nothing?"
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
