#!/usr/bin/env bats
# Shards: `run --shard I/N` runs a deterministic part of the trial plan; `merge` joins the parts into what
# one run would have written, trial for trial (the plan's keys and order; timings differ by nature).

bats_require_minimum_version 1.5.0

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

need_images() {
	need_root
	for i in node24 bun; do
		"$HARNESS" images verify "$i" >/dev/null 2>&1 || hx_skip "needs the $i image (harness images pull $i)"
	done
}

teardown() {
	assert_no_leftovers
}

plan=(run --cpus 1 --runtimes node24,bun --mode pinned,quota --repeat 2 --profile quick startup)

@test "four shards merged equal the unsharded plan, trial for trial; a shard twice or of another plan is refused" {
	need_images
	run --separate-stderr "$HARNESS" "${plan[@]}" --out all.json
	[ "$status" -eq 0 ]
	for i in 1 2 3 4; do
		run --separate-stderr "$HARNESS" "${plan[@]}" --shard "$i/4" --out "s$i.json"
		echo "$stderr" | tail -3
		[ "$status" -eq 0 ]
	done
	run --separate-stderr "$HARNESS" merge s3.json s1.json s4.json s2.json -o merged.json
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"8 trials from 4 files: merged.json"* ]]
	python3 - <<'PY'
import json
def keys(d):
    return [(t["scenario"], t["runtime"], t["mode"], t.get("noise", "none"), t["trial"], t["order"]) for t in d["trials"]]
whole, merged = json.load(open("all.json")), json.load(open("merged.json"))
assert len(whole["trials"]) == 8 and keys(merged) == keys(whole), (keys(merged), keys(whole))
parts = [json.load(open(f"s{i}.json")) for i in range(1, 5)]
plans = {p["config"]["shard"]["plan"] for p in parts}
assert len(plans) == 1 and all(p["config"]["shard"]["plan_trials"] == 8 for p in parts), plans
assert all(p["trials"] for p in parts) and sum(len(p["trials"]) for p in parts) == 8
assert merged["config"]["merged"] == {"files": 4, "trials": 8, "plan_trials": 8, "plan": plans.pop(), "complete": True}
assert {s["runtime"] for s in merged["summaries"]} == {"node24", "bun"}, merged["summaries"]
PY
	# the same part twice
	run --separate-stderr "$HARNESS" merge s1.json s1.json -o twice.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"is in two of the files"* ]]
	[ ! -e twice.json ]
	# a part of another plan: said, and refused unless allowed
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node24,bun --mode pinned,quota --repeat 1 --profile quick \
		--shard 2/4 --out other.json startup
	[ "$status" -eq 0 ]
	run --separate-stderr "$HARNESS" merge s1.json other.json -o mixed.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"are shards of different plans"* ]]
	[[ "$stderr" == *"config.shard (the plan or the count) differs"* ]]
	[ ! -e mixed.json ]
}

@test "--shard takes I/N" {
	run --separate-stderr "$HARNESS" run --shard 5/4 startup
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--shard takes I/N with 1 <= I <= N <= 64 (e.g. 2/4), not '5/4'"* ]]
}

@test "merge: parts of a results file in any order come back in the plan's order; another host class is said and refused" {
	python3 - "$FIXTURES/results/v1-four-workloads.json" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
for i, t in enumerate(d["trials"]):
    t["order"] = i + 1
for k in range(2):
    e = copy.deepcopy(d)
    e["trials"] = [t for j, t in enumerate(d["trials"]) if j % 2 == k]
    e["config"]["shard"] = {"index": k + 1, "count": 2, "trials": 2, "plan_trials": 4, "plan": "p"}
    json.dump(e, open(f"p{k + 1}.json", "w"))
e["host"]["cpus"]["model"] = "Another CPU"
json.dump(e, open("other.json", "w"))
PY
	run --separate-stderr "$HARNESS" merge p2.json p1.json -o m.json --format json
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"4 trials from 2 files: m.json"* ]]
	python3 -c 'import json; d = json.load(open("m.json")); assert [t["order"] for t in d["trials"]] == [1, 2, 3, 4]; assert d["config"]["merged"]["complete"]'
	run --separate-stderr "$HARNESS" merge p1.json other.json -o x.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"differ in host.cpus.model: "*" → Another CPU"* ]]
	[[ "$stderr" == *"--allow-different merges them anyway"* ]]
	[ ! -e x.json ]
	run --separate-stderr "$HARNESS" merge p1.json p2.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"merge: expected 1 to 64 results files and -o FILE"* ]]
}
