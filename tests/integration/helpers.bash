# Shared by the bats suites: the binary under test, skip rules and the cgroup leak check.

: "${HARNESS:?run through tests/run.sh or make test}"
HELPERS=${HARNESS_HELPERS:-$HARNESS_TOP/build/helpers}
FIXTURES=${HARNESS_FIXTURES:-$HARNESS_TOP/tests/fixtures}

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

# Every harness-* cgroup in any hierarchy; a test that leaves one behind fails.
leftover_cgroups() {
	find /sys/fs/cgroup -mindepth 1 -maxdepth 8 -type d -name 'harness-*' 2>/dev/null
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

# Debian's PostgreSQL 15, for the fixture suites.
need_postgres() {
	[ -x /usr/lib/postgresql/15/bin/postgres ] || hx_skip "needs Debian's postgresql-15"
}

# No fixture server may outlive its run.
assert_no_postgres() {
	! pgrep -f 'postgres -D /var/lib/postgresql/data' || { echo "a postgres is left running" >&2; return 1; }
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
