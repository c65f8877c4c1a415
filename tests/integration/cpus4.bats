#!/usr/bin/env bats
# The headline command on real cgroup v2: `harness run --cpus 4 --mode pinned,quota` on a machine with
# room (the qemu guest boots with 6 vCPUs), bun and node24, startup and http-hello. What is checked is the
# plan and the kernel's state while the trials run, not timings (the guest is emulated).

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	# a property of the machine, not a missing facility: a plain skip even in CI (tests/guest runs it)
	[ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] || skip "needs cgroup v2 with controllers (tests/guest runs it)"
	usable=$(doctor_json | doctor_field cpus.usable_count)
	[ "${usable:-0}" -ge 6 ] || skip "needs 6 usable CPUs for --cpus 4 and a client of 2 (tests/guest boots with -smp 6)"
	for i in bun node24; do
		"$HARNESS" images verify "$i" >/dev/null 2>&1 || hx_skip "needs the $i image (harness images pull $i)"
	done
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	[ -z "${WATCH:-}" ] || kill "$WATCH" 2>/dev/null || true
	assert_no_leftovers
}

# The state of the run's sut and client slices while it runs, 10 times a second: cpuset, cpu.max, memory.max
# and how many processes each holds (limits are applied before anything enters a slice). Every trial makes
# its tree under the same name: a state is kept only when two readings in a row agree, so that no line mixes
# the end of one trial with the start of the next. One process (no pipeline), its output in a file and not on
# bats' own descriptors, so that killing it by its PID ends it all. Shell builtins only: under the guest's
# emulation every fork and exec costs tens of milliseconds, and a slow sample misses a client that runs for a
# fraction of a second.
# slice_state SUT-DIR: sets state.
slice_state() {
	local d=$1 c=${1%/*}/client sut max mem cl sp cp
	read -r sut <"$d/cpuset.cpus.effective"
	read -r max <"$d/cpu.max"
	read -r mem <"$d/memory.max"
	read -r cl <"$c/cpuset.cpus.effective"
	mapfile -t sp <"$d/cgroup.procs"
	mapfile -t cp <"$c/cgroup.procs"
	state="sut=$sut max=$max mem=$mem client=$cl procs=${#sp[@]}/${#cp[@]}"
}

watch_slices() {
	local a state tick
	set +e # a slice removed between two reads is an empty reading, not the watcher's end (bats sets -e)
	exec {tick}<> <(:) # a pipe nobody writes: read -t on it is a sleep without a process
	while :; do
		for d in /sys/fs/cgroup/harness-"$HARNESS_RUN_TAG"-*/sut; do
			[ -d "$d" ] || continue
			slice_state "$d"
			a=$state
			slice_state "$d"
			[ "$a" != "$state" ] || echo "$a"
		done
		read -rt 0.1 -u "$tick" || true
	done >slices.raw 2>/dev/null </dev/null
}

@test "run --cpus 4 --mode pinned,quota on cgroup v2: 4 whole CPUs pinned, cpu.max 400000 100000 beside the client, memory.max, PSI, nothing left" {
	watch_slices &
	WATCH=$!
	# the emulated guest answers a few hundred requests a second: 400 requests on 20 connections finish cleanly
	run --separate-stderr "$HARNESS" run --cpus 4 --mode pinned,quota --runtimes bun,node24 --profile quick \
		--repeat 1 --connections 20 --requests 400 --out r.json startup http-hello
	kill "$WATCH" 2>/dev/null || true
	WATCH=
	awk '!seen[$0]++' slices.raw >slices.log
	echo "$output"
	echo "$stderr" | tail -5
	cat slices.log
	[ "$status" -eq 0 ]
	python3 - <<'PY'
import json, os
from cpulist import cpus
d = json.load(open("r.json"))
pinned, quota = d["config"]["modes"]["pinned"], d["config"]["modes"]["quota"]
assert len(cpus(pinned["sut"])) == 4 and not cpus(pinned["sut"]) & cpus(pinned["client"]), pinned
assert quota["sut_cpu_quota_us"] == 400000 and "sut_shares_client" not in quota, quota
# quota: the runtime may run on every CPU the client does not use, and the client stays apart
assert not cpus(quota["sut"]) & cpus(quota["client"]) and len(cpus(quota["sut"])) >= 4, quota
assert d["config"]["memory_max_bytes"] > 0
ts = d["trials"]
assert {(t["scenario"], t["runtime"], t["mode"]) for t in ts} == {
    (s, r, m) for s in ("startup", "http-hello") for r in ("bun", "node24") for m in ("pinned", "quota")}, ts
for t in ts:
    assert t["status"] == "ok", t
    if t["scenario"] != "http-hello":
        continue  # startup: a fresh sandbox per run, no server slice to read
    sut = t["slices"]["sut"]
    assert "psi" in sut and "cpu" in sut["psi"] and "memory" in sut["psi"], sut
    assert "memory_peak_bytes" in sut and "memory_peak_since" in sut, sut
    if t["mode"] == "quota":
        assert sut["nr_periods"] > 0 and "nr_throttled" in sut and "throttled_usec" in sut, sut
    assert t["load"]["errors"]["total"] == 0 and t["load"]["config"]["connections"] == 20, t["load"]
    # the client's and the server's CPUs as the kernel gave them to the running processes: apart, each in its
    # own slice's set
    plan = d["config"]["modes"][t["mode"]]
    client, server = cpus(t["load"]["client"]["cpus"]), cpus(t["server"]["cpus"])
    assert client and server and not client & server, t
    assert client <= cpus(plan["client"]) and server <= cpus(plan["sut"]), (t, plan)
    # a kernel that can reset memory.peak (6.12+) measures after the warm-up; older ones say they cannot
    kernel = tuple(int(x) for x in os.uname().release.split("-")[0].split(".")[:2])
    assert sut["memory_peak_since"] == ("measurement" if kernel >= (6, 12) else "slice start"), sut
PY
	# the kernel's own state while the trials ran
	grep -qE '^sut=[0-9,-]+ max=400000 100000 mem=[0-9]+ client=[0-9,-]+ procs=[1-9]' slices.log
	grep -qE '^sut=[0-9,-]+ max=max( 100000)? mem=[0-9]+ client=[0-9,-]+ procs=[1-9]' slices.log # pinned: no quota
	python3 - <<'PY'
import re
from cpulist import cpus
seen = 0
for line in open("slices.log"):
    m = re.match(r"sut=(\S*) max=(\S+)(?: \d+)? mem=(\S*) client=(\S*) procs=(\d+)/(\d+)", line)
    if not m or m.group(5) == "0":
        continue  # nothing in the runtime's slice yet: its limits may still be being written
    sut = cpus(m.group(1))
    assert m.group(3) != "max", line       # memory.max is set
    if m.group(2) == "max":
        assert len(sut) == 4, line         # pinned: 4 CPUs of its own
    if m.group(6) != "0":                  # the client running beside it: never inside the runtime's set
        assert not sut & cpus(m.group(4)), line
        seen += 1
# a client sampled beside the runtime is checked, but none may be: under TCG a trial's client runs a fraction
# of a second and the watcher can miss it (the results above hold the CPUs the kernel gave the running client)
print("client samples beside the runtime:", seen)
PY
}
