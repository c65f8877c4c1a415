#!/usr/bin/env bats
# Pinned against quota at the same budget differs in the runtime's CPU limit alone: the client keeps the CPUs
# pinned mode gives it, as the kernel's cgroup files of this run's own slices show while its trials run.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	[ -z "${WATCH:-}" ] || kill "$WATCH" 2>/dev/null || true
	assert_no_leftovers
}

# Every 50 ms, one line of this test's slices' CPU files as the kernel has them: on v1 the cpuset and cpu
# hierarchies hold a tree each, on v2 one tree holds both ("sut/cpuset.cpus=1 sut/cpu.cfs_quota_us=100000 ...").
watch_placement() {
	set +e # a slice removed between two reads is an empty reading, not the watcher's end (bats sets -e)
	while :; do
		line=
		while read -r f; do
			read -r v <"$f" && line="$line $(basename "$(dirname "$f")")/$(basename "$f")=${v// /_}"
		done < <(find /sys/fs/cgroup -maxdepth 9 -path "*/harness-$HARNESS_RUN_TAG-*/*" \( -name cpuset.cpus \
			-o -name cpuset.cpus.effective -o -name cpu.cfs_quota_us -o -name cpu.max \) 2>/dev/null | sort)
		[ -z "$line" ] || echo "$line"
		sleep 0.05
	done >placement.raw 2>/dev/null </dev/null
}

@test "run --cpus 1 --mode pinned,quota: the client on the same CPUs in both modes, the runtime's quota on the rest" {
	usable=$(doctor_json | doctor_field cpus.usable_count)
	[ "${usable:-0}" -ge 2 ] || hx_skip "needs 2 usable CPUs"
	watch_placement &
	WATCH=$!
	run --separate-stderr "$HARNESS" run --cpus 1 --mode pinned,quota --runtimes node20 --profile quick --repeat 2 \
		--connections 10 --requests 20000 --out p.json http-hello
	kill "$WATCH"
	WATCH=
	echo "$output"
	[ "$status" -eq 0 ]
	python3 - <<'PY'
import json
from cpulist import cpus

# a state counts when two samples in a row agree (no line mixes the end of one trial with the next's start)
lines = [dict(kv.split("=", 1) for kv in l.split()) for l in open("placement.raw")]
states = [a for a, b in zip(lines, lines[1:]) if a == b]
def get(s, slice_):
    v = s.get(slice_ + "/cpuset.cpus.effective") or s.get(slice_ + "/cpuset.cpus")
    return cpus(v) if v else None
seen = {}
for s in states:
    sut, client = get(s, "sut"), get(s, "client")
    quota = s.get("sut/cpu.cfs_quota_us") or s.get("sut/cpu.max", "").split("_")[0]
    if not sut or not client or not quota:
        continue
    mode = "pinned" if quota in ("-1", "max") else "quota"
    seen.setdefault(mode, set()).add((frozenset(sut), frozenset(client), quota))
print(seen)
assert set(seen) == {"pinned", "quota"}, seen
assert len(seen["pinned"]) == 1 and len(seen["quota"]) == 1, seen
(p_sut, p_client, _), = seen["pinned"]
(q_sut, q_client, q_quota), = seen["quota"]
assert q_client == p_client, ("the client moved", p_client, q_client)
assert p_sut <= q_sut and not (q_sut & q_client), (p_sut, q_sut, q_client)  # the quota on the rest
assert q_quota == "100000", q_quota
d = json.load(open("p.json"))
assert d["config"]["modes"]["quota"]["client_as_pinned"] is True, d["config"]["modes"]["quota"]
for t in d["trials"]:  # what the kernel gave the running client, in both modes
    assert cpus(t["load"]["client"]["cpus"]) == set(p_client), t["load"]["client"]
PY
	[[ "$output" != *"differ in placement"* && "$output" != *"too small for pinned mode"* ]]
}

@test "quota where pinned mode does not fit (--cpus = every usable CPU): the results and the table say the placement differs" {
	usable=$(doctor_json | doctor_field cpus.usable_count)
	[ "${usable:-0}" -ge 2 ] || hx_skip "needs 2 usable CPUs"
	run --separate-stderr "$HARNESS" run --cpus "$usable" --mode quota --runtimes node20 --profile quick --repeat 1 \
		--out q.json startup
	echo "$output"
	[ "$status" -eq 0 ]
	python3 -c 'import json; m = json.load(open("q.json"))["config"]["modes"]["quota"]; assert m["client_as_pinned"] is False and m["sut_shares_client"], m'
	[[ "$output" == *"quota: runtime on CPUs"*"the client is not where pinned mode would put it: this host is too small for pinned mode at this budget"* ]]
}
