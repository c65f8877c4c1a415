#!/usr/bin/env bats
# The sandbox, attacked from inside: each attempt must fail, harness must keep working and clean up.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	need_root
	# what an escape would change: a host folder the sandbox sees read-only, and the host's hostname
	mkdir -p "$BATS_TEST_TMPDIR/host"
	echo untouched >"$BATS_TEST_TMPDIR/host/canary"
	host_hostname=$(hostname)
}

# After every attempt: harness still runs a sandbox, nothing is left behind, the host is as it was.
teardown() {
	assert_no_leftovers
	[ "$(hostname)" = "$host_hostname" ] || { echo "the host's hostname changed" >&2; return 1; }
	[ "$(ls -A "$BATS_TEST_TMPDIR/host")" = canary ] || { echo "the host folder changed" >&2; return 1; }
	[ "$(cat "$BATS_TEST_TMPDIR/host/canary")" = untouched ] || { echo "the canary changed" >&2; return 1; }
	"$HARNESS" exec -- true || { echo "harness cannot run a sandbox any more" >&2; return 1; }
	assert_no_leftovers
}

# Run the try-syscall helper in a sandbox (the canary folder at /host); prints "name[=arg] errno" lines.
try_inside() {
	"$HARNESS" exec --bind "$HELPERS:/opt/helpers" --bind "$BATS_TEST_TMPDIR/host:/host" -- /opt/helpers/try-syscall "$@"
}

# try_inside, and every named attempt must have failed with errno $1.
refused() {
	local want=$1
	shift
	run try_inside "$@"
	[ "$status" -eq 0 ] || { echo "try-syscall exited $status: $output"; return 1; }
	expect "$want" "$@"
}

expect() {
	local want=$1
	shift
	for name in "$@"; do
		grep -qxF "$name $want" <<<"$output" || {
			echo "$name: wanted $want, got: $(grep -F "$name " <<<"$output")"
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

@test "raw sockets, device nodes and becoming root are refused" {
	run try_inside raw_socket mknod setuid0
	[ "$status" -eq 0 ]
	expect EPERM raw_socket mknod setuid0
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
except OSError as e: print('refused', e.errno)
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()
socket.create_connection(s.getsockname(), timeout=2); print('own lo works')"
	kill "$listener"
	[ "$status" -eq 0 ]
	[[ "$output" == *"refused 111"* ]]
	[[ "$output" == *"own lo works"* ]]
	[[ "$output" != *connected* ]]
	[[ "${lines[0]}" == *"'lo:'"* || "${lines[0]}" == "['lo']" ]]
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
	[[ "$output" == "harness: sandbox: create bind target: Read-only file system" ]]
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

# ---- The adversarial suite: one attempt per test, named after what it tries; each must be refused with the
# errno the policy promises, and teardown checks that harness and the host are unharmed.

@test "escape: walk an inherited descriptor (3</ then fchdir) to the host's root" {
	# (bats owns fd 3 of the test's shell: the attempt gets its own shell)
	run bash -c 'exec 3</ 4</etc 9</; exec "$0" exec --bind "$1:/opt/helpers" -- /opt/helpers/try-syscall fd_walk' \
		"$HARNESS" "$HELPERS"
	expect EBADF fd_walk
}

@test "escape: TIOCSTI types a command into the caller's terminal" {
	# script(1) gives harness a terminal of its own to be the caller's
	run script -qec "$HARNESS exec --bind $HELPERS:/opt/helpers -- /opt/helpers/try-syscall tiocsti tiocsti_high_bits" /dev/null
	output=${output//$'\r'/}
	expect EPERM tiocsti tiocsti_high_bits
}

@test "exec on a terminal starts its sandbox every time: 30 runs on one CPU, none hangs (the relay's thread after the clone)" {
	command -v taskset >/dev/null || hx_skip "taskset (util-linux) is missing"
	# on one CPU harness runs on past pthread_create while the relay's new thread waits: a clone then left
	# the sandbox's init waiting for that thread in setresgid, and exec reading its report pipe, for good
	# (--mode none: pinned mode needs a CPU for the client too)
	cpu=$(awk '/^Cpus_allowed_list/ {split($2, a, /[-,]/); print a[1]}' /proc/self/status)
	for i in $(seq 30); do
		run timeout -s KILL 20 taskset -c "$cpu" script -qec "$HARNESS exec --mode none -- /bin/echo round $i" /dev/null
		if [ "$status" -ne 0 ]; then
			echo "round $i: status $status, output: $output" >&2
			# a hung sandbox's init is in this test's slice: killing it lets exec read its pipe's end
			for p in $(own_pgrep "exec --mode none -- /bin/echo round $i"); do kill -KILL "$p"; done
			wait_until 10 none_runs "exec --mode none -- /bin/echo round $i"
			return 1
		fi
		[[ "$output" == *"round $i"* ]]
	done
}

@test "escape: TIOCLINUX on the caller's terminal" {
	run script -qec "$HARNESS exec --bind $HELPERS:/opt/helpers -- /opt/helpers/try-syscall tioclinux" /dev/null
	output=${output//$'\r'/}
	expect EPERM tioclinux
}

@test "escape: reopen the controlling terminal (/dev/tty): there is none, the payload has its own session" {
	run script -qec "$HARNESS exec --bind $HELPERS:/opt/helpers -- sh -c '/opt/helpers/try-syscall open_tty; echo sid \$(cut -d\" \" -f6 /proc/self/stat)'" /dev/null
	output=${output//$'\r'/}
	expect ENXIO open_tty
	grep -qx "sid 2" <<<"$output"
}

@test "escape: signal a host process" {
	sleep 60 &
	victim=$!
	run try_inside "kill=$victim"
	running "$victim"
	kill "$victim"
	expect ESRCH "kill=$victim"
}

@test "escape: ptrace the sandbox's init, or be traced" {
	refused EPERM ptrace_init ptrace_traceme ptrace
}

@test "escape: read another process's environment (/proc/1/environ)" {
	refused EACCES read=/proc/1/environ
}

@test "escape: the sandbox user is a host account; a host account reads the payload's environment" {
	run "$HARNESS" exec -- sh -c 'id -u; id -g; grep "^Groups:" /proc/self/status'
	[ "$status" -eq 0 ]
	uid=${lines[0]} gid=${lines[1]}
	[ "$uid" -gt 65535 ]
	refute getent passwd "$uid"
	refute getent group "$gid"
	[[ "${lines[2]}" =~ ^Groups:[[:space:]]*$ ]] # no supplementary groups
	# a real host account (uid 1000 where there is one) cannot read a payload's environment
	who=$(getent passwd 1000 | cut -d: -f1)
	who=${who:-nobody}
	"$HARNESS" exec --env SECRET=hunter2 -- sleep 30 &
	sandbox=$!
	payload_pid() { pgrep -P "$(pgrep -P $sandbox -n)" -n sleep; }
	wait_until 30 payload_pid >/dev/null
	payload=$(payload_pid)
	[ -n "$payload" ]
	run setpriv --reuid="$who" --regid="$(id -g "$who")" --clear-groups cat "/proc/$payload/environ"
	kill "$sandbox"
	wait "$sandbox" || true
	[ "$status" -ne 0 ]
	[[ "$output" == *"Permission denied"* ]]
}

@test "escape: AF_VSOCK socket to the hypervisor (not network-namespaced)" {
	refused EAFNOSUPPORT vsock_socket vsock_socket_high_bits
}

@test "escape: AF_PACKET socket" {
	refused EAFNOSUPPORT packet_socket
}

@test "escape: AF_BLUETOOTH socket" {
	refused EAFNOSUPPORT bluetooth_socket
}

@test "escape: AF_ALG socket (kernel crypto API)" {
	refused EAFNOSUPPORT alg_socket
	# what runtimes need still works
	run try_inside inet_socket unix_socket personality_linux
	expect ok inet_socket unix_socket personality_linux
}

@test "escape: personality(READ_IMPLIES_EXEC) and ADDR_NO_RANDOMIZE" {
	refused EPERM personality_read_implies_exec personality_no_randomize
}

@test "escape: NUMA placement (mbind, set_mempolicy, migrate_pages, move_pages)" {
	refused EPERM mbind set_mempolicy migrate_pages move_pages
}

@test "escape: another process's memory (process_vm_readv, process_vm_writev, kcmp)" {
	refused EPERM process_vm_readv process_vm_writev kcmp
}

@test "escape: the kernel keyring (add_key, request_key, keyctl)" {
	refused EPERM add_key request_key keyctl
}

@test "escape: bpf" {
	refused EPERM bpf
}

@test "escape: perf_event_open" {
	refused EPERM perf_event_open
}

@test "escape: userfaultfd" {
	refused EPERM userfaultfd
}

@test "escape: kexec (kexec_load, kexec_file_load)" {
	refused EPERM kexec_load kexec_file_load
}

@test "escape: load or remove a kernel module" {
	refused EPERM init_module finit_module delete_module
}

@test "escape: reboot" {
	refused EPERM reboot
}

@test "escape: swapon" {
	refused EPERM swapon
}

@test "escape: port I/O (iopl, ioperm)" {
	refused EPERM iopl ioperm
}

@test "escape: process accounting (acct) and quotas (quotactl)" {
	refused EPERM acct quotactl
}

@test "escape: set the clock (clock_settime, settimeofday)" {
	refused EPERM clock_settime settimeofday
}

@test "escape: read the kernel log (syslog)" {
	refused EPERM syslog
}

@test "escape: a local descriptor table (modify_ldt)" {
	refused EPERM modify_ldt
}

@test "escape: sethostname" {
	refused EPERM sethostname
}

@test "escape: mount a file system, or proc over /tmp" {
	refused EPERM mount mount_proc
}

@test "escape: unmount the root, or remount it read-write" {
	refused EPERM umount umount_root remount_rw
}

@test "escape: pivot_root and chroot" {
	refused EPERM pivot_root chroot
}

@test "escape: the new mount API (open_tree, move_mount, fsopen)" {
	refused EPERM open_tree move_mount fsopen
}

@test "escape: unshare a user, PID, cgroup, mount or network namespace" {
	refused EPERM unshare-user unshare_pid unshare_cgroup unshare-mount unshare-net
}

@test "escape: clone into a new user namespace; clone3 (flags out of seccomp's sight)" {
	refused EPERM clone_newuser clone-newns
	refused ENOSYS clone3
}

@test "escape: setns into init's namespaces" {
	run try_inside setns
	grep -qxE 'setns (EPERM|EACCES)' <<<"$output"
}

@test "escape: open_by_handle_at and name_to_handle_at (the shocker exploit)" {
	refused EPERM open_by_handle_at name_to_handle_at
}

@test "escape: fanotify_init" {
	refused EPERM fanotify_init
}

@test "escape: mknod a device" {
	refused EPERM mknod
}

@test "escape: chown a file to root" {
	refused EPERM chown_root
}

@test "escape: setuid(0)" {
	refused EPERM setuid0
}

@test "escape: raise RLIMIT_NOFILE's hard limit" {
	refused EPERM raise_nofile
}

# A kernel with the 32-bit entry (IA32 emulation: Debian's, the guest's) hands int 0x80 to seccomp, whose filter
# kills the process for the foreign architecture (SIGSYS). A kernel built or booted without it (6.18 here: int 0x80
# is a general protection fault) kills it with SIGSEGV before any filter: then the syscall cannot run anywhere, and
# what this checks is that it did not run inside either. The guest's sandbox suite runs this test on Debian's kernel.
@test "escape: a 32-bit syscall (int 0x80) is killed, not run" {
	local want=159 # 128 + SIGSYS
	run "$HELPERS/try-syscall" int80
	if [ "$status" -eq 139 ] && [ -z "$output" ]; then
		want=139 # 128 + SIGSEGV: no 32-bit entry in this kernel
		echo "# this kernel has no 32-bit syscall entry: int 0x80 faults before seccomp" >&3
	fi
	run try_inside int80
	[ "$status" -eq "$want" ]
	refute grep -q "^int80" <<<"$output"
}

@test "escape: /sys is not there" {
	refused ENOENT opendir=/sys/kernel opendir=/sys/fs/cgroup
}

@test "escape: kernel addresses from /proc/kallsyms" {
	refused EACCES read=/proc/kallsyms
}

@test "escape: other users' keys (/proc/keys, /proc/key-users)" {
	refused EACCES read=/proc/keys read=/proc/key-users
}

@test "escape: the kernel's command line (/proc/cmdline)" {
	refused EACCES read=/proc/cmdline
}

@test "escape: physical memory through /proc/kcore" {
	run try_inside read=/proc/kcore
	grep -qxE 'read=/proc/kcore (EACCES|ENOENT)' <<<"$output" # ENOENT: a kernel without it
}

@test "escape: every masked /proc path is covered, /proc/sys and its kin are read-only mounts" {
	run "$HARNESS" exec -- sh -c 'cat /proc/self/mountinfo; for p in acpi asound keys key-users kallsyms cmdline latency_stats timer_list sched_debug scsi modules; do
		[ -e /proc/$p ] && { cat /proc/$p >/dev/null 2>&1 || ls /proc/$p/ >/dev/null 2>&1; } && echo "readable $p"; done; true'
	[ "$status" -eq 0 ]
	refute grep -q '^readable' <<<"$output"
	for p in bus fs irq sys; do
		grep -qE " /proc/$p ro," <<<"$output" || { echo "/proc/$p is not read-only"; return 1; }
	done
}

@test "escape: write /proc/sysrq-trigger" {
	run try_inside write=/proc/sysrq-trigger
	grep -qxE 'write=/proc/sysrq-trigger (EACCES|EROFS|ENOENT)' <<<"$output"
}

@test "escape: write /proc/sys (kernel.hostname, vm.drop_caches)" {
	refused EACCES write=/proc/sys/kernel/hostname write=/proc/sys/vm/drop_caches
}

@test "escape: every mount inside is nosuid, and nodev but for the /dev nodes" {
	run "$HARNESS" exec -- cat /proc/self/mountinfo
	[ "$status" -eq 0 ]
	while read -r _ _ _ _ mp opts _; do
		[[ "$opts" == *nosuid* ]] || [[ "$mp" == /dev/* && "$mp" != /dev/shm ]] || { echo "$mp: $opts"; return 1; }
		[[ "$opts" == *nodev* ]] || [[ "$mp" == /dev || "$mp" == /dev/* ]] || { echo "$mp: $opts"; return 1; }
	done <<<"$output"
}

@test "escape: write through a read-only bind's submount" {
	mkdir -p "$BATS_TEST_TMPDIR/tree/sub"
	# the submount lives in a mount namespace of this test's own: nothing global is mounted
	run unshare -m --propagation private sh -c "mount -t tmpfs none '$BATS_TEST_TMPDIR/tree/sub' &&
		'$HARNESS' exec --bind '$HELPERS:/opt/helpers' --bind '$BATS_TEST_TMPDIR/tree:/data' -- \
			/opt/helpers/try-syscall create=/data/sub/x create=/data/y"
	expect EROFS create=/data/sub/x create=/data/y
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/tree/sub")" ]
}

@test "escape: a setuid-root binary in a bind (nosuid, no_new_privs)" {
	mkdir -p "$BATS_TEST_TMPDIR/suid"
	cp /usr/bin/id "$BATS_TEST_TMPDIR/suid/id"
	chmod 4755 "$BATS_TEST_TMPDIR/suid/id"
	run "$HARNESS" exec --bind "$BATS_TEST_TMPDIR/suid:/data" -- /data/id -u
	[ "$status" -eq 0 ]
	[ "$output" != 0 ]
	[ "$output" -gt 65535 ]
}

@test "escape: a device node in a bind (nodev)" {
	mkdir -p "$BATS_TEST_TMPDIR/dev"
	mknod -m 0666 "$BATS_TEST_TMPDIR/dev/null" c 1 3
	refused_dev() {
		"$HARNESS" exec --bind "$HELPERS:/opt/helpers" --bind "$BATS_TEST_TMPDIR/dev:/data" -- \
			/opt/helpers/try-syscall read=/data/null
	}
	run refused_dev
	expect EACCES read=/data/null
}

@test "escape: regain capabilities by executing a file with file capabilities" {
	command -v setcap >/dev/null || hx_skip "needs setcap (libcap2-bin)"
	mkdir -p "$BATS_TEST_TMPDIR/caps"
	cp "$HELPERS/try-syscall" "$BATS_TEST_TMPDIR/caps/"
	setcap cap_sys_admin,cap_sys_ptrace,cap_dac_override+ep "$BATS_TEST_TMPDIR/caps/try-syscall"
	run "$HARNESS" exec --bind "$BATS_TEST_TMPDIR/caps:/data" -- /data/try-syscall mount ptrace_init read=/proc/kallsyms
	expect EPERM mount ptrace_init
	expect EACCES read=/proc/kallsyms
}

@test "escape: a bind target naming the old root is refused before anything is made" {
	run "$HARNESS" exec --bind "$BATS_TEST_TMPDIR/host:/.oldroot/tmp/harness-escape-$$" -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"DST not /, /proc, /dev, /.oldroot"* ]]
	[ ! -e "/tmp/harness-escape-$$" ]
}

@test "escape: a bind target through a symbolic link in an earlier bind (to the old root)" {
	mkdir -p "$BATS_TEST_TMPDIR/tree"
	ln -s "/.oldroot/tmp/harness-escape-$$" "$BATS_TEST_TMPDIR/tree/node_modules"
	ln -s "../../.oldroot/tmp/harness-escape-rel-$$" "$BATS_TEST_TMPDIR/tree/rel"
	run "$HARNESS" exec --bind "$BATS_TEST_TMPDIR/tree:/scenario" --bind "$BATS_TEST_TMPDIR/host:/scenario/node_modules/x" -- true
	[ "$status" -eq 4 ]
	[[ "$output" == *"bind target outside the new root"* ]]
	run "$HARNESS" exec --bind "$BATS_TEST_TMPDIR/tree:/scenario" --bind "$BATS_TEST_TMPDIR/host:/scenario/rel" -- true
	[ "$status" -eq 4 ]
	[[ "$output" == *"bind target outside the new root"* ]]
	[ ! -e "/tmp/harness-escape-$$" ]
	[ ! -e "/tmp/harness-escape-rel-$$" ]
}

# The cgroup file of one controller for a process: v2 (the unified line) or v1 (the controller's own).
cg_file() {
	local pid=$1 v1=$2 v2=$3 path
	if path=$(grep -m1 -E "^[0-9]+:([^:]*,)?${v1%%.*}(,[^:]*)?:" "/proc/$pid/cgroup" | cut -d: -f3-) && [ -n "$path" ]; then
		echo "/sys/fs/cgroup/${v1%%.*}$path/$v1"
	else
		echo "/sys/fs/cgroup$(grep -m1 '^0::' "/proc/$pid/cgroup" | cut -d: -f3-)/$v2"
	fi
}

@test "escape: a tmpfs (HOME) through a symbolic link in a caller's bind at /home" {
	mkdir -p "$BATS_TEST_TMPDIR/homes"
	ln -s "/.oldroot/tmp/harness-escape-home-$$" "$BATS_TEST_TMPDIR/homes/harness"
	run "$HARNESS" exec --bind "$BATS_TEST_TMPDIR/homes:/home" -- true
	[ "$status" -eq 4 ]
	[[ "$output" == *"tmpfs target outside the new root"* ]]
	[ ! -e "/tmp/harness-escape-home-$$" ]
}

@test "escape: run without --memory or --pids-max: the runtime's and the client's slices are still limited" {
	"$HARNESS" exec --client 'sleep 30' -- sleep 30 &
	runner=$!
	two_sleeps() { [ "$(own_pgrep '^sleep 30$' | wc -l)" -eq 2 ]; }
	wait_until 10 two_sleeps
	for payload in $(own_pgrep '^sleep 30$'); do
		mem=$(cat "$(cg_file "$payload" memory.limit_in_bytes memory.max)")
		pids=$(cat "$(cg_file "$payload" pids.max pids.max)")
		echo "$payload: memory $mem pids $pids"
		[ "$mem" != max ] && [ "$mem" -le $((4 << 30)) ]
		[ "$pids" != max ] && [ "$pids" -le 4096 ]
	done
	kill "$runner"
	wait "$runner" || true
}

@test "escape: flood the output harness keeps (96 MiB from a script): a bounded head and tail are kept, the trial passes" {
	[ -x /usr/bin/node ] || "$HARNESS" images ls | grep -q '^node20 .* present' || hx_skip "needs the node20 image"
	run --separate-stderr "$HARNESS" run --cpus 1 --runtimes node20 --keep --out "$BATS_TEST_TMPDIR/r.json" \
		"$HARNESS_FIXTURES/scenarios/output-flood"
	echo "$stderr" | tail -3
	logs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["config"]["logs"])' "$BATS_TEST_TMPDIR/r.json")
	python3 - "$BATS_TEST_TMPDIR/r.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["trials"][0]
assert t["status"] == "ok", t
assert t["script"]["flooded_mib"] == 48, t["script"]
PY
	for f in "$logs"/script-output-flood-*; do
		size=$(stat -c %s "$f")
		echo "$f: $size bytes"
		[ "$size" -le $(((16 << 20) + (64 << 10) + 200)) ]
		grep -aq '^\[harness: [0-9]* bytes of output dropped here' "$f"
	done
	[ "$status" -eq 0 ]
	rm -rf "$logs" # --keep: ours to remove
}
