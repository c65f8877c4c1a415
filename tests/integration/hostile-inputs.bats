#!/usr/bin/env bats
# Hostile inputs: scenarios, manifests, lock files, tarballs and results paths written by someone else.
# Each test is named after the attack it tries and checks the exit code, the message, and that the host
# is unchanged (nothing created, nothing outside the run touched).

bats_require_minimum_version 1.5.0

load helpers

setup() {
	export HARNESS_CACHE_DIR=$BATS_TEST_TMPDIR/cache
	cd "$BATS_TEST_TMPDIR"
}

# A scenario folder $1 whose scenario.json is $2.
scenario() {
	mkdir -p "$1"
	printf '%s\n' "$2" >"$1/scenario.json"
	echo 'console.log("hello")' >"$1/hello.js"
}

# A startup scenario named $2 in folder $1: one run, no warm-up, one trial.
tiny_startup() {
	scenario "$1" "{\"name\": \"$2\", \"workload\": \"startup\", \"runtimes\": [\"node20\"], \"script\": \"hello.js\", \"runs\": 1, \"warmup\": 0, \"repeat\": 1}"
}

need_node20() {
	need_root
	"$HARNESS" images path node20 >/dev/null 2>&1 || hx_skip "needs the node20 image (harness images pull node20)"
}

# A manifest file $1 with the given source object.
manifest() {
	cat >"$1" <<JSON
{"name": "${3:-evil}", "version": "1", "kind": "runtime", "source": $2, "entry": "bin/tool", "run": ["{entry}", "{script}"]}
JSON
}

INTEGRITY="sha512-$(printf 'A%.0s' $(seq 86))=="
SHA=$(printf '0%.0s' $(seq 64))

@test "no shell in harness: no system(), popen() or sh -c in harness/ or cgroups/" {
	cd "$HARNESS_TOP"
	# Two shells run inside a sandbox, never on the host, and take nothing from a data file: exec --client's
	# command (the caller's own command line) and the fixture's fixed "cp -a /template/. DATA && exec".
	run grep -rnE '\b(system|popen)[[:space:]]*\(|"/bin/sh"|"sh"[[:space:]]*,[[:space:]]*"-c"|execl[p]?\([^)]*"sh"' harness cgroups
	echo "$output"
	left=$(printf '%s\n' "$output" | grep -vE '^harness/cli/exec_verb\.c:[0-9]+:	p->client_argv\[0\] = \(char \*\)"/bin/sh";$|^harness/run/fixture\.c:[0-9]+:	char \*argv\[4 \+ 3 \+ 2 \* 16 \+ 1\] = \{\(char \*\)"/bin/sh", \(char \*\)"-c", \(char \*\)copy, ' || true)
	[ -z "$left" ]
	[ "$(printf '%s\n' "$output" | wc -l)" -le 2 ]
	# the check itself finds a shell
	printf 'int f(void) { return system("id"); }\n' >"$BATS_TEST_TMPDIR/probe.c"
	grep -qE '\b(system|popen)[[:space:]]*\(' "$BATS_TEST_TMPDIR/probe.c"
}

@test "scenario named a/../../somewhere after one named a: refused at parse time, the folder outside intact" {
	canary=/tmp/hx-canary-$$-$RANDOM
	mkdir "$canary"
	echo keep >"$canary/file"
	tiny_startup first a
	tiny_startup second "a/../../$(basename "$canary")"
	run "$HARNESS" run --runtimes node20 --out r.json "$PWD/first" "$PWD/second"
	echo "$output"
	[ -f "$canary/file" ] && [ "$(cat "$canary/file")" = keep ] && [ "$(ls "$canary")" = file ]
	rm -rf "$canary"
	[ "$status" -eq 2 ]
	[[ "$output" == *"second/scenario.json: name: 'a/../../hx-canary-"*"' is not a name"* ]]
	[ ! -e r.json ]
}

@test "scenario name with a \\u0000 escape (cut short by the JSON parser): refused" {
	scenario nul '{"name": "a\u0000/../../x", "workload": "startup", "runtimes": ["node20"], "script": "hello.js"}'
	run "$HARNESS" run --runtimes node20 --out r.json "$PWD/nul"
	[ "$status" -eq 2 ]
	[[ "$output" == *"nul/scenario.json: has a \\u0000 escape"* ]]
	[ ! -e r.json ]
}

@test "scenario script ../../etc/passwd and a runtime name ../x: refused, naming the field" {
	scenario s1 '{"name": "s1", "workload": "startup", "runtimes": ["node20"], "script": "../../etc/passwd"}'
	run "$HARNESS" run --runtimes node20 "$PWD/s1"
	[ "$status" -eq 2 ]
	[[ "$output" == *"s1/scenario.json: script: '../../etc/passwd' has a '..' component"* ]]
	scenario s2 '{"name": "s2", "workload": "startup", "runtimes": ["../x"], "script": "hello.js"}'
	run "$HARNESS" run "$PWD/s2"
	[ "$status" -eq 2 ]
	[[ "$output" == *"s2/scenario.json: runtimes: '../x' is not a name"* ]]
}

@test "scenario ready.path with CR LF (a header injected into the readiness request): refused" {
	scenario s '{"name": "s", "workload": "http", "runtimes": ["node20"], "script": "hello.js", "ready": {"path": "/\r\nX-Evil: 1"}, "load": {}}'
	run "$HARNESS" run --runtimes node20 "$PWD/s"
	[ "$status" -eq 2 ]
	[[ "$output" == *"s/scenario.json: ready.path: '/\\x0d\\x0aX-Evil: 1' has white space"* ]]
}

@test "manifest npm package '@x;id>proof;#/y' (a shell command through popen): refused, nothing runs" {
	manifest m.json "{\"type\": \"npm\", \"package\": \"@x;id>proof;#/y\", \"version\": \"1.0.0\", \"integrity\": \"$INTEGRITY\"}"
	run "$HARNESS" images pull "$PWD/m.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"m.json: source.package: '@x;id>proof;#/y' is not an npm package name"* ]]
	[ ! -e proof ]
	[ ! -e "$HARNESS_TOP/proof" ]
	[ -z "$(find "$HARNESS_CACHE_DIR" -type f ! -name lock 2>/dev/null)" ]
}

@test "manifest npm version 1.0.0/../../x and a package ../../x: refused" {
	manifest m.json "{\"type\": \"npm\", \"package\": \"tool\", \"version\": \"1.0.0/../../x\", \"integrity\": \"$INTEGRITY\"}"
	run "$HARNESS" images pull "$PWD/m.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"m.json: source.version: '1.0.0/../../x' is not a semantic version"* ]]
	manifest m.json "{\"type\": \"npm\", \"package\": \"../../x\", \"version\": \"1.0.0\", \"integrity\": \"$INTEGRITY\"}"
	run "$HARNESS" images pull "$PWD/m.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"source.package: '../../x' is not an npm package name"* ]]
}

@test "manifest url file:///etc/shadow, with user:password@, with a newline: refused, nothing fetched" {
	for u in 'file:///etc/shadow:is not an http or https URL' 'https://user:pw@127.0.0.1:1/x.tgz:carries a user name or password' \
		'http://127.0.0.1:1/a\nb:has white space'; do
		url=${u%:*} why=${u##*:}
		manifest m.json "{\"type\": \"url\", \"url\": \"$url\", \"sha256\": \"$SHA\"}"
		run "$HARNESS" images pull "$PWD/m.json"
		echo "$output"
		[ "$status" -eq 2 ]
		[[ "$output" == *"m.json: source.url: '"*"' $why"* ]]
	done
	[ ! -e "$HARNESS_CACHE_DIR/blobs" ] || [ -z "$(ls -A "$HARNESS_CACHE_DIR/blobs")" ]
}

@test "manifest name ../../x, entry ../../bin/sh, and an image NAME '..' on the command line: refused" {
	manifest m.json "{\"type\": \"url\", \"url\": \"http://127.0.0.1:1/x.tgz\", \"sha256\": \"$SHA\"}" "../../x"
	run "$HARNESS" images pull "$PWD/m.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"m.json: name: '../../x' is not a name"* ]]
	manifest m.json "{\"type\": \"url\", \"url\": \"http://127.0.0.1:1/x.tgz\", \"sha256\": \"$SHA\"}"
	sed -i 's|"bin/tool"|"../../bin/sh"|' m.json
	run "$HARNESS" images pull "$PWD/m.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"m.json: entry: '../../bin/sh' has a '..' component"* ]]
	run "$HARNESS" images rm ..
	[ "$status" -eq 2 ]
	[[ "$output" == *"image: '..' is not a name"* ]]
}

# A scenario with npm dependencies whose lock file has one hostile entry $2.
lock_scenario() {
	scenario "$1" "{\"name\": \"$1\", \"workload\": \"startup\", \"runtimes\": [\"node20\"], \"script\": \"hello.js\", \"runs\": 1, \"warmup\": 0, \"repeat\": 1}"
	echo '{"name": "x", "dependencies": {"x": "1.0.0"}}' >"$1/package.json"
	echo "{\"name\": \"x\", \"lockfileVersion\": 3, \"requires\": true, \"packages\": {\"\": {\"dependencies\": {\"x\": \"1.0.0\"}}, $2}}" >"$1/package-lock.json"
}

@test "lock file with a link to a folder outside, a URL outside the registry, a node_modules/../ path: refused before npm runs" {
	need_node20
	command -v npm >/dev/null || hx_skip "needs npm"
	lock_scenario link '"node_modules/x": {"resolved": "../../../../etc", "link": true}'
	lock_scenario url '"node_modules/x": {"version": "1.0.0", "resolved": "http://127.0.0.1:1/evil.tgz"}'
	lock_scenario path '"node_modules/../../../x": {"version": "1.0.0"}'
	for s in link:"packages.node_modules/x: a link to a folder" url:"'http://127.0.0.1:1/evil.tgz' is not in the registry npm is configured with" \
		path:"packages: 'node_modules/../../../x' is not node_modules/"; do
		run "$HARNESS" run --runtimes node20 --out r.json "$PWD/${s%%:*}"
		echo "$output"
		[ "$status" -eq 2 ]
		[[ "$output" == *"${s%%:*}/package-lock.json: "*"${s#*:}"* ]]
		[ ! -e r.json ]
	done
	[ ! -e "$HARNESS_CACHE_DIR/npm" ] || [ -z "$(ls -A "$HARNESS_CACHE_DIR/npm")" ]
}

@test "results file: a symlink planted at the final name is replaced, its target untouched" {
	need_node20
	tiny_startup t t
	echo precious >victim
	ln -s "$PWD/victim" r.json
	run "$HARNESS" run --runtimes node20 --out r.json "$PWD/t"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat victim)" = precious ]
	[ -f r.json ] && [ ! -L r.json ]
	python3 -c 'import json,sys; json.load(open("r.json"))'
	[ "$(ls -A | grep -v '^cache$')" = "$(printf 'r.json\nt\nvictim')" ] # no temporary left behind
}

@test "results file: symlinks planted at the old predictable temporary names (<out>.tmp.<pid>) are never followed" {
	need_node20
	tiny_startup t t
	echo precious >victim
	last=$(cat /proc/sys/kernel/ns_last_pid)
	for pid in $(seq $((last + 1)) $((last + 300))); do ln -s "$PWD/victim" "r.json.tmp.$pid"; done
	run "$HARNESS" run --runtimes node20 --out r.json "$PWD/t"
	[ "$status" -eq 0 ]
	[ "$(cat victim)" = precious ]
	[ -f r.json ] && [ ! -L r.json ]
}

@test "images gc with a manifest it cannot read (or no manifest folder): exit 3, nothing deleted" {
	mkdir -p images "$HARNESS_CACHE_DIR/blobs/sha256-stale" "$HARNESS_CACHE_DIR/trees/sha256-stale" "$HARNESS_CACHE_DIR/npm/sha256-stale"
	cp "$HARNESS_TOP"/images/*.json images/
	echo '{"name": "broken",' >images/broken.json
	touch "$HARNESS_CACHE_DIR/lock"
	before=$(find "$HARNESS_CACHE_DIR" | sort)
	HARNESS_IMAGES_DIR=$PWD/images run "$HARNESS" images gc
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"images gc: nothing removed: $PWD/images/broken.json: not valid JSON"* ]]
	[ "$(find "$HARNESS_CACHE_DIR" | sort)" = "$before" ]
	HARNESS_IMAGES_DIR=$PWD/no-such-folder run "$HARNESS" images gc
	[ "$status" -eq 3 ]
	[[ "$output" == *"images gc: cannot read $PWD/no-such-folder"*"nothing removed"* ]]
	[ "$(find "$HARNESS_CACHE_DIR" | sort)" = "$before" ]
	# with every manifest readable, the stale entries go
	rm images/broken.json
	HARNESS_IMAGES_DIR=$PWD/images run "$HARNESS" images gc
	[ "$status" -eq 0 ]
	[ ! -e "$HARNESS_CACHE_DIR/blobs/sha256-stale" ] && [ ! -e "$HARNESS_CACHE_DIR/npm/sha256-stale" ]
}
