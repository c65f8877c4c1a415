/* try-syscall NAME...: attempt each named operation and print "NAME ERRNO" (or "NAME ok"), so the
 * sandbox tests can check that each refused syscall fails with the errno the policy promises. */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <linux/reboot.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
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
};

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		size_t k;

		for (k = 0; k < sizeof(tries) / sizeof(tries[0]); k++)
			if (strcmp(argv[i], tries[k].name) == 0)
				break;
		if (k == sizeof(tries) / sizeof(tries[0])) {
			fprintf(stderr, "try-syscall: unknown operation '%s'\n", argv[i]);
			return 2;
		}
		errno = 0;
		if (tries[k].fn() < 0)
			printf("%s %s\n", argv[i], strerrorname_np(errno));
		else
			printf("%s ok\n", argv[i]);
	}
	return 0;
}
