#!/usr/bin/env bats
# The payload as an adversary of the measurement: each attack a runtime (or a scenario's own script) could make to
# change its own numbers or reach another role's processes, each refused (docs/sandbox.md, "The payload against
# the measurement").

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	assert_no_leftovers
}

@test "postgres: COPY FROM PROGRAM, COPY to and from a file, pg_read_file, CREATE ROLE and the bootstrap database, from the runtime's role: all refused" {
	need_postgres

	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --repeat 1 --out r.json "$FIXTURES/scenarios/pg-superuser"
	echo "$output"
	echo "$stderr" | tail -20
	[ "$status" -eq 0 ]
	python3 - <<'PY'
import json
t = json.load(open("r.json"))["trials"][0]
assert t["status"] == "ok", t
m = t["script"]
print(m)
for k in ("copy_from_program", "copy_to_file", "copy_from_file", "pg_read_file", "pg_ls_dir", "create_role",
          "create_database", "alter_self", "set_role_bootstrap", "grant_program", "connect_bootstrap_db"):
    assert m[k] == 1, (k, "allowed")
assert m["allowed"] == 0 and m["superuser"] == 0 and m["createrole"] == 0 and m["createdb"] == 0, m
assert m["server_roles"] == 0, m
PY
	# logins: the runtime's role to its database, nothing else (the superuser has no password at all)
	tmpl=$(ls -td "${HARNESS_CACHE_DIR:-/var/cache/harness}"/fixtures/postgres15-*/ | head -1)
	grep -q '^host harness harness 127.0.0.1/32 scram-sha-256$' "$tmpl/pgdata/pg_hba.conf"
	[ "$(grep -vc '^#' "$tmpl/pgdata/pg_hba.conf")" -eq 1 ]
}
