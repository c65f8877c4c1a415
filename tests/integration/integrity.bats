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

# A cache of the test's own (nothing prepared in it yet) that shares the machine's unpacked images.
own_cache() {
	local real=${HARNESS_CACHE_DIR:-/var/cache/harness} t
	export HARNESS_CACHE_DIR=$BATS_TEST_TMPDIR/cache
	mkdir -p "$HARNESS_CACHE_DIR/trees"
	for t in "$real"/trees/sha*; do
		[ -d "$t" ] && ln -sfnr "$t" "$HARNESS_CACHE_DIR/trees/$(basename "$t")"
	done
	return 0
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

# The cgroups of slice $1 of this test's run (one per hierarchy), once they exist.
slice_dirs() {
	find /sys/fs/cgroup -mindepth 2 -maxdepth 9 -type d -path "*/harness-$HARNESS_RUN_TAG-*/$1" 2>/dev/null
}

# Wait (20 s at most) until condition $@ holds.
wait_for() {
	local end=$((SECONDS + 20))
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.05
	done
}

sut_listening() {
	local d p
	for d in $(slice_dirs sut); do
		for p in $(cat "$d/cgroup.procs" 2>/dev/null); do
			if grep -q ' 0100007F:0BB8 00000000:0000 0A ' "/proc/$p/net/tcp" 2>/dev/null &&
				[ "$(awk '/^Uid:/{print $2}' "/proc/$p/status")" = "$SBX_UID" ]; then
				SUT_PID=$p
				return 0
			fi
		done
	done
	return 1
}

@test "served by the runtime: a listener planted on the runtime's port from the client slice, with SO_REUSEPORT and the runtime's uid, fails the trial naming it" {
	need_root
	command -v nsenter >/dev/null || hx_skip "needs nsenter (util-linux)"
	"$HARNESS" images path node24 >/dev/null 2>&1 || hx_skip "needs the node24 image"
	"$HARNESS" run --cpus 1 --runtimes node24 --repeat 1 --out r.json "$FIXTURES/scenarios/shared-port" >out.log 2>&1 &
	RUN=$!
	wait_for sut_listening
	# the plant: in the run's network namespace, as the runtime's uid (what one uid for every role allowed), an
	# HTTP server that joins the port with SO_REUSEPORT, moved into the client slice
	nsenter -t "$SUT_PID" -n setpriv --reuid="$SBX_UID" --regid="$SBX_UID" --clear-groups /usr/bin/python3 -c '
import http.server, socket
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", "13"); self.end_headers(); self.wfile.write(b"Hello, World!")
    def log_message(self, *a): pass
class S(http.server.ThreadingHTTPServer):
    def server_bind(self):
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1); super().server_bind()
S(("127.0.0.1", 3000), H).serve_forever()' &
	PLANT=$!
	for d in $(slice_dirs client); do echo "$PLANT" >"$d/cgroup.procs"; done
	status=0
	wait "$RUN" || status=$?
	kill "$PLANT" 2>/dev/null || true
	wait "$PLANT" 2>/dev/null || true
	cat out.log | tail -5
	[ "$status" -eq 1 ]
	python3 - "$PLANT" "$SBX_UID" <<'PY'
import json, sys
t = json.load(open("r.json"))["trials"][0]
print(t["status"], t.get("error"))
assert t["status"] == "failed", t["status"]
want = f"port 3000 is not only the runtime's: a listener there is held by pid {sys.argv[1]} (python3) in the client slice, uid {sys.argv[2]} (the sut role)"
assert want in t["error"], t["error"]
PY
}

@test "sock_diag refused: the runtime cannot list the run's sockets (the client's, the fixture's) through netlink; NETLINK_ROUTE still opens" {
	run --separate-stderr "$HARNESS" exec -- /usr/bin/python3 -c "
import socket
for name, proto in (('route', 0), ('sock_diag', 4)):
    try:
        socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto).close(); print(name, 'opened')
    except OSError as e:
        print(name, 'refused:', e.strerror)"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"route opened"* ]]
	[[ "$output" == *"sock_diag refused: Operation not permitted"* ]]
	# and the policy says so (results and exec --json carry it)
	run "$HARNESS" exec --json --stats -- true
	[[ "$output" == *'"socket AF_NETLINK NETLINK_SOCK_DIAG"'* ]]
}

@test "prepare slice: a fork storm in a scenario's prepare step stops at the prepare slice's pids limit (1024)" {
	[ -x "$HELPERS/forks" ] || hx_skip "needs the forks helper (make build/helpers/forks)"
	own_cache # a prepare of its own, whatever ran before
	"$HARNESS" images path node20 >/dev/null 2>&1 || hx_skip "needs the node20 image (harness images pull node20)"
	cp -r "$FIXTURES/scenarios/prepare-forks" pf
	cp "$HELPERS/forks" pf/forks
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --repeat 1 --out r.json ./pf
	echo "$stderr" | tail -5
	[ "$status" -eq 0 ]
	n=$(python3 -c 'import json; print(int(json.load(open("r.json"))["trials"][0]["script"]["prepare_forks"]))')
	echo "prepare forked $n"
	# node and the helper themselves count against the 1024 (threads too)
	[ "$n" -gt 900 ] && [ "$n" -lt 1024 ]
}

@test "prepare size: a prepare step writing 64 MiB into a /prepared of 8 MiB (and exiting 0) is refused naming the limit and the fix, exit 2; nothing reached the cache" {
	own_cache # a prepare of its own, whatever ran before
	"$HARNESS" images path node20 >/dev/null 2>&1 || hx_skip "needs the node20 image (harness images pull node20)"
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --repeat 1 --out r.json "$FIXTURES/scenarios/prepare-fills"
	echo "$stderr" | tail -5
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"the prepare step of scenario prepare-fills on node20 wrote past its limit of 8 MiB (scenario.json's \"prepare_size\" raises it, up to 1536M)"* ]]
	# no entry, no leftover: the step's writes were in its tmpfs, never on the cache's disk
	[ -z "$(ls -A "$HARNESS_CACHE_DIR/prepared")" ]
}

@test "prepare size: a prepare step that removes what it wrote after ENOSPC and fails (as npm does) is refused for its limit, not called offline, exit 2" {
	own_cache
	"$HARNESS" images path node20 >/dev/null 2>&1 || hx_skip "needs the node20 image (harness images pull node20)"
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --repeat 1 --out r.json "$FIXTURES/scenarios/prepare-rollback"
	echo "$stderr" | tail -5
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"the prepare step of scenario prepare-rollback on node20 ran out of space and removed what it wrote (its output says no space was left on a device, most likely its limit of 8 MiB: scenario.json's \"prepare_size\" raises it, up to 1536M)"* ]]
	[[ "$stderr" != *"offline?"* ]]
	[ -z "$(ls -A "$HARNESS_CACHE_DIR/prepared")" ]
}

@test "prepare failure: a prepare step with no network that exits 1 is the scenario's own failure, exit 2 with its words, not called offline" {
	own_cache
	"$HARNESS" images path node20 >/dev/null 2>&1 || hx_skip "needs the node20 image (harness images pull node20)"
	cp -r "$FIXTURES/scenarios/prepare-rollback" pf
	sed -i 's/"name": "prepare-rollback"/"name": "prepare-fails"/' pf/scenario.json
	printf '%s\n' "if (process.env.PREPARE === '1') { console.error('prepare-fails: the seed file is missing'); process.exit(1); }" >pf/rollback.mjs
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --repeat 1 --out r.json ./pf
	echo "$stderr" | tail -3
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"the prepare step of scenario prepare-fails on node20 failed, with no network (the step's own failure): it exited with 1: prepare-fails: the seed file is missing"* ]]
	[[ "$stderr" != *"offline?"* ]]
	[ -z "$(ls -A "$HARNESS_CACHE_DIR/prepared")" ]
}

@test "trial deadline: a silent server (it answers only the readiness probe) is ended by the deadline derived from the load, and the trial says why" {
	"$HARNESS" images path node20 >/dev/null 2>&1 || hx_skip "needs the node20 image (harness images pull node20)"
	# 10 s + 3 s readiness + a 4 s response timeout + 20 requests at 100 a second: 17 s, where the load alone
	# would take 20 requests / 2 connections x 4 s = 40 s
	start=$SECONDS
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --repeat 1 --out r.json "$FIXTURES/scenarios/silent-server"
	took=$((SECONDS - start))
	echo "$stderr" | tail -3
	echo "took $took s"
	[ "$status" -eq 1 ]
	[ "$took" -lt 40 ]
	python3 - <<'PY'
import json
t = json.load(open("r.json"))["trials"][0]
print(t["status"], t["error"])
assert t["status"] == "failed", t
assert "past the trial's deadline of 17 s" in t["error"], t["error"]
PY
}

@test "wire deadline: a server trickling the capture at readiness a byte every 4 s is ended by the capture's deadline of 10 s, naming the scenario and what was slow" {
	"$HARNESS" images path node20 >/dev/null 2>&1 || hx_skip "needs the node20 image (harness images pull node20)"
	# the body's 1000 bytes at one every 4 s would hold the trial 4,000 s: a timeout per read never fires
	start=$SECONDS
	run --separate-stderr timeout 120 "$HARNESS" run --cpus 1 --runtimes node20 --repeat 1 --out r.json "$FIXTURES/scenarios/trickle-wire"
	took=$((SECONDS - start))
	echo "$stderr" | tail -3
	echo "took $took s"
	[ "$status" -eq 1 ]
	[ "$took" -lt 60 ]
	[[ "$stderr" == *"the wire at readiness: scenario trickle-wire, runtime node20: the server sent no whole answer to GET / within 10 s: "*" bytes came, its body not whole"* ]]
	python3 - <<'PY'
import json
t = json.load(open("r.json"))["trials"][0]
print(t["status"], t["error"])
assert t["status"] == "failed", t
assert "no whole answer to GET / within 10 s" in t["error"], t["error"]
PY
}

@test "memory of the whole tree: a forked worker's 200 MiB are in the slice's peak, and the table shows that peak, marked 'tree'" {
	"$HARNESS" images path node20 >/dev/null 2>&1 || hx_skip "needs the node20 image (harness images pull node20)"
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --repeat 1 --out r.json "$FIXTURES/scenarios/forked-worker"
	echo "$output"
	echo "$stderr" | tail -3
	[ "$status" -eq 0 ]
	python3 - <<'PY'
import json
t = json.load(open("r.json"))["trials"][0]
pid_peak = t["server"]["peak_rss_kb"] / 1024
tree_peak = t["slices"]["sut"]["memory_peak_bytes"] / 2**20
print("server VmHWM", pid_peak, "MiB; slice peak", tree_peak, "MiB")
assert pid_peak < 150 and tree_peak > 200, (pid_peak, tree_peak)
PY
	row=$(grep -E '^node20 +pinned' <<<"$output")
	echo "$row"
	[[ "$row" =~ →\ ([0-9]+)\.[0-9]\ tree ]]
	[ "${BASH_REMATCH[1]}" -gt 200 ]
}

@test "prepare without the host's network: a prepare step reaches neither a host service on 127.0.0.1 nor a host abstract unix socket" {
	own_cache # a prepare of its own, whatever ran before
	"$HARNESS" images path node20 >/dev/null 2>&1 || hx_skip "needs the node20 image (harness images pull node20)"
	/usr/bin/python3 -c '
import socket, time
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); t.bind(("127.0.0.1", 47391)); t.listen()
u = socket.socket(socket.AF_UNIX); u.bind("\0hx-integrity-host"); u.listen()
open("listening", "w").close()
time.sleep(120)' &
	HOSTSRV=$!
	wait_for test -e listening
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --repeat 1 --out r.json "$FIXTURES/scenarios/prepare-reach"
	kill "$HOSTSRV"
	wait "$HOSTSRV" 2>/dev/null || true
	echo "$stderr" | tail -3
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"preparing scenario prepare-reach on node20 (PREPARE=1, no network)"* ]]
	python3 - <<'PY'
import json
d = json.load(open("r.json"))
m = d["trials"][0]["script"]
print(m)
assert m["tcp_reached"] == 0 and m["abstract_reached"] == 0, m
assert d["config"]["prepare_network"] is False, d["config"]
PY
}

@test "prepare with the network only when the scenario declares it and the run allows it: refused otherwise, exit 2 naming the option" {
	own_cache
	"$HARNESS" images path node20 >/dev/null 2>&1 || hx_skip "needs the node20 image (harness images pull node20)"
	cp -r "$FIXTURES/scenarios/prepare-reach" pr
	sed -i 's/"prepare": true/"prepare": "network"/' pr/scenario.json
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --repeat 1 --out r.json ./pr
	echo "$stderr" | tail -3
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'scenario prepare-reach prepares with the network ("prepare": "network"): run with --allow-prepare-network to let it'* ]]
	[ ! -e r.json ]
}
