#!/usr/bin/env bats
# Shards: `run --shard I/N` runs a deterministic part of the trial plan; `merge` joins the parts into what
# one run would have written, trial for trial (the plan's keys and order; timings differ by nature).

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	for i in node24 bun; do
		"$HARNESS" images verify "$i" >/dev/null 2>&1 || hx_skip "needs the $i image (harness images pull $i)"
	done
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	assert_no_leftovers
}

plan=(run --cpus 1 --runtimes node24,bun --mode pinned,quota --repeat 2 --profile quick startup)

@test "four shards merged equal the unsharded plan, trial for trial; a shard twice or of another plan is refused" {
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
