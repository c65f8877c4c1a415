#!/usr/bin/env bats
# The sandbox, attacked from inside: each attempt must fail, harness must keep working and clean up.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
}

teardown() {
	assert_no_leftovers
}

# Run the try-syscall helper in a sandbox; prints "name errno" lines.
try_inside() {
	"$HARNESS" exec --bind "$HELPERS:/opt/helpers" -- /opt/helpers/try-syscall "$@"
}

expect() {
	local want=$1
	shift
	for name in "$@"; do
		grep -qx "$name $want" <<<"$output" || {
			echo "$name: wanted $want, got: $(grep "^$name " <<<"$output")"
			return 1
		}
	done
}

@test "inside: no capabilities, no_new_privs, seccomp filter, not root" {
	run "$HARNESS" exec -- sh -c 'grep -E "^(CapEff|CapPrm|CapBnd|NoNewPrivs|Seccomp):" /proc/self/status; id -u'
	[ "$status" -eq 0 ]
	[[ "$output" == *"CapEff:	0000000000000000"* ]]
	[[ "$output" == *"CapPrm:	0000000000000000"* ]]
	[[ "$output" == *"CapBnd:	0000000000000000"* ]]
	[[ "$output" == *"NoNewPrivs:	1"* ]]
	[[ "$output" == *"Seccomp:	2"* ]]
	[ "${lines[-1]}" != 0 ]
}

@test "inside: every namespace but the user namespace is new" {
	run "$HARNESS" exec -- sh -c 'for n in mnt pid ipc uts net cgroup; do echo "$n $(readlink /proc/self/ns/$n)"; done'
	[ "$status" -eq 0 ]
	for n in mnt pid ipc uts net cgroup; do
		inside=$(grep "^$n " <<<"$output" | cut -d' ' -f2)
		[ -n "$inside" ]
		[ "$inside" != "$(readlink /proc/self/ns/$n)" ] || { echo "$n is the host's"; return 1; }
	done
}

@test "inside: the root is a fresh read-only tree with the sandbox user, its own hostname and PIDs" {
	run "$HARNESS" exec -- sh -c 'ls /; hostname; echo pid $$; id -un; touch /x 2>&1; touch /usr/x 2>&1; touch /tmp/x && echo tmp-ok; touch ~/x && echo home-ok'
	[ "$status" -eq 0 ]
	[[ "$output" == *"usr"* ]]
	refute grep -qx root <<<"$output"
	refute grep -qx work <<<"$output"
	grep -qx harness <<<"$output"
	grep -qx "pid 2" <<<"$output"
	[[ "$output" == *"touch: cannot touch '/x': Read-only file system"* ]]
	[[ "$output" == *"touch: cannot touch '/usr/x': Read-only file system"* ]]
	grep -qx tmp-ok <<<"$output"
	grep -qx home-ok <<<"$output"
}

@test "inside: the environment is built from scratch" {
	NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt NODE_OPTIONS=--max-old-space-size=1 \
		run "$HARNESS" exec --env FOO=bar -- env
	[ "$status" -eq 0 ]
	refute grep -q NODE_ <<<"$output"
	grep -qx FOO=bar <<<"$output"
	grep -qx LANG=C.UTF-8 <<<"$output"
	grep -qx TZ=UTC <<<"$output"
	grep -qx HOME=/home/harness <<<"$output"
}

@test "mount, namespaces and the new mount API are refused (EPERM); clone3 is ENOSYS" {
	run try_inside mount umount pivot_root chroot open_tree fsopen unshare-mount unshare-user unshare-net clone-newns clone3 setns
	[ "$status" -eq 0 ]
	expect EPERM mount umount pivot_root chroot open_tree fsopen unshare-mount unshare-user unshare-net clone-newns
	expect ENOSYS clone3
	# /proc/1 is the sandbox's own init, and even its namespaces are out of reach
	grep -qxE 'setns (EPERM|EACCES)' <<<"$output"
}

@test "tracing, kernel, key, clock, perf and io_uring calls are refused" {
	run try_inside ptrace process_vm_readv kexec_load init_module finit_module delete_module bpf keyctl add_key \
		reboot swapon acct clock_settime settimeofday perf_event_open userfaultfd open_by_handle_at io_uring_setup
	[ "$status" -eq 0 ]
	expect EPERM ptrace process_vm_readv kexec_load init_module finit_module delete_module bpf keyctl add_key \
		reboot swapon acct clock_settime settimeofday perf_event_open userfaultfd open_by_handle_at io_uring_setup
}

@test "raw and packet sockets, device nodes and becoming root are refused" {
	run try_inside raw_socket packet_socket mknod setuid0
	[ "$status" -eq 0 ]
	expect EPERM raw_socket packet_socket mknod setuid0
}

@test "the host's secrets and /usr are out of reach" {
	run try_inside read_shadow read_root_home write_usr write_root
	[ "$status" -eq 0 ]
	expect ENOENT read_shadow read_root_home
	expect EROFS write_usr write_root
}

@test "--allow-io-uring lets io_uring through the filter, and only then" {
	run "$HARNESS" exec --allow-io-uring --bind "$HELPERS:/opt/helpers" -- /opt/helpers/try-syscall io_uring_setup
	[ "$status" -eq 0 ]
	[ "$output" != "io_uring_setup EPERM" ]
}

@test "the network: only lo, and a listener on the host's 127.0.0.1 is unreachable" {
	python3 -c 'import socket,time
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(30)' >"$BATS_TEST_TMPDIR/port" &
	listener=$!
	wait_until 10 test -s "$BATS_TEST_TMPDIR/port"
	port=$(cat "$BATS_TEST_TMPDIR/port")
	run "$HARNESS" exec -- python3 -c "import socket,os
print(sorted(os.listdir('/sys/class/net')) if os.path.isdir('/sys/class/net') else open('/proc/net/dev').read().split()[20::17])
try:
    socket.create_connection(('127.0.0.1', $port), timeout=2); print('connected')
except OSError as e: print('refused', e.errno)"
	kill "$listener"
	[ "$status" -eq 0 ]
	[[ "$output" == *"refused 111"* ]]
	[[ "$output" != *connected* ]]
	[[ "${lines[0]}" == *"'lo:'"* || "${lines[0]}" == "['lo']" ]]
}

@test "a host PID cannot be signalled from inside" {
	sleep 60 &
	victim=$!
	run "$HARNESS" exec -- sh -c "kill -9 $victim; echo \$?"
	running "$victim"
	kill "$victim"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" != 0 ]
}

@test "a fork bomb is stopped by pids.max and cleaned up" {
	# the bomb's own "Cannot fork" lines go to /dev/null: they would race harness's JSON line on stderr
	run timeout 60 "$HARNESS" exec --pids-max 64 --stats --json -- sh -c 'exec 2>/dev/null; b() { b | b & }; b; sleep 2'
	echo "${lines[-1]}"
	[ "$status" -ne 124 ]
	[ "$(json_field "$output" stats.pids_peak)" -le 64 ]
}

@test "a memory bomb is OOM-killed inside its slice" {
	run --separate-stderr "$HARNESS" exec --memory 48M --stats --json -- python3 -c '
x = []
while True: x.append(bytearray(1 << 20))'
	[ "$status" -eq 137 ]
	[ "$(json_field "$stderr" stats.oom_kill)" -ge 1 ]
}

@test "filling /tmp ends in ENOSPC, not in the host's disk" {
	run "$HARNESS" exec --tmp-size 8M -- sh -c 'dd if=/dev/zero of=/tmp/fill bs=1M count=64 2>&1; df -k /tmp | tail -1'
	[[ "$output" == *"No space left on device"* ]]
	[[ "${lines[-1]}" == *tmpfs* ]]
}

@test "opening 100,000 files ends in EMFILE" {
	run "$HARNESS" exec -- python3 -c '
import os
fds = []
try:
    for _ in range(100000): fds.append(os.open("/dev/null", os.O_RDONLY))
    print("opened all")
except OSError as e: print("stopped", e.errno, len(fds) >= 10000)'
	[ "$status" -eq 0 ]
	[ "$output" = "stopped 24 True" ]
}

@test "two sandboxes of one run reach each other on 127.0.0.1" {
	run --separate-stderr "$HARNESS" exec --stats --json --client 'python3 -c "
import time, urllib.request
for _ in range(100):
    try: print(urllib.request.urlopen(\"http://127.0.0.1:8765/\").status); break
    except OSError: time.sleep(0.1)"' -- python3 -m http.server --bind 127.0.0.1 8765
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = 200 ]
	# the server was stopped by harness once the client was done
	[ -n "$(json_field "$stderr" server_exit_status)" ]
}

@test "a failing sandbox step is reported by the parent with step and errno, exit 4" {
	run "$HARNESS" exec --bind "$HELPERS:/usr/new-folder" -- true
	[ "$status" -eq 4 ]
	[[ "$output" == "harness: sandbox: mkdir bind target: Read-only file system" ]]
}

@test "bad --bind and --env are one-line usage errors" {
	run "$HARNESS" exec --bind /nonexistent:/x -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"--bind /nonexistent:/x: /nonexistent: No such file or directory"* ]]
	run "$HARNESS" exec --bind "$HELPERS:relative" -- true
	[ "$status" -eq 2 ]
	run "$HARNESS" exec --env NOEQUALS -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"--env takes K=V, not 'NOEQUALS'"* ]]
}
