#!/usr/bin/env bats
# Same work on every runtime: NODE_ENV the same in every runtime's sandbox (and a bundle's mode agreeing with
# it), and the wire compared at readiness: a node server that answers chunked where bun sends Content-Length
# fails the run naming both runtimes and the header; a difference the scenario declares inherent is a note.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	cd "$BATS_TEST_TMPDIR"
	export TMPDIR="$BATS_TEST_TMPDIR"
}

teardown() {
	assert_no_leftovers
}

py() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[2])); print(eval(sys.argv[1]))' "$1" "$2"
}

# A scenario `hello` on node24 and bun; $1: the node server's writeHead headers, $2: the scenario's extra keys.
hello() {
	mkdir -p hello
	cat >hello/server-node.mjs <<JS
import http from 'node:http';
http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/plain'$1 });
  res.end('Hello, World!');
}).listen(Number(process.env.PORT), '127.0.0.1');
JS
	cat >hello/server-bun.js <<'JS'
Bun.serve({ port: Number(process.env.PORT), hostname: '127.0.0.1',
  fetch() { return new Response('Hello, World!', { headers: { 'Content-Type': 'text/plain' } }); } });
JS
	cat >hello/scenario.json <<JSON
{"name": "hello", "workload": "http", "runtimes": ["node24", "bun"],
 "scripts": {"node24": "server-node.mjs", "bun": "server-bun.js"},
 "load": {"connections": 2, "requests": 100, "warmup_requests": 10}, "repeat": 1$2}
JSON
}

@test "wire: node answering chunked where bun sends Content-Length fails the run naming both and the header" {
	hello "" ', "wire": {"inherent": {"connection": "node:http", "keep-alive": "node:http"}}'
	run --separate-stderr "$HARNESS" run --runtimes node24,bun --out r.json ./hello
	echo "$stderr"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"the wire at readiness: "*" answer / differently"* ]]
	[[ "$stderr" == *"node24"*"bun"* || "$stderr" == *"bun"*"node24"* ]]
	[[ "$stderr" == *"transfer-encoding (node24 sends it"* ]]
	[[ "$stderr" == *"node24 answers chunked"* ]]
	# both answers are in the results: framing and header bytes per runtime
	[ "$(py 'sorted((t["runtime"], t["wire"]["framing"]) for t in d["trials"])' r.json)" = \
		"[('bun', 'content-length'), ('node24', 'chunked')]" ]
	[ "$(py 'all(t["wire"]["header_bytes"] > 40 and t["wire"]["body_bytes"] == 13 for t in d["trials"])' r.json)" = True ]
}

@test "wire: the same framing passes; node's own Connection and Keep-Alive, declared inherent, are a note" {
	hello ", 'Content-Length': 13" ', "wire": {"inherent": {"connection": "node:http", "keep-alive": "node:http"}}'
	run --separate-stderr "$HARNESS" run --runtimes node24,bun --out r.json ./hello
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(py 'sorted(t["wire"]["framing"] for t in d["trials"])' r.json)" = "['content-length', 'content-length']" ]
	[[ "$(py '[t["wire"].get("differs", "") for t in d["trials"]]' r.json)" == *"keep-alive (node24 sends it, bun does not): node:http"* ]]
	# undeclared, the same difference fails the run
	hello ", 'Content-Length': 13" ''
	run --separate-stderr "$HARNESS" run --runtimes node24,bun --out s.json ./hello
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"keep-alive (node24 sends it, bun does not)"* ]]
}

@test "node-env: every runtime's sandbox has NODE_ENV=production unless --node-env says otherwise; recorded" {
	mkdir -p env
	cat >env/server.mjs <<'JS'
import http from 'node:http';
http.createServer((req, res) => {
  const body = String(process.env.NODE_ENV);
  res.writeHead(200, { 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1');
JS
	sha=$(printf production | sha256sum | cut -d' ' -f1)
	cat >env/scenario.json <<JSON
{"name": "env", "workload": "http", "runtimes": ["node24", "bun", "deno"], "script": "server.mjs",
 "load": {"connections": 2, "requests": 50, "warmup_requests": 0, "body_length": 10, "body_sha256": "$sha"},
 "repeat": 1}
JSON
	run --separate-stderr "$HARNESS" run --runtimes node24,bun,deno --out r.json ./env
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(py 'd["config"]["node_env"]' r.json)" = production ]
	# unset, the body is "undefined": the check fails
	run --separate-stderr "$HARNESS" run --runtimes node24 --node-env '' --out u.json ./env
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"body length: 9 bytes, expected 10"* ]]
	[ "$(py 'd["config"].get("node_env")' u.json)" = "" ]
}

@test "node-env: a run whose mode is not a bundle's refuses before anything runs (exit 2)" {
	run --separate-stderr "$HARNESS" run --runtimes node24,workerd --node-env development --out r.json react-ssr
	echo "$stderr"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--node-env 'development': scenario react-ssr runs workerd from a bundle built with NODE_ENV=production"* ]]
	[ ! -e r.json ]
	run --separate-stderr "$HARNESS" run --node-env 'Prod uction' --out r.json react-ssr
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--node-env takes [a-z0-9._-]"* ]]
}
