#!/usr/bin/env bats
# The Postgres fixture and the script workload, with a real PostgreSQL 15 and node-postgres on every
# runtime. Scenarios made here are copies of scenarios/postgres with one thing changed.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	need_postgres
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	assert_no_leftovers
	assert_no_postgres
}

# A copy of the shipped postgres scenario: $1 the folder, $2 its iterations, then a sed program for
# bench.mjs (may be empty).
pg_scenario() {
	cp -r "$HARNESS_TOP/scenarios/postgres" "$1"
	rm -rf "$1/node_modules"
	python3 - "$1/scenario.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["iterations"] = int(sys.argv[2])
json.dump(d, open(sys.argv[1], "w"))
PY
	[ -z "$3" ] || sed -i "$3" "$1/bench.mjs"
}

@test "postgres: pg on node20, node22, node24, bun and deno; the fixture's slice, CPU set and settings are in the results" {
	pg_scenario pg 4000 ''
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20,node22,node24,bun,deno --repeat 1 --out p.json ./pg
	echo "$output"
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ]
	grep -E '^bun +pinned +– +[0-9]+ ' <<<"$output"
	python3 - <<'PY'
import json
d = json.load(open("p.json"))
pg = d["config"]["fixtures"]["postgres"]
s = pg["settings"]
assert s["fsync"] == s["synchronous_commit"] == s["full_page_writes"] == "off", s
assert s["port"] == "55432" and s["listen_addresses"] == "127.0.0.1" and s["shared_buffers"] == "512MB", s
assert pg["image"]["name"] == "postgres15" and pg["image"]["source"] == "npm" and "password" not in json.dumps(pg).replace("password_encryption", "")
assert d["config"]["modes"]["pinned"]["fixture"]
assert {t["runtime"] for t in d["trials"]} == {"node20", "node22", "node24", "bun", "deno"}
for t in d["trials"]:
    assert t["status"] == "ok", t
    f, m = t["fixture"], t["script"]
    assert f["slice"] == "fixture" and f["cpus"] == t["cpus"]["fixture"], f
    assert f["clean_shutdown"] and f["ready_ms"] > 0 and f["log"], f
    assert m["ops"] == 4000 and m["errors"] == 0 and m["batches"] == 40 and m["ops_per_s"] > 0, m
    assert 0 < m["p50_ms"] <= m["p99_ms"], m
    assert t["slices"]["fixture"]["cpu_user_usec"] > 0 and t["slices"]["fixture"]["pids_peak"] > 100
    assert t["process"]["exit"] == 0 and t["process"]["cpus"] == t["cpus"]["sut"]
    assert "client" not in t["slices"]  # the client slice stays idle
PY
}

@test "the fixture leaves no process, cgroup or data directory behind, and the template is never written" {
	pg_scenario pg 200 ''
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --repeat 2 --keep --out p.json ./pg
	[ "$status" -eq 0 ]
	tmpl=$(ls -d "${HARNESS_CACHE_DIR:-/var/cache/harness}"/fixtures/postgres15-*/pgdata | head -1)
	[ -f "$tmpl/PG_VERSION" ]
	# the password reaches the runtime, never the results
	pw=$(cat "$tmpl/../password")
	[ "${#pw}" -eq 32 ]
	refute grep -q "$pw" p.json
	# the server ran on a copy: the template has never held a running server's files
	[ ! -e "$tmpl/postmaster.pid" ] && [ ! -e "$tmpl/postmaster.opts" ]
	refute grep -q /var/lib/postgresql/data /proc/*/mountinfo 2>/dev/null
	logs=$(python3 -c 'import json; print(json.load(open("p.json"))["config"]["logs"])')
	# one log per trial, each ending in a fast shutdown
	[ "$(ls "$logs"/postgres-postgres-node20-pinned-*.log | wc -l)" -eq 2 ]
	for l in "$logs"/postgres-postgres-node20-pinned-*.log; do
		grep -q "received fast shutdown request" "$l"
		grep -q "database system is shut down" "$l"
	done
	rm -rf "$logs" # --keep: ours to remove
}

@test "a wrong password is refused by the server and the trial says so" {
	pg_scenario pg 200 's/new pg.Pool({ max: batch })/new pg.Pool({ max: batch, password: "not-the-password" })/'
	grep -q not-the-password pg/bench.mjs
	run --separate-stderr "$HARNESS" run --runtimes node20 --repeat 1 --out w.json ./pg
	echo "$stderr" | tail -3
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"the script exited with 1"*'password authentication failed for user "harness"'* ]]
	python3 -c 'import json; t=json.load(open("w.json"))["trials"][0]; assert t["status"] == "failed" and "password authentication failed" in t["error"], t'
}

@test "a runtime that cannot reach the database fails its trial with a message" {
	pg_scenario pg 200 's/new pg.Pool({ max: batch })/new pg.Pool({ max: batch, port: 1 })/'
	run --separate-stderr "$HARNESS" run --runtimes bun --repeat 1 --out u.json ./pg
	echo "$stderr" | tail -3
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"the script exited with"*"ECONNREFUSED"* ]]
}

@test "script workload: a metrics line that is not what the scenario requires fails the trial, exit 1" {
	pg_scenario pg 200 's/  p99_ms: rank(0.99),//'
	run --separate-stderr "$HARNESS" run --runtimes node20 --repeat 1 --out m.json ./pg
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"the script's metrics line: \"p99_ms\" is missing (the scenario requires it)"* ]]
}

@test "images gc keeps the live template and the shipped scenarios' dependencies, removes stale ones" {
	real=${HARNESS_CACHE_DIR:-/var/cache/harness}
	export HARNESS_CACHE_DIR=$BATS_TEST_TMPDIR/cache
	lock=$(sha256sum "$HARNESS_TOP/scenarios/postgres/package-lock.json" | cut -c1-64)
	mkdir -p "$HARNESS_CACHE_DIR/npm"
	cp -a "$real/npm/sha256-$lock" "$HARNESS_CACHE_DIR/npm/" # installed by the tests above: no registry needed
	pg_scenario pg 200 ''
	run --separate-stderr "$HARNESS" run --runtimes node20 --repeat 1 --out p.json ./pg
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"making the postgres15 template cluster"* ]]
	mkdir -p "$HARNESS_CACHE_DIR"/fixtures/postgres15-0123456789abcdef/pgdata "$HARNESS_CACHE_DIR"/fixtures/.tmp-postgres15-1 \
		"$HARNESS_CACHE_DIR"/npm/sha256-00/node_modules
	run "$HARNESS" images gc
	[ "$status" -eq 0 ]
	[[ "$output" == *"removed fixtures/postgres15-0123456789abcdef ("*"removed 3 cache entries that nothing shipped uses ("*" MB freed)" ]]
	[ "$(ls "$HARNESS_CACHE_DIR/fixtures" | wc -l)" -eq 1 ]
	[ -d "$HARNESS_CACHE_DIR/npm/sha256-$lock/node_modules/pg" ]
	run --separate-stderr "$HARNESS" run --runtimes node20 --repeat 1 --out p2.json ./pg
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"making the postgres15 template cluster"* ]]
}

@test "Ctrl-C during a postgres trial: exit 130, the fixture shut down, nothing left" {
	pg_scenario pg 10000000 ''
	"$HARNESS" run --runtimes node20 --repeat 1 --out i.json ./pg >/dev/null 2>&1 &
	pid=$!
	# The fixture is up and the runtime's script is running against it.
	wait_until 120 tree_runs 'postgres -D /var/lib/postgresql/data'
	wait_until 120 tree_runs 'bench.mjs'
	kill -INT "$pid"
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 130 ]
	python3 -c 'import json; d=json.load(open("i.json")); t=d["trials"][0]; assert d["interrupted"] and t["status"] == "interrupted" and t["fixture"]["clean_shutdown"], t'
}

@test "a server that exits at once beside its fixture fails at once with its status and output; the fixture is stopped" {
	run --separate-stderr timeout 50 "$HARNESS" run --runtimes node20 --out e.json "$HARNESS_FIXTURES/scenarios/pg-server-exits"
	echo "$stderr" | tail -3
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"the server exited with status 7 before it was ready; its last output: cannot start: no configuration"* ]]
	python3 - <<'PY'
import json
t = json.load(open("e.json"))["trials"][0]
print("wall_s", t["wall_s"])
assert t["status"] == "failed" and t["wall_s"] < 20, t  # ready.timeout_s is 60
assert t["fixture"]["clean_shutdown"] is True, t["fixture"]
PY
}
