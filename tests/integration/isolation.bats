#!/usr/bin/env bats
# --isolate and the noise slice's placement, checked from the kernel's side: the runtime's Cpus_allowed_list,
# the CPUs the noise threads were really seen on, and (under cgroup v2, in the guest) no user task from
# outside the run on the runtime's CPUs, with a hog running beside the run to make sure one would be seen.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	[ -z "${hog:-}" ] || { kill "$hog" 2>/dev/null; wait "$hog" 2>/dev/null || true; }
	assert_no_leftovers
}

isolation_possible() {
	[ "$(doctor_json | doctor_field isolation.possible)" = True ]
}

@test "doctor says whether isolation is possible here; where it is not, run --isolate is exit 3 with the same reason" {
	run "$HARNESS" doctor
	[[ "$output" == *"isolation    "* ]]
	if isolation_possible; then
		[[ "$output" == *"isolation    possible: cgroup v2 CPU partitions"* ]]
		skip "isolation is possible here: the v2 test below covers --isolate"
	fi
	why=$(doctor_json | doctor_field isolation.why)
	[ -n "$why" ]
	run "$HARNESS" run --isolate --cpus 1 --runtimes node20 "$FIXTURES/scenarios/spin-script"
	[ "$status" -eq 3 ]
	[[ "$output" == *"--isolate is not possible here: $why"* ]]
	run "$HARNESS" run --isolate --mode quota --runtimes node20 "$FIXTURES/scenarios/spin-script"
	[ "$status" -ne 0 ]
}

# The trials of r.json: the runtime (Cpus_allowed_list) never where the noise was allowed or seen; with
# isolated=1 no outside user task was ever runnable on its CPUs, else (the hog running) one was.
check_apart() {
	python3 - "$1" "$2" <<'PY'
import json, sys
from cpulist import cpus
d, isolated = json.load(open(sys.argv[1])), sys.argv[2] == "1"
assert len(d["trials"]) == 2, d["trials"]
for t in d["trials"]:
    assert t["status"] == "ok", t
    runtime = cpus(t["process"]["cpus"])
    assert runtime == cpus(t["cpus"]["sut"]), t
    assert t.get("isolated", False) == isolated, t
    x = t["external"]
    assert x["samples"] >= 3, x
    if isolated:
        assert x["foreign_runnable_max"] == 0, x
    else:
        assert x["foreign_runnable_max"] >= 1, x  # the hog: the probe sees what isolation removes
    if "noise" in t:
        nb = t["neighbour"]
        assert not runtime & cpus(nb["cpus"]), (runtime, nb)
        assert cpus(nb["generator"]["ran_on"]) and not runtime & cpus(nb["generator"]["ran_on"]), nb
        assert nb["shares_cpus_with"] == [], nb
PY
}

@test "cgroup v2: pinned noise apart from the runtime; --isolate keeps every outside task off its CPUs" {
	isolation_possible || skip "isolation is not possible here (the cgroup v2 guest covers this)"
	[ "$(nproc)" -ge 4 ] || skip "needs 4 CPUs: runtime, client, noise and one for the rest of the host"
	"$HELPERS/busy" 4 600 &
	hog=$!
	run --separate-stderr "$HARNESS" run --cpus 1 --client-cpus 1 --runtimes node20 --noise none,cpu \
		--out plain.json "$FIXTURES/scenarios/spin-script"
	echo "$output"
	echo "$stderr" | tail -3
	[ "$status" -eq 0 ]
	check_apart plain.json 0
	run --separate-stderr "$HARNESS" run --cpus 1 --client-cpus 1 --runtimes node20 --noise none,cpu --isolate \
		--out iso.json "$FIXTURES/scenarios/spin-script"
	echo "$output"
	echo "$stderr" | tail -3
	[ "$status" -eq 0 ]
	check_apart iso.json 1
	# the partitions went with the run: the hog may use every CPU again
	[ "$(awk '/Cpus_allowed_list/ {print $2}' /proc/$hog/status)" = "$(awk '/Cpus_allowed_list/ {print $2}' /proc/self/status)" ]
}
