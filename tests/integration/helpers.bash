# Shared by the bats suites: the binary under test, skip rules, waits and the leak checks. Every check
# looks only at what this test made: harness names its cgroup trees with HARNESS_RUN_TAG, set here per
# test, so another harness running on the host (or another suite) never fails a test.

: "${HARNESS:?run through tests/run.sh (tests/run.sh integration FILE.bats [FILTER]) or make test}"
HELPERS=${HARNESS_HELPERS:-$HARNESS_TOP/build/helpers}
FIXTURES=${HARNESS_FIXTURES:-$HARNESS_TOP/tests/fixtures}
# the tests' shared Python (tests/lib: cpulist.cpus parses the kernel's CPU lists)
PYTHONPATH="$(cd "$(dirname "${BASH_SOURCE[0]}")/../lib" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH

# This test's own tag: the bats run's pid and the test's number ("t4711n12").
export HARNESS_RUN_TAG="t${BATS_ROOT_PID:-$$}n${BATS_SUITE_TEST_NUMBER:-0}"

# Skip with a reason, unless HARNESS_MUST_WORK=1 (CI): then a missing facility is a failure.
hx_skip() {
	if [ "${HARNESS_MUST_WORK:-0}" = 1 ]; then
		echo "HARNESS_MUST_WORK=1, yet: $1" >&2
		return 1
	fi
	skip "$1"
}

need_root() {
	[ "$(id -u)" = 0 ] || hx_skip "needs root to create cgroups"
}

# This test's harness trees in any hierarchy; a test that leaves one behind fails.
leftover_cgroups() {
	find /sys/fs/cgroup -mindepth 1 -maxdepth 8 -type d -name "harness-$HARNESS_RUN_TAG-*" 2>/dev/null
}

# `wait_until SECONDS CMD...`: run CMD every 50 ms until it succeeds; fail naming CMD at the deadline.
# Tests wait on a condition, never for a fixed time: a slow (TCG guest) or busy host only takes longer.
wait_until() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "still not true after the deadline: $*" >&2
			return 1
		fi
		sleep 0.05
	done
}

# The pids of processes in this test's cgroup trees whose command line matches the pgrep pattern $1.
own_pgrep() {
	local p
	for p in $(pgrep -f "$1"); do
		grep -q "/harness-$HARNESS_RUN_TAG-" "/proc/$p/cgroup" 2>/dev/null && echo "$p"
	done
	return 0
}

# A process matching the pgrep pattern $2 runs below pid $1 (a child, a grandchild ...): one this test started,
# for a harness of another tree, where own_pgrep cannot see it.
runs_below() {
	local p q
	for p in $(pgrep -f "$2"); do
		q=$p
		while [ -n "$q" ] && [ "$q" -gt 1 ]; do
			[ "$q" = "$1" ] && return 0
			q=$(sed 's/.*) //' "/proc/$q/stat" 2>/dev/null | cut -d' ' -f2)
		done
	done
	return 1
}

# No process of this test's trees matches $1.
none_runs() {
	[ -z "$(own_pgrep "$1")" ]
}

# A results file that already holds at least one trial (a run writes it after each trial).
has_trials() {
	[ -s "$1" ] && python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["trials"]' "$1" 2>/dev/null
}

# This test made a harness tree and a process matching $1 runs in it.
tree_runs() {
	[ -n "$(leftover_cgroups)" ] && [ -n "$(own_pgrep "$1")" ]
}

assert_no_leftovers() {
	local left
	left=$(leftover_cgroups)
	if [ -n "$left" ]; then
		echo "cgroups left behind:" >&2
		echo "$left" >&2
		return 1
	fi
}

# `refute CMD...`: CMD must fail. (A bare `! CMD` never fails a bats test: `set -e` ignores negated
# commands.)
refute() {
	if "$@"; then
		echo "expected to fail: $*" >&2
		return 1
	fi
}

# The postgres15 image (from npm, in the image cache), for the fixture suites.
need_postgres() {
	"$HARNESS" images verify postgres15 >/dev/null 2>&1 ||
		hx_skip "needs the postgres15 image (harness images pull postgres15)"
}

# No fixture server of this test may outlive its run (a server outside our trees is not ours to judge).
assert_no_postgres() {
	local left
	left=$(own_pgrep 'postgres -D /var/lib/postgresql/data')
	[ -z "$left" ] || { echo "a postgres is left running: $left" >&2; return 1; }
}

# A process that exists and is not a zombie (an orphan killed by gc may wait to be reaped).
running() {
	[ -r "/proc/$1/stat" ] && ! grep -qE '^[0-9]+ \(.*\) Z' "/proc/$1/stat"
}

# A JSON field of the last line of $1 (what exec --stats --json prints on stderr), via python3.
json_field() {
	python3 -c 'import json,sys; d=json.loads(sys.argv[1].strip().splitlines()[-1])
for k in sys.argv[2].split("."):
    d = d.get(k) if isinstance(d, dict) else None
print("" if d is None else d)' "$1" "$2"
}

# The headline verdict of a harness-ab/1 document $1 (throughput, startup or the script's metric).
ab_verdict() {
	python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["verdicts"]
print(next(v[k]["verdict"] for k in ("throughput", "startup", "script") if k in v))' "$1"
}

# The doctor's JSON, once per suite file.
doctor_json() {
	"$HARNESS" doctor --json 2>/dev/null || true
}

doctor_field() {
	python3 -c 'import json,sys; d=json.load(sys.stdin)
for k in sys.argv[1].split("."):
    d = d[int(k)] if isinstance(d, list) else d.get(k)
print(d)' "$1"
}
