#!/usr/bin/env bats
# harness exec on real cgroups: pinning, quota, memory and process limits, exit status, signals,
# teardown and gc. Runs on this host (v1 or hybrid) and, unchanged, in the cgroup v2 guest.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
}

teardown() {
	assert_no_leftovers
}

@test "exec --cpus 1 pins the command to one CPU that is not the client's" {
	run --separate-stderr "$HARNESS" exec --cpus 1 --stats --json -- grep Cpus_allowed_list /proc/self/status
	[ "$status" -eq 0 ]
	got=$(echo "$output" | awk '{print $2}')
	[ "$got" = "$(json_field "$stderr" cpus)" ]
	[[ "$got" =~ ^[0-9]+$ ]]
	client=$(json_field "$stderr" client_cpus)
	[ -n "$client" ]
	[ "$got" != "$client" ]
}

@test "pinned to one CPU, two spinning threads get at most one CPU of time" {
	run --separate-stderr "$HARNESS" exec --bind "$HELPERS:/opt/helpers" --cpus 1 --stats --json -- /opt/helpers/busy 2 1
	[ "$status" -eq 0 ]
	user=$(json_field "$stderr" stats.cpu_user_usec)
	sys=$(json_field "$stderr" stats.cpu_system_usec)
	echo "user $user sys $sys"
	# they ran and were counted; how much of the CPU they got depends on who else uses it (another
	# harness pinned to the same CPU got 40% of it in the busy suite), but never more than the one CPU
	[ $((user + sys)) -gt 100000 ]
	[ $((user + sys)) -lt 1300000 ]
}

@test "quota mode: the command sees every CPU and is throttled to its budget" {
	run --separate-stderr "$HARNESS" exec --bind "$HELPERS:/opt/helpers" --mode quota --cpus 1 --stats --json -- sh -c \
		"grep Cpus_allowed_list /proc/self/status; exec /opt/helpers/busy 2 1"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | awk '{print $2}')" = "$(doctor_json | doctor_field cpus.usable)" ]
	throttled=$(json_field "$stderr" stats.nr_throttled)
	echo "nr_throttled $throttled"
	[ "$throttled" -gt 0 ]
	[ "$(json_field "$stderr" stats.throttled_usec)" -gt 0 ]
}

@test "the README's quota example is throttled (two busy threads under a 1-CPU quota)" {
	command -v node >/dev/null || hx_skip "needs node on the host"
	# the example as the README prints it, over its two lines, run from the checkout
	cmd=$(grep -A1 -- '--mode quota --cpus 1 --stats' "$HARNESS_TOP/README.md" | sed 's/#.*//; s/\\$//' | tr -d '\n')
	[[ "$cmd" == *worker_threads* ]]
	run --separate-stderr bash -c "cd '$HARNESS_TOP' && HARNESS_BIN='$HARNESS' && ${cmd/bin\/harness/\$HARNESS_BIN}"
	echo "$stderr"
	[ "$status" -eq 124 ]
	used=$(awk '/cpu_user_usec|cpu_system_usec/ {s += $2} END {print s}' <<<"$stderr")
	# a host too busy to give the command its full CPU of time cannot show a quota's throttling
	[ "$used" -ge 1800000 ] || skip "the host gave the command ${used} us of CPU in 2 s: too busy to reach the quota"
	[ "$(awk '/nr_throttled/ {print $2}' <<<"$stderr")" -gt 0 ]
}

@test "--memory 64M: a 256 MiB allocation is OOM-killed, exit 137, oom_kill counted" {
	run --separate-stderr "$HARNESS" exec --memory 64M --stats --json -- python3 -c 'bytearray(256<<20)'
	[ "$status" -eq 137 ]
	[ "$(json_field "$stderr" exit_status)" = 137 ]
	[ "$(json_field "$stderr" stats.oom_kill)" -ge 1 ]
	peak=$(json_field "$stderr" stats.memory_peak_bytes)
	[ "$peak" -le $((64 << 20)) ]
	[ "$peak" -gt $((32 << 20)) ]
}

@test "--pids-max stops a fork loop" {
	run "$HARNESS" exec --bind "$HELPERS:/opt/helpers" --pids-max 20 -- /opt/helpers/forks 200
	[ "$status" -eq 0 ]
	[ "$output" -lt 20 ]
	[ "$output" -ge 10 ]
}

@test "stats: every field is a number or absent, never made up" {
	run --separate-stderr "$HARNESS" exec --stats --json -- true
	[ "$status" -eq 0 ]
	for f in cpu_user_usec cpu_system_usec memory_peak_bytes oom_kill pids_peak; do
		v=$(json_field "$stderr" "stats.$f")
		[[ "$v" =~ ^[0-9]+$ ]] || { echo "$f = '$v'"; return 1; }
	done
	mode=$(doctor_json | doctor_field cgroup.mode)
	if [ "$mode" != unified ]; then
		# v1 counts OOM kills but not OOM events: absent, not zero
		[ -z "$(json_field "$stderr" stats.oom)" ]
	else
		[ "$(json_field "$stderr" stats.oom)" = 0 ]
	fi
}

@test "the command's exit status passes through; a signal gives 128+N" {
	run "$HARNESS" exec -- sh -c 'exit 7'
	[ "$status" -eq 7 ]
	run "$HARNESS" exec -- sh -c 'kill -TERM $$'
	[ "$status" -eq 143 ]
}

@test "--timing accounts for the whole run: the parts add up to total_ms, from the start to the teardown" {
	for sandbox in "" --no-sandbox; do
		t0=$(date +%s%N)
		run --separate-stderr "$HARNESS" exec $sandbox --timing --json -- /bin/true
		wall_ms=$((($(date +%s%N) - t0) / 1000000))
		[ "$status" -eq 0 ]
		python3 - "$stderr" "$wall_ms" <<'PY'
import json, sys
t = json.loads(sys.argv[1].strip().splitlines()[-1])["timing"]
sandboxed = "clone_to_execve_ms" in t
parts = ["start_ms", "plan_ms", "netns_ms", "slice_ms"] + (
    ["prepare_ms", "clone_to_execve_ms", "execve_to_exit_ms"] if sandboxed else ["spawn_to_exit_ms"]) + [
    "stats_ms", "teardown_ms"]
total = sum(t[k] for k in parts)
assert abs(total - t["total_ms"]) < 1e-6, (total, t)
assert abs(t["clone_to_child_ms"] + t["sandbox_setup_ms"] - t["clone_to_execve_ms"]) < 1e-6 if sandboxed else True, t
assert t["start_ms"] > 0 and t["teardown_ms"] > 0 and t["plan_ms"] > 0, t
# what the process measured of itself cannot be longer than its parent saw
assert t["total_ms"] <= float(sys.argv[2]) + 1, (t["total_ms"], sys.argv[2])
PY
	done
}

@test "a missing command: exit 127 with a one-line message" {
	run -127 "$HARNESS" exec -- /nonexistent/cmd
	[ "$status" -eq 127 ]
	[[ "$output" == *"cannot run '/nonexistent/cmd': No such file or directory"* ]]
}

@test "more CPUs than the host has: exit 3 with what fits" {
	usable=$(doctor_json | doctor_field cpus.usable_count)
	run "$HARNESS" exec --cpus "$usable" -- true
	[ "$status" -eq 3 ]
	[[ "$output" == *"this host has $usable usable CPUs: pinned mode can give the runtime"* ]]
	run "$HARNESS" exec --mode quota --cpus $((usable + 1)) -- true
	[ "$status" -eq 3 ]
	[[ "$output" == *"quota mode can give the runtime at most $usable"* ]]
}

@test "SIGTERM to harness reaches the command; nothing is left behind" {
	"$HARNESS" exec -- sh -c 'trap "exit 42" TERM; echo trapped; while :; do sleep 0.05; done' >"$BATS_TEST_TMPDIR/out" &
	pid=$!
	# The command has set its trap (it said so) before the signal is sent.
	wait_until 60 grep -q trapped "$BATS_TEST_TMPDIR/out"
	kill -TERM "$pid"
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 42 ]
}

@test "a command that leaves a background child behind: the slice is emptied" {
	for sandbox in "" --no-sandbox; do
		run "$HARNESS" exec $sandbox -- sh -c 'sleep 301 & echo started'
		[ "$status" -eq 0 ]
		[ "$output" = started ]
		refute pgrep -f '^sleep 301'
	done
}

@test "a SIGKILLed harness takes its sandbox down; gc removes the tree it left" {
	"$HARNESS" exec -- sleep 302 &
	pid=$!
	wait_until 60 tree_runs '^sleep 302'
	kill -KILL "$pid"
	wait "$pid" || true
	wait_until 30 none_runs '^sleep 302'
	[ -n "$(leftover_cgroups)" ]
	run "$HARNESS" gc
	[ "$status" -eq 0 ]
	[[ "$output" == "removed 1 orphaned cgroup tree" ]]
}

@test "gc kills what still runs in the tree of a dead harness (--no-sandbox)" {
	"$HARNESS" exec --no-sandbox -- sleep 303 &
	pid=$!
	wait_until 60 tree_runs '^sleep 303'
	sleeper=$(own_pgrep '^sleep 303')
	kill -KILL "$pid"
	wait "$pid" || true
	running "$sleeper"
	run "$HARNESS" gc
	[ "$status" -eq 0 ]
	[[ "$output" == "removed 1 orphaned cgroup tree" ]]
	refute running "$sleeper"
}

@test "gc leaves the tree of a live harness alone" {
	# The command runs until the test ends it: a slow host cannot let it finish before gc looks.
	"$HARNESS" exec -- sleep 304 &
	pid=$!
	wait_until 60 tree_runs '^sleep 304'

	run "$HARNESS" gc
	[ "$status" -eq 0 ]
	[[ "$output" == "removed 0 orphaned cgroup trees" ]]
	[ -n "$(leftover_cgroups)" ]
	tree_runs '^sleep 304'
	kill -TERM "$pid"
	wait "$pid" || true
}

@test "HARNESS_RUN_TAG names the tree; another harness's tree is neither this test's leftover nor its gc's" {
	run "$HARNESS" exec --no-sandbox -- cat /proc/self/cgroup
	[ "$status" -eq 0 ]
	[[ "$output" == *"/harness-$HARNESS_RUN_TAG-"*"/sut"* ]]

	# An untagged harness beside this test, as a user's run would be.
	HARNESS_RUN_TAG= "$HARNESS" exec -- sleep 305 &
	other=$!
	wait_until 60 runs_below "$other" '^sleep 305'
	[ -z "$(leftover_cgroups)" ]
	# A SIGKILLed harness of this test: the tagged gc removes its tree, and only it.
	"$HARNESS" exec -- sleep 306 &
	pid=$!
	wait_until 60 tree_runs '^sleep 306'
	kill -KILL "$pid"
	wait "$pid" || true
	run env HARNESS_RUN_TAG=someoneelse "$HARNESS" gc
	[[ "$output" == "removed 0 orphaned cgroup trees" ]]
	run "$HARNESS" gc
	[[ "$output" == "removed 1 orphaned cgroup tree" ]]
	running "$other"
	kill -TERM "$other"
	wait "$other" || true

	run env HARNESS_RUN_TAG=../x "$HARNESS" exec -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"HARNESS_RUN_TAG must be"* ]]
}

@test "v2: the command is cloned straight into its slice (no cgroup move)" {
	[ "$(doctor_json | doctor_field cgroup.mode)" = unified ] || skip "the host's cgroups are not v2 (the guest suite covers this)"
	run --separate-stderr "$HARNESS" exec --stats --json -- true
	[ "$status" -eq 0 ]
	[ "$(json_field "$stderr" cgroup_backend)" = v2 ]
	[ "$(json_field "$stderr" cgroup_move_usec)" = 0 ]
}

@test "v1 and hybrid: the command places itself in its slice in every hierarchy, the cgroup2 mirror included" {
	mode=$(doctor_json | doctor_field cgroup.mode)
	[ "$mode" != unified ] || skip "the host's cgroups are v2 (the test above covers it)"
	"$HARNESS" exec --cpus 1 --memory 64M -- sleep 307 &
	pid=$!
	wait_until 60 tree_runs '^sleep 307'
	payload=$(own_pgrep '^sleep 307')
	cat "/proc/$payload/cgroup"
	for c in cpu cpuset memory pids; do
		grep -qE "^[0-9]+:([^:]*,)?$c(,[^:]*)?:.*/harness-$HARNESS_RUN_TAG-[^/]*/sut\$" "/proc/$payload/cgroup"
	done
	if [ "$mode" = hybrid ]; then
		grep -qE "^0::.*/harness-$HARNESS_RUN_TAG-[^/]*/sut\$" "/proc/$payload/cgroup"
	fi
	kill -TERM "$pid"
	wait "$pid" || true
}

@test "v2: alone in a delegated cgroup, harness works from a leaf and leaves the cgroup as it was" {
	[ "$(doctor_json | doctor_field cgroup.mode)" = unified ] || skip "the host's cgroups are not v2 (the guest suite covers this)"
	deleg=/sys/fs/cgroup/test-delegated-$$
	mkdir "$deleg"
	before=$(cat "$deleg/cgroup.subtree_control")
	run sh -c "echo \$\$ > $deleg/cgroup.procs && exec $HARNESS exec --cpus 1 --memory 64M -- grep -c . /proc/self/status"
	echo "$output"
	after=$(cat "$deleg/cgroup.subtree_control")
	children=$(find "$deleg" -mindepth 1 -type d)
	rmdir "$deleg"
	[ "$status" -eq 0 ]
	[ "$after" = "$before" ]
	[ -z "$children" ]
}

@test "v2: a populated cgroup without delegation is refused with the fix" {
	[ "$(doctor_json | doctor_field cgroup.mode)" = unified ] || skip "the host's cgroups are not v2 (the guest suite covers this)"
	deleg=/sys/fs/cgroup/test-populated-$$
	mkdir "$deleg"
	sleep 30 &
	other=$!
	echo "$other" >"$deleg/cgroup.procs"
	run sh -c "echo \$\$ > $deleg/cgroup.procs && exec $HARNESS exec -- true"
	kill "$other"
	wait "$other" || true
	rmdir "$deleg"
	[ "$status" -eq 3 ]
	[[ "$output" == *"other process"*"systemd-run --scope -p Delegate=yes"* ]]
}
