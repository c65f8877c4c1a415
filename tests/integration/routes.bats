#!/usr/bin/env bats
# The route x concurrency matrix: the shipped route-matrix scenario at a small size on node22, node24, bun
# and deno (zero errors, the table, node20 skipped with its reason); servers broken in one way each (wrong
# Range bytes, a compressed body that is not the asset, a wrong length) failing the run with exit 1 naming
# the check; the load client's checks on every response; the worked example of docs/scenario.md.
# About 2 minutes: the matrix runs one connection count with quick cells (1.25 s after 0.25 s of warm-up).

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	cd "$BATS_TEST_TMPDIR"
	export TMPDIR="$BATS_TEST_TMPDIR"
}

teardown() {
	[ -z "${SERVER:-}" ] || kill "$SERVER" 2>/dev/null || true
	assert_no_leftovers
}

# `py EXPR FILE`: a Python expression over the results document d.
py() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[2])); print(eval(sys.argv[1]))' "$1" "$2"
}

# A copy of the shipped scenario whose app.mjs has one sed edit ($1), so that one route is wrong.
broken_copy() {
	cp -r "$HARNESS_TOP/scenarios/route-matrix" broken
	sed -i "$1" broken/app.mjs
	! cmp -s broken/app.mjs "$HARNESS_TOP/scenarios/route-matrix/app.mjs" # the edit took
}

# `run_broken`: the broken copy on node22 at one connection, quick cells; it must fail.
run_broken() {
	run --separate-stderr "$HARNESS" run --runtimes node22 --connections 1 --profile quick --repeat 1 --mode pinned \
		--out r.json ./broken
	echo "$stderr"
	[ "$status" -eq 1 ]
}

@test "route-matrix on node22, node24, bun, deno: every route at 10 connections, zero errors, the table; node20 skipped" {
	run --separate-stderr "$HARNESS" run --runtimes node20,node22,node24,bun,deno --connections 10 --profile quick \
		--repeat 1 --mode pinned --out r.json route-matrix
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"route-matrix skips node20: no node:sqlite"* ]]
	[ "$(py 'len(d["trials"])' r.json)" = 4 ]
	[ "$(py 'sorted(t["runtime"] for t in d["trials"])' r.json)" = "['bun', 'deno', 'node22', 'node24']" ]
	# five cells per trial, each at 10 connections with requests and no error of any kind
	[ "$(py 'sum(len(t["cells"]) for t in d["trials"])' r.json)" = 20 ]
	[ "$(py 'all(c["connections"] == 10 and c["load"]["requests"] > 0 and c["load"]["errors"]["total"] == 0 for t in d["trials"] for c in t["cells"])' r.json)" = True ]
	[ "$(py '[c["route"] for c in d["trials"][0]["cells"]]' r.json)" = "['version', 'css-gzip', 'css-br', 'search', 'media-range']" ]
	# the published shape: a header of the routes, one row per connections x runtime with req/s (p95 ms)
	[[ "$output" == *"== route-matrix: req/s (p95 ms)"* ]]
	echo "$output" | grep -E '^conns +runtime +mode +version +css-gzip +css-br +search +media-range$'
	for rt in node22 node24 bun deno; do
		echo "$output" | grep -E "^ +10 +$rt +pinned( +[0-9]+ \([0-9]+\.[0-9]{2}\)){5}$"
	done
}

@test "route-matrix: a server answering the wrong Range bytes fails the run naming the check" {
	broken_copy 's/media.subarray(r\[0\], r\[1\] + 1)/media.subarray(r[0] + 1, r[1] + 2)/'
	run_broken
	[[ "$stderr" == *"route media-range at 1 connections"*"range bytes: sha256 "*", expected 5fce37f3"* ]]
	[ "$(py 'd["trials"][0]["status"]' r.json)" = failed ]
}

@test "route-matrix: a gzip body that does not decompress to the asset fails the run naming the check" {
	# the committed gzip asset (every runtime serves the same bytes) replaced by another content's
	cp -r "$HARNESS_TOP/scenarios/route-matrix" broken
	printf x | gzip -n >broken/public/app.css.gz
	run_broken
	[[ "$stderr" == *"route css-gzip at 1 connections"*"compressed body: it decodes to content with sha256 "* ]]
}

@test "route-matrix: a brotli body that does not decode at all fails the run naming the check" {
	# the committed brotli asset replaced by bytes that are no brotli stream
	cp -r "$HARNESS_TOP/scenarios/route-matrix" broken
	head -c 200 "$HARNESS_TOP/scenarios/route-matrix/public/app.css" >broken/public/app.css.br
	run_broken
	[[ "$stderr" == *"route css-br at 1 connections"*"compressed body: it does not decode as 'br'"* ]]
}

@test "route-matrix: a body of the wrong length fails the run naming the check" {
	broken_copy "s/version: '1.0.0' }));/version: '1.0.0' }) + ' ');/"
	run_broken
	[[ "$stderr" == *"route version at 1 connections"*"body length: 41 bytes, expected 40"* ]]
}

@test "load --expect-status --expect-length: the first request checked in full, then every response (one in five is short)" {
	"$HELPERS/fault-server" short-every 5 >server.out &
	SERVER=$!
	wait_until 10 grep -qs '^port ' server.out
	port=$(awk '/^port /{print $2}' server.out)
	run --separate-stderr "$HARNESS" load "http://127.0.0.1:$port/" -c 2 -n 200 --expect-status 200 \
		--expect-length 13 --json
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 1 ]
	checks=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["errors"]["body"])' <<<"$output")
	# 201 answers (the checked one, then 200) on 2 connections: every fifth short on each
	[ "$checks" -ge 38 ] && [ "$checks" -le 41 ]
	# the same server's first four answers on a connection are right: the checked one and three more pass
	run "$HARNESS" load "http://127.0.0.1:$port/" -c 1 -n 3 --expect-status 200 --expect-length 13
	[ "$status" -eq 0 ]
}

# The files of docs/scenario.md's worked example, from its fenced blocks whose info string names a path.
doc_example() {
	awk '/^```[a-z]+ my-scenario\// { f = $2; next } /^```/ { f = ""; next } f { print > f }' \
		"$HARNESS_TOP/docs/scenario.md"
}

@test "docs/scenario.md's worked example: a user's app with an npm dependency, run as ./my-scenario" {
	mkdir my-scenario
	doc_example
	[ -s my-scenario/server.mjs ] && [ -s my-scenario/package.json ] && [ -s my-scenario/scenario.json ]
	(cd my-scenario && npm install --package-lock-only --omit-lockfile-registry-resolved >npm.log 2>&1) ||
		hx_skip "npm cannot make the lock file here (offline?): $(tail -3 my-scenario/npm.log)"
	rm -f my-scenario/npm.log
	run --separate-stderr "$HARNESS" run ./my-scenario --runtimes node22,bun --connections 5 --profile quick \
		--repeat 1 --mode pinned --out r.json
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	echo "$output" | grep -E '^ +5 +node22 +pinned +[0-9]+ \([0-9]+\.[0-9]{2}\)$'
	echo "$output" | grep -E '^ +5 +bun +pinned +[0-9]+ \([0-9]+\.[0-9]{2}\)$'
	[ "$(py 'all(c["load"]["errors"]["total"] == 0 and c["load"]["requests"] > 0 for t in d["trials"] for c in t["cells"])' r.json)" = True ]
	# the page without escape-html is caught by the route's check, as the page says
	sed -i 's/\${escapeHtml(name)}/${name}/' my-scenario/server.mjs
	run --separate-stderr "$HARNESS" run ./my-scenario --runtimes node22 --connections 1 --profile quick \
		--repeat 1 --mode pinned --out r2.json
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"route hello at 1 connections"*"body length: 61 bytes, expected 73"* ]]
}
