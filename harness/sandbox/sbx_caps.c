/* Dropping privileges in the sandbox: libcap for the capability sets, prctl for the rest. */
#include "sandbox/sbx_caps.h"

#include <errno.h>
#include <grp.h>
#include <linux/securebits.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sandbox/sbx_userns.h"

static int caps_fail(const char **ret_step, const char *step)
{
	*ret_step = step;
	return -errno;
}

int sbx_caps_apply_in_child(uid_t uid, gid_t gid, const char **ret_step)
{
	struct rlimit nofile = {SBX_NOFILE, SBX_NOFILE}, core = {0, 0};
	struct sbx_userns_map map;
	cap_t none;
	int last = cap_max_bits() - 1;

	/* Raising the hard limit needs CAP_SYS_RESOURCE, which a harness in a container may lack: then
	 * the soft limit goes up to the hard one. */
	if (setrlimit(RLIMIT_NOFILE, &nofile) < 0) {
		if (errno != EPERM || getrlimit(RLIMIT_NOFILE, &nofile) < 0)
			return caps_fail(ret_step, "setrlimit NOFILE");
		nofile.rlim_cur = nofile.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &nofile) < 0)
			return caps_fail(ret_step, "setrlimit NOFILE");
	}
	if (setrlimit(RLIMIT_CORE, &core) < 0)
		return caps_fail(ret_step, "setrlimit CORE");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return caps_fail(ret_step, "no_new_privs");
	/* Rootless, the payload stays root of the user namespace: an execve must not give root its capabilities
	 * back (the bounding set below is empty too; this says it twice, locked). */
	if (sbx_userns_active(NULL) && prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED, 0, 0, 0) < 0)
		return caps_fail(ret_step, "securebits");
	for (int c = 0; c <= last; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			return caps_fail(ret_step, "drop bounding set");
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return caps_fail(ret_step, "clear ambient capabilities");
	/* setgroups is denied in a rootless run's namespace unless newgidmap mapped it (its only group is then the
	 * caller's) */
	if ((!sbx_userns_active(&map) || map.setgroups) && setgroups(0, NULL) < 0)
		return caps_fail(ret_step, "setgroups");
	if (setresgid(gid, gid, gid) < 0)
		return caps_fail(ret_step, "setresgid");
	if (setresuid(uid, uid, uid) < 0)
		return caps_fail(ret_step, "setresuid");
	/* Leaving uid 0 clears the permitted and effective sets already; make it explicit and checked. */
	none = cap_init();
	if (!none)
		return caps_fail(ret_step, "cap_init");
	if (cap_set_proc(none) < 0) {
		int e = errno;

		cap_free(none);
		errno = e;
		return caps_fail(ret_step, "cap_set_proc");
	}
	cap_free(none);
	return 0;
}
