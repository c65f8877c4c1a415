#!/usr/bin/env bats
# Every way a run can be ended early leaves the same clean stop: the run folder gone, the results file complete
# (interrupted, verdict "interrupted"), the trial in flight marked interrupted, no slice or process left, and
# the exit status a shell gives a process that the signal killed (128 + N).

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	# a failed test must not leave its harness running
	[ -z "${pid:-}" ] || kill -KILL "$pid" 2>/dev/null || true
	assert_no_leftovers
}

# A run whose trials each take a few seconds, so that the signal lands in the middle of one.
RUN_ARGS=(run --cpus 1 --runtimes node20 --profile quick --repeat 20 --connections 10 --requests 50000
	--out i.json http-hello)

# The second trial's server is up: the signal will find a trial in flight.
second_trial_serving() {
	has_trials i.json && [ -n "$(own_pgrep 'server-node.js')" ]
}

# The file a signal left: complete, interrupted, the trial in flight interrupted and no other failed; the run
# folder removed; and report saying the file is partial.
check_stopped() {
	local signame=$1
	python3 - "$signame" <<'PY'
import json, os, sys
d = json.load(open("i.json"))
assert d["interrupted"] is True and d["verdict"] == "interrupted", (d.get("interrupted"), d.get("verdict"))
ts = d["trials"]
assert 1 <= len(ts) < 20, len(ts)
assert {t["status"] for t in ts[:-1]} == {"ok"}, [t["status"] for t in ts]
last = ts[-1]
assert last["status"] == "interrupted", last["status"]
assert last["error"] == "interrupted by " + sys.argv[1], last["error"]
assert not os.path.exists(d["config"]["logs"]), d["config"]["logs"]
PY
	run --separate-stderr "$HARNESS" report i.json --format table
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"warning: i.json is partial: the run was interrupted after"* ]]
	[[ "$output" == *"interrupted"* && "$output" != *"FAILED"* ]]
	none_runs 'server-node.js'
}

@test "SIGINT to the process group (Ctrl-C): a clean stop, exit 130" {
	# its own process group, as a shell's foreground job: the terminal's SIGINT reaches every process in it
	setsid "$HARNESS" "${RUN_ARGS[@]}" >/dev/null 2>err &
	pid=$!
	wait_until 180 second_trial_serving
	[ "$(ps -o pgid= -p "$pid" | tr -d ' ')" = "$pid" ]
	kill -INT -- "-$pid"
	wait "$pid" || status=$?
	pid=
	[ "${status:-0}" -eq 130 ]
	check_stopped SIGINT
	grep -q 'interrupted by SIGINT' err
	refute grep -q 'the server exited' err
}

@test "SIGTERM: a clean stop, exit 143" {
	"$HARNESS" "${RUN_ARGS[@]}" >/dev/null 2>err &
	pid=$!
	wait_until 180 second_trial_serving
	kill -TERM "$pid"
	wait "$pid" || status=$?
	pid=
	[ "${status:-0}" -eq 143 ]
	check_stopped SIGTERM
}

@test "SIGHUP (a closed terminal): a clean stop, exit 129" {
	"$HARNESS" "${RUN_ARGS[@]}" >/dev/null 2>err &
	pid=$!
	wait_until 180 second_trial_serving
	kill -HUP "$pid"
	wait "$pid" || status=$?
	pid=
	[ "${status:-0}" -eq 129 ]
	check_stopped SIGHUP
}

@test "a closed pipe (run ... 2>&1 | head -1): SIGPIPE is a clean stop, exit 141" {
	mkfifo progress
	"$HARNESS" "${RUN_ARGS[@]}" >/dev/null 2>progress &
	pid=$!
	exec {reader}<progress # the reader, as head is (bats keeps fd 3 for itself)
	wait_until 180 second_trial_serving
	exec {reader}<&- # head has its line and exits: harness's next line on stderr meets a pipe with no reader
	wait "$pid" || status=$?
	pid=
	[ "${status:-0}" -eq 141 ]
	check_stopped SIGPIPE
}

@test "--keep: the run folder of an interrupted run stays, and the file names it" {
	"$HARNESS" "${RUN_ARGS[@]}" --keep >/dev/null 2>err &
	pid=$!
	wait_until 180 second_trial_serving
	kill -TERM "$pid"
	wait "$pid" || status=$?
	pid=
	[ "${status:-0}" -eq 143 ]
	logs=$(python3 -c 'import json; print(json.load(open("i.json"))["config"]["logs"])')
	[ -d "$logs" ]
	grep -q "logs kept in $logs" err
	rm -rf "$logs"
}
