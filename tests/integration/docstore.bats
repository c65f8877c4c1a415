#!/usr/bin/env bats
# The document store's suite (scenarios/docstore, `harness load --docstore`): its 11 scenarios on node24, bun and
# deno with no error and both invariants, the published line per scenario; then two broken stores, one whose
# Postgres row loses nested increments its memory counts (harness's own read of the row catches it) and one whose
# reads are stale after an overwrite (the read-back catches it), each failing the run with exit 1 naming the
# scenario and the check. Quick profile and small counts: the file runs in CI.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	export TMPDIR="$BATS_TEST_TMPDIR"
}

teardown() {
	assert_no_leftovers
}

# `broken_store FAULT`: the shipped store (scenarios/docstore) with one fault, in ./docstore-FAULT: the scenario
# of tests/fixtures/docstore-faults/FAULT and its store.patch applied to the shipped store.mjs, so that each broken
# store is the shipped one but for the lines the fault changes.
broken_store() {
	local from=$HARNESS_FIXTURES/docstore-faults/$1 to=docstore-$1
	mkdir "$to"
	cp "$HARNESS_TOP"/scenarios/docstore/{store.mjs,server-node.mjs,lowmem.mjs,package.json,package-lock.json} "$to"/
	cp "$from/scenario.json" "$to"/
	patch -s --no-backup-if-mismatch "$to/store.mjs" <"$from/store.patch"
}

@test "docstore: a suite that names no scenario of its own is refused before anything runs, exit 2" {
	run -2 "$HARNESS" load --docstore get-cold ws://127.0.0.1:9/
	[[ "$output" == *"'get-cold' is not a scenario of the suite"* ]]
	mkdir bad
	cp -r "$HARNESS_TOP/scenarios/docstore/." bad/
	python3 - bad/scenario.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["name"] = "bad"; d["rpc"]["docstore"] = ["has", "get-cold"]
json.dump(d, open(sys.argv[1], "w"))
PY
	run -2 "$HARNESS" run --runtimes node24 ./bad
	[[ "$output" == *"rpc.docstore"*"'get-cold' is not a scenario of the suite"* ]]
}

@test "docstore: the 11 scenarios and the memory run on node24, bun and deno, no error, every check, a line each" {
	need_root
	rts=node24,bun,deno
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes "$rts" --repeat 1 --profile quick --requests 400 \
		--out d.json docstore
	echo "$stderr" | grep -v ' pinned trial 1: [a-z]' | tail -5
	[ "$status" -eq 0 ]
	for rt in node24 bun deno; do
		grep -qE "^harness: run: docstore $rt pinned trial 1: scenario +ops +err +ops/s +avgµs +p50µs +p95µs +p99µs +maxµs$" <<<"$stderr"
		for sc in get-hot/sequential has/sequential set-small/sequential set-small/pipelined \
			add-counter/contended nested-merge/contended mixed-workload/pipelined payload-1kb/set\\+get \
			all-scan/preloaded session-churn/login\\+logout spike-burst/idle-\>flood memory/load\\+readback \
			memory/after-restart; do
			grep -qE "^harness: run: docstore $rt pinned trial 1: $sc +[1-9][0-9]* +0 +[1-9][0-9]* " <<<"$stderr" ||
				{ echo "no line for $sc on $rt" >&2; false; }
		done
	done
	python3 - d.json "$rts" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert sorted(t["runtime"] for t in d["trials"]) == sorted(sys.argv[2].split(",")), d["trials"]
for t in d["trials"]:
    assert t["status"] == "ok", t
    l = t["load"]
    assert l["errors"]["total"] == 0 and l["requests"] >= 11, l
    assert l["latency_us"]["p50"] > 0, l
    # the memory run: RSS after the idle period (with the hint) and after the restart
    srv = t["server"]
    assert srv["after_idle_rss_kb"] > 0 and srv["after_restart_rss_kb"] > 0 and srv["low_memory_hint"] == "SIGUSR2", srv
assert d["verdict"] == "ok"
PY
}

@test "docstore: a store whose Postgres row loses nested increments fails on harness's own read, exit 1" {
	need_root
	broken_store lost-nested
	run --separate-stderr "$HARNESS" run --cpus 1 --profile quick --out l.json \
		./docstore-lost-nested
	echo "$stderr" | tail -5
	[ "$status" -eq 1 ]
	# its memory counts every increment, so the client's own before and after agree: the row is what broke
	[[ "$stderr" == *"nested-merge/contended: postgres holds '"*"' at shared.stats.hits after "*" acknowledged increments from 0 ("*" lost or extra updates)"* ]]
	python3 -c 'import json; t=json.load(open("l.json"))["trials"][0]; assert t["status"] == "failed" and t["load"]["requests"] > 0, t'
}

@test "docstore: a store whose reads are stale after an overwrite fails the read-back, exit 1, naming the scenario" {
	need_root
	broken_store stale-read
	run --separate-stderr "$HARNESS" run --cpus 1 --profile quick --out s.json \
		./docstore-stale-read
	echo "$stderr" | tail -5
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"rpc invariant broken: payload-1kb/set+get: read-back: get p:"*" answered 1026 bytes that are not the document last written (version 5, 1026 bytes): a stale or wrong read"* ]]
	python3 -c 'import json; t=json.load(open("s.json"))["trials"][0]; assert t["status"] == "failed", t'
}

@test "docstore: a store that forgets its documents on restart fails the memory run's read-back, exit 1" {
	need_root
	broken_store forgets
	run --separate-stderr "$HARNESS" run --cpus 1 --profile quick --out f.json \
		./docstore-forgets
	echo "$stderr" | tail -5
	[ "$status" -eq 1 ]
	# the first half, before the restart, read every document back as written
	grep -qE "^harness: run: docstore-forgets node24 pinned trial 1: memory/load\+readback +[1-9][0-9]* +0 " <<<"$stderr"
	[[ "$stderr" == *"the memory run after the restart: rpc invariant broken: memory/after-restart: read-back: get mem:"*" answered 4 bytes that are not the document last written"* ]]
	python3 -c 'import json; t=json.load(open("f.json"))["trials"][0]; assert t["status"] == "failed" and t["server"]["after_restart_rss_kb"] > 0, t'
}
