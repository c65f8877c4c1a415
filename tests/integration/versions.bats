#!/usr/bin/env bats
# Runtimes by family, by npm spec and by path (docs/manifest.md): which scenarios run on which runtime, a
# local build bound into the sandbox, two builds told apart by their digest, versions resolved from npm.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	assert_no_leftovers
}

# A user's manifest of family node, named nowhere in the repository, on the bytes of the shipped node24.
user_node() {
	sed -e 's/"name": "node24"/"name": "mynode"/' "$HARNESS_TOP/images/node24.json" >mynode.json
	grep -q '"family": "node"' mynode.json
}

@test "run --runtimes workerd startup: exit 2 before anything runs, saying why workerd is skipped" {
	run --separate-stderr "$HARNESS" run --runtimes workerd --out r.json startup
	echo "$stderr"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"startup skips workerd: it has no script for workerd (it runs on node, bun, deno)"* ]]
	[[ "$stderr" == *"no scenario of the run runs on any of its runtimes"* ]]
	[ ! -e r.json ]
}

@test "run --runtimes workerd,bun startup: workerd's skip is said, bun's trials are planned" {
	need_root
	run --separate-stderr "$HARNESS" run --runtimes workerd,bun --profile quick --repeat 1 --out r.json startup
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"startup skips workerd: it has no script for workerd"* ]]
	[ "$(python3 -c 'import json; print(sorted({t["runtime"] for t in json.load(open("r.json"))["trials"]}))')" = "['bun']" ]
}

@test "run --runtimes ./mynode.json on a scenario of another family: exit 2 with the reason" {
	user_node
	mkdir wd && printf '{}' >wd/w.capnp
	printf '{"name":"wd","workload":"startup","runtimes":["workerd"],"script":"w.capnp"}' >wd/scenario.json
	run --separate-stderr "$HARNESS" run --runtimes ./mynode.json --out r.json ./wd
	echo "$stderr"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"wd skips mynode: it has no script for node (it runs on workerd)"* ]]
	# a manifest of no family is told what to add
	sed -i '/"family"/d' mynode.json
	run --separate-stderr "$HARNESS" run --runtimes ./mynode.json --out r.json startup
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"startup skips mynode: it runs on node, bun, deno, and mynode's manifest names no family"* ]]
}

@test "a user manifest of family node runs the shipped startup and http-hello, unedited (quick)" {
	need_root
	user_node
	"$HARNESS" images path node24 >/dev/null 2>&1 || hx_skip "needs the node24 image (harness images pull node24)"
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes ./mynode.json --profile quick --repeat 1 \
		--requests 2000 --connections 50 --out r.json startup http-hello
	echo "$output$stderr"
	[ "$status" -eq 0 ]
	python3 - <<'PY'
import json
d = json.load(open("r.json"))
got = sorted((t["scenario"], t["runtime"], t["status"]) for t in d["trials"])
assert got == [("http-hello", "mynode", "ok"), ("startup", "mynode", "ok")], got
PY
}
