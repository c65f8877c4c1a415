/* What harness needs to run without root, and what is missing: a cgroup v2 subtree delegated to the user
 * (what systemd's Delegate= gives: the cgroup chowned with its cgroup.procs, cgroup.subtree_control and
 * cgroup.threads) and user namespaces an unprivileged process may create (docs/doctor.md). */
#ifndef HX_ROOTLESS_H
#define HX_ROOTLESS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/err.h"
#include "sandbox/sbx_userns.h"

#define ROOTLESS_MAX_MISSING 8

/* What a rootless run would lack, each with its fix; doctor renders it ({"uid", "cgroup", "missing":
 * [{"what", "fix"}], "possible"}). */
struct rootless_facts {
	uid_t uid;
	char cgroup[PATH_MAX]; /* our cgroup v2 path; "": no unified entry */
	size_t nmissing;
	struct {
		char what[PATH_MAX * 2 + 128];
		char fix[256];
	} missing[ROOTLESS_MAX_MISSING];
	bool possible;
	struct sbx_subids roles; /* whether each role would be a user of its own (not needed: doctor says it) */
};

/* The facts for uid, read below proc_root ("/proc": self/cgroup and the sysctls) and cgroup_root (the
 * cgroup2 mount, "/sys/fs/cgroup"). Pure reads: testable on a fixture tree. */
void rootless_probe(const char *proc_root, const char *cgroup_root, uid_t uid, struct rootless_facts *ret);

/* What a run or exec does first: as root, nothing (the root path). Otherwise the facts for the caller, and when
 * rootless is possible here, harness enters its user namespace (sbx_userns_enter); when not, exit 3 with the first
 * thing missing and its fix, as doctor names it. Must run while harness is single-threaded. */
int rootless_enter(const char *verb, struct hx_err *err);

#endif
