#!/usr/bin/env bash
# Runs harness's test suites (TAP from cmocka and bats), shows their output and ends with one line:
# "N passed, N failed, N skipped". Exit status is non-zero when anything failed or a suite crashed.
#   tests/run.sh [--build DIR] unit|integration|guest|all
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
if [ "${1:-}" = --build ]; then
	build=$(cd "$top" && cd "$2" && pwd)
	shift 2
fi
what=${1:-all}

export HARNESS="$top/bin/harness"
export HARNESS_TOP="$top"
export HARNESS_HELPERS="$build/helpers"
export HARNESS_FIXTURES="$here/fixtures"

passed=0 failed=0 skipped=0 crashed=()

# Count one suite's TAP; a suite that exits non-zero without a failing test counts as one failure.
run_suite() {
	local name=$1
	shift
	local out rc
	out=$(mktemp)
	echo "# suite: $name"
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
	rm -f "$out"
}

unit() {
	local t
	for t in "$build"/tests/test_*; do
		[ -x "$t" ] || continue
		CMOCKA_MESSAGE_OUTPUT=TAP run_suite "unit/$(basename "$t")" "$t"
	done
}

integration() {
	local f
	for f in "$here"/integration/*.bats; do
		run_suite "integration/$(basename "$f" .bats)" bats --tap "$f"
	done
}

guest() {
	run_suite "guest/cgroup-v2" "$here/guest/run-guest.sh"
}

case "$what" in
unit) unit ;;
integration) integration ;;
guest) guest ;;
all)
	unit
	integration
	guest
	;;
*)
	echo "usage: tests/run.sh [--build DIR] unit|integration|guest|all" >&2
	exit 2
	;;
esac

for c in "${crashed[@]+"${crashed[@]}"}"; do
	echo "# crashed: $c"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
