/* libseccomp filter for sandboxes: EPERM for the mount, namespace, tracing, kernel-admin, key, NUMA and
 * clock families; ENOSYS for clone3 (its flags sit behind a pointer seccomp cannot read, so libc falls back
 * to clone, whose namespace flags are checked); argument checks only on calls a runtime makes rarely or
 * cheaply (clone, socket, socketpair, personality, ioctl): every other syscall's answer is constant, which
 * the kernel caches (Linux 5.11+). Other architectures' syscalls kill the process. */
#include "sandbox/sbx_seccomp.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include "base/cleanup.h"
#include "base/util.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static const char *const sbx_denied[] = {
	/* mounts, old and new API */
	"mount",
	"umount",
	"umount2",
	"pivot_root",
	"chroot",
	"move_mount",
	"open_tree",
	"fsopen",
	"fsconfig",
	"fsmount",
	"fspick",
	"mount_setattr",
	"open_tree_attr",
	/* namespaces */
	"unshare",
	"setns",
	/* looking into other processes */
	"ptrace",
	"process_vm_readv",
	"process_vm_writev",
	"kcmp",
	"pidfd_getfd",
	"process_madvise",
	/* NUMA placement: another process's pages, or memory the slice's cpuset did not give */
	"mbind",
	"set_mempolicy",
	"get_mempolicy",
	"set_mempolicy_home_node",
	"migrate_pages",
	"move_pages",
	/* the kernel itself */
	"kexec_load",
	"kexec_file_load",
	"init_module",
	"finit_module",
	"delete_module",
	"create_module",
	"bpf",
	"reboot",
	"swapon",
	"swapoff",
	"acct",
	"quotactl",
	"quotactl_fd",
	"syslog",
	"iopl",
	"ioperm",
	"lookup_dcookie",
	"nfsservctl",
	"uselib",
	"vhangup",
	"perf_event_open",
	"userfaultfd",
	"open_by_handle_at",
	"name_to_handle_at",
	"fanotify_init",
	"modify_ldt",
	"sethostname",
	"setdomainname",
	"lsm_set_self_attr",
	/* obsolete, or read kernel state no runtime needs */
	"ustat",
	"sysfs",
	"_sysctl",
	"get_kernel_syms",
	"query_module",
	"vserver",
	/* keys */
	"add_key",
	"request_key",
	"keyctl",
	/* clocks */
	"settimeofday",
	"clock_settime",
	"clock_adjtime",
	"adjtimex",
	"stime",
};

static const char *const sbx_io_uring[] = {"io_uring_setup", "io_uring_enter", "io_uring_register"};

/* Docker's allowed personalities: PER_LINUX, PER_LINUX32, UNAME26 and their union; every other flag bit
 * (READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE, ...) is refused. */
#define SBX_PERSONALITY_OK (PER_LINUX32 | UNAME26)

/* The families a runtime uses: files and pipes, TCP/UDP, and netlink for its interface list. */
static const int sbx_families[] = {AF_UNIX, AF_INET, AF_INET6, AF_NETLINK};

/* typing into a terminal (CVE-2017-5226), and TIOCLINUX, whose selection paste types into a console too */
static const unsigned long sbx_ioctls[] = {TIOCSTI, TIOCLINUX};

static const unsigned long sbx_ns_flags[] = {CLONE_NEWNS,  CLONE_NEWUTS, CLONE_NEWIPC,	  CLONE_NEWUSER,
					     CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP, CLONE_NEWTIME};

static int deny(scmp_filter_ctx ctx, const char *name, int errnum)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr == __NR_SCMP_ERROR)
		return 0; /* not a syscall on this architecture */
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned)errnum), nr, 0);
}

/* personality: refuse each flag bit outside Docker's allowed set. (libseccomp takes one comparison per argument
 * and rule, so "none of these values" is written as one rule per bit; the query 0xffffffff is refused too.) */
static int deny_personality(scmp_filter_ctx ctx)
{
	int r = 0;

	for (unsigned b = 0; b < 32 && r == 0; b++)
		if (!(SBX_PERSONALITY_OK & (1u << b)))
			r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(personality), 1,
					     SCMP_A0(SCMP_CMP_MASKED_EQ, 1u << b, 1u << b));
	return r;
}

static bool family_ok(int f, int nfamilies)
{
	for (int i = 0; i < nfamilies; i++)
		if (sbx_families[i] == f)
			return true;
	return false;
}

/* socket and socketpair: EAFNOSUPPORT, as from a kernel without the family, for every family up to the
 * highest allowed one that is not allowed, and for anything above it. The family is an int: compare its
 * low 32 bits, as the kernel does. */
static int deny_families(scmp_filter_ctx ctx, int nr, int nfamilies)
{
	int top = 0, r = 0;

	for (int i = 0; i < nfamilies; i++)
		if (sbx_families[i] > top)
			top = sbx_families[i];
	for (int f = 0; f <= top && r == 0; f++)
		if (!family_ok(f, nfamilies))
			r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), nr, 1,
					     SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, (scmp_datum_t)f));
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), nr, 1, SCMP_A0(SCMP_CMP_GT, (scmp_datum_t)top));
	return r;
}

static int deny_arguments(scmp_filter_ctx ctx)
{
	int r = deny_personality(ctx);

	if (r == 0)
		r = deny_families(ctx, SCMP_SYS(socket), (int)HX_ARRAY_SIZE(sbx_families));
	if (r == 0)
		r = deny_families(ctx, SCMP_SYS(socketpair), 1); /* AF_UNIX only */
	/* sock_diag (ss, inet_diag) lists every socket of the network namespace, the other roles' too, with their
	 * inodes and queues; NETLINK_ROUTE (getifaddrs) stays */
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 2,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, AF_NETLINK),
				     SCMP_A2(SCMP_CMP_MASKED_EQ, 0xffffffffu, NETLINK_SOCK_DIAG));
	/* the request is an unsigned int: bits above 32 must not slip past (bubblewrap's TIOCSTI check) */
	for (size_t i = 0; i < HX_ARRAY_SIZE(sbx_ioctls) && r == 0; i++)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, sbx_ioctls[i]));
	for (size_t i = 0; i < HX_ARRAY_SIZE(sbx_ns_flags) && r == 0; i++)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, sbx_ns_flags[i], sbx_ns_flags[i]));
	return r;
}

static int build(const struct sbx_seccomp_opts *o, scmp_filter_ctx ctx)
{
	int r = 0;

	/* a binary search over syscall numbers instead of a linear list (libseccomp 2.5+; older ones keep the
	 * list, which is correct, only slower for the calls the kernel cannot cache) */
	seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	for (size_t i = 0; i < HX_ARRAY_SIZE(sbx_denied) && r == 0; i++)
		r = deny(ctx, sbx_denied[i], EPERM);
	for (size_t i = 0; i < HX_ARRAY_SIZE(sbx_io_uring) && r == 0 && !o->allow_io_uring; i++)
		r = deny(ctx, sbx_io_uring[i], EPERM);
	if (r == 0)
		r = deny(ctx, "clone3", ENOSYS);
	if (r == 0)
		r = deny_arguments(ctx);
	return r;
}

/* The BPF program, generated once here: the child only hands it to the kernel (seccomp_load would generate it
 * again in every sandbox, on the clock of its start). */
static int export_program(scmp_filter_ctx ctx, struct sock_fprog *prog)
{
	_cleanup_close_ int fd = memfd_create("sbx-seccomp", MFD_CLOEXEC);
	struct stat st;
	int r;

	if (fd < 0)
		return -errno;
	if ((r = seccomp_export_bpf(ctx, fd)) < 0)
		return r;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size <= 0 || st.st_size % (off_t)sizeof(struct sock_filter) != 0 ||
	    st.st_size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS)
		return -E2BIG;
	prog->filter = malloc((size_t)st.st_size);
	if (!prog->filter)
		return -ENOMEM;
	prog->len = (unsigned short)(st.st_size / (off_t)sizeof(struct sock_filter));
	if (pread(fd, prog->filter, (size_t)st.st_size, 0) != st.st_size) {
		free(prog->filter);
		prog->filter = NULL;
		return -EIO;
	}
	return 0;
}

int sbx_seccomp_prepare(const struct sbx_seccomp_opts *o, void **ret_ctx, struct hx_err *err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	struct sock_fprog *prog;
	int r;

	if (!ctx)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "sandbox: seccomp_init failed");
	prog = calloc(1, sizeof(*prog));
	r = prog ? build(o, ctx) : -ENOMEM;
	if (r == 0)
		r = export_program(ctx, prog);
	seccomp_release(ctx);
	if (r < 0) {
		free(prog);
		return hx_fail(err, HX_EXIT_INTERNAL, -r, "sandbox: building the seccomp filter: %s", strerror(-r));
	}
	*ret_ctx = prog;
	return 0;
}

int sbx_seccomp_apply_in_child(void *ctx)
{
	/* no_new_privs is already set (sbx_caps), which lets an unprivileged process install a filter */
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, (struct sock_fprog *)ctx) < 0)
		return -errno;
	return 0;
}

void sbx_seccomp_cleanup(void **ctx)
{
	struct sock_fprog *prog = *ctx;

	if (prog)
		free(prog->filter);
	free(prog);
	*ctx = NULL;
}

void sbx_seccomp_describe(const struct sbx_seccomp_opts *o, struct sbx_seccomp_desc *ret)
{
	_Static_assert(HX_ARRAY_SIZE(sbx_denied) + HX_ARRAY_SIZE(sbx_io_uring) + 5 <= SBX_SECCOMP_MAX_DESC,
		       "room for every refused syscall");
	memset(ret, 0, sizeof(*ret));
	ret->default_action = "allow";
	ret->other_architectures = "kill";
	for (size_t i = 0; i < HX_ARRAY_SIZE(sbx_denied); i++)
		ret->eperm[ret->neperm++] = sbx_denied[i];
	for (size_t i = 0; i < HX_ARRAY_SIZE(sbx_io_uring) && !o->allow_io_uring; i++)
		ret->eperm[ret->neperm++] = sbx_io_uring[i];
	ret->eperm[ret->neperm++] = "clone with any CLONE_NEW* flag";
	ret->eperm[ret->neperm++] = "personality with a flag other than PER_LINUX32 or UNAME26";
	ret->eperm[ret->neperm++] = "ioctl TIOCSTI";
	ret->eperm[ret->neperm++] = "ioctl TIOCLINUX";
	ret->eperm[ret->neperm++] = "socket AF_NETLINK NETLINK_SOCK_DIAG";
	ret->eafnosupport[ret->neafnosupport++] =
		"socket outside AF_UNIX, AF_INET, AF_INET6, AF_NETLINK; socketpair outside AF_UNIX";
	ret->enosys[ret->nenosys++] = "clone3";
	ret->io_uring_allowed = o->allow_io_uring;
}
