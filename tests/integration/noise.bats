#!/usr/bin/env bats
# Noisy neighbours: the generators on their own, and a run with noise as a dimension, where the noise slice's
# real placement (the CPUs its threads were seen on) is checked against the runtime's.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	assert_no_leftovers
}

@test "harness noise KIND: one JSON line with ops/s, on CPUs we may use; io records its file system and leaves nothing" {
	run --separate-stderr "$HARNESS" noise cpu:2 --duration 0.3s
	[ "$status" -eq 0 ]
	python3 - "$output" <<'PY'
import json, os, sys
d = json.loads(sys.argv[1])
assert d["kind"] == "cpu" and d["threads"] == 2 and d["unit"] == "spins" and d["ops_per_s"] > 0, d
assert 0.3 <= d["seconds"] < 5, d
ran = set()
for part in d["ran_on"].split(","):
    a, _, b = part.partition("-")
    ran |= set(range(int(a), int(b or a) + 1))
assert ran and ran <= os.sched_getaffinity(0), d
PY
	mkdir io
	run --separate-stderr "$HARNESS" noise io:64k --duration 0.3s --io-dir "$PWD/io"
	[ "$status" -eq 0 ]
	[ "$(json_field "$output" unit)" = fsyncs ]
	[ "$(json_field "$output" fs)" = "$(stat -f -c %T io | sed 's/ext2\/ext3/ext4/')" ]
	[ -z "$(ls -A io)" ]
}

@test "harness noise stops on SIGTERM and still reports" {
	"$HARNESS" noise cache:1M >out.json &
	pid=$!
	# its generator thread runs before the signal is sent
	started() { grep -q 'cache' /proc/$pid/cmdline 2>/dev/null && [ -n "$(ls /proc/$pid/task | sed -n 2p)" ]; }
	wait_until 30 started
	kill -TERM $pid
	wait $pid
	[ "$(json_field "$(cat out.json)" unit)" = loads ]
	[ "$(json_field "$(cat out.json)" kind)" = cache ]
}

@test "bad noise: an unknown kind or level is exit 2 naming the form; sibling placement without SMT is exit 3" {
	run "$HARNESS" noise disk
	[ "$status" -eq 2 ]
	[[ "$output" == *"'disk' is not a kind: none, cpu[:THREADS], cache[:SIZE]"* ]]
	run "$HARNESS" noise cpu:0
	[ "$status" -eq 2 ]
	run "$HARNESS" run --noise cache:12 http-hello
	[ "$status" -eq 2 ]
	[[ "$output" == *"at least 4k"* ]]
	run "$HARNESS" run --noise cpu --noise-placement next-door http-hello
	[ "$status" -eq 2 ]
	need_root
	if [ "$(doctor_json | doctor_field cpus.threads_per_core 2>/dev/null || echo 1)" = 1 ]; then
		run "$HARNESS" run --cpus 1 --runtimes node20 --noise cpu --noise-placement sibling http-hello
		[ "$status" -eq 3 ]
		[[ "$output" == *"--noise-placement sibling needs a free SMT sibling"* ]]
	fi
}

@test "run --noise none,cpu: interleaved quiet and noisy trials, the noise apart from the runtime, an isolation table" {
	need_root
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --profile quick --repeat 1 --mode pinned,quota \
		--noise none,cpu --out n.json http-hello
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"isolation: http-hello (rps; shift = noisy / quiet - 1)"* ]]
	grep -E '^node20 +pinned +cpu:1 +[0-9]+ +[0-9]+ +[-+][0-9.]+%' <<<"$output"
	grep -E '^node20 +quota +cpu:1 .* anywhere' <<<"$output"
	python3 - "$(nproc)" <<'PY'
import json, sys
from cpulist import cpus
d = json.load(open("n.json"))
assert d["config"]["noise"]["kinds"] == ["none", "cpu:1"], d["config"]
ts = d["trials"]
assert [(t["mode"], t.get("noise", "none")) for t in ts] == [("pinned", "none"), ("pinned", "cpu:1"), ("quota", "none"), ("quota", "cpu:1")]
for t in ts:
    assert t["status"] == "ok", t
    # outside interference over the measured phase, quiet or noisy: /proc/stat, the server's own counters
    x = t["external"]
    assert x["seconds"] > 0 and 0 <= x["steal_pct"] <= 100 and x["busy_ms"] >= 0 and x["samples"] >= 1, x
    assert x["ctxt_voluntary"] + x["ctxt_involuntary"] > 0 and x["run_delay_ms"] >= 0, x
    if "noise" not in t:  # a quiet trial
        assert "neighbour" not in t and "noise" not in t["cpus"] and "noise" not in t["slices"], t
        continue
    nb, gen = t["neighbour"], t["neighbour"]["generator"]
    assert gen["kind"] == "cpu" and gen["ops_per_s"] > 0 and t["slices"]["noise"]["cpu_user_usec"] > 0, t
    # where its threads really ran: inside the noise slice's set
    assert cpus(gen["ran_on"]) <= cpus(nb["cpus"]) == cpus(t["cpus"]["noise"]), t
    if t["mode"] == "pinned":
        # never on the runtime's CPUs; on a 2-CPU host the client's, and said so
        assert not cpus(nb["cpus"]) & cpus(t["server"]["cpus"]), t
        if int(sys.argv[1]) == 2:
            assert nb["shares_cpus_with"] == ["client"], nb
    else:
        assert nb["placement"] == "anywhere" and nb["cpu_quota_us"] == 100000, nb
shifts = [g for g in d["summaries"] if g.get("noise") == "cpu:1"]
assert len(shifts) == 2 and all(g["shift"]["metric"] == "rps" and g["shift"]["ratio"] > 0 for g in shifts), shifts
PY
}
