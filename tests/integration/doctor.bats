#!/usr/bin/env bats
# harness doctor on the real host, and on fixture sysfs trees.

load helpers

teardown() {
	assert_no_leftovers
}

@test "doctor's text and JSON tell the same facts" {
	need_root
	run "$HARNESS" doctor
	local text_status=$status text=$output
	json=$("$HARNESS" doctor --json) || [ $? -eq 3 ]
	echo "$json" | python3 -m json.tool >/dev/null
	mode=$(echo "$json" | doctor_field cgroup.mode)
	usable=$(echo "$json" | doctor_field cpus.usable_count)
	[[ "$text" == *"mode $mode"* ]]
	[[ "$text" == *"cpus         $usable usable"* ]]
	pinned=$(echo "$json" | doctor_field pinned_possible)
	if [ "$pinned" = True ]; then [ "$text_status" -eq 0 ]; else [ "$text_status" -eq 3 ]; fi
}

@test "doctor: a pinned run is possible here, and every controller is usable" {
	need_root
	run "$HARNESS" doctor --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | doctor_field pinned_possible)" = True ]
	[ "$(echo "$output" | doctor_field cgroup.can_create)" = True ]
	mode=$(echo "$output" | doctor_field cgroup.mode)
	for i in 0 1 2 3 4; do
		name=$(echo "$output" | doctor_field "cgroup.controllers.$i.name")
		[ "$(echo "$output" | doctor_field "cgroup.controllers.$i.usable")" = True ] || {
			echo "$name not usable"
			return 1
		}
		if [ "$mode" = hybrid ] || [ "$mode" = legacy ]; then
			[ "$(echo "$output" | doctor_field "cgroup.controllers.$i.hierarchy")" = v1 ]
		fi
	done
	[ "$(echo "$output" | doctor_field cpus.usable_count)" -ge 2 ]
}

@test "doctor reads topology from a fixture tree: 2 sockets, SMT, 2 NUMA nodes" {
	need_root
	run "$HARNESS" doctor --json --sysfs-root "$FIXTURES/sysfs/smt2x8x2"
	[ "$(echo "$output" | doctor_field cpus.online)" = 0-31 ]
	[ "$(echo "$output" | doctor_field cpus.packages)" = 2 ]
	[ "$(echo "$output" | doctor_field cpus.cores)" = 16 ]
	[ "$(echo "$output" | doctor_field cpus.threads_per_core)" = 2 ]
	[ "$(echo "$output" | doctor_field cpus.numa_nodes)" = 2 ]
	[ "$(echo "$output" | doctor_field cpus.topology.19.smt_rank)" = 1 ]
}

@test "doctor with one usable CPU says why a pinned run is impossible, exit 3" {
	need_root
	command -v taskset >/dev/null || hx_skip "taskset (util-linux) is missing"
	run taskset -c 0 "$HARNESS" doctor
	[ "$status" -eq 3 ]
	[[ "$output" == *"pinned run   this host has 1 usable CPU"* ]]
}
