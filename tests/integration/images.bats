#!/usr/bin/env bats
# Images: manifests, downloads from a loopback server, digests, resume, safe unpacking, concurrency,
# npm resolution through npm's own configuration, and (in CI) a real pull of every shipped image.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	export HARNESS_CACHE_DIR=$BATS_TEST_TMPDIR/cache
	W=$BATS_TEST_TMPDIR/www
	mkdir -p "$W"
	# tarballs: a good one (package/bin/tool prints its version) and one for each way to attack the unpacker
	python3 - "$W" <<'PY'
import hashlib, io, json, os, sys, tarfile, base64
w = sys.argv[1]
def tar(name, members):
    with tarfile.open(os.path.join(w, name), "w:gz") as t:
        for info, data in members:
            t.addfile(info, io.BytesIO(data) if data is not None else None)
def f(name, data, mode=0o755):
    i = tarfile.TarInfo(name); i.size = len(data); i.mode = mode; return (i, data)
def special(name, typ, **kw):
    i = tarfile.TarInfo(name); i.type = typ
    for k, v in kw.items(): setattr(i, k, v)
    return (i, None)
tool = b"#!/bin/sh\necho tool 1.0\n"
tar("good.tgz", [f("package/bin/tool", tool), f("package/README", b"hi\n", 0o644)])
tar("good.cut.tgz", [f("package/bin/tool", tool + os.urandom(300000))])
tar("dotdot.tgz", [f("package/../evil", b"x")])
tar("abs.tgz", [f("/abs/evil", b"x")])
tar("symlink.tgz", [f("package/bin/tool", tool), special("package/bin/out", tarfile.SYMTYPE, linkname="../../../etc/passwd")])
tar("hardlink.tgz", [f("package/bin/tool", tool), special("package/bin/hl", tarfile.LNKTYPE, linkname="../etc/passwd")])
tar("device.tgz", [f("package/bin/tool", tool), special("package/dev/sda", tarfile.CHRTYPE, devmajor=8, devminor=0)])
tar("setuid.tgz", [f("package/bin/tool", tool, 0o4755)])
sums = {n: hashlib.sha256(open(os.path.join(w, n), "rb").read()).hexdigest() for n in os.listdir(w)}
json.dump(sums, open(os.path.join(w, "sums.json"), "w"))
data = open(os.path.join(w, "good.tgz"), "rb").read()
integrity = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
json.dump({"@test/tool": {"1.0.0": {"file": "good.tgz", "integrity": integrity}}}, open(os.path.join(w, "npm.json"), "w"))
open(os.path.join(w, "integrity"), "w").write(integrity)
PY
	python3 "$HARNESS_TOP/tests/servers/tarball-server.py" "$W" >"$BATS_TEST_TMPDIR/server.out" &
	SERVER=$!
	wait_until 10 grep -qs '^port ' "$BATS_TEST_TMPDIR/server.out"
	PORT=$(awk '/^port /{print $2}' "$BATS_TEST_TMPDIR/server.out")
}

teardown() {
	kill "$SERVER" 2>/dev/null || true
	# a run a failed test left stopped (HARNESS_STOP_AT) ends as after Ctrl-C
	[ -z "${RUN:-}" ] || { kill -INT "$RUN" && kill -CONT "$RUN" && wait "$RUN"; } 2>/dev/null || true
}

sum() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$W/sums.json" "$1"
}

# A url-sourced manifest for a tarball; sha256 defaults to the file's own.
url_manifest() {
	local name=$1 file=$2 sha=${3:-$(sum "$2")}
	cat >"$BATS_TEST_TMPDIR/$name.json" <<JSON
{"name": "$name", "version": "1.0", "kind": "runtime",
 "source": {"type": "url", "url": "http://127.0.0.1:$PORT/$file", "sha256": "$sha", "strip_components": 1},
 "entry": "bin/tool", "run": ["{entry}", "{script}"],
 "version_command": ["{entry}", "--version"], "version_expect": "tool 1.0"}
JSON
	echo "$BATS_TEST_TMPDIR/$name.json"
}

leftovers() {
	find "$HARNESS_CACHE_DIR" -name '.tmp-*' -o -name '.partial-*' 2>/dev/null
}

@test "a good tarball pulls, unpacks with its exec bits, runs, verifies; rm removes it" {
	m=$(url_manifest good good.tgz)
	run --separate-stderr "$HARNESS" images pull "$m"
	[ "$status" -eq 0 ]
	[[ "$output" == "good 1.0: present (sha256-$(sum good.tgz), "* ]]
	# not a TTY: a line per image with its size and time, and no progress bar
	[[ "$stderr" == *"harness: images: pulling good 1.0"* ]]
	[[ "$stderr" =~ "harness: images: good 1.0: "[0-9.]+" MiB downloaded in "[0-9.]+" s" ]]
	[[ "$stderr" != *%* ]]
	run "$HARNESS" images path "$m"
	[ "$status" -eq 0 ]
	[ "$("$output")" = "tool 1.0" ]
	[ -x "$output" ]
	run "$HARNESS" images verify "$m"
	[ "$output" = "good 1.0: ok" ]
	sed 's/"tool 1.0"/"tool 2.0"/' "$m" >"$BATS_TEST_TMPDIR/other.json"
	run "$HARNESS" images verify "$BATS_TEST_TMPDIR/other.json"
	[ "$status" -eq 1 ]
	[ "$output" = "good 1.0: its version command printed 'tool 1.0', not tool 2.0" ]
	run "$HARNESS" images pull "$m" # a second pull is a no-op
	[ "$status" -eq 0 ]
	run "$HARNESS" images rm "$m"
	[ "$status" -eq 0 ]
	[ -z "$(find "$HARNESS_CACHE_DIR/trees" "$HARNESS_CACHE_DIR/blobs" -mindepth 1)" ]
}

@test "soname_links: a library shipped only as libx.so.1.2 gets its SONAME link at unpack, so the program runs" {
	command -v cc >/dev/null || hx_skip "needs a C compiler"
	p=$BATS_TEST_TMPDIR/pkg/package
	mkdir -p "$p/bin" "$p/lib"
	printf 'int hx_answer(void) { return 42; }\n' >"$BATS_TEST_TMPDIR/x.c"
	printf '#include <stdio.h>\nint hx_answer(void);\nint main(void) { printf("tool %%d\\n", hx_answer()); return 0; }\n' \
		>"$BATS_TEST_TMPDIR/main.c"
	cc -shared -fPIC -Wl,-soname,libx.so.1 -o "$p/lib/libx.so.1.2" "$BATS_TEST_TMPDIR/x.c"
	ln -s "$p/lib/libx.so.1.2" "$BATS_TEST_TMPDIR/libx.so"
	cc -o "$p/bin/tool" "$BATS_TEST_TMPDIR/main.c" -L"$BATS_TEST_TMPDIR" -lx '-Wl,-rpath,$ORIGIN/../lib'
	tar -C "$BATS_TEST_TMPDIR/pkg" -czf "$W/lib.tgz" package
	m=$(url_manifest lib lib.tgz "$(sha256sum "$W/lib.tgz" | cut -d' ' -f1)")
	sed 's/"version_expect": "tool 1.0"/"version_expect": "tool 42"/' "$m" >"$BATS_TEST_TMPDIR/nolinks.json"
	run "$HARNESS" images pull "$BATS_TEST_TMPDIR/nolinks.json"
	[ "$status" -eq 0 ]
	run "$HARNESS" images verify "$BATS_TEST_TMPDIR/nolinks.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"its version command printed"*"not tool 42" ]] # without the link the loader fails
	"$HARNESS" images rm "$BATS_TEST_TMPDIR/nolinks.json"
	sed 's/"entry": "bin\/tool",/"entry": "bin\/tool", "soname_links": "lib",/' "$BATS_TEST_TMPDIR/nolinks.json" >"$m"
	run "$HARNESS" images pull "$m"
	[ "$status" -eq 0 ]
	run "$HARNESS" images verify "$m"
	[ "$output" = "lib 1.0: ok" ]
	tree=$(dirname "$(dirname "$("$HARNESS" images path "$m")")")
	[ "$(readlink "$tree/lib/libx.so.1")" = libx.so.1.2 ]
	[ ! -e "$tree/lib/libx.so" ] # only the SONAME, not the development link
	sed 's/"soname_links": "lib"/"soname_links": "..\/lib"/' "$m" >"$BATS_TEST_TMPDIR/bad.json"
	run "$HARNESS" images pull "$BATS_TEST_TMPDIR/bad.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"soname_links: '../lib' has a '..' component"* ]]
}

@test "a digest mismatch is refused and nothing enters the cache" {
	m=$(url_manifest bad good.tgz "$(printf '0%.0s' $(seq 64))")
	run "$HARNESS" images pull "$m"
	[ "$status" -eq 3 ]
	[[ "$output" == *"has sha256 $(sum good.tgz), the manifest says 0000"*"refused"* ]]
	[ -z "$(find "$HARNESS_CACHE_DIR/trees" "$HARNESS_CACHE_DIR/blobs" -mindepth 1)" ]
}

@test "a download cut in the middle resumes with a range request and verifies" {
	m=$(url_manifest cut good.cut.tgz)
	run "$HARNESS" images pull "$m"
	[ "$status" -eq 0 ]
	[ -z "$(leftovers)" ]
	run "$HARNESS" images verify "$m"
	[ "$output" = "cut 1.0: ok" ]
}

@test "hostile tarballs are refused with the entry named, and nothing is left half-unpacked" {
	for t in dotdot:"package/../evil":"a path with '..'" abs:"/abs/evil":"an absolute path" \
		symlink:"package/bin/out":"a symlink that leaves the tree" hardlink:"package/bin/hl":"a hardlink out of the tree" \
		device:"package/dev/sda":"a device node" setuid:"package/bin/tool":"a setuid or setgid file"; do
		IFS=: read -r name entry why <<<"$t"
		m=$(url_manifest "$name" "$name.tgz")
		run "$HARNESS" images pull "$m"
		echo "$name: $output"
		[ "$status" -eq 2 ]
		[[ "$output" == *"entry '$entry' is $why"* ]]
		[ -z "$(ls "$HARNESS_CACHE_DIR/trees")" ]
	done
	[ ! -e "$BATS_TEST_TMPDIR/evil" ] && [ ! -e /abs/evil ]
}

@test "a 404 and a refused connection fail with clear messages" {
	m=$(url_manifest missing nothing-here.tgz "$(sum good.tgz)")
	run "$HARNESS" images pull "$m"
	[ "$status" -eq 3 ]
	[[ "$output" == *"download http://127.0.0.1:$PORT/nothing-here.tgz: HTTP 404"* ]]
	sed -i "s/127.0.0.1:$PORT/127.0.0.1:9/" "$m"
	run "$HARNESS" images pull "$m"
	[ "$status" -eq 3 ]
	[[ "$output" == *"download http://127.0.0.1:9/"*"onnect"* ]]
}

@test "two concurrent pulls of one image are safe" {
	m=$(url_manifest twice good.cut.tgz)
	"$HARNESS" images pull "$m" >"$BATS_TEST_TMPDIR/a" 2>&1 &
	a=$!
	"$HARNESS" images pull "$m" >"$BATS_TEST_TMPDIR/b" 2>&1 &
	b=$!
	wait "$a"
	wait "$b"
	[ "$(ls "$HARNESS_CACHE_DIR/trees" | wc -l)" -eq 1 ]
	[ -z "$(leftovers)" ]
	run "$HARNESS" images verify "$m"
	[ "$output" = "twice 1.0: ok" ]
}

@test "npm sources resolve through npm's configuration; a registry disagreeing with the manifest is refused" {
	integrity=$(cat "$W/integrity")
	cat >"$BATS_TEST_TMPDIR/npmtool.json" <<JSON
{"name": "npmtool", "version": "1.0.0", "kind": "runtime",
 "source": {"type": "npm", "package": "@test/tool", "version": "1.0.0", "integrity": "$integrity"},
 "entry": "bin/tool", "run": ["{entry}", "{script}"]}
JSON
	npm_config_registry="http://127.0.0.1:$PORT/packages/" run "$HARNESS" images pull "$BATS_TEST_TMPDIR/npmtool.json"
	[ "$status" -eq 0 ]
	[ "$("$HARNESS" images path "$BATS_TEST_TMPDIR/npmtool.json")" != "" ]
	other=$(python3 -c 'import base64,os; print("sha512-" + base64.b64encode(os.urandom(64)).decode())')
	sed -i "s|$integrity|$other|" "$BATS_TEST_TMPDIR/npmtool.json"
	npm_config_registry="http://127.0.0.1:$PORT/packages/" run "$HARNESS" images pull "$BATS_TEST_TMPDIR/npmtool.json"
	[ "$status" -eq 3 ]
	[[ "$output" == *"the registry's integrity for @test/tool@1.0.0 is $integrity, the manifest says $other"* ]]
}

@test "a bad manifest is a usage error naming the file and the field" {
	m=$(url_manifest typo good.tgz)
	sed -i 's/"entry"/"entyr"/' "$m"
	run "$HARNESS" images pull "$m"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$m: entyr: unknown key"* ]]
	m=$(url_manifest wrongtype good.tgz)
	sed -i 's/"strip_components": 1/"strip_components": "one"/' "$m"
	run "$HARNESS" images pull "$m"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$m: source.strip_components: expected a whole number"* ]]
	run "$HARNESS" images pull no-such-image
	[ "$status" -eq 2 ]
	[[ "$output" == *"no image 'no-such-image'"* ]]
}

@test "the shipped images pull from the configured npm registry, verify, and run in the sandbox" {
	need_root
	reg=$(npm config get registry 2>/dev/null || true)
	[ -n "$reg" ] && curl -fsS -m 10 -o /dev/null "$reg" 2>/dev/null || hx_skip "the npm registry cannot be reached"
	export HARNESS_CACHE_DIR=${HARNESS_IMAGE_CACHE:-/var/cache/harness}
	run "$HARNESS" images pull --all
	echo "$output"
	[ "$status" -eq 0 ]
	run "$HARNESS" images ls
	for name in node20 node22 node24 bun deno workerd postgres15; do
		# every shipped image comes from npm, pinned by its integrity: the same bytes on every distribution
		grep -E "^$name +.* npm +present +.*sha512-" <<<"$output" || { echo "$name missing"; return 1; }
	done
	run "$HARNESS" images verify
	[ "$status" -eq 0 ]
	[ "$("$("$HARNESS" images path bun)" --version)" = "$(sed -n 's/.*"version_expect": "\(.*\)".*/\1/p' "$HARNESS_TOP/images/bun.json")" ]
	run "$HARNESS" exec --image bun -- bun --version
	[ "$status" -eq 0 ]
	[ "$output" = 1.4.5 ]
	assert_no_leftovers
}

# The host's pulled runtime trees, linked into this test's cache: runs find the images present, and gc keeps
# them (a link is removed as a link, never followed).
share_trees() {
	local real=${HARNESS_IMAGE_CACHE:-/var/cache/harness} t
	mkdir -p "$HARNESS_CACHE_DIR/trees"
	for t in "$real"/trees/sha*; do
		[ -d "$t" ] && ln -sfnr "$t" "$HARNESS_CACHE_DIR/trees/$(basename "$t")"
	done
	"$HARNESS" images path node20 >/dev/null 2>&1 || hx_skip "needs the node20 image (harness images pull node20)"
}

# The prepared entry a results file names for scenario $2 on node20.
prepared_entry() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["config"]["prepared"][sys.argv[2]]["node20"])' "$1" "$2"
}

@test "images gc: prepared state of no shipped scenario × present image goes, sizes said; the current one and a live run's stay" {
	need_root
	command -v npm >/dev/null || hx_skip "needs npm (prepare passes its registry on)"
	share_trees
	cd "$BATS_TEST_TMPDIR"
	P=$HARNESS_CACHE_DIR/prepared
	# the shipped scenarios are this folder's one prepared scenario
	mkdir shipped
	cp -r "$FIXTURES/scenarios/prepared-state" shipped/
	export HARNESS_SCENARIOS_DIR=$PWD/shipped
	run --separate-stderr "$HARNESS" run --runtimes node20 --out cur.json prepared-state
	echo "$stderr" | tail -3
	[ "$status" -eq 0 ]
	cur=$(prepared_entry cur.json prepared-state)
	[ -f "$P/$cur/state.txt" ]
	# a user's own folder (not shipped: stale to gc), prepared by a run that is still going
	cp -r shipped/prepared-state mine
	sed -i 's/"name": "prepared-state"/"name": "prepared-mine"/' mine/scenario.json
	HARNESS_STOP_AT=prepare "$HARNESS" run --runtimes node20 --out live.json ./mine >live.out 2>live.err &
	RUN=$!
	wait_until 120 grep -q "harness: run: stopped at prepare (HARNESS_STOP_AT)" live.err
	live=$(basename "$(find "$P" -mindepth 1 -maxdepth 1 -name 'sha256-*' ! -name "$cur")")
	[ -f "$P/$live/state.txt" ]
	# an entry of a scenario or image that is gone (2 MB), and what a prepare that died left
	stale=sha256-$(printf '0%.0s' {1..64})
	mkdir -p "$P/$stale/npm" "$P/.tmp-$stale-4242"
	head -c 2000000 /dev/zero >"$P/$stale/npm/blob"
	run --separate-stderr "$HARNESS" images gc
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *"removed prepared/$stale (2.0 MB)"* ]]
	[[ "$output" == *"removed prepared/.tmp-$stale-4242 (0.0 MB)"* ]]
	[[ "$output" == *"removed 2 cache entries that nothing shipped uses (2.0 MB freed); kept 1 in use by a running harness" ]]
	[[ "$stderr" == *"images gc: prepared/$live is in use by a running harness: kept"* ]]
	[ ! -e "$P/$stale" ] && [ ! -e "$P/.tmp-$stale-4242" ]
	[ -f "$P/$cur/state.txt" ] && [ -f "$P/$live/state.txt" ]
	# the live run reads its state after the gc: its trial passes
	kill -CONT "$RUN"
	wait "$RUN"
	RUN=""
	[ "$(prepared_entry live.json prepared-mine)" = "$live" ]
	# once that run has ended its entry is stale like any other; the shipped one's stays
	run "$HARNESS" images gc
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"removed prepared/$live ("*" MB)"*"removed 1 cache entry that nothing shipped uses ("* ]]
	[ ! -e "$P/$live" ] && [ -f "$P/$cur/state.txt" ]
	ls -A "$P" | grep -vx "$cur" && return 1
	# and the shipped scenario's next run finds its state without preparing again
	run --separate-stderr "$HARNESS" run --runtimes node20 --out again.json prepared-state
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"preparing scenario prepared-state"* ]]
	assert_no_leftovers
}
