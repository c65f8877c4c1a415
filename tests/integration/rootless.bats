#!/usr/bin/env bats
# Rootless: doctor and a run as uid 1000 in a cgroup v2 subtree delegated the way systemd's Delegate= does it
# (the directory and its cgroup.procs, cgroup.subtree_control and cgroup.threads chowned to the user), and in
# one that is not: what is missing is named with its fix. Needs cgroup v2 (the guest runs it).

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	command -v setpriv >/dev/null || hx_skip "needs setpriv (util-linux)"
	own=$(sed -n 's/^0:://p' /proc/self/cgroup)
	D=/sys/fs/cgroup${own%/}/harness-$HARNESS_RUN_TAG-deleg
	cd "$BATS_TEST_TMPDIR"
	chmod 755 "$BATS_TEST_TMPDIR"
}

teardown() {
	[ -z "${WATCH:-}" ] || kill "$WATCH" 2>/dev/null || true
	# a failed run may have left its trees (in the test's own delegated subtree): kill and remove them
	[ ! -e "$D/cgroup.kill" ] || echo 1 >"$D/cgroup.kill" 2>/dev/null || true
	[ ! -d "$D" ] || find "$D" -depth -mindepth 1 -type d -exec rmdir {} + 2>/dev/null || true
	rmdir "$D" "$D-plain" 2>/dev/null || true
	[ -z "${W:-}" ] || rm -rf "$W"
}

need_v2() {
	[ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] || skip "needs cgroup v2 (tests/guest runs it)"
}

# $W: a folder of the user's (the test's own folder is below bats' private one)
userdir() {
	W=$(mktemp -d /tmp/rootless-XXXXXX)
	chown 1000:1000 "$W"
}

# $D delegated to uid 1000 as systemd's Delegate=yes does it, with the controllers a run needs enabled above
# it (systemd enables them in the parent of a delegated unit).
delegate() {
	local c
	mkdir "$D"
	chown 1000:1000 "$D" "$D/cgroup.procs" "$D/cgroup.subtree_control" "$D/cgroup.threads"
	for c in cpuset cpu memory pids; do
		grep -qw "$c" "$D/cgroup.controllers" || echo "+$c" >"${D%/*}/cgroup.subtree_control" ||
			hx_skip "cannot enable the $c controller above $D"
	done
}

# Until the background pid $1 exits: every tree of this test's tag and the sut slices in it, wherever they are. The
# tree lives for the whole run, a sut slice only for its trial: under the guest's emulated CPUs one walk of
# /sys/fs/cgroup can take longer than a quick trial, and a watcher that looked only for sut slices once saw none.
watch_trees() {
	while kill -0 "$1" 2>/dev/null; do
		find /sys/fs/cgroup -mindepth 2 -maxdepth 6 -type d \( -name "harness-$HARNESS_RUN_TAG-[0-9]*-[0-9]*" -o \
			-name sut -path "*/harness-$HARNESS_RUN_TAG-*" \) 2>/dev/null
		sleep 0.1
	done >trees.raw
}

# "$@" in a mount namespace of its own where /etc/subuid and /etc/subgid hold only the line $1 ("" for none), the
# ranges newuidmap and newgidmap read, without a change to the host's files (the line is written into $W).
with_subids() {
	local line=$1
	shift
	[ -e /etc/subuid ] && [ -e /etc/subgid ] || hx_skip "needs /etc/subuid and /etc/subgid to bind a range over"
	printf '%s' "${line:+$line
}" >"$W/subid"
	chmod 644 "$W/subid"
	unshare -m sh -c 'mount --bind "$1" /etc/subuid && mount --bind "$1" /etc/subgid && shift && exec "$@"' \
		sh "$W/subid" "$@"
}

# A range of subordinate ids for uid 1000, by its name as usermod writes it.
user_range() {
	local name
	name=$(id -nu 1000 2>/dev/null) || hx_skip "uid 1000 has no user name, which newuidmap needs"
	command -v newuidmap >/dev/null && command -v newgidmap >/dev/null ||
		hx_skip "needs newuidmap and newgidmap (the uidmap package)"
	echo "$name:200000:65536"
}

# harness doctor --json as uid 1000, started inside cgroup $1.
doctor_as_user() {
	sh -c 'echo $$ >"$1/cgroup.procs" && exec setpriv --reuid=1000 --regid=1000 --clear-groups "$2" doctor --json' \
		sh "$1" "$HARNESS" >"$BATS_TEST_TMPDIR/doctor.json" 2>/dev/null || true
}

@test "doctor as uid 1000: a delegated cgroup v2 subtree makes rootless possible; an undelegated one is named with the fix" {
	need_v2
	mkdir "$D" "$D-plain"
	chown 1000:1000 "$D" "$D/cgroup.procs" "$D/cgroup.subtree_control" "$D/cgroup.threads"
	doctor_as_user "$D"
	python3 - "${D#/sys/fs/cgroup}" <<'PY'
import json, sys
r = json.load(open("doctor.json"))["rootless"]
assert r["uid"] == 1000 and r["cgroup"] == sys.argv[1], r
assert not [m for m in r["missing"] if m["what"].startswith("cgroup")], r  # delegated
userns = [m for m in r["missing"] if "namespaces" in m["what"]]
assert r["possible"] == (not userns), r
PY
	doctor_as_user "$D-plain"
	python3 - "$D-plain" <<'PY'
import json, sys
r = json.load(open("doctor.json"))["rootless"]
assert not r["possible"], r
m = [m for m in r["missing"] if m["what"].startswith("cgroup delegation")]
assert m and sys.argv[1] in m[0]["what"] and "Delegate=yes" in m[0]["fix"], r
PY
}

@test "run as uid 1000 in a delegated subtree: the trials run rootless in slices under it, the results say so, nothing is left" {
	need_v2
	delegate
	userdir
	range=$(user_range)
	# harness alone in the delegated cgroup, as systemd-run --user --scope -p Delegate=yes starts it, with a range
	# of subordinate ids: every role a user of its own
	with_subids "$range" sh -c 'echo $$ >"$1/cgroup.procs" && cd "$2" && exec setpriv --reuid=1000 --regid=1000 --clear-groups \
		env HOME="$2" "$3" run --cpus 1 --runtimes node22 --profile quick --repeat 1 --connections 20 \
		--requests 400 --out r.json startup http-hello' sh "$D" "$W" "$HARNESS" >out.log 2>&1 &
	RUN=$!
	watch_trees "$RUN" &
	WATCH=$!
	status=0
	wait "$RUN" || status=$?
	wait "$WATCH" || true
	WATCH=
	tail -20 out.log
	sort -u trees.raw
	[ "$status" -eq 0 ]
	[ "$(grep -c 'one uid for every role' out.log)" -eq 0 ]
	python3 - "$W/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["config"]
assert c["rootless"] is True and c["userns"] == {"uid_map": "0 1000 1, 2147479552 200000 6",
                                                 "gid_map": "0 1000 1, 2147479552 200000 6", "roles": True}, c
ts = d["trials"]
assert {t["scenario"] for t in ts} == {"startup", "http-hello"} and all(t["status"] == "ok" for t in ts), ts
for t in ts:
    if t["scenario"] == "http-hello":
        assert t["load"]["errors"]["total"] == 0 and t["load"]["requests"] > 0, t["load"]
PY
	# the run's tree and its trials' slices were made in the delegated subtree, and nowhere else
	grep -q "^$D/harness-$HARNESS_RUN_TAG-[0-9]*-[0-9]*\$" trees.raw
	[ -z "$(grep -v "^$D/harness-$HARNESS_RUN_TAG-[0-9]*-[0-9]*\(/sut\)\?\$" trees.raw)" ]
	# nothing left: no cgroup below the subtree, no process in it, no run folder of the user's
	[ -z "$(find "$D" -mindepth 1 -type d)" ]
	[ -z "$(cat "$D/cgroup.procs")" ]
	[ -z "$(find /tmp -maxdepth 1 -name 'harness-run-*' -user 1000)" ]
}

@test "exec as uid 1000 without subordinate ids: one uid for every role, said; the sandbox's init is not dumpable, its /proc/1/mem refused to the payload (which has its uid)" {
	need_v2
	delegate
	userdir
	probe="import os
print('uid', os.getuid())
try:
    open('/proc/1/mem', 'r+b').close(); print('/proc/1/mem opened')
except OSError as e:
    print('/proc/1/mem refused:', e.strerror)"
	run with_subids "" sh -c 'echo $$ >"$1/cgroup.procs" && cd "$2" && exec setpriv --reuid=1000 --regid=1000 \
		--clear-groups env HOME="$2" "$3" exec -- /usr/bin/python3 -c "$4"' sh "$D" "$W" "$HARNESS" "$probe"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"uid 0"* ]]
	[[ "$output" == *"/proc/1/mem refused: Permission denied"* ]]
	[[ "$output" == *"harness exec: warning: rootless with one uid for every role (no range of 6 ids for "*" in /etc/subuid and /etc/subgid (fix: usermod --add-subuids"* ]]
}

# With a range of subordinate ids the roles are root's own ids: the runtime's sandbox is 2147479552 and the client's
# 2147479554 (mapped to 200000 and 200002), so the client cannot join the runtime's port with SO_REUSEPORT, which
# the kernel groups by uid.
@test "exec as uid 1000 with subordinate ids: the runtime and the client are users of their own, SO_REUSEPORT between them refused" {
	need_v2
	delegate
	userdir
	range=$(user_range)
	cat >"$W/server.py" <<'PY'
import os, socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
s.bind(("127.0.0.1", 7391))
s.listen(4)
print("server uid", os.getuid(), "gid", os.getgid(), "groups", os.getgroups(), flush=True)
s.accept()
PY
	# the client waits (a deadline, not a sleep) for the server's socket to listen, then tries to join its port
	cat >"$W/client.py" <<'PY'
import os, socket, time
def listening():
    rows = [l.split() for l in open("/proc/net/tcp").readlines()[1:]]
    return any(r[1].endswith(":1CDF") and r[3] == "0A" for r in rows)
end = time.monotonic() + 60
while time.monotonic() < end and not listening():
    time.sleep(0.05)
print("client uid", os.getuid(), flush=True)
j = socket.socket()
j.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
try:
    j.bind(("127.0.0.1", 7391))
    print("client joined the port")
except OSError as e:
    print("client refused:", e.strerror)
socket.create_connection(("127.0.0.1", 7391)).close()
PY
	chmod 755 "$W" && chmod 644 "$W/server.py" "$W/client.py" # the roles are not the caller
	run with_subids "$range" sh -c 'echo $$ >"$1/cgroup.procs" && cd "$2" && exec setpriv --reuid=1000 \
		--regid=1000 --clear-groups env HOME="$2" "$3" exec --bind "$2:/w" --client "/usr/bin/python3 /w/client.py" \
		-- /usr/bin/python3 /w/server.py' sh "$D" "$W" "$HARNESS"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"server uid 2147479552 gid 2147479552 groups []"* ]]
	[[ "$output" == *"client uid 2147479554"* ]]
	[[ "$output" == *"client refused: Address already in use"* ]]
	[[ "$output" != *"one uid for every role"* ]]
}

# What a rootless run cannot do is said per scenario, which is skipped: the Postgres fixture (a root-started run's
# only), and npm dependencies that root's cache, which the user only reads, does not hold (a copy of express whose
# lock file differs by a byte, so that no run installed its dependencies).
@test "run as uid 1000 with subordinate ids: a scenario with the Postgres fixture, and one whose npm dependencies root's cache lacks, skipped with their reasons" {
	need_v2
	delegate
	userdir
	range=$(user_range)
	cp -r "$BATS_TEST_DIRNAME/../../scenarios/express" "$W/express-copy"
	sed -i 's/"name": "express"/"name": "express-copy"/' "$W/express-copy/scenario.json"
	echo >>"$W/express-copy/package-lock.json"
	chown -R 1000:1000 "$W/express-copy"
	run with_subids "$range" sh -c 'echo $$ >"$1/cgroup.procs" && cd "$2" && exec setpriv --reuid=1000 \
		--regid=1000 --clear-groups env HOME="$2" "$3" run --cpus 1 --runtimes node20 --repeat 1 --out r.json \
		"$4" "$2/express-copy"' sh "$D" "$W" "$HARNESS" "$FIXTURES/scenarios/pg-reachable"
	echo "$output"
	[ "$status" -eq 3 ] # neither can run here
	[[ "$output" == *"run: no scenario can run here"* ]]
	[[ "$output" == *"skipping scenario pg-reachable: the postgres fixture needs a root-started run: its template would stay in your cache owned by one of your subordinate ids (run harness as root)"* ]]
	[[ "$output" == *"skipping scenario express-copy: the npm dependencies of scenario express-copy are not in the image cache "*", which uid 1000 may only read (install them by a run as root, or set HARNESS_CACHE_DIR to a folder it may write)"* ]]
}

# A rootless prepare step writes on a tmpfs of its prepare_size, as root's does (harness's mount namespace is its user
# namespace's own): the fixture's 64 MiB stop at its 8 MiB, ENOSPC to the step, and never reach the cache's disk
# (a watcher sees the cache's prepared folder stay under the limit), and the step is refused for its limit.
@test "run as uid 1000: a prepare step writes on a tmpfs of its prepare_size, never past it on the disk, and is refused for its limit; one that succeeds is kept as the user's" {
	need_v2
	delegate
	userdir
	mkdir -p "$W/cache/trees"
	for t in "${HARNESS_CACHE_DIR:-/var/cache/harness}"/trees/sha*; do
		[ -d "$t" ] && ln -sfnr "$t" "$W/cache/trees/$(basename "$t")" # relative: the sandbox resolves it below its old root
	done
	chown -R -h 1000:1000 "$W/cache"
	# with the roles' own ids: the step writes as the prepare user (200005 outside), harness keeps it as the caller's
	range=$(user_range)
	with_subids "$range" sh -c 'echo $$ >"$1/cgroup.procs" && cd "$2" && exec setpriv --reuid=1000 --regid=1000 --clear-groups \
		env HOME="$2" HARNESS_CACHE_DIR="$2/cache" "$3" run --cpus 1 --runtimes node20 --repeat 1 --out r.json \
		"$4"' sh "$D" "$W" "$HARNESS" "$FIXTURES/scenarios/prepare-fills" >out.log 2>&1 &
	RUN=$!
	# the most the cache's prepared folder held on the disk while the run went, in KiB
	(
		most=0
		while kill -0 "$RUN" 2>/dev/null; do
			now=$(du -sk "$W/cache/prepared" 2>/dev/null | cut -f1)
			[ "${now:-0}" -le "$most" ] || most=$now
			echo "$most" >most.txt
			sleep 0.05
		done
	) &
	WATCH=$!
	status=0
	wait "$RUN" || status=$?
	wait "$WATCH" || true
	WATCH=
	tail -5 out.log
	echo "most on the disk: $(cat most.txt) KiB"
	[ "$status" -eq 2 ]
	grep -q 'the prepare step of scenario prepare-fills on node20 wrote past its limit of 8 MiB' out.log
	[ "$(cat most.txt)" -lt 8192 ]
	[ -z "$(ls -A "$W/cache/prepared")" ]
	# a step that succeeds: what it wrote as the prepare user is kept in the user's cache as the user's own
	run with_subids "$range" sh -c 'echo $$ >"$1/cgroup.procs" && cd "$2" && exec setpriv --reuid=1000 --regid=1000 \
		--clear-groups env HOME="$2" HARNESS_CACHE_DIR="$2/cache" "$3" run --cpus 1 --runtimes node20 --repeat 1 \
		--out ok.json "$4"' sh "$D" "$W" "$HARNESS" "$FIXTURES/scenarios/prepared-state"
	echo "$output" | tail -5
	[ "$status" -eq 0 ]
	[ -n "$(find "$W/cache/prepared" -mindepth 1)" ]
	[ -z "$(find "$W/cache/prepared" -mindepth 1 ! -user 1000)" ]
}

@test "run as uid 1000 in an undelegated cgroup: refused with exit 3 and doctor's reason" {
	need_v2
	mkdir "$D-plain"
	userdir
	run sh -c 'echo $$ >"$1/cgroup.procs" && cd "$2" && exec setpriv --reuid=1000 --regid=1000 --clear-groups \
		env HOME="$2" "$3" run --runtimes node22 --profile quick startup' sh "$D-plain" "$W" "$HARNESS"
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"rootless is not possible here: cgroup delegation: $D-plain is not owned by uid 1000"* ]]
	[[ "$output" == *"Delegate=yes"* ]]
	[ ! -e "$W/results" ]
}

@test "run --no-sandbox as uid 1000: refused with exit 2 before anything is made (out of the sandbox the runtime would be the caller)" {
	userdir
	run sh -c 'cd "$1" && exec setpriv --reuid=1000 --regid=1000 --clear-groups env HOME="$1" "$2" run \
		--no-sandbox --runtimes node20 --profile quick startup' sh "$W" "$HARNESS"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"run: --no-sandbox needs root: run rootless, the runtime would run as you"* ]]
	[ ! -e "$W/results" ]
	rm -rf "$W"
}

@test "run and exec as uid 1000 on cgroup v1: refused with exit 3, naming cgroup v2, before anything is made" {
	[ "$(stat -fc %T /sys/fs/cgroup)" != cgroup2fs ] || skip "this host has cgroup v2 (the tests above run)"
	userdir
	run sh -c 'cd "$1" && exec setpriv --reuid=1000 --regid=1000 --clear-groups env HOME="$1" "$2" run \
		--runtimes node22 --profile quick startup' sh "$W" "$HARNESS"
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"run: not root, and rootless is not possible here: cgroup v2: "*"systemd.unified_cgroup_hierarchy=1"* ]]
	[ ! -e "$W/results" ]
	run setpriv --reuid=1000 --regid=1000 --clear-groups "$HARNESS" exec -- /bin/true
	echo "$output"
	[ "$status" -eq 3 ]
	[[ "$output" == *"exec: not root, and rootless is not possible here: cgroup v2"* ]]
	[ -z "$(leftover_cgroups)" ]
}
