#!/usr/bin/env bats
# Rootless: doctor as uid 1000 in a cgroup v2 subtree delegated the way systemd's Delegate= does it (the
# directory and its cgroup.procs, cgroup.subtree_control and cgroup.threads chowned to the user), and in one
# that is not: what is missing is named with its fix. Needs cgroup v2 (the guest runs it).

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	[ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] || skip "needs cgroup v2 (tests/guest runs it)"
	command -v setpriv >/dev/null || hx_skip "needs setpriv (util-linux)"
	own=$(sed -n 's/^0:://p' /proc/self/cgroup)
	D=/sys/fs/cgroup${own%/}/harness-$HARNESS_RUN_TAG-deleg
	cd "$BATS_TEST_TMPDIR"
	chmod 755 "$BATS_TEST_TMPDIR"
}

teardown() {
	rmdir "$D" "$D-plain" 2>/dev/null || true
}

# harness doctor --json as uid 1000, started inside cgroup $1.
doctor_as_user() {
	sh -c 'echo $$ >"$1/cgroup.procs" && exec setpriv --reuid=1000 --regid=1000 --clear-groups "$2" doctor --json' \
		sh "$1" "$HARNESS" >"$BATS_TEST_TMPDIR/doctor.json" 2>/dev/null || true
}

@test "doctor as uid 1000: a delegated cgroup v2 subtree makes rootless possible; an undelegated one is named with the fix" {
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
