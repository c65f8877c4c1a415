/* libseccomp filter for sandboxes: EPERM for the mount, namespace, tracing, kernel-admin and key
 * families; ENOSYS for clone3 (its flags sit behind a pointer seccomp cannot read, so libc falls back
 * to clone, whose namespace flags are checked). Other architectures' syscalls kill the process. */
#include "sandbox/sbx_seccomp.h"

#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <string.h>

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
	/* namespaces */
	"unshare",
	"setns",
	/* looking into other processes */
	"ptrace",
	"process_vm_readv",
	"process_vm_writev",
	"kcmp",
	"pidfd_getfd",
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

static const unsigned long sbx_ns_flags[] = {CLONE_NEWNS,  CLONE_NEWUTS, CLONE_NEWIPC,	  CLONE_NEWUSER,
					     CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP, CLONE_NEWTIME};

static int deny(scmp_filter_ctx ctx, const char *name, int errnum)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr == __NR_SCMP_ERROR)
		return 0; /* not a syscall on this architecture */
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned)errnum), nr, 0);
}

int sbx_seccomp_prepare(const struct sbx_seccomp_opts *o, void **ret_ctx, struct hx_err *err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int r = 0;

	if (!ctx)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "sandbox: seccomp_init failed");
	for (size_t i = 0; i < HX_ARRAY_SIZE(sbx_denied) && r == 0; i++)
		r = deny(ctx, sbx_denied[i], EPERM);
	for (size_t i = 0; i < HX_ARRAY_SIZE(sbx_io_uring) && r == 0 && !o->allow_io_uring; i++)
		r = deny(ctx, sbx_io_uring[i], EPERM);
	if (r == 0)
		r = deny(ctx, "clone3", ENOSYS);
	for (size_t i = 0; i < HX_ARRAY_SIZE(sbx_ns_flags) && r == 0; i++)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, sbx_ns_flags[i], sbx_ns_flags[i]));
	if (r < 0) {
		seccomp_release(ctx);
		return hx_fail(err, HX_EXIT_INTERNAL, -r, "sandbox: building the seccomp filter: %s", strerror(-r));
	}
	*ret_ctx = ctx;
	return 0;
}

int sbx_seccomp_apply_in_child(void *ctx)
{
	return seccomp_load(ctx);
}

void sbx_seccomp_cleanup(void **ctx)
{
	if (*ctx)
		seccomp_release(*ctx);
	*ctx = NULL;
}

cJSON *sbx_seccomp_describe(const struct sbx_seccomp_opts *o)
{
	cJSON *d = cJSON_CreateObject();
	cJSON *eperm = cJSON_AddArrayToObject(d, "eperm");

	cJSON_AddStringToObject(d, "default", "allow");
	cJSON_AddStringToObject(d, "other_architectures", "kill");
	for (size_t i = 0; i < HX_ARRAY_SIZE(sbx_denied); i++)
		cJSON_AddItemToArray(eperm, cJSON_CreateString(sbx_denied[i]));
	for (size_t i = 0; i < HX_ARRAY_SIZE(sbx_io_uring) && !o->allow_io_uring; i++)
		cJSON_AddItemToArray(eperm, cJSON_CreateString(sbx_io_uring[i]));
	cJSON_AddItemToArray(eperm, cJSON_CreateString("clone with any CLONE_NEW* flag"));
	cJSON_AddItemToArray(cJSON_AddArrayToObject(d, "enosys"), cJSON_CreateString("clone3"));
	cJSON_AddBoolToObject(d, "io_uring_allowed", o->allow_io_uring);
	return d;
}
