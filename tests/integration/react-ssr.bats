#!/usr/bin/env bats
# The react-ssr scenario end to end: react and react-dom from the committed lock, one fetch-handler module
# on every runtime (workerd through the bundle bun build makes at prepare time), every body checked.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	assert_no_leftovers
}

# A copy of the shipped scenario, with sed expression $1 applied to its app.js and python $2 to its
# scenario.json (as s).
variant() {
	rm -rf ssr
	cp -r "$HARNESS_TOP/scenarios/react-ssr" ssr
	rm -rf ssr/node_modules ssr/build
	sed -i "$1" ssr/app.js
	python3 - "$2" <<'PY'
import json, sys
s = json.load(open("ssr/scenario.json"))
exec(sys.argv[1])
json.dump(s, open("ssr/scenario.json", "w"))
PY
}

@test "react-ssr: the same page, byte for byte, on node20, node22, node24, bun, deno and workerd" {
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20,node22,node24,bun,deno,workerd --requests 300 \
		--connections 20 --repeat 1 --out r.json react-ssr
	echo "$output"
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ]
	python3 - <<'PY'
import json
d = json.load(open("r.json"))
s = json.load(open(__import__("os").environ["HARNESS_TOP"] + "/scenarios/react-ssr/scenario.json"))
assert sorted(t["runtime"] for t in d["trials"]) == sorted(["node20", "node22", "node24", "bun", "deno", "workerd"])
for t in d["trials"]:
    l = t["load"]
    assert t["status"] == "ok" and l["requests"] == 300 and l["errors"]["total"] == 0 and l["errors"]["body"] == 0, t
    # every body was the page: the bytes read cover 300 of them
    assert l["bytes"] > 300 * s["load"]["body_length"], l
b = d["config"]["bundles"]["react-ssr"]
assert b["for"] == "workerd" and b["command"] == "bun build" and b["version"].startswith("1.") and b["bytes"] > 100000, b
assert len(b["sha256"]) == 64
# the modules each runtime loaded: react-dom's file by its export conditions, workerd its bundle
m = {t["runtime"]: t["modules"]["paths"] for t in d["trials"]}
for r in ["node20", "node22", "node24", "deno"]:
    assert "node_modules/react-dom/server.node.js" in m[r] and "node_modules/react-dom/server.bun.js" not in m[r], (r, m[r])
assert "node_modules/react-dom/server.bun.js" in m["bun"] and "node_modules/react-dom/server.node.js" not in m["bun"], m["bun"]
assert "build/app.js" in m["workerd"] and not any(p.startswith("node_modules/") for p in m["workerd"]), m["workerd"]
digests = {r: t["modules"]["sha256"] for r, t in ((t["runtime"], t) for t in d["trials"])}
assert digests["node24"] != digests["bun"] != digests["workerd"], digests
PY
	[[ "$output" == *"react-ssr: node20 and bun loaded different files ("*"only bun node_modules/react-dom/"* ]]
}

@test "react-ssr: a render with other bytes of the same length fails the run on the digest (exit 1, body digest)" {
	variant 's/Catalogue/Catalogus/' 'pass'
	run --separate-stderr "$HARNESS" run --runtimes node22 --requests 50 --connections 5 --repeat 1 --out w.json ./ssr
	echo "$stderr" | tail -3
	[ "$status" -eq 1 ]
	# the client judges a first request in full before the load: the digest names the wrong render
	[[ "$stderr" == *"check failed on http://127.0.0.1:3000/: body digest: sha256 "*", expected "* ]]
	python3 -c 'import json; t = json.load(open("w.json"))["trials"][0]; assert t["status"] == "failed" and "body digest" in t["error"], t'
}

@test "react-ssr: a render of another length fails the run on the length alone (exit 1, body length)" {
	variant 's/const ROWS = 100;/const ROWS = 99;/' 'del s["load"]["body_sha256"]'
	run --separate-stderr "$HARNESS" run --runtimes node22 --requests 50 --connections 5 --repeat 1 --out l.json ./ssr
	echo "$stderr" | tail -3
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"check failed on http://127.0.0.1:3000/: body length: "*" bytes, expected "* ]]
	# and the untouched page passes the same length check
	variant 's/Catalogue/Catalogue/' 'del s["load"]["body_sha256"]'
	run --separate-stderr "$HARNESS" run --runtimes node22 --requests 50 --connections 5 --repeat 1 --out k.json ./ssr
	[ "$status" -eq 0 ]
}

@test "react-ssr: a bundler that fails is named and the run stops before any trial (exit 3)" {
	variant 's/react-dom\/server/react-dom\/no-such-entry/' 'pass'
	run --separate-stderr "$HARNESS" run --runtimes workerd --requests 50 --connections 5 --repeat 1 --out b.json ./ssr
	echo "$stderr" | tail -3
	[ "$status" -eq 3 ]
	[[ "$stderr" == *"scenario react-ssr: bun build for workerd"* ]]
	[ ! -e b.json ]
}
