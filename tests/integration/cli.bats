#!/usr/bin/env bats
# The command line surface: help, version, verbs, usage errors and exit codes.

bats_require_minimum_version 1.5.0

load helpers

@test "--version names the version and the commit" {
	run "$HARNESS" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^harness\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ [0-9a-f]{7,}|unknown\)$ ]]
}

@test "--help lists every verb and the exit codes" {
	run "$HARNESS" --help
	[ "$status" -eq 0 ]
	for verb in run exec load images scenarios report compare doctor gc; do
		[[ "$output" == *"  $verb "* ]] || { echo "missing verb $verb"; return 1; }
	done
	[[ "$output" == *"3  this host cannot do what was asked"* ]]
	[[ "$output" == *"4  internal failure"* ]]
}

@test "no arguments: usage on stderr, exit 2" {
	run "$HARNESS"
	[ "$status" -eq 2 ]
	[[ "$output" == *"Usage: harness VERB"* ]]
}

@test "an unknown verb is one line naming the fix, exit 2" {
	run "$HARNESS" frobnicate
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"unknown verb 'frobnicate'"*"harness --help"* ]]
}

@test "an unknown flag is one line naming the fix, exit 2" {
	run "$HARNESS" --frobnicate
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"unknown option '--frobnicate'"* ]]
	for verb in doctor exec gc load images run report; do
		run "$HARNESS" "$verb" --frobnicate
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == *"unknown option '--frobnicate' (see 'harness $verb --help')"* ]]
	done
}

@test "a bad option value is one line, exit 2" {
	run "$HARNESS" exec --memory lots -- true
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"--memory takes SIZE, not 'lots'"* ]]
	run "$HARNESS" exec --mode turbo -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"--mode takes pinned, quota or none, not 'turbo'"* ]]
	run "$HARNESS" exec
	[ "$status" -eq 2 ]
	[[ "$output" == *"no command given"* ]]
}

@test "every verb has --help" {
	for verb in run exec load images scenarios report compare doctor gc; do
		run "$HARNESS" "$verb" --help
		[ "$status" -eq 0 ] || { echo "$verb --help: $status"; return 1; }
		[[ "$output" == *"Usage: harness $verb"* ]]
	done
}

@test "a verb that is not built yet says so and exits 4" {
	for verb in compare; do
		run "$HARNESS" "$verb"
		[ "$status" -eq 4 ]
		[[ "$output" == *"'$verb' is not built yet"* ]]
	done
}

@test "run --out in a folder that does not exist: exit 2 before anything runs" {
	cd "$BATS_TEST_TMPDIR"
	HARNESS_CACHE_DIR="$BATS_TEST_TMPDIR/cache" run --separate-stderr "$HARNESS" run --out "$BATS_TEST_TMPDIR/no/such/r.json" express
	echo "$stderr"
	[ "$status" -eq 2 ]
	[[ "$stderr" == "harness: run: --out: cannot write in $BATS_TEST_TMPDIR/no/such (No such file or directory): name a folder that exists" ]]
	# nothing ran: no image cache opened (no pull), no npm, no results folder
	[ ! -e "$BATS_TEST_TMPDIR/cache" ] && [ ! -e results ]
}
