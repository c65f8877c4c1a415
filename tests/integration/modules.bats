#!/usr/bin/env bats
# The modules each runtime loaded (docs/scenario.md, "The modules"): one server on node24 and bun whose
# '#greeting' import resolves by export condition to a file of each runtime's own; the record of each trial
# names its file, counts what the wire's request loaded lazily and not what the warm-up loaded, and the
# report says the runtimes loaded different files.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	assert_no_leftovers
}

@test "modules: node24 and bun resolve '#greeting' to files of their own; recorded, digests differ, the report names them" {
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node24,bun --out r.json \
		"$HARNESS_TOP/tests/fixtures/scenarios/modules-fork"
	echo "$output"
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ]
	python3 - <<'PY'
import json
d = json.load(open("r.json"))
m = {t["runtime"]: t["modules"] for t in d["trials"]}
assert sorted(m) == ["bun", "node24"], m
# the server, its package.json (the imports map), the runtime's own greeting and the module the wire's
# request imported lazily; not late.js, which the warm-up's fifth request imported after the record
assert m["node24"]["paths"] == ["greeting-node.js", "lazy.js", "package.json", "server.mjs"], m
assert m["bun"]["paths"] == ["greeting-bun.js", "lazy.js", "package.json", "server.mjs"], m
assert m["node24"]["files"] == 4 and m["bun"]["files"] == 4, m
assert m["node24"]["sha256"] != m["bun"]["sha256"] and len(m["bun"]["sha256"]) == 64, m
PY
	[[ "$output" == *"modules-fork: node24 and bun loaded different files (4 and 4): only node24 greeting-node.js; only bun greeting-bun.js"* ]]
	# read back from the file, the report says the same
	run "$HARNESS" report r.json --format md
	[ "$status" -eq 0 ]
	[[ "$output" == *"- modules-fork: node24 and bun loaded different files (4 and 4): only node24 greeting-node.js; only bun greeting-bun.js"* ]]
}
