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
	# a run oom_trial left stopped (HARNESS_STOP_AT) when it failed ends as after Ctrl-C
	if [ -n "${OOM_RUN:-}" ]; then
		kill -INT "$OOM_RUN" 2>/dev/null && kill -CONT "$OOM_RUN" 2>/dev/null
		wait_until 60 gone "$OOM_RUN" || kill -KILL "$OOM_RUN" 2>/dev/null
		wait "$OOM_RUN" 2>/dev/null || true
	fi
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
	[ "$total" -ge 1500 ]
	[ "$total" -le 1503 ]
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
	[ "$n" -ge 1 ]
	[ "$n" -lt 40 ]
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

# The run folder of harness process $1: the one whose owner file names it (this test's tag, that pid).
own_run_dir() {
	grep -l "^harness-$HARNESS_RUN_TAG-$1-" /tmp/harness-run-*/owner 2>/dev/null | xargs -r -n1 dirname
}

stopped() {
	grep -qE '^[0-9]+ \(.*\) T' "/proc/$1/stat" 2>/dev/null
}

# Whether process $1 has exited (a zombie not yet waited for, or gone).
gone() {
	! grep -qE '^[0-9]+ \(.*\) [^Z]' "/proc/$1/stat" 2>/dev/null
}

# `kill_at STAGE RUN-ARGS...`: a run of node20 that stops itself (HARNESS_STOP_AT) as it enters STAGE, is
# SIGKILLed there, then `harness gc`; sets DIR (its run folder, if it had made one) and gc's output.
kill_at() {
	need_root
	local stage=$1
	shift
	HARNESS_STOP_AT=$stage "$HARNESS" run --runtimes node20 --repeat 1 --out k.json "$@" >run.out 2>run.err &
	RUN=$!
	wait_until 180 grep -q "harness: run: stopped at $stage (HARNESS_STOP_AT)" run.err
	wait_until 30 stopped "$RUN"
	DIR=$(own_run_dir "$RUN") # found by its owner file
	kill -KILL "$RUN"
	wait "$RUN" || status=$?
	[ "${status:-0}" -eq 137 ]
	run "$HARNESS" gc
	echo "$output"
	[ "$status" -eq 0 ]
}

gc_said() {
	[ "$output" = "removed $1 orphaned cgroup tree$([ "$1" = 1 ] || echo s)${2:+
removed $2 run folder of dead runs in /tmp}" ]
}

@test "fault: SIGKILL of harness at plan, then harness gc: nothing was made, nothing is left" {
	kill_at plan --requests 2000 http-hello
	gc_said 0
	[ -z "$DIR" ]
	[ ! -e k.json ]
}

@test "fault: SIGKILL of harness at prepare, then harness gc: the run folder removed" {
	kill_at prepare --requests 2000 http-hello
	[ -n "$DIR" ]
	gc_said 0 1
	[ ! -e "$DIR" ]
	[ ! -e k.json ]
}

@test "fault: SIGKILL of harness during readiness, then harness gc: no process, no cgroup tree, no run folder left" {
	kill_at readiness "$HARNESS_FIXTURES/scenarios/never-listens"
	gc_said 1 1
	[ ! -e "$DIR" ]
	wait_until 30 none_runs 'server.js'
}

@test "fault: SIGKILL of harness during warm-up, then harness gc: the runtime killed, nothing left" {
	kill_at warmup --requests 2000 http-hello
	gc_said 1 1
	[ ! -e "$DIR" ]
	wait_until 30 none_runs '/scenario/'
}

@test "fault: SIGKILL of harness during load, then harness gc: no process, no cgroup tree, no run folder left" {
	kill_at load --requests 2000 http-hello
	gc_said 1 1
	[ ! -e "$DIR" ]
	wait_until 30 none_runs '/scenario/'
}

@test "fault: SIGKILL of harness at teardown, then harness gc: the trial's tree removed, nothing left" {
	kill_at teardown --requests 2000 http-hello
	gc_said 1 1
	[ ! -e "$DIR" ]
	wait_until 30 none_runs '/scenario/'
}

@test "fault: harness gc beside a live run: the dead run's folder and tree go, the live one's stay" {
	need_root
	HARNESS_STOP_AT=warmup "$HARNESS" run --runtimes node20 --repeat 1 --requests 2000 --out live.json http-hello \
		>live.out 2>live.err &
	LIVE=$!
	wait_until 180 grep -q "stopped at warmup" live.err
	live_dir=$(own_run_dir "$LIVE")
	kill_at prepare --requests 2000 http-hello
	gc_said 0 1
	[ ! -e "$DIR" ]
	# the live run's tree, runtime and folder are untouched, and it finishes once let go
	[ -f "$live_dir/owner" ]
	tree_runs '/scenario/'
	kill -CONT "$LIVE"
	wait "$LIVE"
	[ "$(trials live.json)" = 1 ]
	[ ! -e "$live_dir" ]
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

# The first trial of results file $1: "FIELD.PATH" of it.
trial_field() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["trials"][int(sys.argv[3])]
for k in sys.argv[2].split("."): d=d[k]
print(d)' "$1" "$2" "${3:-0}"
}

# `oom_trial SLICE RUN-ARGS...`: a node20 run of one trial, stopped (HARNESS_STOP_AT) at the trial's teardown,
# while its slices still exist: the kernel's own counters are read from SLICE's cgroup (v2: memory.events,
# its oom and oom_kill lines; v1: the memory hierarchy's memory.oom_control, its oom_kill line) into OOM_FILE,
# OOM_KILLS and OOM_EVENTS (v2 only), then the run goes on to its end; sets status and stderr.
oom_trial() {
	local slice=$1 f
	shift
	HARNESS_STOP_AT=teardown "$HARNESS" run --runtimes node20 --repeat 1 "$@" >run.out 2>run.err &
	OOM_RUN=$!
	wait_until 240 grep -q "harness: run: stopped at teardown (HARNESS_STOP_AT)" run.err
	wait_until 30 stopped "$OOM_RUN"
	if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then
		OOM_FILE=memory.events
		f=$(find /sys/fs/cgroup -path "*/harness-$HARNESS_RUN_TAG-*/$slice/memory.events")
		OOM_EVENTS=$(awk '$1 == "oom" {print $2}' "$f")
	else
		OOM_FILE=memory.oom_control
		f=$(find /sys/fs/cgroup/memory -path "*/harness-$HARNESS_RUN_TAG-*/$slice/memory.oom_control")
		OOM_EVENTS=""
	fi
	echo "$slice: $f: $(tr '\n' ' ' <"$f")"
	[ -n "$f" ] && [ "$(wc -l <<<"$f")" -eq 1 ]
	OOM_KILLS=$(awk '$1 == "oom_kill" {print $2}' "$f")
	kill -CONT "$OOM_RUN"
	wait_until 120 gone "$OOM_RUN"
	wait "$OOM_RUN" || status=$?
	OOM_RUN=""
	stderr=$(cat run.err)
	echo "$stderr"
}

# `oom_said WHO LIMIT THEN`: run.err says WHO was ended by its memory limit (LIMIT: "96 MiB (--memory"), with
# the evidence, then what it looked like (THEN). The kernel's kill is said with the slice's own counters
# (v2 also counts the allocations that hit memory.max). In the emulated guest the runtime's code is read back
# over 9p once reclaim has taken it, and the slice may thrash instead, the kernel never killing: harness then
# ends it on the slice's memory pressure (run/thrash.h), and says that. On the host only the kernel's kill is.
oom_said() {
	if [ "$OOM_KILLS" -ge 1 ]; then
		echo "# $1: killed by the kernel (oom_kill $OOM_KILLS)" >&3
		[ -z "$OOM_EVENTS" ] || [ "$OOM_EVENTS" -ge 1 ]
		[[ "$stderr" == *"trial 1: OOM: $1 was killed by its memory limit of $2; $OOM_FILE: oom_kill $OOM_KILLS); then: $3"* ]]
	else
		echo "# $1: thrashed, ended by harness: $(grep -o 'waited on memory [0-9]*% of the last 10 s' run.err)" >&3
		[ "${HARNESS_GUEST:-0}" = 1 ]
		[[ "$stderr" =~ "trial 1: OOM: $1 thrashed at its memory limit of $2; memory.pressure: all its tasks waited on memory "[0-9]+"% of the last 10 s) and harness ended it; then: $3" ]]
	fi
}

# The OOM cases also run in the cgroup v2 guest (tests/run.sh guest: HARNESS_GUEST_FILTER=OOM-killed).
@test "fault: the runtime OOM-killed mid-load by its memory limit: said as OOM with the kernel's oom_kill count, or its memory pressure" {
	need_root
	oom_trial sut --memory 96M --out o.json "$HARNESS_FIXTURES/scenarios/oom-mid-load"
	[ "${status:-0}" -eq 1 ]
	# the cause first, with that evidence, then what it looked like
	oom_said "the runtime" "96 MiB (--memory" "the server exited during the load"
	[[ "$stderr" != *"reset"* ]]
	[ "$(trial_field o.json status)" = failed ]
	[[ "$(trial_field o.json error)" == "OOM: the runtime "* ]]
	[ "$(trial_field o.json slices.sut.oom_kill)" = "$OOM_KILLS" ]
	[ "$(trial_field o.json slices.client.oom_kill)" = 0 ]
	no_run_dir o.json
	none_runs 'server.js'
}

@test "fault: the load client OOM-killed (--client-memory): the client's failure, not the runtime's" {
	need_root
	# 10,000 connections need ~50 MiB of the client; its slice gets 8
	oom_trial client --client-memory 8M --connections 10000 --requests 10000 --out c.json http-hello
	[ "${status:-0}" -eq 1 ]
	oom_said "the load client" "8 MiB (--client-memory" "the load client exited with status 137 and no figures"
	[ "$(trial_field c.json status)" = failed ]
	[ "$(trial_field c.json slices.client.oom_kill)" = "$OOM_KILLS" ]
	[ "$(trial_field c.json slices.sut.oom_kill)" = 0 ]
	python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["config"]["client_memory_max_bytes"] == 8 << 20' c.json
	no_run_dir c.json
	none_runs '/scenario/'
}

# The thrashing rule itself, made certain: the trial's sut slice held at memory.high (cgroup v2: each allocation
# over it sleeps in the kernel, counted as a memory stall) while the load runs, far below its memory.max, so the
# kernel never kills. harness must end the slice within its window and say why, not wait out the trial's budget.
@test "fault: the runtime stalled on memory for 10 s is OOM-killed by harness as thrashing, said with its memory pressure" {
	need_root
	[ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] ||
		skip "memory.high, which holds the runtime in the kernel here, is cgroup v2's (tests/run.sh guest runs this)"
	local f t0
	HARNESS_STOP_AT=load "$HARNESS" run --runtimes node20 --repeat 1 --memory 96M --out t.json \
		"$HARNESS_FIXTURES/scenarios/oom-mid-load" >run.out 2>run.err &
	OOM_RUN=$!
	wait_until 240 grep -q "harness: run: stopped at load (HARNESS_STOP_AT)" run.err
	wait_until 30 stopped "$OOM_RUN"
	f=$(find /sys/fs/cgroup -path "*/harness-$HARNESS_RUN_TAG-*/sut/memory.high")
	[ -n "$f" ] && [ "$(wc -l <<<"$f")" -eq 1 ]
	cat "${f%/*}/memory.current" >"$f"
	t0=$SECONDS
	kill -CONT "$OOM_RUN"
	wait_until 120 gone "$OOM_RUN"
	wait "$OOM_RUN" || status=$?
	OOM_RUN=""
	cat run.err
	echo "# ended after $((SECONDS - t0)) s" >&3
	[ "${status:-0}" -eq 1 ]
	[[ "$(cat run.err)" =~ "trial 1: OOM: the runtime thrashed at its memory limit of 96 MiB (--memory; memory.pressure: all its tasks waited on memory "[0-9]+"% of the last 10 s) and harness ended it; then: the server exited during the load" ]]
	[ "$(trial_field t.json status)" = failed ]
	[ "$(trial_field t.json slices.sut.oom_kill)" = 0 ]
	no_run_dir t.json
	none_runs 'server.js'
}

# The postmaster of this test's trial: the process of its own fixture slice started as `postgres -D ...`
# (its children rename themselves "postgres: checkpointer" and so on).
own_postmaster() {
	local f p
	for f in $(find /sys/fs/cgroup -path "*/harness-$HARNESS_RUN_TAG-*/fixture/cgroup.procs" 2>/dev/null); do
		for p in $(cat "$f"); do
			tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q 'postgres -D ' && echo "$p"
		done
	done
	return 0
}

@test "fault: Postgres killed mid-trial: the trial fails naming the fixture, the next trial still runs" {
	need_root
	need_postgres
	"$HARNESS" run --runtimes node20 --out p.json "$HARNESS_FIXTURES/scenarios/pg-mid-trial" >run.out 2>run.err &
	RUN=$!
	# the script is asking: the fixture is up, the trial in its middle
	wait_until 180 tree_runs 'ask.mjs'
	pm=$(own_postmaster | head -1)
	[ -n "$pm" ]
	kill -KILL "$pm"
	wait "$RUN" || status=$?
	cat run.err
	[ "${status:-0}" -eq 1 ]
	# the fixture first, with its log's last lines; what the script saw after "then:"
	tr '\n' ' ' <run.err | grep -q 'pg-mid-trial node20 pinned trial 1: the fixture postgres exited with status 137 during the trial; its last output: .*; then: the script exited with 3; its last output: request [0-9]*: postgres is gone'
	[ "$(trials p.json)" = 2 ]
	[ "$(trial_field p.json status 0)" = failed ]
	[[ "$(trial_field p.json error 0)" == "the fixture postgres exited with status 137"* ]]
	[ "$(trial_field p.json status 1)" = ok ]
	[ "$(trial_field p.json script.refused_ssl 1)" = 400 ]
	no_run_dir p.json
	assert_no_postgres
	none_runs 'ask.mjs'
}

# Two tool tarballs in $W (a.gate.tgz: held in the middle until $W/a.gate.tgz.go exists), served from loopback by
# tests/servers/tarball-server.py; `tool_manifest NAME FILE` writes a url manifest for one.
tarballs() {
	W=$BATS_TEST_TMPDIR/www
	mkdir -p "$W"
	python3 - "$W" <<'PY'
import io, os, sys, tarfile
w = sys.argv[1]
for name, version in (("a.gate.tgz", "a 1.0"), ("b.tgz", "b 1.0")):
    tool = ("#!/bin/sh\necho %s\n" % version).encode() + b"#" * 200000 + b"\n"
    with tarfile.open(os.path.join(w, name), "w:gz", compresslevel=0) as t:
        i = tarfile.TarInfo("package/bin/tool"); i.size = len(tool); i.mode = 0o755
        t.addfile(i, io.BytesIO(tool))
PY
	python3 "$HARNESS_TOP/tests/servers/tarball-server.py" "$W" >"$BATS_TEST_TMPDIR/tar.out" &
	SERVER=$!
	wait_until 10 grep -qs '^port ' "$BATS_TEST_TMPDIR/tar.out"
	PORT=$(awk '/^port /{print $2}' "$BATS_TEST_TMPDIR/tar.out")
}

tool_manifest() {
	cat >"$BATS_TEST_TMPDIR/$1.json" <<JSON
{"name": "$1", "version": "1.0", "kind": "runtime",
 "source": {"type": "url", "url": "http://127.0.0.1:$PORT/$2", "sha256": "$(sha256sum "$W/$2" | cut -c1-64)", "strip_components": 1},
 "entry": "bin/tool", "run": ["{entry}", "{script}"],
 "version_command": ["{entry}", "--version"], "version_expect": "$1 1.0"}
JSON
}

@test "fault: a cache another harness is pulling into: the second waits and says so, both succeed, digests verify" {
	need_root
	export HARNESS_CACHE_DIR=$BATS_TEST_TMPDIR/cache # fresh
	tarballs
	tool_manifest a a.gate.tgz
	tool_manifest b b.tgz
	"$HARNESS" images pull "$BATS_TEST_TMPDIR/a.json" >a.out 2>a.err &
	a=$!
	wait_until 30 grep -q 'pulling a 1.0' a.err # a holds the cache, its download held in the middle
	"$HARNESS" images pull "$BATS_TEST_TMPDIR/b.json" >b.out 2>b.err &
	b=$!
	wait_until 30 grep -q "harness: images: waiting for another harness writing into $HARNESS_CACHE_DIR" b.err
	refute grep -q 'pulling b' b.err
	touch "$W/a.gate.tgz.go"
	wait "$a"
	wait "$b"
	cat a.err b.err
	grep -q 'pulling b 1.0' b.err
	[ "$(ls "$HARNESS_CACHE_DIR/trees" | wc -l)" -eq 2 ]
	[ -z "$(find "$HARNESS_CACHE_DIR" -name '.tmp-*' -o -name '.partial-*')" ]
	run "$HARNESS" images verify "$BATS_TEST_TMPDIR/a.json"
	[ "$output" = "a 1.0: ok" ]
	run "$HARNESS" images verify "$BATS_TEST_TMPDIR/b.json"
	[ "$output" = "b 1.0: ok" ]
}

# A long http-hello run whose measured load is under way (the client slice runs `harness load`); sets RUN.
start_load() {
	"$HARNESS" run --runtimes node20 --repeat 1 --requests 10000000 --out k.json http-hello >run.out 2>run.err &
	RUN=$!
	wait_until 180 tree_runs '/opt/harness/harness load'
}

@test "fault: the runtime SIGKILLed by someone else mid-load: said as an exit, not as OOM" {
	need_root
	start_load
	kill -KILL $(own_pgrep '/scenario/server-node.js')
	wait "$RUN" || status=$?
	cat run.err
	[ "${status:-0}" -eq 1 ]
	grep -q 'http-hello node20 pinned trial 1: the server exited during the load; its last output: ' run.err
	refute grep -q OOM run.err
	[ "$(trial_field k.json slices.sut.oom_kill)" = 0 ]
	[ "$(trial_field k.json status)" = failed ]
	no_run_dir k.json
	none_runs '/scenario/'
}

@test "fault: the load client SIGKILLed mid-load: the client's failure, not OOM, the runtime stopped" {
	need_root
	start_load
	kill -KILL $(own_pgrep '/opt/harness/harness load')
	wait "$RUN" || status=$?
	cat run.err
	[ "${status:-0}" -eq 1 ]
	grep -q 'http-hello node20 pinned trial 1: the load client exited with status 137 and no figures' run.err
	refute grep -q OOM run.err
	[ "$(trial_field k.json slices.client.oom_kill)" = 0 ]
	no_run_dir k.json
	none_runs '/scenario/'
}

@test "fault: SIGTERM at prepare, before any trial: exit 143, an empty interrupted results file, the run folder removed" {
	need_root
	HARNESS_STOP_AT=prepare "$HARNESS" run --runtimes node20 --repeat 1 --requests 2000 --out t.json http-hello \
		>run.out 2>run.err &
	RUN=$!
	wait_until 180 grep -q "stopped at prepare" run.err
	wait_until 30 stopped "$RUN"
	dir=$(own_run_dir "$RUN")
	[ -n "$dir" ]
	kill -TERM "$RUN"
	kill -CONT "$RUN"
	wait "$RUN" || status=$?
	cat run.err
	[ "${status:-0}" -eq 143 ]
	interrupted t.json
	[ "$(trials t.json)" = 0 ]
	[ ! -e "$dir" ]
	none_runs '/scenario/'
}
