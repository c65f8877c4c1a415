/* Rootless runs: the user namespace harness enters, and the sandbox user that follows from it. */
#include "sandbox/sbx_userns.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"

static bool userns_active;
static struct sbx_userns_map userns_map;

int sbx_userns_enter(struct hx_err *err)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];

	if (unshare(CLONE_NEWUSER) < 0) {
		if (errno == EPERM || errno == ENOSPC)
			return hx_fail(err, HX_EXIT_HOST, errno,
				       "rootless: the kernel refuses a user namespace: %s (harness doctor says why)",
				       strerror(errno));
		return hx_syserr(err, "rootless: unshare a user namespace");
	}
	/* an unprivileged map of one id is allowed only with setgroups denied (user_namespaces(7), Linux 3.19) */
	if (util_write_file("/proc/self/setgroups", "deny", err) < 0)
		return hx_wrap(err, "rootless: setgroups");
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
	if (util_write_file("/proc/self/uid_map", map, err) < 0)
		return hx_wrap(err, "rootless: uid_map");
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
	if (util_write_file("/proc/self/gid_map", map, err) < 0)
		return hx_wrap(err, "rootless: gid_map");
	/* a mount namespace of the user namespace's own: a new mount there is ours to make (a prepare step's
	 * tmpfs: fsopen asks for CAP_SYS_ADMIN over the namespace that owns our mounts), seen by nobody else */
	if (unshare(CLONE_NEWNS) < 0)
		return hx_syserr(err, "rootless: unshare a mount namespace");
	userns_map = (struct sbx_userns_map){.outer_uid = uid, .outer_gid = gid};
	userns_active = true;
	return 0;
}

bool sbx_userns_active(struct sbx_userns_map *ret)
{
	if (userns_active && ret)
		*ret = userns_map;
	return userns_active;
}

uid_t sbx_role_uid(enum sbx_role r)
{
	/* SBX_ROLE_OF_SLICE never gets here resolved: it is the runtime's, as it always was */
	return userns_active ? 0 : SBX_UID + (uid_t)(r > SBX_ROLE_SUT ? r - SBX_ROLE_SUT : 0);
}

const char *sbx_role_name_of_uid(uid_t uid)
{
	static const char *const names[] = {"sut", "bare", "client", "fixture", "noise", "prepare"};

	return uid >= SBX_UID && uid - SBX_UID < HX_ARRAY_SIZE(names) ? names[uid - SBX_UID] : NULL;
}

gid_t sbx_role_gid(enum sbx_role r)
{
	return userns_active ? 0 : SBX_GID + (gid_t)(r > SBX_ROLE_SUT ? r - SBX_ROLE_SUT : 0);
}
