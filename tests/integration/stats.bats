#!/usr/bin/env bats
# The statistics checked by simulation against numpy/scipy (tests/stats/): harness ab's CI keeps its 95% coverage
# under the --precision stopping rule, the carry-over adjusted for and in rounds (about 20 s on 2 CPUs).

bats_require_minimum_version 1.5.0

load helpers

@test "stats: harness ab's CI covers 95% under its stopping rule (simulation, fixed seed)" {
	local build=${HARNESS_HELPERS%/helpers}
	[ -x "$build/tests/test_paired" ] || hx_skip "$build/tests/test_paired is not built (make unit)"
	/usr/bin/python3 -c 'import numpy, scipy' 2>/dev/null || hx_skip "needs Debian's python3-numpy and python3-scipy"
	run -0 /usr/bin/python3 "$HARNESS_TOP/tests/stats/coverage.py" "$build"
	echo "$output"
	# six noise shapes, three interleaved duets with a carry-over, three in rounds
	[ "$(grep -c '^ok: ' <<<"$output")" = 12 ]
}
