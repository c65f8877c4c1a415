#!/usr/bin/env bats
# The Postgres fixture's lifecycle without npm modules, so that it also runs in the cgroup v2 guest:
# template, sandbox in the fixture slice, SCRAM readiness, the connection in the runtime's
# environment, fast shutdown, nothing left behind.

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

@test "a script reaches the trial's own Postgres at PGHOST:PGPORT; fixture slice, CPU set, clean shutdown" {
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --keep --out r.json "$HARNESS_FIXTURES/scenarios/pg-reachable"
	echo "$output"
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ]
	python3 - "$BATS_TEST_DIRNAME" <<'PY'
import json, os, sys
sys.path.insert(0, sys.argv[1])
from overhead import check_overhead
d = json.load(open("r.json"))
t = d["trials"][0]
assert t["status"] == "ok", t
check_overhead(d)  # the fixture's phase beside the harness's own, never in their total
assert t["overhead_ms"]["fixture"] >= t["fixture"]["ready_ms"] + t["fixture"]["stop_ms"], t["overhead_ms"]
assert t["script"]["refused_ssl"] == 50 and t["script"]["errors"] == 0, t["script"]
# the server's port is out of the namespace's ephemeral range: a probe never connects to itself on it
assert t["script"]["pgport_reserved"] == 1, t["script"]
f = t["fixture"]
assert f["slice"] == "fixture" and f["cpus"] == t["cpus"]["fixture"] and f["clean_shutdown"], f
# the fixture has a CPU of its own exactly when the plan found one to spare
planned = d["config"]["modes"]["pinned"]
shared = planned["fixture"] == planned["client"]
assert ("shares_cpus_with" in f) == shared, (f, planned)
if os.environ.get("HARNESS_GUEST") == "1":  # 4 vCPUs: runtime, client and fixture get one each
    assert not shared and len({planned["sut"], planned["client"], planned["fixture"]}) == 3, planned
assert t["slices"]["fixture"]["pids_peak"] >= 5 and t["slices"]["fixture"]["memory_peak_bytes"] > 20 << 20
assert d["config"]["fixtures"]["postgres"]["settings"]["fsync"] == "off"
PY
	logs=$(python3 -c 'import json; print(json.load(open("r.json"))["config"]["logs"])')
	grep -q "database system is ready to accept connections" "$logs"/postgres-pg-reachable-node20-pinned-1.log
	grep -q "database system is shut down" "$logs"/postgres-pg-reachable-node20-pinned-1.log
	rm -rf "$logs" # --keep: ours to remove
}

@test "a user's host-sourced postgres15 manifest (the distribution's package) still runs the fixture" {
	pg=$(ls /usr/lib/postgresql/15/bin/postgres 2>/dev/null || true)
	[ -n "$pg" ] || hx_skip "needs a host PostgreSQL 15 (Debian's postgresql-15)"
	mkdir images
	cp "$HARNESS_TOP"/images/*.json images/
	cat >images/postgres15.json <<JSON
{"name": "postgres15", "version": "15", "kind": "fixture",
 "source": {"type": "host", "path": "$pg"}, "entry": "$pg",
 "version_command": ["{entry}", "--version"], "version_expect": "(PostgreSQL) 15."}
JSON
	run --separate-stderr env HARNESS_IMAGES_DIR="$PWD/images" "$HARNESS" run --cpus 1 --runtimes node20 --out r.json \
		"$HARNESS_FIXTURES/scenarios/pg-reachable"
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ]
	python3 - "$pg" <<'PY'
import json, sys
d = json.load(open("r.json"))
img = d["config"]["fixtures"]["postgres"]["image"]
assert img["source"] == "host" and img["entry"] == sys.argv[1] and img["digest"].startswith("sha256-"), img
assert d["trials"][0]["status"] == "ok" and d["trials"][0]["fixture"]["clean_shutdown"], d["trials"][0]
PY
}
