#!/usr/bin/env bats
# harness run --no-sandbox, seen from the kernel's side: the runtime out of the sandbox (the host's PID, mount,
# IPC, UTS and cgroup namespaces, no seccomp filter) yet in the run's network namespace, its slice and CPU set, as
# a user of its own; and a sandboxed trial still sandboxed. The results, the table, compare and merge say which.
# Each run is one trial of 2,000 requests, stopped (HARNESS_STOP_AT) to look at its server: ~10 s each.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	assert_no_leftovers
}

stopped() {
	grep -qE '^[0-9]+ \(.*\) T' "/proc/$1/stat" 2>/dev/null
}

# `server_at_load RUN-ARGS...`: a run of node20 on http-hello that stops itself as its load is about to start;
# sets RUN (harness) and SERVER (the runtime: the one process of this test running the scenario's script).
server_at_load() {
	HARNESS_STOP_AT=load "$HARNESS" run --runtimes node20 --repeat 1 --requests 2000 --out r.json "$@" http-hello \
		>run.out 2>run.err &
	RUN=$!
	wait_until 180 grep -q "stopped at load (HARNESS_STOP_AT)" run.err
	wait_until 30 stopped "$RUN"
	SERVER=$(own_pgrep 'server-node\.js')
	echo "server: $SERVER: $(tr '\0' ' ' <"/proc/$SERVER/cmdline")"
	[ -n "$SERVER" ] && [ "$(echo "$SERVER" | wc -w)" = 1 ]
}

# Let the stopped run go on to its end; it must pass.
finish_run() {
	kill -CONT "$RUN"
	wait "$RUN" || status=$?
	cat run.err
	[ "${status:-0}" -eq 0 ]
}

same_ns() {
	[ "$(readlink "/proc/$SERVER/ns/$1")" = "$(readlink "/proc/self/ns/$1")" ]
}

# The CPU set of the server's slice, from the cgroup files (v1 cpuset, or v2's effective set).
slice_cpus() {
	local path
	path=$(sed -n 's/^[0-9]*:cpuset:\(.*\)/\1/p' "/proc/$SERVER/cgroup")
	if [ -n "$path" ]; then
		cat "/sys/fs/cgroup/cpuset$path/cpuset.cpus"
	else
		cat "/sys/fs/cgroup$(sed -n 's/^0::\(.*\)/\1/p' "/proc/$SERVER/cgroup")/cpuset.cpus.effective"
	fi
}

status_field() {
	sed -n "s/^$1:[[:space:]]*//p" "/proc/$SERVER/status"
}

config_sandbox() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["config"].get("sandbox"))' "$1"
}

@test "--no-sandbox: the runtime in the host's namespaces but the run's network, in its slice and CPU set, as the sandbox user, without seccomp; the results and the table say so" {
	need_root
	server_at_load --no-sandbox
	for n in pid mnt ipc uts cgroup; do
		same_ns $n || { echo "$n is not the host's"; return 1; }
	done
	# the run's network namespace: not the host's, the one harness holds open
	refute same_ns net
	ls -l "/proc/$RUN/fd" | grep -qF " -> $(readlink "/proc/$SERVER/ns/net")"
	# in this test's sut slice, on that slice's CPUs
	grep -q "/harness-$HARNESS_RUN_TAG-[^/]*/sut\$" "/proc/$SERVER/cgroup"
	cpus=$(status_field Cpus_allowed_list)
	[ "$cpus" = "$(slice_cpus)" ]
	# a user of its own (not the sandboxed client's and fixture's), no capabilities, no_new_privs, and no filter
	[ "$(status_field Uid | awk '{print $1, $2, $3, $4}')" = "2147479553 2147479553 2147479553 2147479553" ]
	[ "$(status_field Gid | awk '{print $1, $2, $3, $4}')" = "2147479553 2147479553 2147479553 2147479553" ]
	[ "$(status_field CapEff)" = 0000000000000000 ]
	[ "$(status_field NoNewPrivs)" = 1 ]
	[ "$(status_field Seccomp)" = 0 ]
	# what it was given inside, by host paths: its script, its working folder, a HOME of its own
	script=$(tr '\0' '\n' <"/proc/$SERVER/cmdline" | sed -n 2p)
	[[ "$script" == /*/http-hello/server-node.js ]] && [ -f "$script" ]
	[ "$(readlink "/proc/$SERVER/cwd")" = "$(dirname "$script")" ]
	home=$(tr '\0' '\n' <"/proc/$SERVER/environ" | sed -n 's/^HOME=//p')
	[[ "$home" == /tmp/harness-run-*/bare-*/home ]] && [ -d "$home" ]
	[ "$(stat -c %u "$home")" = 2147479553 ]
	# the run folder: root's, traversed by that user's group only
	[ "$(stat -c '%u %g %a' "${home%/bare-*}")" = "0 2147479553 710" ]
	finish_run
	[ "$(config_sandbox r.json)" = False ]
	python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["trials"][0]
assert t["status"] == "ok" and t["server"]["cpus"] == t["cpus"]["sut"] == sys.argv[2], t' r.json "$cpus"
	grep -q "out of the sandbox (--no-sandbox: for comparison only)" run.out
	run "$HARNESS" report --format md r.json
	[[ "$output" == *"out of the sandbox (--no-sandbox: for comparison only)"* ]]
	# nothing of the run's scratch folders is left: the run folder is gone
	[ ! -e "${home%/bare-*}" ]
}

@test "sandboxed (the default): the runtime in namespaces of its own and the run's network, in its slice, with the seccomp filter; the results say so" {
	need_root
	server_at_load
	for n in pid mnt ipc uts cgroup net; do
		refute same_ns $n
	done
	ls -l "/proc/$RUN/fd" | grep -qF " -> $(readlink "/proc/$SERVER/ns/net")"
	grep -q "/harness-$HARNESS_RUN_TAG-[^/]*/sut\$" "/proc/$SERVER/cgroup"
	[ "$(status_field Cpus_allowed_list)" = "$(slice_cpus)" ]
	[ "$(status_field Seccomp)" = 2 ]
	[ "$(tr '\0' '\n' <"/proc/$SERVER/cmdline" | sed -n 2p)" = /scenario/server-node.js ]
	finish_run
	[ "$(config_sandbox r.json)" = True ]
	refute grep -q "out of the sandbox" run.out
}

@test "--no-sandbox with the Postgres fixture: the runtime out of the sandbox reaches the trial's sandboxed Postgres" {
	need_root
	need_postgres
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --no-sandbox --out r.json \
		"$FIXTURES/scenarios/pg-reachable"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(config_sandbox r.json)" = False ]
	python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["trials"][0]
assert t["status"] == "ok" and t["script"]["refused_ssl"] == 50 and t["script"]["errors"] == 0, t' r.json
	assert_no_postgres
}

@test "--no-sandbox: a scenario in a private folder runs from a staged copy; an image cache its user cannot reach is refused in one line, exit 2, before any trial" {
	need_root
	mkdir -m 0700 private
	cp -r "$HARNESS_TOP/scenarios/http-hello" private/
	run --separate-stderr "$HARNESS" run --no-sandbox --runtimes node20 --repeat 1 --requests 2000 --out r.json \
		"$PWD/private/http-hello"
	echo "$stderr" | tail -3
	[ "$status" -eq 0 ]
	[ "$(config_sandbox r.json)" = False ]
	# the image's tree seen through a cache in the private folder (its trees links to the real ones)
	local real=${HARNESS_IMAGE_CACHE:-/var/cache/harness} t
	export HARNESS_CACHE_DIR=$PWD/private/cache
	mkdir -p "$HARNESS_CACHE_DIR/trees"
	for t in "$real"/trees/sha*; do
		[ -d "$t" ] && ln -sfn "$t" "$HARNESS_CACHE_DIR/trees/$(basename "$t")"
	done
	run --separate-stderr "$HARNESS" run --no-sandbox --runtimes node20 --repeat 1 --out r2.json http-hello
	echo "$stderr"
	[ "$status" -eq 2 ]
	[ "$(echo "$stderr" | wc -l)" -eq 1 ]
	[[ "$stderr" == "harness: run: --no-sandbox: the runtime's own user cannot reach node20's $HARNESS_CACHE_DIR/trees/"* ]]
	[[ "$stderr" == *"or drop --no-sandbox" ]]
	# the folder named is one on the way that others may not search
	blocker=$(echo "$stderr" | sed -n 's/.*(others may not search \(.*\)): keep.*/\1/p')
	[[ "$HARNESS_CACHE_DIR" == "$blocker"/* ]]
	[ $((0$(stat -c %a "$blocker") & 1)) -eq 0 ]
	[ ! -e r2.json ]
}

@test "a server's detached child (a session of its own, never waited for) ends with the trial, in the sandbox and out of it" {
	need_root
	for how in --no-sandbox ""; do
		# shellcheck disable=SC2086 # $how: one option or none
		HARNESS_STOP_AT=load "$HARNESS" run $how --runtimes node20 --repeat 1 --out r.json \
			"$FIXTURES/scenarios/leaves-a-child" >run.out 2>run.err &
		RUN=$!
		wait_until 180 grep -q "stopped at load (HARNESS_STOP_AT)" run.err
		wait_until 30 stopped "$RUN"
		# the child runs, in this test's tree, beside its server
		[ -n "$(own_pgrep harness-test-left-child)" ]
		finish_run
		none_runs harness-test-left-child
		[ "$(config_sandbox r.json)" = "$([ -n "$how" ] && echo False || echo True)" ]
	done
}

@test "--no-sandbox refuses a scenario with npm dependencies in one line, exit 2, before anything runs" {
	run --separate-stderr "$HARNESS" run --runtimes node20 --no-sandbox --out r.json http-hello express
	[ "$status" -eq 2 ]
	[ "$stderr" = "harness: run: --no-sandbox: scenario express has npm dependencies, which only the sandbox shows at its node_modules: run it without --no-sandbox" ]
	[ ! -e r.json ]
	run "$HARNESS" run --help
	[[ "$output" == *"--no-sandbox"* ]]
}

@test "compare lists in against out of the sandbox and compares them, report says which, merge refuses to make them one experiment" {
	in=$FIXTURES/results/v1-four-workloads.json # written before config.sandbox: sandboxed
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["config"]["sandbox"] = False
json.dump(d, open("out.json", "w"))' "$in"
	run --separate-stderr "$HARNESS" compare "$in" out.json
	echo "$output"
	[ "$status" -eq 5 ] # compared, not refused: one trial a cell, too few for any verdict
	[[ "$output" == *"config.sandbox: true → false (the runtime in and out of the sandbox: run --no-sandbox)"* ]]
	[[ "$output" == *"runtime"*"mode"* ]] # the rows are there
	run --separate-stderr "$HARNESS" compare "$in" "$in"
	[[ "$output" != *"config.sandbox"* ]]
	# re-rendered, the out-of-sandbox file says so in its header, the sandboxed one does not
	[[ "$("$HARNESS" report out.json --format table | head -1)" == *", out of the sandbox (--no-sandbox: for comparison only)" ]]
	"$HARNESS" report out.json --format html | grep -q '>sandbox</th><td>none for the runtime (--no-sandbox'
	refute grep -q "out of the sandbox" <("$HARNESS" report "$in" --format md)
	refute grep -q "none for the runtime" <("$HARNESS" report "$in" --format html)
	run --separate-stderr "$HARNESS" merge "$in" out.json -o all.json
	echo "$stderr"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"merge: config.sandbox differs between"* ]]
	[ ! -e all.json ]
	# not even when told to merge what differs: one file would give both arms one config.sandbox
	run --separate-stderr "$HARNESS" merge --allow-different "$in" out.json -o all.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"the runtime in and out of the sandbox are two experiments"* ]]
	[ ! -e all.json ]
}
