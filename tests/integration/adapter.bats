#!/usr/bin/env bats
# Adapters shown: a scenario whose runtime serves its app through an adapter measures the adapter on a null
# handler against the runtime's plain server (a short duet after the trials), records the cost per request in
# adapter_costs and prints it beside that runtime's row; --no-adapter-cost leaves it out, and an adapter that
# cannot be measured is recorded with its reason without failing the run.

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
	/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[2])); print(eval(sys.argv[1]))' "$1" "$2"
}

# A scenario `fx` on node24 through an adapter whose null handler spins 200 µs a request: its cost is known.
# $1: the adapter's null-handler script (default: the spinning one).
fixture() {
	mkdir -p fx
	cat >fx/plain.mjs <<'JS'
import http from 'node:http';
http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 2 });
  res.end('ok');
}).listen(Number(process.env.PORT), '127.0.0.1');
JS
	cat >fx/adapter.mjs <<'JS'
import http from 'node:http';
const spin = () => { const end = process.hrtime.bigint() + 200000n; while (process.hrtime.bigint() < end); };
http.createServer(async (req, res) => {
  const response = await (async () => { spin(); return new Response('ok', { headers: { 'Content-Type': 'text/plain' } }); })();
  const body = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, { ...Object.fromEntries(response.headers), 'Content-Length': body.length });
  res.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1');
JS
	printf 'process.exit(3);\n' >fx/dies.mjs
	cat >fx/scenario.json <<JSON
{"name": "fx", "workload": "http", "runtimes": ["node24"], "script": "adapter.mjs",
 "adapter": {"node24": "adapter.mjs: a fetch adapter that spins 200 us a request"},
 "adapter_cost": {"adapter": "${1:-adapter.mjs}", "plain": "plain.mjs"},
 "load": {"connections": 4, "requests": 200, "warmup_requests": 10}, "min_duration_s": 0, "repeat": 1}
JSON
}

@test "adapter: a run records the adapter's cost on a null handler and prints it beside the runtime's row" {
	fixture
	run --separate-stderr "$HARNESS" run --runtimes node24 --out r.json ./fx
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"fx on node24: the adapter's cost on a null handler"* ]]
	[ "$(py 'len(d["adapter_costs"])' r.json)" = 1 ]
	[ "$(py '[(c["scenario"], c["runtime"], c["mode"], c["adapter"], c["plain"]) for c in d["adapter_costs"]]' r.json)" = \
		"[('fx', 'node24', 'pinned', 'adapter.mjs', 'plain.mjs')]" ]
	# the spin is the cost: some 200 us a request more than the plain server, with a CI around it
	[ "$(py '(lambda c: 100 < c["us_per_request"] < 600 and c["us_ci95_low"] <= c["us_per_request"] <= c["us_ci95_high"])(d["adapter_costs"][0])' r.json)" = True ]
	[ "$(py '(lambda c: c["pairs"] >= 3 and c["plain_rps"] > c["adapter_rps"] > 0 and c["seconds"] < 30)(d["adapter_costs"][0])' r.json)" = True ]
	us=$(py '"%+.1f" % d["adapter_costs"][0]["us_per_request"]' r.json)
	[[ "$output" == *"node24"*"through an adapter (adapter.mjs): $us µs/request on a null handler (95% CI "* ]]
	# the report of the file prints it too
	run "$HARNESS" report r.json --format md
	[[ "$output" == *"through an adapter (adapter.mjs): $us µs/request on a null handler"* ]]
}

@test "adapter: --no-adapter-cost leaves it out; an adapter that cannot be measured is its reason, not a failed run" {
	fixture
	run --separate-stderr "$HARNESS" run --runtimes node24 --no-adapter-cost --out r.json ./fx
	[ "$status" -eq 0 ]
	[ "$(py '"adapter_costs" in d' r.json)" = False ]
	[[ "$output" == *"through an adapter (adapter.mjs)"* ]]
	[[ "$output" != *"µs/request"* ]]
	fixture dies.mjs
	run --separate-stderr "$HARNESS" run --runtimes node24 --out s.json ./fx
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(py 'd["verdict"]' s.json)" = ok ]
	[[ "$(py 'd["adapter_costs"][0]["error"]' s.json)" == *"side B"* ]]
	[[ "$output" == *"through an adapter (adapter.mjs): its cost not measured: "* ]]
}
