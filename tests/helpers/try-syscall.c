/* try-syscall NAME[=ARG]...: attempt each named operation and print "NAME ERRNO" (or "NAME ok"), so the
 * sandbox tests can check that each refused syscall fails with the errno the policy promises. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/vm_sockets.h>
#include <linux/bpf.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <linux/reboot.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

static const char *arg; /* NAME=ARG: the operation's argument, else NULL */

static long t_mount(void)
{
	return mount("none", "/tmp", "tmpfs", 0, NULL);
}
static long t_umount(void)
{
	return umount2("/proc", MNT_DETACH);
}
static long t_pivot_root(void)
{
	return syscall(SYS_pivot_root, "/tmp", "/tmp");
}
static long t_chroot(void)
{
	return chroot("/tmp");
}
static long t_open_tree(void)
{
	return syscall(SYS_open_tree, AT_FDCWD, "/tmp", 0);
}
static long t_fsopen(void)
{
	return syscall(SYS_fsopen, "tmpfs", 0);
}
static long t_unshare_mount(void)
{
	return unshare(CLONE_NEWNS);
}
static long t_unshare_user(void)
{
	return unshare(CLONE_NEWUSER);
}
static long t_unshare_net(void)
{
	return unshare(CLONE_NEWNET);
}
static long t_clone_newns(void)
{
	long pid = syscall(SYS_clone, CLONE_NEWNS | SIGCHLD, NULL, NULL, NULL, NULL);

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return pid < 0 ? -1 : 0;
}
static long t_clone3(void)
{
	unsigned long long args[11] = {0};

	args[4] = SIGCHLD; /* exit_signal */
	long pid = syscall(SYS_clone3, args, sizeof(args));

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return pid < 0 ? -1 : 0;
}
static long t_setns(void)
{
	int fd = open("/proc/1/ns/net", O_RDONLY);

	if (fd < 0)
		return -1;
	return setns(fd, 0);
}
static long t_ptrace(void)
{
	pid_t kid = fork();
	long r;

	if (kid == 0) {
		pause();
		_exit(0);
	}
	r = ptrace(PTRACE_ATTACH, kid, NULL, NULL);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	return r;
}
static long t_process_vm_readv(void)
{
	char a[8], b[8];
	struct iovec l = {a, sizeof(a)}, r = {b, sizeof(b)};

	return process_vm_readv(getppid() ? getppid() : 1, &l, 1, &r, 1, 0);
}
static long t_kexec_load(void)
{
	return syscall(SYS_kexec_load, 0, 0, NULL, 0);
}
static long t_init_module(void)
{
	return syscall(SYS_init_module, NULL, 0, "");
}
static long t_finit_module(void)
{
	return syscall(SYS_finit_module, 0, "", 0);
}
static long t_delete_module(void)
{
	return syscall(SYS_delete_module, "x", 0);
}
static long t_bpf(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 4;
	a.max_entries = 1;
	return syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof(a));
}
static long t_keyctl(void)
{
	return syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
}
static long t_add_key(void)
{
	return syscall(SYS_add_key, "user", "x", "y", 1, KEY_SPEC_SESSION_KEYRING);
}
static long t_reboot(void)
{
	return syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2, LINUX_REBOOT_CMD_CAD_OFF, NULL);
}
static long t_swapon(void)
{
	return syscall(SYS_swapon, "/tmp/none", 0);
}
static long t_acct(void)
{
	return syscall(SYS_acct, NULL);
}
static long t_clock_settime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return clock_settime(CLOCK_REALTIME, &ts);
}
static long t_settimeofday(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return settimeofday(&tv, NULL);
}
static long t_perf_event_open(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	return syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}
static long t_userfaultfd(void)
{
	return syscall(SYS_userfaultfd, 0);
}
static long t_open_by_handle_at(void)
{
	return syscall(SYS_open_by_handle_at, AT_FDCWD, NULL, 0);
}
static long t_io_uring_setup(void)
{
	return syscall(SYS_io_uring_setup, 1, NULL);
}
static long t_raw_socket(void)
{
	return socket(AF_INET, SOCK_RAW, 1);
}
static long t_packet_socket(void)
{
	return socket(AF_PACKET, SOCK_RAW, 0);
}
static long t_mknod(void)
{
	return mknod("/tmp/null2", S_IFCHR | 0666, makedev(1, 3));
}
static long t_setuid0(void)
{
	return setuid(0);
}
static long t_write_usr(void)
{
	return open("/usr/harness-test", O_WRONLY | O_CREAT, 0644);
}
static long t_write_root(void)
{
	return open("/harness-test", O_WRONLY | O_CREAT, 0644);
}
static long t_read_shadow(void)
{
	return open("/etc/shadow", O_RDONLY);
}
static long t_read_root_home(void)
{
	return open("/root", O_RDONLY | O_DIRECTORY);
}

/* Any descriptor above 2 is one the sandbox let through: fchdir to it is how `3</` escapes. */
static long t_fd_walk(void)
{
	for (int fd = 3; fd < 65536; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			return fchdir(fd) < 0 ? -1 : 0;
	errno = EBADF;
	return -1;
}
static long t_tiocsti(void)
{
	char c = '#';

	return ioctl(0, TIOCSTI, &c);
}
/* The same request with bits above 32 set: the kernel truncates cmd to 32 bits, the filter must too. */
static long t_tiocsti_high_bits(void)
{
	char c = '#';

	return syscall(SYS_ioctl, 0, (1UL << 32) | TIOCSTI, &c);
}
static long t_tioclinux(void)
{
	char sub = 2; /* TIOCL_SETSEL */

	return ioctl(0, TIOCLINUX, &sub);
}
static long t_open_tty(void)
{
	return open("/dev/tty", O_RDWR);
}
static long t_kill(void)
{
	return kill(atoi(arg), SIGKILL);
}
static long t_ptrace_init(void)
{
	return ptrace(PTRACE_ATTACH, 1, NULL, NULL);
}
static long t_ptrace_traceme(void)
{
	return ptrace(PTRACE_TRACEME, 0, NULL, NULL);
}
/* Open ARG and read a byte from it. */
static long t_read(void)
{
	char c;
	int fd = open(arg, O_RDONLY);

	if (fd < 0)
		return -1;
	return read(fd, &c, 1) < 0 ? -1 : 0;
}
/* Open ARG for writing (no creation). */
static long t_write(void)
{
	int fd = open(arg, O_WRONLY);

	if (fd < 0)
		return -1;
	return write(fd, "0", 1) < 0 ? -1 : 0;
}
/* Create the file ARG. */
static long t_create(void)
{
	return open(arg, O_WRONLY | O_CREAT | O_EXCL, 0644);
}
static long t_opendir(void)
{
	return open(arg, O_RDONLY | O_DIRECTORY);
}
static long t_vsock_socket(void)
{
	return socket(AF_VSOCK, SOCK_STREAM, 0);
}
static long t_vsock_socket_high_bits(void)
{
	return syscall(SYS_socket, (1UL << 32) | AF_VSOCK, SOCK_STREAM, 0);
}
static long t_bluetooth_socket(void)
{
	return socket(AF_BLUETOOTH, SOCK_RAW, 1);
}
static long t_alg_socket(void)
{
	return socket(AF_ALG, SOCK_SEQPACKET, 0);
}
static long t_inet_socket(void)
{
	return socket(AF_INET, SOCK_STREAM, 0);
}
static long t_unix_socket(void)
{
	return socket(AF_UNIX, SOCK_STREAM, 0);
}
static long t_personality_read_implies_exec(void)
{
	return personality(PER_LINUX | READ_IMPLIES_EXEC);
}
static long t_personality_no_randomize(void)
{
	return personality(PER_LINUX | ADDR_NO_RANDOMIZE);
}
static long t_personality_linux(void)
{
	return personality(PER_LINUX);
}
static long t_mbind(void)
{
	return syscall(SYS_mbind, NULL, 0, 0, NULL, 0, 0);
}
static long t_set_mempolicy(void)
{
	return syscall(SYS_set_mempolicy, 0, NULL, 0);
}
static long t_migrate_pages(void)
{
	unsigned long mask = 1;

	return syscall(SYS_migrate_pages, 1, 8 * sizeof(mask), &mask, &mask);
}
static long t_move_pages(void)
{
	return syscall(SYS_move_pages, 1, 0, NULL, NULL, NULL, 0);
}
static long t_process_vm_writev(void)
{
	char a[8] = {0};
	struct iovec l = {a, sizeof(a)}, r = {a, sizeof(a)};

	return process_vm_writev(1, &l, 1, &r, 1, 0);
}
static long t_kcmp(void)
{
	return syscall(SYS_kcmp, getpid(), 1, 0, 0, 0);
}
static long t_request_key(void)
{
	return syscall(SYS_request_key, "user", "x", NULL, KEY_SPEC_SESSION_KEYRING);
}
static long t_kexec_file_load(void)
{
	return syscall(SYS_kexec_file_load, -1, -1, 0, "", 0);
}
static long t_iopl(void)
{
	return syscall(SYS_iopl, 3);
}
static long t_ioperm(void)
{
	return syscall(SYS_ioperm, 0x80, 1, 1);
}
static long t_quotactl(void)
{
	return syscall(SYS_quotactl, 0, "/", 0, NULL);
}
static long t_syslog(void)
{
	char buf[64];

	return syscall(SYS_syslog, 3 /* SYSLOG_ACTION_READ_ALL */, buf, sizeof(buf));
}
static long t_modify_ldt(void)
{
	char buf[16];

	return syscall(SYS_modify_ldt, 0, buf, sizeof(buf));
}
static long t_sethostname(void)
{
	return sethostname("escaped", 7);
}
static long t_name_to_handle_at(void)
{
	return syscall(SYS_name_to_handle_at, AT_FDCWD, "/", NULL, NULL, 0);
}
static long t_fanotify_init(void)
{
	return syscall(SYS_fanotify_init, 0, 0);
}
static long t_raise_nofile(void)
{
	struct rlimit r;

	getrlimit(RLIMIT_NOFILE, &r);
	r.rlim_max += 1;
	r.rlim_cur = r.rlim_max;
	return setrlimit(RLIMIT_NOFILE, &r);
}
static long t_chown_root(void)
{
	int fd = open("/tmp/chown-me", O_WRONLY | O_CREAT, 0644);

	if (fd < 0)
		return -1;
	return fchown(fd, 0, 0);
}
static long t_move_mount(void)
{
	return syscall(SYS_move_mount, AT_FDCWD, "/tmp", AT_FDCWD, "/home", 0);
}
static long t_umount_root(void)
{
	return umount2("/", MNT_DETACH);
}
static long t_remount_rw(void)
{
	return mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND, NULL);
}
static long t_mount_proc(void)
{
	return mount("proc", "/tmp", "proc", 0, NULL);
}
static long t_unshare_pid(void)
{
	return unshare(CLONE_NEWPID);
}
static long t_unshare_cgroup(void)
{
	return unshare(CLONE_NEWCGROUP);
}
static long t_clone_newuser(void)
{
	long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, NULL);

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return pid < 0 ? -1 : 0;
}
/* A 32-bit syscall (getpid through int 0x80): another architecture, which the filter kills. */
static long t_int80(void)
{
	long r = 20; /* i386 getpid */

	__asm__ volatile("int $0x80" : "+a"(r) : : "memory");
	return r < 0 ? (errno = (int)-r, -1) : 0;
}

static const struct {
	const char *name;
	long (*fn)(void);
} tries[] = {
	{"mount", t_mount},
	{"umount", t_umount},
	{"pivot_root", t_pivot_root},
	{"chroot", t_chroot},
	{"open_tree", t_open_tree},
	{"fsopen", t_fsopen},
	{"unshare-mount", t_unshare_mount},
	{"unshare-user", t_unshare_user},
	{"unshare-net", t_unshare_net},
	{"clone-newns", t_clone_newns},
	{"clone3", t_clone3},
	{"setns", t_setns},
	{"ptrace", t_ptrace},
	{"process_vm_readv", t_process_vm_readv},
	{"kexec_load", t_kexec_load},
	{"init_module", t_init_module},
	{"finit_module", t_finit_module},
	{"delete_module", t_delete_module},
	{"bpf", t_bpf},
	{"keyctl", t_keyctl},
	{"add_key", t_add_key},
	{"reboot", t_reboot},
	{"swapon", t_swapon},
	{"acct", t_acct},
	{"clock_settime", t_clock_settime},
	{"settimeofday", t_settimeofday},
	{"perf_event_open", t_perf_event_open},
	{"userfaultfd", t_userfaultfd},
	{"open_by_handle_at", t_open_by_handle_at},
	{"io_uring_setup", t_io_uring_setup},
	{"raw_socket", t_raw_socket},
	{"packet_socket", t_packet_socket},
	{"mknod", t_mknod},
	{"setuid0", t_setuid0},
	{"write_usr", t_write_usr},
	{"write_root", t_write_root},
	{"read_shadow", t_read_shadow},
	{"read_root_home", t_read_root_home},
	{"fd_walk", t_fd_walk},
	{"tiocsti", t_tiocsti},
	{"tiocsti_high_bits", t_tiocsti_high_bits},
	{"tioclinux", t_tioclinux},
	{"open_tty", t_open_tty},
	{"kill", t_kill},
	{"ptrace_init", t_ptrace_init},
	{"ptrace_traceme", t_ptrace_traceme},
	{"read", t_read},
	{"write", t_write},
	{"create", t_create},
	{"opendir", t_opendir},
	{"vsock_socket", t_vsock_socket},
	{"vsock_socket_high_bits", t_vsock_socket_high_bits},
	{"bluetooth_socket", t_bluetooth_socket},
	{"alg_socket", t_alg_socket},
	{"inet_socket", t_inet_socket},
	{"unix_socket", t_unix_socket},
	{"personality_read_implies_exec", t_personality_read_implies_exec},
	{"personality_no_randomize", t_personality_no_randomize},
	{"personality_linux", t_personality_linux},
	{"mbind", t_mbind},
	{"set_mempolicy", t_set_mempolicy},
	{"migrate_pages", t_migrate_pages},
	{"move_pages", t_move_pages},
	{"process_vm_writev", t_process_vm_writev},
	{"kcmp", t_kcmp},
	{"request_key", t_request_key},
	{"kexec_file_load", t_kexec_file_load},
	{"iopl", t_iopl},
	{"ioperm", t_ioperm},
	{"quotactl", t_quotactl},
	{"syslog", t_syslog},
	{"modify_ldt", t_modify_ldt},
	{"sethostname", t_sethostname},
	{"name_to_handle_at", t_name_to_handle_at},
	{"fanotify_init", t_fanotify_init},
	{"raise_nofile", t_raise_nofile},
	{"chown_root", t_chown_root},
	{"move_mount", t_move_mount},
	{"umount_root", t_umount_root},
	{"remount_rw", t_remount_rw},
	{"mount_proc", t_mount_proc},
	{"unshare_pid", t_unshare_pid},
	{"unshare_cgroup", t_unshare_cgroup},
	{"clone_newuser", t_clone_newuser},
	{"int80", t_int80},
};

static bool takes_arg(const char *name)
{
	static const char *const with[] = {"kill", "read", "write", "create", "opendir"};

	for (size_t i = 0; i < sizeof(with) / sizeof(with[0]); i++)
		if (strcmp(name, with[i]) == 0)
			return true;
	return false;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		size_t k;

		arg = eq ? eq + 1 : NULL;
		if (eq)
			*eq = '\0';
		for (k = 0; k < sizeof(tries) / sizeof(tries[0]); k++)
			if (strcmp(argv[i], tries[k].name) == 0)
				break;
		if (k == sizeof(tries) / sizeof(tries[0])) {
			fprintf(stderr, "try-syscall: unknown operation '%s'\n", argv[i]);
			return 2;
		}
		if (takes_arg(tries[k].name) != (arg != NULL)) {
			fprintf(stderr, "try-syscall: '%s' %s\n", argv[i], arg ? "takes no argument" : "needs =ARG");
			return 2;
		}
		errno = 0;
		fflush(stdout); /* a killed attempt (int80) leaves the earlier lines printed */
		if (tries[k].fn() < 0)
			printf("%s%s%s %s\n", argv[i], arg ? "=" : "", arg ? arg : "", strerrorname_np(errno));
		else
			printf("%s%s%s ok\n", argv[i], arg ? "=" : "", arg ? arg : "");
	}
	return 0;
}
