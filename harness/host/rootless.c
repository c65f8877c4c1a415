/* The rootless facts: delegation of our cgroup v2 subtree and unprivileged user namespaces. */
#include "host/rootless.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "sandbox/sbx_userns.h"

#define CGROUP2_MAGIC 0x63677270

static void missing(struct rootless_facts *f, const char *what, const char *fix)
{
	if (f->nmissing == ROOTLESS_MAX_MISSING)
		return;
	snprintf(f->missing[f->nmissing].what, sizeof(f->missing[0].what), "%s", what);
	snprintf(f->missing[f->nmissing].fix, sizeof(f->missing[0].fix), "%s", fix);
	f->nmissing++;
}

/* A sysctl's number below proc_root; -1 when the kernel has no such knob. */
static long sysctl_num(const char *proc_root, const char *name)
{
	char path[PATH_MAX];
	_cleanup_free_ char *line = NULL;
	struct hx_err err = {0};
	uint64_t v;

	snprintf(path, sizeof(path), "%s/sys/%s", proc_root, name);
	if (util_read_line(path, &line, &err) < 0 || util_parse_u64(util_rstrip(line), &v) < 0)
		return -1;
	return (long)v;
}

/* Our cgroup v2 path from self/cgroup ("0::/user.slice/..."); "" when there is no unified entry. */
static void own_cgroup(const char *proc_root, char *buf, size_t len)
{
	char path[PATH_MAX];
	_cleanup_free_ char *text = NULL;
	struct hx_err err = {0};
	const char *p;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/self/cgroup", proc_root);
	if (util_read_file(path, &text, NULL, &err) < 0)
		return;
	for (p = text; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, "0::", 3) == 0) {
			snprintf(buf, len, "%.*s", (int)strcspn(p + 3, "\n"), p + 3);
			return;
		}
}

/* Delegated as systemd does it: the directory and the files that create, fill and split it are the user's. */
static void check_delegation(const char *cgroup_root, const char *cg, uid_t uid, struct rootless_facts *list)
{
	static const char *const files[] = {"", "/cgroup.procs", "/cgroup.subtree_control", "/cgroup.threads"};
	char path[PATH_MAX * 2], what[PATH_MAX * 2 + 128], fix[256];
	struct statfs fs;

	if (statfs(cgroup_root, &fs) < 0 || (unsigned long)fs.f_type != CGROUP2_MAGIC) {
		missing(list, "cgroup v2: this host's controllers are on cgroup v1, which cannot be delegated safely",
			"boot with systemd.unified_cgroup_hierarchy=1 (cgroup v2), or run harness as root");
		return;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		struct stat st;

		snprintf(path, sizeof(path), "%s%s%s", cgroup_root, cg, files[i]);
		if (stat(path, &st) == 0 && st.st_uid == uid)
			continue;
		snprintf(what, sizeof(what), "cgroup delegation: %s is not owned by uid %u", path, (unsigned)uid);
		snprintf(fix, sizeof(fix),
			 "start harness in a delegated scope: systemd-run --user --scope -p Delegate=yes harness ..., "
			 "or "
			 "a unit with Delegate=yes");
		missing(list, what, fix);
		return;
	}
}

static void check_userns(const char *proc_root, struct rootless_facts *list)
{
	if (sysctl_num(proc_root, "user/max_user_namespaces") == 0)
		missing(list, "user namespaces: user.max_user_namespaces is 0",
			"sysctl -w user.max_user_namespaces=15000");
	if (sysctl_num(proc_root, "kernel/unprivileged_userns_clone") == 0) /* Debian's switch */
		missing(list, "unprivileged user namespaces are off (kernel.unprivileged_userns_clone = 0)",
			"sysctl -w kernel.unprivileged_userns_clone=1");
	if (sysctl_num(proc_root, "kernel/apparmor_restrict_unprivileged_userns") == 1) /* Ubuntu 23.10+ */
		missing(list,
			"AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns "
			"= "
			"1, Ubuntu 23.10 and later)",
			"sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for harness "
			"with 'userns,'");
}

void rootless_probe(const char *proc_root, const char *cgroup_root, uid_t uid, struct rootless_facts *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->uid = uid;
	own_cgroup(proc_root, ret->cgroup, sizeof(ret->cgroup));
	check_delegation(cgroup_root, ret->cgroup, uid, ret);
	check_userns(proc_root, ret);
	sbx_subids_probe(uid, getegid(), &ret->roles);
	ret->possible = ret->nmissing == 0;
}

/* One line when the roles share the caller's uid: the run is still sandboxed, but its roles are kept apart by
 * their namespaces alone (docs/sandbox.md, Rootless). */
static void roles_warn(const char *verb)
{
	struct sbx_userns_map m;

	if (sbx_userns_active(&m) && !m.roles)
		fprintf(stderr,
			"harness %s: warning: rootless with one uid for every role (%s): the runtime, the client and "
			"the prepare steps are apart by their namespaces only, SO_REUSEPORT between them is not "
			"refused\n",
			verb, m.why_shared);
}

int rootless_enter(const char *verb, struct hx_err *err)
{
	struct rootless_facts *f;
	int rc;

	if (geteuid() == 0)
		return 0;
	f = calloc(1, sizeof(*f));
	if (!f)
		return hx_fail(err, HX_EXIT_INTERNAL, ENOMEM, "out of memory");
	rootless_probe("/proc", "/sys/fs/cgroup", geteuid(), f);
	if (!f->possible)
		rc = hx_fail(err, HX_EXIT_HOST, EPERM, "%s: not root, and rootless is not possible here: %s (fix: %s)",
			     verb, f->missing[0].what, f->missing[0].fix);
	else if ((rc = sbx_userns_enter(err)) < 0)
		hx_wrap(err, "%s", verb);
	else
		roles_warn(verb);
	free(f);
	return rc;
}
