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

# The roles' uids, as harness/sandbox/sbx_userns.h defines them (SBX_UID + the role's place).
SBX_UID=$(awk '/^#define SBX_UID/{print $3}' "$HARNESS_TOP/harness/sandbox/sbx_userns.h")

@test "roles: the client's sandbox cannot join the runtime's port with SO_REUSEPORT; each role a uid of its own that no host account has" {
	port=47211
	# the server (sut) listens with SO_REUSEPORT and waits for the client to end; the client waits until it is
	# listening, then tries to bind the same port with SO_REUSEPORT (the same uid would be let into the group)
	server="import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1); s.bind(('127.0.0.1', $port)); s.listen()
import os; print('server uid', os.getuid(), flush=True); time.sleep(60)"
	client="import os, socket, time
end = time.time() + 20
while time.time() < end:
    try:
        socket.create_connection(('127.0.0.1', $port), 1).close(); break
    except OSError:
        time.sleep(0.01)
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
try:
    s.bind(('127.0.0.1', $port)); print('client uid', os.getuid(), 'joined the port'); raise SystemExit(7)
except OSError as e:
    print('client uid', os.getuid(), 'bind:', e.strerror)"
	run --separate-stderr "$HARNESS" exec --client "/usr/bin/python3 -c \"$client\"" -- /usr/bin/python3 -c "$server"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *"server uid $SBX_UID"* ]]
	[[ "$output" == *"client uid $((SBX_UID + 2)) bind: Address already in use"* ]]
	# no host account has any role's id (sut, bare, client, fixture, noise, prepare)
	for i in 0 1 2 3 4 5; do
		refute getent passwd $((SBX_UID + i))
		refute getent group $((SBX_UID + i))
	done
}

# In a sandbox: open /proc/1/mem (init's memory: the page of start stamps harness reads), environ and fd/ of init.
PROC1_PROBE="import os
for p, m in (('/proc/1/mem', 'r+b'), ('/proc/1/environ', 'rb')):
    try:
        open(p, m).close(); print(p, 'opened')
    except OSError as e:
        print(p, 'refused:', e.strerror)
try:
    os.listdir('/proc/1/fd'); print('/proc/1/fd opened')
except OSError as e:
    print('/proc/1/fd refused:', e.strerror)"

@test "init not dumpable: /proc/1/mem, /proc/1/environ and /proc/1/fd of the sandbox's init, from the payload: refused" {
	run --separate-stderr "$HARNESS" exec -- /usr/bin/python3 -c "$PROC1_PROBE"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"/proc/1/mem refused: Permission denied"* ]]
	[[ "$output" == *"/proc/1/environ refused: Permission denied"* ]]
	[[ "$output" == *"/proc/1/fd refused: Permission denied"* ]]
	[[ "$output" != *opened* ]]
}
