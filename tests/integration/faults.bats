#!/usr/bin/env bats
# The fault suite: each case names one fault and asserts what the user sees (exit code, message), what the
# results keep, and that nothing of the test's own is left (processes, cgroup trees, mounts, run folders).
# The load cases run the C fault-server on loopback; the run cases run node20 (the cheapest runtime).

bats_require_minimum_version 1.5.0

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	# harness's fallback results and run folders of this test land here, where teardown can see them
	export TMPDIR="$BATS_TEST_TMPDIR"
}

teardown() {
	[ -z "${SERVER:-}" ] || kill "$SERVER" 2>/dev/null || true
	[ -z "${FULL:-}" ] || umount "$FULL" 2>/dev/null || true
	assert_no_leftovers
	refute grep -qF " $BATS_TEST_TMPDIR/" /proc/self/mounts
}

# `start_fault MODE [N]`: the fault server on loopback; sets PORT and SERVER.
start_fault() {
	"$HELPERS/fault-server" "$@" >"$BATS_TEST_TMPDIR/server.out" &
	SERVER=$!
	wait_until 10 grep -qs '^port ' "$BATS_TEST_TMPDIR/server.out"
	PORT=$(awk '/^port /{print $2}' "$BATS_TEST_TMPDIR/server.out")
}

field() {
	python3 -c 'import json,sys; d=json.load(sys.stdin)
for k in sys.argv[1].split("."): d=d[k]
print(d)' "$1" <<<"$output"
}

# The results file $1 holds N trials ($2) or more (">=N"), and says it was interrupted ($3: true/false).
trials() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["trials"]))' "$1"
}

interrupted() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["interrupted"] is True, d["interrupted"]' "$1"
}

# The run folder the results name is gone.
no_run_dir() {
	local logs
	logs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["config"]["logs"])' "$1")
	[ -n "$logs" ] && [ ! -e "$logs" ]
}

@test "fault: a server that accepts and never answers: timeout errors, exit 1, no hang" {
	start_fault silent
	run timeout 60 "$HARNESS" load "http://127.0.0.1:$PORT/" -c 4 -n 20 --timeout 300 --json
	[ "$status" -eq 1 ]
	[ "$(field requests)" = 0 ]
	[ "$(field errors.timeout)" = 20 ]
	[ "$(field errors.total)" = 20 ]
}

@test "fault: a slow-loris server (one byte a second): timeout errors, exit 1, the duration kept" {
	start_fault loris
	run timeout 60 "$HARNESS" load "http://127.0.0.1:$PORT/" -c 2 -d 3s --timeout 1500 --json
	[ "$status" -eq 1 ]
	[ "$(field requests)" = 0 ]
	[ "$(field errors.timeout)" -ge 2 ]
	python3 -c "assert $(field duration_s) < 10"
}

@test "fault: a server that closes after 500 requests: exactly 500 answered, the rest errors, exit 1" {
	start_fault close-after 500
	run timeout 60 "$HARNESS" load "http://127.0.0.1:$PORT/" -c 4 -n 2000 --json
	[ "$status" -eq 1 ]
	[ "$(field requests)" = 500 ]
	[ "$(field errors.connect)" -gt 0 ]
	# the other 1,500 fail; connection attempts already under way at the count end too (at most c-1 more)
	total=$(field errors.total)
	[ "$total" -ge 1500 ] && [ "$total" -le 1503 ]
}

@test "fault: a malformed status line: parse errors, exit 1" {
	start_fault bad-status
	run timeout 60 "$HARNESS" load "http://127.0.0.1:$PORT/" -c 4 -n 200 --json
	[ "$status" -eq 1 ]
	[ "$(field requests)" = 0 ]
	[ "$(field errors.parse)" = 200 ]
}

@test "fault: a truncated chunked body: read errors, nothing counted as answered, exit 1" {
	start_fault trunc-chunked
	run timeout 60 "$HARNESS" load "http://127.0.0.1:$PORT/" -c 4 -n 200 --json
	[ "$status" -eq 1 ]
	[ "$(field requests)" = 0 ]
	[ "$(field errors.read)" = 200 ]
}

@test "fault: a Content-Length lie (1000 promised, 13 sent): read errors, exit 1" {
	start_fault length-lie
	run timeout 60 "$HARNESS" load "http://127.0.0.1:$PORT/" -c 4 -n 200 --json
	[ "$status" -eq 1 ]
	[ "$(field requests)" = 0 ]
	[ "$(field errors.read)" = 200 ]
}

@test "fault: a WebSocket server that sends a reserved opcode: the chat fails naming it, exit 1" {
	start_fault ws-bad-frame
	run timeout 60 "$HARNESS" load --chat "ws://127.0.0.1:$PORT/" --clients 2 --messages 5 --json
	[ "$status" -eq 1 ]
	[ "$(field invariant_ok)" = False ]
	[[ "$(field why)" == *"unknown data opcode"* ]]
	[ "$(field deliveries)" = 0 ]
}

# A run of many short startup trials, in the background; waits for its first trial. Sets RUN.
start_run() {
	"$HARNESS" run --runtimes node20 --repeat 40 --profile quick --out "$1" startup >run.out 2>run.err &
	RUN=$!
	wait_until 180 has_trials "$1"
}

signal_case() {
	need_root
	start_run s.json
	for sig in "$@"; do kill "-$sig" "$RUN"; done
	wait "$RUN" || status=$?
	echo "status ${status:-0}"
	cat run.err
	interrupted s.json
	n=$(trials s.json)
	[ "$n" -ge 1 ] && [ "$n" -lt 40 ]
	no_run_dir s.json
	none_runs '/scenario/hello.js'
}

@test "fault: SIGTERM during a run: exit 143, the finished trials kept, nothing left" {
	signal_case TERM
	[ "$status" -eq 143 ]
}

@test "fault: SIGINT twice during a run: exit 130, still cleaned up, the finished trials kept" {
	signal_case INT INT
	[ "$status" -eq 130 ]
}

@test "fault: SIGHUP during a run (the terminal closed): exit 129, cleaned up as for Ctrl-C" {
	signal_case HUP
	[ "$status" -eq 129 ]
}

@test "fault: SIGKILL of harness during load, then harness gc: no process, no cgroup tree left" {
	need_root
	"$HARNESS" run --runtimes node20 --repeat 1 --requests 10000000 --out k.json "$HARNESS_TOP/scenarios/http-hello" >/dev/null 2>&1 &
	RUN=$!
	wait_until 180 tree_runs '/scenario/'
	kill -KILL "$RUN"
	wait "$RUN" || true
	run "$HARNESS" gc
	[ "$status" -eq 0 ]
	[[ "$output" == "removed 1 orphaned cgroup tree" ]]
	wait_until 30 none_runs '/scenario/'
}

@test "fault: SIGKILL of harness during readiness, then harness gc: no process, no cgroup tree left" {
	need_root
	"$HARNESS" run --runtimes node20 --out k.json "$HARNESS_FIXTURES/scenarios/never-listens" >/dev/null 2>&1 &
	RUN=$!
	wait_until 60 tree_runs 'server.js'
	kill -KILL "$RUN"
	wait "$RUN" || true
	run "$HARNESS" gc
	[ "$status" -eq 0 ]
	[[ "$output" == "removed 1 orphaned cgroup tree" ]]
	wait_until 30 none_runs 'server.js'
}

# A 1 MiB tmpfs in the test's folder, filled to the last byte; sets FULL.
full_disk() {
	FULL="$BATS_TEST_TMPDIR/full"
	mkdir -p "$FULL"
	mount -t tmpfs -o size=1m tmpfs "$FULL" || hx_skip "cannot mount a tmpfs"
	dd if=/dev/zero of="$FULL/filler" bs=4k 2>/dev/null || true
}

@test "fault: the disk full while writing results, then freed: the write is retried, every trial kept" {
	need_root
	full_disk
	"$HARNESS" run --runtimes node20 --repeat 6 --profile quick --out "$FULL/r.json" startup >run.out 2>run.err &
	RUN=$!
	wait_until 180 grep -q 'cannot write the results' run.err
	rm "$FULL/filler"
	wait "$RUN" || status=$?
	cat run.err
	[ "${status:-0}" -eq 0 ]
	grep -q 'No space left on device); the trials are kept and the write is tried again after each trial' run.err
	grep -q "written again" run.err
	[ "$(trials "$FULL/r.json")" = 6 ]
}

@test "fault: the disk full to the end: all trials in a fallback file named on stderr, exit 3, not 4" {
	need_root
	full_disk
	run --separate-stderr "$HARNESS" run --runtimes node20 --repeat 2 --profile quick --out "$FULL/r.json" startup
	echo "$stderr"
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"all 2 trials are kept in $BATS_TEST_TMPDIR/harness-results-"* ]]
	fb=$(ls "$BATS_TEST_TMPDIR"/harness-results-*.json)
	[ "$(trials "$fb")" = 2 ]
	[ ! -e "$FULL/r.json" ]
	no_run_dir "$fb"
}
